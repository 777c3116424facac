"""The one canonical DAG type.

Vertices are the integers ``0 .. n-1`` in a topological order (every predecessor of ``v`` is less
than ``v``).  Each vertex has a unique name (used in JSON and in messages) and an operation label.
Inputs are exactly the vertices without predecessors; outputs are the sinks unless an explicit list
was given.  A ``DAG`` is immutable and built once at the boundary (JSON, edge lists, networkx,
families); everything inside ioverify takes only this type.
"""

from __future__ import annotations

from functools import cached_property
from typing import Iterable, Sequence

from ioverify.errors import InvalidDAG

INPUT_OP = "input"
# The most vertices a family builds (``DAGBuilder``): attention_forward(256,16), 4,271,872 of
# them, takes 9.4 s and 1 GB; past this a command asking for, say, attention_forward(100000,
# 100000) ran until the machine's memory was gone instead of answering.  The searches and
# kernels reach a few hundred thousand; the replayer is benchmarked on a million.
MAX_BUILT_VERTICES = 5_000_000


class DAG:
    """An immutable computation DAG in topological order.  Build it with ``DAG.from_edges`` or
    ``DAGBuilder``; the constructor trusts its (already validated) arguments."""

    __slots__ = ("names", "preds", "ops", "outputs", "__dict__")

    def __init__(self, names: tuple[str, ...], preds: tuple[tuple[int, ...], ...],
                 ops: tuple[str, ...], outputs: tuple[int, ...]):
        self.names = names
        self.preds = preds
        self.ops = ops
        self.outputs = outputs

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def from_edges(cls, nodes: Sequence[str], edges: Iterable[tuple[str, str]],
                   outputs: Sequence[str] | None = None,
                   ops: dict[str, str] | None = None) -> "DAG":
        """Validate names, edges, outputs and ops, sort topologically, and build the DAG."""
        index = _index_nodes(nodes)
        preds_by_name = _collect_edges(index, edges)
        order = _topological_order(list(index), preds_by_name)
        position = {name: i for i, name in enumerate(order)}
        preds = tuple(tuple(sorted(position[p] for p in preds_by_name[name])) for name in order)
        op_of = _check_ops(index, {} if ops is None else ops, preds_by_name)
        op_labels = tuple(op_of.get(name, INPUT_OP if not preds_by_name[name] else "op")
                          for name in order)
        out = _check_outputs(index, outputs, preds_by_name, position, preds)
        return cls(tuple(order), preds, op_labels, out)

    # --- derived views (computed once) --------------------------------------------------------

    def __len__(self) -> int:
        return len(self.names)

    @cached_property
    def succs(self) -> tuple[tuple[int, ...], ...]:
        out: list[list[int]] = [[] for _ in self.names]
        for v, ps in enumerate(self.preds):
            for p in ps:
                out[p].append(v)
        return tuple(tuple(s) for s in out)

    @cached_property
    def inputs(self) -> tuple[int, ...]:
        return tuple(v for v, ps in enumerate(self.preds) if not ps)

    @cached_property
    def is_input(self) -> bytes:
        return bytes(0 if ps else 1 for ps in self.preds)

    @cached_property
    def is_output(self) -> bytes:
        flags = bytearray(len(self.names))
        for v in self.outputs:
            flags[v] = 1
        return bytes(flags)

    @cached_property
    def index(self) -> dict[str, int]:
        return {name: v for v, name in enumerate(self.names)}

    @cached_property
    def useful(self) -> tuple[int, ...]:
        """The outputs and their ancestors, in topological order: no other vertex is ever worth
        a pebble (dropping every move on the others keeps a schedule legal and complete)."""
        keep = bytearray(len(self))
        for o in self.outputs:
            keep[o] = 1
        for v in range(len(self) - 1, -1, -1):  # reverse topological order
            if keep[v]:
                for p in self.preds[v]:
                    keep[p] = 1
        return tuple(v for v in range(len(self)) if keep[v])

    @cached_property
    def core(self) -> "DAG":
        """The DAG of ``useful`` vertices with the same names (``self`` when that is all of it).

        Hong and Kung's partition lemma is applied to the core, not to the DAG: a calculation never
        needs a vertex with no output downstream, so the optimum of a DAG equals that of its core,
        and the lemma's construction covers only vertices that receive a red pebble, which in a
        complete calculation of the core is all of them.  On the DAG itself P(2M) can exceed what
        any calculation needs (an input feeding K unused sinks forces about K/2M parts)."""
        useful = self.useful
        if len(useful) == len(self):
            return self
        keep = set(useful)
        names = [self.names[v] for v in useful]
        edges = [(self.names[u], self.names[v]) for u, v in self.edges() if v in keep]
        ops = {self.names[v]: self.ops[v] for v in useful if self.preds[v]}
        return DAG.from_edges(names, edges, [self.names[v] for v in self.outputs], ops)

    @property
    def num_edges(self) -> int:
        return sum(len(ps) for ps in self.preds)

    @property
    def max_in_degree(self) -> int:
        return max((len(ps) for ps in self.preds), default=0)

    @property
    def min_memory(self) -> int:
        """The smallest feasible M: a compute of a vertex some output needs (``useful``) needs
        every predecessor red plus the new pebble, and a load or store needs one red pebble."""
        return max(1, max((len(self.preds[v]) + 1 for v in self.useful if self.preds[v]),
                          default=1))

    def vertex(self, name: str) -> int:
        try:
            return self.index[name]
        except KeyError:
            raise InvalidDAG(f"unknown node {name!r}") from None

    def edges(self) -> Iterable[tuple[int, int]]:
        for v, ps in enumerate(self.preds):
            for p in ps:
                yield p, v

    def __repr__(self) -> str:
        return (f"DAG({len(self)} vertices, {self.num_edges} edges, "
                f"{len(self.inputs)} inputs, {len(self.outputs)} outputs)")

    def __eq__(self, other) -> bool:
        return (isinstance(other, DAG) and self.names == other.names
                and self.preds == other.preds and self.ops == other.ops
                and self.outputs == other.outputs)

    def __hash__(self) -> int:
        return hash((self.names, self.preds, self.outputs))


