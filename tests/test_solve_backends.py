"""The back ends behind ``ioverify.solve.backends``: Z3 alone and Glucose on Z3's CNF agree, and
the SAT query's totalizer counts only up to the largest budget it was built for."""

from __future__ import annotations

import time

import pytest

from ioverify.dag import pyramid
from ioverify.encode import cnf, pebbling
from ioverify.errors import DeadlineReached, InternalError
from ioverify.search import pebbling as search
from ioverify.solve import backends
from ioverify.verdict import Optimal, Unknown

HARD = (pyramid(3), 3)


def test_z3_backend_agrees(monkeypatch, z3_only):
    monkeypatch.setattr(backends, "available", lambda: False)
    verdict = search.pebble(*HARD, variant="one-shot")
    assert isinstance(verdict, Optimal) and verdict.io == 11
    assert verdict.evidence.kind == "one-shot-exact-horizon"


def test_sat_query_counts_only_up_to_its_bound():
    """The totalizer counts up to the largest budget asked; a budget above it is a bug."""
    z = pebbling.z3()
    ctx = z.Context()
    xs = [z.Bool(f"x{i}", ctx) for i in range(6)]
    clauses, nvars, names = cnf.to_cnf(ctx, [z.Or(*xs[:3]), z.Or(*xs[3:])])
    query = backends.SatQuery(clauses, nvars, names, [str(x) for x in xs], ubound=3)
    assert (query.check(0), query.check(1), query.check(2)) == ("unsat", "unsat", "sat")
    assert sum(query.value(x) for x in xs) <= 2
    with pytest.raises(InternalError, match="above the totalizer's bound"):
        query.check(4)
    query.close()


@pytest.mark.parametrize("chunk", [1, 7, 20_000])
def test_the_totalizer_built_in_steps_counts_every_bound(monkeypatch, chunk):
    """Built a few bounds at a time (a look at the clock between two steps), the totalizer
    answers every budget exactly as one built at once: at most k of 7 free literals, one forced."""
    monkeypatch.setattr(backends.SatQuery, "TOTALIZER_CHUNK", chunk)
    z = pebbling.z3()
    ctx = z.Context()
    xs = [z.Bool(f"x{i}", ctx) for i in range(8)]
    clauses, nvars, names = cnf.to_cnf(ctx, [xs[0], z.Or(xs[1], xs[2])])
    query = backends.SatQuery(clauses, nvars, names, [str(x) for x in xs], ubound=6)
    assert [query.check(k) for k in range(7)] == ["unsat", "unsat"] + ["sat"] * 5
    assert query.check(2) == "sat" and sum(query.value(x) for x in xs) <= 2
    query.close()


def test_a_deadline_passing_between_totalizer_steps_stops_the_build(monkeypatch):
    """The cardinality constraint is built in steps, the clock looked at between two: a deadline
    passing after the first step stops the build (DeadlineReached), the solver released."""
    from pysat.card import ITotalizer

    monkeypatch.setattr(backends.SatQuery, "TOTALIZER_CHUNK", 1)
    append = backends.SatQuery._append
    monkeypatch.setattr(backends.SatQuery, "_append",
                        lambda self, clauses, deadline: append(self, clauses, None))
    steps = []
    increase = ITotalizer.increase
    monkeypatch.setattr(ITotalizer, "increase",
                        lambda self, **kw: (steps.append(kw), increase(self, **kw))[1])
    monkeypatch.setattr(backends.time, "monotonic", lambda: 10.0 if steps else 0.0)
    enc = pebbling.encode(*HARD, "one-shot", 6)
    clauses, nvars, names = cnf.to_cnf(enc.ctx, enc.constraints)
    with pytest.raises(DeadlineReached, match="cardinality constraint"):
        backends.SatQuery(clauses, nvars, names, [str(c) for c in enc.cost], ubound=20,
                          deadline=5.0)
    assert len(steps) == 1  # one step built past the first, then the clock stopped it


# --- the work budget: reproducible, and never a proof when it runs out ---------------------------

# matmul(2,2,2), M = 4, one-shot, Z3 encodings only: the proof needs a few million units of work
# per solver call (measured: settled from rlimit 8e6 with Glucose, 12e6 with Z3 alone), so 1000
# stops the first call.


# --- deadlines: building an encoding, its CNF and the SAT solver stops once one passes -----------

