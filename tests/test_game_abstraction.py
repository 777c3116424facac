"""The additive abstraction bound: restricted games solved exactly from any configuration, the
bound admissible and consistent along every move, and the exhaustive search using it still
exact, each checked against a naive search over every legal move (no normal form, no
heuristic) on random DAGs, in both variants.  The default run draws a few dozen DAGs; the
``slow`` cases draw thousands."""

import heapq
import operator
import time

import pytest
from hypothesis import assume, given, settings, strategies as st

from ioverify.dag import (DAG, attention_backward, attention_forward, binary_tree, matmul, pyramid,
                          sparse_attention_backward, sparse_attention_forward)
from ioverify.errors import DeadlineReached, InternalError
from ioverify.game import exhaustive
from ioverify.game.abstraction import (PART_MAX_VERTICES, AbstractionBound, _disjoint_parts,
                                       _joined, attention_backward_rows, parts_of, root_bound,
                                       split_part)
from ioverify.game.exhaustive import INFINITY, exhaustive_optimum, restricted_optimum
from ioverify.game.rules import COMPUTE, DELETE, LOAD, STORE, variant as variant_record
from ioverify.strategies import dags, memory_sizes, schedules

VARIANTS = ("recompute", "one-shot")


def naive_restricted(dag, memory, one_shot, part, red, blue, computed, weight=None):
    """Optimal I/O of the game restricted to ``part`` from (red, blue, computed), by Dijkstra
    over every legal move on the part's vertices: a compute needs only its predecessors in the
    part red, the part's inputs cannot be computed, the part's outputs must end blue.
    ``weight``: a load or store of v costs weight[v] instead of 1."""
    inside = [v for v in range(len(dag)) if part >> v & 1]
    outputs = [v for v in dag.outputs if part >> v & 1]
    weight = weight or [1] * len(dag)
    start = (red & part, blue & part, computed & part if one_shot else 0)
    dist = {start: 0}
    queue = [(0, start)]
    while queue:
        g, state = heapq.heappop(queue)
        if g > dist[state]:
            continue
        r, b, c = state
        if all(b >> o & 1 for o in outputs):
            return g
        for cost, nxt in _moves(dag, memory, one_shot, part, inside, r, b, c, weight):
            if nxt not in dist or dist[nxt] > g + cost:
                dist[nxt] = g + cost
                heapq.heappush(queue, (g + cost, nxt))
    return INFINITY


def _moves(dag, memory, one_shot, part, inside, r, b, c, weight):
    for v in inside:
        bit = 1 << v
        if r & bit:
            yield 0, (r & ~bit, b, c)
            if not b & bit:
                yield weight[v], (r, b | bit, c)
        elif r.bit_count() < memory:
            if b & bit:
                yield weight[v], (r | bit, b, c)
            if (not dag.is_input[v] and all(r >> p & 1 for p in dag.preds[v] if part >> p & 1)
                    and not (one_shot and c & bit)):
                yield 0, (r | bit, b, c | bit if one_shot else c)


def _vertex_weights(dag, weights):
    """Per vertex, the cost of a load or store under ``_Search``'s ``weights`` (scale,
    {v: w}), or None (every transfer costs 1), as ``naive_restricted`` takes them."""
    if weights is None:
        return None
    return [weights[1].get(v, weights[0]) for v in range(len(dag))]


def naive_optimum(dag, memory, variant):
    full = (1 << len(dag)) - 1
    inputs = sum(1 << v for v in dag.inputs)
    return naive_restricted(dag, memory, variant == "one-shot", full, 0, inputs, 0)


@st.composite
def configurations(draw, dag, memory):
    """(red, blue, computed) that play can reach (``restricted_cases``)."""
    n = len(dag)
    reds = draw(st.lists(st.integers(0, n - 1), max_size=memory, unique=True))
    red = sum(1 << v for v in reds)
    inputs = sum(1 << v for v in dag.inputs)
    blue = draw(st.integers(0, (1 << n) - 1)) | inputs
    computed = (draw(st.integers(0, (1 << n) - 1)) | red | blue) & ~inputs
    for v in reversed(range(n)):  # a computed vertex's predecessors were computed before it
        if computed >> v & 1:
            computed |= sum(1 << p for p in dag.preds[v]) & ~inputs
    return red, blue, computed


@st.composite
def restricted_cases(draw, max_vertices=6):
    """A DAG, M, a vertex set and a configuration that play can reach: red at most M, the
    inputs blue, every non-input vertex that is red or blue computed, and the predecessors of a
    computed vertex that are not inputs computed (the one-shot search starts only there,
    ``exhaustive`` N12)."""
    dag = draw(dags(max_vertices=max_vertices, max_in_degree=3))
    memory = draw(memory_sizes(dag, max_extra=2))
    n = len(dag)
    part = draw(st.integers(1, (1 << n) - 1))
    red, blue, computed = draw(configurations(dag, memory))
    weights = None  # a cost partition's weights (scale, {v: w}), half the time
    if draw(st.booleans()):
        scale = draw(st.integers(1, 4))
        weights = (scale, {v: draw(st.integers(1, scale)) for v in range(n)
                           if part >> v & 1 and draw(st.booleans())})
    return dag, memory, part, red, blue, computed, weights


def _restricted_matches_naive(case):
    dag, memory, part, red, blue, computed, weights = case
    weight = _vertex_weights(dag, weights)
    for name in VARIANTS:
        search = exhaustive._Search(dag, memory, variant_record(name), part=part,
                                    weights=weights)
        value, path = restricted_optimum(search, red, blue, computed)
        one_shot = name == "one-shot"
        assert value == naive_restricted(dag, memory, one_shot, part, red, blue, computed,
                                         weight), name
        for (r, b, c), remaining in path:  # every remembered value on the path is exact too
            assert remaining == naive_restricted(dag, memory, one_shot, part, r, b, c,
                                                 weight), name


@given(restricted_cases())
def test_restricted_search_matches_naive_from_any_configuration(case):
    _restricted_matches_naive(case)


@pytest.mark.slow
@settings(max_examples=2000)
@given(restricted_cases(max_vertices=7))
def test_restricted_search_matches_naive_thoroughly(case):
    _restricted_matches_naive(case)


