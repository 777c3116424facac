"""The beam search (``ioverify.game.beam``): replayed upper bounds, never below the optimum."""

import time

import pytest
from hypothesis import given, settings, strategies as st

from ioverify.dag import attention_forward, matmul
from ioverify.errors import InvalidArgument, UnsupportedVariant
from ioverify.game import beam
from ioverify.game.replay import replay
from ioverify.game.beam import beam_schedule
from ioverify.game.exhaustive import exhaustive_optimum
from ioverify.game.greedy import best_greedy_schedule
from ioverify.search.pebbling import pebble
from ioverify.strategies import dags, memory_sizes
from ioverify.verdict import Optimal, Unknown


@settings(max_examples=60)
@given(st.data())
def test_a_beam_schedule_replays_below_its_limit_and_never_beats_the_optimum(data):
    dag = data.draw(dags(max_vertices=8, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    variant = data.draw(st.sampled_from(["one-shot", "recompute"]))
    below = data.draw(st.none() | st.integers(0, 20))
    found = beam_schedule(dag, memory, variant, below=below, widths=(1, 4))
    optimum = exhaustive_optimum(dag, memory, variant).optimum
    if found is None:
        return
    result = replay(dag, found, memory, variant)
    assert result.ok and result.io == found.io
    assert found.io >= optimum
    assert below is None or found.io < below


@pytest.mark.parametrize("dag, memory, greedy, optimum", [
    (matmul(2, 2, 2), 4, 18, 17),
    (matmul(2, 2, 2), 5, 16, 14),
    (attention_forward(2, 1), 3, 28, 24),
])
def test_the_beam_finds_optima_the_greedy_schedule_misses(dag, memory, greedy, optimum):
    assert best_greedy_schedule(dag, memory).io == greedy
    assert exhaustive_optimum(dag, memory, "one-shot").optimum == optimum
    assert beam_schedule(dag, memory, "one-shot").io == optimum


def test_nothing_below_the_optimum_is_none():
    assert beam_schedule(matmul(2, 2, 2), 4, "one-shot", below=17) is None


def _widths_tried(monkeypatch, *args, **kwargs):
    tried = []
    run = beam._Beam.run

    def record(self, width, limit):
        found = run(self, width, limit)
        tried.append((width, found is not None))
        return found

    monkeypatch.setattr(beam._Beam, "run", record)
    beam_schedule(*args, **kwargs)
    return tried


def test_it_gives_up_after_widths_that_find_nothing_cheaper(monkeypatch):
    tried = _widths_tried(monkeypatch, matmul(2, 2, 2), 4, "one-shot", below=17,
                          widths=(1, 2, 3, 4))
    assert tried == [(1, False), (2, False)][:beam.GIVE_UP_AFTER]


def test_two_widths_in_a_row_that_find_nothing_cheaper_end_it(monkeypatch):
    tried = _widths_tried(monkeypatch, attention_forward(2, 1), 3, "one-shot",
                          widths=tuple(range(1, 40)))
    found = [hit for _, hit in tried]
    assert found[0] and len(found) < 39
    assert found[-beam.GIVE_UP_AFTER:] == [False] * beam.GIVE_UP_AFTER
    # no earlier run of GIVE_UP_AFTER misses
    assert all(any(found[i:i + beam.GIVE_UP_AFTER])
               for i in range(len(found) - beam.GIVE_UP_AFTER))


def test_the_work_budget_stops_it_at_the_same_place_every_time():
    dag, widths = attention_forward(2, 1), (1, 16)
    runs = [beam_schedule(dag, 3, "one-shot", widths=widths, max_successors=200)
            for _ in range(2)]
    assert runs[0].io == 26 and runs[0] == runs[1]
    assert beam_schedule(dag, 3, "one-shot", widths=widths).io == 25


def test_a_passed_deadline_gives_no_schedule():
    assert beam_schedule(attention_forward(2, 1), 3, deadline=time.monotonic() - 1) is None


def test_bad_arguments():
    dag = matmul(2, 2, 2)
    with pytest.raises(UnsupportedVariant):
        beam_schedule(dag, 4, "no-deletion")
    with pytest.raises(InvalidArgument, match="max_successors"):
        beam_schedule(dag, 4, max_successors=0)
    with pytest.raises(InvalidArgument, match="below"):
        beam_schedule(dag, 4, below=1.5)
    assert beam_schedule(dag, 2) is None  # infeasible M: nothing to find


def test_pebble_starts_its_exhaustive_search_below_the_beams_schedule():
    reports = []
    verdict = pebble(attention_forward(2, 1), 3, variant="one-shot", method="exhaustive",
                     max_states=50, progress=reports.append)
    assert isinstance(verdict, Unknown) and verdict.upper_bound == 24
    assert any("beam search in one-shot below 28" in line for line in reports)
    assert any("search below 24" in line for line in reports)


def test_pebble_settles_with_the_beams_schedule():
    verdict = pebble(matmul(2, 2, 2), 4, variant="one-shot", method="exhaustive")
    assert isinstance(verdict, Optimal) and verdict.io == 17
    assert verdict.evidence.kind == "exhaustive-search"
