"""The Alman-Song form of the attention backward pass (the gradient dL/dX with the d x d weight
products): the DAG evaluates to the gradient, the reference agrees with finite differences of
the loss, the kernel certifies on a grid with uneven sizes (d >> n, d << n, M below and above
d^2) and moves exactly its closed form, its trace lowers to a legal pebble schedule, and a
kernel that skips a weight product is caught."""

import numpy as np
import pytest
from kernel_grid import certify_on_grid
from test_families import check_counts, evaluate, matrix, named

from ioverify.bounds.kernel_counts import evaluate as count
from ioverify.dag import alman_song_backward
from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import KERNELS, count_only, random_inputs, run_kernel
from ioverify.kernels.alman_song_backward import loss, reference

NAME = "alman-song-backward"
GRID = [(n, d, M) for n in (1, 3, 7, 10) for d in (1, 2, 5) for M in (40, 97, 300)]


def _inputs(n, d, seed):
    return random_inputs(KERNELS[NAME], {"n": n, "d": d}, seed)


def _finite_difference(x, h=1e-6):
    grad = np.zeros_like(x["X"])
    for idx in np.ndindex(*x["X"].shape):
        up, down = x["X"].copy(), x["X"].copy()
        up[idx] += h
        down[idx] -= h
        grad[idx] = (loss(x, up) - loss(x, down)) / (2 * h)
    return grad


@pytest.mark.parametrize("n,d,seed", [(1, 1, 0), (3, 2, 1), (4, 3, 2), (2, 5, 3)])
def test_reference_gradient_matches_finite_differences_of_the_loss(n, d, seed):
    x = _inputs(n, d, seed)
    assert np.max(np.abs(reference(x)["dX"] - _finite_difference(x))) < 1e-7


def test_a_wrong_gradient_is_caught_by_finite_differences():
    x = _inputs(3, 2, 5)
    assert np.max(np.abs(1.01 * reference(x)["dX"] - _finite_difference(x))) > 1e-5


@pytest.mark.parametrize("summation", ["chain", "tree"])
@pytest.mark.parametrize("n,d", [(1, 1), (2, 1), (1, 3), (3, 2)])
def test_dag_counts(n, d, summation):
    vertices = 6 * n * d * d + 8 * n * n * d + 3 * n * n + 4 * n * d + d * d - 2 * n
    check_counts(alman_song_backward(n, d, summation), vertices, 4 * n * d + 2 * d * d, n * n,
                 d * d)


@pytest.mark.parametrize("summation", ["chain", "tree"])
@pytest.mark.parametrize("n,d,seed", [(1, 1, 0), (2, 3, 1), (3, 2, 2)])
def test_dag_evaluates_to_the_gradient(n, d, seed, summation):
    x = _inputs(n, d, seed)
    values = evaluate(alman_song_backward(n, d, summation), named(x))
    assert np.allclose(matrix(values, "dX", (d, d)), _finite_difference(x), atol=1e-7)


def test_kernel_certifies_and_matches_closed_form_on_grid():
    assert certify_on_grid(NAME, GRID) >= 20


@pytest.mark.parametrize("n,d,M", [(4, 32, 256), (4, 16, 1024), (32, 4, 1000), (13, 7, 100)])
def test_kernel_certifies_at_every_shape(n, d, M):
    report = run_kernel(NAME, memory=M, n=n, d=d, seed=1)
    assert report.certified, report.reason
    assert report.io == report.formula == count(NAME, {"n": n, "d": d}, report.blocks)


def test_kernel_output_against_finite_differences():
    from ioverify.trace.certify import replay_trace

    report = run_kernel(NAME, memory=60, n=5, d=2, seed=9)
    assert report.certified
    x = random_inputs(KERNELS[NAME], report.sizes, [9, 0], report.blocks)
    assert np.max(np.abs(replay_trace(report.trace, x).outputs["dX"] - _finite_difference(x))) \
        < 1e-7


def test_dry_run_counts_equal_executed_counts():
    report = run_kernel(NAME, memory=200, n=11, d=4)
    assert count_only(NAME, memory=200, n=11, d=4) == (report.loads, report.stores, report.peak,
                                                       report.blocks)


def test_lowered_schedule_replays_in_the_pebble_game():
    from ioverify.game import replay
    from ioverify.trace.lower import lower

    report = run_kernel(NAME, memory=40, n=3, d=2)
    dag, schedule = lower(report.trace)
    result = replay(dag, schedule, 40, "recompute")
    assert result.ok, result.describe()
    assert (result.loads, result.stores, result.peak) == (report.loads, report.stores,
                                                          report.peak)


def test_weight_products_show_in_the_count_when_d_exceeds_n():
    """d >> n: the (n x d)(d x d) products dominate, and the count grows like n d^2 / sqrt(M)
    at fixed M below d^2 (the n d^2 term the FlashAttention-form graph cannot force)."""
    ios = [run_kernel(NAME, memory=512, n=4, d=d).io for d in (32, 64)]
    assert ios[1] / ios[0] > 3.5


def test_too_small_memory_is_refused_with_the_need():
    with pytest.raises(InvalidArgument, match="too small .* attention phase needs"):
        run_kernel(NAME, memory=20, n=8, d=4)


def test_kernel_that_skips_the_value_weights_fails_certification():
    """Treat A3 as V (skip V = A3 Y): same trace shape, wrong gradient, refused."""
    from dataclasses import replace

    from ioverify.kernels import alman_song_backward as module
    from ioverify.trace.kernel import run_spec

    def skipping(mem, a, sizes, blk):
        tile = {"m": sizes["n"], "k": sizes["d"], "n": sizes["d"]}
        module.matmul_tiled.run(mem, {"A": a["A1"], "B": a["X"], "C": a["Qx"]}, tile, blk)
        module.matmul_tiled.run(mem, {"A": a["A3"], "B": a["X"], "C": a["V"]}, tile, blk)
        module.attention_phase(mem, a, sizes, blk)
        module.weight_gradient(mem, a, sizes["n"], sizes["d"], blk["block"])

    spec = replace(module.SPEC, run=skipping)
    report = run_spec(spec, memory=100, n=5, d=3)
    assert not report.certified
    assert "Y" in report.reason or "reference" in report.reason