def _unlimited_case(data, max_vertices):
    """A DAG, a part, red and blue masks and cost weights for the unlimited game."""
    dag = data.draw(dags(max_vertices=max_vertices, max_in_degree=3))
    n = len(dag)
    full, inputs = (1 << n) - 1, sum(1 << v for v in dag.inputs)
    sparse = st.builds(operator.and_, st.integers(0, full), st.integers(0, full))
    part = data.draw(st.just(full) | st.integers(1, full))
    # Red sparse; blue dense away from the outputs: stored vertices the outputs need again.
    outputs = sum(1 << v for v in dag.outputs)
    red = data.draw(sparse) & part
    blue = (data.draw(st.integers(0, full)) & ~outputs | data.draw(sparse) | inputs) & part
    weights = data.draw(st.none() | st.integers(1, 3).flatmap(
        lambda scale: st.tuples(st.just(scale), st.dictionaries(
            st.integers(0, n - 1), st.integers(1, scale)))))
    search = exhaustive._Search(dag, dag.min_memory, variant_record("recompute"), part=part,
                                weights=weights)
    return dag, part, red, blue, weights, search


def _recompute_count_is_the_unlimited_optimum(data, max_vertices):
    """In recompute the search's own count (``_Search._trivial``) is the exact optimum of the
    same game with no bound on red pebbles, by branching and by the minimum cut alike, in
    restricted games with cost weights and from any configuration (red of any size)."""
    dag, part, red, blue, weights, search = _unlimited_case(data, max_vertices)
    weight = _vertex_weights(dag, weights)
    pending = search.output_mask & ~blue
    unlimited = naive_restricted(dag, len(dag), False, part, red, blue, 0, weight)
    assert search._trivial(pending, red, blue, 0) == unlimited
    cut = search._min_cut(pending & ~red, red, blue)
    assert search.cost_of(pending) + cut == unlimited


@settings(max_examples=200)
@given(st.data())
def test_the_recompute_count_is_the_unlimited_optimum(data):
    _recompute_count_is_the_unlimited_optimum(data, 6)


@pytest.mark.slow
@settings(max_examples=2000)
@given(st.data())
def test_the_recompute_count_is_the_unlimited_optimum_thoroughly(data):
    _recompute_count_is_the_unlimited_optimum(data, 8)


@settings(max_examples=300)
@given(st.data())
def test_branching_and_the_minimum_cut_agree_on_larger_dags(data):
    """The two ways of ``_trivial``'s recompute count, past the naive search's reach."""
    _, _, red, blue, _, search = _unlimited_case(data, 16)
    pending = search.output_mask & ~blue
    assert search._trivial(pending, red, blue, 0) == (search.cost_of(pending)
                                                      + search._min_cut(pending & ~red, red, blue))


def test_the_recompute_count_loads_or_computes_a_stored_vertex():
    """Stored x = f(a, b) is needed again for y: loading it (1) is cheaper than computing it
    (2 loads); the count walking MUST only to blue vertices said 0 loads, it now says 1."""
    dag = DAG.from_edges(["a", "b", "x", "y"], [("a", "x"), ("b", "x"), ("x", "y")],
                         outputs=["y"])
    search = exhaustive._Search(dag, 3, variant_record("recompute"))
    a, b, x, y = (1 << dag.names.index(name) for name in "abxy")
    assert search._trivial(y, 0, a | b | x, 0) == 2  # load x, store y
    assert search._trivial(y, a, a | b | x, 0) == 2  # load x or b
    assert search._trivial(y, a | b, a | b | x, 0) == 1  # compute x at no cost


@st.composite
def restricted_series(draw, max_vertices=6):
    """A restricted case and further configurations of the same game, solved in turn."""
    dag, memory, part, red, blue, computed, weights = draw(restricted_cases(max_vertices))
    more = draw(st.lists(configurations(dag, memory), min_size=1, max_size=6))
    return dag, memory, part, [(red, blue, computed), *more], weights


def _known_optima_change_nothing(case):
    """Each search of the series stops at the configurations whose optimum the earlier ones
    found (``known``, as ``AbstractionBound`` passes its memo), and, learning or not, the
    lower bounds the earlier ones found (``_Search.learn``), and still finds the naive
    optimum, as does every configuration on its path."""
    dag, memory, part, configurations, weights = case
    weight = _vertex_weights(dag, weights)
    n = len(dag)
    for name, learn in [(name, learn) for name in VARIANTS for learn in (False, True)]:
        one_shot = name == "one-shot"
        search = exhaustive._Search(dag, memory, variant_record(name), part=part,
                                    weights=weights)
        if learn:
            search.learn()
        known: dict[int, float] = {}
        for red, blue, computed in configurations:
            value, path = restricted_optimum(search, red, blue, computed, known=known)
            assert value == naive_restricted(dag, memory, one_shot, part, red, blue, computed,
                                             weight), name
            for (r, b, c), remaining in path:
                assert remaining == naive_restricted(dag, memory, one_shot, part, r, b, c,
                                                     weight), name
                known.setdefault(r | b << n | c << 2 * n, remaining)


@given(restricted_series())
def test_known_optima_stop_a_restricted_search_without_changing_it(case):
    _known_optima_change_nothing(case)


@pytest.mark.slow
@settings(max_examples=1000)
@given(restricted_series(max_vertices=7))
def test_known_optima_stop_a_restricted_search_without_changing_it_thoroughly(case):
    _known_optima_change_nothing(case)


def test_a_known_optimum_is_a_goal_of_the_restricted_search():
    """A configuration with a known optimum ends the search there: a (deliberately wrong)
    value given for the start is the answer, with no search."""
    dag = pyramid(2)
    search = exhaustive._Search(dag, 3, variant_record("one-shot"), part=(1 << len(dag)) - 1)
    inputs = sum(1 << v for v in dag.inputs)
    true, _ = restricted_optimum(search, 0, inputs, 0)
    start = 0 | inputs << len(dag)
    assert restricted_optimum(search, 0, inputs, 0, known={start: true - 1})[0] == true - 1
    with pytest.raises(exhaustive.InternalError, match="given start"):
        search.run(None, None, None, known={start: 1})


