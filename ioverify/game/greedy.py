"""A greedy schedule: the first upper bound every search starts from (pure Python)."""

from __future__ import annotations

from bisect import bisect_left

from ioverify.dag.model import DAG
from ioverify.game.rules import Schedule


def greedy_schedule(dag: DAG, memory: int) -> Schedule:
    """A one-shot schedule: compute the needed vertices in topological order, evict the red
    vertex whose next use is farthest (Belady), store before evicting what is needed later."""
    order = [v for v in dag.useful if not dag.is_input[v]]
    uses: dict[int, list[int]] = {}
    for step, v in enumerate(order):
        for p in dag.preds[v]:
            uses.setdefault(p, []).append(step)
    moves: list[tuple[str, int]] = []
    red: set[int] = set()
    blue = {v for v in range(len(dag)) if dag.is_input[v]}

    def next_use(u: int, step: int) -> int:
        steps = uses.get(u, ())
        i = bisect_left(steps, step)  # uses are listed in increasing order of step
        return steps[i] if i < len(steps) else len(order) + 1

    def make_room(step: int, keep: set[int]) -> None:
        while len(red) >= memory:
            victim = max(sorted(red - keep), key=lambda u: next_use(u, step))
            if next_use(victim, step) <= len(order) and victim not in blue:
                moves.append(("store", victim))
                blue.add(victim)
            moves.append(("delete", victim))
            red.discard(victim)

    for step, v in enumerate(order):
        for u in list(red):
            if next_use(u, step) > len(order):
                moves.append(("delete", u))
                red.discard(u)
        need = set(dag.preds[v])
        for p in dag.preds[v]:
            if p not in red:
                make_room(step, need)
                moves.append(("load", p))
                red.add(p)
        make_room(step, need)
        moves.append(("compute", v))
        red.add(v)
        if dag.is_output[v]:
            moves.append(("store", v))
            blue.add(v)
    return Schedule.from_moves(moves)
