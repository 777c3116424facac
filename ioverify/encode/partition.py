"""An S-partition with at most h parts, as a Z3 query (Hong & Kung 1981, section 3;
docs/theory.md §2).

Variables, for vertices v and part numbers j = 0 .. h-1:

- the part index p(v), in order encoding: ``level[v][j]`` is "p(v) >= j" (``level[v][0]`` is true,
  ``level[v][h]`` false), so p(v) = j is ``level[v][j] and not level[v][j+1]``;
- ``dom[j][v]``: v belongs to the dominator D_j chosen for part j;
- ``open_[j][v]``: v is reachable from an input along a path that avoids D_j ("unblocked");
- ``least[j][v]``: v is in the minimum set of part j.

Each condition of the definition is one function below.  The encoding is exact, not an
approximation: every model decodes to an S-partition (the decoder's output is re-checked by the
independent checker ``ioverify.game.partition`` anyway), and every S-partition with at most h parts,
numbered in a topological order of its parts, gives a model (choose D_j a minimum dominator and
``open_`` the true unblocked-reachable set).  The reachability is encoded by closure implications
only; because any set closed under them contains the true unblocked-reachable set, forbidding
``open_`` on part j forces D_j to meet every input-to-part path (soundness), and the true set
satisfies them (completeness).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ioverify._check import integer
from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached, InvalidArgument
from ioverify.solve.query import Query


@dataclass
class PartitionEncoding:
    """A Z3 query for an S-partition of ``dag`` with at most ``h`` parts; ``at_most(k)`` gives the
    assumption restricting it to at most k <= h parts."""

    dag: DAG
    S: int
    h: int
    query: Query
    level: list[list[Any]]
    guards: dict[int, Any] = field(default_factory=dict)

    def at_most(self, k: int):
        """An assumption literal meaning "no vertex has part index >= k" (so at most k parts)."""
        if not 1 <= k <= self.h:
            raise InvalidArgument(f"parts must be between 1 and {self.h}, got {k}")
        if k == self.h:
            return self.z.BoolVal(True, self.query.ctx)
        if k not in self.guards:
            guard = self.z.Bool(f"at_most_{k}", self.query.ctx)
            for v in range(len(self.dag)):
                self.query.solver.add(self.z.Implies(guard, self.z.Not(self.level[v][k])))
            self.guards[k] = guard
        return self.guards[k]

    @property
    def z(self):
        from ioverify.solve.query import z3

        return z3()

    def check(self, k: int, timeout_ms: int | None = None) -> str:
        """``"sat"``, ``"unsat"`` or ``"unknown"`` for "an S-partition with at most k parts"."""
        if timeout_ms is not None:
            self.query.solver.set("timeout", max(1, int(timeout_ms)))
        return self.query.check(self.at_most(k))

    def decode(self) -> list[list[int]]:
        """The model's partition: non-empty parts in order of their index."""
        model = self.query.model()
        index = [sum(1 for j in range(1, self.h) if self.z.is_true(
            model.eval(self.level[v][j], model_completion=True))) for v in range(len(self.dag))]
        parts: list[list[int]] = [[] for _ in range(self.h)]
        for v, j in enumerate(index):
            parts[j].append(v)
        return [part for part in parts if part]


def encode_partition(dag: DAG, S: int, h: int, *, seed: int = 0, rlimit: int | None = None,
                     timeout_ms: int | None = None,
                     deadline: float | None = None) -> PartitionEncoding:
    """Build the query: the four conditions of an S-partition with at most ``h`` parts.
    ``deadline`` (a ``time.monotonic()`` value): the clock is read before every constraint,
    and ``DeadlineReached`` raised once it has passed (on a pyramid of 1,081 vertices, with
    h = 131, the build takes over a minute)."""
    integer("S", S, 1)
    integer("h", h, 1)
    # QF_FD: Z3's SAT core with native cardinality constraints (much faster here than the default).
    query = Query(seed=seed, rlimit=rlimit, timeout_ms=timeout_ms, logic="QF_FD")
    z, ctx = query_z3(), query.ctx
    level = part_index_variables(z, ctx, _in_time(range(len(dag)), deadline), h)

    def add(constraints) -> None:
        for constraint in _in_time(constraints, deadline):
            query.solver.add(constraint)

    add(disjoint_cover(z, dag, level, h))
    add(no_cyclic_dependence(z, dag, level, h))
    for j in range(h):
        add(dominator_of_part(z, ctx, dag, level, j, S))
        add(minimum_set_of_part(z, ctx, dag, level, j, S))
    add(parts_numbered_without_gaps(z, dag, level, h))
    return PartitionEncoding(dag, S, h, query, level)