def _learned_bounds_change_nothing(case):
    """A series of searches learning from each other (``_Search.learn``) with no optimum
    remembered: each finds the naive optimum, and every bound it learned is at most the
    naive optimum of its configuration."""
    dag, memory, part, configurations, weights = case
    weight = _vertex_weights(dag, weights)
    n, full = len(dag), (1 << len(dag)) - 1
    for name in VARIANTS:
        one_shot = name == "one-shot"
        search = exhaustive._Search(dag, memory, variant_record(name), part=part,
                                    weights=weights)
        search.learn()
        for red, blue, computed in configurations:
            assert restricted_optimum(search, red, blue, computed)[0] == naive_restricted(
                dag, memory, one_shot, part, red, blue, computed, weight), name
        for at, lower in list(search.learned.items())[:40]:
            r, b, c = at & full, at >> n & full, at >> 2 * n
            assert lower <= naive_restricted(dag, memory, one_shot, part, r, b, c, weight), name


@given(restricted_series())
def test_learned_bounds_are_lower_bounds_and_change_no_optimum(case):
    _learned_bounds_change_nothing(case)


@pytest.mark.slow
@settings(max_examples=1000)
@given(restricted_series(max_vertices=7))
def test_learned_bounds_are_lower_bounds_and_change_no_optimum_thoroughly(case):
    _learned_bounds_change_nothing(case)


def naive_values(dag, memory, one_shot, part, start, weight):
    """The optimum of every configuration reachable from ``start`` in the game restricted to
    ``part`` (``naive_restricted``'s moves), by a Dijkstra backwards from the goals over the
    configurations reachable from ``start``."""
    inside = [v for v in range(len(dag)) if part >> v & 1]
    outputs = sum(1 << v for v in dag.outputs if part >> v & 1)
    weight = weight or [1] * len(dag)
    into: dict = {start: []}
    todo = [start]
    while todo:
        state = todo.pop()
        for cost, nxt in _moves(dag, memory, one_shot, part, inside, *state, weight):
            if nxt not in into:
                into[nxt] = []
                todo.append(nxt)
            into[nxt].append((cost, state))
    value = {state: 0 for state in into if state[1] & outputs == outputs}
    queue = [(0, state) for state in value]
    while queue:
        v, state = heapq.heappop(queue)
        if v > value[state]:
            continue
        for cost, before in into[state]:
            if before not in value or value[before] > v + cost:
                value[before] = v + cost
                heapq.heappush(queue, (v + cost, before))
    return value


@st.composite
def learned_cases(draw, max_vertices=6):
    """A restricted case and a 64-bit pattern choosing the configurations whose optima a
    search is told as learned bounds (``_learned_optima_change_nothing``)."""
    dag, memory, part, red, blue, computed, weights = draw(restricted_cases(max_vertices))
    return dag, memory, part, (red, blue, computed), draw(st.integers(0, 2**64 - 1)), weights


def _learned_optima_change_nothing(case):
    """Any lower bounds, here the exact optima of some configurations reachable from the
    start (chosen by a hash and the case's pattern) and nothing for the others, as
    inconsistent a heuristic as lower bounds make, leave the search exact: a configuration
    closed before a cheaper path to it is found is reopened."""
    dag, memory, part, start, pattern, weights = case
    weight = _vertex_weights(dag, weights)
    n = len(dag)
    for name in VARIANTS:
        one_shot = name == "one-shot"
        search = exhaustive._Search(dag, memory, variant_record(name), part=part,
                                    weights=weights)
        search.learn()
        at = (start[0] & part, start[1] & part, start[2] & part if one_shot else 0)
        values = naive_values(dag, memory, one_shot, part, at, weight)
        for (red, blue, computed), optimum in values.items():
            if pattern >> hash((red, blue, computed)) % 64 & 1:
                search.learned[red | blue << n | computed << 2 * n] = optimum
        value, path = restricted_optimum(search, *start)
        assert value == naive_restricted(dag, memory, one_shot, part, *start, weight), name
        for (r, b, c), remaining in path:
            assert remaining == naive_restricted(dag, memory, one_shot, part, r, b, c,
                                                 weight), name


@given(learned_cases())
def test_any_lower_bounds_learned_leave_the_search_exact(case):
    _learned_optima_change_nothing(case)


@pytest.mark.slow
@settings(max_examples=2000)
@given(learned_cases(max_vertices=7))
def test_any_lower_bounds_learned_leave_the_search_exact_thoroughly(case):
    _learned_optima_change_nothing(case)


def test_a_closed_configuration_reached_more_cheaply_is_reopened_when_learning():
    """With learned bounds the heuristic may be inconsistent, so a closed configuration
    reached again at a lower g is stored and pushed again; without, closed is final."""
    dag = pyramid(2)
    part = (1 << len(dag)) - 1
    for learn in (False, True):
        search = exhaustive._Search(dag, 3, variant_record("recompute"), part=part)
        if learn:
            search.learn()
        parent, child = 1, 2
        info = {parent: (0, None, None, 4, parent), child: (5, parent, None, 2, child)}
        closed = {parent: 0, child: 5}
        queue = exhaustive._Queue(INFINITY, 4)
        search._admit(parent, [(3, 2, child, None, True, 2)], info, closed, queue, INFINITY)
        assert (child in closed, info[child][0]) == ((False, 3) if learn else (True, 5))
        assert (queue.pop() == child) is learn


def test_learning_is_for_flat_restricted_searches_only():
    dag, rules = pyramid(2), variant_record("recompute")
    with pytest.raises(InternalError, match="flat restricted"):
        exhaustive._Search(dag, 3, rules).learn()
    part = (1 << len(dag)) - 1
    with pytest.raises(InternalError, match="flat restricted"):
        exhaustive._Search(dag, 3, rules, part=part, bound=lambda r, b, c: 0).learn()


def test_weights_are_positive_integers_on_restricted_games_only():

    dag, rules = pyramid(2), variant_record("one-shot")
    with pytest.raises(InternalError, match="restricted games only"):
        exhaustive._Search(dag, 3, rules, weights=(2, {0: 1}))
    with pytest.raises(InternalError, match="not a positive integer"):
        exhaustive._Search(dag, 3, rules, part=7, weights=(2, {0: 0}))
    with pytest.raises(InternalError, match="given twice"):
        AbstractionBound(dag, 3, rules, [3, 3])


