"""Z3's CNF of the pebbling encoding, for the SAT back end (``ioverify.solve.backends``): Z3
bit-blasts the constraints with its own tactics (``card2bv``, ``bit-blast``, ``tseitin-cnf``, no
simplification that could eliminate a variable) and every named Boolean keeps its DIMACS number.
"""

from __future__ import annotations

from ioverify.errors import InternalError
from ioverify.solve.query import z3


def to_cnf(ctx, constraints) -> tuple[list[list[int]], int, dict[str, int]]:
    """Clauses, number of variables and the DIMACS number of every named Boolean, by Z3's
    tactics only (so the CNF is equisatisfiable with ``constraints`` by Z3's own guarantee)."""
    z = z3()
    goal = z.Goal(ctx=ctx)
    goal.add(*constraints)
    result = z.Then("card2bv", "bit-blast", "tseitin-cnf", ctx=ctx)(goal)
    if len(result) != 1:
        raise InternalError(f"CNF conversion gave {len(result)} subgoals, expected one")
    clauses, names, nvars = [], {}, 0
    for line in result[0].dimacs(include_names=True).splitlines():
        if line.startswith("p cnf"):
            nvars = int(line.split()[2])
        elif line.startswith("c "):
            _, number, name = line.split(maxsplit=2)
            names[name] = int(number)
        elif line.strip():
            clauses.append([int(x) for x in line.split()[:-1]])
    return clauses, nvars, names
