"""Lower a kernel trace to the scalar DAG it induces and a red-blue pebble-game schedule
(THEORY.md section 1), for small sizes.  This ties the kernels to the game and its lower bounds:
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

from ioverify.dag.model import DAGBuilder
from ioverify.errors import IOVerifyError
from ioverify.game.rules import COMPUTE, DELETE, LOAD, STORE, Schedule
from ioverify.trace import ops
from ioverify.trace.memory import Trace


class LoweringError(IOVerifyError, ValueError):
    """The trace has no faithful pebble-game counterpart, or is too large to lower."""


def lower(trace: Trace, *, max_vertices: int = 200_000):
    """The scalar DAG and the schedule of ``trace``: returns (dag, schedule)."""
    return _Lowering(trace, max_vertices).run()


class _Lowering:
    def __init__(self, trace: Trace, max_vertices: int):
        self.trace, self.max_vertices = trace, max_vertices
        self.builder = DAGBuilder()
        self.count = 0
        self.kinds, self.verts = bytearray(), array("l")
        self.red: set[int] = set()
        self.blue: set[int] = set()
        self.slow: dict[str, np.ndarray] = {}
        self.tiles: dict[int, np.ndarray] = {}
        for name, (shape, role) in trace.arrays.items():
            self.slow[name] = self._inputs(name, shape) if role == "input" else \
                np.full(shape, -1, dtype=np.int64)

    def _inputs(self, name, shape) -> np.ndarray:
        ids = np.empty(shape, dtype=np.int64)
        for i in range(shape[0]):
            for j in range(shape[1]):
                ids[i, j] = self._vertex(f"{name}[{i},{j}]", None, ())
                self.blue.add(int(ids[i, j]))
        return ids

    def _vertex(self, name, op, preds) -> int:
        if self.count >= self.max_vertices:
            raise LoweringError(f"the trace induces more than {self.max_vertices} scalar vertices")
        self.count += 1
        if op is None:
            return self.builder.input(name)
        return self.builder.op(op, name, sorted(set(preds)))

    def _move(self, kind, v) -> None:
        self.kinds.append(kind)
        self.verts.append(v)
        if kind in (LOAD, COMPUTE):
            self.red.add(v)
        elif kind == DELETE:
            self.red.discard(v)

    def run(self):
        for i, record in enumerate(self.trace.records):
            getattr(self, "_" + record[0])(i, *record[1:])
        outputs = [int(v) for name, (shape, role) in self.trace.arrays.items()
                   if role == "output" for v in self.slow[name].ravel()]
        if min(outputs, default=0) < 0:
            raise LoweringError("an output word was never stored")
        return self.builder.build(outputs), Schedule(self.kinds, self.verts)

    def _load(self, i, tid, name, r0, r1, c0, c1) -> None:
        ids = self.slow[name][r0:r1, c0:c1].copy()
        for v in ids.ravel().tolist():
            if v in self.red:
                raise LoweringError(f"record #{i} loads vertex {v} of {name!r}, which is already "
                                    f"red: the game cannot hold the same value twice")
            self._move(LOAD, v)
        self.tiles[tid] = ids

    def _store(self, i, tid, name, r0, c0) -> None:
        ids = self.tiles[tid]
        for v in ids.ravel().tolist():
            if v in self.blue:
                raise LoweringError(f"record #{i} stores vertex {v}, which already has a blue "
                                    f"pebble: the game has no such move")
            self._move(STORE, v)
            self.blue.add(v)
        h, w = ids.shape
        self.slow[name][r0:r0 + h, c0:c0 + w] = ids

    def _free(self, i, tid) -> None:
        for v in self.tiles.pop(tid).ravel().tolist():
            self._move(DELETE, v)

    def _op(self, i, name, out, ins, new, accumulate, ta, tb) -> None:
        args = [self.tiles[t] for t in ins]
        if name == "matmul":
            args = [args[0].T if ta else args[0], args[1].T if tb else args[1]]
        old = None if new else self.tiles[out]
        consumes = not new and (accumulate or out in ins)
        shape = ops.result_shape(name, tuple(t.shape for t in self.tiles_of(ins)), ta, tb)
        result = np.empty(shape, dtype=np.int64)
        for r in range(shape[0]):
            for c in range(shape[1]):
                start = None
                if old is not None:
                    if consumes:
                        start = int(old[r, c])
                    else:
                        self._move(DELETE, int(old[r, c]))
                result[r, c] = self._chain(f"t{i}:{name}:{r},{c}", name, args, r, c, start)
        self.tiles[out] = result

    def tiles_of(self, ins):
        return [self.tiles[t] for t in ins]

    def _chain(self, label, name, args, r, c, start) -> int:
        """Compute one output element's chain; ``start`` is a consumed old value (deleted once
        the first new vertex is placed)."""
        steps = _operands(name, args, r, c, start is not None)
        prev = start
        for step, operands in enumerate(steps):
            preds = list(operands) if prev is None else [prev, *operands]
            v = self._vertex(f"{label}:{step}", name, preds)
            self._move(COMPUTE, v)
            if prev is not None:
                self._move(DELETE, prev)
            prev = v
        return prev


def _operands(name, args, r, c, from_old) -> list:
    """The operands of each vertex of an element's chain (the running value excluded)."""
    if name in ops.MAP1:
        return [[int(args[0][r, c])]]
    if name in ops.MAP2:
        x, y = args
        return [[int(x[r, c]), int(y[min(r, y.shape[0] - 1), min(c, y.shape[1] - 1)])]]
    if name in ops.REDUCE:
        row = [int(v) for v in args[0][r]]
        if from_old:
            return [[v] for v in row]
        return [row[:2]] + [[v] for v in row[2:]]
    a, b = args
    pairs = [[int(a[r, l]), int(b[l, c])] for l in range(a.shape[1])]
    return pairs
