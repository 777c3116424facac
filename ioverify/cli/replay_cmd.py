"""``ioverify replay DAG SCHEDULE --memory M [--variant NAME | --one-shot] [--json]``."""

from __future__ import annotations

from ioverify.cli.common import positive_int, print_json
from ioverify.cli.pebble_cmd import add_variant_arguments, variant_of


def register(sub) -> None:
    p = sub.add_parser("replay", help="check a schedule against the pebble game and count its I/O",
                       description="Replay a schedule on a DAG with M red pebbles. Exit 0: legal "
                                   "and complete; 1: an illegal move or outputs left without "
                                   "blue; 2: malformed input or an unknown or unsupported "
                                   "--variant.")
    p.add_argument("dag", help="an ioverify-dag JSON file")
    p.add_argument("schedule", help="an ioverify-schedule JSON file")
    p.add_argument("--memory", "-M", type=positive_int, required=True, help="red pebbles (M)")
    add_variant_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_replay)


def _replay(args) -> int:
    from ioverify.dag.jsonio import read_dag
    from ioverify.game.replay import IMPLEMENTED, replay
    from ioverify.game.rules import read_schedule, require_variant
    from ioverify.verdict import exit_code

    variant = require_variant(variant_of(args), IMPLEMENTED, "the replayer")  # before any file
    dag = read_dag(args.dag)
    schedule = read_schedule(args.schedule, dag)
    result = replay(dag, schedule, args.memory, variant)
    verdict = result.verdict()
    if args.json:
        print_json(result.to_json())
    else:
        print(result.describe())
    return exit_code(verdict)
