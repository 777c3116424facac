"""Block-sparse forward and backward: masks, certification on a grid with uneven sizes, exact
closed forms (Theta(nd + n^2 d^2 s / M)), agreement with the dense kernels on a full mask,
and the CLI options."""

import json

import numpy as np
import pytest
from kernel_grid import certify_on_grid
import sympy

from ioverify.bounds.kernel_counts import BLOCK_SYMBOLS, SIZE_SYMBOLS, STATED_COUNTS, evaluate
from ioverify.cli import main
from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import count_only, run_kernel
from ioverify.kernels.reference import attention_softmax, block_mask, element_mask

SPARSE = ["block-sparse-forward", "block-sparse-backward"]
MASKS = [("causal", None), ("random", 0.1), ("random", 0.5), ("random", 1.0)]


def mask_params(mask: str, s: float | None) -> dict:
    """The run's mask params: a density only for the mask that reads it."""
    return {"mask": mask} if s is None else {"mask": mask, "density": s}


def test_causal_block_mask_is_lower_triangular():
    mask = block_mask("causal", 4)
    assert mask.sum() == 10 and np.array_equal(mask, np.tril(np.ones((4, 4), dtype=bool)))


@pytest.mark.parametrize("blocks,s", [(1, 0.3), (5, 0.01), (8, 0.3), (10, 0.75), (7, 1.0)])
def test_random_block_mask_density_and_coverage(blocks, s):
    mask = block_mask("random", blocks, s, seed=3)
    assert mask.any(axis=1).all() and mask.any(axis=0).all()
    assert mask.sum() == max(blocks, round(s * blocks * blocks))
    assert np.array_equal(mask, block_mask("random", blocks, s, seed=3))


def test_bad_masks_are_refused():
    with pytest.raises(InvalidArgument):
        block_mask("diagonal", 3)
    with pytest.raises(InvalidArgument):
        block_mask("random", 3, 0.0)


def test_element_mask_expands_blocks_with_a_short_last_block():
    mask = np.array([[1, 0], [1, 1]], dtype=bool)
    em = element_mask(mask, 5, 3)
    assert em.shape == (5, 5)
    assert em[:3, :3].all() and not em[:3, 3:].any() and em[3:, :].all()


def test_masked_reference_with_full_mask_is_dense():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((6, 2)) for _ in range(3))
    full = np.ones((6, 6), dtype=bool)
    assert np.allclose(attention_softmax(q, k, v, full)["O"], attention_softmax(q, k, v)["O"])


@pytest.mark.parametrize("name", SPARSE)
@pytest.mark.parametrize("mask,s", MASKS)
def test_sparse_kernels_certify_and_match_closed_form_on_grid(name, mask, s):
    grid = [(n, d, M) for n in (1, 3, 7, 10, 17) for d in (1, 2, 5) for M in (40, 97, 300)]
    assert certify_on_grid(name, grid, **mask_params(mask, s)) >= 30


def test_full_mask_costs_what_the_dense_kernels_cost():
    """Dense mask, same blocks: the sparse counts are the FlashAttention-2 counts."""
    sizes = {"n": 23, "d": 3}
    fwd = run_kernel("block-sparse-forward", memory=200, mask="random", density=1.0, **sizes)
    b = fwd.blocks["block"]
    assert fwd.io == evaluate("flash-forward-v2", sizes, {"block_r": b, "block_c": b})
    bwd = run_kernel("block-sparse-backward", memory=200, mask="random", density=1.0, **sizes)
    b = bwd.blocks["block"]
    assert bwd.io == evaluate("flash-backward-v2", sizes, {"block_r": b, "block_c": b})