class DAGBuilder:
    """Builds a DAG vertex by vertex in topological order (used by the families: fast, and the
    order is correct by construction): each vertex names its predecessors by the indices
    ``input`` and ``op`` returned for them, so that no cycle can be built (anything else is
    refused, InvalidDAG)."""

    def __init__(self):
        self._names: list[str] = []
        self._preds: list[tuple[int, ...]] = []
        self._ops: list[str] = []
        self._seen: set[str] = set()

    def input(self, name: str) -> int:
        return self._add(name, (), INPUT_OP)

    def op(self, op: str, name: str, preds: Sequence[int]) -> int:
        if not preds:
            raise InvalidDAG(f"operation {name!r} needs at least one predecessor")
        return self._add(name, tuple(preds), op)

    def _add(self, name: str, preds: tuple[int, ...], op: str) -> int:
        count = len(self._names)
        if count == MAX_BUILT_VERTICES:
            raise InvalidDAG(f"the DAG would have more than {MAX_BUILT_VERTICES:,} vertices, "
                             f"the most a family builds")
        if type(name) is not str or not name:
            raise InvalidDAG(f"node name must be a non-empty string, got {name!r}")
        if name in self._seen:
            raise InvalidDAG(f"duplicate node {name!r}")
        for p in preds:  # an earlier vertex's index: no self-loop, no cycle, no wrap-around
            if type(p) is not int or not 0 <= p < count:
                raise InvalidDAG(f"predecessor {p!r} of {name!r} is not the index of a vertex "
                                 f"added before it (0 to {count - 1})")
        if len(set(preds)) != len(preds):
            raise InvalidDAG(f"duplicate edge into {name!r}")
        self._seen.add(name)
        self._names.append(name)
        self._preds.append(tuple(sorted(preds)))
        self._ops.append(op)
        return len(self._names) - 1

    def build(self, outputs: Sequence[int] | None = None) -> DAG:
        if not self._names:
            raise InvalidDAG("the graph is empty")
        preds = tuple(self._preds)
        if outputs is None:
            has_succ = bytearray(len(preds))
            for ps in preds:
                for p in ps:
                    has_succ[p] = 1
            # Isolated inputs are sinks but never outputs: inputs already hold blue pebbles.
            outputs = [v for v in range(len(preds)) if not has_succ[v] and preds[v]]
        out = tuple(sorted(set(outputs), key=_output_index(len(preds))))
        for v in out:
            if not preds[v]:
                raise InvalidDAG(f"output {self._names[v]!r} is an input")
        return DAG(tuple(self._names), preds, tuple(self._ops), out)


def _output_index(count: int):
    """The sort key of ``build``'s outputs, refusing anything but a vertex index."""
    def index(v) -> int:
        if type(v) is not int or not 0 <= v < count:
            raise InvalidDAG(f"output {v!r} is not the index of a vertex (0 to {count - 1})")
        return v

    return index


# --- validation helpers for DAG.from_edges ------------------------------------------------------

