"""A traced two-level memory of M words (docs/theory.md §1 and §6).

Slow memory holds named arrays: inputs (given), outputs and intermediates (created empty with a
declared shape).  Fast memory holds tiles.  A kernel gets handles only (``SlowArray``, ``Tile``):
it loads index ranges into tiles, stores tiles, frees them, and computes on tiles through the
fixed operations of ``ioverify.trace.ops``.  Every call appends one record to the trace (per
tile, not per word, so tracing is cheap).

Accounting: a tile of k words occupies k words from its load or creation until it is freed;
an op needs ``live + new + scratch`` words at the moment it runs (``ops.scratch``: the pebble
being placed); loads and stores count words.  The capacity is not enforced here: the first
overflow is remembered and certification (``ioverify.trace.certify``) rejects the trace, so a
kernel with block sizes that do not fit still runs and is reported, not crashed.

The trace is evidence, not authority: a kernel holds ``mem`` and can rewrite ``mem.trace`` (its
M, its array table, its counts) or replace it.  Certification therefore takes M and the arrays
from the caller's contract and only compares the trace's with them, and ``kernels.run_kernel``
keeps the ``Trace`` object this memory created and refuses any other.

Records (plain tuples):
    ("load", tile, array, r0, r1, c0, c1)
    ("store", tile, array, r0, c0)
    ("free", tile)
    ("op", name, out_tile, in_tiles, new, accumulate, trans_a, trans_b)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ioverify.errors import TraceViolation
from ioverify.trace import ops

ROLES = ("input", "output", "scratch")


class SlowArray:
    """A handle on a named array of slow memory; it holds no data."""

    __slots__ = ("name", "shape", "role")

    def __init__(self, name: str, shape: tuple, role: str):
        self.name, self.shape, self.role = name, shape, role

    def __repr__(self) -> str:
        return f"SlowArray({self.name!r}, {self.shape}, {self.role})"


class Tile:
    """A handle on a tile of fast memory; it holds no data."""

    __slots__ = ("id", "shape", "size")

    def __init__(self, tid: int, shape: tuple):
        self.id, self.shape, self.size = tid, shape, shape[0] * shape[1]

    def __repr__(self) -> str:
        return f"Tile(#{self.id}, {self.shape})"


@dataclass
class Trace:
    """The certificate a kernel produces: the arrays it declared and every record, plus the
    counts the tracer claims (certification recounts them)."""

    memory: int
    arrays: dict = field(default_factory=dict)  # name -> (shape, role)
    records: list = field(default_factory=list)
    loads: int = 0
    stores: int = 0
    peak: int = 0
    overflow: tuple | None = None  # (record index, words needed) of the first overflow

    @property
    def io(self) -> int:
        return self.loads + self.stores


class TracedMemory:
    """Fast memory of ``memory`` words over a slow memory of named arrays.  With
    ``execute=False`` only shapes and counts are tracked (a dry run, used to plan block sizes
    and to count I/O at sizes too large to compute)."""

    def __init__(self, memory: int, *, execute: bool = True):
        self.trace = Trace(memory)
        self.execute = execute
        self._slow: dict[str, np.ndarray] = {}
        self._written: dict[str, np.ndarray] = {}
        self._tiles: dict[int, np.ndarray | None] = {}
        self._shapes: dict[int, tuple] = {}
        self._live = 0
        self._next = 0
        self._rules: dict = {}

    # --- slow memory (declared by the harness) ---------------------------------------------------

    def input(self, name: str, data) -> SlowArray:
        """Declare an input array; ``data`` is an array, or a shape in a dry run."""
        shape = tuple(data) if not self.execute else tuple(np.shape(data))
        handle = self._declare(name, shape, "input")
        if self.execute:
            self._slow[name] = np.array(data, dtype=np.float64)
        self._written[name] = None  # inputs are fully written
        return handle

    def output(self, name: str, shape: tuple) -> SlowArray:
        return self._declare_empty(name, shape, "output")

    def scratch(self, name: str, shape: tuple) -> SlowArray:
        return self._declare_empty(name, shape, "scratch")

    def _declare_empty(self, name, shape, role) -> SlowArray:
        handle = self._declare(name, tuple(shape), role)
        if self.execute:
            self._slow[name] = np.zeros(shape)
            self._written[name] = np.zeros(shape, dtype=bool)
        return handle

    def _declare(self, name, shape, role) -> SlowArray:
        if name in self.trace.arrays:
            raise TraceViolation(f"slow array {name!r} declared twice")
        if len(shape) != 2 or min(shape) < 1:
            raise TraceViolation(f"slow array {name!r} must be 2-D and non-empty, got {shape}")
        self.trace.arrays[name] = (shape, role)
        return SlowArray(name, shape, role)

    def read(self, name: str) -> np.ndarray:
        """A copy of a slow array (for the harness after the kernel ran, never for kernels)."""
        return self._slow[name].copy()

    # --- transfers --------------------------------------------------------------------------------

    def load(self, array: SlowArray, rows: tuple, cols: tuple) -> Tile:
        """Load ``array[r0:r1, c0:c1]`` into a new tile."""
        (r0, r1), (c0, c1) = rows, cols
        self._check_range(array, r0, r1, c0, c1, "load")
        tile = self._new((r1 - r0, c1 - c0))
        if self.execute:
            written = self._written[array.name]
            if written is not None and not written[r0:r1, c0:c1].all():
                raise TraceViolation(f"load of {array.name}[{r0}:{r1}, {c0}:{c1}] reads words "
                                     f"that were never written")
            self._tiles[tile.id] = self._slow[array.name][r0:r1, c0:c1].copy()
        self._record(("load", tile.id, array.name, r0, r1, c0, c1), self._live + tile.size)
        self._shapes[tile.id] = tile.shape
        self._live += tile.size
        self.trace.loads += tile.size
        return tile

    def store(self, tile: Tile, array: SlowArray, row: int, col: int) -> None:
        """Store the whole tile at ``array[row:, col:]``."""
        self._check_live(tile, "store")
        h, w = tile.shape
        self._check_range(array, row, row + h, col, col + w, "store")
        if array.role == "input":
            raise TraceViolation(f"store into input array {array.name!r}")
        if self.execute:
            self._slow[array.name][row:row + h, col:col + w] = self._tiles[tile.id]
            self._written[array.name][row:row + h, col:col + w] = True
        self._record(("store", tile.id, array.name, row, col), self._live)
        self.trace.stores += tile.size

    def free(self, tile: Tile) -> None:
        self._check_live(tile, "free")
        del self._shapes[tile.id]
        self._tiles.pop(tile.id, None)
        self._live -= tile.size
        self.trace.records.append(("free", tile.id))

    # --- the recorded operations (ioverify.trace.ops) ---------------------------------------------

    def exp(self, x, out=None): return self._op("exp", (x,), out)
    def log(self, x, out=None): return self._op("log", (x,), out)
    def copy(self, x, out=None): return self._op("copy", (x,), out)
    def ones(self, x, out=None): return self._op("ones", (x,), out)
    def add(self, x, y, out=None): return self._op("add", (x, y), out)
    def sub(self, x, y, out=None): return self._op("sub", (x, y), out)
    def mul(self, x, y, out=None): return self._op("mul", (x, y), out)
    def div(self, x, y, out=None): return self._op("div", (x, y), out)
    def maximum(self, x, y, out=None): return self._op("maximum", (x, y), out)

    def rowsum(self, x, out=None, accumulate=False):
        return self._op("rowsum", (x,), out, accumulate)

    def rowmax(self, x, out=None, accumulate=False):
        return self._op("rowmax", (x,), out, accumulate)

    def matmul(self, a, b, out=None, accumulate=False, trans_a=False, trans_b=False):
        """``a @ b`` (optionally transposed operands); ``accumulate`` adds into ``out``."""
        return self._op("matmul", (a, b), out, accumulate, trans_a, trans_b)

    def _op(self, name, ins, out, accumulate=False, ta=False, tb=False) -> Tile:
        shapes_of = self._shapes
        try:
            if len(ins) == 1:
                in_ids = (ins[0].id,)
                shapes = (shapes_of[in_ids[0]],)
            else:
                in_ids = (ins[0].id, ins[1].id)
                shapes = (shapes_of[in_ids[0]], shapes_of[in_ids[1]])
            out_shape = None if out is None else shapes_of[out.id]
        except (AttributeError, KeyError):
            for t in (*ins, *(() if out is None else (out,))):
                self._check_live(t, name)
            raise
        out_id = None if out is None else out.id
        key = (name, shapes, ta, tb, accumulate, out_shape, out_id in in_ids)
        rule = self._rules.get(key)
        if rule is None:
            rule = self._rules[key] = self._rule(name, shapes, ta, tb, accumulate, out_shape,
                                                 in_ids, out_id)
        shape, size, extra = rule
        new = out is None
        if new:
            out = Tile(self._next, shape)
            self._next += 1
            need = self._live + size + extra
        else:
            need = self._live + extra
        if self.execute:
            tiles = self._tiles
            arrays = (tiles[in_ids[0]],) if len(in_ids) == 1 else \
                (tiles[in_ids[0]], tiles[in_ids[1]])
            value = ops.apply(name, arrays, ta, tb, None if new else tiles[out.id], accumulate)
            if new:
                tiles[out.id] = value
        self._record(("op", name, out.id, in_ids, new, accumulate, ta, tb), need)
        if new:
            shapes_of[out.id] = shape
            self._live += size
        return out

    @staticmethod
    def _rule(name, shapes, ta, tb, accumulate, out_shape, in_ids, out_id) -> tuple:
        """(result shape, its size, scratch words) of an op signature, checked once."""
        try:
            shape = ops.result_shape(name, shapes, ta, tb)
            consumes = ops.check_out(name, out_shape, in_ids, out_id, shape, accumulate)
        except ops.OpError as error:
            raise TraceViolation(str(error)) from None
        if shape[0] * shape[1] < 1:
            raise TraceViolation(f"{name} would create an empty tile")
        return shape, shape[0] * shape[1], ops.scratch(name, shapes, ta, tb, accumulate,
                                                       consumes)

    # --- bookkeeping ------------------------------------------------------------------------------

    def _new(self, shape) -> Tile:
        tile = Tile(self._next, shape)
        self._next += 1
        if tile.size < 1:
            raise TraceViolation(f"empty tile of shape {shape}")
        return tile

    def _record(self, record, need) -> None:
        trace = self.trace
        if need > trace.peak:
            trace.peak = need
        if need > trace.memory and trace.overflow is None:
            trace.overflow = (len(trace.records), need)
        trace.records.append(record)

    def _check_live(self, tile, what) -> None:
        if not isinstance(tile, Tile):
            raise TraceViolation(f"{what} takes tiles, got {type(tile).__name__}")
        if tile.id not in self._shapes:
            raise TraceViolation(f"{what} uses tile #{tile.id}, which is not live")

    def _check_range(self, array, r0, r1, c0, c1, what) -> None:
        if not isinstance(array, SlowArray) or self.trace.arrays.get(array.name, (None,))[0] \
                != array.shape:
            raise TraceViolation(f"{what} needs a slow array of this memory, got {array!r}")
        rows, cols = array.shape
        if not (0 <= r0 < r1 <= rows and 0 <= c0 < c1 <= cols):
            raise TraceViolation(f"{what} of {array.name}[{r0}:{r1}, {c0}:{c1}] is outside its "
                                 f"shape {array.shape} or empty")

    @property
    def live(self) -> int:
        return self._live
