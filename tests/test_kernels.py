"""Every kernel certifies on a grid of sizes (uneven ones included), its traced I/O equals its
closed form exactly, the planner's blocks are the largest that fit, and the literal
FlashAttention block sizes are judged by the checker, not assumed."""

import pytest
from kernel_grid import certify_on_grid

from ioverify.bounds.kernel_counts import STATED_COUNTS, evaluate
from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import KERNELS, count_only, run_kernel
from ioverify.trace.kernel import dry_peak

ATTENTION = ["attention-standard", "flash-forward-v1", "flash-forward-v2",
             "square-tiling-forward"]
GRID = [(n, d, M) for n in (1, 3, 7, 10) for d in (1, 2, 5) for M in (40, 97, 300)]


@pytest.mark.parametrize("name", ATTENTION)
def test_attention_kernels_certify_and_match_closed_form_on_grid(name):
    assert certify_on_grid(name, GRID) >= 25


@pytest.mark.parametrize("m,k,n,M", [(1, 1, 1, 3), (4, 3, 5, 12), (7, 5, 9, 30), (10, 1, 3, 20),
                                     (6, 6, 6, 1000), (13, 4, 11, 50)])
def test_matmul_certifies_and_matches_closed_form(m, k, n, M):
    report = run_kernel("matmul-tiled", memory=M, m=m, k=k, n=n)
    assert report.certified, report.reason
    assert report.io == report.formula
    a, b = report.blocks["a"], report.blocks["b"]
    assert report.peak == a * b + a + b + (k >= 2) <= M


@pytest.mark.parametrize("name", ATTENTION)
def test_planned_blocks_are_maximal(name):
    spec = KERNELS[name]
    sizes, M = {"n": 20, "d": 6}, 400
    from ioverify.trace.kernel import plan

    _, _, blocks = plan(name, memory=M, **sizes)
    assert dry_peak(spec, sizes, M, blocks) <= M
    bigger = {key: value + 1 for key, value in blocks.items()}
    assert dry_peak(spec, sizes, M, bigger) > M


@pytest.mark.parametrize("name", ATTENTION)
def test_dry_run_counts_equal_executed_counts(name):
    report = run_kernel(name, memory=200, n=11, d=4)
    loads, stores, peak, blocks = count_only(name, memory=200, n=11, d=4)
    assert (loads, stores, peak, blocks) == (report.loads, report.stores, report.peak,
                                             report.blocks)


def test_theory_counts_agree_where_derived_correctly():
    """FA2, square tiling and matmul equal the counts of docs/theory.md when blocks divide
    the sizes; FA1's stated count is nd + 2n above the traced kernel (it reads O, l, m at the
    first outer step without counting the writes that would create them)."""
    from ioverify.bounds.kernel_counts import BLOCK_SYMBOLS, SIZE_SYMBOLS

    def theory(name, sizes, blocks):
        values = {SIZE_SYMBOLS[k]: v for k, v in sizes.items()}
        values.update({BLOCK_SYMBOLS[k]: v for k, v in blocks.items()})
        return int(STATED_COUNTS[name].subs(values))

    for name, sizes, blocks in [
            ("flash-forward-v2", {"n": 12, "d": 3}, {"block_r": 4, "block_c": 3}),
            ("square-tiling-forward", {"n": 12, "d": 6}, {"block": 3}),
            ("matmul-tiled", {"m": 6, "k": 5, "n": 8}, {"a": 3, "b": 4})]:
        assert evaluate(name, sizes, blocks) == theory(name, sizes, blocks)
    sizes, blocks = {"n": 12, "d": 3}, {"block_r": 4, "block_c": 3}
    assert theory("flash-forward-v1", sizes, blocks) - evaluate("flash-forward-v1", sizes,
                                                                blocks) == 12 * 3 + 2 * 12


def test_explicit_blocks_on_uneven_sizes():
    report = run_kernel("flash-forward-v1", memory=10_000, n=11, d=3,
                        blocks={"block_r": 4, "block_c": 3})
    assert report.certified and report.io == report.formula == evaluate(
        "flash-forward-v1", {"n": 11, "d": 3}, {"block_r": 4, "block_c": 3})


def test_literal_flash_blocks_are_checked_not_assumed():
    # d = 16, M = 1024: B_c = B_r = 16; the FA2 working set is 1057 words > M.
    bad = run_kernel("flash-forward-v2", memory=1024, n=64, d=16, literal_blocks=True)
    assert bad.blocks == {"block_r": 16, "block_c": 16}
    assert not bad.certified and "capacity exceeded" in bad.reason
    # d = 4, M = 1024: B_c = 64, B_r = 4: 2*16 + 256 + 8 + 1 + 256 = 553 words: it fits.
    good = run_kernel("flash-forward-v2", memory=1024, n=64, d=4, literal_blocks=True)
    assert good.certified and good.peak == 553


@pytest.mark.parametrize("bad", [dict(n=0, d=3), dict(n=3, d=-1), dict(n=3), dict(n=3, d=2, k=1),
                                 dict(n=2.5, d=2)])
def test_bad_sizes_are_refused(bad):
    with pytest.raises(InvalidArgument):
        run_kernel("flash-forward-v2", memory=100, **bad)


def test_too_small_memory_is_refused():
    with pytest.raises(InvalidArgument, match="too small"):
        run_kernel("flash-forward-v2", memory=5, n=4, d=4)
    with pytest.raises(InvalidArgument, match="unknown kernel"):
        run_kernel("nope", memory=5, n=4, d=4)


@pytest.mark.slow
def test_flash_v2_at_benchmark_size():
    report = run_kernel("flash-forward-v2", memory=16384, n=4096, d=64)
    assert report.certified and report.io == report.formula
