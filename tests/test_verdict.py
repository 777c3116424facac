"""Verdicts merge worst-wins: no grid containing a non-proof ever merges into a proof."""

from hypothesis import given, strategies as st

from ioverify.verdict import (SEVERITY, Bounded, Evidence, Infeasible, Optimal, Refuted, Unknown,
                              Verified, exit_code, is_proof, merge)

EVIDENCE = Evidence("exhaustive-search")
verdicts = st.one_of(
    st.builds(Optimal, io=st.integers(0, 50), schedule=st.none(), evidence=st.just(EVIDENCE)),
    st.builds(Verified, bound=st.integers(0, 50), evidence=st.just(EVIDENCE)),
    st.builds(Refuted, schedule=st.none(), io=st.integers(0, 50)),
    st.builds(Bounded, horizon=st.integers(1, 100)),
    st.builds(Unknown, reason=st.text(max_size=5)),
    st.builds(Infeasible, reason=st.text(max_size=5)),
)


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
