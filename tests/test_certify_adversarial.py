"""Cheating kernels run through the real path (``run_spec`` with a registry spec whose loop nest
is replaced), each failing to certify with the right reason (issue 12): the contract (M, the
arrays, their roles and shapes) comes from the spec and the request, never from the trace; the
error is relative; and the lowered schedule is replayed in the pebble game."""

import importlib
from dataclasses import replace

import numpy as np
import pytest

from ioverify.errors import InvalidArgument
from ioverify.game import replay
from ioverify.game.rules import LOAD, Schedule
from ioverify.trace import KernelContract, TracedMemory
from ioverify.trace.certify import certify
from ioverify.trace.lower import lower
from ioverify.trace.kernel import KERNELS, contract_for, run_kernel, run_spec
from ioverify.trace.kernel import declare
from ioverify.kernels.flash_forward_v2 import run as fa2_run

certify_module = importlib.import_module("ioverify.trace.certify")  # the attribute is the function
FA2 = KERNELS["flash-forward-v2"]
BIG_BLOCKS = {"block_r": 16, "block_c": 16}  # a working set far above M = 120


def cheat(name, run):
    return replace(KERNELS[name], run=run)


class SkipStoresTo:
    """A memory that silently drops the stores into one array (the kernel never produces it)."""

    def __init__(self, mem, array):
        self._mem, self._array = mem, array

    def store(self, tile, array, row, col):
        if array.name != self._array:
            self._mem.store(tile, array, row, col)

    def __getattr__(self, attr):
        return getattr(self._mem, attr)


# --- 1. M from the trace -----------------------------------------------------------------------

def test_memory_inflated_through_mem_trace_memory():
    def inflate(mem, a, sizes, blk):
        mem.trace.memory = 10**9
        fa2_run(mem, a, sizes, blk)

    report = run_spec(cheat("flash-forward-v2", inflate), memory=120, n=16, d=4,
                      blocks=BIG_BLOCKS)
    assert not report.certified
    assert report.reason == ("the trace says M = 1000000000, the contract (the caller's "
                             "request) says M = 120")
    assert report.peak > 120  # what the cheat hid: its schedule is illegal at M = 120
    dag, schedule = lower(report.trace)
    assert replay(dag, schedule, 120).error_rule == "capacity"


def test_memory_set_back_to_the_request_after_overflowing_is_caught_by_the_replay():
    def inflate_then_restore(mem, a, sizes, blk):
        mem.trace.memory = 10**9
        fa2_run(mem, a, sizes, blk)
        mem.trace.memory = 120

    report = run_spec(cheat("flash-forward-v2", inflate_then_restore), memory=120, n=16, d=4,
                      blocks=BIG_BLOCKS)
    assert not report.certified and "capacity exceeded" in report.reason
    assert report.reason.endswith("> M = 120")


def test_trace_swapped_for_one_recorded_on_a_larger_memory():
    def swap(mem, a, sizes, blk):
        own = TracedMemory(10**6)
        arrays = declare(own, FA2, sizes, {name: mem.read(name) for name in ("Q", "K", "V")})
        fa2_run(own, arrays, sizes, blk)
        mem.trace, mem._slow = own.trace, own._slow

    report = run_spec(cheat("flash-forward-v2", swap), memory=120, n=16, d=4, blocks=BIG_BLOCKS)
    assert not report.certified
    assert report.reason == ("the kernel replaced the traced memory's trace with another "
                             "object: only the trace the memory created is evidence")


def test_swapped_trace_given_to_certify_directly_is_rejected_on_m():
    x = {name: np.random.default_rng(0).standard_normal((16, 4)) for name in ("Q", "K", "V")}
    own = TracedMemory(10**6)
    fa2_run(own, declare(own, FA2, {"n": 16, "d": 4}, x), {"n": 16, "d": 4}, BIG_BLOCKS)
    contract = contract_for(FA2, {"n": 16, "d": 4}, 120)
    outputs = {name: own.read(name) for name in ("O", "L")}
    cert = certify(own.trace, contract, x, outputs, FA2.reference, 1e-9)
    assert not cert.certified
    assert cert.reason == ("the trace says M = 1000000, the contract (the caller's request) "
                           "says M = 120")


