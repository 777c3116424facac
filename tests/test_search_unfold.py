"""Recompute upper bounds from one-shot schedules of the unfolded DAG (``ioverify.search.unfold``):
every folded schedule replays in recompute at no more I/O, and the recompute route keeps them."""

import pytest
from hypothesis import given, settings, strategies as st

from ioverify.dag import approximate_attention, attention_backward, attention_forward, matmul
from ioverify.dag.model import DAG
from ioverify.errors import InternalError
from ioverify.game.beam import beam_schedule
from ioverify.game.replay import replay
from ioverify.search.pebbling import pebble
from ioverify.search.unfold import (cheap_recomputes, fold, free_recomputes,
                                    unfold, unfold_cheap)
from ioverify.strategies import dags, memory_sizes, schedules
from ioverify.verdict import Unknown


def _names(dag, vertices):
    return [dag.names[v] for v in vertices]


def test_the_free_recomputes_are_the_features_of_the_inputs():
    dag = approximate_attention(1, 1, 2)
    assert _names(dag, free_recomputes(dag)) == ["U1[0,x0*x0]", "U2[0,x0*x0]"]
    assert free_recomputes(approximate_attention(2, 1, 1)) == ()  # degree 1: no features
    assert free_recomputes(attention_forward(2, 1)) == ()  # exp's predecessor is a score
    assert free_recomputes(matmul(2, 2, 2)) == ()


def test_unfolding_gives_each_use_its_own_copy():
    dag = approximate_attention(1, 1, 2)
    vertices = free_recomputes(dag)
    unfolded, origin = unfold(dag, vertices)
    assert len(unfolded) == len(dag) + 2  # two copies of each of the two features
    for u in vertices:
        copies = [v for v in range(len(unfolded)) if origin[v] == u]
        assert len(copies) == len(dag.succs[u]) == 2
        assert all(len(unfolded.succs[c]) == 1 for c in copies)
        assert {origin[unfolded.succs[c][0]] for c in copies} == set(dag.succs[u])
        assert all([origin[p] for p in unfolded.preds[c]] == list(dag.preds[u])
                   for c in copies)
    assert _names(unfolded, unfolded.outputs) == _names(dag, dag.outputs)
    assert all(unfolded.names[v] == dag.names[origin[v]]
               for v in range(len(unfolded)) if origin[v] not in vertices)


def test_a_copy_never_takes_a_name_the_dag_has():
    from ioverify.dag.model import DAG

    dag = DAG.from_edges(["x", "u", "u#0", "a", "b"],
                         [("x", "u"), ("u", "a"), ("u", "b"), ("x", "u#0"), ("u#0", "a")],
                         outputs=["a", "b"])
    unfolded, origin = unfold(dag, free_recomputes(dag))
    assert len(set(unfolded.names)) == len(unfolded) == 6
    assert sorted(dag.names[origin[v]] for v in range(len(unfolded))) == \
        ["a", "b", "u", "u", "u#0", "x"]


@settings(max_examples=150)
@given(st.data())
def test_a_folded_schedule_replays_in_recompute_at_no_more_io(data):
    dag = data.draw(dags(max_vertices=9, max_in_degree=3))
    shared = [v for v in dag.useful if dag.preds[v] and not dag.is_output[v]
              and len(dag.succs[v]) > 1]
    drawn = data.draw(st.sets(st.sampled_from(shared))) if shared else set()
    vertices = tuple(sorted(v for v in drawn if not drawn & set(dag.preds[v])))
    unfolded, origin = unfold(dag, vertices)
    memory = data.draw(memory_sizes(unfolded, max_extra=2))
    schedule = data.draw(schedules(unfolded, memory, variant="one-shot"))
    assert replay(unfolded, schedule, memory, "one-shot").ok
    folded = fold(schedule, origin)
    result = replay(dag, folded, memory, "recompute")
    assert result.ok, result.describe()
    assert result.io == folded.io <= schedule.io


def test_unfolding_refuses_what_it_cannot_copy():
    dag = approximate_attention(1, 1, 2)
    for name in ("Q[0,0]", "T[0,0]"):
        with pytest.raises(InternalError, match="no needed vertex"):
            unfold(dag, (dag.vertex(name),))


def test_unfolding_nothing_folds_back_to_the_same_schedule():
    dag = attention_forward(2, 1)
    unfolded, origin = unfold(dag, ())
    assert unfolded.names == dag.names and origin == tuple(range(len(dag)))
    schedule = beam_schedule(dag, 4, "one-shot")
    assert fold(schedule, origin) == schedule


def test_the_recompute_route_keeps_the_unfolded_beams_schedule():
    # approximate_attention(1, 1, 2) at M = 3: one-shot optimum 17, recompute optimum 15; with
    # the exhaustive search stopped at once only the beams on the unfolded DAG find 15 before it.
    # The one-shot sub-search after them is asked only for a schedule below 15, all that could
    # help, not for its own optimum (17).
    reports: list[str] = []
    verdict = pebble(approximate_attention(1, 1, 2), 3, variant="recompute",
                     method="exhaustive", max_states=1, progress=reports.append)
    assert isinstance(verdict, Unknown) and verdict.upper_bound == 15
    assert replay(approximate_attention(1, 1, 2), verdict.schedule, 3, "recompute").io == 15
    assert "2 vertices copied per use" in reports[0]
    assert any("one-shot search below 15" in line for line in reports)
    assert not any("below 17" in line for line in reports)
    assert any("recompute below 15" in line for line in reports)


