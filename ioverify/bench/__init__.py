"""Benchmark suites for ``ioverify bench SUITE``: one module per suite, each with
``run(quick: bool) -> int`` printing a table (and returning an exit code)."""

SUITES = {
    "replay": "ioverify.bench.replay",
    "partition": "ioverify.bench.partition",
    "kernels": "ioverify.bench.kernels",
    "families": "ioverify.bench.families",
}
