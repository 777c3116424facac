"""``ioverify bench SUITE [--quick] [--json]``: the performance suites recorded in
docs/performance.md."""

from __future__ import annotations

import importlib

from ioverify.errors import InvalidArgument


def register(sub) -> None:
    from ioverify.bench import SUITES

    p = sub.add_parser("bench", help="run a benchmark suite and print a table",
                       description="Run a fixed benchmark suite; results are recorded in "
                                   "docs/performance.md with the machine and date. Exit 0: "
                                   "every target met; 1: a figure contradicts its reference; "
                                   "3: a search did not finish within its limit.")
    p.add_argument("suite", choices=sorted(SUITES), help="which suite")
    p.add_argument("--quick", action="store_true", help="a smaller version of the suite")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: the suite's status and exit code, and one "
                        "record per row, each with its status")
    p.add_argument("--cell-limit", type=float, metavar="S",
                   help="seconds per cell for the suites that sweep cells (frontier); "
                        "default: the suite's own targets")
    p.set_defaults(handler=_bench)


def _bench(args) -> int:
    from ioverify.bench import SUITES, Rows, summary

    out = Rows(as_json=args.json)
    module = importlib.import_module(SUITES[args.suite])
    if args.cell_limit is None:
        code = module.run(quick=args.quick, out=out)
    elif args.suite != "frontier":
        raise InvalidArgument(f"--cell-limit applies to the frontier suite only, not "
                              f"{args.suite!r}")
    elif not args.cell_limit > 0:
        raise InvalidArgument(f"--cell-limit must be a positive number of seconds, got "
                              f"{args.cell_limit}")
    else:
        code = module.run(quick=args.quick, out=out, cell_limit=args.cell_limit)
    if args.json:
        from ioverify.cli.common import print_json

        print_json(summary(args.suite, args.quick, code, out))
    return code
