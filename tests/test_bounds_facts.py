"""Proved facts about the bounds, and the negative space: wrong variants are NOT proved."""

import pytest
import sympy
from sympy import sqrt

from ioverify.bounds import facts
from ioverify.bounds.facts import FACTS, at_most, crossover, prove, smallest_constant
from ioverify.bounds.symbols import M, d, n
from ioverify.errors import InvalidArgument

SLOW = {"explicit-vs-theta/attention-backward-explicit"}

LARGE, SMALL = n**2 * d**2 / M, n**2 * d / sqrt(M)


@pytest.mark.parametrize("fact_id", [f for f in FACTS if f not in SLOW])
def test_fact_is_proved(fact_id):
    result = prove(fact_id)
    assert result.status == "proved", result.detail
    assert result.method and result.statement


@pytest.mark.slow
@pytest.mark.parametrize("fact_id", sorted(SLOW))
def test_slow_fact_is_proved(fact_id):
    assert prove(fact_id).status == "proved"


def test_constants_found():
    expected = {"count-vs-theta/flash-forward-count": "30",
                "count-vs-theta/flash2-forward-count": "11",
                "explicit-vs-theta/attention-forward-explicit-small": "1/2",
                "explicit-vs-theta/attention-forward-explicit-large": "1"}
    for fact_id, c in expected.items():
        result = prove(fact_id)
        assert result.data["C"] == c
        assert result.data["below"]["status"] == "refuted"  # the next candidate down fails


def test_wrong_crossover_is_refuted():
    result = crossover(LARGE, SMALL, 2 * d**2)
    assert result.status == "refuted"


def test_swapped_branches_are_not_proved():
    assert crossover(SMALL, LARGE, d**2).status != "proved"


def test_constant_too_small_is_refuted_with_an_exact_instance():
    count = 2 * n * d + 4 * n * d / M * (3 * n * d + 4 * n)
    result = at_most(count, 29 * LARGE, [4 * d <= M, M <= n * d])
    assert result.status == "refuted"
    point = {sympy.Symbol(k, positive=True, integer=True): sympy.Rational(v)
             for k, v in result.data["counterexample"].items()}
    assert count.subs(point) > (29 * LARGE).subs(point)


def test_smallest_constant_reports_unproved_when_no_constant_works():
    # n^2 d^2 / M is not O(n^2 d / sqrt(M)) when M < d^2: no C on the ladder
    result = smallest_constant(LARGE, SMALL, [M < d**2])
    assert result.status != "proved"


def test_z3_unknown_is_reported_as_unknown():
    result = at_most(n**2 * d / (2 * sqrt(M)) - n**2, SMALL, [M >= 3], rlimit=1)
    assert result.status == "unknown"


def test_untranslatable_is_unknown_not_proved():
    result = facts.forall([], sympy.binomial(n + d, d) >= 1)
    assert result.status == "unknown"


def test_wrong_identity_is_refuted():
    assert facts.identity(LARGE, 2 * LARGE).status == "refuted"


def test_unknown_fact_id():
    with pytest.raises(InvalidArgument, match="unknown fact"):
        prove("crossover/nope")


@pytest.mark.slow
def test_prove_all_returns_data_and_proves_everything():
    results = facts.prove_all()
    assert [r.id for r in results] == list(FACTS)
    assert all(isinstance(r, facts.FactResult) and r.status == "proved" for r in results)


def test_findings_in_the_docs_are_backed_by_proved_facts():
    from ioverify.report.bounds import FINDINGS

    for fact_id, _ in FINDINGS:
        assert fact_id in FACTS  # each is proved by test_fact_is_proved
    assert prove("count-vs-theta/saha-ye-algorithm1").data["C"] == "23"
    assert prove("kernel-count-vs-theory/flash-forward-v1").data["difference"] == "n*(d + 2)"


def test_literal_blocks_fit_in_the_traced_kernel_where_the_fact_says():
    from ioverify.trace import kernel as kernels

    _, _, peak, blocks = kernels.count_only("flash-forward-v1", memory=64, literal_blocks=True,
                                            n=16, d=2)
    assert blocks == {"block_r": 2, "block_c": 8} and peak == 57 <= 64
    _, _, peak, _ = kernels.count_only("flash-forward-v1", memory=16, literal_blocks=True,
                                       n=16, d=2)
    assert peak > 16  # d <= M <= 4d^2: overflow


def test_a_real_integral_counterexample_refutes_and_an_undefined_point_does_not():
    assert facts.forall([M >= 2], 1 / (M - d**2) >= 0).status == "refuted"
    assert facts.forall([M >= 2, M > d**2], 1 / (M - d**2) >= 0).status == "proved"
