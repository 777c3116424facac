"""Lower a kernel trace to the scalar DAG it induces and a red-blue pebble-game schedule
(docs/theory.md §1), for small sizes.  This ties the kernels to the game and its lower bounds:
``ioverify.game.replay`` must accept the schedule with the same M and the same I/O.

One input vertex per word of an input array; one vertex per scalar value an op computes, in
chains (``ops.chain_length``): an elementwise op computes one vertex per element; a matmul
element is mul(a_i0, b_0j) then fma(s, a_il, b_lj) for l >= 1 (FMA-chain DAG); a row reduction
is op(x_0, x_1) then op(s, x_l); with ``accumulate`` the chain starts from the old value.
Moves: a tile load is one load per word; a store one store per word; a free one delete per
word; a chain computes each vertex and deletes the previous partial (and the consumed old
output value) right after.  An existing output tile that is not consumed has each old word
deleted just before its new chain.  The pebble count then equals the tracer's word count with
``ops.scratch`` (the pebble being placed) at every moment, so the peaks agree.

Refused (``LoweringError``), because the game has no such move: loading a word whose vertex is
already red (the same data live twice), and storing a vertex that already has a blue pebble.
"""

from __future__ import annotations

from array import array

import numpy as np

from ioverify.dag.model import DAG, INPUT_OP
from ioverify.errors import LoweringError
from ioverify.game.rules import COMPUTE, DELETE, LOAD, STORE, Schedule
from ioverify.trace import ops
from ioverify.trace.memory import Trace


def lower(trace: Trace, *, max_vertices: int = 200_000, arrays: dict | None = None):
    """The scalar DAG and the schedule of ``trace``: returns (dag, schedule).  ``arrays``
    (name -> (shape, role), the layout of ``Trace.arrays``) says which slow arrays are inputs
    and outputs; certification passes its contract's, so that nothing is taken from the trace
    but its records.  Without it the trace's own table is used."""
    return _Lowering(trace, max_vertices, trace.arrays if arrays is None else arrays).run()


