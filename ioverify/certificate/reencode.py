"""The one-shot query as clauses, re-derived from the rules alone (trusted; docs/explanation/proofs.md).

``one_shot_cnf(dag, M, budget)`` writes the question "is there a one-shot schedule of ``dag``
with ``M`` red pebbles and at most ``budget`` loads plus stores?" as a CNF, from the rules of
docs/explanation/game.md and the normal forms that keep every schedule (listed below, one
function each).  It imports no encoder and no solver: the certificate checker compares the CNF a
search stored with this one, clause for clause, before checking its proof of unsatisfiability.

The state is kept per *compute step*: with N = the needed non-input vertices, step t < N is a
phase of deletes and loads leaving the red set, then exactly one compute, whose vertex may be
stored at once.  Every one-shot schedule of I/O <= b gives a model (deletes first, loads last and
just in time, stores right after the compute; none of these moves raises the red count or the
I/O), so "unsatisfiable" proves the one-shot optimum exceeds b.

Variables are named (``x_t_v`` v computed at step t; ``r_t_u`` u red at the compute of step t;
``l_t_u`` u loaded in phase t; ``s_t`` the compute of step t stored; ``b_t_u`` u blue at the
start of step t; ``d_t_u`` u computed before step t), and numbered 1, 2, ... in the sorted order
of the names that occur in a clause.  "At most k of these literals" is Sinz's sequential counter
over the literals sorted by name, its auxiliaries ``q<k>_<h>_<i>_<j>`` ("at least j of the first
i are true"; h: the first 12 hex digits of the SHA-256 of the sorted names and k).  A clause is
its set of literals sorted by variable number, a tautology is dropped, and the clauses are the
sorted set: the canonical form both writer and checker derive.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ioverify.dag.model import DAG


@dataclass(frozen=True)
class Cnf:
    """A canonical CNF: ``clauses`` (sorted tuples of DIMACS literals, sorted) over ``names``
    (variable i + 1 is ``names[i]``)."""

    names: tuple[str, ...]
    clauses: tuple[tuple[int, ...], ...]

    def dimacs(self) -> str:
        """The DIMACS text, with one ``c var NUMBER NAME`` comment per variable."""
        lines = ["c ioverify one-shot pebbling query (docs/explanation/proofs.md)"]
        lines += [f"c var {i} {name}" for i, name in enumerate(self.names, 1)]
        lines.append(f"p cnf {len(self.names)} {len(self.clauses)}")
        lines += [" ".join(map(str, clause)) + " 0" for clause in self.clauses]
        return "\n".join(lines) + "\n"


def one_shot_cnf(dag: DAG, memory: int, budget: int) -> Cnf:
    """The canonical CNF of the one-shot query at ``memory`` and I/O ``budget``."""
    q = _Query(dag)
    rules = (one_compute_per_step, every_vertex_computed_once, compute_needs_predecessors,
             compute_needs_no_red, capacity, red_needs_a_source, load_needs_blue,
             blue_needs_a_store, outputs_end_blue, load_only_what_is_missing,
             load_just_in_time, every_input_loaded, done_records_the_computes,
             red_only_while_needed, computes_in_topological_order, delete_only_after_use)
    clauses: list[tuple] = []
    for rule in rules:
        clauses += rule(q, memory) if rule is capacity else rule(q)
    clauses += at_most(budget, q.cost())  # the I/O budget: loads + stores <= budget
    return canonical(clauses)


class _Query:
    """The vertices and step counts of the query; literals are (name, polarity) pairs."""

    def __init__(self, dag: DAG):
        self.dag = dag
        self.V = dag.useful  # ancestors of the outputs, outputs included
        self.C = tuple(v for v in self.V if not dag.is_input[v])  # the computes
        self.K = len(self.C)
        self.steps = range(self.K)
        computes = set(self.C)
        self.succ = {u: [s for s in dag.succs[u] if s in computes] for u in self.V}

    def cost(self):
        return [l(t, u) for t in self.steps for u in self.V] + [s(t) for t in self.steps]


def _lit(name: str, positive: bool = True):
    return (name, positive)


def x(t, v):
    return _lit(f"x_{t}_{v}")


def r(t, u):
    return _lit(f"r_{t}_{u}")


def l(t, u):  # noqa: E741 - the load variable
    return _lit(f"l_{t}_{u}")


def s(t):
    return _lit(f"s_{t}")


def b(t, u):
    return _lit(f"b_{t}_{u}")


def d(t, u):
    return _lit(f"d_{t}_{u}")


def neg(lit):
    return (lit[0], not lit[1])


# --- the rules (docs/explanation/game.md), one function each ------------------------------------

def one_compute_per_step(q):
    # Moves are sequential: at most one compute per step, and one-shot, at least one.
    out = []
    for t in q.steps:
        out += at_most(1, [x(t, v) for v in q.C])
        out.append(tuple(x(t, v) for v in q.C))
    return out


def every_vertex_computed_once(q):
    # One-shot: every needed non-input vertex is computed exactly once.
    out = []
    for v in q.C:
        out.append(tuple(x(t, v) for t in q.steps))
        out += at_most(1, [x(t, v) for t in q.steps])
    return out


def compute_needs_predecessors(q):
    # "compute v": every predecessor of v is red.
    return [(neg(x(t, v)), r(t, p)) for t in q.steps for v in q.C for p in q.dag.preds[v]]


def compute_needs_no_red(q):
    # "compute v": v is not red.
    return [(neg(x(t, v)), neg(r(t, v))) for t in q.steps for v in q.C]


def capacity(q, memory):
    # At most M red pebbles, counting the one the compute places.
    out = []
    for t in q.steps:
        out += at_most(memory, [r(t, u) for u in q.V] + [x(t, v) for v in q.C])
    return out


def red_needs_a_source(q):
    # "load"/"compute": red now means red before, computed at the previous step, or loaded.
    out = []
    for t in q.steps:
        for u in q.V:
            sources = [l(t, u)]
            if t > 0:
                sources.append(r(t - 1, u))
                if not q.dag.is_input[u]:
                    sources.append(x(t - 1, u))
            out.append((neg(r(t, u)), *sources))
    return out


def load_needs_blue(q):
    # "load v": v is blue (inputs always are).
    return [(neg(l(t, u)), b(t, u)) for t in q.steps for u in q.C]


def blue_needs_a_store(q):
    # "store v": a non-input is blue only once a compute of it was stored (stored at once: never
    # worse, since the store needs it red and only makes it blue earlier).
    out = [(neg(b(0, u)),) for u in q.C]
    for t in range(1, q.K + 1):
        for u in q.C:
            out.append((neg(b(t, u)), b(t - 1, u), x(t - 1, u)))
            out.append((neg(b(t, u)), b(t - 1, u), s(t - 1)))
    return out


def outputs_end_blue(q):
    # The goal: every output is blue at the end.
    return [(b(q.K, o),) for o in q.dag.outputs]


def load_only_what_is_missing(q):
    # A load makes its vertex red, and only one that was neither red nor just computed.
    out = []
    for t in q.steps:
        for u in q.V:
            out.append((neg(l(t, u)), r(t, u)))
            if t > 0:
                out.append((neg(l(t, u)), neg(r(t - 1, u))))
                if not q.dag.is_input[u]:
                    out.append((neg(l(t, u)), neg(x(t - 1, u))))
    return out


def load_just_in_time(q):
    # Normal form: a load happens in the phase of a compute that uses it (postponing a load
    # only lowers the red count in between).
    return [(neg(l(t, u)), *[x(t, v) for v in q.succ[u]]) for t in q.steps for u in q.V]


def every_input_loaded(q):
    # Implied: every needed input is loaded at least once.
    return [tuple(l(t, u) for t in q.steps) for u in q.V if q.dag.is_input[u]]


def done_records_the_computes(q):
    # d_t_v: v was computed before step t.
    out = [(neg(d(0, v)),) for v in q.C]
    for t in q.steps:
        for v in q.C:
            out += [(neg(d(t + 1, v)), d(t, v), x(t, v)), (neg(d(t, v)), d(t + 1, v)),
                    (neg(x(t, v)), d(t + 1, v))]
    return out


def red_only_while_needed(q):
    # Normal form: a red pebble is kept only while a successor is still to be computed
    # (deleting a pebble never used again never hurts).
    return [(neg(r(t, u)), *[neg(d(t, v)) for v in q.succ[u]]) for t in q.steps for u in q.V]


def computes_in_topological_order(q):
    # Implied: v is computed after every non-input predecessor.
    return [(neg(x(t, v)), d(t, p)) for t in q.steps for v in q.C for p in q.dag.preds[v]
            if not q.dag.is_input[p]]


def delete_only_after_use(q):
    # Normal form: a red pebble not used by this step's compute is still red at the next one
    # (a deletion moves to the phase before its next load), and a computed vertex stays red
    # into the next step unless it is stored at once.
    out = []
    for t in q.steps:
        for u in q.V:
            keep = [r(t + 1, u)] if t + 1 < q.K else []
            out.append((neg(r(t, u)), *[x(t, v) for v in q.succ[u]], *keep))
            if not q.dag.is_input[u]:
                out.append((neg(x(t, u)), s(t), *keep))
    return out


# --- at most k (Sinz's sequential counter) -------------------------------------------------------

def at_most(k: int, lits) -> list[tuple]:
    """Clauses saying at most ``k`` of ``lits`` are true: Sinz's sequential counter over the
    literals sorted by name (module docstring); none when k >= len(lits)."""
    xs = sorted(lits)
    n = len(xs)
    if k >= n:
        return []
    if k == 0:
        return [(neg(lit),) for lit in xs]
    key = ",".join(f"{name}{'' if pos else '~'}" for name, pos in xs) + f"<={k}"
    tag = f"q{k}_{hashlib.sha256(key.encode()).hexdigest()[:12]}"

    def c(i, j):  # at least j of the first i literals (1-based) are true
        return _lit(f"{tag}_{i}_{j}")

    out = [(neg(xs[0]), c(1, 1))] + [(neg(c(1, j)),) for j in range(2, k + 1)]
    for i in range(2, n):
        out += [(neg(xs[i - 1]), c(i, 1)), (neg(c(i - 1, 1)), c(i, 1))]
        for j in range(2, k + 1):
            out += [(neg(xs[i - 1]), neg(c(i - 1, j - 1)), c(i, j)),
                    (neg(c(i - 1, j)), c(i, j))]
        out.append((neg(xs[i - 1]), neg(c(i - 1, k))))
    out.append((neg(xs[n - 1]), neg(c(n - 1, k))))
    return out


# --- the canonical form --------------------------------------------------------------------------

def canonical(clauses) -> Cnf:
    """Number the names that occur in sorted order; sort each clause, drop tautologies, sort
    the set of clauses."""
    names = sorted({name for clause in clauses for name, _ in clause})
    number = {name: i for i, name in enumerate(names, 1)}
    out = set()
    for clause in clauses:
        lits = {number[name] if pos else -number[name] for name, pos in clause}
        if not any(-lit in lits for lit in lits):
            out.add(tuple(sorted(lits, key=lambda lit: (abs(lit), lit))))
    return Cnf(tuple(names), tuple(sorted(out)))