@st.composite
def partitioned(draw, max_vertices=6):
    """A DAG, M and parts: disjoint half the time, else overlapping (each vertex in any subset
    of the parts, so a vertex may be in several, its cost split among them, or in none)."""
    dag = draw(dags(max_vertices=max_vertices, max_in_degree=3))
    memory = draw(memory_sizes(dag, max_extra=2))
    k = draw(st.integers(1, 3))
    if draw(st.booleans()):
        labels = draw(st.lists(st.integers(0, k - 1), min_size=len(dag), max_size=len(dag)))
        parts = [sum(1 << v for v, label in enumerate(labels) if label == i) for i in range(k)]
    else:
        members = draw(st.lists(st.integers(0, (1 << k) - 1), min_size=len(dag),
                                max_size=len(dag)))
        parts = [sum(1 << v for v, m in enumerate(members) if m >> i & 1) for i in range(k)]
    return dag, memory, list(dict.fromkeys(p for p in parts if p))


def _search_with_bound_matches_naive(case):
    dag, memory, parts = case
    for name in VARIANTS:
        rules = variant_record(name)
        optimum = naive_optimum(dag, memory, name)
        assert root_bound(dag, memory, rules, parts) <= optimum, name
        result = exhaustive_optimum(dag, memory, name, bound=AbstractionBound(
            dag, memory, rules, parts))
        assert result.complete and result.optimum == optimum, name


@given(partitioned())
def test_search_with_the_abstraction_bound_matches_naive(case):
    _search_with_bound_matches_naive(case)


@pytest.mark.slow
@settings(max_examples=2000)
@given(partitioned(max_vertices=7))
def test_search_with_the_abstraction_bound_matches_naive_thoroughly(case):
    _search_with_bound_matches_naive(case)


def _one_shot_start_is_a_ceiling(case):
    """The ceiling ``pebbling._ceilings`` uses: at the start, the bound over the same parts is
    at least as high in one-shot as in recompute (each part's one-shot schedules are recompute
    ones), and the optima agree with that order."""
    dag, memory, parts = case
    once = root_bound(dag, memory, variant_record("one-shot"), parts)
    assert root_bound(dag, memory, variant_record("recompute"), parts) <= once
    assert naive_optimum(dag, memory, "recompute") <= naive_optimum(dag, memory, "one-shot")


@given(partitioned())
def test_the_one_shot_start_value_is_a_ceiling_on_the_recompute_one(case):
    _one_shot_start_is_a_ceiling(case)


@pytest.mark.slow
@settings(max_examples=2000)
@given(partitioned(max_vertices=7))
def test_the_one_shot_start_value_is_a_ceiling_on_the_recompute_one_thoroughly(case):
    _one_shot_start_is_a_ceiling(case)


def _consistent_along(dag, memory, name, parts, schedule):
    """h(c) <= cost(move) + h(c') for every move of a legal schedule, h <= the rest of its
    I/O, and h = 0 at its end."""
    bound = AbstractionBound(dag, memory, variant_record(name), parts)
    red, blue, computed = 0, sum(1 << v for v in dag.inputs), 0
    states, costs = [(red, blue, computed)], []
    for kind, v in zip(schedule.kinds, schedule.vertices):
        bit = 1 << v
        if kind == LOAD or kind == COMPUTE:
            red |= bit
            computed |= bit if kind == COMPUTE else 0
        elif kind == STORE:
            blue |= bit
        elif kind == DELETE:
            red &= ~bit
        costs.append(1 if kind in (LOAD, STORE) else 0)
        states.append((red, blue, computed))
    values = [bound(*state) for state in states]
    assert values[-1] == 0
    for i, cost in enumerate(costs):
        assert values[i] <= cost + values[i + 1], (name, i)
        assert values[i] <= sum(costs[i:]), (name, i)


@given(st.data())
def test_the_bound_is_consistent_along_random_schedules(data):
    dag, memory, parts = data.draw(partitioned())
    for name in VARIANTS:
        _consistent_along(dag, memory, name, parts,
                          data.draw(schedules(dag, memory, variant=name)))


@pytest.mark.slow
@settings(max_examples=1000)
@given(st.data())
def test_the_bound_is_consistent_along_random_schedules_thoroughly(data):
    dag, memory, parts = data.draw(partitioned(max_vertices=8))
    for name in VARIANTS:
        _consistent_along(dag, memory, name, parts,
                          data.draw(schedules(dag, memory, variant=name)))


# --- capped values and iterative deepening --------------------------------------------------------

def _capped_restricted_searches_agree(case, data):
    """A restricted search asked only below a limit (``restricted_optimum``'s ``below``) gives
    the naive optimum with its path when that is below the limit, else a lower bound at least
    the limit and no path; a series of them, remembering optima and learning or not, stays
    exact, and every bound learned (from a search that stopped at its limit too) is at most
    the naive optimum."""
    dag, memory, part, configurations, weights = case
    weight = _vertex_weights(dag, weights)
    n, full = len(dag), (1 << len(dag)) - 1
    for name, learn in [(name, learn) for name in VARIANTS for learn in (False, True)]:
        one_shot = name == "one-shot"
        search = exhaustive._Search(dag, memory, variant_record(name), part=part,
                                    weights=weights)
        if learn:
            search.learn()
        known: dict[int, float] = {}
        for red, blue, computed in configurations:
            true = naive_restricted(dag, memory, one_shot, part, red, blue, computed, weight)
            below = data.draw(st.integers(0, 12), label="below")
            value, path = restricted_optimum(search, red, blue, computed, known=known,
                                             below=below)
            if true < below:
                assert value == true and path is not None, name
                for (r, b, c), remaining in path:
                    known.setdefault(r | b << n | c << 2 * n, remaining)
            else:
                assert below <= value <= true and path is None, name
        for at, lower in list((search.learned or {}).items())[:40]:
            r, b, c = at & full, at >> n & full, at >> 2 * n
            assert lower <= naive_restricted(dag, memory, one_shot, part, r, b, c, weight), name


@given(restricted_series(), st.data())
def test_a_restricted_search_below_a_limit_is_exact_below_it(case, data):
    _capped_restricted_searches_agree(case, data)