# --- 2. outputs from the trace -----------------------------------------------------------------

def test_output_deleted_from_trace_arrays():
    def delete_l(mem, a, sizes, blk):
        fa2_run(SkipStoresTo(mem, "L"), a, sizes, blk)
        del mem.trace.arrays["L"]

    report = run_spec(cheat("flash-forward-v2", delete_l), memory=120, n=8, d=3)
    assert not report.certified
    assert report.reason == "the trace does not declare output 'L' (8, 1) of the contract"


def test_output_relabelled_as_scratch():
    def relabel_l(mem, a, sizes, blk):
        fa2_run(SkipStoresTo(mem, "L"), a, sizes, blk)
        mem.trace.arrays["L"] = ((sizes["n"], 1), "scratch")

    report = run_spec(cheat("flash-forward-v2", relabel_l), memory=120, n=8, d=3)
    assert not report.certified
    assert report.reason == "array 'L' is declared as 'scratch', the contract says 'output'"


def test_output_declared_but_never_stored():
    def skip_l(mem, a, sizes, blk):
        fa2_run(SkipStoresTo(mem, "L"), a, sizes, blk)

    report = run_spec(cheat("flash-forward-v2", skip_l), memory=120, n=8, d=3)
    assert not report.certified and report.reason == "output 'L' has 8 word(s) never stored"


def test_do_nothing_kernel():
    def nothing(mem, a, sizes, blk):
        del mem.trace.arrays["C"]

    report = run_spec(cheat("matmul-tiled", nothing), memory=40, m=4, k=3, n=5)
    assert not report.certified and report.io == 0
    assert report.reason == "the trace does not declare output 'C' (4, 5) of the contract"


def test_fa2_without_l_padded_with_loads_to_the_closed_form():
    def no_l_padded(mem, a, sizes, blk):
        fa2_run(SkipStoresTo(mem, "L"), a, sizes, blk)
        del mem.trace.arrays["L"]
        for i in range(sizes["n"]):  # n loads instead of the n stores of L
            mem.free(mem.load(a["Q"], (i, i + 1), (0, 1)))

    report = run_spec(cheat("flash-forward-v2", no_l_padded), memory=120, n=8, d=3)
    assert report.io == report.formula  # the padding hits the shipped formula exactly...
    assert not report.certified  # ...and still does not pass
    assert report.reason == "the trace does not declare output 'L' (8, 1) of the contract"


def test_extra_array_declared_is_rejected():
    def extra(mem, a, sizes, blk):
        mem.scratch("stash", (1, 1))
        fa2_run(mem, a, sizes, blk)

    report = run_spec(cheat("flash-forward-v2", extra), memory=120, n=8, d=3)
    assert not report.certified
    assert report.reason == "the trace declares array 'stash', which is not in the contract"


# --- 3. the tolerance --------------------------------------------------------------------------

def test_polynomial_tiny_entries_zero_output_without_reading_k():
    def zero_o(mem, a, sizes, blk):
        n, d = sizes["n"], sizes["d"]
        q = mem.load(a["Q"], (0, n), (0, d))
        zero = mem.sub(q, q)
        mem.store(zero, a["O"], 0, 0)
        mem.free(q)
        mem.free(zero)

    report = run_spec(cheat("polynomial-forward", zero_o), memory=400, n=8, d=3,
                      entry_bound=1e-12)
    assert report.io < 4 * 8 * 3  # below the trivial lower bound 4nd
    assert not report.certified
    assert report.reason == ("output 'O' differs from the float64 reference: relative error 1 > "
                             "tolerance 1e-09")


