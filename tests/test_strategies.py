"""The Hypothesis strategies, and the replayer's properties they drive: every generated schedule
replays; every single-move mutation is still legal or rejected for a rule an independent check
agrees is broken."""

import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

import ioverify.strategies as strategies
from ioverify.dag import DAG, pyramid
from ioverify.errors import InvalidArgument
from ioverify.game import Schedule, replay
from ioverify.game.rules import MOVE_NAMES
from ioverify.strategies import dags, memory_sizes, schedules

VARIANTS = ("recompute", "one-shot")


# --- the strategies themselves -----------------------------------------------------------------

@given(dags(min_vertices=3, max_vertices=9, max_in_degree=3, min_inputs=2))
def test_dags_respect_their_arguments(dag):
    assert 3 <= len(dag) <= 9
    assert len(dag.inputs) >= 2 and len(dag.inputs) < len(dag)
    assert dag.max_in_degree <= 3 and dag.outputs
    assert all(dag.preds[v] for v in dag.outputs)


@given(st.data())
def test_memory_sizes_are_feasible(data):
    dag = data.draw(dags())
    memory = data.draw(memory_sizes(dag, max_extra=2))
    assert dag.min_memory <= memory <= dag.min_memory + 2


@pytest.mark.parametrize("variant", VARIANTS)
@given(data=st.data())
def test_generated_schedules_replay(variant, data):
    dag = data.draw(dags(max_vertices=10, max_in_degree=3))
    memory = data.draw(st.sampled_from([dag.min_memory, dag.min_memory + 1]))
    schedule = data.draw(schedules(dag, memory, variant=variant))
    result = replay(dag, schedule, memory, variant)
    assert result.ok, result.describe()
    assert result.peak <= memory


@given(data=st.data())
def test_a_variant_record_is_read_as_its_name(data):
    """``schedules(dag, M, variant=ONE_SHOT)`` (the registered record, which the argument
    accepts) used to compare the record with the string "one-shot", find them different, and
    draw recompute play: schedules that compute a vertex twice, illegal in one-shot."""
    from ioverify.game.rules import ONE_SHOT

    dag = pyramid(4)  # shared predecessors: recompute play recomputes on most draws
    schedule = data.draw(schedules(dag, 3, variant=ONE_SHOT))
    result = replay(dag, schedule, 3, ONE_SHOT)
    assert result.ok, result.describe()


@given(schedules(pyramid(4), 3, variant="one-shot"))
def test_one_shot_schedules_at_minimum_memory_on_a_pyramid(schedule):
    assert replay(pyramid(4), schedule, 3, "one-shot").ok


BAD_ARGUMENTS = [
    (lambda: dags(min_vertices=1), "min_vertices"),
    (lambda: dags(min_vertices=5, max_vertices=4), "max_vertices"),
    (lambda: dags(max_in_degree=0), "max_in_degree"),
    (lambda: dags(min_inputs=0), "min_inputs"),
    (lambda: dags(max_vertices=3, min_inputs=3), "min_inputs"),
    (lambda: dags(max_vertices=2.5), "max_vertices"),
    (lambda: memory_sizes("dag"), "dag"),
    (lambda: memory_sizes(pyramid(2), max_extra=-1), "max_extra"),
    (lambda: schedules(pyramid(2), 0), "memory"),
    (lambda: schedules(pyramid(2), 2), "in-degree"),
    (lambda: schedules(pyramid(2), 3, variant="sliding"), "variant"),
    (lambda: schedules(None, 3), "dag"),
]


@pytest.mark.parametrize("build, word", BAD_ARGUMENTS)
def test_bad_arguments_raise_invalid_argument(build, word):
    with pytest.raises(InvalidArgument, match=word):
        build()


def test_strategies_are_keyword_only():
    with pytest.raises(TypeError):
        dags(2, 8)
    with pytest.raises(TypeError):
        memory_sizes(pyramid(2), 3)
    with pytest.raises(TypeError):
        schedules(pyramid(2), 3, "one-shot")


def test_every_public_strategy_is_documented():
    for name in strategies.__all__:
        assert getattr(strategies, name).__doc__, name
    assert "test extra" in strategies.__doc__


def test_the_module_example_runs():
    """The example at the top of ``ioverify.strategies`` (shown in the API reference) used
    ``replay`` without importing it: NameError when pasted."""
    lines = strategies.__doc__.splitlines()
    code = "\n".join(line[4:] for line in lines if line.startswith("    "))
    namespace = {}
    exec(code, namespace)
    namespace["test_schedules_replay"]()


