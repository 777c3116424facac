"""The Z3 pebbling search (issue 3): reference optima, claims, verdicts and the lemmas."""

from __future__ import annotations

import time

import pytest
from hypothesis import assume, given, settings, strategies as st

from ioverify.dag import approximate_attention, attention_forward, binary_tree, matmul, pyramid
from ioverify.dag.model import DAG, DAGBuilder
from ioverify.errors import InvalidArgument
from ioverify.game.exhaustive import exhaustive_optimum
from ioverify.game.lemmas import (CHAIN_CONTRACTION, CONTRACTIONS, INPUT_CHAIN_CONTRACTION,
                                  contract_chains)
from ioverify.game.replay import replay
from ioverify.strategies import dags, memory_sizes
from ioverify.search.pebbling import pebble
from ioverify.verdict import Infeasible, Optimal, Refuted, Verified, is_proof, verdict_to_json

# Reference optima from docs/theory.md §1 (independent exhaustive search, recompute variant).
REFERENCE = [(pyramid(3), 3, 11), (pyramid(3), 4, 7), (pyramid(3), 5, 5),
             (binary_tree(8), 3, 15), (binary_tree(8), 4, 11), (binary_tree(8), 5, 9)]


def diamond():
    """A middle vertex m with two uses (p and q), so recomputing it might pay."""
    b = DAGBuilder()
    x, y = b.input("x"), b.input("y")
    m = b.op("f", "m", [x, y])
    p = b.op("g", "p", [m, x])
    q = b.op("h", "q", [m, y])
    b.op("k", "r", [p, q])
    return b.build()


@pytest.fixture(params=["exhaustive-first", "z3-only"])
def route(request):
    """Both routes of ``pebble``: as shipped (the exhaustive search first), and Z3 alone."""
    if request.param == "z3-only":
        request.getfixturevalue("z3_only")
    return request.param


@pytest.mark.parametrize("dag,memory,optimum", REFERENCE)
@pytest.mark.parametrize("variant", ["recompute", "one-shot"])
def test_reference_optima(dag, memory, optimum, variant, route):
    verdict = pebble(dag, memory, variant=variant)
    assert isinstance(verdict, Optimal)
    assert verdict.io == optimum
    result = replay(dag, verdict.schedule, memory, variant)
    assert result.ok and result.io == optimum


@pytest.mark.slow
@pytest.mark.parametrize("memory,optimum", [(3, 25), (4, 17), (5, 14), (6, 13)])
@pytest.mark.parametrize("variant", ["recompute", "one-shot"])
def test_matmul_reference_optima(memory, optimum, variant, route):
    dag = matmul(2, 2, 2)
    verdict = pebble(dag, memory, variant=variant)
    assert isinstance(verdict, Optimal) and verdict.io == optimum
    kinds = {"one-shot": "one-shot-exact-horizon", "recompute": "proved-horizon"}
    expected = "exhaustive-search" if route == "exhaustive-first" else kinds[variant]
    assert verdict.evidence.kind == expected
    assert replay(dag, verdict.schedule, memory, variant).io == optimum


def test_claim_one_above_optimum_is_refuted_with_replayable_schedule():
    dag = pyramid(3)
    verdict = pebble(dag, 3, claim_lower_bound=12)
    assert isinstance(verdict, Refuted)
    assert verdict.io < 12 and verdict.claim == 12
    result = replay(dag, verdict.schedule, 3, "recompute")
    assert result.ok and result.io == verdict.io


@pytest.mark.parametrize("variant", ["recompute", "one-shot"])
def test_claim_equal_to_optimum_is_verified(variant):
    verdict = pebble(pyramid(3), 4, variant=variant, claim_lower_bound=7)
    assert isinstance(verdict, Verified) and verdict.bound == 7
    assert is_proof(verdict)


def test_claim_below_trivial_bound_is_verified_by_it():
    verdict = pebble(pyramid(3), 3, claim_lower_bound=3)
    assert isinstance(verdict, Verified) and verdict.evidence.kind == "trivial-bound"


def test_infeasible_memory_names_the_vertex():
    verdict = pebble(pyramid(3), 2)
    assert isinstance(verdict, Infeasible)
    assert "x[1,0]" in verdict.reason and "in-degree 2" in verdict.reason