def test_io_is_affine_in_the_allowed_blocks():
    """At fixed n, d, M (B dividing n): I/O = 2nd + n + 2d * allowed * B for the forward and
    5nd + n + (4d + 2) * allowed * B for the backward: linear in s plus the nd term."""
    n, d, M = 360, 4, 240  # blocks 9 (forward) and 6 (backward) divide n
    for s in (0.1, 0.3, 0.6, 1.0):
        loads, stores, _, blk = count_only("block-sparse-forward", memory=M, n=n, d=d,
                                           mask="random", density=s)
        assert n % blk["block"] == 0
        assert loads + stores == 2 * n * d + n + 2 * d * blk["allowed"] * blk["block"]
        assert abs(blk["allowed"] / (n // blk["block"]) ** 2 - s) < 0.01
        theory = STATED_COUNTS["block-sparse-forward"].subs(
            {SIZE_SYMBOLS["n"]: n, SIZE_SYMBOLS["d"]: d, BLOCK_SYMBOLS["block"]: blk["block"],
             sympy.Symbol("s", positive=True): sympy.Rational(blk["allowed"],
                                                              (n // blk["block"]) ** 2)})
        assert theory == loads + stores
        loads, stores, _, blk = count_only("block-sparse-backward", memory=M, n=n, d=d,
                                           mask="random", density=s)
        assert n % blk["block"] == 0
        assert loads + stores == 5 * n * d + n + (4 * d + 2) * blk["allowed"] * blk["block"]


def test_sparser_masks_move_fewer_words():
    ios = [sum(count_only("block-sparse-backward", memory=150, n=40, d=3, mask="random",
                          density=s)[:2]) for s in (0.2, 0.5, 1.0)]
    assert ios[0] < ios[1] < ios[2]


def test_cli_block_sparse_json(capsys):
    code = main(["kernel", "block-sparse-backward", "--n", "13", "--d", "3", "--memory", "120",
                 "--mask", "random", "--density", "0.4", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["certified"] and out["io"] == out["formula"]
    assert out["sizes"]["mask"] == "random" and out["sizes"]["density"] == 0.4


@pytest.mark.parametrize("argv", [
    ["kernel", "block-sparse-forward", "--n", "8", "--d", "2", "--memory", "100", "--mask", "x"],
    ["kernel", "block-sparse-forward", "--n", "8", "--d", "2", "--memory", "100",
     "--density", "1.5"],
    ["kernel", "flash-forward-v2", "--n", "8", "--d", "2", "--memory", "100", "--mask", "causal"],
    ["kernel", "block-sparse-forward", "--n", "8", "--d", "2", "--memory", "100",
     "--degree", "2"],
])
def test_cli_refuses_bad_options(argv, capsys):
    assert main(argv) == 2
    assert "error" in capsys.readouterr().err


def test_cli_flag_table_covers_every_kernel_option():
    from ioverify.cli.kernel_cmd import OPTION_FLAGS
    from ioverify.trace.kernel import KERNELS

    for spec in KERNELS.values():
        for option in spec.options:
            assert option.name in OPTION_FLAGS, (spec.name, option.name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SPARSE)
def test_sparse_kernels_at_larger_sizes(name):
    for n, d, M, mask, s in [(128, 16, 1024, "causal", None), (200, 8, 600, "random", 0.2)]:
        report = run_kernel(name, memory=M, n=n, d=d, **mask_params(mask, s))
        assert report.certified and report.io == report.formula, (n, d, M, report.reason)


@pytest.mark.parametrize("name", SPARSE)
def test_lowered_sparse_schedule_replays(name):
    from ioverify.game import replay
    from ioverify.trace.lower import lower

    report = run_kernel(name, memory=40, n=5, d=2, mask="causal")
    assert report.blocks["allowed"] < (-(-5 // report.blocks["block"])) ** 2
    dag, schedule = lower(report.trace)
    result = replay(dag, schedule, 40, "recompute")
    assert result.ok, result.describe()
    assert (result.loads, result.stores, result.peak) == (report.loads, report.stores,
                                                          report.peak)


@pytest.mark.parametrize("mask", ["causal", "block-diagonal", "permutation", "banded"])
def test_a_density_the_mask_leaves_unused_is_refused_in_a_run(mask):
    """Was: refused on the command line only; a claim (or a library call) could certify
    ``density=0.5`` with a causal mask, and its certificate recorded a density no run read."""
    with pytest.raises(InvalidArgument, match=f"density applies only with mask random, not "
                                              f"mask {mask}"):
        run_kernel("block-sparse-forward", memory=200, n=8, d=2, mask=mask, density=0.5)
