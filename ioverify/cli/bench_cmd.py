"""``ioverify bench SUITE [--quick] [--json]``: the performance suites recorded in
docs/performance.md."""

from __future__ import annotations

import importlib


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
    p.set_defaults(handler=_bench)


def _bench(args) -> int:
    from ioverify.bench import SUITES, Rows, summary

    out = Rows(as_json=args.json)
    code = importlib.import_module(SUITES[args.suite]).run(quick=args.quick, out=out)
    if args.json:
        from ioverify.cli.common import print_json

        print_json(summary(args.suite, args.quick, code, out))
    return code
