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
    p.add_argument("--max-vertices", type=int, metavar="N",
                   help="frontier only: sweep only the instances of at most N vertices")
    p.add_argument("--only", metavar="TEXT",
                   help="frontier only: sweep only the instances whose label (as printed) "
                        "contains TEXT, e.g. 'matmul(2,2,3)'")
    p.add_argument("--variant", choices=("one-shot", "recompute"),
                   help="frontier only: sweep this variant only (default: both)")
    p.add_argument("--memory", "-M", metavar="M|LO..HI",
                   help="frontier only: sweep only these M (default: from each instance's "
                        "smallest feasible M to the first where the optimum is its inputs "
                        "plus outputs)")
    p.add_argument("--no-peer", action="store_true",
                   help="frontier only: leave out the peer baseline (CP-SAT on the "
                        "time-indexed model) run on each cell beside ioverify")
    p.add_argument("--no-ablation", action="store_true",
                   help="frontier only: leave out the run without the abstraction bound")
    p.set_defaults(handler=_bench)


def _bench(args) -> int:
    from ioverify.bench import SUITES, Rows, summary

    out = Rows(as_json=args.json)
    module = importlib.import_module(SUITES[args.suite])
    options = _frontier_options(args)
    code = module.run(quick=args.quick, out=out, **options)
    if args.json:
        from ioverify.cli.common import print_json

        print_json(summary(args.suite, args.quick, code, out))
    return code


def _frontier_options(args) -> dict:
    """The frontier suite's own options, checked before anything runs."""
    given = {"--cell-limit": args.cell_limit, "--max-vertices": args.max_vertices,
             "--only": args.only, "--variant": args.variant, "--memory": args.memory}
    options = {}
    for flag, value in given.items():
        if value is None:
            continue
        if args.suite != "frontier":
            raise InvalidArgument(f"{flag} applies to the frontier suite only, not "
                                  f"{args.suite!r}")
        if flag in ("--cell-limit", "--max-vertices") and not value > 0:
            raise InvalidArgument(f"{flag} must be positive, got {value}")
        options[flag[2:].replace("-", "_")] = value
    if "variant" in options:
        options["variants"] = (options.pop("variant"),)
    if "memory" in options:
        from ioverify.search.curve import parse_memory_range

        options["memories"] = parse_memory_range(options.pop("memory"))
    for flag, name in (("--no-peer", "peer"), ("--no-ablation", "ablation")):
        if getattr(args, f"no_{name}"):
            if args.suite != "frontier":
                raise InvalidArgument(f"{flag} applies to the frontier suite only, not "
                                      f"{args.suite!r}")
            options[name] = False
    if args.only is not None:
        from ioverify.bench.frontier import instances

        labels = [label for label, _ in instances(args.quick)]
        if not any(args.only in label for label in labels):
            raise InvalidArgument(f"--only {args.only!r} matches no instance of the frontier "
                                  f"suite ({', '.join(labels)})")
    return options