@pytest.mark.slow
@settings(max_examples=1000)
@given(restricted_series(max_vertices=7), st.data())
def test_a_restricted_search_below_a_limit_is_exact_below_it_thoroughly(case, data):
    _capped_restricted_searches_agree(case, data)


class _Uncapped(AbstractionBound):
    """The same bound, which the search asks with no cap (exact values only)."""

    capped = False


def _capped_bound_agrees(data, max_vertices):
    """The bound asked with a cap answers its exact value below the cap and a lower bound at
    least the cap otherwise, asked in any order (its remembered values and lower bounds
    included); the search with it stores and pops exactly the configurations it stores with
    the exact values (the same states, the same answer); and iterative deepening
    (``deepen``) gives the same answer, and the same level proved, as one search."""
    dag, memory, parts = data.draw(partitioned(max_vertices))
    for name in VARIANTS:
        rules = variant_record(name)
        exact = _Uncapped(dag, memory, rules, parts)
        capped = AbstractionBound(dag, memory, rules, parts)
        for _ in range(data.draw(st.integers(1, 8), label="asks")):
            red, blue, computed = data.draw(configurations(dag, memory), label="configuration")
            true = exact(red, blue, computed)
            cap = data.draw(st.one_of(st.integers(0, 10), st.just(INFINITY)), label="cap")
            value = capped(red, blue, computed, cap)
            if true < cap:
                assert value == true, name
            else:
                assert cap <= value <= true, name
        below = data.draw(st.one_of(st.none(), st.integers(0, 16)), label="below")
        plain = exhaustive_optimum(dag, memory, name, below=below,
                                   bound=_Uncapped(dag, memory, rules, parts))
        one = exhaustive_optimum(dag, memory, name, below=below,
                                 bound=AbstractionBound(dag, memory, rules, parts))
        deep = exhaustive_optimum(dag, memory, name, below=below, deepen=True,
                                  bound=AbstractionBound(dag, memory, rules, parts))
        assert (one.optimum, one.states, one.lower_bound) == (
            plain.optimum, plain.states, plain.lower_bound), name
        assert (deep.optimum, deep.complete, deep.lower_bound) == (
            plain.optimum, plain.complete, plain.lower_bound), name
        optimum = naive_optimum(dag, memory, name)
        assert plain.optimum == (optimum if below is None or optimum < below else None), name


@given(st.data())
def test_the_capped_bound_and_deepening_change_nothing(data):
    _capped_bound_agrees(data, 6)


@pytest.mark.slow
@settings(max_examples=1000)
@given(st.data())
def test_the_capped_bound_and_deepening_change_nothing_thoroughly(data):
    _capped_bound_agrees(data, 7)


def test_deepening_proves_each_level_on_the_way():
    """A deepening search paused often reports a proved level that never falls and never
    passes the optimum, and ends at the optimum found by one search."""
    dag = attention_forward(2, 1)
    rules = variant_record("recompute")
    bound = AbstractionBound(dag, 3, rules, parts_of(dag, share_inputs=True), nested=False)
    run = exhaustive.ExhaustiveRun(dag, 3, rules, bound=bound, deepen=True)
    levels = []
    while (result := run.advance(time.monotonic() + 0.01)) is None:
        levels.append(run.level)
    assert levels == sorted(levels)
    assert result.complete and all(level <= result.optimum for level in levels)
    assert result.optimum == exhaustive_optimum(dag, 3, rules).optimum
    # the last run, below the level proved before it plus the step, found the optimum
    assert result.optimum - exhaustive.DEEPEN_STEP < run.floor <= result.optimum


def test_deepening_needs_a_capped_bound():
    dag = pyramid(2)
    with pytest.raises(InternalError, match="deepening"):
        exhaustive_optimum(dag, 3, "one-shot", deepen=True)
    with pytest.raises(InternalError, match="deepening"):
        exhaustive_optimum(dag, 3, "one-shot", deepen=True, bound=_Uncapped(
            dag, 3, variant_record("one-shot"), [1, 2]))