class _Lowering:
    """The lowering's state: the DAG being built (vertex ids in creation order, which is a
    topological order), the moves, red and blue flags per vertex, the vertex id of every slow
    word and tile element.  Tiles are nested lists of vertex ids (fast to index)."""

    def __init__(self, trace: Trace, max_vertices: int, arrays: dict):
        self.trace, self.max_vertices, self.arrays = trace, max_vertices, arrays
        self.names: list[str] = []
        self.preds: list[tuple] = []
        self.ops: list[str] = []
        self.kinds, self.verts = bytearray(), array("l")
        self.red, self.blue = bytearray(), bytearray()
        self.slow: dict[str, np.ndarray] = {}
        self.tiles: dict = {}
        for name, (shape, role) in arrays.items():
            self.slow[name] = self._inputs(name, shape) if role == "input" else \
                np.full(shape, -1, dtype=np.int64)

    def _inputs(self, name, shape) -> np.ndarray:
        ids = np.empty(shape, dtype=np.int64)
        for i in range(shape[0]):
            for j in range(shape[1]):
                v = ids[i, j] = self._vertex(f"{name}[{i},{j}]", INPUT_OP, ())
                self.blue[v] = 1
        return ids

    def _vertex(self, name, op, preds) -> int:
        v = len(self.names)
        if v >= self.max_vertices:
            raise LoweringError(f"the trace induces more than {self.max_vertices} scalar vertices")
        self.names.append(name)
        self.preds.append(preds)
        self.ops.append(op)
        self.red.append(0)
        self.blue.append(0)
        return v

    def run(self):
        for i, record in enumerate(self.trace.records):
            getattr(self, "_" + record[0])(i, *record[1:])
        outputs = [int(v) for name, (shape, role) in self.arrays.items()
                   if role == "output" for v in self.slow[name].ravel()]
        if min(outputs, default=0) < 0:
            raise LoweringError("an output word was never stored")
        out = tuple(sorted(set(outputs)))
        if any(not self.preds[v] for v in out):
            raise LoweringError("an output word holds an input value")
        dag = DAG(tuple(self.names), tuple(self.preds), tuple(self.ops), out)
        return dag, Schedule(self.kinds, self.verts)

    def _load(self, i, tid, name, r0, r1, c0, c1) -> None:
        ids = self.slow[name][r0:r1, c0:c1].tolist()
        red, kinds, verts = self.red, self.kinds, self.verts
        for row in ids:
            for v in row:
                if v < 0:
                    raise LoweringError(f"record #{i} loads a word of {name!r} that was never "
                                        f"written")
                if red[v]:
                    raise LoweringError(f"record #{i} loads vertex {v} of {name!r}, which is "
                                        f"already red: the game cannot hold the same value twice")
                kinds.append(LOAD)
                verts.append(v)
                red[v] = 1
        self.tiles[tid] = ids

    def _store(self, i, tid, name, r0, c0) -> None:
        ids = self.tiles[tid]
        blue, kinds, verts = self.blue, self.kinds, self.verts
        for row in ids:
            for v in row:
                if blue[v]:
                    raise LoweringError(f"record #{i} stores vertex {v}, which already has a blue "
                                        f"pebble: the game has no such move")
                kinds.append(STORE)
                verts.append(v)
                blue[v] = 1
        self.slow[name][r0:r0 + len(ids), c0:c0 + len(ids[0])] = ids

    def _free(self, i, tid) -> None:
        red, kinds, verts = self.red, self.kinds, self.verts
        for row in self.tiles.pop(tid):
            for v in row:
                kinds.append(DELETE)
                verts.append(v)
                red[v] = 0

    def _op(self, i, name, out, ins, new, accumulate, ta, tb) -> None:
        args = [self.tiles[t] for t in ins]
        shape = ops.result_shape(name, tuple((len(t), len(t[0])) for t in args), ta, tb)
        if name == "matmul":
            args = [_transpose(args[0]) if ta else args[0], _transpose(args[1]) if tb else args[1]]
        old = None if new else self.tiles[out]
        consumes = not new and (accumulate or out in ins)
        if name in ops.MAP1 or name in ops.MAP2:
            self.tiles[out] = self._map(f"t{i}:{name}:", name, args, shape, old, consumes)
            return
        operands = _OPERANDS[_kind(name)]
        red, kinds, verts = self.red, self.kinds, self.verts
        result = []
        for r in range(shape[0]):
            row = []
            for c in range(shape[1]):
                start = None
                if old is not None:
                    if consumes:
                        start = old[r][c]
                    else:
                        kinds.append(DELETE)
                        verts.append(old[r][c])
                        red[old[r][c]] = 0
                steps = operands(args, r, c, start is not None)
                row.append(self._chain(f"t{i}:{name}:{r},{c}", name, steps, start))
            result.append(row)
        self.tiles[out] = result

    def _map(self, prefix, name, args, shape, old, consumes) -> list:
        """An elementwise op (one vertex per element) over a whole tile, in bulk, with the
        moves of ``_chain`` element by element: compute then delete the consumed old value, or
        delete the old value first when it is not consumed."""
        (h, w), v0 = shape, len(self.names)
        count = h * w
        if v0 + count > self.max_vertices:
            raise LoweringError(f"the trace induces more than {self.max_vertices} scalar vertices")
        if name in ops.MAP1:
            operands = [(v,) for row in args[0] for v in row]
        else:
            x, y = args
            yr, yc = len(y) - 1, len(y[0]) - 1
            operands = [(x[r][c], y[min(r, yr)][min(c, yc)]) for r in range(h) for c in range(w)]
        self.names.extend([f"{prefix}{r},{c}:0" for r in range(h) for c in range(w)])
        computed = range(v0, v0 + count)
        if old is None:
            self.preds.extend([tuple(sorted(set(o))) for o in operands])
            self.kinds.extend(bytes((COMPUTE,)) * count)
            self.verts.extend(computed)
        else:
            before = [v for row in old for v in row]
            pairs = [0] * (2 * count)
            if consumes:
                self.preds.extend([tuple(sorted({s, *o})) for s, o in zip(before, operands)])
                pairs[0::2], pairs[1::2] = computed, before
                self.kinds.extend(_COMPUTE_DELETE * count)
            else:
                self.preds.extend([tuple(sorted(set(o))) for o in operands])
                pairs[0::2], pairs[1::2] = before, computed
                self.kinds.extend(bytes((DELETE, COMPUTE)) * count)
            self.verts.extend(pairs)
            for v in before:
                self.red[v] = 0
        self.ops.extend([name] * count)
        self.blue.extend(bytes(count))
        self.red.extend(b"\x01" * count)
        return [list(range(v0 + r * w, v0 + (r + 1) * w)) for r in range(h)]

    def _chain(self, label, name, steps, start) -> int:
        """Compute one output element's chain of ``len(steps)`` vertices v0, v1, ...; each
        after the first takes the previous one as an operand, and ``start`` (a consumed old
        value, or None) is the first one's.  Moves: compute v_s, then delete the value it
        consumed (``start`` for v0, v_(s-1) after).  The hot loop, so built in bulk: vertex ids
        are consecutive, and a new vertex's id exceeds every operand's."""
        k, v0 = len(steps), len(self.names)
        if v0 + k > self.max_vertices:
            raise LoweringError(f"the trace induces more than {self.max_vertices} scalar vertices")
        self.names.extend([f"{label}:{step}" for step in range(k)])
        first = steps[0] if start is None else (start, *steps[0])
        self.preds.append(tuple(sorted(set(first))))
        self.preds.extend([(*sorted(set(operands)), prev)
                           for prev, operands in zip(range(v0, v0 + k - 1), steps[1:])])
        self.ops.extend([name] * k)
        self.blue.extend(bytes(k))
        self.red.extend(bytes(k - 1))
        self.red.append(1)
        consumed = list(range(v0, v0 + k - 1))
        if start is None:
            self.kinds.append(COMPUTE)
            self.verts.append(v0)
            computed = range(v0 + 1, v0 + k)
        else:
            self.red[start] = 0
            consumed.insert(0, start)
            computed = range(v0, v0 + k)
        pairs = [0] * (2 * len(consumed))
        pairs[0::2], pairs[1::2] = computed, consumed
        self.kinds.extend(_COMPUTE_DELETE * len(consumed))
        self.verts.extend(pairs)
        return v0 + k - 1


_COMPUTE_DELETE = bytes((COMPUTE, DELETE))


def _transpose(tile: list) -> list:
    return [list(col) for col in zip(*tile)]


def _kind(name: str) -> str:
    return "reduce" if name in ops.REDUCE else "matmul"


# The operands of each vertex of an element's chain (the running value excluded), per op kind
# (elementwise ops are lowered in bulk by ``_Lowering._map``).
def _reduce(args, r, c, from_old) -> list:
    row = args[0][r]
    if from_old:
        return [(v,) for v in row]
    return [tuple(row[:2])] + [(v,) for v in row[2:]]


def _matmul(args, r, c, from_old) -> list:
    a, b = args
    return [(x, b[l][c]) for l, x in enumerate(a[r])]


_OPERANDS = {"reduce": _reduce, "matmul": _matmul}