def test_polynomial_tiny_entries_mean_of_v_without_reading_q_and_k():
    """With entries of 1e-12, O is the column mean of V to 23 digits: the cheat matches the
    reference without reading Q or K, and is caught because it never loads them."""
    def mean_of_v(mem, a, sizes, blk):
        n, d = sizes["n"], sizes["d"]
        v = mem.load(a["V"], (0, n), (0, d))
        row = mem.rowmax(v)
        ones = mem.ones(row)
        sums = mem.matmul(ones, v, trans_a=True)
        count = mem.matmul(ones, ones, trans_a=True)
        mem.div(sums, count, out=sums)
        out = mem.matmul(ones, sums)
        mem.store(out, a["O"], 0, 0)
        for t in (v, row, ones, sums, count, out):
            mem.free(t)

    report = run_spec(cheat("polynomial-forward", mean_of_v), memory=400, n=8, d=3,
                      entry_bound=1e-12)
    assert report.max_error < 1e-9  # the numbers alone would pass
    assert not report.certified
    assert report.reason.startswith("input 'Q' has 24 word(s) never loaded")


def test_genuine_polynomial_kernel_with_tiny_entries_is_certified():
    report = run_kernel("polynomial-forward", memory=400, n=8, d=3, entry_bound=1e-12)
    assert report.certified, report.reason
    assert report.max_error < 1e-12


def test_entries_below_the_floor_are_refused():
    report = run_kernel("polynomial-forward", memory=400, n=8, d=3, entry_bound=1e-120)
    assert not report.certified
    assert report.reason.startswith("input 'Q' has max |x| = ")
    assert report.reason.endswith("< 1e-100: outputs computed from it cannot be judged, so "
                                  "nothing is certified")


def tiny_matmul(memory=17):
    rng = np.random.default_rng(0)
    x = {"A": rng.standard_normal((2, 3)), "B": rng.standard_normal((3, 2))}
    mem = TracedMemory(memory)
    A, B, C = mem.input("A", x["A"]), mem.input("B", x["B"]), mem.output("C", (2, 2))
    ta, tb = mem.load(A, (0, 2), (0, 3)), mem.load(B, (0, 3), (0, 2))
    tc = mem.matmul(ta, tb)
    mem.store(tc, C, 0, 0)
    for t in (ta, tb, tc):
        mem.free(t)
    contract = KernelContract.of(memory, inputs={"A": (2, 3), "B": (3, 2)},
                                 outputs={"C": (2, 2)})
    return mem, x, contract


def test_reference_below_the_floor_is_refused():
    mem, x, contract = tiny_matmul()
    cert = certify(mem.trace, contract, x, {"C": mem.read("C")},
                   lambda y: {"C": y["A"] @ y["B"] * 1e-120}, 1e-9)
    assert not cert.certified
    assert "the reference of output 'C' has max |ref| = " in cert.reason
    assert cert.reason.endswith("< 1e-100: a zero output could not be told from the right one, "
                                "so it is not certified")


def test_exactly_zero_reference_is_compared_exactly():
    """dQ and dK of attention with n = 1 are 0 (softmax over one key): certified with error 0;
    a nonzero output against a zero reference is an infinite error."""
    report = run_kernel("flash-backward-v2", memory=60, n=1, d=3)
    assert report.certified, report.reason
    assert report.errors["dQ"] == report.errors["dK"] == 0.0
    mem, x, contract = tiny_matmul()
    cert = certify(mem.trace, contract, x, {"C": mem.read("C")},
                   lambda y: {"C": np.zeros((2, 2))}, 1e-9)
    assert not cert.certified and "relative error inf" in cert.reason


def test_tolerance_of_one_or_more_is_refused():
    mem, x, contract = tiny_matmul()
    with pytest.raises(InvalidArgument, match="tolerance must be in"):
        certify(mem.trace, contract, x, {"C": mem.read("C")}, lambda y: {"C": y["A"] @ y["B"]},
                1.0)


