"""``ioverify bench SUITE [--quick]``: the performance suites recorded in docs/performance.md."""

from __future__ import annotations

import importlib

from ioverify.errors import InvalidArgument


def register(sub) -> None:
    from ioverify.bench import SUITES

    p = sub.add_parser("bench", help="run a benchmark suite and print a table",
                       description="Run a fixed benchmark suite; results are recorded in "
                                   "docs/performance.md with the machine and date.")
    p.add_argument("suite", choices=sorted(SUITES), help="which suite")
    p.add_argument("--quick", action="store_true", help="a smaller version of the suite")
    p.add_argument("--cell-limit", type=float, metavar="S",
                   help="seconds per cell for the suites that sweep cells (frontier); "
                        "default: the suite's own targets")
    p.set_defaults(handler=_bench)


def _bench(args) -> int:
    from ioverify.bench import SUITES

    module = importlib.import_module(SUITES[args.suite])
    if args.cell_limit is None:
        return module.run(quick=args.quick)
    if args.suite != "frontier":
        raise InvalidArgument(f"--cell-limit applies to the frontier suite only, not "
                              f"{args.suite!r}")
    if not args.cell_limit > 0:
        raise InvalidArgument(f"--cell-limit must be a positive number of seconds, got "
                              f"{args.cell_limit}")
    return module.run(quick=args.quick, cell_limit=args.cell_limit)