def test_the_package_does_not_import_hypothesis():
    code = ("import sys, ioverify, ioverify.cli, ioverify.dag, ioverify.game, "
            "ioverify.game.exhaustive; ioverify.cli.build_parser(); "
            "assert 'hypothesis' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --- an independent check of a single move ---------------------------------------------------

def broken_rules(dag: DAG, memory: int, one_shot: bool, red: set, blue: set, done: set,
                 kind: str, v: int) -> set:
    """Every rule of docs/theory.md §1 the move (kind, v) breaks in configuration (red, blue),
    written from the rules, independently of the replayer."""
    broken = set()
    places = kind in ("load", "compute")
    if places and len(red) + (v not in red) > memory:
        broken.add("capacity")
    if kind == "load":
        if v not in blue:
            broken.add("load-needs-blue")
        if v in red:
            broken.add("load-already-red")
    elif kind == "compute":
        if not dag.preds[v]:
            broken.add("compute-input")
        if v in red:
            broken.add("compute-already-red")
        if any(p not in red for p in dag.preds[v]):
            broken.add("compute-needs-predecessors")
        if one_shot and v in done:
            broken.add("one-shot-recompute")
    elif kind == "store":
        if v not in red:
            broken.add("store-needs-red")
        if v in blue:
            broken.add("store-already-blue")
    elif v not in red:
        broken.add("delete-needs-red")
    return broken


def independent_replay(dag, moves, memory, variant):
    """(index of the first illegal move, the rules it breaks) or (None, outputs left unblue)."""
    red, blue, done = set(), set(dag.inputs), set()
    for i, (kind, v) in enumerate(moves):
        broken = broken_rules(dag, memory, variant == "one-shot", red, blue, done, kind, v)
        if broken:
            return i, broken
        if kind in ("load", "compute"):
            red.add(v)
            if kind == "compute":
                done.add(v)
        elif kind == "store":
            blue.add(v)
        else:
            red.discard(v)
    return None, {v for v in dag.outputs if v not in blue}


@st.composite
def mutations(draw, schedule: Schedule, n: int):
    """One single-move mutation: delete a move, swap two, change a kind, change a vertex."""
    moves = list(schedule)
    i = draw(st.integers(0, len(moves) - 1))
    how = draw(st.sampled_from(["delete", "swap", "kind", "vertex"]))
    if how == "delete":
        del moves[i]
    elif how == "swap":
        j = draw(st.integers(0, len(moves) - 1))
        moves[i], moves[j] = moves[j], moves[i]
    elif how == "kind":
        moves[i] = (draw(st.sampled_from(MOVE_NAMES)), moves[i][1])
    else:
        moves[i] = (moves[i][0], draw(st.integers(0, n - 1)))
    return moves


@pytest.mark.parametrize("variant", VARIANTS)
@given(data=st.data())
def test_mutations_are_legal_or_rejected_for_the_right_rule(variant, data):
    dag = data.draw(dags(max_vertices=7, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    schedule = data.draw(schedules(dag, memory, variant=variant))
    moves = data.draw(mutations(schedule, len(dag)))
    result = replay(dag, Schedule.from_moves(moves), memory, variant)
    index, detail = independent_replay(dag, moves, memory, variant)
    if index is None:
        assert result.legal, result.describe()
        assert set(result.missing_outputs) == {dag.names[v] for v in detail}
        assert result.io == sum(kind in ("load", "store") for kind, _ in moves)
    else:
        assert not result.legal
        assert result.error_index == index
        assert result.error_rule in detail, (result.describe(), detail)
        assert result.error_move == (moves[index][0], dag.names[moves[index][1]])


@given(data=st.data())
def test_peak_matches_an_independent_count(data):
    dag = data.draw(dags())
    memory = data.draw(memory_sizes(dag))
    schedule = data.draw(schedules(dag, memory))
    red, peak = 0, 0
    for kind, _ in schedule:
        red += {"load": 1, "compute": 1, "delete": -1}.get(kind, 0)
        peak = max(peak, red)
    assert replay(dag, schedule, memory).peak == peak


@given(st.from_type(DAG))
@settings(max_examples=20)
def test_from_type_dag_draws_from_dags(dag):
    """Issue 19: ``st.from_type(DAG)`` works (the strategy is registered for the type)."""
    assert isinstance(dag, DAG) and len(dag) >= 2 and dag.inputs


def _chain(length: int) -> DAG:
    from ioverify.dag.model import DAGBuilder

    b = DAGBuilder()
    v = b.input("x0")
    for i in range(1, length + 1):
        v = b.op("f", f"x{i}", [v])
    return b.build()


DEEP = _chain(3 * sys.getrecursionlimit())  # one level more per vertex than recursion allows


@settings(max_examples=3, deadline=None)
@given(st.data())
def test_recompute_play_pebbles_a_dag_deeper_than_the_recursion_limit(data):
    play = strategies._Play(DEEP, 2, data.draw)  # the depth-first player itself, not the coin
    play.depth_first()
    play.finish()
    result = replay(DEEP, Schedule(play.kinds, play.verts), 2, "recompute")
    assert result.ok, result.describe()