def _index_nodes(nodes: Sequence[str]) -> dict[str, int]:
    if not nodes:
        raise InvalidDAG("the graph is empty: no nodes")
    index: dict[str, int] = {}
    for i, name in enumerate(nodes):
        if not isinstance(name, str) or not name:
            raise InvalidDAG(f"node #{i} must be a non-empty string, got {name!r}")
        if name in index:
            raise InvalidDAG(f"duplicate node {name!r}")
        index[name] = i
    return index


def _collect_edges(index: dict[str, int], edges) -> dict[str, list[str]]:
    preds: dict[str, list[str]] = {name: [] for name in index}
    seen: set[tuple[str, str]] = set()
    for i, edge in enumerate(edges):
        if not (isinstance(edge, (list, tuple)) and len(edge) == 2
                and all(isinstance(x, str) for x in edge)):
            raise InvalidDAG(f"edge #{i} must be a pair of node names, got {edge!r}")
        a, b = edge
        for end in (a, b):
            if end not in index:
                raise InvalidDAG(f"edge {[a, b]!r} names unknown node {end!r}")
        if a == b:
            raise InvalidDAG(f"self-loop on node {a!r}")
        if (a, b) in seen:
            raise InvalidDAG(f"duplicate edge {[a, b]!r}")
        seen.add((a, b))
        preds[b].append(a)
    return preds


def _topological_order(nodes: list[str], preds: dict[str, list[str]]) -> list[str]:
    """Kahn's algorithm, stable in the given node order; on a cycle, name its vertices."""
    import heapq

    position = {name: i for i, name in enumerate(nodes)}
    succs: dict[str, list[str]] = {name: [] for name in nodes}
    missing = {name: len(ps) for name, ps in preds.items()}
    for name, ps in preds.items():
        for p in ps:
            succs[p].append(name)
    ready = [position[n] for n in nodes if missing[n] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        name = nodes[heapq.heappop(ready)]
        order.append(name)
        for s in succs[name]:
            missing[s] -= 1
            if missing[s] == 0:
                heapq.heappush(ready, position[s])
    if len(order) != len(nodes):
        cycle = _find_cycle([n for n in nodes if missing[n] > 0], preds, missing)
        raise InvalidDAG("cycle through nodes " + " -> ".join(repr(n) for n in cycle))
    return order


def _find_cycle(left: list[str], preds: dict[str, list[str]], missing: dict[str, int]) -> list[str]:
    """Walk backwards along unresolved predecessors until a node repeats: that loop is a cycle."""
    on_path: dict[str, int] = {}
    path: list[str] = []
    node = left[0]
    while node not in on_path:
        on_path[node] = len(path)
        path.append(node)
        node = next(p for p in preds[node] if missing[p] > 0)
    loop = path[on_path[node]:]
    loop.reverse()  # predecessors were followed, so reverse to read along the edges
    return loop + [loop[0]]


def _check_ops(index, ops, preds) -> dict[str, str]:
    if not isinstance(ops, dict):
        raise InvalidDAG(f"'ops' must be an object mapping node names to labels, got {ops!r}")
    for name, label in ops.items():
        if name not in index:
            raise InvalidDAG(f"'ops' names unknown node {name!r}")
        if not isinstance(label, str) or not label:
            raise InvalidDAG(f"op label of node {name!r} must be a non-empty string")
        if label == INPUT_OP and preds[name]:  # it would contradict the edges, and be lost
            raise InvalidDAG(f"op label of node {name!r} is {INPUT_OP!r}, but the node has "
                             f"predecessors: only inputs may carry that label")
    return ops


def _check_outputs(index, outputs, preds_by_name, position, preds) -> tuple[int, ...]:
    if outputs is None:
        has_succ = set(p for ps in preds_by_name.values() for p in ps)
        # Isolated inputs are sinks but never outputs: inputs already hold blue pebbles.
        return tuple(sorted(position[n] for n in index
                            if n not in has_succ and preds_by_name[n]))
    if not isinstance(outputs, (list, tuple)) or not outputs:
        raise InvalidDAG("'outputs' must be a non-empty list of node names")
    result: set[int] = set()
    for name in outputs:
        if not isinstance(name, str) or name not in index:
            raise InvalidDAG(f"output {name!r} is not a node")
        if not preds_by_name[name]:
            raise InvalidDAG(f"output {name!r} is an input (inputs have no predecessors)")
        if position[name] in result:
            raise InvalidDAG(f"duplicate output {name!r}")
        result.add(position[name])
    return tuple(sorted(result))