def _joining_keeps_the_bound(data):
    """Joining the smallest disjoint parts (``_joined``) keeps every vertex in exactly one
    part, grows no part past the largest, and never lowers the bound at the start."""
    dag = data.draw(dags(max_vertices=6, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    labels = data.draw(st.lists(st.integers(0, 3), min_size=len(dag), max_size=len(dag)))
    parts = [mask for i in range(4)
             if (mask := sum(1 << v for v, label in enumerate(labels) if label == i))]
    joined = _joined(parts)
    assert sum(joined) == sum(parts) and len(set(joined)) == len(joined)
    assert max(p.bit_count() for p in joined) == max(p.bit_count() for p in parts)
    for name in VARIANTS:
        rules = variant_record(name)
        assert root_bound(dag, memory, rules, joined) >= root_bound(dag, memory, rules, parts)


@given(st.data())
def test_joining_small_parts_never_lowers_the_bound(data):
    _joining_keeps_the_bound(data)


def test_small_rows_are_joined_up_to_the_largest():
    """sparse_forward(causal 3,1): the query rows sharing their inputs have 7, 14 and 21
    vertices, and the first two are joined (19: they share their inputs); the disjoint rows,
    7, 12 and 17, are left as they are."""
    dag = sparse_attention_forward([[j <= i for j in range(3)] for i in range(3)], 1)
    assert [p.bit_count() for p in parts_of(dag, share_inputs=True)] == [19, 21]
    assert [p.bit_count() for p in parts_of(dag)] == [7, 12, 17]
    assert _joined([0b1, 0b110, 0b111000]) == [0b111, 0b111000]


# --- parts keyed by the automorphisms --------------------------------------------------------------

def _doubled(dag):
    """Two disjoint copies of ``dag``, vertex v of each at 2v and 2v + 1 (swapping them is an
    automorphism, and neither copy's masks are all below the other's)."""
    names = tuple(f"{copy}{name}" for name in dag.names for copy in "ab")
    preds = tuple(tuple(2 * p + copy for p in ps) for ps in dag.preds for copy in (0, 1))
    outputs = tuple(2 * o + copy for o in dag.outputs for copy in (0, 1))
    ops = tuple(op for op in dag.ops for _ in (0, 1))
    return DAG(names, preds, ops, outputs)


def _copies(mask: int, n: int) -> tuple[int, int]:
    """A mask of ``n`` vertices of a DAG, as the masks of its vertices in each copy."""
    return (sum(1 << 2 * v for v in range(n) if mask >> v & 1),
            sum(1 << 2 * v + 1 for v in range(n) if mask >> v & 1))


@st.composite
def symmetric_cases(draw, max_vertices=4):
    """Two copies of a random DAG, M, and parts that the swap of the copies maps onto parts:
    each part of the first copy with its mirror image, and perhaps one part spanning both,
    mirrored onto itself; parts may overlap."""
    dag = draw(dags(max_vertices=max_vertices, max_in_degree=3))
    n = len(dag)
    doubled = _doubled(dag)
    memory = draw(memory_sizes(doubled, max_extra=2))
    parts = []
    for _ in range(draw(st.integers(1, 2))):
        first, second = _copies(draw(st.integers(0, (1 << n) - 1)), n)
        if draw(st.booleans()):
            parts += [first, second] if draw(st.booleans()) else [second, first]
        else:
            parts.append(first | second)
    parts = list(dict.fromkeys(part for part in parts if part))
    assume(parts)
    return doubled, memory, parts


def _keyed_bound_unchanged(data):
    dag, memory, parts = data.draw(symmetric_cases())
    for name in VARIANTS:
        plain = AbstractionBound(dag, memory, variant_record(name), parts, group=[])
        swap = tuple(v ^ 1 for v in range(len(dag)))
        keyed = AbstractionBound(dag, memory, variant_record(name), parts, group=[swap])
        # the swap keys some part; a part answers from its own memo as is only at home
        assert any(keyed.image) and plain.image == [None] * len(parts)
        assert all(image is not None or home == i
                   for i, (image, home) in enumerate(zip(keyed.image, keyed.home)))
        for _ in range(4):
            red, blue, computed = data.draw(configurations(dag, memory))
            assert keyed(red, blue, computed) == plain(red, blue, computed), name
        result = exhaustive_optimum(dag, memory, name, bound=AbstractionBound(
            dag, memory, variant_record(name), parts))  # keyed by the whole group
        reference = exhaustive_optimum(dag, memory, name)
        assert result.complete and result.optimum == reference.optimum, name


@given(st.data())
def test_keyed_by_the_automorphisms_the_bound_and_the_search_are_unchanged(data):
    _keyed_bound_unchanged(data)


@pytest.mark.slow
@settings(max_examples=1000)
@given(st.data())
def test_keyed_by_the_automorphisms_the_bound_and_the_search_are_unchanged_thoroughly(data):
    _keyed_bound_unchanged(data)


def test_keyed_rows_share_their_restricted_searches():
    """attention_forward(2,2): the swap of the query rows maps one row's restricted game onto
    the other's, so the second row answers from the first's searches."""
    dag = attention_forward(2, 2)
    parts = parts_of(dag, share_inputs=True)
    keyed = AbstractionBound(dag, 4, variant_record("one-shot"), parts)
    assert keyed.home == [0, 0]
    plain = AbstractionBound(dag, 4, variant_record("one-shot"), parts, group=[])
    assert keyed.root(dag) == plain.root(dag)
    assert keyed.restricted_searches == 1 < plain.restricted_searches == 2


def test_keying_by_a_map_that_breaks_a_part_is_refused():
    dag = _doubled(pyramid(2))
    bound = AbstractionBound(dag, 3, variant_record("one-shot"),
                             [_copies((1 << len(dag) // 2) - 1, len(dag) // 2)[0]], group=[])
    swap = tuple(v ^ 1 for v in range(len(dag)))
    with pytest.raises(InternalError, match="onto a part"):
        bound.key_by([swap])


# --- the shipped partition, with the DAG's automorphisms ------------------------------------------

@pytest.mark.parametrize("dag, memory, recompute, one_shot", [
    (pyramid(3), 3, 11, 11), (binary_tree(8), 3, 15, 15), (matmul(2, 2, 2), 5, 14, 14),
    (attention_forward(2, 1), 4, None, 15)], ids=["pyramid3", "tree8", "matmul222", "af21"])
def test_reference_optima_with_the_bound(dag, memory, recompute, one_shot):
    for name, expected in (("recompute", recompute), ("one-shot", one_shot)):
        if expected is None:
            continue
        parts = parts_of(dag)
        bound = AbstractionBound(dag, memory, variant_record(name), parts)
        result = exhaustive_optimum(dag, memory, name, bound=bound)
        assert result.complete and result.optimum == expected, name


def test_attention_rows_are_the_parts():
    dag = attention_forward(2, 2)
    parts = parts_of(dag)
    assert len(parts) == 2
    for part in parts:
        rows = {dag.names[v][dag.names[v].index("[") + 1] for v in range(len(dag))
                if part >> v & 1 and not dag.is_input[v]}
        assert len(rows) == 1  # every computed vertex of a part is of one query row


@pytest.mark.parametrize("dag", [attention_backward(1, 1), attention_backward(2, 1),
                                 sparse_attention_backward([[1, 0], [1, 1]], 1),
                                 sparse_attention_backward([[0, 1], [1, 0]], 1)],
                         ids=["ab11", "ab21", "causal21", "antidiagonal21"])
def test_attention_backward_rows_are_disjoint_and_capped(dag):
    rows = attention_backward_rows(dag)
    assert rows is not None and len(rows) == len({dag.names[v] for v in dag.inputs
                                                  if dag.names[v].startswith("L[")})
    seen = 0
    for part in rows:
        assert part and not part & seen  # disjoint
        assert part.bit_count() <= PART_MAX_VERTICES
        assert any(part >> o & 1 for o in dag.outputs)
        seen |= part
        # every computed vertex of a row is of its query row or a key sum's (a dK/dV vertex)
        queries = {dag.names[v].split("[")[1].split(",")[0].rstrip("]") for v in range(len(dag))
                   if part >> v & 1 and not dag.names[v].startswith(("K[", "V[", "dK", "dV"))}
        assert len(queries) == 1
    assert parts_of(dag) == (rows if len(rows) > 1 else [])
    if len(rows) > 1:
        # every input and output of these DAGs is in a row: the bound counts them all
        assert all(seen >> v & 1 for v in (*dag.inputs, *dag.outputs))


def test_attention_backward_rows_give_way_past_the_cap():
    dag = attention_backward(2, 2)  # rows of 50 vertices
    assert attention_backward_rows(dag) is None
    assert all(part.bit_count() <= PART_MAX_VERTICES for part in parts_of(dag))
    assert attention_backward_rows(attention_forward(2, 1)) is None  # not a backward DAG


def _same_optimum_with_the_bound(dag, memory, name, parts):
    plain = exhaustive_optimum(dag, memory, name)
    bound = AbstractionBound(dag, memory, variant_record(name), parts, nested=False)
    guided = exhaustive_optimum(dag, memory, name, bound=bound)
    assert plain.complete and guided.complete
    assert guided.optimum == plain.optimum, (len(dag), len(parts))
    assert bound.root(dag) <= plain.optimum


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("memory", range(3, 8))
def test_search_with_the_attention_backward_rows_is_exact(name, memory):
    """Differential: the optimum with the bound over the row partition is the optimum without
    it.  attention_backward(1,1) has one row (the bound is the game itself), so its split by
    outputs (``split_part``, two parts) is checked too."""
    dag = attention_backward(1, 1)
    (row,) = attention_backward_rows(dag)
    for parts in ([row], split_part(dag, row)):
        _same_optimum_with_the_bound(dag, memory, name, parts)


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("memory", range(5, 8))
def test_search_with_two_attention_backward_rows_is_exact(name, memory):
    """The same with two rows: the anti-diagonal mask's two independent query rows, each with
    the key its query attends (32 vertices; up to a minute and a half a case in recompute)."""
    dag = sparse_attention_backward([[0, 1], [1, 0]], 1)
    _same_optimum_with_the_bound(dag, memory, name, attention_backward_rows(dag))


def test_the_root_bound_sees_m_on_attention_backward():
    """attention_backward(2,1), one-shot, M = 3: the two rows' restricted optima sum to 42,
    above the trivial bound 18 and the level the search alone proves in a minute (34-37)."""
    dag = attention_backward(2, 1)
    assert root_bound(dag, 3, variant_record("one-shot"), nested=False) == 42


def test_one_part_gives_no_partition():
    assert parts_of(pyramid(3)) == []


def test_the_root_bound_sees_m_on_attention_forward():
    """attention_forward(2,1) at M = 3: the rows' restricted optima sum to more than the
    trivial bound (every input loaded, every output stored)."""
    dag = attention_forward(2, 1)
    rules = variant_record("one-shot")
    trivial = len(dag.inputs) + len(dag.outputs)
    assert trivial < root_bound(dag, 3, rules) <= 24  # 24: the one-shot optimum


def test_a_restricted_search_past_its_deadline_stops_the_search():
    dag = attention_forward(2, 1)
    rules = variant_record("one-shot")
    bound = AbstractionBound(dag, 3, rules, parts_of(dag))
    bound.set_deadline(time.monotonic() - 1)
    with pytest.raises(DeadlineReached):
        bound.root(dag)
    result = exhaustive_optimum(dag, 3, "one-shot", bound=bound)
    assert not result.complete and "deadline" in result.reason
    assert result.lower_bound == len(dag.inputs) + len(dag.outputs)  # the trivial level only


def test_building_the_bound_past_its_deadline_stops():
    """Each part's search is built in a pass over the whole DAG (seconds in all on tens of
    thousands of vertices), so the clock is read per part."""
    dag = attention_forward(2, 1)
    with pytest.raises(DeadlineReached):
        AbstractionBound(dag, 3, variant_record("one-shot"), parts_of(dag),
                         deadline=time.monotonic() - 1)


def test_the_start_value_may_search_past_the_restricted_state_cap():
    """``root`` runs once, so its restricted searches may store up to ROOT_MAX_STATES; the
    same search at the bound's own small cap has no value."""
    dag = attention_forward(2, 1)
    rules = variant_record("recompute")
    inputs = sum(1 << v for v in dag.inputs)
    capped = AbstractionBound(dag, 3, rules, parts_of(dag), max_states=5, nested=False)
    assert capped.root(dag) == root_bound(dag, 3, rules, nested=False) > len(dag.inputs)
    assert capped.max_states == 5
    with pytest.raises(DeadlineReached, match="state budget"):
        AbstractionBound(dag, 3, rules, parts_of(dag), max_states=5, nested=False)(0, inputs, 0)


def test_a_restricted_search_over_its_state_cap_has_no_value():
    dag = attention_forward(2, 1)
    search = exhaustive._Search(dag, 3, variant_record("one-shot"), part=parts_of(dag)[0])
    with pytest.raises(DeadlineReached, match="state budget"):
        restricted_optimum(search, 0, sum(1 << v for v in dag.inputs), 0, max_states=5)



def test_pebble_uses_the_bound_and_says_so():
    from ioverify.search.pebbling import pebble

    dag = attention_forward(2, 1)
    verdict = pebble(dag, 3, variant="one-shot")
    assert verdict.status == "optimal" and verdict.io == 24
    assert verdict.evidence.kind == "exhaustive-search"
    # the rows sharing the keys and values start higher than the disjoint rows: kept
    rules = variant_record("one-shot")
    shared = root_bound(dag, 3, rules, parts_of(dag, share_inputs=True), nested=False)
    assert shared > root_bound(dag, 3, rules, parts_of(dag), nested=False)
    assert verdict.evidence.detail.get("heuristic") == "abstraction-shared"
    plain = pebble(dag, 3, variant="one-shot", abstraction=False)
    assert plain.io == 24 and "heuristic" not in plain.evidence.detail


@pytest.mark.parametrize("dag, memory, disjoint, shared", [
    (attention_forward(2, 2), 3, 41, 46), (attention_forward(3, 1), 3, 37, 45),
    (matmul(2, 2, 3), 3, 18, 28)], ids=["af22", "af31", "mm223"])
def test_sharing_the_inputs_lifts_the_root_bound(dag, memory, disjoint, shared):
    """The rows (attention) or output pieces (matmul) each pay their share of the inputs they
    read instead of one part paying all and the others none."""
    rules = variant_record("one-shot")
    parts = parts_of(dag, share_inputs=True)
    disjoint_parts = _disjoint_parts(dag, PART_MAX_VERTICES)  # before any are joined
    assert len(parts) == len(disjoint_parts) and all(
        (new & ~old) & ~sum(1 << v for v in dag.inputs) == 0
        for new, old in zip(parts, disjoint_parts))
    assert root_bound(dag, memory, rules, parts_of(dag), nested=False) == disjoint
    assert root_bound(dag, memory, rules, parts, nested=False) == shared


def test_shared_parts_past_the_size_cap_are_not_built():
    dag = attention_forward(2, 2)
    assert max(p.bit_count() for p in parts_of(dag, share_inputs=True)) == 27
    assert parts_of(dag, max_vertices=26, share_inputs=True) == []


def test_the_bound_is_left_out_where_it_sees_nothing_more():
    from ioverify.search.pebbling import pebble

    verdict = pebble(attention_forward(2, 1), 8, variant="one-shot")  # trivial: 8
    assert verdict.io == 8 and "heuristic" not in verdict.evidence.detail


def test_bench_frontier_quick(capsys):
    from ioverify.bench import SUITES, frontier

    assert SUITES["frontier"] == "ioverify.bench.frontier"
    assert frontier.target(46) == 60.0 and frontier.target(56) == 600.0
    assert frontier.run(quick=True, peer=False) == 0
    out = capsys.readouterr().out
    assert "attention_backward(1,1)" in out and "15 opt" in out and "peer" not in out


def test_bench_frontier_selects_instances_and_exits_3_on_a_missed_target(capsys):
    """``--only`` and ``--max-vertices`` pick instances; a cell left unsettled within its limit
    is a missed target: exit 3, never 0."""
    from ioverify.bench import frontier
    from ioverify.cli import main

    assert frontier.run(only="approximate_attention(1,1,2)", peer=False) == 0
    out = capsys.readouterr().out
    assert "approximate_attention(1,1,2)" in out and "17 opt" in out  # one-shot, M = 3
    assert "attention_backward(1,1)" not in out
    assert frontier.run(only="matmul(3,3,3)", cell_limit=0.2, max_vertices=100,
                        peer=False) == 3
    out = capsys.readouterr().out
    assert "matmul(3,3,3)" in out and "opt" not in out.split("\n")[2]
    assert frontier.run(max_vertices=10, peer=False) == 0  # nothing that small: nothing missed
    assert frontier.run(only="approximate_attention(1,1,2)", variants=("recompute",),
                        memories=[1, 4], peer=False, ablation=False) == 0
    rows = [row for row in capsys.readouterr().out.splitlines() if row.startswith("approx")]
    assert len(rows) == 1 and rows[0].split()[2:4] == ["4", "recompute"]
    for argv, word in ((["--only", "nothing"], "matches no instance"),
                       (["--max-vertices", "0"], "must be positive"),
                       (["--memory", "4..x"], "must be M or LO..HI"),
                       (["--memory", "5..4"], "must have 1 <= LO <= HI")):
        assert main(["bench", "frontier", *argv]) == 2
        assert word in capsys.readouterr().err
    assert main(["bench", "replay", "--only", "matmul"]) == 2
    assert "frontier suite only" in capsys.readouterr().err
    assert main(["bench", "replay", "--no-peer"]) == 2
    assert "frontier suite only" in capsys.readouterr().err
    assert main(["bench", "replay", "--variant", "recompute"]) == 2
    assert "frontier suite only" in capsys.readouterr().err


def test_bench_frontier_without_the_cpsat_extra_says_the_peer_is_left_out(capsys, monkeypatch):
    from ioverify.bench import frontier
    from ioverify.search import cpsat

    monkeypatch.setattr(cpsat, "available", lambda: False)
    assert frontier.run(only="approximate_attention(1,1,2)", ablation=False) == 0
    out = capsys.readouterr().out
    assert "needs the optional 'cpsat' extra" in out and "without" not in out
    assert " peer" not in out.split("\n")[2]


def test_bench_frontier_runs_the_peer_beside_ioverify_on_each_cell(capsys):
    """The peer baseline in the same sweep: per cell its I/O (its schedule replayed at the
    cell's M and variant), whether CP-SAT proved it within its horizon, its seconds; never
    below ioverify's proved optimum, and never counted as settling a cell."""
    pytest.importorskip("ortools")
    import json

    from ioverify.bench import Rows, frontier

    out = Rows(as_json=True)
    assert frontier.run(only="approximate_attention(1,1,2)", cell_limit=3.0, ablation=False,
                        out=out) == 0
    rows = [row for row in out.records if row["table"] == "frontier"]
    assert len(rows) == 8 and all("without" not in row for row in rows)
    for row in rows:
        peer, ours = row["peer"], row["with_abstraction"]
        assert peer["replays"] in ("yes", "no schedule") and peer["seconds"] < 10
        if peer["io"] is not None:
            assert peer["io"] >= ours["lower"] == ours["upper"]
        assert peer["horizon"] > 0 and json.dumps(peer)
    from ioverify.bench.peer import cell
    from ioverify.game.greedy import greedy_schedule

    alone = cell(pyramid(3), 3, "one-shot", 2.0)  # the suite's cell, as `bench peer` runs it
    assert alone["replays"] == "yes" and alone["io"] <= greedy_schedule(pyramid(3), 3).io
    assert frontier.peer_text({"replays": "NO", "io": None}) == "NO"
    assert frontier.peer_text({"replays": "yes", "io": 4, "proved_within_horizon": True}) == "4h"
    assert frontier.peer_text({"replays": "no schedule", "io": None}) == "-"


@pytest.mark.parametrize("variant", ["recompute", "one-shot"])
def test_a_bound_that_forgets_what_it_remembered_gives_the_same_values(variant):
    """``forget`` (for a search stopped out of memory) empties every memo, lower bound and
    learned table, nested ones too, and the values asked again are the same."""
    dag = attention_forward(2, 1)
    rules = variant_record(variant)
    bound = AbstractionBound(dag, 3, rules, parts_of(dag, share_inputs=True))
    first = bound.root(dag)
    assert any(bound.memos) and any(search.memo for search in bound.searches)
    bound.forget()
    assert not any(bound.memos) and not any(bound.lows)
    assert not any(search.memo or search.learned for search in bound.searches)
    assert bound.root(dag) == first > 0
