"""``ioverify bench SUITE [--quick]``: the performance suites recorded in docs/performance.md."""

from __future__ import annotations

import importlib


def register(sub) -> None:
    from ioverify.bench import SUITES

    p = sub.add_parser("bench", help="run a benchmark suite and print a table",
                       description="Run a fixed benchmark suite; results are recorded in "
                                   "docs/performance.md with the machine and date.")
    p.add_argument("suite", choices=sorted(SUITES), help="which suite")
    p.add_argument("--quick", action="store_true", help="a smaller version of the suite")
    p.set_defaults(handler=_bench)


def _bench(args) -> int:
    from ioverify.bench import SUITES

    return importlib.import_module(SUITES[args.suite]).run(quick=args.quick)
