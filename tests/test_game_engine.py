"""The compiled copy of the exhaustive search (``ioverify.game.engine``): used only when built
from the source as it is, and the same program as the Python module, answer for answer and
configuration for configuration.

Where the copy was not built (no C compiler) the differential tests have nothing to compare and
are skipped, unless ``IOVERIFY_REQUIRE_COMPILED`` is set (CI sets it): then a missing copy fails.
"""

import os

import pytest
from hypothesis import given, settings, strategies as st

from ioverify.dag import attention_forward, matmul
from ioverify.game import abstraction, engine, exhaustive
from ioverify.game.rules import VARIANTS
from ioverify.strategies import dags, memory_sizes


def _compiled():
    """The compiled copy, or a skip (a failure where CI requires it)."""
    native = engine._native()
    if native is None:
        if os.environ.get("IOVERIFY_REQUIRE_COMPILED"):
            pytest.fail("the compiled search was not built (or is stale) though "
                        "IOVERIFY_REQUIRE_COMPILED is set")
        pytest.skip("the compiled search is not built here")
    return native


def test_the_compiled_copy_runs_unless_told_not_to(monkeypatch):
    native = _compiled()
    monkeypatch.delenv(engine.PURE_VARIABLE, raising=False)
    assert engine.search() is native and engine.which() == "compiled"
    assert native.SOURCE_SHA256 == engine.source_digest()
    assert native is not exhaustive and "_exhaustive_native" in native.__name__
    monkeypatch.setenv(engine.PURE_VARIABLE, "1")
    assert engine.search() is exhaustive and engine.which() == "python"


def test_a_stale_copy_never_runs(monkeypatch):
    """An edited ``exhaustive.py`` (another digest than the copy's stamp) runs as Python."""
    _compiled()
    monkeypatch.delenv(engine.PURE_VARIABLE, raising=False)
    monkeypatch.setattr(engine, "source_digest", lambda: "0" * 64)
    engine._native.cache_clear()
    try:
        assert engine.search() is exhaustive and engine.which() == "python"
    finally:
        engine._native.cache_clear()


def _same(dag, memory, variant, **options):
    """Both copies' results on one search: every field but the seconds, the schedule's moves."""
    native = _compiled()
    mine = exhaustive.exhaustive_optimum(dag, memory, variant, **options)
    theirs = native.exhaustive_optimum(dag, memory, variant, **options)
    for field in ("optimum", "complete", "states", "reason", "lower_bound", "closed",
                  "automorphisms"):
        assert getattr(mine, field) == getattr(theirs, field), field
    assert (mine.schedule is None) == (theirs.schedule is None)
    if mine.schedule is not None:
        assert _moves(mine.schedule) == _moves(theirs.schedule)
    return mine


def _moves(schedule):
    return schedule.kinds, schedule.vertices


def _instance(data, max_extra):
    dag = data.draw(dags(max_vertices=8))
    return dag, data.draw(memory_sizes(dag, max_extra=max_extra)), \
        data.draw(st.sampled_from(sorted(VARIANTS)))


@settings(max_examples=150)
@given(st.data())
def test_both_copies_search_alike_on_random_dags(data):
    below = data.draw(st.one_of(st.none(), st.integers(0, 12)))
    _same(*_instance(data, 2), below=below, keep_closed=below is not None)


@settings(max_examples=40)
@given(st.data())
def test_both_copies_stop_alike_at_a_state_cap(data):
    _same(*_instance(data, 1), max_states=data.draw(st.integers(1, 40)))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_both_copies_search_attention_alike(variant):
    """attention_forward(2,1) at M = 3 (optimum 24 in both variants): the same configurations
    one by one, so the same count of them, in the search and in its last level."""
    result = _same(attention_forward(2, 1), 3, variant)
    assert result.optimum == 24


def test_both_copies_search_alike_with_the_abstraction_bound(monkeypatch):
    """The bound's restricted searches run in the copy ``engine.search()`` names at its
    construction, the search itself in either: the same answer and configurations."""
    native = _compiled()
    dag, memory = matmul(2, 2, 2), 4
    results = []
    for pure, copy in ((True, exhaustive), (False, native)):
        monkeypatch.setenv(engine.PURE_VARIABLE, "1" if pure else "")
        bound = abstraction.AbstractionBound(dag, memory, VARIANTS["one-shot"],
                                             abstraction.parts_of(dag), nested=False)
        assert bound.engine is copy
        results.append(copy.exhaustive_optimum(dag, memory, "one-shot", bound=bound))
    mine, theirs = results
    assert (mine.optimum, mine.states) == (theirs.optimum, theirs.states)
    assert _moves(mine.schedule) == _moves(theirs.schedule)
