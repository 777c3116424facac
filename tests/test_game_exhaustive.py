"""The exhaustive optimal search: reference optima, every kind of answer, and differential tests
against a naive search over ALL moves (no normal form) and against random legal schedules."""

import functools
import operator
import random
import time
from collections import deque

import pytest
from hypothesis import given, settings, strategies as st

from ioverify.dag import DAG, attention_forward, binary_tree, matmul, pyramid
from ioverify.errors import InternalError, InvalidArgument
from ioverify.game import replay
from ioverify.game import engine, exhaustive
from ioverify.game.exhaustive import SearchResult, exhaustive_optimum
from ioverify.game.lemmas import contract_chains
from ioverify.certificate import closed
from ioverify.strategies import dags, memory_sizes, schedules

# docs/theory.md §1 (recompute); the one-shot figures were found by this search.
REFERENCE = [
    ("pyramid(3)", pyramid(3), 3, 11, 11), ("pyramid(3)", pyramid(3), 4, 7, 7),
    ("pyramid(3)", pyramid(3), 5, 5, 5),
    ("binary_tree(8)", binary_tree(8), 3, 15, 15), ("binary_tree(8)", binary_tree(8), 4, 11, 11),
    ("binary_tree(8)", binary_tree(8), 5, 9, 9),
]


@pytest.mark.parametrize("name, dag, memory, recompute, one_shot", REFERENCE,
                         ids=[f"{r[0]}-M{r[2]}" for r in REFERENCE])
def test_reference_optima(name, dag, memory, recompute, one_shot):
    for variant, expected in (("recompute", recompute), ("one-shot", one_shot)):
        result = exhaustive_optimum(dag, memory, variant)
        assert result.complete and result.optimum == expected, (variant, result)
        check = replay(dag, result.schedule, memory, variant)
        assert check.ok and check.io == expected
        assert "optimum" in result.reason and result.states > 0 and result.seconds >= 0


# matmul(2,2,2), chain summation: docs/theory.md §1 gives the recompute optima; one-shot
# agrees on these four (found by this search).
MATMUL = [(3, 25), (4, 17), (5, 14), (6, 13)]


@pytest.mark.parametrize("variant", ["recompute", "one-shot"])
@pytest.mark.parametrize("memory, expected", [
    pytest.param(m, q, marks=[pytest.mark.slow] if m <= 4 else []) for m, q in MATMUL])
def test_matmul_222_chain(variant, memory, expected):
    dag = matmul(2, 2, 2)
    result = exhaustive_optimum(dag, memory, variant)
    assert result.complete and result.optimum == expected
    assert replay(dag, result.schedule, memory, variant).io == expected


def test_matmul_222_below_the_optimum_at_m6_is_refuted_quickly():
    dag = matmul(2, 2, 2)
    result = exhaustive_optimum(dag, 7, below=12)  # 8 loads + 4 stores are unavoidable
    assert result.complete and result.optimum is None and "I/O < 12" in result.reason


def test_infeasible_memory_names_the_vertex():
    result = exhaustive_optimum(pyramid(2), 2)
    assert result.complete and result.optimum is None and result.schedule is None
    assert "infeasible" in result.reason and "'x[1,0]'" in result.reason


def test_below_finds_optimum_or_proves_none():
    dag = pyramid(3)
    assert exhaustive_optimum(dag, 3, below=12).optimum == 11
    none = exhaustive_optimum(dag, 3, below=11)
    assert none.complete and none.optimum is None and none.schedule is None
    assert exhaustive_optimum(dag, 3, below=0).optimum is None


def test_budgets_give_incomplete_results():
    dag = binary_tree(8)
    result = exhaustive_optimum(dag, 3, max_states=10)  # the whole search stores 40
    assert not result.complete and result.optimum is None and "state budget" in result.reason
    result = exhaustive_optimum(attention_forward(2, 1), 3, deadline=time.monotonic())
    assert not result.complete and result.optimum is None and "deadline" in result.reason


def test_a_passed_deadline_stops_a_large_search_at_once():
    """Pyramid height 40 (861 vertices): one expansion takes a tenth of a second, so the clock
    is read before the search is built, at every expansion and within one; and a passed
    deadline leaves no symmetry."""
    dag, past = pyramid(40), time.monotonic() - 1.0
    result = exhaustive_optimum(dag, 4, deadline=past)
    assert not result.complete and "deadline" in result.reason and result.states == 0
    one_shot = exhaustive.require_variant("one-shot", {"one-shot"}, "")
    assert exhaustive._Search(dag, 4, one_shot).run(None, None, past)[2] == "deadline reached"
    wide = exhaustive._Search(binary_tree(256), 3, one_shot)  # 128 successors of the start
    start = wide.input_mask << wide.n
    blocks, given = wide.blocks, []

    def counted(*args):  # the blocks the expansion takes before it stops
        for block in blocks(*args):
            given.append(block)
            yield block

    wide.blocks = counted
    for deadline, taken, states in ((None, 128, 129), (past, exhaustive._CHECK_CLOCK_EVERY, 1)):
        info, queue = ({start: (0, None, None, 0, start)},
                       exhaustive._Queue(exhaustive.INFINITY, 0))
        given.clear()
        after = wide._expand(start, info, {}, queue, deadline)
        # with a passed deadline, the first look at the clock stops it, and it stores nothing
        assert len(given) == taken and len(info) == states
        assert (after is None) == (deadline is not None)
    assert exhaustive._Symmetry(matmul(2, 2, 2), 3, past).group == []
    assert len(exhaustive._Symmetry(matmul(2, 2, 2), 3).group) == 15  # all but the identity


def test_groups_of_more_than_64_automorphisms_are_used(monkeypatch):
    """The search keys configurations by groups of up to ``_Symmetry.MAX_GROUP`` (512)
    automorphisms; it used none past 64.  A binary tree of 8 leaves has 128: with them the
    search finds the optimum it finds without any, storing fewer configurations, and its
    schedule replays at that cost."""
    tree = binary_tree(8)
    assert len(exhaustive._Symmetry(tree, 4).group) == 127
    cells = [(memory, variant) for memory in (3, 4, 5) for variant in ("one-shot", "recompute")]
    with_group = {cell: exhaustive_optimum(tree, *cell) for cell in cells}
    monkeypatch.setattr(exhaustive._Symmetry, "MAX_GROUP", 64)
    assert exhaustive._Symmetry(tree, 4).group == []
    without = {cell: exhaustive_optimum(tree, *cell) for cell in cells}
    for cell in cells:
        found, plain = with_group[cell], without[cell]
        assert found.optimum == plain.optimum and found.states <= plain.states
        assert replay(tree, found.schedule, *cell).io == found.optimum
    assert sum(r.states for r in with_group.values()) < sum(r.states for r in without.values())


def test_no_outputs_costs_nothing():
    result = exhaustive_optimum(DAG.from_edges(["a", "b"], []), 1)
    assert result.optimum == 0 and len(result.schedule) == 0


def test_useless_vertices_are_not_touched():
    # d hangs off the output path but is not an output: never computed, never stored.
    dag = DAG.from_edges(["a", "c", "d"], [("a", "c"), ("a", "d")], outputs=["c"])
    result = exhaustive_optimum(dag, 2)
    assert result.optimum == 2 and dag.index["d"] not in set(result.schedule.vertices)