@pytest.mark.parametrize("kwargs", [{"claim_lower_bound": -1}, {"claim_lower_bound": 2.5},
                                    {"timeout": 0}, {"variant": "sliding"}])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(InvalidArgument):
        pebble(pyramid(2), 3, **kwargs)


def test_deterministic_schedule(route):
    first = pebble(binary_tree(8), 3)
    second = pebble(binary_tree(8), 3)
    assert first.schedule == second.schedule


def test_trivial_bound_attained_with_large_memory():
    verdict = pebble(matmul(2, 2, 2), 20)
    assert isinstance(verdict, Optimal) and verdict.io == 12
    assert verdict.evidence.kind == "trivial-bound"


def test_recompute_proof_by_demand_horizon(z3_only):
    dag = diamond()
    verdict = pebble(dag, 3)
    assert isinstance(verdict, Optimal)
    assert verdict.evidence.kind in ("proved-horizon", "trivial-bound")
    assert replay(dag, verdict.schedule, 3, "recompute").io == verdict.io


def test_verdict_to_json_fields():
    dag = pyramid(3)
    doc = verdict_to_json(pebble(dag, 4), dag, seconds=1.23456)
    for key in ("status", "io", "lower_bound", "upper_bound", "variant", "method", "seconds",
                "schedule"):
        assert key in doc
    assert doc["status"] == "optimal" and doc["io"] == doc["lower_bound"] == 7
    assert doc["schedule"]["format"] == "ioverify-schedule" and doc["seconds"] == 1.235
    refuted = verdict_to_json(pebble(dag, 3, claim_lower_bound=20), dag)
    assert refuted["status"] == "refuted" and refuted["method"] == "counterexample"
    assert verdict_to_json(pebble(dag, 2), dag)["schedule"] is None


def test_automorphisms_are_computed_and_checked():
    from ioverify.dag import symmetry

    dag = matmul(2, 2, 2)
    group = symmetry.automorphisms(dag)
    assert len(group) == 16 and len(set(group)) == 16
    assert all(symmetry.is_automorphism(dag, g) for g in group)
    swap = list(range(len(dag)))
    a, b = dag.index["A[0,0]"], dag.index["A[0,1]"]
    swap[a], swap[b] = b, a  # swapping two inputs alone breaks the product vertices
    assert not symmetry.is_automorphism(dag, tuple(swap))
    products = [v for v in range(len(dag)) if dag.ops[v] == "mul"]
    assert len(symmetry.orbit_representatives(group, products)) == 1
    assert sorted(symmetry.automorphisms(pyramid(3))) == [tuple(range(10)), tuple(
        [3, 2, 1, 0, 6, 5, 4, 8, 7, 9])]  # the identity and the mirror image


@pytest.mark.parametrize("suite", [
    "pebble", pytest.param("pebble-z3", marks=pytest.mark.slow)])
def test_bench_suite_quick(suite, capsys):
    import importlib

    from ioverify.bench import SUITES

    assert importlib.import_module(SUITES[suite]).run(quick=True) == 0  # every row optimal
    out = capsys.readouterr().out
    assert out.count("optimal") == 8 and "attention_forward(2,1)" in out
    method = "z3" if suite == "pebble-z3" else "auto"
    assert f"method {method}" in out
    if method == "z3":
        assert "exhaustive-search" not in out


def test_the_state_cap_is_lifted_where_z3_proves_nothing():
    """Past Z3_PROVES_UP_TO_STEPS compute steps the exhaustive search may store as many
    configurations as with method exhaustive: stopping it early would hand the time to Z3,
    which proves no lower bound there; a cap given is kept."""
    from ioverify.dag import attention_forward
    from ioverify.search import pebbling

    small, large = matmul(2, 2, 2), attention_forward(2, 2)
    assert pebbling._compute_steps(small) <= pebbling.Z3_PROVES_UP_TO_STEPS
    assert pebbling._compute_steps(large) > pebbling.Z3_PROVES_UP_TO_STEPS
    assert pebbling.state_cap("auto", None, small) == pebbling.EXHAUSTIVE_MAX_STATES
    assert pebbling.state_cap("auto", None, large) == pebbling.EXHAUSTIVE_ONLY_MAX_STATES
    assert pebbling.state_cap("exhaustive", None, small) == pebbling.EXHAUSTIVE_ONLY_MAX_STATES
    assert pebbling.state_cap("auto", 5, large) == 5
    assert pebbling.state_cap("z3", None, large) is None


