"""Z3's CNF of the pebbling encoding, for the SAT back end (``ioverify.solve.backends``): Z3
bit-blasts the constraints with its own tactics (``card2bv``, ``bit-blast``, ``tseitin-cnf``, no
simplification that could eliminate a variable) and every named Boolean keeps its DIMACS number.
"""

from __future__ import annotations

import time

from ioverify.errors import DeadlineReached, InternalError
from ioverify.solve.query import z3

CHUNK = 10_000  # constraints added, or DIMACS lines read, between two looks at the clock


def to_cnf(ctx, constraints, deadline: float | None = None
           ) -> tuple[list[list[int]], int, dict[str, int]]:
    """Clauses, number of variables and the DIMACS number of every named Boolean, by Z3's
    tactics only (so the CNF is equisatisfiable with ``constraints`` by Z3's own guarantee).
    ``deadline`` (a ``time.monotonic()`` value): past it, ``DeadlineReached``; the tactics run
    under Z3's own time limit for what is left (a large encoding takes minutes here)."""
    z = z3()
    goal = z.Goal(ctx=ctx)
    for i in range(0, len(constraints), CHUNK):
        _check(deadline)
        goal.add(*constraints[i:i + CHUNK])
    tactic = z.Then("card2bv", "bit-blast", "tseitin-cnf", ctx=ctx)
    if deadline is not None:
        tactic = z.TryFor(tactic, max(1, int(1000 * (deadline - time.monotonic()))), ctx=ctx)
    try:
        result = tactic(goal)
    except z.Z3Exception as error:
        # the time limit stopped the tactic; Z3 may cancel a few milliseconds before the
        # deadline by this clock (its limit is whole milliseconds), so "canceled" counts too
        if deadline is not None and "canceled" in str(error):
            raise DeadlineReached("timeout while converting the pebbling encoding to CNF") \
                from None
        _check(deadline)
        raise
    if len(result) != 1:
        raise InternalError(f"CNF conversion gave {len(result)} subgoals, expected one")
    return _read_dimacs(result[0].dimacs(include_names=True), deadline)


def _read_dimacs(text: str, deadline: float | None):
    """Clauses, number of variables and names of a DIMACS text with Z3's ``c NUMBER NAME``
    comments."""
    clauses, names, nvars = [], {}, 0
    for i, line in enumerate(text.splitlines()):
        if i % CHUNK == 0:
            _check(deadline)
        if line.startswith("p cnf"):
            nvars = int(line.split()[2])
        elif line.startswith("c "):
            _, number, name = line.split(maxsplit=2)
            names[name] = int(number)
        elif line.strip():
            clauses.append([int(x) for x in line.split()[:-1]])
    return clauses, nvars, names


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise DeadlineReached("timeout while converting the pebbling encoding to CNF")