# --- genuine kernels, and the pebble game ------------------------------------------------------

SIZES = {"matmul-tiled": dict(m=4, k=3, n=5)}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_genuine_kernel_is_certified_with_the_game_replayed(name):
    report = run_kernel(name, memory=100, **SIZES.get(name, dict(n=5, d=3)))
    assert report.certified, report.reason
    assert report.io == report.formula and report.peak <= 100
    assert report.game_replayed and report.game.startswith("legal and complete")
    assert 0 < report.vertices <= certify_module.GAME_VERTEX_CAP
    doc = report.to_json()
    assert doc["game_replayed"] is True and doc["vertices"] == report.vertices


def test_game_replay_is_performed_on_a_small_trace():
    mem, x, contract = tiny_matmul()
    cert = certify(mem.trace, contract, x, {"C": mem.read("C")},
                   lambda y: {"C": y["A"] @ y["B"]}, 1e-12)
    assert cert.certified and cert.game_replayed
    assert cert.vertices == 6 + 6 + 4 * 3
    assert cert.game == ("legal and complete: 12 loads + 4 stores = 16 I/O, peak 17 red of "
                         "M = 17 (recompute)")


def test_lowered_schedule_illegal_at_m_is_rejected(monkeypatch):
    """The game's verdict is consulted: a lowering whose schedule breaks a rule (here the first
    load is dropped) makes certification fail."""
    def broken_lower(trace, **kwargs):
        dag, schedule = lower(trace, **kwargs)
        first = schedule.kinds.index(LOAD)
        kinds = schedule.kinds[:first] + schedule.kinds[first + 1:]
        verts = schedule.vertices[:first] + schedule.vertices[first + 1:]
        return dag, Schedule(kinds, verts)

    monkeypatch.setattr(certify_module, "lower", broken_lower)
    mem, x, contract = tiny_matmul()
    cert = certify(mem.trace, contract, x, {"C": mem.read("C")},
                   lambda y: {"C": y["A"] @ y["B"]}, 1e-12)
    assert not cert.certified and cert.game_replayed
    assert cert.reason.startswith("the lowered schedule fails in the pebble game at M = 17: "
                                  "illegal move")


def test_trace_without_pebble_game_counterpart_is_rejected():
    """Loading data that is already live is legal for the traced memory but has no game move."""
    rng = np.random.default_rng(0)
    x = {"A": rng.standard_normal((1, 2))}
    mem = TracedMemory(10)
    A, C = mem.input("A", x["A"]), mem.output("C", (1, 2))
    first = mem.load(A, (0, 1), (0, 2))
    again = mem.load(A, (0, 1), (0, 2))
    out = mem.add(first, again)
    mem.store(out, C, 0, 0)
    for t in (first, again, out):
        mem.free(t)
    contract = KernelContract.of(10, inputs={"A": (1, 2)}, outputs={"C": (1, 2)})
    cert = certify(mem.trace, contract, x, {"C": mem.read("C")}, lambda y: {"C": 2 * y["A"]},
                   1e-12)
    assert not cert.certified
    assert cert.reason.startswith("the trace has no pebble-game counterpart: record #1 loads "
                                  "vertex 0 of 'A', which is already red")


def test_game_replay_skipped_above_the_cap_says_so():
    mem, x, contract = tiny_matmul()
    cert = certify(mem.trace, contract, x, {"C": mem.read("C")},
                   lambda y: {"C": y["A"] @ y["B"]}, 1e-12, game_vertex_cap=10)
    assert cert.certified and not cert.game_replayed
    assert cert.game == "skipped for size: the lowered DAG would have 24 scalar vertices > cap 10"


