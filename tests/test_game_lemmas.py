"""The game's lemmas and the greedy schedule (``ioverify.game.lemmas``, ``ioverify.game.greedy``):
pure Python, shared by the searches and the certificate re-check."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from ioverify.dag import attention_forward, binary_tree, matmul, pyramid
from ioverify.game.greedy import greedy_schedule
from ioverify.game.lemmas import (compute_demands, counting_lower_bound, single_use_lemma,
                                  trivial_lower_bound)
from ioverify.game.replay import replay
from test_search_pebbling import diamond


def test_greedy_schedule_is_legal_and_not_below_trivial_bound():
    dag = matmul(2, 2, 2)
    for memory in (3, 4, 6, 20):
        result = replay(dag, greedy_schedule(dag, memory), memory, "one-shot")
        assert result.ok and result.io >= trivial_lower_bound(dag)


def test_demand_counts():
    assert set(compute_demands(matmul(2, 2, 2)).values()) == {1}
    assert single_use_lemma(binary_tree(8))
    dag = diamond()
    demands = {dag.names[v]: c for v, c in compute_demands(dag).items()}
    assert demands == {"r": 1, "p": 1, "q": 1, "m": 2}
    assert not single_use_lemma(dag)
    # apex 1, level 2: 1 + 1, level 1: 1 + 2 + 1
    assert sum(compute_demands(pyramid(3)).values()) == 1 + 2 + (1 + 2 + 1)


def test_counting_lower_bound_counts_inputs_and_sinks():
    dag = matmul(2, 2, 2)  # 8 inputs, 4 sinks
    assert counting_lower_bound(dag, 2) == 4
    assert counting_lower_bound(dag, 8) == 1
    assert counting_lower_bound(binary_tree(8), 3) == 3


def _belady_by_scanning(dag, memory):
    """The greedy schedule as first written: every eviction scans the red vertices (the
    reference the heap version must equal move for move)."""
    from bisect import bisect_left

    from ioverify.game.rules import Schedule

    order = [v for v in dag.useful if not dag.is_input[v]]
    uses: dict = {}
    for step, v in enumerate(order):
        for p in dag.preds[v]:
            uses.setdefault(p, []).append(step)
    moves, red, blue = [], set(), {v for v in range(len(dag)) if dag.is_input[v]}

    def next_use(u, step):
        steps = uses.get(u, ())
        i = bisect_left(steps, step)
        return steps[i] if i < len(steps) else len(order) + 1

    def make_room(step, keep):
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


@given(st.data())
def test_greedy_schedule_equals_the_scanning_belady_reference(data):
    from ioverify.strategies import dags

    dag = data.draw(dags(max_vertices=14, max_in_degree=3))
    memory = data.draw(st.integers(dag.min_memory, dag.min_memory + 3))
    assert greedy_schedule(dag, memory).to_dict(dag) == _belady_by_scanning(dag, memory).to_dict(
        dag)


@pytest.mark.parametrize("dag, memory", [(attention_forward(4, 2), 5), (matmul(3, 3, 3), 4),
                                         (pyramid(12), 3), (attention_forward(4, 2), 30)])
def test_greedy_schedule_equals_the_reference_on_the_families(dag, memory):
    assert greedy_schedule(dag, memory).to_dict(dag) == _belady_by_scanning(dag, memory).to_dict(
        dag)


def test_greedy_schedule_stops_at_a_passed_deadline():
    import time

    from ioverify.errors import DeadlineReached

    with pytest.raises(DeadlineReached, match="greedy schedule"):
        greedy_schedule(attention_forward(4, 2), 5, deadline=time.monotonic() - 1)


@given(st.data())
def test_the_best_greedy_schedule_is_legal_and_the_cheapest_of_its_orders(data):
    from ioverify.game.greedy import best_greedy_schedule, depth_first_order
    from ioverify.strategies import dags

    dag = data.draw(dags(max_vertices=14, max_in_degree=3))
    memory = data.draw(st.integers(dag.min_memory, dag.min_memory + 3))
    outputs = list(dag.outputs)
    for roots in (outputs, outputs[::-1]):
        order = depth_first_order(dag, roots)
        assert sorted(order) == sorted(v for v in dag.useful if not dag.is_input[v])
        place = {v: i for i, v in enumerate(order)}
        assert all(place[p] < place[v] for v in order for p in dag.preds[v] if p in place)
    best = best_greedy_schedule(dag, memory)
    result = replay(dag, best, memory, "one-shot")
    assert result.ok and result.io == best.io
    assert best.io == min(greedy_schedule(dag, memory, order=order).io for order in (
        None, depth_first_order(dag, outputs), depth_first_order(dag, outputs[::-1])))


def test_the_depth_first_order_finishes_a_query_row_at_a_time():
    """attention_forward(2,2) numbers its vertices stage by stage: in that order the greedy
    player computes every score first; depth-first it finishes each row's outputs."""
    from ioverify.game.greedy import best_greedy_schedule

    dag = attention_forward(2, 2)
    assert [greedy_schedule(dag, 4).io, best_greedy_schedule(dag, 4).io] == [53, 38]