def _in_time(items, deadline: float | None):
    """``items``, with a look at the clock before each: ``DeadlineReached`` once ``deadline``
    (a ``time.monotonic()`` value, None for none) has passed."""
    for item in items:
        if deadline is not None and time.monotonic() >= deadline:
            raise DeadlineReached("timeout while building the partition encoding")
        yield item


def query_z3():
    from ioverify.solve.query import z3

    return z3()


def part_index_variables(z, ctx, vertices, h: int) -> list[list[Any]]:
    """``level[v][j]`` = "p(v) >= j" for j = 0..h, for v in ``vertices`` (0, 1, ...); the ends
    are the constants true and false."""
    true, false = z.BoolVal(True, ctx), z.BoolVal(False, ctx)
    return [[true] + [z.Bool(f"p{v}>={j}", ctx) for j in range(1, h)] + [false]
            for v in vertices]


def member(z, level, v: int, j: int):
    """p(v) = j."""
    return z.And(level[v][j], z.Not(level[v][j + 1]))


# The conditions are generators: the builder reads the clock between two constraints.

# Condition 1 (disjoint cover): every vertex has exactly one part index p(v) in 0..h-1.
def disjoint_cover(z, dag: DAG, level, h: int):
    return (z.Implies(level[v][j + 1], level[v][j])
            for v in range(len(dag)) for j in range(1, h - 1))


# Condition 4 (no cyclic dependence): parts numbered topologically, every edge u->v has p(u) <= p(v).
def no_cyclic_dependence(z, dag: DAG, level, h: int):
    return (z.Implies(level[u][j], level[v][j]) for u, v in dag.edges() for j in range(1, h))


# Condition 2 (dominator): a set D_j of <= S vertices meets every input-to-part-j path (length 0 too).
def dominator_of_part(z, ctx, dag: DAG, level, j: int, S: int):
    dom = [z.Bool(f"dom{j}_{v}", ctx) for v in range(len(dag))]
    open_ = [z.Bool(f"open{j}_{v}", ctx) for v in range(len(dag))]
    constraints = [z.AtMost(*dom, S)]
    for v in range(len(dag)):
        if dag.is_input[v]:  # an input outside D_j is reached by the path of length 0
            constraints.append(z.Or(dom[v], open_[v]))
        for p in dag.preds[v]:  # an unblocked path extends through v unless v is in D_j
            constraints.append(z.Implies(z.And(open_[p], z.Not(dom[v])), open_[v]))
        constraints.append(z.Implies(member(z, level, v, j), z.Not(open_[v])))
    return constraints


# Condition 3 (minimum set): at most S vertices of part j have no successor in part j.
def minimum_set_of_part(z, ctx, dag: DAG, level, j: int, S: int):
    least = [z.Bool(f"least{j}_{v}", ctx) for v in range(len(dag))]
    constraints = [z.AtMost(*least, S)]
    for v in range(len(dag)):
        no_successor_in_part = [z.Not(member(z, level, w, j)) for w in dag.succs[v]]
        constraints.append(z.Implies(z.And(member(z, level, v, j), *no_successor_in_part),
                                     least[v]))
    return constraints


# Symmetry breaking, not a condition: a part is empty only if every later part is (dropping empty
# parts and renumbering keeps all four conditions, so no S-partition is lost).
def parts_numbered_without_gaps(z, dag: DAG, level, h: int):
    before = None
    for j in range(h):
        nonempty = z.Or(*[member(z, level, v, j) for v in range(len(dag))])
        if before is not None:
            yield z.Implies(nonempty, before)
        before = nonempty