def test_contract_is_validated():
    with pytest.raises(InvalidArgument, match="positive integer"):
        KernelContract(0, ())
    with pytest.raises(InvalidArgument, match="twice"):
        KernelContract.of(5, inputs={"A": (1, 1)}, outputs={"A": (1, 1)})
    with pytest.raises(InvalidArgument, match="role"):
        KernelContract(5, (("A", "secret", (1, 1)),))
    with pytest.raises(InvalidArgument, match="KernelContract"):
        certify(TracedMemory(5).trace, 5, {}, {}, dict, 1e-9)


# --- found by trying (2026-12-01): probes, records read twice, tile ids -------------------------

def _constant(value: float, base: int, tid: int) -> list:
    """Records that leave ``value`` (to about 2^-40, relative) in a new 1x1 tile ``tid``, from
    ones() of the live tile ``base``: a constant no load reads, in at most 4 words."""
    from fractions import Fraction

    one, two, den = tid + 1, tid + 2, tid + 3
    records = [("op", "ones", tid, (base,), True, False, False, False),
               ("op", "ones", one, (base,), True, False, False, False),
               ("op", "add", two, (one, one), True, False, False, False)]
    q = Fraction(abs(value)).limit_denominator(1 << 40)

    def build(n):  # tid := n, bit by bit
        out = [("op", "sub", tid, (tid, tid), False, False, False, False)]
        for bit in bin(n)[2:]:
            out.append(("op", "mul", tid, (tid, two), False, False, False, False))
            if bit == "1":
                out.append(("op", "add", tid, (tid, one), False, False, False, False))
        return out

    records += build(q.denominator) + [("op", "copy", den, (tid,), True, False, False, False)]
    records += build(q.numerator) + [("op", "div", tid, (tid, den), False, False, False, False),
                                     ("free", den)]
    if value < 0:
        records += [("op", "sub", one, (one, one), False, False, False, False),
                    ("op", "sub", tid, (one, tid), False, False, False, False)]
    return records + [("free", one), ("free", two)]


def _baked_matmul(values: np.ndarray, slope: np.ndarray | None = None) -> list:
    """A 2x2x2 matmul trace that loads every input word once, then writes C[i, j] =
    values[i, j] (+ slope[i, j] * A[0, 0] with ``slope``): a straight-line program that
    computes no product."""
    records = [("load", 0, "A", 0, 2, 0, 2), ("free", 0), ("load", 0, "B", 0, 2, 0, 2),
               ("free", 0), ("load", 0, "A", 0, 1, 0, 1)]
    for i in range(2):
        for j in range(2):
            records += _constant(float(values[i, j]), 0, 10)
            if slope is not None:
                records += _constant(float(slope[i, j]), 0, 20)
                records += [("op", "mul", 20, (20, 0), False, False, False, False),
                            ("op", "add", 10, (10, 20), False, False, False, False),
                            ("free", 20)]
            records += [("store", 10, "C", i, j), ("free", 10)]
    return records + [("free", 0)]


def _recount(trace, inputs):
    """The counts the tracer would claim for hand-written ``trace.records``."""
    run = certify_module.replay_trace(trace, inputs, contract_for(KERNELS["matmul-tiled"],
                                                                  {"m": 2, "k": 2, "n": 2}, 8))
    trace.loads, trace.stores, trace.peak = run.loads, run.stores, run.peak
    return run


