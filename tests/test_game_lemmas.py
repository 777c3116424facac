"""The game's lemmas and the greedy schedule (``ioverify.game.lemmas``, ``ioverify.game.greedy``):
pure Python, shared by the searches and the certificate re-check."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings, strategies as st

from ioverify.dag import DAG, approximate_attention, attention_forward, binary_tree, matmul, pyramid
from ioverify.game.exhaustive import exhaustive_optimum
from ioverify.game.greedy import greedy_schedule
from ioverify.game.lemmas import (chain_groups, compute_demands, contract_chains,
                                  counting_lower_bound, single_use_lemma, trivial_lower_bound)
from ioverify.game.replay import replay
from ioverify.search.unfold import expand_chains
from ioverify.strategies import dags, memory_sizes
from test_game_exhaustive import naive_optimum
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


# --- the chain-contraction lemma ----------------------------------------------------------------

def test_contraction_joins_each_vertex_of_one_non_input_predecessor_to_it():
    """attention_forward(2,1): each exp A[i,j] has the one predecessor S[i,j], which is not an
    input; the contracted vertex is named after A and takes S's predecessors."""
    dag = attention_forward(2, 1)
    contracted = contract_chains(dag)
    assert len(contracted) == len(dag) - 4
    names = set(contracted.names)
    assert {"A[0,0]", "A[1,1]"} <= names and not any(n.startswith("S[") for n in names)
    a = contracted.names.index("A[0,1]")
    assert {contracted.names[p] for p in contracted.preds[a]} == {"Q[0,0]", "K[1,0]"}
    assert [contracted.names[o] for o in contracted.outputs] == ["O[0,0]", "O[1,0]"]
    assert contract_chains(matmul(2, 2, 2)) is None  # every product reads two inputs


def test_contraction_keeps_the_inputs_out_of_the_groups():
    """A feature of an input (one predecessor, an input) stays its own vertex: with the input
    as root it would come for free with every load."""
    dag = DAG.from_edges(["x", "u", "y", "o"], [("x", "u"), ("u", "o"), ("x", "y"),
                                                ("y", "o")], outputs=["o"])
    assert contract_chains(dag) is None


def test_with_inputs_as_roots_a_feature_of_an_input_joins_it_and_is_no_output():
    """approximate_attention(2,1,2): each square U of an input (Q or K) joins its input, whose
    group is an input; an output in an input's group is dropped (it is blue from the start)."""
    dag = approximate_attention(2, 1, 2)
    rooted, plain = contract_chains(dag, inputs=True), contract_chains(dag)
    assert (len(dag), len(plain), len(rooted)) == (37, 35, 31)
    assert set(rooted.inputs) == set(range(6)) and len(rooted.outputs) == 2
    group = chain_groups(dag, inputs=True)
    assert {dag.names[group[v]] for v, name in enumerate(dag.names) if name.startswith("U")} \
        == {"Q[0,0]", "Q[1,0]", "K[0,0]", "K[1,0]"}
    fed = DAG.from_edges(["x", "u", "y", "o"], [("x", "u"), ("u", "o"), ("x", "y"),
                                                ("y", "o")], outputs=["o", "u"])
    small = contract_chains(fed, inputs=True)
    assert len(small) == 2 and [small.names[o] for o in small.outputs] == ["o"]  # x, u, y; o


def _contracted_optimum_is_at_most_the_dags(data, max_vertices: int) -> None:
    """The lemma, with and without the inputs as roots, against the naive search over every
    legal move on both DAGs: never above (a contracted optimum above the DAG's would make
    every level proved on it unsound)."""
    dag = data.draw(dags(max_vertices=max_vertices, max_in_degree=2))
    inputs = data.draw(st.booleans())
    contracted = contract_chains(dag, inputs)
    assume(contracted is not None)
    memory = data.draw(memory_sizes(dag, max_extra=2))
    for variant in ("recompute", "one-shot"):
        mine, theirs = naive_optimum(contracted, memory, variant), naive_optimum(dag, memory,
                                                                                variant)
        assert theirs is None or mine <= theirs, (variant, inputs)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_contracted_optimum_is_at_most_the_dags_in_both_variants(data):
    _contracted_optimum_is_at_most_the_dags(data, 7)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.data())
def test_the_contracted_optimum_is_at_most_the_dags_in_both_variants_thoroughly(data):
    _contracted_optimum_is_at_most_the_dags(data, 8)


@st.composite
def chained_dags(draw, max_vertices: int = 9) -> DAG:
    """DAGs whose vertices of one non-input predecessor form private chains: each vertex reads
    two earlier vertices open to use, and may be followed by a chain of one or two vertices,
    each reading the one before it alone (the ones before the last then closed to use)."""
    names, edges, open_ = [], [], []
    for v in range(draw(st.integers(2, 3))):
        names.append(f"x{v}")
        open_.append(f"x{v}")
    while len(names) < max_vertices:
        preds = draw(st.lists(st.sampled_from(open_), min_size=2, max_size=2, unique=True))
        chain = [f"v{len(names) + i}" for i in range(1 + draw(st.integers(0, 2)))]
        chain = chain[:max_vertices - len(names)]
        edges += [(p, chain[0]) for p in preds]
        edges += list(zip(chain, chain[1:]))
        names += chain
        open_.append(chain[-1])
    return DAG.from_edges(names, edges)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_contracted_schedule_of_private_chains_expands_one_pebble_up(data):
    """``expand_chains``: where every member of a group but its last feeds only the group and
    is no output, an optimal contracted schedule expands to a schedule of the DAG of the same
    I/O that replays with one pebble more (each group's computes hold two members at once)."""
    dag = data.draw(chained_dags())
    contracted = contract_chains(dag)
    assume(contracted is not None)
    group = chain_groups(dag)
    last = {root: v for v, root in enumerate(group)}
    assume(all(last[group[v]] == v or (not dag.is_output[v]
                                       and all(group[s] == group[v] for s in dag.succs[v]))
               for v in range(len(dag))))
    memory = data.draw(memory_sizes(contracted, max_extra=2))
    for variant in ("recompute", "one-shot"):
        found = exhaustive_optimum(contracted, memory, variant)
        expanded = expand_chains(found.schedule, dag)
        result = replay(dag, expanded, memory + 1, variant)
        assert result.ok and result.io == found.optimum, (variant, result)
