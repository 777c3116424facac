"""Certification of a kernel trace against the caller's contract, by independent replay.

The trace is the certificate; the *contract* (``KernelContract``: M and the slow arrays the
kernel must declare, each with its role and shape) comes from the caller (``kernels.run_kernel``
builds it from the kernel's spec and the requested sizes and M), never from the trace.  The trace
is untrusted data: its ``memory`` and its array table are compared with the contract, never
used.  ``certify`` checks, in this order (the first failure is the one-line reason):

1. the trace's M equals the contract's; its declared arrays are exactly the contract's (same
   names, roles and shapes: nothing missing, nothing extra); the given inputs are exactly the
   contract's inputs;
2. re-executing every record with NumPy on a fresh memory built from the inputs alone (M, roles
   and shapes from the contract): every record is well formed and names live tiles; loads read
   in-range slow words that exist (an input, or a word stored earlier); stores write in-range
   words of non-input arrays; at every record live words + the tile being created + the op's
   scratch (``ops.scratch``, the pebble being placed) <= M;
3. every word of every output of the contract was stored;
4. the recounted loads, stores and peak equal the counts the tracer claimed;
5. the replayed outputs equal the kernel's outputs exactly;
6. numbers: each output is within ``tolerance`` of a float64 reference in relative error,
   ``error = max |out - ref| / max |ref|`` per output array.  Refused (not certified, with the
   reason): an input whose scale ``max |x|`` is below ``REFERENCE_FLOOR``, a reference that is
   not finite, a reference scale ``max |ref|`` in (0, ``REFERENCE_FLOOR``).  A reference that is
   exactly zero is compared exactly (the output must be exactly zero);
7. with ``probe_inputs``: replayed on those fresh inputs, the trace again matches the reference
   (same rule).  A trace is a straight-line program (the kernels are data-oblivious), so this
   shows it computes the function, not a value baked in for one input.  The probe must be one
   the kernel could not know while it ran: ``probe_inputs`` may be a function of the trace's
   digest (``trace_digest``), called once the trace is read, so that the probe is drawn after
   the trace is fixed (``ioverify.trace.kernel`` seeds it so: a kernel that knew the inputs'
   seed could otherwise compute the probe too, and fit a program to both);
8. every word of every input was loaded at least once, so a certified I/O is never below the
   trivial bound (each input word read, each output word written): an output that matches the
   reference without reading part of the input (possible where the function is numerically
   flat in it, e.g. the polynomial method with tiny entries) is not certified;
9. the pebble game: when the lowered DAG has at most ``game_vertex_cap`` scalar vertices, the
   trace is lowered (``ioverify.trace.lower``) and its schedule replayed
   (``ioverify.game.replay``, recompute variant) at the contract's M; it must be legal and
   complete with the same loads, stores and peak.  A trace the lowering refuses (it loads data
   that is already live, or stores a value already in slow memory) has no pebble-game
   counterpart and is rejected: its I/O is not the cost of any game schedule, so it cannot be
   compared with the game's lower bounds.  Above the cap the game replay is skipped and the
   ``Certification`` says so (``game_replayed=False``, ``game`` gives the vertex count).

Why this tolerance.  The error is relative to each output's own scale, so it does not depend on
the units of the data: a zero output (or any output of the wrong size) scores 1 against every
reference with ``max |ref| > 0``, and ``tolerance`` must be below 1, so it is never certified.
The old absolute floor (``max(1, max |ref|)``) certified O = 0 whenever the outputs were below
the tolerance, e.g. the polynomial method with entries of 1e-12.  The refusal floor
``REFERENCE_FLOOR = 1e-100`` keeps the yardstick honest: float64 has full relative precision
only above the smallest normal number, 2.2e-308, and the kernels form products of up to three
values of an output's scale (q.k, then A.v; P * (dP - D) in the backward pass), so a scale below
(2.2e-308)^(1/3) = 2.8e-103 can make the reference itself lose its relative digits to underflow.
An output whose reference scale is below the floor is refused with a reason, not certified.
Inputs below the floor are refused too: with entries in float64's underflow range the reference
can vanish exactly without any cancellation, and a zero output would then pass.  A reference
that is exactly zero from inputs of normal size is a true zero (dQ and dK of attention with
n = 1: a softmax over one key has zero gradient), and zero is then the right output, not one
that cannot be told from it: it is compared exactly, any nonzero word being an infinite error.

The trace is read once, first (``_snapshot``): every pass above reads that copy, so an object
that answers differently on a second reading (records that change between passes) is read as it
was then.  Its records may hold only strings, integers, booleans, None and tuples of them; tile
ids are integers (a tile id of another kind, None say, is refused: the replay and the lowering
could read it differently).

Pure NumPy plus the pure-Python lowering and game replayer; imports no solver, search, claim
runner or CLI.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ioverify.errors import InvalidArgument
from ioverify.game.replay import replay
from ioverify.trace import ops
from ioverify.trace.lower import LoweringError, lower
from ioverify.trace.memory import ROLES, Trace

REFERENCE_FLOOR = 1e-100
# Scalar vertices of the lowered DAG up to which the pebble-game replay runs.  Lowering costs
# about 5 us and the replay about 1 us per vertex, so about 0.1 s at the cap; 813 of the 839
# certified runs of the shipped kernel test grids are below it (the others: n = 24, d = 8).
GAME_VERTEX_CAP = 20_000


@dataclass(frozen=True)
class KernelContract:
    """What the caller expects of a kernel's trace: the fast-memory size M and the slow arrays,
    each ``(name, role, (rows, cols))`` with role ``input``, ``output`` or ``scratch``."""

    memory: int
    arrays: tuple

    def __post_init__(self):
        if isinstance(self.memory, bool) or not isinstance(self.memory, (int, np.integer)) \
                or self.memory < 1:
            raise InvalidArgument(f"contract memory M must be a positive integer, "
                                  f"got {self.memory!r}")
        object.__setattr__(self, "memory", int(self.memory))
        object.__setattr__(self, "arrays", tuple(_contract_entry(e) for e in self.arrays))
        names = [name for name, _, _ in self.arrays]
        if len(set(names)) != len(names):
            twice = next(n for n in names if names.count(n) > 1)
            raise InvalidArgument(f"contract declares array {twice!r} twice")

    @classmethod
    def of(cls, memory: int, *, inputs: dict, outputs: dict, scratch: dict | None = None):
        """A contract from name -> shape maps, one per role."""
        return cls(memory, tuple((name, role, shape)
                                 for role, table in (("input", inputs), ("output", outputs),
                                                     ("scratch", scratch or {}))
                                 for name, shape in table.items()))

    def of_role(self, role: str) -> dict:
        return {name: shape for name, r, shape in self.arrays if r == role}

    @property
    def inputs(self) -> dict:
        return self.of_role("input")

    @property
    def outputs(self) -> dict:
        return self.of_role("output")

    @property
    def declared(self) -> dict:
        """name -> (shape, role), the layout of ``Trace.arrays``."""
        return {name: (shape, role) for name, role, shape in self.arrays}


def _contract_entry(entry) -> tuple:
    try:
        name, role, shape = entry
        shape = tuple(int(x) for x in shape)
    except (TypeError, ValueError):
        raise InvalidArgument(f"contract array must be (name, role, (rows, cols)), "
                              f"got {entry!r}") from None
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"contract array name must be a non-empty string, got {name!r}")
    if role not in ROLES:
        raise InvalidArgument(f"contract array {name!r} has role {role!r}, not one of {ROLES}")
    if len(shape) != 2 or min(shape) < 1:
        raise InvalidArgument(f"contract array {name!r} must be 2-D and non-empty, got {shape}")
    return name, role, shape


@dataclass(frozen=True)
class Certification:
    """The verdict on a trace: certified or the first reason it is not, and what was found.

    ``errors`` holds ``(output, relative error)`` pairs on the given inputs; ``vertices`` is the
    size of the lowered DAG (counted by the replay); ``game_replayed`` says whether the lowered
    schedule was replayed in the pebble game, ``game`` what came of it in one line."""

    certified: bool
    reason: str
    loads: int = 0
    stores: int = 0
    peak: int = 0
    max_error: float = float("nan")
    probe_error: float | None = None
    errors: tuple = ()
    vertices: int = 0
    game_replayed: bool = False
    game: str = "not reached"

    @property
    def io(self) -> int:
        return self.loads + self.stores


class _Reject(Exception):
    """Raised inside certification with the one-line reason a trace is rejected."""


@dataclass
class _Replayed:
    outputs: dict
    loads: int
    stores: int
    peak: int
    vertices: int = 0
    unread: dict = field(default_factory=dict)  # input name -> words never loaded


def certify(trace: Trace, contract: KernelContract, inputs: dict, outputs_claimed: dict,
            reference, tolerance: float, *, probe_inputs: dict | None = None,
            game_vertex_cap: int = GAME_VERTEX_CAP) -> Certification:
    """Check ``trace`` against ``contract`` (module docstring).  Never raises on a bad trace:
    returns ``certified=False`` with the reason.  Raises InvalidArgument on a bad contract,
    tolerance or cap (the caller's mistake, not the trace's)."""
    if not isinstance(contract, KernelContract):
        raise InvalidArgument(f"certify needs a KernelContract, got {type(contract).__name__}")
    if not 0.0 < tolerance < 1.0:
        raise InvalidArgument(f"tolerance must be in (0, 1) (a zero output scores 1), "
                              f"got {tolerance!r}")
    if isinstance(game_vertex_cap, bool) or not isinstance(game_vertex_cap, int) \
            or game_vertex_cap < 0:
        raise InvalidArgument(f"game_vertex_cap must be a non-negative integer, "
                              f"got {game_vertex_cap!r}")
    found: dict = {}
    try:
        trace = _snapshot(trace)
        if callable(probe_inputs):  # drawn now that the trace is fixed (module docstring, 7)
            probe_inputs = probe_inputs(trace_digest(trace))
        _certify(trace, contract, inputs, outputs_claimed, reference, tolerance, probe_inputs,
                 game_vertex_cap, found)
    except _Reject as reject:
        return Certification(False, str(reject), **found)
    return Certification(True, "certified", **found)


def _snapshot(trace) -> Trace:
    """``trace`` read once, into a copy of plain values that every later pass reads."""
    if not isinstance(trace, Trace):
        raise _Reject(f"the evidence is a {type(trace).__name__}, not a Trace")
    try:
        records = [_plain(record, 0) for record in trace.records]
    except TypeError as error:
        raise _Reject(f"the trace's records cannot be read ({error})") from None
    for i, record in enumerate(records):
        if not isinstance(record, tuple) or not record:
            raise _Reject(f"record #{i} {_show(record)} is malformed (not a non-empty tuple)")
    try:
        arrays = {name: (tuple(shape), role) for name, (shape, role) in trace.arrays.items()}
    except (TypeError, ValueError, AttributeError) as error:
        raise _Reject(f"malformed array declarations ({error})") from None
    return Trace(_plain(trace.memory, 2), arrays, records, _plain(trace.loads, 2),
                 _plain(trace.stores, 2), _plain(trace.peak, 2))


def _plain(value, depth: int):
    """``value`` as a plain string, integer, boolean, float or None, or (at depth 0 and 1) a
    tuple of them; raises _Reject on anything else."""
    if value is None or type(value) in (str, int, bool, float):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if depth < 2 and type(value) in (tuple, list):
        return tuple(_plain(item, depth + 1) for item in value)
    raise _Reject(f"the trace holds a {type(value).__name__} ({_show(value)}), not a plain "
                  f"number, string or tuple of them")


def trace_digest(trace: Trace) -> str:
    """SHA-256 of a read trace (``_snapshot``): its M, arrays and records."""
    text = repr((trace.memory, sorted(trace.arrays.items()), trace.records))
    return hashlib.sha256(text.encode()).hexdigest()


def _certify(trace, contract, inputs, outputs_claimed, reference, tolerance, probe_inputs,
             cap, found) -> None:
    _match_contract(trace, contract)
    run = replay_trace(trace, inputs, contract)
    found.update(loads=run.loads, stores=run.stores, peak=run.peak, vertices=run.vertices)
    _match_claims(trace, run)
    _match_outputs(run, outputs_claimed)
    _check_input_scale(inputs)
    errors = output_errors(run.outputs, reference(inputs), "")
    found.update(errors=tuple(errors.items()), max_error=max(errors.values(), default=0.0))
    _within(errors, tolerance, "")
    if probe_inputs is not None:
        try:
            probe = replay_trace(trace, probe_inputs, contract)
        except _Reject as reject:
            raise _Reject(f"on probe inputs: {reject}") from None
        _check_input_scale(probe_inputs, "on probe inputs: ")
        probe_errors = output_errors(probe.outputs, reference(probe_inputs), "on probe inputs: ")
        found["probe_error"] = max(probe_errors.values(), default=0.0)
        _within(probe_errors, tolerance, "on fresh probe inputs, ", " (the trace does not "
                "compute the function from its loads)")
    _check_coverage(run)
    _game(trace, contract, run, cap, found)


# --- 1. the contract ---------------------------------------------------------------------------

def _match_contract(trace: Trace, contract: KernelContract) -> None:
    """The trace's M and array table equal the contract's; raises _Reject naming the first
    difference."""
    if trace.memory != contract.memory or isinstance(trace.memory, bool):
        raise _Reject(f"the trace says M = {trace.memory!r}, the contract (the caller's "
                      f"request) says M = {contract.memory}")
    try:
        declared = {name: (_shape(entry[0]), entry[1]) for name, entry in trace.arrays.items()}
    except (AttributeError, TypeError, ValueError, IndexError) as error:
        raise _Reject(f"malformed array declarations ({error})") from None
    for name, role, shape in contract.arrays:
        if name not in declared:
            raise _Reject(f"the trace does not declare {role} {name!r} {shape} of the contract")
        got_shape, got_role = declared[name]
        if got_role != role:
            raise _Reject(f"array {name!r} is declared as {got_role!r}, the contract says "
                          f"{role!r}")
        if got_shape != shape:
            raise _Reject(f"array {name!r} is declared with shape {got_shape}, the contract "
                          f"says {shape}")
    extra = sorted(set(declared) - set(contract.declared), key=str)
    if extra:
        raise _Reject(f"the trace declares array {extra[0]!r}, which is not in the contract")


def _shape(shape) -> tuple:
    if isinstance(shape, str):
        raise ValueError(f"shape {shape!r}")
    return tuple(int(x) for x in shape)


# --- 4-8. counts, outputs, numbers, coverage ---------------------------------------------------

def _match_claims(trace, run) -> None:
    claimed = (trace.loads, trace.stores, trace.peak)
    if claimed != (run.loads, run.stores, run.peak):
        raise _Reject(f"claimed loads/stores/peak {claimed} differ from the replay "
                      f"{(run.loads, run.stores, run.peak)}")


def _match_outputs(run, outputs_claimed) -> None:
    for name, value in run.outputs.items():
        mine = outputs_claimed.get(name)
        if mine is None or np.shape(mine) != value.shape or not np.array_equal(mine, value):
            raise _Reject(f"replayed output {name!r} differs from the kernel's output")


def output_errors(outputs: dict, expected: dict, where: str = "") -> dict:
    """Per output: max |out - ref| / max |ref| (inf on NaN).  Raises _Reject if the reference
    lacks an output, has another shape, is not finite, or is below ``REFERENCE_FLOOR``."""
    errors = {}
    for name, value in outputs.items():
        if name not in expected:
            raise _Reject(f"{where}the reference gives no output {name!r}")
        ref = np.asarray(expected[name], dtype=np.float64)
        if ref.shape != value.shape:
            raise _Reject(f"{where}the reference of output {name!r} has shape {ref.shape}, "
                          f"the output {value.shape}")
        if not np.isfinite(ref).all():
            raise _Reject(f"{where}the reference of output {name!r} is not finite: the output "
                          f"cannot be judged")
        scale = float(np.max(np.abs(ref)))
        if 0.0 < scale < REFERENCE_FLOOR:
            raise _Reject(f"{where}the reference of output {name!r} has max |ref| = {scale:.3g} "
                          f"< {REFERENCE_FLOOR:g}: a zero output could not be told from the "
                          f"right one, so it is not certified")
        with np.errstate(all="ignore"):
            diff = float(np.max(np.abs(value - ref)))
        if scale == 0.0:  # zero is the right output: compared exactly
            errors[name] = 0.0 if diff == 0.0 else float("inf")
        else:
            errors[name] = diff / scale if diff == diff else float("inf")
    return errors


def _check_input_scale(inputs: dict, where: str = "") -> None:
    """Every input's scale is at least ``REFERENCE_FLOOR``: inputs in float64's underflow range
    could make the reference vanish (and a zero output pass) without any cancellation."""
    for name, value in inputs.items():
        scale = float(np.max(np.abs(np.asarray(value, dtype=np.float64))))
        if not scale >= REFERENCE_FLOOR:
            raise _Reject(f"{where}input {name!r} has max |x| = {scale:.3g} < "
                          f"{REFERENCE_FLOOR:g}: outputs computed from it cannot be judged, so "
                          f"nothing is certified")


def _within(errors: dict, tolerance: float, where: str, why: str = "") -> None:
    for name, error in errors.items():
        if not error <= tolerance:
            raise _Reject(f"{where}output {name!r} differs from the float64 reference: "
                          f"relative error {error:.3g} > tolerance {tolerance:g}{why}")


def _check_coverage(run) -> None:
    for name, count in run.unread.items():
        if count:
            raise _Reject(f"input {name!r} has {count} word(s) never loaded: the certified I/O "
                          f"would be below the trivial bound (every input word read once)")


# --- 9. the pebble game ------------------------------------------------------------------------

def _game(trace, contract, run, cap, found) -> None:
    """Lower the trace and replay its schedule at the contract's M (recompute variant)."""
    memory = contract.memory
    if run.vertices > cap:
        found["game"] = (f"skipped for size: the lowered DAG would have {run.vertices} scalar "
                         f"vertices > cap {cap}")
        return
    try:
        dag, schedule = lower(trace, max_vertices=run.vertices, arrays=contract.declared)
    except LoweringError as error:
        found["game"] = f"no counterpart: {error}"
        raise _Reject(f"the trace has no pebble-game counterpart: {error}") from None
    result = replay(dag, schedule, memory, "recompute")
    found["game_replayed"] = True
    found["game"] = result.describe()
    if not result.ok:
        raise _Reject(f"the lowered schedule fails in the pebble game at M = {memory}: "
                      f"{result.describe()}")
    if (result.loads, result.stores, result.peak) != (run.loads, run.stores, run.peak):
        raise _Reject(f"the lowered schedule has loads/stores/peak "
                      f"{(result.loads, result.stores, result.peak)} in the pebble game, the "
                      f"trace {(run.loads, run.stores, run.peak)}")