def test_a_passed_deadline_stops_every_build_step():
    """A pyramid of height 40 (861 vertices) takes minutes and gigabytes to encode; with a
    deadline already passed each step raises DeadlineReached before doing any of it."""
    past = time.monotonic() - 1.0
    with pytest.raises(DeadlineReached, match="building the pebbling encoding"):
        pebbling.encode(pyramid(40), 4, "one-shot", 820, deadline=past)
    enc = pebbling.encode(*HARD, "one-shot", 6)
    with pytest.raises(DeadlineReached, match="CNF"):
        cnf.to_cnf(enc.ctx, enc.constraints, past)
    clauses, nvars, names = cnf.to_cnf(enc.ctx, enc.constraints)
    with pytest.raises(DeadlineReached, match="SAT solver"):
        backends.SatQuery(clauses, nvars, names, [str(c) for c in enc.cost], deadline=past)
    fresh = pebbling.encode(*HARD, "one-shot", 6)  # a second conversion in one context differs
    later = time.monotonic() + 3600.0
    assert cnf.to_cnf(fresh.ctx, fresh.constraints, later) == (clauses, nvars, names)


def test_a_deadline_passing_while_building_gives_unknown(monkeypatch):
    """The search turns DeadlineReached from a build step into unknown with the bounds
    reached (the greedy schedule and the trivial bound), for both routes."""
    def too_late(*args, **kwargs):
        raise DeadlineReached("timeout while building the pebbling encoding")

    monkeypatch.setattr(pebbling, "encode", too_late)
    for variant in ("one-shot", "recompute"):
        verdict = search.pebble(pyramid(4), 3, variant=variant, method="z3")
        assert isinstance(verdict, Unknown), verdict
        assert "timeout while building the pebbling encoding" in verdict.reason
        assert verdict.lower_bound <= verdict.upper_bound


def test_a_short_timeout_bounds_a_large_search():
    """Pyramid height 40 at M = 4 ran 300 s with 7.5 GB under --timeout 5: the encoding was
    built with no deadline.  A timeout that has passed by the time the search starts now
    answers unknown at once, with the greedy schedule's bracket."""
    dag = pyramid(40)
    start = time.monotonic()
    verdict = search.pebble(dag, 4, timeout=1e-6)
    assert isinstance(verdict, Unknown) and verdict.lower_bound == 42
    assert time.monotonic() - start < 60  # generous: a hang, not a slow machine, fails this


def test_the_timeout_counts_from_the_start_given():
    """The CLI passes the time it started, so that reading the DAG counts against --timeout:
    a timeout already used up answers unknown at once, whatever the search would find."""
    dag = pyramid(40)
    verdict = search.pebble(dag, 4, timeout=5.0, started=time.monotonic() - 10.0)
    assert isinstance(verdict, Unknown) and verdict.lower_bound == 42
    assert "timeout" in verdict.reason


def _pigeons(holes: int):
    var = lambda p, h: p * holes + h + 1  # noqa: E731
    clauses = [[var(p, h) for h in range(holes)] for p in range(holes + 1)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(holes)
                for p in range(holes + 1) for q in range(p + 1, holes + 1)]
    return clauses, holes * (holes + 1)


def test_a_timed_call_ends_even_if_the_solver_ignores_its_interrupt(monkeypatch):
    """Glucose sees an interrupt only between conflicts, and one conflict took 90 s on
    sparse_backward(causal 3,1) (module docstring): a timed call runs in a child process,
    killed GRACE seconds after its time.  Here the child's solver never looks at the clock."""
    pytest.importorskip("pysat")
    query = backends.SatQuery(*_pigeons(4), {}, [])
    monkeypatch.setattr(query.solver, "solve_limited", lambda **_: time.sleep(60))
    start = time.monotonic()
    assert query.check(0, 0.5) == "unknown"
    assert query.reason == "timeout"
    assert time.monotonic() - start < 0.5 + backends.GRACE + 5  # not the 60 s of the sleep


def test_a_timed_call_runs_in_process_when_no_process_can_be_forked(monkeypatch):
    pytest.importorskip("pysat")

    def no_fork():
        raise OSError("Cannot allocate memory")

    monkeypatch.setattr(backends.os, "fork", no_fork)
    assert backends.SatQuery(*_pigeons(4), {}, []).check(0, 60.0) == "unsat"


@pytest.mark.parametrize("holes, expected", [(4, "unsat"), (5, "unsat")])
def test_a_timed_call_answers_as_an_untimed_one(holes, expected):
    pytest.importorskip("pysat")
    clauses, nvars = _pigeons(holes)
    assert backends.SatQuery(clauses, nvars, {}, []).check(0, 60.0) == expected
    sat = clauses[:-1]  # one exclusion dropped: two pigeons may share that hole
    query = backends.SatQuery(sat, nvars, {"x": 1}, [])
    assert query.check(0, 60.0) == "sat" and query.model  # the model came through the pipe
    assert query.model == {lit for lit in _untimed_model(sat, nvars) if lit > 0}


def _untimed_model(clauses, nvars):
    query = backends.SatQuery(clauses, nvars, {}, [])
    assert query.check(0) == "sat"
    return query.model
