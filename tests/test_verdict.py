"""Verdicts merge worst-wins: no grid containing a non-proof ever merges into a proof."""

from hypothesis import given, strategies as st

import dataclasses
import json

from ioverify.verdict import (SEVERITY, Attained, Bounded, Certified, Evidence, Infeasible, Legal,
                              Optimal, Proved, Refuted, Unknown, Verified, bracket, describe,
                              exit_code, is_proof, from_json, merge, to_json)

EVIDENCE = Evidence("exhaustive-search")
verdicts = st.one_of(
    st.builds(Optimal, io=st.integers(0, 50), schedule=st.none(), evidence=st.just(EVIDENCE)),
    st.builds(Verified, bound=st.integers(0, 50), evidence=st.just(EVIDENCE)),
    st.builds(Attained, io=st.integers(0, 50), at_most=st.integers(0, 50), schedule=st.none(),
              evidence=st.just(Evidence("replay"))),
    st.builds(Refuted, schedule=st.none(), io=st.integers(0, 50)),
    st.builds(Bounded, horizon=st.integers(1, 100)),
    st.builds(Unknown, reason=st.text(max_size=5)),
    st.builds(Infeasible, reason=st.text(max_size=5)),
    st.builds(Certified, io=st.integers(0, 50), peak=st.integers(0, 50),
              formula=st.integers(0, 50), max_error=st.floats(0, 1),
              evidence=st.just(Evidence("kernel-certification"))),
    st.builds(Proved, statement=st.text(max_size=5),
              evidence=st.just(Evidence("symbolic-proof", {"method": "sympy"}))),
    st.builds(Legal, io=st.integers(0, 50), loads=st.integers(0, 9), stores=st.integers(0, 9),
              peak=st.integers(0, 9), moves=st.integers(0, 99), memory=st.integers(1, 9),
              evidence=st.just(Evidence("replay"))),
)


@given(verdicts)
def test_one_json_form_and_one_line_of_text_for_every_verdict(verdict):
    doc = json.loads(json.dumps(to_json(verdict)))
    assert doc["status"] == verdict.status in SEVERITY
    assert set(doc) == {"status"} | {f.name for f in dataclasses.fields(verdict)}
    line = describe(verdict)
    assert "\n" not in line and (line or verdict.status in ("unknown", "infeasible"))


def test_kernel_and_formula_verdicts_carry_no_bound():
    """Issue 13: a kernel's measured I/O or a proved formula is not a lower bound of 0."""
    for cls in (Certified, Proved, Legal):
        assert "bound" not in {f.name for f in dataclasses.fields(cls)}
        assert cls.status == "verified"


@given(st.lists(verdicts, max_size=8), st.lists(verdicts, max_size=8))
def test_unknown_never_becomes_verified(before, after):
    merged = merge(before + [Unknown("timeout")] + after)
    assert not is_proof(merged)
    assert SEVERITY[merged.status] >= SEVERITY["unknown"]


@given(st.lists(verdicts, min_size=1, max_size=8))
def test_merge_is_the_worst_and_order_free(grid):
    merged = merge(grid)
    assert merged.status == max((v.status for v in grid), key=SEVERITY.__getitem__)
    assert merge(reversed(grid)).status == merged.status
    assert is_proof(merged) == all(is_proof(v) for v in grid)


def test_empty_grid_proves_nothing():
    assert isinstance(merge([]), Unknown)


def test_exit_codes():
    assert exit_code(Optimal(3, None, EVIDENCE)) == 0
    assert exit_code(Verified(3, EVIDENCE)) == 0
    assert exit_code(Refuted(None, 2)) == 1
    assert exit_code(Bounded(10)) == 3
    assert exit_code(Unknown("x")) == 3


def test_evidence_kind_is_checked():
    import pytest

    with pytest.raises(ValueError, match="unknown evidence kind"):
        Evidence("it felt right")


@given(verdicts.filter(lambda v: not isinstance(v, Legal)))
def test_from_json_inverts_to_json(verdict):
    """Pages are rendered from certificates: the verdict read back is the verdict written."""
    assert from_json(json.loads(json.dumps(to_json(verdict)))) == verdict


def test_an_attained_upper_end_bounds_the_optimum_from_above_only():
    verdict = Attained(14, 15, None, Evidence("replay"))
    assert bracket(verdict) == (None, 14) and is_proof(verdict)
    assert "within the claimed upper end 15" in describe(verdict)
    assert type(from_json(to_json(verdict))) is Attained


def test_evidence_detail_cannot_rename_its_kind():
    """A detail key "kind" used to be written over the kind by ``to_json``: a carried proof
    came back from JSON as an exhaustive search."""
    import pytest

    with pytest.raises(ValueError, match="'kind' key"):
        Evidence("carried", {"kind": "exhaustive-search", "memory": 4})
    verdict = Verified(5, Evidence("carried", {"memory": 4}))
    assert from_json(json.loads(json.dumps(to_json(verdict)))) == verdict


def test_a_replayed_schedule_verdict_reads_back():
    """``from_json`` is the inverse of ``to_json``; a ``Legal`` (a replay's verdict) used to be
    a ValueError, read as a ``Verified`` without a bound."""
    verdict = Legal(7, 5, 2, 4, 21, 4, Evidence("replay"), "one-shot")
    assert from_json(json.loads(json.dumps(to_json(verdict)))) == verdict
