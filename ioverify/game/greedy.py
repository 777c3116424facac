"""A greedy schedule: the first upper bound every search starts from (pure Python)."""

from __future__ import annotations

import heapq
import time
from bisect import bisect_left

from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached, InvalidArgument
from ioverify.game.rules import Schedule, check_dag, check_memory, infeasibility

CHECK_CLOCK_EVERY = 1024  # compute steps between two looks at the deadline


def greedy_schedule(dag: DAG, memory: int, deadline: float | None = None,
                    order: list[int] | None = None) -> Schedule:
    """A one-shot schedule: compute the needed vertices in topological order (``order``, by
    default increasing vertex number), evict the red vertex whose next use is farthest (Belady;
    the smallest vertex among equals), store before evicting what is needed later, delete a red
    vertex once it has no use left.  ``deadline`` (a ``time.monotonic()`` value):
    DeadlineReached if it passes first."""
    check_dag(dag), check_memory(memory)
    why = infeasibility(dag, memory)
    if why is not None:
        raise InvalidArgument(f"no schedule exists: {why}")
    return _Greedy(dag, memory, order).run(deadline)


def best_greedy_schedule(dag: DAG, memory: int, deadline: float | None = None) -> Schedule:
    """The cheapest of ``greedy_schedule`` over a few compute orders: increasing vertex
    number, and depth-first from the outputs, in increasing and in decreasing order (each
    output's cone computed before the next one's).  The families number their vertices stage
    by stage, so the first order computes every score before any output; the depth-first ones
    finish one query row at a time, and cost far less at small M (attention_forward(2,2),
    M = 4: 53 against 38)."""
    outputs = list(dag.outputs)
    orders = [None, depth_first_order(dag, outputs)]
    backwards = depth_first_order(dag, outputs[::-1])
    if backwards != orders[1]:  # the same with one output
        orders.append(backwards)
    schedules = [greedy_schedule(dag, memory, deadline, order) for order in orders]
    return min(schedules, key=lambda schedule: schedule.io)


def depth_first_order(dag: DAG, roots: list[int]) -> list[int]:
    """The non-input ancestors of ``roots`` (and the roots), in depth-first post-order: every
    vertex after its predecessors, each root's cone as early as its predecessors allow."""
    order: list[int] = []
    seen = [False] * len(dag)
    for root in roots:
        if seen[root]:
            continue
        seen[root] = True
        stack = [(root, iter(dag.preds[root]))]
        while stack:
            v, preds = stack[-1]
            for p in preds:
                if not seen[p]:
                    seen[p] = True
                    stack.append((p, iter(dag.preds[p])))
                    break
            else:
                stack.pop()
                if not dag.is_input[v]:
                    order.append(v)
    return order


class _Greedy:
    """The greedy player.  Red vertices wait in a heap keyed by their next use; an entry is
    current while its vertex is red and its key is still that vertex's next use (pushed again
    after every step that uses it), so the farthest one is found without scanning M of them."""

    def __init__(self, dag: DAG, memory: int, order: list[int] | None = None):
        self.dag, self.memory = dag, memory
        self.order = ([v for v in dag.useful if not dag.is_input[v]] if order is None
                      else order)
        self.uses: dict[int, list[int]] = {}
        for step, v in enumerate(self.order):
            for p in dag.preds[v]:
                self.uses.setdefault(p, []).append(step)
        self.never = len(self.order) + 1
        self.moves: list[tuple[str, int]] = []
        self.red: set[int] = set()
        self.blue = {v for v in range(len(dag)) if dag.is_input[v]}
        self.heap: list[tuple[int, int]] = []

    def next_use(self, u: int, step: int) -> int:
        steps = self.uses.get(u, ())
        i = bisect_left(steps, step)  # uses are listed in increasing order of step
        return steps[i] if i < len(steps) else self.never

    def run(self, deadline: float | None) -> Schedule:
        previous: tuple[int, ...] = ()
        for step, v in enumerate(self.order):
            if deadline is not None and step % CHECK_CLOCK_EVERY == 0 \
                    and time.monotonic() >= deadline:
                raise DeadlineReached("timeout while building the greedy schedule")
            self.drop_dead(previous, step)
            self.compute(step, v)
            previous = (*self.dag.preds[v], v)
        return Schedule.from_moves(self.moves)

    def drop_dead(self, candidates: tuple[int, ...], step: int) -> None:
        """Delete the red vertices with no use from ``step`` on: only the last step's
        predecessors and result can have become so (in the set's order, as a scan would)."""
        dead = {u for u in candidates
                if u in self.red and self.next_use(u, step) > len(self.order)}
        for u in [u for u in self.red if u in dead] if len(dead) > 1 else dead:
            self.moves.append(("delete", u))
            self.red.discard(u)

    def compute(self, step: int, v: int) -> None:
        preds = self.dag.preds[v]
        need = set(preds)
        for p in preds:
            if p not in self.red:
                self.make_room(step, need)
                self.moves.append(("load", p))
                self.red.add(p)
        self.make_room(step, need)
        self.moves.append(("compute", v))
        self.red.add(v)
        if self.dag.is_output[v]:
            self.moves.append(("store", v))
            self.blue.add(v)
        for u in (*need, v):  # their next use moved on: a current entry each
            if u in self.red:
                heapq.heappush(self.heap, (-self.next_use(u, step + 1), u))

    def make_room(self, step: int, keep: set[int]) -> None:
        while len(self.red) >= self.memory:
            victim = self.farthest(step, keep)
            if self.next_use(victim, step) <= len(self.order) and victim not in self.blue:
                self.moves.append(("store", victim))
                self.blue.add(victim)
            self.moves.append(("delete", victim))
            self.red.discard(victim)

    def farthest(self, step: int, keep: set[int]) -> int:
        """The red vertex outside ``keep`` used farthest from ``step`` (the smallest among
        equals); stale entries are dropped, kept ones put back."""
        aside = []
        try:
            while True:
                key, u = heapq.heappop(self.heap)
                if u not in self.red or self.next_use(u, step) != -key:
                    continue  # stale: evicted, dead, or used since it was pushed
                if u in keep:
                    aside.append((key, u))
                    continue
                return u
        finally:
            for entry in aside:
                heapq.heappush(self.heap, entry)