def _blocks(dag, memory, variant, red, blue, computed=()):
    """``_Search.blocks`` from a configuration given by vertex names (nothing fresh): (c,
    cost, stored, finished, red after the block), by names."""
    search = exhaustive._Search(dag, memory, exhaustive.require_variant(variant, {variant}, "t"))
    mask = lambda names: sum(1 << dag.index[v] for v in names)  # noqa: E731
    names = lambda bits: sorted(dag.names[v] for v in exhaustive._bits(bits))  # noqa: E731
    blocks = search.blocks(mask(red), mask(blue), 0, mask(computed))
    return sorted((dag.names[c], cost, names(stored), names(finished), names(nred))
                  for cost, nred, _, _, _, (c, _, stored, finished, _) in blocks)


TWO_ROWS = DAG.from_edges(["a", "x", "y", "o1", "o2"],
                          [("a", "x"), ("x", "o1"), ("a", "y"), ("y", "o2")])


def test_dead_vertices_are_neither_computed_nor_stored():
    """N11: once the only output x reaches is blue, x is not recomputed, and not stored when
    evicted; N13: a block deletes what it leaves dead."""
    blocks = _blocks(TWO_ROWS, 2, "recompute", red=["x", "y"], blue=["a", "o1"])
    assert blocks == [("o2", 1, [], ["o2"], [])]  # x evicted unstored; o2 finished (N14)
    blocks = _blocks(TWO_ROWS, 2, "recompute", red=["x", "y"], blue=["a"])
    assert blocks == [("o1", 1, [], ["o1"], []), ("o1", 2, ["y"], ["o1"], []),
                      ("o2", 1, [], ["o2"], []), ("o2", 2, ["x"], ["o2"], [])]  # y or x evicted

    blocks = _blocks(TWO_ROWS, 2, "recompute", red=["a"], blue=["a", "o1"])
    assert blocks == [("y", 0, [], [], ["a", "y"])]  # x is dead: not recomputed
    blocks = _blocks(TWO_ROWS, 3, "recompute", red=["a", "y"], blue=["a", "o1"])
    assert blocks == [("o2", 1, [], ["o2"], [])]  # o2 stored: a and y are dead, deleted


# x, w, y, o, o2 all have demand 1 (single, N18): chain(x) = x, w, o; chain(y) = y, o2.
SINGLE = DAG.from_edges(["a", "b", "x", "w", "o", "y", "o2"],
                        [("a", "x"), ("x", "w"), ("b", "w"), ("w", "o"), ("a", "y"), ("y", "o2")],
                        outputs=["o", "o2"])


def _single_blocks(single, memory, red, blue):
    """``_blocks`` on SINGLE in recompute, with N18 applied or not: (c, cost, stored,
    finished, red after, deleted as spent)."""
    search = exhaustive._Search(SINGLE, memory, exhaustive.require_variant(
        "recompute", {"recompute"}, "t"))
    search.single = search.single_mask if single else 0
    mask = lambda names: sum(1 << SINGLE.index[v] for v in names)  # noqa: E731
    names = lambda bits: sorted(SINGLE.names[v] for v in exhaustive._bits(bits))  # noqa: E731
    return sorted((SINGLE.names[c], cost, names(stored), names(finished), names(nred),
                   names(drop)) for cost, nred, _, _, _, (c, _, stored, finished, drop)
                  in search.blocks(mask(red), mask(blue), 0, 0))


def test_single_demand_leaves_used_vertices_dead():
    """N18 (b): computing w, the only needed successor of x and of the input b, leaves both
    dead: the block deletes them.  Computing y leaves a dead: its needed successors x and y
    are single and done.  Without N18 all stay red."""
    assert _single_blocks(True, 3, red=["x"], blue=["a", "b"]) == [
        ("w", 1, [], [], ["w"], ["b", "x"]), ("y", 1, [], [], ["x", "y"], ["a"])]
    assert _single_blocks(False, 3, red=["x"], blue=["a", "b"]) == [
        ("w", 1, [], [], ["b", "w", "x"], []), ("y", 1, [], [], ["a", "x", "y"], [])]


def test_a_done_single_vertex_is_not_computed_again():
    """N18 (a): x with blue, or with a pebble on w past it, is computed already and never
    again: no block computes it (without N18 both may)."""
    assert [b[0] for b in _single_blocks(True, 3, red=[], blue=["a", "b", "x"])] == ["w", "y"]
    assert [b[0] for b in _single_blocks(False, 3, red=[], blue=["a", "b", "x"])] == [
        "w", "x", "y"]
    assert [b[0] for b in _single_blocks(True, 2, red=["w"], blue=["a", "b"])] == ["o", "y"]
    assert [b[0] for b in _single_blocks(False, 2, red=["w"], blue=["a", "b"])] == [
        "o", "x", "x", "y", "y"]


def test_an_evicted_live_single_vertex_is_stored():
    """N18 (c): w, single, computed and not dead, is stored when evicted (else its chain would
    be left without pebbles); without N18 leaving it unstored is a choice."""
    assert _single_blocks(True, 2, red=["w"], blue=["a", "b"])[1] == (
        "y", 2, ["w"], [], ["y"], ["a"])
    assert [b[:3] for b in _single_blocks(False, 2, red=["w"], blue=["a", "b"])
            if b[0] == "y"] == [("y", 1, []), ("y", 2, ["w"])]
    assert _single_blocks(True, 2, red=["x", "y"], blue=["a", "b"]) == [
        ("o2", 2, ["x"], ["o2"], [], ["o2", "y"])]


def test_the_count_loads_a_done_single_vertex():
    """N18 in the heuristic: x has blue and a is red, so without N18 the unlimited game
    recomputes x for nothing; under N18 x is done and must be loaded, like b."""
    search = exhaustive._Search(SINGLE, 3, exhaustive.require_variant(
        "recompute", {"recompute"}, "t"))
    mask = lambda names: sum(1 << SINGLE.index[v] for v in names)  # noqa: E731
    red, blue = mask(["a"]), mask(["a", "b", "x"])
    assert search.heuristic(red, blue, 0) == 1 + 2  # load b; store o and o2
    search.single = search.single_mask
    assert search.heuristic(red, blue, 0) == 2 + 2  # load b and x
    search.nodes_left = exhaustive._BRANCH_NODES
    todo = mask(["o", "o2"])
    assert search._min_cut(todo, red, blue, search.single & blue) == 2
    assert search._min_cut(todo, red, blue) == 1


# Random DAGs on which N18's dead rule loses the optimum if it takes outputs among the dead
# (found by a differential run against ``naive_optimum``): 6 -> 7, and 4 -> no schedule.
# (Predecessors of each vertex, inputs first; outputs; M.)
SINGLE_TRAPS = [
    ([[], [], [0], [1, 2], [1, 2, 3], [1, 0], [5, 0], [0, 4, 5], [2, 7]], [4, 6, 8], 4),
    ([[], [], [1, 0], [1], [3, 2], [4], [2, 0, 5]], [4, 6], 4),
]


