"""The confrontation of bounds with certified kernels (issue 14): an explicit bound is refuted by
one certified run below it, an asymptotic one is contradicted only where its ratio to the kernel
keeps growing, and claims split their statements into checked and only-stated parts."""

from __future__ import annotations

import pytest

from ioverify.claims import Claim, Part, confront, kernel
from ioverify.claims.check import ClaimResult
from ioverify.claims.run import Budget, run
from ioverify.errors import InvalidArgument, exit_code_of
from ioverify.report.claims import claim_page, findings_page
from ioverify.trace.confront import growth_exponent, judge_sweep, row

DIGEST = "0" * 64


def _rows(points):
    return [row({"n": n}, 64, io, bound, DIGEST) for n, io, bound in points]


def test_explicit_bound_refuted_by_one_run_below_it_with_the_run_as_evidence():
    verdict = judge_sweep("b", "k", _rows([(4, 100, 50.0), (8, 100, 120.5)]), explicit=True,
                          along=None)
    assert verdict.status == "refuted" and verdict.io == 100 and verdict.claim == 121
    assert verdict.evidence.detail == {"kernel": "k", "params": {"n": 8}, "memory": 64,
                                       "trace_digest": DIGEST}


def test_explicit_bound_below_every_run_is_supported_never_verified():
    verdict = judge_sweep("b", "k", _rows([(4, 100, 50.0), (8, 200, 150.0)]), explicit=True,
                          along=None)
    assert verdict.status == "supported" and exit_code_of(verdict.status) == 0


def test_a_ratio_growing_like_sqrt_n_contradicts_an_asymptotic_bound():
    points = [(n, 4 * n, float(n) ** 1.5) for n in (64, 128, 256, 512)]
    verdict = judge_sweep("b", "k", _rows(points), explicit=False, along="n")
    assert verdict.status == "contradicted" and verdict.exponent == pytest.approx(0.5)
    assert exit_code_of("contradicted") == 1


@pytest.mark.parametrize("ratios", [
    [0.01, 0.03, 0.031, 0.0312],  # rises across a crossover, then levels off
    [0.1, 0.11, 0.12, 0.13],  # grows, but slower than n^0.25 at every step
    [0.5, 0.4, 0.3, 0.2],  # falls
])
def test_a_ratio_that_levels_off_or_falls_supports_the_bound(ratios):
    points = [(2 ** (i + 4), 100, 100 * r) for i, r in enumerate(ratios)]
    verdict = judge_sweep("b", "k", _rows(points), explicit=False, along="n")
    assert verdict.status == "supported"


def test_growth_exponent_is_the_log_log_slope():
    rows = _rows([(n, 100, 100.0 * n ** 0.75) for n in (2, 4, 8, 16)])
    assert growth_exponent(rows, "n") == pytest.approx(0.75)


def test_certified_sparse_kernel_contradicts_the_sparse_bound_on_a_permutation_mask():
    """The finding of issue 14: 4nd + n words for a permutation mask, ratio ~ sqrt(n)."""
    ob = confront("c", "sparse-attention", "block-sparse-forward", "perm",
                  [({"n": n, "d": 4, "mask": "permutation"}, 128) for n in (64, 128, 256)],
                  along="n", reading={"Z_in": "n*d", "Z_QK": "Z_QK"})
    verdict = run(ob, Budget()).verdict
    assert verdict.status == "contradicted"
    assert [r["io"] for r in verdict.sweep] == [4 * n * 4 + n for n in (64, 128, 256)]


def test_a_reading_that_names_nothing_on_the_run_is_refused():
    ob = confront("c", "sparse-attention", "block-sparse-forward", "bad",
                  [({"n": 16, "d": 4, "mask": "causal"}, 128)], reading={"Z_in": "nope"})
    with pytest.raises(InvalidArgument, match="reading Z_in"):
        run(ob, Budget())


def test_a_sweep_without_its_growing_parameter_is_refused_at_load():
    from ioverify.claims.validate import validate

    claim = Claim("c", "t", "s", "tests", "user", "kernel", (confront(
        "c", "saha-ye-thm3.1", "flash-forward-v2", "x", [({"n": 8, "d": 4}, 64)],
        along="m"),))
    with pytest.raises(InvalidArgument, match="grows 'm'"):
        validate([claim])


def _claim_with_parts():
    return Claim("c", "T", "A and B.", "tests", "user", "kernel", (), parts=(
        Part("a", "A holds.", (kernel("c", "matmul-tiled", {"m": 4, "k": 4, "n": 4}, 16),)),
        Part("b", "B holds in general.")))


def test_parts_carry_the_obligations_and_a_part_without_any_is_only_stated():
    claim = _claim_with_parts()
    assert len(claim.obligations) == 1
    result = ClaimResult(claim, (run(claim.obligations[0], Budget()),))
    page = claim_page(result)
    assert "| A holds. | checked: verified | 1 |" in page
    assert "| B holds in general. | only stated: nothing checks it | - |" in page
    assert "1 of 2 part(s) checked; 1 only stated" in page
    assert "Nothing is refuted or contradicted." in findings_page([result])


def test_obligations_given_both_directly_and_through_parts_are_refused():
    claim = _claim_with_parts()
    with pytest.raises(InvalidArgument, match="not both"):
        Claim("c", "T", "s", "tests", "user", "kernel",
              (kernel("c", "matmul-tiled", {"m": 2, "k": 2, "n": 2}, 16),), parts=claim.parts)


def test_findings_page_lists_a_contradicted_part_with_its_sweep():
    ob = confront("c", "sparse-attention", "block-sparse-forward", "perm",
                  [({"n": n, "d": 4, "mask": "permutation"}, 128) for n in (64, 128, 256)],
                  along="n", reading={"Z_in": "n*d", "Z_QK": "Z_QK"})
    claim = Claim("c", "Sparse", "s", "tests", "user", "kernel", (), parts=(
        Part("p", "The sparse bound holds.", (ob,), reading="masked dense inputs"),))
    page = findings_page([ClaimResult(claim, (run(ob, Budget()),))])
    assert "CONTRADICTED" in page and "contradicted along n = 64..256" in page
    assert "masked dense inputs" in page


def test_a_sweep_run_that_is_not_certified_leaves_the_confrontation_unknown(monkeypatch):
    """An uncertified count is no evidence: the confrontation is unknown, naming the run."""
    from ioverify.claims import confront, run as run_module

    monkeypatch.setattr(run_module, "certified_run",
                        lambda kernel, params, memory, seed: {"certified": False,
                                                              "reason": "peak over M"})
    ob = confront("c", "matmul-trivial", "matmul-tiled", "one", [({"m": 2, "k": 2, "n": 2}, 16)])
    verdict = run_module.run(ob, run_module.Budget()).verdict
    assert verdict.status == "unknown" and "not certified (peak over M)" in verdict.reason
