"""Backward kernels (FlashAttention-1 and -2 loop orders, square tiling): the float64 gradient
references agree with each other, every kernel certifies on a grid with uneven sizes and its
traced I/O equals its closed form, traces lower to the pebble game, and cheating fails."""

import numpy as np
import pytest
from kernel_grid import certify_on_grid

from ioverify.bounds.kernel_counts import STATED_COUNTS, evaluate
from ioverify.trace.kernel import KERNELS, count_only, run_kernel
from ioverify.kernels.reference import (attention_exp, attention_gradient, attention_softmax,
                               finite_difference_gradient)

BACKWARD = ["flash-backward-v1", "flash-backward-v2", "square-tiling-backward"]
GRID = [(n, d, M) for n in (1, 3, 7, 10) for d in (1, 2, 5) for M in (40, 97, 300)]


def _qkv(n, d, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, d)) * 0.7 for _ in range(4)]


@pytest.mark.parametrize("n,d,seed", [(1, 1, 0), (3, 2, 1), (4, 3, 2), (5, 1, 3)])
def test_closed_form_gradient_matches_finite_differences(n, d, seed):
    q, k, v, do = _qkv(n, d, seed)
    exact = attention_gradient(q, k, v, do)
    numeric = finite_difference_gradient(q, k, v, do)
    for name in ("dQ", "dK", "dV"):
        assert np.max(np.abs(exact[name] - numeric[name])) < 1e-7, name


def test_masked_gradient_matches_finite_differences():
    q, k, v, do = _qkv(4, 2, 7)
    mask = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1]], dtype=bool)
    exact = attention_gradient(q, k, v, do, mask)
    numeric = finite_difference_gradient(q, k, v, do, mask)
    for name in ("dQ", "dK", "dV"):
        assert np.max(np.abs(exact[name] - numeric[name])) < 1e-7, name


def test_saha_ye_form_equals_softmax_form():
    q, k, v, _ = _qkv(6, 3, 4)
    assert np.allclose(attention_exp(q, k, v), attention_softmax(q, k, v)["O"], atol=1e-13)


def test_wrong_gradient_is_caught_by_finite_differences():
    q, k, v, do = _qkv(3, 2, 5)
    wrong = attention_gradient(q, k, v, do)["dQ"] * 1.01
    assert np.max(np.abs(wrong - finite_difference_gradient(q, k, v, do)["dQ"])) > 1e-4


@pytest.mark.parametrize("name", BACKWARD)
def test_backward_kernels_certify_and_match_closed_form_on_grid(name):
    assert certify_on_grid(name, GRID) >= 25


@pytest.mark.parametrize("name", BACKWARD)
def test_gradients_against_finite_differences_on_tiny_sizes(name):
    """The kernel's dQ, dK, dV (replayed) against central differences, not the closed form."""
    from ioverify.trace.kernel import random_inputs

    spec = KERNELS[name]
    report = run_kernel(name, memory=60, n=5, d=2, seed=9)
    assert report.certified
    from ioverify.trace.certify import replay_trace

    x = random_inputs(spec, report.sizes, [9, 0], report.blocks)
    outs = replay_trace(report.trace, x).outputs
    numeric = finite_difference_gradient(x["Q"], x["K"], x["V"], x["dO"])
    for key in ("dQ", "dK", "dV"):
        assert np.max(np.abs(outs[key] - numeric[key])) < 1e-7, key


def test_theory_fa1_backward_count_reads_dq_once_more():
    """The 4nd + T_c(5nd + 2n) of docs/theory.md §6 reads an initialised dQ at the first
    outer step: nd words above the traced kernel's 3nd + T_c(5nd + 2n)."""
    from ioverify.bounds.kernel_counts import BLOCK_SYMBOLS, SIZE_SYMBOLS

    sizes, blocks = {"n": 12, "d": 3}, {"block_r": 4, "block_c": 3}
    values = {SIZE_SYMBOLS[k]: v for k, v in sizes.items()}
    values.update({BLOCK_SYMBOLS[k]: v for k, v in blocks.items()})
    theory = int(STATED_COUNTS["flash-backward-v1"].subs(values))
    assert theory - evaluate("flash-backward-v1", sizes, blocks) == 12 * 3


def test_explicit_uneven_blocks():
    report = run_kernel("flash-backward-v2", memory=10_000, n=11, d=3,
                        blocks={"block_r": 4, "block_c": 3})
    assert report.certified and report.io == report.formula == evaluate(
        "flash-backward-v2", {"n": 11, "d": 3}, {"block_r": 4, "block_c": 3})