def test_single_demand_only_where_its_argument_holds():
    """N18 is applied by the game's own search from its start, not by a search that keeps
    its closed configurations for a certificate (its checker knows N1-N17), not in restricted
    games, and a search with it refuses other starts."""
    dag = attention_forward(2, 1)
    assert exhaustive.ExhaustiveRun(dag, 4, "recompute").search.single
    assert not exhaustive.ExhaustiveRun(dag, 4, "recompute", keep_closed=True).search.single
    assert not exhaustive.ExhaustiveRun(dag, 4, "one-shot").search.single
    assert not exhaustive._Search(dag, 4, exhaustive.require_variant(
        "recompute", {"recompute"}, "t"), part=1).single_mask
    search = exhaustive.ExhaustiveRun(dag, 4, "recompute").search
    with pytest.raises(InternalError, match="N18"):
        search.run(None, None, None, start_state=(0, search.input_mask, 0))


@pytest.mark.parametrize("memory", [3, 4])
def test_single_demand_cuts_the_configurations(memory, monkeypatch):
    """N18 pays on attention, contracted as the recompute route searches it: the same optimum
    from a fifth to a third fewer configurations (6,455 to 5,091 at M = 4, 7,455 to 4,820 at
    M = 3), measured without the next block's evictions (``_eviction_debt``)."""
    dag = contract_chains(attention_forward(2, 1), inputs=True)
    monkeypatch.setattr(exhaustive._Search, "_eviction_debt", lambda self, *masks: 0)
    with_rule = exhaustive_optimum(dag, memory, "recompute")
    init = exhaustive._Search.__init__

    def without_rule(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.single_mask = 0
    monkeypatch.setattr(exhaustive._Search, "__init__", without_rule)
    without = exhaustive_optimum(dag, memory, "recompute")
    assert with_rule.optimum == without.optimum
    assert 5 * with_rule.states < 4 * without.states


def test_one_shot_evictions_store_exactly_what_is_still_needed():
    """N12: an evicted vertex without blue is stored when a compute still to come or its own
    output role needs it, and never otherwise."""
    blocks = _blocks(TWO_ROWS, 2, "one-shot", red=["x", "y"], blue=["a"], computed=["x", "y"])
    assert blocks == [("o1", 2, ["y"], ["o1"], []), ("o2", 2, ["x"], ["o2"], [])]
    chain = DAG.from_edges(["a", "x", "w", "o"], [("a", "x"), ("x", "w"), ("a", "w"), ("w", "o")])
    blocks = _blocks(chain, 3, "one-shot", red=["a", "x"], blue=["a"], computed=["x"])
    assert blocks == [("w", 0, [], [], ["w"])]  # a and x are spent once w is computed (N13)


def test_finished_outputs_are_stored_at_once():
    """N14: an output with no useful successor left to compute is stored and deleted by the
    block that finishes it, in both variants; an output that still has one waits."""
    dag = DAG.from_edges(["a", "o", "p"], [("a", "o"), ("o", "p")], outputs=["o", "p"])
    for variant in ("one-shot", "recompute"):
        spent = variant == "one-shot"  # a has no successor left to compute (N13)
        assert _blocks(dag, 2, variant, red=["a"], blue=["a"]) == [
            ("o", 0, [], [], ["o"] if spent else ["a", "o"])]
        computed = ["o"] if variant == "one-shot" else []
        assert _blocks(dag, 2, variant, red=["o"], blue=["a"], computed=computed) == [
            ("p", 2, [], ["o", "p"], [])]  # o's last successor is computed: both stored


def test_an_eager_vertex_is_the_only_block():
    """N16 (one-shot): with room, a vertex whose predecessors are red and which is the last
    use left of one without blue and no output (or of a blue one, while it is an output) is
    computed at once: its block is the only one.  The certificate checker agrees."""
    dag = DAG.from_edges(["a", "b", "x", "y", "z"],
                         [("a", "x"), ("x", "y"), ("b", "z")], outputs=["y", "z"])
    after_x = dict(red=["x"], blue=["a", "b"], computed=["x"])
    assert [b[0] for b in _blocks(dag, 3, "one-shot", **after_x)] == ["y"]
    assert [b[0] for b in _blocks(dag, 3, "recompute", red=["x"], blue=["a", "b"])] == [
        "y", "z"]  # recompute: x may be needed again
    # a is blue and x no output: x is not eager, and z's block stays
    assert [b[0] for b in _blocks(dag, 3, "one-shot", red=["a"], blue=["a", "b"])] == [
        "x", "z"]
    # no room: nothing is eager
    assert [b[0] for b in _blocks(dag, 2, "one-shot", red=["x", "b"], blue=["a", "b"],
                                  computed=["x"])] == ["y", "z"]
    # a blue predecessor used last by an output
    out = DAG.from_edges(["a", "b", "o", "z"], [("a", "o"), ("b", "z")], outputs=["o", "z"])
    assert [b[0] for b in _blocks(out, 3, "one-shot", red=["a"], blue=["a", "b"])] == ["o"]
    # an output without blue used last: not a reason (it must still be stored)
    chain = DAG.from_edges(["a", "b", "o", "c", "z"], [("a", "o"), ("o", "c"), ("b", "z")],
                           outputs=["o", "c", "z"])
    assert [b[0] for b in _blocks(chain, 3, "one-shot", red=["o"], blue=["a", "b"],
                                  computed=["o"])] == ["c", "z"]
    for graph, memory, config in ((dag, 3, after_x), (out, 3, dict(red=["a"], blue=["a", "b"]))):
        game = closed._Game(graph, memory, True)
        mask = lambda names: sum(1 << graph.index[v] for v in names)  # noqa: E731
        assert {graph.names[c] for _, c, *_ in game.blocks(
            mask(config["red"]), mask(config["blue"]), 0, mask(config.get("computed", ())))
        } == {b[0] for b in _blocks(graph, memory, "one-shot", **config)}


# Random DAGs on which an eager compute without one of N16's conditions loses the optimum
# (found by a differential run against ``naive_optimum``): a blue predecessor while the vertex
# is no output; a predecessor with another successor left to compute.  (Predecessors of each
# vertex, inputs first; outputs; M.)
EAGER_TRAPS = [
    ([[], [], [1], [1], [2], [2, 4], [0, 3]], [5, 6], 3),
    ([[], [0], [1], [0, 1], [2, 3]], [2, 4], 3),
]


@pytest.mark.parametrize("preds, outputs, memory, variant",
                         [(*trap, "one-shot") for trap in EAGER_TRAPS]
                         + [(*trap, "recompute") for trap in SINGLE_TRAPS])
def test_the_rules_lose_nothing_where_their_conditions_hold(preds, outputs, memory, variant):
    """N16 on EAGER_TRAPS (one-shot), N18 on SINGLE_TRAPS (recompute): the naive optimum."""
    names = [f"v{v}" for v in range(len(preds))]
    dag = DAG.from_edges(names, [(names[p], names[v]) for v in range(len(preds))
                                 for p in preds[v]], outputs=[names[o] for o in outputs])
    assert exhaustive_optimum(dag, memory, variant).optimum == naive_optimum(
        dag, memory, variant)


@pytest.mark.parametrize("dag, memory", [(attention_forward(2, 1), 4),
                                         (attention_forward(2, 1), 6)])
def test_eager_computes_cut_the_configurations(dag, memory, monkeypatch):
    """N16 pays on attention: the same optimum from fewer configurations (half as many; 3 to
    4 times fewer before N17 merged the configurations differing in idle blue only)."""
    with_rule = exhaustive_optimum(dag, memory, "one-shot")
    init = exhaustive._Search.__init__

    def without_rule(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.eager = False
    monkeypatch.setattr(exhaustive._Search, "__init__", without_rule)
    without = exhaustive_optimum(dag, memory, "one-shot")
    assert with_rule.optimum == without.optimum
    assert 3 * with_rule.states < 2 * without.states


def test_what_a_finished_output_leaves_dead_depends_on_its_eviction():
    """N14 in recompute: c finishes, its blue kills s, and with s dead o is finished too; but
    when the block evicts o unstored, o still needs x to be computed again, so x stays."""
    dag = DAG.from_edges(["a", "x", "o", "s", "c"],
                         [("a", "x"), ("x", "o"), ("o", "s"), ("s", "c")], outputs=["o", "c"])
    blocks = _blocks(dag, 3, "recompute", red=["x", "o", "s"], blue=["a"])
    assert blocks == [("c", 1, [], ["c"], ["x"]),  # o evicted unstored: x is still live
                      ("c", 2, [], ["c", "o"], []),  # x evicted: o finished, all dead
                      ("c", 2, ["o"], ["c"], []),  # o evicted and stored: x is dead
                      ("c", 3, ["x"], ["c", "o"], [])]
    game = closed._Game(dag, 3, False)  # the certificate checker derives the same blocks
    mask = sum(1 << dag.index[v] for v in ("x", "o", "s"))
    assert sorted((cost, dag.names[c], red) for cost, c, red, *_ in game.blocks(
        mask, 1 << dag.index["a"], 0, 0)) == sorted(
        (cost, "c", sum(1 << dag.index[v] for v in after)) for _, cost, _, _, after in blocks)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_no_configuration_between_blocks_holds_a_spent_vertex(data):
    """N13, N14: along random walks of blocks from the start, every block leaves a
    configuration in which ``spent``, computed from scratch, finds nothing finished or spent
    (the blocks compute what they leave incrementally)."""
    dag = data.draw(dags(max_vertices=8, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    variant = data.draw(st.sampled_from(["recompute", "one-shot"]))
    search = exhaustive._Search(dag, memory, exhaustive.require_variant(variant, {variant}, "t"))
    red, blue, fresh, computed = 0, search.input_mask, 0, 0
    for _ in range(16):
        blocks = list(search.blocks(red, blue, fresh, computed))
        if not blocks:
            break
        for _, nred, nblue, _, ncomputed, _ in blocks:
            assert search.spent(nred, nblue, ncomputed) == (0, 0)
        _, red, blue, fresh, computed, _ = data.draw(st.sampled_from(blocks))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_budget_cuts_only_blocks_the_count_puts_out_of_reach(data):
    """``blocks(..., budget)`` may leave out a block only if its cost plus the count after it
    reaches the budget (``_expand`` would drop it): along random walks, in both variants,
    every block with cost + count below a budget is kept at that budget, and none is made
    up (recompute: the loads every choice of stores needs, ``_loads_at_least``)."""
    _budget_cuts_only_out_of_reach(data)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.data())
def test_a_budget_cuts_only_blocks_the_count_puts_out_of_reach_thoroughly(data):
    """As above, on 3,000 walks: a family bound leaving out the stored vertices' red (a
    mutant) is caught here, not in 150."""
    _budget_cuts_only_out_of_reach(data)


def _budget_cuts_only_out_of_reach(data):
    dag = data.draw(dags(max_vertices=8, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    variant = data.draw(st.sampled_from(["recompute", "one-shot"]))
    search = exhaustive._Search(dag, memory, exhaustive.require_variant(variant, {variant}, "t"))
    red, blue, fresh, computed = 0, search.input_mask, 0, 0
    for step in range(data.draw(st.integers(0, 8))):
        every = list(search.blocks(red, blue, fresh, computed, step == 0))
        if not every:
            break
        counts = [search._trivial(search.output_mask & ~nblue, nred, nblue, ncomputed)
                  for _, nred, nblue, _, ncomputed, _ in every]
        finite = [block[0] + count for block, count in zip(every, counts)
                  if count != exhaustive.INFINITY]
        for budget in range(max(finite, default=0) + 2):
            kept = list(search.blocks(red, blue, fresh, computed, step == 0, budget))
            assert all(block in every for block in kept)
            for block, count in zip(every, counts):
                if block[0] + count < budget:
                    assert block in kept, (budget, block)
        _, red, blue, fresh, computed, _ = data.draw(st.sampled_from(every))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_one_shot_eviction_pays_at_least_its_floor(data):
    """``_evictions_floor``: along random one-shot walks, in the game and in a weighted
    restricted game of every vertex, every block that evicts costs, with the count after it,
    at least its loads, its stores of no output, BASE and the weight of what it evicts within
    REACHED; and BASE plus the outputs without blue is the count with nothing evicted."""
    dag = data.draw(dags(max_vertices=8, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=1))
    rules = exhaustive.require_variant("one-shot", {"one-shot"}, "t")
    if data.draw(st.booleans()):
        search = exhaustive._Search(dag, memory, rules)
    else:
        weights = data.draw(st.dictionaries(st.integers(0, len(dag) - 1), st.sampled_from([1, 2])))
        search = exhaustive._Search(dag, memory, rules, part=(1 << len(dag)) - 1,
                                    weights=(3, weights))
    cost_of, outputs = search.cost_of, search.output_mask
    red, blue, fresh, computed = 0, search.input_mask, 0, 0
    for step in range(data.draw(st.integers(0, 8))):
        every = list(search.blocks(red, blue, fresh, computed, step == 0))
        if not every:
            break
        for cost, nred, nblue, _, ncomputed, (c, gone, stored, _, _) in every:
            missing = search.pred_mask[c] & ~red
            if not gone:
                continue
            after = red | missing | 1 << c
            pending = outputs & ~blue
            reached, base = search._evictions_floor(after, blue, ncomputed, pending)
            count = search._trivial(outputs & ~nblue, nred, nblue, ncomputed)
            assert cost + count >= (cost_of(missing) + cost_of(stored & ~outputs) + base
                                    + cost_of(gone & reached))
            if reached:
                assert base + cost_of(pending) == search._trivial(pending, after, blue,
                                                                  ncomputed)
        _, red, blue, fresh, computed, _ = data.draw(st.sampled_from(every))


def _recompute_walk_evictions(data):
    """Along a random recompute walk, (search, configuration, c, after, candidates) for every
    vertex c whose block evicts (``blocks``' terms)."""
    dag = data.draw(dags(max_vertices=8, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=1))
    search = exhaustive._Search(dag, memory, exhaustive.require_variant("recompute",
                                                                         {"recompute"}, "t"))
    red, blue, fresh, owed = 0, search.input_mask, 0, 0
    for step in range(data.draw(st.integers(0, 8))):
        live = search.live(blue)
        for c in search.computable:
            preds, bit = search.pred_mask[c], 1 << c
            missing = preds & ~red
            if red & bit or not live & bit or missing & ~blue:
                continue
            evict = red.bit_count() + missing.bit_count() + 1 - memory
            if evict > 0:
                yield (search, (red, blue, fresh, owed), c, red | missing | bit,
                       red & ~preds & ~(fresh & blue))
        every = list(search.blocks(red, blue, fresh, owed, step == 0))
        if not every:
            break
        _, red, blue, fresh, owed, _ = data.draw(st.sampled_from(every))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_an_evictions_count_depends_only_on_the_vertices_it_may_not_store(data):
    """``blocks`` (recompute) reuses the count after one eviction for every other eviction
    for the same vertex that takes the same vertices out of the family's red set (those it
    may not store), and the family's own count when it takes none out: along random walks,
    the counts ``_loads_at_least`` gives for such evictions are equal."""
    from itertools import combinations

    for search, (red, blue, fresh, owed), c, after, candidates in \
            _recompute_walk_evictions(data):
        live, pending = search.live(blue), search.output_mask & ~blue
        evict = after.bit_count() - search.memory
        by_leaving = {0: search._loads_at_least(red & ~blue, after, owed, blue, pending,
                                                exhaustive.INFINITY)}
        for chosen in combinations(exhaustive._bit_list(candidates), evict):
            gone = sum(chosen)
            stores = gone & ~blue & (fresh | live)  # forced and optional, as ``blocks``
            count = search._loads_at_least(stores, after & ~gone, owed, blue, pending,
                                           exhaustive.INFINITY)
            assert by_leaving.setdefault(gone & ~stores, count) == count, (c, gone)


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(["recompute", "one-shot"]))
def test_the_next_blocks_evictions_are_paid_by_every_block(data, variant):
    """The lookahead (``_eviction_debt``) is at most what every block adds to the count
    beyond its own cost, h(X) + debt(X) <= cost + h(Y), so the count raised by it stays
    consistent: along random walks from the game's start, for every block."""
    dag = data.draw(dags(max_vertices=8, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=1))
    search = exhaustive.ExhaustiveRun(dag, memory, variant).search
    assert search.debt  # not for a certificate, whose checker's count has no lookahead
    assert not exhaustive.ExhaustiveRun(dag, memory, variant, keep_closed=True).search.debt
    red, blue, fresh, done = 0, search.input_mask, 0, 0
    for step in range(data.draw(st.integers(0, 8))):
        every = list(search.blocks(red, blue, fresh, done, step == 0))
        if step:
            count = search.heuristic(red, blue, done)
            debt = search._eviction_debt(red, blue, fresh, done)
            for cost, *after, block in every:
                then = search.heuristic(after[0], after[1], after[3])
                if count < exhaustive.INFINITY and then < exhaustive.INFINITY:
                    assert count + debt <= cost + then, (step, block)
        if not every:
            break
        _, red, blue, fresh, done, _ = data.draw(st.sampled_from(every))


@pytest.mark.parametrize("memory", [3, 4])
def test_the_next_blocks_evictions_cut_the_configurations(memory, monkeypatch):
    """The lookahead pays where memory is short: on attention, contracted as the recompute
    route searches it, the same optimum from about 30 % fewer configurations (4,820 to 3,525
    at M = 3, 5,091 to 3,590 at M = 4)."""
    dag = contract_chains(attention_forward(2, 1), inputs=True)
    with_debt = exhaustive_optimum(dag, memory, "recompute")
    monkeypatch.setattr(exhaustive._Search, "_eviction_debt", lambda self, *masks: 0)
    without = exhaustive_optimum(dag, memory, "recompute")
    assert with_debt.optimum == without.optimum
    assert 4 * with_debt.states < 3 * without.states


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_an_evictions_count_never_falls_as_it_takes_more_out(data):
    """The family count bounds every eviction's count (``_loads_at_least``) because the
    count never falls as an eviction takes more vertices out of the family's red set: along
    random walks, for every two such sets, one within the other."""
    from itertools import combinations

    for search, (red, blue, fresh, owed), c, after, candidates in \
            _recompute_walk_evictions(data):
        live, pending = search.live(blue), search.output_mask & ~blue
        leaving = exhaustive._bit_list(candidates & (blue | ~live & ~fresh))
        counts = {}
        for k in range(len(leaving) + 1):
            for chosen in combinations(leaving, k):
                gone = sum(chosen)
                counts[gone] = search._loads_at_least(0, after & ~gone, owed, blue, pending,
                                                      exhaustive.INFINITY)
        for small, low in counts.items():
            for large, high in counts.items():
                if small & ~large == 0:
                    assert low <= high, (c, small, large)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_remembered_family_count_answers_every_cap_as_a_fresh_one(data):
    """``_loads_at_least`` remembers its counts (``family_memo``), which depend only on its
    masks: on random DAGs and on attention_forward(2,1) and matmul(2,2,2) (where a count cut
    at its cap often lies below the count), asked again and again for a few drawn sets of
    masks at drawn caps, in a drawn order, each answer keeps the contract a count made afresh
    keeps: the count itself below the cap, else a value from the cap to the count.  (Keeping
    a cut count as exact, or answering any cap with a bound, fails here.)"""
    dag = data.draw(st.one_of(dags(max_vertices=10, max_in_degree=3),
                              st.sampled_from([attention_forward(2, 1), matmul(2, 2, 2)])))
    search = exhaustive._Search(dag, 1 + max(map(len, dag.preds)),
                                exhaustive.require_variant("recompute", {"recompute"}, "t"))
    mask = st.integers(0, search.full)
    asks = data.draw(st.lists(st.tuples(mask, mask, mask, mask), min_size=1, max_size=3))
    for stores, red, owed, blue in data.draw(st.lists(st.sampled_from(asks), max_size=12)):
        blue |= search.input_mask
        pending = search.output_mask & ~blue
        cap = data.draw(st.integers(0, 8))
        remembered, search.family_memo = search.family_memo, {}  # a count made afresh
        exact = search._loads_at_least(stores, red, owed, blue, pending, exhaustive.INFINITY)
        search.family_memo = remembered
        got = search._loads_at_least(stores, red, owed, blue, pending, cap)
        assert got == exact if exact < cap else cap <= got <= exact, (stores, red, cap)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_trivial_count_a_layer_at_a_time_is_the_walk(data):
    """``_trivial`` walks MUST a layer at a time with ``_compiled_union``'s tables; on random
    DAGs and arbitrary masks it gives what the walk a vertex at a time gives."""
    dag = data.draw(dags(max_vertices=12, max_in_degree=3))
    variant = data.draw(st.sampled_from(["recompute", "one-shot"]))
    search = exhaustive._Search(dag, dag.min_memory,
                                exhaustive.require_variant(variant, {variant}, "t"))
    walk = exhaustive._Search(dag, dag.min_memory,
                              exhaustive.require_variant(variant, {variant}, "t"))
    walk.preds_of = None
    for _ in range(20):
        red, blue, computed = (data.draw(st.integers(0, search.full)) for _ in range(3))
        blue |= search.input_mask
        pending = search.output_mask & ~blue
        assert (search._trivial(pending, red, blue, computed)
                == walk._trivial(pending, red, blue, computed))


@pytest.mark.parametrize("n", [1, 9, 16, 17, 64, 65, 100, 128])
def test_a_compiled_union_is_the_or_of_the_masks_of_its_bits(n):
    rng = random.Random(n)
    masks = [rng.getrandbits(n) for _ in range(n)]
    union = exhaustive._compiled_union(masks)
    for mask in [0, (1 << n) - 1] + [rng.getrandbits(n) for _ in range(200)]:
        assert union(mask) == functools.reduce(operator.or_, (masks[v] for v in range(n)
                                                              if mask >> v & 1), 0)


def test_a_one_shot_search_starts_only_where_play_reaches():
    dag = DAG.from_edges(["a", "x", "o"], [("a", "x"), ("x", "o")])
    search = exhaustive._Search(dag, 2, exhaustive.require_variant("one-shot", {"one-shot"}, "t"))
    o = 1 << dag.index["o"]
    with pytest.raises(InternalError, match="reachable"):  # o computed, x not
        exhaustive.restricted_optimum(search, 0, 1, o)
    value, _ = exhaustive.restricted_optimum(search, 0, 1, 0)
    assert value == 2


def test_bad_arguments():
    dag = pyramid(2)
    for kwargs, word in [({"memory": 0}, "memory"), ({"memory": 3, "variant": "x"}, "variant"),
                         ({"memory": 3, "below": 1.5}, "below"),
                         ({"memory": 3, "max_states": 0}, "max_states"),
                         ({"memory": 3, "deadline": "soon"}, "deadline")]:
        with pytest.raises(InvalidArgument, match=word):
            exhaustive_optimum(dag, **kwargs)
    with pytest.raises(InvalidArgument, match="dag"):
        exhaustive_optimum("pyramid", 3)


def test_a_schedule_failing_replay_raises(monkeypatch):
    real = exhaustive._Search._schedule

    def tampered(self, goal, parent):
        schedule = real(self, goal, parent)  # without its last store: an output ends unblue
        last = max(i for i, kind in enumerate(schedule.kinds) if kind == exhaustive.STORE)
        return type(schedule)(schedule.kinds[:last] + schedule.kinds[last + 1:],
                              schedule.vertices[:last] + schedule.vertices[last + 1:])

    monkeypatch.setattr(exhaustive._Search, "_schedule", tampered)
    with pytest.raises(InternalError, match="failed replay"):
        exhaustive_optimum(pyramid(2), 3)


@functools.cache
def symmetries(family: str, module=exhaustive):
    """The automorphisms of a DAG over 4-part keys (matmul(2,2,2): 15 besides the identity;
    attention_forward(2,2): 15, applied with 3 to 20 shifts each), in the search copy
    ``module``."""
    dag = matmul(2, 2, 2) if family == "matmul" else attention_forward(2, 2)
    return module._Symmetry(dag, 4), len(dag)


@settings(max_examples=60)
@given(st.data())
def test_canonical_keys_are_invariant_under_the_automorphisms(data):
    """N8: one canonical key per orbit, whichever image of a configuration is reached; the
    shifts apply each automorphism exactly as its definition does, bit by bit."""
    symmetry, n = symmetries(data.draw(st.sampled_from(["matmul", "attention"])))
    assert len(symmetry.group) == 15
    key = data.draw(st.integers(0, (1 << 4 * n) - 1))
    perm = data.draw(st.sampled_from(symmetry.group))

    def image_of(key, perm):
        return sum(1 << (part * n + perm[v]) for part in range(4) for v in range(n)
                   if key >> (part * n + v) & 1)

    image = image_of(key, perm)
    masks, offsets = symmetry.shifts[symmetry.group.index(perm)]
    full = (1 << n) - 1
    assert sum(exhaustive._mask_image(masks, offsets, key >> part * n & full) << part * n
               for part in range(4)) == image
    assert symmetry.canonical(image) == symmetry.canonical(key)
    assert symmetry.canonical(key) == min([key] + [image_of(key, p) for p in symmetry.group])


@settings(max_examples=60)
@given(st.data())
def test_canonical_keys_compare_tied_parts_further_down(data):
    """The least image is found a part at a time (``_Symmetry.canonical``): keys whose upper
    parts every automorphism fixes (empty, or all vertices) tie there, and are decided below,
    in either search copy."""
    family = data.draw(st.sampled_from(["matmul", "attention"]))
    symmetry, n = symmetries(family)
    full = (1 << n) - 1
    parts = [data.draw(st.sampled_from([0, full, None])) for _ in range(4)]
    key = sum((data.draw(st.integers(0, full)) if part is None else part) << i * n
              for i, part in enumerate(parts))

    def image_of(key, perm):
        return sum(1 << (part * n + perm[v]) for part in range(4) for v in range(n)
                   if key >> (part * n + v) & 1)

    least = min([key] + [image_of(key, p) for p in symmetry.group])
    assert symmetry.canonical(key) == least
    assert symmetries(family, engine.search())[0].canonical(key) == least


@settings(max_examples=80)
@given(st.data())
def test_least_images_are_the_least_of_the_images_bit_by_bit(data):
    """``LeastImage`` (the abstraction bound's keys): the least image of a 3-mask key under
    any non-empty list of the automorphisms (the key itself only if the identity is listed),
    in either search copy, including keys whose upper masks tie (empty or full)."""
    family = data.draw(st.sampled_from(["matmul", "attention"]))
    symmetry, n = symmetries(family)
    identity = tuple(range(n))
    perms = data.draw(st.lists(st.sampled_from(symmetry.group + [identity]), min_size=1,
                               max_size=6))
    full = (1 << n) - 1
    key = sum(data.draw(st.sampled_from([0, full]) | st.integers(0, full)) << i * n
              for i in range(3))

    def image_of(key, perm):
        return sum(1 << (part * n + perm[v]) for part in range(3) for v in range(n)
                   if key >> (part * n + v) & 1)

    least = min(image_of(key, perm) for perm in perms)
    assert exhaustive.LeastImage(perms, n)(key) == least
    assert engine.search().LeastImage(perms, n)(key) == least
    with pytest.raises(InternalError, match="no permutation"):
        exhaustive.LeastImage([], n)


def test_search_result_is_frozen():
    result = exhaustive_optimum(pyramid(2), 3)
    assert isinstance(result, SearchResult)
    with pytest.raises(AttributeError):
        result.optimum = 0


# --- an independent naive oracle: Dijkstra (0-1 BFS) over every legal move --------------------

def naive_optimum(dag: DAG, memory: int, variant: str) -> int | None:
    """The optimum by brute force over (red, blue, computed) with every move of docs/theory.md
    §1, any time, on every vertex: no normal form, no heuristic."""
    n = len(dag)
    one_shot = variant == "one-shot"
    inputs = {v for v in range(n) if not dag.preds[v]}
    start = (frozenset(), frozenset(inputs), frozenset())
    dist = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        red, blue, done = state
        g = dist[state]
        if all(o in blue for o in dag.outputs):
            return g
        for cost, nxt in naive_moves(dag, memory, one_shot, inputs, red, blue, done):
            if nxt not in dist or dist[nxt] > g + cost:
                dist[nxt] = g + cost
                (queue.append if cost else queue.appendleft)(nxt)
    return None


def naive_moves(dag, memory, one_shot, inputs, red, blue, done):
    for v in range(len(dag)):
        if v in red:
            yield 0, (red - {v}, blue, done)
            if v not in blue:
                yield 1, (red, blue | {v}, done)
        elif len(red) < memory:
            if v in blue:
                yield 1, (red | {v}, blue, done)
            if (v not in inputs and all(p in red for p in dag.preds[v])
                    and not (one_shot and v in done)):
                yield 0, (red | {v}, blue, done | {v} if one_shot else done)


@settings(max_examples=25)
@given(st.data())
def test_matches_naive_search(data):
    dag = data.draw(dags(max_vertices=6))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    for variant in ("recompute", "one-shot"):
        result = exhaustive_optimum(dag, memory, variant)
        assert result.complete
        assert result.optimum == naive_optimum(dag, memory, variant), variant


@pytest.mark.slow
@settings(max_examples=300)
@given(st.data())
def test_matches_naive_search_thoroughly(data):
    dag = data.draw(dags(max_vertices=7, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    for variant in ("recompute", "one-shot"):
        assert exhaustive_optimum(dag, memory, variant).optimum == naive_optimum(dag, memory,
                                                                                 variant)


@settings(max_examples=40)
@given(st.data())
def test_a_stopped_search_proves_only_true_lower_bounds(data):
    """An incomplete run's lower bound (the A* level reached) never exceeds the optimum."""
    dag = data.draw(dags(max_vertices=7, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=1))
    budget = data.draw(st.integers(1, 40))
    for variant in ("recompute", "one-shot"):
        result = exhaustive_optimum(dag, memory, variant, max_states=budget)
        optimum = naive_optimum(dag, memory, variant)
        assert result.lower_bound is not None and result.lower_bound <= optimum
        if result.complete:
            assert result.optimum == result.lower_bound == optimum


def _partial_run(dag, memory, variant, below, depth, max_states=None):
    """The search with the last ``depth`` levels below the limit expanded partially (0: none,
    INFINITY: every level; ``_Search.partial``)."""
    run = exhaustive.ExhaustiveRun(dag, memory, variant, below=below, max_states=max_states)
    run.search.partial = depth
    return run.advance()


def _partial_matches_naive(data, max_vertices):
    """Below a limit far above the optimum, partial expansion makes its successors a level at a
    time and must still find the optimum, and prove the optimum's limit empty; a stopped one
    proves only true lower bounds."""
    dag = data.draw(dags(max_vertices=max_vertices, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    slack = data.draw(st.integers(1, 8))
    depth = data.draw(st.sampled_from([1, 2, exhaustive.INFINITY]))
    for variant in ("recompute", "one-shot"):
        optimum = naive_optimum(dag, memory, variant)
        found = _partial_run(dag, memory, variant, optimum + slack, depth)
        assert found.complete and found.optimum == optimum, variant
        assert replay(dag, found.schedule, memory, variant).io == optimum
        none = _partial_run(dag, memory, variant, optimum, depth)
        assert none.complete and none.optimum is None, variant
        cap = data.draw(st.integers(1, 30))
        stopped = _partial_run(dag, memory, variant, optimum + slack, depth, cap)
        assert stopped.lower_bound <= optimum, variant


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_partial_expansion_finds_the_optimum_below_a_loose_limit(data):
    _partial_matches_naive(data, 6)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.data())
def test_partial_expansion_finds_the_optimum_below_a_loose_limit_thoroughly(data):
    _partial_matches_naive(data, 7)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_search_squeezed_at_a_pause_still_finds_the_optimum(data):
    """``ExhaustiveRun.squeeze`` at any pause (every level expanded partially from there on,
    as a search short of memory is): the optimum below a loose limit, found and replayed,
    none below the optimum itself, and every level reported on the way a true lower bound,
    never falling."""
    dag = data.draw(dags(max_vertices=6, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    slack = data.draw(st.integers(0, 8))
    at = data.draw(st.integers(0, 30))
    for variant in ("recompute", "one-shot"):
        optimum = naive_optimum(dag, memory, variant)
        run = exhaustive.ExhaustiveRun(dag, memory, variant, below=optimum + slack)
        levels = []
        while (result := run.advance(until=0.0)) is None:
            levels.append(run.level)
            if len(levels) == at:
                run.squeeze()
        assert run.squeezed == (len(levels) >= at) or result is not None
        assert levels == sorted(levels) and all(level <= optimum for level in levels)
        if slack:
            assert result.complete and result.optimum == optimum, variant
            assert replay(dag, result.schedule, memory, variant).io == optimum
        else:
            assert result.complete and result.optimum is None, variant


def test_a_search_squeezed_stores_fewer_configurations_below_a_loose_limit():
    """attention_forward(2,1) at M = 3, recompute, below 40 (the optimum is 24): squeezed at
    its first pause, the same optimum from fewer configurations."""
    dag = attention_forward(2, 1)
    plain = exhaustive.ExhaustiveRun(dag, 3, "recompute", below=40).advance()
    run = exhaustive.ExhaustiveRun(dag, 3, "recompute", below=40)
    assert run.advance(until=0.0) is None
    run.squeeze()
    squeezed = run.advance()
    assert squeezed.optimum == plain.optimum == 24
    assert squeezed.states < plain.states / 2


@pytest.mark.parametrize("variant", ["one-shot", "recompute"])
def test_partial_expansion_stores_no_successor_before_its_level(variant):
    """Below a loose limit the search stores only what the levels it reaches need: the same
    optimum from fewer configurations."""
    dag = attention_forward(2, 1)
    with_it, without = (_partial_run(dag, 4, variant, 30, depth)
                        for depth in (exhaustive.INFINITY, 0))
    assert with_it.optimum == without.optimum
    assert with_it.states < without.states


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_deadline_within_an_expansion_proves_only_true_lower_bounds(data):
    """The clock is read within an expansion (here after every successor); when the deadline
    passes there, the search stops at once with the level it popped, and never reports a level
    the expansion it cut short had not proved, nor an empty queue as a proof."""
    dag = data.draw(dags(max_vertices=7, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=1))
    reads = data.draw(st.integers(1, 60))
    slack = data.draw(st.sampled_from([None, 0, 1, 4]))
    for variant in ("recompute", "one-shot"):
        optimum = naive_optimum(dag, memory, variant)
        below = None if slack is None else optimum + slack
        clock = iter(range(10**9))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(exhaustive, "_CHECK_CLOCK_EVERY", 1)
            patch.setattr(exhaustive.time, "monotonic",
                          lambda: 0.0 if next(clock) < reads else 10.0)
            result = exhaustive_optimum(dag, memory, variant, below=below, deadline=5.0)
        if result.complete:
            assert result.optimum == (optimum if below is None or optimum < below else None)
        else:
            assert result.lower_bound is None or result.lower_bound <= optimum, variant


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_paused_search_resumes_where_it_paused(data):
    """An ``ExhaustiveRun`` paused after every configuration (an ``until`` already past) ends
    exactly as the search run in one go, in both variants and with or without ``below``, and
    every level it reports while paused is proved: never above the optimum, never falling."""
    dag = data.draw(dags(max_vertices=7, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=1))
    below = data.draw(st.none() | st.integers(0, 12))
    for variant in ("recompute", "one-shot"):
        whole = exhaustive_optimum(dag, memory, variant, below=below)
        run = exhaustive.ExhaustiveRun(dag, memory, variant, below=below)
        optimum, levels = naive_optimum(dag, memory, variant), []
        while (result := run.advance(until=0.0)) is None:
            levels.append(run.level)
        assert levels == sorted(levels) and all(level <= optimum for level in levels)
        assert (result.optimum, result.complete, result.states, result.lower_bound) == (
            whole.optimum, whole.complete, whole.states, whole.lower_bound), variant
        assert run.advance() is result and run.stopped("late") is result


def test_a_run_given_no_more_time_keeps_its_level():
    run = exhaustive.ExhaustiveRun(attention_forward(2, 1), 3)
    assert run.advance(until=time.monotonic() + 0.3) is None
    result = run.stopped("time shared out")
    assert not result.complete and result.lower_bound == run.level > 8
    assert result.reason == f"time shared out (no schedule below {run.level})"
    assert result.states > 0 and run.advance() is result


def test_a_cap_lowered_at_a_pause_stops_the_run():
    run = exhaustive.ExhaustiveRun(attention_forward(2, 1), 3)
    assert run.advance(until=time.monotonic() + 0.1) is None and run.states > 10
    result = run.advance(max_states=10)
    assert not result.complete and "state budget of 10 states exhausted" in result.reason
    assert result.lower_bound == run.level and run.states == 0


def test_a_stopped_search_reports_its_level():
    result = exhaustive_optimum(attention_forward(2, 1), 3, max_states=30_000)
    assert not result.complete and 8 < result.lower_bound <= 24
    assert f"no schedule below {result.lower_bound}" in result.reason


@given(st.data())
def test_optimum_bounds_random_schedules_and_variants(data):
    dag = data.draw(dags())
    memory = data.draw(memory_sizes(dag))
    optima = {}
    for variant in ("recompute", "one-shot"):
        result = exhaustive_optimum(dag, memory, variant)
        assert result.complete and result.optimum is not None
        check = replay(dag, result.schedule, memory, variant)
        assert check.ok and check.io == result.optimum
        schedule = data.draw(schedules(dag, memory, variant=variant))
        assert result.optimum <= replay(dag, schedule, memory, variant).io
        optima[variant] = result.optimum
    assert optima["one-shot"] >= optima["recompute"]
    below = exhaustive_optimum(dag, memory, "recompute", below=optima["recompute"])
    assert below.complete and below.optimum is None


def test_one_shot_differs_from_recompute_somewhere():
    """A DAG where recomputation saves I/O: the search must see the variants apart.  With M = 3,
    v3 = f(v0, v2) and v4 = f(v1, v2) cannot both be computed while v0, v1, v2 are red; the
    recompute variant recomputes v1 from v0 (I/O 3: one load, two stores), one-shot must store
    and reload something (I/O 4)."""
    edges = [("v0", "v1"), ("v0", "v2"), ("v1", "v2"), ("v0", "v3"), ("v2", "v3"), ("v1", "v4"),
             ("v2", "v4")]
    dag = DAG.from_edges(["v0", "v1", "v2", "v3", "v4"], edges)
    recompute = exhaustive_optimum(dag, 3, "recompute")
    one_shot = exhaustive_optimum(dag, 3, "one-shot")
    assert (recompute.optimum, one_shot.optimum) == (3, 4)
    assert naive_optimum(dag, 3, "recompute") == 3 and naive_optimum(dag, 3, "one-shot") == 4
    assert replay(dag, recompute.schedule, 3, "one-shot").error_rule == "one-shot-recompute"


def test_bench_suite_quick(capsys):
    from ioverify.bench import SUITES, exhaustive as suite

    assert SUITES["exhaustive"] == "ioverify.bench.exhaustive"
    assert suite.run(quick=True) == 0
    out = capsys.readouterr().out
    assert "binary_tree(8)" in out and "matmul(2,2,2) chain" in out


def test_a_deadline_passing_while_the_search_is_set_up_stops_it(monkeypatch):
    """On a DAG of many vertices the bit masks alone take seconds: the set-up reads the clock
    (every 1,024 masks) and a passed deadline ends it before any state, never a proof."""
    import ioverify.game.exhaustive as exhaustive
    from ioverify.dag import attention_forward

    calls = iter(range(10**6))
    monkeypatch.setattr(exhaustive.time, "monotonic", lambda: 0.0 if next(calls) < 2 else 10.0)
    result = exhaustive.exhaustive_optimum(attention_forward(4, 2), 4, "one-shot", deadline=5.0)
    assert not result.complete and result.optimum is None and result.states == 0
    assert result.reason == "deadline reached before the search started"


def test_the_masks_are_the_vertex_sets():
    from ioverify.game.exhaustive import _mask_of

    assert _mask_of([0, 3, 5], 8) == 0b101001 and _mask_of([], 4) == 0
    assert _mask_of(range(70), 70) == (1 << 70) - 1


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_weighted_count_is_the_sum_of_the_weights_of_its_bits(data):
    """``_weighted_count`` (the restricted games of overlapping parts): one class of lighter
    vertices or several, the cost of a mask is the sum of its vertices' weights, also for a
    mask with no lighter vertex (the count's shortcut)."""
    n = data.draw(st.integers(1, 40))
    scale = data.draw(st.sampled_from([2, 3, 6, 12]))
    weight = st.sampled_from([d for d in range(1, scale + 1) if scale % d == 0])
    weights = data.draw(st.dictionaries(st.integers(0, n - 1), weight))
    cost = exhaustive._weighted_count(scale, weights)
    lighter = sum(1 << v for v, w in weights.items() if w < scale)
    for mask in data.draw(st.lists(st.integers(0, (1 << n) - 1), min_size=1, max_size=8)):
        for counted in (mask, mask & ~lighter):
            assert cost(counted) == sum(weights.get(v, scale) for v in range(n)
                                        if counted >> v & 1)


def test_no_limit_stays_no_limit():
    """``less``: a search asked for its optimum (no ``below``) gives ``blocks`` no finite budget
    (INFINITY less a cost is still INFINITY), so the recompute family counts, which cut only
    against a finite one, are never made; with a limit they are."""
    assert exhaustive.less(exhaustive.INFINITY, 5) == exhaustive.INFINITY
    assert exhaustive.less(10, 3) == 7
    dag = matmul(2, 2, 2)
    free = exhaustive.ExhaustiveRun(dag, 4, "recompute")
    assert free.advance().optimum == 17 and not free.search.family_memo
    limited = exhaustive.ExhaustiveRun(dag, 4, "recompute", below=17)
    assert limited.advance().optimum is None and limited.search.family_memo
