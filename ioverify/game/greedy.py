"""A greedy schedule: the first upper bound every search starts from (pure Python)."""

from __future__ import annotations

import heapq
import time
from itertools import accumulate, chain

from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached, InvalidArgument
from ioverify.game.rules import (COMPUTE, DELETE, LOAD, STORE, Schedule, check_dag, check_memory,
                                 infeasibility)

CHECK_CLOCK_EVERY = 1024  # compute steps between two looks at the deadline
# Up to this M an eviction looks at every red vertex; past it they wait in a heap keyed by next
# use (attention_backward(60,1): the scan twice as fast at M = 3, about even from 16 to 24, the
# heap faster at 40; the scan costs O(M) an eviction, the heap O(log) a use).
SCAN_MEMORY = 16


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
    if order is None:
        order = [v for v in dag.useful if not dag.is_input[v]]
    return _greedy_moves(dag, memory, order, deadline)


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


def _next_uses(dag: DAG, order: list[int], never: int) -> tuple[list[int], list[int]]:
    """Every vertex's use steps in ``order`` (one per occurrence as a predecessor), in
    increasing order and followed by ``never``, laid end to end: ``uses``; and ``cursor[u]``,
    the index in ``uses`` of ``u``'s first use (of its ``never`` if it has none).  A vertex's
    uses come in step order, so moving its cursor past each use as that step is done keeps
    ``uses[cursor[u]]`` its next use from the next step on, in O(1) a look."""
    listed: list[list[int]] = [[] for _ in range(len(dag))]
    preds = dag.preds
    for step, v in enumerate(order):
        for p in preds[v]:
            listed[p].append(step)
    for steps in listed:
        steps.append(never)
    cursor = [0, *accumulate(map(len, listed))]
    cursor.pop()
    return list(chain.from_iterable(listed)), cursor


def _greedy_moves(dag: DAG, memory: int, order: list[int],
                  deadline: float | None) -> Schedule:
    """The greedy player, one step of ``order`` at a time (one function with local names:
    this loop is most of the time a curve on tens of thousands of vertices spends before its
    searches).  ``uses[cursor[u]]`` is ``u``'s next use from the current step on
    (``_next_uses``).  The vertices with none left are deleted at the next step's start (no
    eviction comes between), so every red vertex an eviction sees has one.  ``red`` is a set so
    that the deletions of several dead vertices come in its iteration order, as they always
    have."""
    preds, is_output = dag.preds, dag.is_output
    never = len(order) + 1
    uses, cursor = _next_uses(dag, order, never)
    kinds = bytearray()  # the moves, as ``Schedule`` stores them
    vertices: list[int] = []
    red: set[int] = set()
    blue = bytearray(dag.is_input)
    heap: list[tuple[int, int]] = []  # past SCAN_MEMORY: (-next use, u) for each red u
    heaped, push = memory > SCAN_MEMORY, heapq.heappush
    farthest = (_farthest_in_heap(red, uses, cursor, heap) if heaped
                else _farthest_in_scan(red, uses, cursor))

    def make_room(keep: tuple[int, ...]) -> None:
        """Evict until a vertex fits, the farthest used first, stored if used later and not
        blue."""
        while len(red) >= memory:
            victim, later = farthest(keep)
            if later != never and not blue[victim]:
                kinds.append(STORE)
                vertices.append(victim)
                blue[victim] = 1
            kinds.append(DELETE)
            vertices.append(victim)
            red.discard(victim)

    dead: list[int] = []  # the last step's predecessors and result with no use left
    for step, v in enumerate(order):
        if deadline is not None and step % CHECK_CLOCK_EVERY == 0 \
                and time.monotonic() >= deadline:
            raise DeadlineReached("timeout while building the greedy schedule")
        if dead:
            for u in _in_set_order(dead, red):
                kinds.append(DELETE)
                vertices.append(u)
                red.discard(u)
            dead = []
        ps = preds[v]
        for p in ps:
            if p not in red:
                if len(red) >= memory:
                    make_room(ps)
                kinds.append(LOAD)
                vertices.append(p)
                red.add(p)
        if len(red) >= memory:
            make_room(ps)
        kinds.append(COMPUTE)
        vertices.append(v)
        red.add(v)
        if is_output[v]:
            kinds.append(STORE)
            vertices.append(v)
            blue[v] = 1
        for p in ps:  # all red now, their next use moved on
            cursor[p] += 1
        for u in (*ps, v):
            later = uses[cursor[u]]
            if later == never:
                dead.append(u)
            elif heaped:
                push(heap, (-later, u))
    return Schedule(kinds, vertices)


def _farthest_in_scan(red: set[int], uses: list[int], cursor: list[int]):
    """``farthest(keep)``: the red vertex outside ``keep`` with the largest next use (the
    smallest among equals) and that use, by a look at each red vertex."""
    def farthest(keep: tuple[int, ...]) -> tuple[int, int]:
        victim, far = -1, -1
        for u in red:
            if u not in keep:
                later = uses[cursor[u]]
                if later > far or (later == far and u < victim):
                    victim, far = u, later
        return victim, far
    return farthest


def _farthest_in_heap(red: set[int], uses: list[int], cursor: list[int],
                     heap: list[tuple[int, int]]):
    """``farthest(keep)`` as ``_farthest_in_scan``'s, from ``heap``, entries ``(-next use,
    u)``.  An entry is current while its vertex is red and its key is still that vertex's next
    use.  The player pushes a vertex at the end of every step that loads, computes or uses it,
    unless it has no use left (then it is deleted before the next eviction); its next use
    changes only in a step that uses it.  So every red vertex an eviction sees has a current
    entry, and the first current entry outside ``keep`` is the answer whatever other entries
    the heap holds.  Those popped before it are dropped: stale ones, and the current ones of
    ``keep`` (the step's predecessors), whose next use is this step: they go stale at its
    end, when the player pushes them again."""
    heappop = heapq.heappop

    def farthest(keep: tuple[int, ...]) -> tuple[int, int]:
        while True:
            key, u = heappop(heap)
            if u in red and uses[cursor[u]] == -key and u not in keep:
                return u, -key
    return farthest


def _in_set_order(dead: list[int], red: set[int]) -> list[int] | set[int]:
    """The distinct vertices of ``dead`` (all in ``red``) in ``red``'s iteration order."""
    if len(dead) == 1:
        return dead
    distinct = set(dead)
    return [u for u in red if u in distinct] if len(distinct) > 1 else distinct
