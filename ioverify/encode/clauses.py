"""The one-shot pebbling encoding as a canonical CNF, for clausal proofs (docs/explanation/proofs.md).

``one_shot_dimacs(dag, M, budget)`` builds the search's own Z3 encoding
(``ioverify.encode.pebbling.encode``, one-shot, one step per needed compute, no symmetry
breaking) and its I/O budget (``limit_io``), and turns the constraints into clauses by a fixed,
documented construction instead of Z3's tactics, so that the trusted re-encoder
(``ioverify.certificate.reencode``), written from the rules alone, can derive the very same
clauses:

* a Boolean constraint becomes its conjunctive normal form by pushing negations to the leaves
  and distributing disjunction over conjunction (``a == b`` is ``a -> b`` and ``b -> a``);
* "at most k" (``AtMost``, ``PbLe`` and the upper half of ``PbEq`` with unit coefficients) is
  Sinz's sequential counter over the literals sorted by name, with auxiliaries
  ``q<k>_<h>_<i>_<j>``, ``h`` the first 12 hex digits of the SHA-256 of the sorted literal
  names (``~`` marks a negated one) followed by ``<=k``; "at least one" is one clause;
* variables are numbered in the sorted order of the names that occur; each clause is sorted by
  variable, tautologies dropped, and the set of clauses sorted.

Nothing here is trusted: the checker re-derives the CNF and compares.
"""

from __future__ import annotations

import hashlib
import itertools

from ioverify.dag.model import DAG
from ioverify.encode import pebbling
from ioverify.errors import InternalError
from ioverify.game.rules import ONE_SHOT
from ioverify.solve.query import z3


def one_shot_clauses(dag: DAG, memory: int, budget: int) -> tuple[list[str], list[list[int]]]:
    """The names (variable i + 1 is ``names[i]``) and canonical clauses of the one-shot query
    with I/O at most ``budget``."""
    steps = sum(1 for v in dag.useful if not dag.is_input[v])
    enc = pebbling.encode(dag, memory, ONE_SHOT, steps)
    named = []
    for constraint in [*enc.constraints, pebbling.limit_io(enc, budget)]:
        named += constraint_clauses(constraint)
    return _canonical(named)


def one_shot_rule_clauses(dag: DAG, memory: int) -> tuple[list[str], list[list[int]], list[str]]:
    """The one-shot query of ``one_shot_clauses`` without the I/O budget: the names and
    canonical clauses of every rule of the game with the exact horizon (the hard part of a MaxSAT
    formulation, ``ioverify bench maxsat``), and the names of the load and store variables whose
    count is the I/O.  Every one-shot schedule of I/O b gives a model with at most b of them
    true, so a lower bound on that count is one on the one-shot optimum."""
    steps = sum(1 for v in dag.useful if not dag.is_input[v])
    enc = pebbling.encode(dag, memory, ONE_SHOT, steps)
    named = []
    for constraint in enc.constraints:
        named += constraint_clauses(constraint)
    names, clauses = _canonical(named)
    return names, clauses, [str(c) for c in enc.cost]


def one_shot_dimacs(dag: DAG, memory: int, budget: int) -> str:
    """The DIMACS text of ``one_shot_clauses``."""
    return dimacs(*one_shot_clauses(dag, memory, budget))


def dimacs(names, clauses) -> str:
    """DIMACS text, each variable's name in a ``c var`` comment."""
    lines = ["c ioverify one-shot pebbling query (docs/explanation/proofs.md)"]
    lines += [f"c var {i} {name}" for i, name in enumerate(names, 1)]
    lines.append(f"p cnf {len(names)} {len(clauses)}")
    lines += [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(lines) + "\n"


def constraint_clauses(e) -> list[tuple]:
    """The clauses of one constraint, over (name, polarity) literals."""
    z = z3()
    kind = e.decl().kind()
    if kind in (z.Z3_OP_PB_AT_MOST, z.Z3_OP_PB_LE, z.Z3_OP_PB_EQ):
        return _pseudo_boolean(e, kind)
    return [tuple(c) for c in _cnf(e, True)]


def _pseudo_boolean(e, kind) -> list[tuple]:
    z = z3()
    params = e.decl().params()
    if kind != z.Z3_OP_PB_AT_MOST and any(c != 1 for c in params[1:]):
        raise InternalError(f"a pseudo-Boolean constraint with a coefficient other than 1: {e}")
    lits = [_literal(e.arg(i)) for i in range(e.num_args())]
    out = _sequential_counter(params[0], lits)
    if kind == z.Z3_OP_PB_EQ:
        if params[0] != 1:
            raise InternalError(f"an equality other than 'exactly one': {e}")
        out.append(tuple(lits))
    return out


def _literal(e):
    z = z3()
    if z.is_not(e):
        name, pos = _literal(e.arg(0))
        return name, not pos
    if z.is_const(e) and e.decl().kind() == z.Z3_OP_UNINTERPRETED:
        return str(e), True
    raise InternalError(f"expected a literal, got {e}")


def _cnf(e, positive: bool) -> list[list]:
    """CNF of ``e`` (or of its negation) by negation normal form and distribution."""
    z = z3()
    if z.is_not(e):
        return _cnf(e.arg(0), not positive)
    args = [e.arg(i) for i in range(e.num_args())]
    if z.is_implies(e):
        return _cnf(z.Or(z.Not(args[0]), args[1]), positive)
    if z.is_eq(e):
        a, b = args
        both = z.And(z.Implies(a, b), z.Implies(b, a))
        return _cnf(both, positive)
    conj = z.is_and(e) if positive else z.is_or(e)
    disj = z.is_or(e) if positive else z.is_and(e)
    if conj:
        return [c for a in args for c in _cnf(a, positive)]
    if disj:
        parts = [_cnf(a, positive) for a in args]
        return [[lit for c in combo for lit in c] for combo in itertools.product(*parts)]
    name, pos = _literal(e)
    return [[(name, pos == positive)]]


def _sequential_counter(k: int, lits) -> list[tuple]:
    xs = sorted(lits)
    n = len(xs)
    if k >= n:
        return []
    if k == 0:
        return [((name, not pos),) for name, pos in xs]
    key = ",".join(name + ("" if pos else "~") for name, pos in xs) + f"<={k}"
    tag = "q%d_%s" % (k, hashlib.sha256(key.encode()).hexdigest()[:12])

    def aux(i, j, pos=True):
        return (f"{tag}_{i}_{j}", pos)

    def no(lit):
        return (lit[0], not lit[1])

    out = [(no(xs[0]), aux(1, 1))]
    out += [(aux(1, j, False),) for j in range(2, k + 1)]
    for i in range(2, n):
        xi = no(xs[i - 1])
        out += [(xi, aux(i, 1)), (aux(i - 1, 1, False), aux(i, 1))]
        for j in range(2, k + 1):
            out += [(xi, aux(i - 1, j - 1, False), aux(i, j)), (aux(i - 1, j, False), aux(i, j))]
        out.append((xi, aux(i - 1, k, False)))
    out.append((no(xs[-1]), aux(n - 1, k, False)))
    return out


def _canonical(named) -> tuple[list[str], list[list[int]]]:
    names = sorted({name for clause in named for name, _ in clause})
    index = {name: i + 1 for i, name in enumerate(names)}
    seen = set()
    for clause in named:
        lits = sorted({index[n] if p else -index[n] for n, p in clause}, key=lambda v: (abs(v), v))
        if all(-v not in lits for v in lits):
            seen.add(tuple(lits))
    return names, [list(c) for c in sorted(seen)]
