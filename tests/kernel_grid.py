"""Shared check for the kernel test files: certify a kernel over a grid of sizes."""

from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import run_kernel


def certify_on_grid(name, grid, **options) -> int:
    """Run ``name`` on every (n, d, M) of ``grid``; each run that M admits must be certified,
    equal to its closed form, within M words and within 1e-12 of the reference.  Returns how
    many ran (an M too small for any block is skipped, and must say so)."""
    ran = 0
    for n, d, M in grid:
        try:
            report = run_kernel(name, memory=M, n=n, d=d, seed=n + d, **options)
        except InvalidArgument as error:
            assert "too small" in str(error)
            continue
        ran += 1
        assert report.certified, (n, d, M, options, report.reason)
        assert report.io == report.formula, (n, d, M, options)
        assert report.peak <= M
        assert report.max_error < 1e-12
    return ran