@pytest.mark.parametrize("name", BACKWARD)
def test_dry_run_counts_equal_executed_counts(name):
    report = run_kernel(name, memory=200, n=11, d=4)
    loads, stores, peak, blocks = count_only(name, memory=200, n=11, d=4)
    assert (loads, stores, peak, blocks) == (report.loads, report.stores, report.peak,
                                             report.blocks)


@pytest.mark.parametrize("name,sizes,M", [("flash-backward-v1", dict(n=3, d=2), 40),
                                          ("flash-backward-v2", dict(n=4, d=2), 40),
                                          ("square-tiling-backward", dict(n=3, d=3), 30)])
def test_lowered_backward_schedule_replays(name, sizes, M):
    from ioverify.game import replay
    from ioverify.trace.lower import lower

    report = run_kernel(name, memory=M, **sizes)
    dag, schedule = lower(report.trace)
    result = replay(dag, schedule, M, "recompute")
    assert result.ok, result.describe()
    assert (result.loads, result.stores, result.peak) == (report.loads, report.stores,
                                                          report.peak)


def test_square_tiling_beats_flash_backward_when_cache_is_small():
    """At M well below d^2 the square-tiling backward moves fewer words than FlashAttention's;
    at M well above d^2, more."""
    small = {name: count_only(name, memory=300, n=64, d=32)[:2] for name in
             ("flash-backward-v2", "square-tiling-backward")}
    big = {name: count_only(name, memory=4096, n=64, d=32)[:2] for name in
           ("flash-backward-v2", "square-tiling-backward")}
    assert sum(small["square-tiling-backward"]) < sum(small["flash-backward-v2"])
    assert sum(big["square-tiling-backward"]) > sum(big["flash-backward-v2"])


def test_kernel_that_smuggles_a_gradient_fails_certification():
    """A kernel that brings the answer in from outside (a captured array declared as its own
    input) is rejected: the trace's inputs must be exactly the ones certification is given."""
    from dataclasses import replace

    from ioverify.trace.kernel import contract_for
    from ioverify.kernels import flash_backward_v2
    from ioverify.trace.kernel import declare, random_inputs, reference_for
    from ioverify.trace import TracedMemory
    from ioverify.trace.certify import certify

    spec = KERNELS["flash-backward-v2"]
    sizes, blocks = {"n": 4, "d": 2}, {"block_r": 2, "block_c": 2}
    x = random_inputs(spec, sizes, [0, 0])
    answer = attention_gradient(x["Q"], x["K"], x["V"], x["dO"])

    def cheat(mem, a, sizes, blk):
        flash_backward_v2.run(mem, a, sizes, blk)
        smuggled = mem.input("smuggled", answer["dQ"])
        tile = mem.load(smuggled, (0, 4), (0, 2))
        mem.store(tile, a["dQ"], 0, 0)
        mem.free(tile)

    bad = replace(spec, run=cheat)
    mem = TracedMemory(200)
    bad.run(mem, declare(mem, bad, sizes, x), sizes, blocks)
    outs = {k: mem.read(k) for k in ("dQ", "dK", "dV")}
    cert = certify(mem.trace, contract_for(spec, sizes, 200), x, outs,
                   reference_for(spec, sizes, blocks), 1e-9)
    assert not cert.certified and "smuggled" in cert.reason


def test_kernel_with_a_wrong_gradient_fails_certification():
    """Dropping the D term (dS = P * dP) gives a wrong dQ, dK: certification rejects it."""
    from ioverify.kernels import flash_backward_v2 as fb

    original = fb.score_gradient

    def no_rowdot(mem, a, p, do, v, r0, r):
        ds = mem.matmul(do, v, trans_b=True)
        mem.mul(ds, p, out=ds)
        return ds

    fb.score_gradient = no_rowdot
    try:
        report = run_kernel("flash-backward-v2", memory=100, n=6, d=2)
    finally:
        fb.score_gradient = original
    assert not report.certified and "reference" in report.reason


@pytest.mark.slow
@pytest.mark.parametrize("name", BACKWARD)
def test_backward_kernels_at_larger_sizes(name):
    for n, d, M in [(64, 16, 256), (100, 8, 1000), (129, 32, 2048)]:
        report = run_kernel(name, memory=M, n=n, d=d)
        assert report.certified and report.io == report.formula, (n, d, M, report.reason)


@pytest.mark.parametrize("name", BACKWARD)
@pytest.mark.parametrize("d,seed", [(5, 6), (9, 1), (33, 2)])
def test_one_key_per_row_gives_an_exactly_zero_gradient(name, d, seed):
    """n = 1: a softmax over one key has zero gradient for Q and K; the kernels' dP - D is
    exactly zero in the traced arithmetic, so the exact comparison certifies them."""
    report = run_kernel(name, memory=400, n=1, d=d, seed=seed)
    assert report.certified, report.reason