# --- 2-3. the replay ---------------------------------------------------------------------------

def replay_trace(trace: Trace, inputs: dict, contract: KernelContract | None = None) -> _Replayed:
    """Re-execute every record on a fresh memory laid out by ``contract``; raises _Reject with
    the first broken rule.  Without a contract the trace's own M and arrays are used: a
    diagnostic replay (tests read replayed outputs with it), never a certification."""
    try:
        if contract is None:
            memory, arrays = trace.memory, dict(trace.arrays)
        else:
            memory, arrays = contract.memory, contract.declared
        state = _State(memory, arrays, inputs)
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
    """Slow arrays with written (and, for inputs, loaded) masks, live tiles, counters: the
    replay's machine.  ``vertices`` counts the scalar vertices the lowering would create."""

    def __init__(self, memory, arrays: dict, inputs: dict):
        if isinstance(memory, bool) or not isinstance(memory, (int, np.integer)) or memory < 1:
            raise _Reject(f"memory M must be a positive integer, got {memory!r}")
        self.memory = memory
        self.slow, self.written, self.roles, self.loaded = {}, {}, {}, {}
        self.vertices = 0
        for name, (shape, role) in arrays.items():
            self._declare(name, tuple(shape), role, inputs)
        extra = set(inputs) - {n for n, r in self.roles.items() if r == "input"}
        if extra:
            raise _Reject(f"input {sorted(extra)[0]!r} is given but not declared")
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
            self.loaded[name] = np.zeros(shape, dtype=bool)
            self.vertices += data.size
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

    @staticmethod
    def _id(tid) -> int:
        """A tile id: an integer (not a boolean); anything else is refused (None would read
        as "no tile" to the op rules, ``ops.check_out``)."""
        if type(tid) is not int:
            raise _Reject(f"tile id {tid!r} is not an integer")
        return tid

    def _tile(self, tid) -> np.ndarray:
        tile = self.tiles.get(self._id(tid))
        if tile is None:
            raise _Reject(f"tile #{tid} is not live")
        return tile

    def _slice(self, name, r0, r1, c0, c1):
        if name not in self.slow:
            raise _Reject(f"slow array {name!r} does not exist")
        rows, cols = self.slow[name].shape
        if not all(type(x) is int for x in (r0, r1, c0, c1)) \
                or not (0 <= r0 < r1 <= rows and 0 <= c0 < c1 <= cols):
            raise _Reject(f"range [{r0}:{r1}, {c0}:{c1}] is outside {name!r} {(rows, cols)}")
        return (slice(r0, r1), slice(c0, c1))

    def _capacity(self, need) -> None:
        if need > self.memory:
            raise _Reject(f"capacity exceeded: {need} words live > M = {self.memory}")
        self.peak = max(self.peak, need)

    def _load(self, tid, name, r0, r1, c0, c1) -> None:
        index = self._slice(name, r0, r1, c0, c1)
        if self._id(tid) in self.tiles:
            raise _Reject(f"tile #{tid} is already live")
        if not self.written[name][index].all():
            raise _Reject(f"loads words of {name!r} that do not exist (never written)")
        data = self.slow[name][index].copy()
        self._capacity(self.live + data.size)
        if name in self.loaded:
            self.loaded[name][index] = True
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
        if not isinstance(ins, tuple):
            raise _Reject(f"the op's inputs {ins!r} are not a tuple of tile ids")
        arrays = tuple(self._tile(t) for t in ins)
        self._id(out)
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
        self.vertices += size * ops.chain_length(name, shapes, bool(ta), bool(tb),
                                                 bool(accumulate))
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
        unread = {name: int((~mask).sum()) for name, mask in self.loaded.items()}
        return _Replayed(outputs, self.loads, self.stores, self.peak, self.vertices, unread)