def test_the_cheap_recomputes_are_the_outermost_a_few_computes_deep():
    dag = attention_backward(2, 1)
    # D = rowsum(dO * O) from inputs; P = exp(S - L) two computes above S = QK^T; S and S - L
    # are cheap too but lie above P, and dS lies six computes deep
    assert _names(dag, cheap_recomputes(dag)) == ["D[0]", "D[1]", "P[0,0]", "P[0,1]", "P[1,0]",
                                                  "P[1,1]"]
    assert cheap_recomputes(attention_forward(2, 2)) == ()  # every score has one use
    assert cheap_recomputes(matmul(3, 3, 3)) == ()


def test_unfolding_the_cheap_recomputes_leaves_each_one_use_per_copy():
    dag = attention_backward(2, 1)
    unfolded, origin = unfold_cheap(dag)
    assert len(unfolded) == 70  # S, S - L, P: 12 copies more; D: 2 more
    assert cheap_recomputes(unfolded) == ()
    needed = set(unfolded.useful)
    for v in range(len(unfolded)):
        name = dag.names[origin[v]]
        assert unfolded.names[v].split("#")[0] == name
        if name.startswith(("S[", "S-L[", "P[", "D[")):
            assert sum(s in needed for s in unfolded.succs[v]) == 1
    assert sorted(_names(unfolded, unfolded.outputs)) == sorted(_names(dag, dag.outputs))


@settings(max_examples=150)
@given(st.data())
def test_a_schedule_of_the_cheap_unfolding_folds_to_a_recompute_schedule(data):
    dag = data.draw(dags(max_vertices=9, max_in_degree=3))
    unfolded, origin = unfold_cheap(dag)
    assert all(0 <= u < len(dag) for u in origin)
    memory = data.draw(memory_sizes(unfolded, max_extra=2))
    schedule = data.draw(schedules(unfolded, memory, variant="one-shot"))
    folded = fold(schedule, origin)
    result = replay(dag, folded, memory, "recompute")
    assert result.ok, result.describe()
    assert result.io == folded.io <= schedule.io


def test_the_recompute_route_keeps_the_cheap_unfolded_beams_schedule():
    # v2 = f(v0, v1), both inputs, feeds v4 and v7: at M = 3 the one-shot optimum is 9 and the
    # recompute one 8, computing v2 twice; nothing is free to compute again (one input
    # predecessor), so after the one-shot sub-search the beams run on the DAG with v2 copied
    # per use, and find 8, which the recompute search is then asked to beat.
    dag = DAG.from_edges([f"v{i}" for i in range(10)],
                         [("v0", "v2"), ("v1", "v2"), ("v0", "v3"), ("v2", "v4"), ("v0", "v5"),
                          ("v0", "v6"), ("v0", "v7"), ("v2", "v7"), ("v0", "v8"), ("v7", "v8"),
                          ("v0", "v9"), ("v4", "v9")],
                         outputs=["v3", "v5", "v6", "v8", "v9"])
    assert free_recomputes(dag) == () and _names(dag, cheap_recomputes(dag)) == ["v2"]
    reports: list[str] = []
    verdict = pebble(dag, 3, variant="recompute", method="exhaustive", max_states=1,
                     progress=reports.append)
    assert isinstance(verdict, Unknown) and verdict.upper_bound == 8
    assert replay(dag, verdict.schedule, 3, "recompute").io == 8
    cheap = [i for i, line in enumerate(reports) if "cheap recomputes copied per use (11" in line]
    one_shot = [i for i, line in enumerate(reports) if "one-shot search" in line]
    assert cheap and one_shot and one_shot[0] < cheap[0]
    assert any("recompute search below 8" in line for line in reports[cheap[0]:])
    assert pebble(dag, 3, variant="one-shot").io == 9


def test_the_one_shot_sub_search_starts_from_the_greedy_schedule_already_built(monkeypatch):
    """Regression (found by reading): when the best schedule was recompute-only (an incumbent,
    the unfolded DAG's), the one-shot sub-search built the greedy schedule again, with no
    deadline (seconds on tens of thousands of vertices).  It now reuses the one the search
    started from, and builds one under the deadline only when none was built."""
    import ioverify.search.pebbling as pebbling_module

    dag = DAG.from_edges([f"v{i}" for i in range(10)],
                         [("v0", "v2"), ("v1", "v2"), ("v0", "v3"), ("v2", "v4"), ("v0", "v5"),
                          ("v0", "v6"), ("v0", "v7"), ("v2", "v7"), ("v0", "v8"), ("v7", "v8"),
                          ("v0", "v9"), ("v4", "v9")],
                         outputs=["v3", "v5", "v6", "v8", "v9"])
    recompute_only = pebble(dag, 3, variant="recompute").schedule
    assert not replay(dag, recompute_only, 3, "one-shot").ok
    built = []
    real = pebbling_module.best_greedy_schedule
    monkeypatch.setattr(pebbling_module, "best_greedy_schedule",
                        lambda *a: built.append(a[1]) or real(*a))
    for greedy in (True, False):
        built.clear()
        verdict = pebble(dag, 3, variant="recompute", incumbent=recompute_only, greedy=greedy,
                         method="exhaustive", max_states=1)
        assert verdict.upper_bound == 8 and built == [3]
