"""The S-partition checker (Hong & Kung, STOC 1981, section 3; docs/theory.md §2).

Part of the trusted base: pure Python, exact integers, no Z3.  A partition ``V_1 .. V_h`` of a DAG is
an *S-partition* when

1. ``cover``: the parts are non-empty, pairwise disjoint and cover every vertex;
2. ``dominator``: each part ``W`` has a dominator of at most S vertices, i.e. a set D meeting every
   path from an input to a vertex of W, paths of length 0 included (so inputs in W lie in D).
   The smallest one is a minimum vertex cut between the inputs and W (Menger), computed here by
   unit-capacity max-flow on the vertex-split graph;
3. ``minimum-set``: the vertices of W with no successor in W number at most S;
4. ``acyclic``: no cyclic dependence between parts (equivalently the parts can be numbered so every
   edge goes from V_i to V_j with i <= j).

The checker tests the conditions in that order and names the first part and condition that fails.
The partition lemma (Hong-Kung Thm 3.1 / Lemma 3.1, machine-checked in Lean) turns the least number
of parts P(2M) of a 2M-partition into the lower bound ``Q >= M * (P(2M) - 1)`` on the I/O of any
complete calculation with M red pebbles, recomputation allowed: ``partition_lower_bound``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable, Sequence

from ioverify._check import integer
from ioverify.dag.model import DAG
from ioverify.errors import InternalError, InvalidArgument
from ioverify.game.flow import FlowNetwork

CONDITIONS = ("cover", "dominator", "minimum-set", "acyclic")


@dataclass(frozen=True)
class PartitionCheck:
    """The checker's answer: ``ok``, or the first failing ``part`` (index into the given parts, None
    when the failure belongs to no single part) and ``condition`` (one of CONDITIONS)."""

    ok: bool
    part: int | None = None
    condition: str | None = None
    message: str = ""


def check_partition(dag: DAG, S: int, parts: Sequence[Iterable[int]]) -> PartitionCheck:
    """Check that ``parts`` (lists of vertex ids) is an S-partition of ``dag``."""
    S = _check_size(S)
    parts = _normalise(dag, parts)
    for condition in (_cover, _dominator_sizes, _minimum_set_sizes, _no_cyclic_dependence):
        failure = condition(dag, S, parts)
        if failure is not None:
            return failure
    return PartitionCheck(True, message=f"a valid {S}-partition with {len(parts)} parts")


def partition_lower_bound(memory: int, parts: int) -> int:
    """Hong-Kung Lemma 3.1: a calculation with M red pebbles and a 2M-partition needing at least
    ``parts`` parts costs at least ``M * (parts - 1)`` I/O."""
    return integer("memory", memory, 1) * (integer("parts", parts, 1) - 1)


def parts_from_names(dag: DAG, parts: Sequence[Sequence[str]]) -> list[list[int]]:
    """Translate parts given as node names into vertex ids (unknown names raise InvalidDAG)."""
    return [[dag.vertex(name) for name in part] for part in parts]


def parts_to_names(dag: DAG, parts: Sequence[Iterable[int]]) -> list[list[str]]:
    return [[dag.names[v] for v in sorted(part)] for part in parts]


# --- the four conditions ------------------------------------------------------------------------


def _cover(dag: DAG, S: int, parts: list[list[int]]) -> PartitionCheck | None:
    """Condition 1: non-empty, pairwise disjoint parts covering V."""
    owner: dict[int, int] = {}
    for i, part in enumerate(parts):
        if not part:
            return PartitionCheck(False, i, "cover", f"part {i} is empty")
        for v in part:
            if v in owner:
                return PartitionCheck(False, i, "cover", f"vertex {dag.names[v]!r} is in part "
                                                         f"{owner[v]} and in part {i}")
            owner[v] = i
    for v in range(len(dag)):
        if v not in owner:
            return PartitionCheck(False, None, "cover", f"vertex {dag.names[v]!r} is in no part")
    return None


def _dominator_sizes(dag: DAG, S: int, parts: list[list[int]]) -> PartitionCheck | None:
    """Condition 2: every part has a dominator of at most S vertices (minimum vertex cut).  A
    part of at most S vertices is its own dominator (every path into it ends in it): no cut is
    computed for it, which keeps a witness of many small parts cheap to check (the cut of a
    part costs time in proportion to its ancestors)."""
    for i, part in enumerate(parts):
        if len(part) <= S:
            continue
        size = _vertex_cut(dag, part, limit=S + 1)[0]
        if size > S:
            return PartitionCheck(False, i, "dominator",
                                  f"part {i}: every dominator has at least {size} vertices "
                                  f"(vertex-disjoint paths from the inputs), S = {S}")
    return None


def _minimum_set_sizes(dag: DAG, S: int, parts: list[list[int]]) -> PartitionCheck | None:
    """Condition 3: every part's minimum set (vertices with no successor in the part) has <= S."""
    for i, part in enumerate(parts):
        minimum = minimum_set(dag, part)
        if len(minimum) > S:
            return PartitionCheck(False, i, "minimum-set",
                                  f"part {i}: minimum set has {len(minimum)} vertices, S = {S}")
    return None


