"""The greedy schedule (``ioverify.game.greedy``) against the algorithm it replaced for speed:
the same moves, move for move, on random DAGs and on the families, in every compute order
``best_greedy_schedule`` tries, with the evictions found by scanning and by the heap."""

from __future__ import annotations

import heapq
from bisect import bisect_left
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

from ioverify.dag import (attention_backward, attention_forward, matmul, pyramid,
                          sparse_attention_forward)
from ioverify.game import greedy
from ioverify.game.greedy import (_next_uses, best_greedy_schedule, depth_first_order,
                                  greedy_schedule)
from ioverify.game.rules import Schedule
from ioverify.strategies import dags


class _PreviousGreedy:
    """A faithful copy of the greedy player as it was before next uses were precomputed
    (``ioverify/game/greedy.py``'s ``_Greedy`` up to 2026-12-01, moves as (name, vertex)
    pairs): next uses by bisection over each vertex's use steps, every red vertex in a heap
    keyed by its next use, dead vertices deleted at the next step's start in the red set's
    iteration order.  The oracle the new code must equal move for move."""

    def __init__(self, dag, memory, order=None):
        self.dag, self.memory = dag, memory
        self.order = ([v for v in dag.useful if not dag.is_input[v]] if order is None
                      else order)
        self.uses = {}
        for step, v in enumerate(self.order):
            for p in dag.preds[v]:
                self.uses.setdefault(p, []).append(step)
        self.never = len(self.order) + 1
        self.moves = []
        self.red = set()
        self.blue = {v for v in range(len(dag)) if dag.is_input[v]}
        self.heap = []

    def next_use(self, u, step):
        steps = self.uses.get(u, ())
        i = bisect_left(steps, step)
        return steps[i] if i < len(steps) else self.never

    def run(self):
        previous = ()
        for step, v in enumerate(self.order):
            self.drop_dead(previous, step)
            self.compute(step, v)
            previous = (*self.dag.preds[v], v)
        return Schedule.from_moves(self.moves)

    def drop_dead(self, candidates, step):
        dead = {u for u in candidates
                if u in self.red and self.next_use(u, step) > len(self.order)}
        for u in [u for u in self.red if u in dead] if len(dead) > 1 else dead:
            self.moves.append(("delete", u))
            self.red.discard(u)

    def compute(self, step, v):
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
        for u in (*need, v):
            if u in self.red:
                heapq.heappush(self.heap, (-self.next_use(u, step + 1), u))

    def make_room(self, step, keep):
        while len(self.red) >= self.memory:
            victim = self.farthest(step, keep)
            if self.next_use(victim, step) <= len(self.order) and victim not in self.blue:
                self.moves.append(("store", victim))
                self.blue.add(victim)
            self.moves.append(("delete", victim))
            self.red.discard(victim)

    def farthest(self, step, keep):
        aside = []
        try:
            while True:
                key, u = heapq.heappop(self.heap)
                if u not in self.red or self.next_use(u, step) != -key:
                    continue
                if u in keep:
                    aside.append((key, u))
                    continue
                return u
        finally:
            for entry in aside:
                heapq.heappush(self.heap, entry)


def _orders(dag):
    """The compute orders ``best_greedy_schedule`` tries."""
    outputs = list(dag.outputs)
    return [None, depth_first_order(dag, outputs), depth_first_order(dag, outputs[::-1])]


def _assert_same_schedules(dag, memory):
    """The new greedy schedule equals the previous one in every order, with the evictions
    found by the scan (up to ``SCAN_MEMORY``) and by the heap (past it)."""
    for scan_memory in (memory, memory - 1):  # scanning at this M, then the heap
        with mock.patch.object(greedy, "SCAN_MEMORY", scan_memory):
            for order in _orders(dag):
                expected = _PreviousGreedy(dag, memory, order).run()
                assert greedy_schedule(dag, memory, None, order) == expected, (order, memory)
            expected = min((_PreviousGreedy(dag, memory, order).run() for order in _orders(dag)),
                           key=lambda schedule: schedule.io)
            assert best_greedy_schedule(dag, memory) == expected


@settings(max_examples=300)
@given(st.data())
def test_the_greedy_schedules_equal_the_previous_algorithm_on_random_dags(data):
    dag = data.draw(dags(max_vertices=18, max_in_degree=3))
    memory = data.draw(st.integers(dag.min_memory, dag.min_memory + 5))
    _assert_same_schedules(dag, memory)


CAUSAL_4 = [[j <= i for j in range(4)] for i in range(4)]
FAMILIES = {"attention_forward(2,2)": attention_forward(2, 2),
            "attention_forward(3,1)": attention_forward(3, 1),
            "attention_forward(4,2)": attention_forward(4, 2),
            "attention_backward(2,1)": attention_backward(2, 1),
            "attention_backward(3,2)": attention_backward(3, 2),
            "matmul(2,2,2)": matmul(2, 2, 2), "matmul(3,3,3)": matmul(3, 3, 3),
            "sparse_forward(causal 4,1)": sparse_attention_forward(CAUSAL_4, 1),
            "pyramid(8)": pyramid(8)}


@pytest.mark.parametrize("dag", FAMILIES.values(), ids=FAMILIES.keys())
def test_the_greedy_schedules_equal_the_previous_algorithm_on_the_families(dag):
    for memory in sorted({dag.min_memory, dag.min_memory + 1, 5, 8, 12, 17, 24}):
        if memory >= dag.min_memory:
            _assert_same_schedules(dag, memory)


@given(dags(max_vertices=14, max_in_degree=3), st.data())
def test_the_cursor_gives_each_vertex_its_next_use(dag, data):
    """``uses[cursor[u]]``, the cursor moved past each step's uses, is the first use at or
    after the step (by bisection), or ``never``."""
    order = data.draw(st.sampled_from([o for o in _orders(dag) if o is not None]))
    never = len(order) + 1
    uses, cursor = _next_uses(dag, order, never)
    steps = {u: [s for s, v in enumerate(order) for p in dag.preds[v] if p == u]
             for u in range(len(dag))}
    for step, v in enumerate(order):
        for u in range(len(dag)):
            later = [s for s in steps[u] if s >= step]
            assert uses[cursor[u]] == (later[0] if later else never)
        for p in dag.preds[v]:
            cursor[p] += 1