def test_a_kernel_that_knows_the_inputs_seed_cannot_know_the_probe():
    """Regression: the probe inputs were drawn from [seed, 1], which a kernel could recover
    from its inputs (drawn from [seed, 0]); a trace fitting C = alpha + beta * A[0, 0] to both
    answers was certified at I/O 16, the closed form, computing no product.  The probe is now
    seeded by the trace's digest, drawn once the trace is fixed."""
    from ioverify.trace.kernel import random_inputs

    spec = KERNELS["matmul-tiled"]

    def fitted(mem, x, sizes, blk):
        a, b = mem.read("A"), mem.read("B")
        seed = next(s for s in range(100)
                    if np.array_equal(random_inputs(spec, sizes, [s, 0], blk)["A"], a))
        probe = random_inputs(spec, sizes, [seed, 1], blk)
        slope = (probe["A"] @ probe["B"] - a @ b) / (probe["A"][0, 0] - a[0, 0])
        mem.trace.records[:] = _baked_matmul(a @ b - slope * a[0, 0], slope)
        # padded with loads of A[0, 0] to the closed form's 16 transfers
        mem.trace.records[4:4] = [("load", 0, "A", 0, 1, 0, 1), ("free", 0)] * 3
        run = _recount(mem.trace, {"A": a, "B": b})
        mem._slow["C"][:] = run.outputs["C"]

    report = run_spec(cheat("matmul-tiled", fitted), memory=8, seed=3, m=2, k=2, n=2)
    assert report.io == 16 and report.max_error < 1e-9  # right on its own inputs
    assert not report.certified
    assert "on fresh probe inputs" in report.reason


def test_records_are_read_once():
    """Regression: certify read ``trace.records`` once per pass (the replay, the probe's
    replay, the lowering); records that gave the honest program on the probe's pass only
    certified a trace that bakes C in for the given inputs."""
    mem = TracedMemory(8)
    spec, sizes = KERNELS["matmul-tiled"], {"m": 2, "k": 2, "n": 2}
    from ioverify.trace.kernel import plan_spec, probe_for, random_inputs

    spec, sizes, blocks = plan_spec(spec, memory=8, **sizes)
    x = random_inputs(spec, sizes, [0, 0], blocks)
    spec.run(mem, declare(mem, spec, sizes, x), sizes, blocks)
    honest, baked = list(mem.trace.records), _baked_matmul(x["A"] @ x["B"])

    class Records:
        passes = 0

        def __iter__(self):
            Records.passes += 1
            return iter(honest if Records.passes == 2 else baked)

    mem.trace.records = baked
    _recount(mem.trace, x)  # the counts claimed are the baked program's
    mem.trace.records = Records()
    cert = certify(mem.trace, contract_for(spec, sizes, 8), x, {"C": x["A"] @ x["B"]},
                   spec.reference, spec.tolerance, probe_inputs=probe_for(spec, sizes, 0))
    assert not cert.certified


def test_a_tile_id_that_is_not_an_integer_is_refused():
    """Regression: a tile id of None read as "no output tile" to the op rules, so an op
    writing into its own operand cost no scratch word; above the game's vertex cap a matmul
    trace was certified at M = 2, where no schedule exists."""
    contract = KernelContract.of(2, inputs={"A": (2, 2), "B": (2, 2)}, outputs={"C": (2, 2)})
    records = []
    for i in range(2):
        for j in range(2):
            for k in range(2):
                records += [("load", None, "A", i, i + 1, k, k + 1),
                            ("load", 1, "B", k, k + 1, j, j + 1),
                            ("op", "mul", None, (None, 1), False, False, False, False),
                            ("free", 1)]
                if k:
                    records += [("load", 1, "C", i, i + 1, j, j + 1),
                                ("op", "add", None, (None, 1), False, False, False, False),
                                ("free", 1)]
                records += [("store", None, "C", i, j), ("free", None)]
    rng = np.random.default_rng(0)
    x = {"A": rng.standard_normal((2, 2)), "B": rng.standard_normal((2, 2))}
    from ioverify.trace.memory import Trace

    trace = Trace(2, {"A": ((2, 2), "input"), "B": ((2, 2), "input"),
                      "C": ((2, 2), "output")}, records, loads=24, stores=8, peak=2)
    cert = certify(trace, contract, x, {"C": x["A"] @ x["B"]}, lambda v: {"C": v["A"] @ v["B"]},
                   1e-9, game_vertex_cap=0)
    assert not cert.certified
    assert "tile id None is not an integer" in cert.reason
