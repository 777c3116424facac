"""Benchmark suites for ``ioverify bench SUITE``: one module per suite, each with
``run(quick: bool) -> int`` printing a table (and returning an exit code)."""

SUITES = {
    "replay": "ioverify.bench.replay",
    "pebble": "ioverify.bench.pebble",
    "pebble-z3": "ioverify.bench.pebble_z3",
    "exhaustive": "ioverify.bench.exhaustive",
    "partition": "ioverify.bench.partition",
    "kernels": "ioverify.bench.kernels",
    "kernels-extra": "ioverify.bench.kernels_extra",
    "families": "ioverify.bench.families",
    "frontier": "ioverify.bench.frontier",
}