def _no_cyclic_dependence(dag: DAG, S: int, parts: list[list[int]]) -> PartitionCheck | None:
    """Condition 4: the quotient graph of the parts is acyclic (Kahn's algorithm)."""
    owner = {v: i for i, part in enumerate(parts) for v in part}
    after: list[set[int]] = [set() for _ in parts]
    before: list[set[int]] = [set() for _ in parts]
    for u, v in dag.edges():
        if owner[u] != owner[v]:
            after[owner[u]].add(owner[v])
            before[owner[v]].add(owner[u])
    indegree = [len(b) for b in before]
    ready = deque(i for i, d in enumerate(indegree) if d == 0)
    removed = 0
    while ready:
        i = ready.popleft()
        removed += 1
        for j in after[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                ready.append(j)
    if removed == len(parts):
        return None
    cycle = _a_cycle(before, [d > 0 for d in indegree])
    start = min(cycle)
    k = cycle.index(start)
    cycle = cycle[k:] + cycle[:k]
    path = " -> ".join(str(j) for j in cycle + [start])
    return PartitionCheck(False, start, "acyclic",
                          f"part {start} depends on itself through parts {path}")


def _a_cycle(before: list[set[int]], left: list[bool]) -> list[int]:
    """A cycle among the parts Kahn's algorithm left: each has a predecessor that is also left, so
    walking backwards must repeat a part.  Returned in edge direction."""
    i = left.index(True)
    seen: dict[int, int] = {}
    walk: list[int] = []
    while i not in seen:
        seen[i] = len(walk)
        walk.append(i)
        i = min(j for j in before[i] if left[j])
    return list(reversed(walk[seen[i]:]))


# --- dominators and minimum sets ----------------------------------------------------------------


def minimum_set(dag: DAG, part: Iterable[int]) -> set[int]:
    """The vertices of ``part`` with no successor in ``part``."""
    members = set(part)
    return {v for v in members if not any(w in members for w in dag.succs[v])}


def min_dominator(dag: DAG, part: Iterable[int]) -> set[int]:
    """A dominator of ``part`` of least size: a minimum vertex cut between the inputs and the part,
    inputs inside the part counted.  Its minimality is witnessed by as many vertex-disjoint
    input-to-part paths (max-flow = min-cut), and it is re-checked to dominate before it is returned."""
    members = _normalise(dag, [part])[0]
    if not members:
        raise InvalidArgument("part must not be empty")
    size, cut = _vertex_cut(dag, members, limit=None)
    if len(cut) != size or not dominates(dag, cut, members):
        raise InternalError(f"minimum vertex cut {sorted(cut)} does not dominate the part")
    return cut


def dominator_size(dag: DAG, part: Iterable[int], *, limit: int | None = None) -> int:
    """The size of a least dominator of ``part``; with ``limit``, counting stops there (a result
    ``>= limit`` means "at least limit")."""
    members = _normalise(dag, [part])[0]
    return _vertex_cut(dag, members, limit=limit)[0]


def dominates(dag: DAG, D: Iterable[int], part: Iterable[int]) -> bool:
    """True iff every path from an input to a vertex of ``part`` meets ``D`` (length 0 included):
    the vertices reachable from the inputs without entering D avoid the part."""
    blocked, members = set(D), set(part)
    reached = [False] * len(dag)
    for v in range(len(dag)):  # topological order
        if v not in blocked:
            reached[v] = dag.is_input[v] == 1 or any(reached[p] for p in dag.preds[v])
    return not any(reached[v] for v in members)


def _vertex_cut(dag: DAG, part: Sequence[int], limit: int | None) -> tuple[int, set[int]]:
    """Max-flow from the inputs to ``part`` with capacity 1 on every vertex (vertex v split into
    in-node 2v and out-node 2v+1, source and sink added).  Returns (flow, cut); the cut is exact
    only when the flow stopped below ``limit`` (or limit is None)."""
    net = _split_network(dag, part)
    flow = 0
    while (limit is None or flow < limit) and net.augment():
        flow += 1
    if limit is not None and flow >= limit:
        return flow, set()
    return flow, net.cut_vertices()


def _split_network(dag: DAG, part: Sequence[int]) -> FlowNetwork:
    """Vertex v split into in-node 2v and out-node 2v+1 (capacity 1 between them), the
    source before the inputs and the sink after ``part``, over ``part``'s ancestors."""
    n = len(dag)
    net = FlowNetwork(2 * n + 2, 2 * n, 2 * n + 1)
    for v in _ancestors(dag, part):
        net.add(2 * v, 2 * v + 1, 1)
        if dag.is_input[v]:
            net.add(net.source, 2 * v, FlowNetwork.INF)
        for p in dag.preds[v]:
            net.add(2 * p + 1, 2 * v, FlowNetwork.INF)
    for w in part:
        net.add(2 * w + 1, net.sink, FlowNetwork.INF)
    return net


def _ancestors(dag: DAG, part: Iterable[int]) -> list[int]:
    """The part and every vertex with a path into it, in topological order."""
    mark = [False] * len(dag)
    stack = list(part)
    for v in stack:
        mark[v] = True
    while stack:
        for p in dag.preds[stack.pop()]:
            if not mark[p]:
                mark[p] = True
                stack.append(p)
    return [v for v in range(len(dag)) if mark[v]]


# --- argument checks ----------------------------------------------------------------------------


def _check_size(S: int) -> int:
    return integer("S", S, 1)


def _normalise(dag: DAG, parts: Sequence[Iterable[int]]) -> list[list[int]]:
    """Parts as lists of vertex ids; a part repeating a vertex keeps it once (a repeat inside one
    part is not a cover violation).  Anything that is not a vertex id raises InvalidArgument."""
    if isinstance(parts, (str, bytes)) or not hasattr(parts, "__iter__"):
        raise InvalidArgument(f"parts must be a list of lists of vertex ids, got {parts!r}")
    out = []
    for i, part in enumerate(parts):
        if isinstance(part, (str, bytes)) or not hasattr(part, "__iter__"):
            raise InvalidArgument(f"part {i} must be a list of vertex ids, got {part!r}")
        members = []
        for v in part:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < len(dag):
                raise InvalidArgument(f"part {i}: {v!r} is not a vertex id (0..{len(dag) - 1})")
            members.append(v)
        out.append(sorted(set(members)))
    return out


def core_dag(dag: DAG) -> DAG:
    """``dag.core``: the vertices with a path to an output, where the lemma is applied (see
    ``DAG.core`` for why); a DAG without outputs needs no calculation and is refused."""
    if not dag.outputs:
        raise InvalidArgument("the DAG has no outputs: no calculation is needed, nothing to bound")
    return dag.core