class _FakeRun:
    """A stand-in for ``ExhaustiveRun`` whose level after t seconds of its own is
    ``levels(t)``; each slice costs it one second of its own (and 5 ms of real time)."""

    states = 400
    squeezed = False  # ``apart.relieve`` reads it: memory is never short here
    result = None

    def __init__(self, levels, cost=1.0):
        self.levels, self.seconds, self.level, self.slices = levels, 0.0, None, 0
        self.caps, self.cost = set(), cost

    def advance(self, until=None, max_states=None):
        self.caps.add(max_states)
        time.sleep(0.005)
        self.seconds += self.cost
        self.slices += 1
        self.level = self.levels(self.seconds)

    def stopped(self, reason):
        from ioverify.game.exhaustive import SearchResult

        return SearchResult(None, None, False, 1, self.seconds, reason, self.level)


class _RaceState:
    """What ``_race`` reads of a search's state: one second from now."""

    def __init__(self):
        self.deadline = time.monotonic() + 1.0

    def remaining(self):
        return max(0.001, self.deadline - time.monotonic())

    def out_of_time(self):
        return time.monotonic() >= self.deadline

    def proved_so_far(self, level):
        self.proving = max(level, getattr(self, "proving", level))

    def report(self, what):
        pass


@pytest.mark.parametrize("fast", [0, 1])
def test_the_race_gives_most_slices_to_the_search_ahead(monkeypatch, fast):
    """After both have had PROBE of the time, the search forecast higher gets all but one
    TRAIL_EVERY-th of the time, whichever it is, and both results come back stopped at their
    levels."""
    from ioverify.search import pebbling

    monkeypatch.setattr(pebbling, "MIN_SLICE", 0.001)
    runs = [_FakeRun(lambda t: 10 + int(t) // 5), _FakeRun(lambda t: 10 + int(t))]
    if fast == 0:
        runs.reverse()

    state = _RaceState()
    results = pebbling._race(state, runs, 1000)
    slow = 1 - fast
    assert runs[fast].slices > 2 * runs[slow].slices and runs[slow].slices >= 5
    assert [result.lower_bound for result in results] == [run.level for run in runs]
    assert state.proving == max(run.level for run in runs)  # the progress lines' level
    assert runs[0].caps == runs[1].caps == {600}  # the cap less what the other holds


def test_the_race_counts_time_not_slices(monkeypatch):
    """A search whose every slice overruns (one configuration of the search with the bound
    can take seconds) and that stalls gets little more than its TRAIL_EVERY-th of the time."""
    from ioverify.search import pebbling

    monkeypatch.setattr(pebbling, "MIN_SLICE", 0.001)
    runs = [_FakeRun(lambda t: 21, cost=6.0), _FakeRun(lambda t: 10 + int(t))]

    pebbling._race(_RaceState(), runs, 1000)
    assert runs[0].seconds <= (runs[0].seconds + runs[1].seconds) / pebbling.TRAIL_EVERY + 6.0


def test_the_search_ahead_is_the_one_forecast_higher():
    from ioverify.search.apart import forecast as _forecast, level_at as _level_at
    from ioverify.search.pebbling import _ahead

    history = [(1.0, 10), (2.0, 12), (4.0, 15)]
    assert [_level_at(history, t) for t in (0.5, 1.0, 3.0, 9.0)] == [10, 10, 12, 15]
    assert _level_at([], 3.0) == 0
    # 5 levels over the last two doublings (1 s -> 4 s), 2.5 more per doubling: 4 s -> 16 s
    # is two.
    assert _forecast(history, 4.0, 12.0) == 20
    assert _forecast([(1.0, 21), (4.0, 21)], 4.0, 60.0) == 21  # stalled: stays
    # One level in the last two doublings, none in the last: still climbing, half a level a
    # doubling (with the last doubling alone it looked stalled, at 31).
    assert _forecast([(1.0, 30), (1.5, 31), (4.0, 31)], 4.0, 12.0) == 32

    # A search that started higher (the bound's start value) but stalls falls behind one
    # that is climbing, though the climbing one is lower now.
    stalled, climbing = [(1.0, 21), (4.0, 21)], [(1.0, 14), (2.0, 17), (4.0, 20)]
    spent = [4.0, 4.0]
    assert _ahead([stalled, climbing], spent, 0, 12.0) == 1
    assert _ahead([stalled, climbing], spent, 0, 0.0) == 0  # no time left: as they are now
    assert _ahead([stalled, stalled], spent, 1, 12.0) == 1  # a tie keeps it


def test_a_bound_that_stalls_leaves_the_rest_of_the_time_to_the_plain_search(monkeypatch):
    """With the abstraction bound and a timeout the bounded search and the plain one share
    the time, the bounded one first; when it stops short (here its bound gives up at the
    first configuration, as a restricted search past its cap does), the search without the
    bound settles the cell."""
    from ioverify.errors import DeadlineReached
    from ioverify.search import pebbling

    class Stalls:
        calls = 0

        def preserved_by(self, perm):
            return True

        def __call__(self, red, blue, computed):
            Stalls.calls += 1
            raise DeadlineReached("restricted search past its cap")

    monkeypatch.setattr(pebbling, "_abstraction", lambda st, variant: (Stalls(), "abstraction"))
    verdict = pebble(matmul(2, 2, 2), 4, variant="one-shot", method="exhaustive", timeout=60)
    assert isinstance(verdict, Optimal) and Stalls.calls >= 1
    assert verdict.evidence.kind == "exhaustive-search"
    assert "heuristic" not in verdict.evidence.detail  # proved by the plain search


def test_the_kind_with_fewer_restricted_games_goes_first_with_the_bounds_time(monkeypatch):
    """The start values of the two kinds of parts: the one with fewer distinct restricted
    games (attention_forward(2,2): the rows sharing their inputs, one game for both rows)
    first, with FIRST_KIND_SHARE (all) of the time the bound has; the other what is left."""
    from ioverify.dag import attention_forward
    from ioverify.game import abstraction
    from ioverify.search import pebbling

    shares = []
    real = abstraction.AbstractionBound.root

    def root(self, dag):
        if self.one_shot:  # the ceilings (``_ceilings``): under 0.1 s
            return real(self, dag)
        now = time.monotonic()
        shares.append((len(set(self.home)), self.deadline - now))
        raise pebbling.DeadlineReached("measured only")

    monkeypatch.setattr(abstraction.AbstractionBound, "root", root)
    dag = attention_forward(2, 2)
    st = pebbling._State(dag, 3, pebbling.require_variant("recompute", pebbling.IMPLEMENTED,
                                                          "test"),
                         0, time.monotonic() + 40.0, None, time.monotonic(), None, 99, 16,
                         None)
    assert pebbling._abstraction(st, st.variant) == (None, None)  # no start value: no bound
    (first_games, first), (second_games, second) = shares
    assert first_games < second_games
    whole = 40.0 * pebbling.ABSTRACTION_SHARE[False]
    assert first == pytest.approx(pebbling.FIRST_KIND_SHARE * whole, rel=0.05)
    assert second == pytest.approx(whole, rel=0.05)  # what is left: the first stopped at once


def _roots_computed(monkeypatch, dag, memory):
    """(the kinds whose recompute start value ``_abstraction`` computed, in order, the kind of
    the bound it returned) for ``dag`` at ``memory`` in recompute."""
    from ioverify.game import abstraction
    from ioverify.search import pebbling

    computed = []
    real = abstraction.AbstractionBound.root

    def root(self, dag):
        if not self.one_shot:
            computed.append(len(set(self.home)))
        return real(self, dag)

    monkeypatch.setattr(abstraction.AbstractionBound, "root", root)
    st = pebbling._State(dag, memory, pebbling.require_variant("recompute", pebbling.IMPLEMENTED,
                                                               "test"),
                         0, time.monotonic() + 120.0, None, time.monotonic(), None, 999, 0,
                         None)
    return computed, pebbling._abstraction(st, st.variant)[1]


def test_a_kind_whose_one_shot_start_cannot_win_is_not_computed(monkeypatch):
    """attention_forward(2,1) at M = 3, recompute: the rows sharing their inputs (one
    restricted game for both) start at 20; the disjoint rows' one-shot start value, 16, caps
    their recompute one, so it is not computed (on attention_forward(2,2) at M = 3 that saves
    9.3 s: 46 against 41)."""
    from ioverify.dag import attention_forward

    computed, kind = _roots_computed(monkeypatch, attention_forward(2, 1), 3)
    assert computed == [1] and kind == "abstraction-shared"


def test_no_start_value_is_computed_if_no_ceiling_beats_the_trivial_bound(monkeypatch):
    """attention_forward(2,1) at M = 5, recompute: both kinds' one-shot start values are the
    trivial bound 8, within ABSTRACTION_MARGIN of it: no bound, and no recompute start value
    computed."""
    from ioverify.dag import attention_forward

    assert _roots_computed(monkeypatch, attention_forward(2, 1), 5) == ([], None)


@pytest.mark.parametrize("processes,abstraction", [(1, False), (2, False), (2, True)])
def test_progress_lines_show_the_level_proved_so_far(monkeypatch, processes, abstraction):
    """While an exhaustive search runs, its progress lines give the level it has proved so
    far, one search alone, farmed, or racing the abstraction bound on two processes: never
    above the optimum, never falling, and reaching the search's last levels."""
    from ioverify.dag import attention_forward
    from ioverify.search import apart, pebbling

    monkeypatch.setattr(pebbling, "HEARTBEAT", 0.02)
    monkeypatch.setattr(apart, "SLICE", 0.005)  # the race here: its levels between slices
    said: list[str] = []
    dag = attention_forward(2, 1)
    # On the DAG itself: on the contracted one the race can end before a slice shows a level.
    verdict = pebble(dag, 3, variant="recompute", timeout=120, processes=processes,
                     abstraction=abstraction, progress=said.append, contract=False)
    assert isinstance(verdict, Optimal) and verdict.io == 24
    def levels(variant):  # each search's lines name its variant (the one-shot sub-search's)
        return [int(line.split("none below ")[1].split(" ")[0]) for line in said
                if "so far" in line and line.startswith(f"exhaustive {variant} search")]

    found = levels("recompute")
    assert found, said
    assert found == sorted(found) and found[-1] <= 24
    assert found[-1] >= 20  # seen rising, not stuck at the start value
    assert levels("one-shot") == sorted(levels("one-shot"))


def test_the_level_so_far_ends_with_its_search(monkeypatch):
    """Once the exhaustive search is over, the progress lines of what follows (the Z3
    searches) no longer carry its level: they would read as that search's own."""
    from types import SimpleNamespace

    from ioverify.dag import attention_forward
    from ioverify.search import pebbling

    def searched(st, claim, variant, max_states):
        st.proved_so_far(20)
        assert st.proving == 20
        return SimpleNamespace(states=1, reason="measured only", complete=False)

    monkeypatch.setattr(pebbling, "_run_exhaustive", searched)
    st = pebbling._State(attention_forward(2, 1), 3,
                         pebbling.require_variant("recompute", pebbling.IMPLEMENTED, "test"),
                         0, time.monotonic() + 40.0, None, time.monotonic(), None, 99, 8, None)
    assert "measured only" in pebbling._exhaustive(st, None)
    assert st.proving is None



def _memory_runs_out(monkeypatch, pauses: int, counted) -> list:
    """Make the exhaustive search (its Python copy, whose class can be patched) run out of
    memory at the pause after ``pauses`` pauses of the runs ``counted`` picks; returns the
    levels those runs had proved at each of those pauses."""
    from ioverify.game import engine, exhaustive

    levels = []
    real = exhaustive.ExhaustiveRun.advance

    def advance(self, until=None, max_states=None):
        if not counted(self):
            return real(self, until, max_states)
        if len(levels) == pauses:
            raise MemoryError()
        result = real(self, until, max_states)
        levels.append(self.level)
        return result

    monkeypatch.setattr(engine, "search", lambda: exhaustive)
    monkeypatch.setattr(exhaustive.ExhaustiveRun, "advance", advance)
    return levels


def test_a_search_out_of_memory_keeps_the_level_it_proved(monkeypatch):
    """Running out of memory is a limit like the clock: the exhaustive search's level proved
    when it last paused stands in the unknown verdict (attention_forward(2,1) at M = 3,
    recompute, optimum 24, trivial bound 8), and nothing above it.  The one-shot sub-search,
    whose schedule comes first, is left alone."""
    from ioverify.dag import attention_forward
    from ioverify.search import pebbling
    from ioverify.verdict import Unknown

    levels = _memory_runs_out(monkeypatch, 40, lambda run: run.variant == "recompute")
    monkeypatch.setattr(pebbling, "HEARTBEAT", 0.001)
    verdict = pebble(attention_forward(2, 1), 3, variant="recompute", timeout=120,
                     abstraction=False, method="exhaustive")
    assert isinstance(verdict, Unknown) and "memory" in verdict.reason
    assert len(levels) == 40 and levels[-1] is not None
    assert 8 < verdict.lower_bound == levels[-1] <= 24


@pytest.mark.parametrize("processes", [1, 2])
def test_a_race_search_out_of_memory_stops_at_its_level_and_the_other_goes_on(monkeypatch,
                                                                              processes):
    """In the race of the search with the abstraction bound and the one without it (taking
    turns in one process, or the one with the bound here and the other in a child), the
    search with the bound running out of memory stops where it last paused, its level proved,
    and the other goes on to the optimum (attention_forward(2,1) at M = 3, recompute: the
    bound starts at 20, the optimum is 24).  Before, the whole race ended, unknown."""
    from ioverify.dag import attention_forward
    from ioverify.search import apart, pebbling
    from ioverify.verdict import Optimal

    levels = _memory_runs_out(monkeypatch, 3,
                              lambda run: run.variant == "recompute" and run.deepen)
    stopped = []
    real_stop = apart.stop_out_of_memory

    def stop(run):
        stopped.append(real_stop(run))
        return stopped[-1]

    lines: list[str] = []
    monkeypatch.setattr(apart, "stop_out_of_memory", stop)
    monkeypatch.setattr(pebbling, "MIN_SLICE", 0.001)
    monkeypatch.setattr(pebbling, "RACE_SLICES", 10**6)
    monkeypatch.setattr(apart, "SLICE", 0.001)
    verdict = pebble(attention_forward(2, 1), 3, variant="recompute", timeout=120,
                     processes=processes, progress=lines.append)
    assert isinstance(verdict, Optimal) and verdict.io == 24, verdict
    assert len(levels) == 3 and levels[-1] is not None and 20 <= levels[-1] <= 24
    assert len(stopped) == 1 and not stopped[0].complete
    assert stopped[0].lower_bound == levels[-1] and "memory" in stopped[0].reason
    if processes == 2:
        assert any("ran out of memory" in line for line in lines), lines


def test_a_race_with_both_searches_out_of_memory_keeps_the_level_proved(monkeypatch):
    """Both searches of the race in one process running out of memory: each stops at its
    level, the race ends, and the verdict is unknown with the higher level proved, never more
    (attention_forward(2,1) at M = 3, recompute, optimum 24)."""
    from ioverify.dag import attention_forward
    from ioverify.search import pebbling
    from ioverify.verdict import Unknown

    levels = _memory_runs_out(monkeypatch, 6, lambda run: run.variant == "recompute")
    monkeypatch.setattr(pebbling, "MIN_SLICE", 0.001)
    monkeypatch.setattr(pebbling, "RACE_SLICES", 10**6)
    verdict = pebble(attention_forward(2, 1), 3, variant="recompute", timeout=120,
                     processes=1, method="exhaustive")
    assert isinstance(verdict, Unknown) and "memory" in verdict.reason, verdict
    assert len(levels) == 6
    assert 20 <= verdict.lower_bound <= 24
    assert verdict.lower_bound == max(level for level in levels if level is not None)


# --- the search on the contracted DAG (``_run_contracted``) ----------------------------------------

def test_a_level_proved_on_the_contracted_dag_names_the_contraction():
    """attention_forward(2,1) at M = 3: the search runs on the DAG with each S joined to its
    exp A, proves the optimum 24 there, and its expanded schedule replays on the DAG."""
    dag = attention_forward(2, 1)
    for variant in ("recompute", "one-shot"):
        verdict = pebble(dag, 3, variant=variant)
        assert verdict.status == "optimal" and verdict.io == 24
        assert verdict.evidence.kind == "exhaustive-search"
        assert verdict.evidence.detail["contracted"] == CHAIN_CONTRACTION
        assert replay(dag, verdict.schedule, 3, variant).io == 24
        off = pebble(dag, 3, variant=variant, contract=False)
        assert off.io == 24 and "contracted" not in off.evidence.detail


def test_in_recompute_the_inputs_are_roots_first():
    """approximate_attention(1,1,2) (16 vertices; 13 with the inputs as roots, 15 without):
    at M = 3 in recompute the contraction with the inputs as roots proves the optimum 15 and
    its expanded schedule replays; at M = 4 its optimum, 8, lies below the DAG's 9, and the
    next contraction takes over; in one-shot it is never searched."""
    dag = approximate_attention(1, 1, 2)
    verdict = pebble(dag, 3, variant="recompute")
    assert verdict.io == 15 and verdict.evidence.detail["contracted"] == INPUT_CHAIN_CONTRACTION
    assert exhaustive_optimum(contract_chains(dag, inputs=True), 4, "recompute").optimum == 8
    verdict = pebble(dag, 4, variant="recompute")
    assert verdict.io == 9 == exhaustive_optimum(dag, 4, "recompute").optimum
    assert verdict.evidence.detail.get("contracted") != INPUT_CHAIN_CONTRACTION
    for memory in (3, 4):
        once = pebble(dag, memory, variant="one-shot")
        assert once.evidence.detail.get("contracted") != INPUT_CHAIN_CONTRACTION


def test_a_contracted_optimum_below_the_dags_hands_over_to_the_search_on_the_dag():
    """Joining v4 to v2 merges two outputs into one store: the contracted optimum is 5, the
    DAG's 6.  The contracted search's level stands until the search on the DAG proves more,
    and the answer is the DAG's optimum."""
    dag = DAG.from_edges([f"v{i}" for i in range(7)],
                         [("v0", "v2"), ("v1", "v2"), ("v0", "v3"), ("v2", "v3"), ("v2", "v4"),
                          ("v2", "v5"), ("v0", "v6")], outputs=["v2", "v3", "v4", "v6"])
    contracted = contract_chains(dag)
    assert exhaustive_optimum(contracted, 3, "one-shot").optimum == 5
    for variant in ("recompute", "one-shot"):
        verdict = pebble(dag, 3, variant=variant)
        assert verdict.status == "optimal" and verdict.io == 6
        assert exhaustive_optimum(dag, 3, variant).optimum == 6


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_the_search_with_contraction_finds_the_dags_optimum(data):
    """On random DAGs with chains, both variants: ``pebble`` (which searches the contracted
    DAG first) answers the optimum of the exhaustive search on the DAG itself, with a schedule
    that replays; a level proved on the contracted DAG says so."""
    dag = data.draw(dags(max_vertices=8, max_in_degree=2))
    assume(contract_chains(dag, inputs=True) is not None)
    memory = data.draw(memory_sizes(dag, max_extra=2))
    for variant in ("recompute", "one-shot"):
        verdict = pebble(dag, memory, variant=variant)
        optimum = exhaustive_optimum(dag, memory, variant).optimum
        assert verdict.status == "optimal" and verdict.io == optimum, variant
        assert replay(dag, verdict.schedule, memory, variant).io == optimum
        lemma = verdict.evidence.detail.get("contracted")
        if verdict.evidence.kind == "exhaustive-search" and lemma is not None:
            assert lemma == CHAIN_CONTRACTION or variant == "recompute"
            assert exhaustive_optimum(contract_chains(dag, CONTRACTIONS[lemma]), memory, variant,
                                      below=verdict.io).optimum is None
