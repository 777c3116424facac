"""The bound records: coverage of the theory page, evaluation, regimes, refusals, the docs page."""

from pathlib import Path

import pytest
import sympy

from ioverify.bounds import FIRMNESS, KINDS, REGISTRY, get
from ioverify.report.bounds import render
from ioverify.errors import InvalidArgument

# Every result of the theory page (docs/theory.md), by the id its record carries.
STATED_RESULTS = (
    "hong-kung-partition", "hong-kung-dominated-size", "matmul-trivial", "matmul-lean",
    "matmul-lean-product", "cosma", "cosma-tiling", "saha-ye-thm3.1", "saha-ye-algorithm1",
    "attention-any-matmul", "attention-forward-explicit-large",
    "attention-forward-explicit-small", "attention-backward-v1", "attention-backward-v2",
    "attention-backward-explicit", "attention-backward-small-cache", "sparse-attention",
    "flash-forward-thm2", "standard-attention", "flash-backward-thm5", "flash-block-sparse",
    "flash-forward-count", "flash-backward-count", "flash2-forward-count",
    "approximate-attention-rank", "approximate-attention-blocked")

STATED_FIRMNESS = {"hong-kung-partition": "paper", "matmul-lean": "paper", "cosma": "paper",
                   "saha-ye-thm3.1": "paper", "attention-forward-explicit-large": "derived",
                   "attention-forward-explicit-small": "derived",
                   # v1: recalled, not summary: no readable source states it
                   "attention-backward-v2": "summary", "attention-backward-v1": "recalled",
                   "attention-backward-explicit": "derived", "sparse-attention": "recalled",
                   "flash-block-sparse": "paper", "flash-forward-count": "derived"}


@pytest.mark.parametrize("bound_id", STATED_RESULTS)
def test_every_theory_result_has_a_record(bound_id):
    bound = get(bound_id)
    assert bound.source and bound.statement and bound.graph and bound.variant
    assert bound.firmness in FIRMNESS and bound.kind in KINDS


@pytest.mark.parametrize("bound_id,firmness", sorted(STATED_FIRMNESS.items()))
def test_firmness_is_copied_from_theory(bound_id, firmness):
    assert get(bound_id).firmness == firmness


def test_theta_results_are_asymptotic_and_explicit_ones_are_not():
    for bound_id in ("saha-ye-thm3.1", "attention-backward-v2", "attention-backward-v1",
                     "sparse-attention", "attention-any-matmul", "flash-block-sparse"):
        assert get(bound_id).asymptotic
    for bound_id in ("matmul-lean", "cosma", "attention-forward-explicit-large",
                     "attention-backward-explicit", "saha-ye-algorithm1"):
        assert not get(bound_id).asymptotic


def test_kernel_counts_are_recorded_when_present():
    from ioverify.bounds.kernel_records import kernel_counts

    for name, expr in kernel_counts().items():
        assert get(f"kernel-{name}").expr == expr


def test_exact_values():
    assert get("matmul-trivial").evaluate(m=2, k=2, n=2, M=3) == 12
    assert get("cosma").evaluate(m=2, k=2, n=2, M=4, summation="chain") == 12
    assert get("saha-ye-algorithm1").evaluate(n=4, d=4, M=16) == 4 * 16 * 4 // 2 + 16 + 16 + 8
    assert get("attention-forward-explicit-large").evaluate(n=8, d=1, M=4) == \
        sympy.Rational(64, 8) - 4
    value = get("matmul-lean").evaluate(m=2, k=2, n=2, M=3)
    assert isinstance(value, float) and abs(value - (8 / 6**0.5 - 3)) < 1e-12
    assert get("matmul-lean").least_integer(m=4, k=4, n=4, M=3) == \
        int(sympy.ceiling(64 / sympy.sqrt(6) - 3))


def test_evaluate_refuses_parameters_outside_the_regime_naming_the_condition():
    with pytest.raises(InvalidArgument, match="B divides d"):
        get("saha-ye-algorithm1").evaluate(n=4, d=3, M=16)
    with pytest.raises(InvalidArgument, match="M >= 3"):
        get("matmul-lean").evaluate(m=2, k=2, n=2, M=2)
    with pytest.raises(InvalidArgument, match=r"M <= d\*n"):
        get("flash-block-sparse").shape(n=2, d=2, M=5, s=sympy.Rational(1, 2))
    with pytest.raises(InvalidArgument, match="s <= 1"):
        get("flash-block-sparse").shape(n=4, d=2, M=4, s=2)


def test_evaluate_refuses_bad_names_types_and_options():
    bound = get("attention-forward-explicit-large")
    with pytest.raises(InvalidArgument, match="no parameter 'x'"):
        bound.evaluate(n=2, d=2, M=3, x=1)
    with pytest.raises(InvalidArgument, match="needs parameter"):
        bound.evaluate(n=2, d=2)
    with pytest.raises(InvalidArgument, match="integer"):
        bound.evaluate(n=2.5, d=2, M=3)
    with pytest.raises(InvalidArgument, match="positive"):
        bound.evaluate(n=0, d=2, M=3)
    with pytest.raises(InvalidArgument, match="summation"):
        get("cosma").evaluate(m=2, k=2, n=2, M=4, summation="tree")


def test_asymptotic_bounds_never_pass_for_a_number_of_transfers():
    bound = get("saha-ye-thm3.1")
    with pytest.raises(InvalidArgument, match="asymptotic only"):
        bound.evaluate(n=4, d=4, M=16)
    with pytest.raises(InvalidArgument, match="asymptotic only"):
        bound.exact(n=4, d=4, M=16)
    assert bound.shape(n=4, d=4, M=16) == 16  # at the crossover M = d^2 both branches are 16


def test_unknown_id_lists_close_ids():
    with pytest.raises(InvalidArgument, match="saha-ye-thm3.1"):
        get("saha-ye-thm3")


def test_latex_forms():
    assert get("saha-ye-thm3.1").latex().startswith(r"Q = \Theta")
    assert get("matmul-lean").latex().startswith(r"Q \ge")
    assert get("approximate-attention-rank").latex().startswith("r =")


def test_docs_page_is_the_rendering_of_the_registry():
    page = Path(__file__).resolve().parent.parent / "docs" / "bounds.md"
    assert page.read_text() == render(), \
        "docs/bounds.md is stale: run `ioverify docs`"
    for bound_id in REGISTRY:
        assert f"## {bound_id}" in page.read_text()
