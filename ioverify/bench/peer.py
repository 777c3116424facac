"""``ioverify bench peer``: the peer baseline of issue 16, the time-indexed 0-1 model in the
style of OneStopParallel (load/store/compute/delete per vertex per step, horizon = the initial
schedule's actions + 3 as that project sets it) solved by OR-Tools CP-SAT
(``ioverify.search.cpsat``, the optional ``cpsat`` extra), warm-started from ioverify's greedy
schedule (``best_greedy_schedule``, the one ``pebble`` starts from).  Per instance, M and variant: the peer's best value, whether it proved optimality
within its horizon (and which horizon), the seconds, and whether its schedule replays.  The
peer lives here and in the curve's upper-bound portfolio only, never in a verdict."""

from __future__ import annotations

import time

from ioverify.bench import Rows, machine_line
from ioverify.dag.registry import build
from ioverify.game.greedy import best_greedy_schedule, greedy_schedule
from ioverify.game.replay import replay
from ioverify.game.rules import infeasibility

INSTANCES = (("attention-backward", {"n": 1, "d": 1}), ("attention-forward", {"n": 2, "d": 2}),
             ("attention-forward", {"n": 3, "d": 1}), ("attention-backward", {"n": 2, "d": 1}))
SECONDS = {False: 60.0, True: 5.0}  # CP-SAT's time limit per (instance, M, variant)
MEMORIES = {False: None, True: 2}  # quick: the two smallest feasible M only


def run(quick: bool = False, out: Rows | None = None) -> int:
    from ioverify.search.cpsat import available

    if not available():  # one line on stderr, exit 2 (not a table's note on stdout)
        from ioverify.errors import missing_extra

        raise missing_extra("ioverify bench peer", "cpsat")
    out = out or Rows()
    out.note(machine_line())
    out.note(f"{'instance':26} {'M':>3} {'variant':>9} {'greedy':>6} {'peer':>5} {'proved':>6} "
             f"{'horizon':>7} {'seconds':>7}  replays")
    for family, params in INSTANCES:
        dag = build({"family": family, "params": params})
        name = f"{family}({', '.join(str(v) for v in params.values())})"
        for memory in _memories(dag, MEMORIES[quick]):
            greedy = best_greedy_schedule(dag, memory)
            for variant in ("one-shot", "recompute"):
                result = cell(dag, memory, variant, SECONDS[quick], greedy)
                out.row("peer", "valid",
                        f"{name:26} {memory:>3} {variant:>9} {greedy.io:>6} "
                        f"{result['io'] if result['io'] is not None else '-':>5} "
                        f"{'yes' if result['proved_within_horizon'] else 'no':>6} "
                        f"{result['horizon']:>7} {result['seconds']:>7.1f}  "
                        f"{result['replays']}",
                        instance=name, memory=memory, variant=variant, greedy=greedy.io,
                        **result)
    return 0


def cell(dag, memory: int, variant: str, seconds: float, start=None,
         workers: int = 1) -> dict:
    """The peer on one cell: CP-SAT on the time-indexed model, warm-started from ``start``
    (the greedy schedule if None), for at most ``seconds`` on ``workers`` threads; its
    schedule replayed here at the cell's M and variant.  ``io`` is None when it has no
    schedule or its schedule fails replay (``replays``: "yes", "no schedule" or "NO");
    ``proved_within_horizon`` only for a schedule that replays."""
    from ioverify.search.cpsat import solve

    began = time.monotonic()
    start = best_greedy_schedule(dag, memory) if start is None else start
    result = solve(dag, memory, variant, start, seconds, workers=workers)
    replays = (result.schedule is not None
               and replay(dag, result.schedule, memory, variant).ok)
    return {"io": result.io if replays else None,
            "proved_within_horizon": bool(replays and result.proved_within_horizon),
            "horizon": result.horizon, "status": result.status,
            "replays": "yes" if replays else "no schedule" if result.schedule is None else "NO",
            "seconds": round(time.monotonic() - began, 3)}


def _memories(dag, count: int | None) -> list[int]:
    from ioverify.game.lemmas import trivial_lower_bound

    first = next(m for m in range(1, 200) if infeasibility(dag, m) is None)
    trivial, last = trivial_lower_bound(dag), first
    while greedy_schedule(dag, last).io > trivial:
        last += 1
    memories = list(range(first, last + 1))
    return memories if count is None else memories[:count]
