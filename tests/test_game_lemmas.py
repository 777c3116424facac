"""The game's lemmas and the greedy schedule (``ioverify.game.lemmas``, ``ioverify.game.greedy``):
pure Python, shared by the searches and the certificate re-check."""

from __future__ import annotations

from ioverify.dag import binary_tree, matmul, pyramid
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
