"""The back ends behind ``ioverify.solve.backends``: Z3 alone and Glucose on Z3's CNF agree, and
the SAT query's totalizer counts only up to the largest budget it was built for."""

from __future__ import annotations

import pytest

from ioverify.dag import pyramid
from ioverify.encode import cnf, pebbling
from ioverify.errors import InternalError
from ioverify.search import pebbling as search
from ioverify.solve import backends
from ioverify.verdict import Optimal

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


# --- the work budget: reproducible, and never a proof when it runs out ---------------------------

# matmul(2,2,2), M = 4, one-shot, Z3 encodings only: the proof needs a few million units of work
# per solver call (measured: settled from rlimit 8e6 with Glucose, 12e6 with Z3 alone), so 1000
# stops the first call.
