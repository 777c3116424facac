"""Certification of a kernel trace by independent replay (the trace is the certificate).

``certify`` re-executes every record with NumPy on a fresh memory built from the inputs alone
and checks, in this order (each failure names the record):

1. the declared arrays are the given inputs (names, shapes) plus empty outputs/intermediates;
2. every record is well formed and names live tiles; loads read in-range slow words that exist
   (an input, or a word stored earlier); stores write in-range words of non-input arrays;
3. capacity: at every record, live words + the tile being created + the op's scratch
   (``ops.scratch``, the pebble being placed) <= M;
4. every word of every output array was stored;
5. the recounted loads, stores and peak equal the counts the tracer claimed;
6. the replayed outputs equal the kernel's outputs exactly;
7. the outputs match a float64 reference within ``tolerance`` (error measured as
   max |out - ref| / max(1, max |ref|) per array);
8. with ``probe_inputs``: replayed on those fresh inputs, the trace again matches the
   reference.  A trace is a straight-line program (the kernels are data-oblivious), so this
   shows it computes the function, not a value baked in for one input: a kernel that smuggles
   data it did not load (a captured array, constants built by arithmetic) fails here or at 6.

Pure NumPy; shares only the operation table ``ioverify.trace.ops`` with the tracer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ioverify.trace import ops
from ioverify.trace.memory import ROLES, Trace


@dataclass(frozen=True)
class Certification:
    """The verdict on a trace: certified or the first reason it is not, and the recounts."""

    certified: bool
    reason: str
    loads: int = 0
    stores: int = 0
    peak: int = 0
    max_error: float = float("nan")
    probe_error: float | None = None

    @property
    def io(self) -> int:
        return self.loads + self.stores


class _Reject(Exception):
    """Raised inside the replay with the one-line reason a trace is rejected."""


@dataclass
class _Replayed:
    outputs: dict
    loads: int
    stores: int
    peak: int


def certify(trace: Trace, inputs: dict, outputs_claimed: dict, reference, tolerance: float,
            *, probe_inputs: dict | None = None) -> Certification:
    """Replay ``trace`` from ``inputs`` and check it (module docstring); never raises on a bad
    trace, returns ``certified=False`` with the reason."""
    try:
        run = replay_trace(trace, inputs)
    except _Reject as reject:
        return Certification(False, str(reject))
    counts = dict(loads=run.loads, stores=run.stores, peak=run.peak)
    claimed = (trace.loads, trace.stores, trace.peak)
    if claimed != (run.loads, run.stores, run.peak):
        return Certification(False, f"claimed loads/stores/peak {claimed} differ from the "
                                    f"replay {(run.loads, run.stores, run.peak)}", **counts)
    for name, value in run.outputs.items():
        mine = outputs_claimed.get(name)
        if mine is None or np.shape(mine) != value.shape or not np.array_equal(mine, value):
            return Certification(False, f"replayed output {name!r} differs from the kernel's "
                                        f"output", **counts)
    error = reference_error(run.outputs, reference(inputs))
    if not error <= tolerance:
        return Certification(False, f"outputs differ from the float64 reference: error "
                                    f"{error:.3g} > tolerance {tolerance:g}", max_error=error,
                             **counts)
    probe_error = None
    if probe_inputs is not None:
        try:
            probe = replay_trace(trace, probe_inputs)
        except _Reject as reject:
            return Certification(False, f"on probe inputs: {reject}", max_error=error, **counts)
        probe_error = reference_error(probe.outputs, reference(probe_inputs))
        if not probe_error <= tolerance:
            return Certification(False, f"on fresh probe inputs the trace misses the reference "
                                        f"(error {probe_error:.3g} > {tolerance:g}): it does not "
                                        f"compute the function from its loads",
                                 max_error=error, probe_error=probe_error, **counts)
    return Certification(True, "certified", max_error=error, probe_error=probe_error, **counts)


def reference_error(outputs: dict, expected: dict) -> float:
    """max over arrays of max |out - ref| / max(1, max |ref|); inf on a missing array."""
    worst = 0.0
    for name, value in outputs.items():
        ref = np.asarray(expected.get(name), dtype=np.float64)
        if ref.shape != value.shape:
            return float("inf")
        scale = max(1.0, float(np.max(np.abs(ref))))
        diff = float(np.max(np.abs(value - ref))) / scale
        if not diff == diff:  # NaN
            return float("inf")
        worst = max(worst, diff)
    return worst


def replay_trace(trace: Trace, inputs: dict) -> _Replayed:
    """Re-execute every record on a fresh memory; raises _Reject with the first broken rule."""
    try:
        state = _State(trace, inputs)
    except (TypeError, ValueError, AttributeError) as error:
        raise _Reject(f"malformed array declarations ({error})") from None
    with np.errstate(all="ignore"):  # NaN and inf are results here, judged against the reference
        _run(state, trace)
    return state.finish()


def _run(state, trace) -> None:
    for i, record in enumerate(trace.records):
        try:
            state.step(record)
        except _Reject as reject:
            raise _Reject(f"record #{i} {_show(record)}: {reject}") from None
        except (TypeError, ValueError, IndexError, KeyError) as error:
            raise _Reject(f"record #{i} {_show(record)} is malformed ({error})") from None


def _show(record) -> str:
    text = repr(record)
    return text if len(text) <= 80 else text[:77] + "..."


class _State:
    """Slow arrays with written masks, live tiles, counters: the replay's machine."""

    def __init__(self, trace: Trace, inputs: dict):
        if not isinstance(trace.memory, int) or trace.memory < 1:
            raise _Reject(f"memory M must be a positive integer, got {trace.memory!r}")
        self.memory = trace.memory
        self.slow, self.written, self.roles = {}, {}, {}
        for name, (shape, role) in trace.arrays.items():
            self._declare(name, tuple(shape), role, inputs)
        missing = set(inputs) - {n for n, r in self.roles.items() if r == "input"}
        if missing:
            raise _Reject(f"input {sorted(missing)[0]!r} is not declared by the trace")
        self.tiles: dict = {}
        self.live = self.loads = self.stores = self.peak = 0

    def _declare(self, name, shape, role, inputs) -> None:
        if role not in ROLES:
            raise _Reject(f"array {name!r} has unknown role {role!r}")
        self.roles[name] = role
        if role == "input":
            if name not in inputs:
                raise _Reject(f"input array {name!r} was not given")
            data = np.array(inputs[name], dtype=np.float64)
            if data.shape != shape:
                raise _Reject(f"input {name!r} has shape {data.shape}, declared {shape}")
            self.slow[name], self.written[name] = data, np.ones(shape, dtype=bool)
        else:
            self.slow[name] = np.zeros(shape)
            self.written[name] = np.zeros(shape, dtype=bool)

    def step(self, record) -> None:
        kind = record[0]
        if kind == "load":
            self._load(*record[1:])
        elif kind == "store":
            self._store(*record[1:])
        elif kind == "free":
            (tid,) = record[1:]
            self.live -= self._tile(tid).size
            del self.tiles[tid]
        elif kind == "op":
            self._op(*record[1:])
        else:
            raise _Reject(f"unknown record kind {kind!r}")

    def _tile(self, tid) -> np.ndarray:
        tile = self.tiles.get(tid)
        if tile is None:
            raise _Reject(f"tile #{tid} is not live")
        return tile

    def _slice(self, name, r0, r1, c0, c1):
        if name not in self.slow:
            raise _Reject(f"slow array {name!r} does not exist")
        rows, cols = self.slow[name].shape
        if not all(isinstance(x, (int, np.integer)) for x in (r0, r1, c0, c1)) \
                or not (0 <= r0 < r1 <= rows and 0 <= c0 < c1 <= cols):
            raise _Reject(f"range [{r0}:{r1}, {c0}:{c1}] is outside {name!r} {(rows, cols)}")
        return (slice(r0, r1), slice(c0, c1))

    def _capacity(self, need) -> None:
        if need > self.memory:
            raise _Reject(f"capacity exceeded: {need} words live > M = {self.memory}")
        self.peak = max(self.peak, need)

    def _load(self, tid, name, r0, r1, c0, c1) -> None:
        index = self._slice(name, r0, r1, c0, c1)
        if tid in self.tiles:
            raise _Reject(f"tile #{tid} is already live")
        if not self.written[name][index].all():
            raise _Reject(f"loads words of {name!r} that do not exist (never written)")
        data = self.slow[name][index].copy()
        self._capacity(self.live + data.size)
        self.tiles[tid] = data
        self.live += data.size
        self.loads += data.size

    def _store(self, tid, name, r0, c0) -> None:
        data = self._tile(tid)
        index = self._slice(name, r0, r0 + data.shape[0], c0, c0 + data.shape[1])
        if self.roles[name] == "input":
            raise _Reject(f"stores into input array {name!r}")
        self.slow[name][index] = data
        self.written[name][index] = True
        self.stores += data.size

    def _op(self, name, out, ins, new, accumulate, ta, tb) -> None:
        arrays = tuple(self._tile(t) for t in ins)
        shapes = tuple(a.shape for a in arrays)
        if new and out in self.tiles:
            raise _Reject(f"creates tile #{out}, which is already live")
        if not new:
            self._tile(out)
        try:
            shape = ops.result_shape(name, shapes, bool(ta), bool(tb))
            consumes = ops.check_out(name, None if new else self.tiles[out].shape, tuple(ins),
                                     None if new else out, shape, bool(accumulate))
        except ops.OpError as error:
            raise _Reject(str(error)) from None
        extra = ops.scratch(name, shapes, bool(ta), bool(tb), bool(accumulate), consumes)
        size = shape[0] * shape[1]
        self._capacity(self.live + (size if new else 0) + extra)
        value = ops.apply(name, arrays, bool(ta), bool(tb), None if new else self.tiles[out],
                          bool(accumulate))
        self.tiles[out] = value
        if new:
            self.live += size

    def finish(self) -> _Replayed:
        outputs = {}
        for name, role in self.roles.items():
            if role != "output":
                continue
            if not self.written[name].all():
                count = int((~self.written[name]).sum())
                raise _Reject(f"output {name!r} has {count} word(s) never stored")
            outputs[name] = self.slow[name]
        return _Replayed(outputs, self.loads, self.stores, self.peak)
