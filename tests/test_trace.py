"""The traced memory and certification by replay: accounting, violations, tampered traces and
cheating kernels (none of them may come out certified)."""

import copy

import numpy as np
import pytest

from ioverify.trace import KernelContract, TracedMemory, TraceViolation
from ioverify.trace.certify import certify
from ioverify.trace.kernel import KERNELS, contract_for, run_kernel


def matmul_reference(x):
    return {"C": x["A"] @ x["B"]}


def tiny_matmul(mem, a_data, b_data):
    """C = A B for A 2x3, B 3x2 with whole-matrix tiles; returns the output array."""
    A, B = mem.input("A", a_data), mem.input("B", b_data)
    C = mem.output("C", (2, 2))
    ta = mem.load(A, (0, 2), (0, 3))
    tb = mem.load(B, (0, 3), (0, 2))
    tc = mem.matmul(ta, tb)
    mem.store(tc, C, 0, 0)
    for t in (ta, tb, tc):
        mem.free(t)
    return mem


def matmul_contract(memory, a=(2, 3), b=(3, 2), c=(2, 2)):
    return KernelContract.of(memory, inputs={"A": a, "B": b}, outputs={"C": c})


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return {"A": rng.standard_normal((2, 3)), "B": rng.standard_normal((3, 2))}


def test_accounting_counts_words_and_the_pebble_being_placed():
    x = inputs()
    mem = tiny_matmul(TracedMemory(13), x["A"], x["B"])
    assert (mem.trace.loads, mem.trace.stores) == (12, 4)
    # 6 + 6 live, 4 new, +1 for the running partial sum of a length-3 dot product
    assert mem.trace.peak == 17 and mem.trace.overflow == (2, 17)
    assert mem.live == 0


def test_genuine_trace_is_certified_and_counts_recounted():
    x = inputs()
    mem = tiny_matmul(TracedMemory(17), x["A"], x["B"])
    cert = certify(mem.trace, matmul_contract(17), x, {"C": mem.read("C")}, matmul_reference,
                   1e-12, probe_inputs=inputs(1))
    assert cert.certified, cert.reason
    assert (cert.loads, cert.stores, cert.peak) == (12, 4, 17)
    assert cert.max_error < 1e-15 and dict(cert.errors)["C"] == cert.max_error
    assert cert.game_replayed and cert.vertices == 6 + 6 + 4 * 3


def test_capacity_exceeded_is_not_certified():
    x = inputs()
    mem = tiny_matmul(TracedMemory(16), x["A"], x["B"])
    cert = certify(mem.trace, matmul_contract(16), x, {"C": mem.read("C")}, matmul_reference,
                   1e-12)
    assert not cert.certified and "capacity exceeded: 17 words live > M = 16" in cert.reason


def test_memory_refuses_dead_tiles_unwritten_data_and_bad_ranges():
    mem = TracedMemory(100)
    A = mem.input("A", np.ones((2, 2)))
    O = mem.output("O", (2, 2))
    t = mem.load(A, (0, 2), (0, 2))
    mem.free(t)
    with pytest.raises(TraceViolation, match="not live"):
        mem.exp(t)
    with pytest.raises(TraceViolation, match="never written"):
        mem.load(O, (0, 1), (0, 1))
    with pytest.raises(TraceViolation, match="outside"):
        mem.load(A, (0, 3), (0, 1))
    u = mem.load(A, (0, 1), (0, 2))
    with pytest.raises(TraceViolation, match="input array"):
        mem.store(u, A, 0, 0)
    with pytest.raises(TraceViolation, match="cannot write into one of its own operands"):
        sq = mem.load(A, (0, 2), (0, 2))
        mem.matmul(sq, sq, out=sq)
    with pytest.raises(TraceViolation, match="cannot accumulate"):
        mem._op("exp", (u,), u, True)


def test_op_set_has_no_way_to_bring_in_outside_data():
    from ioverify.trace import ops

    assert not {"fill", "const", "constant", "scalar", "set"} & ops.OPS
    mem = TracedMemory(10)
    with pytest.raises(TraceViolation, match="takes tiles"):
        mem.exp(np.ones((1, 1)))  # a raw array is not a tile


# --- tampered traces ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def genuine():
    report = run_kernel("flash-forward-v2", memory=60, n=7, d=3, seed=3)
    assert report.certified
    from ioverify.trace.kernel import random_inputs
    from ioverify.trace.kernel import KERNELS

    spec = KERNELS["flash-forward-v2"]
    x = random_inputs(spec, report.sizes, [3, 0])
    from ioverify.trace.certify import replay_trace

    outs = replay_trace(report.trace, x).outputs
    return report.trace, x, outs, spec.reference


GENUINE_CONTRACT = contract_for(KERNELS["flash-forward-v2"], {"n": 7, "d": 3}, 60)


def recertify(trace, x, outs, reference, contract=GENUINE_CONTRACT):
    return certify(trace, contract, x, outs, reference, 1e-9)


def test_genuine_replays(genuine):
    assert recertify(*genuine).certified


def test_tampered_memory_size_fails(genuine):
    trace, x, outs, ref = genuine
    bad = copy.deepcopy(trace)
    bad.memory = trace.peak - 1
    cert = recertify(bad, x, outs, ref)
    assert not cert.certified
    assert cert.reason == f"the trace says M = {trace.peak - 1}, the contract (the caller's " \
                          f"request) says M = 60"


def test_contract_memory_below_the_peak_fails(genuine):
    trace, x, outs, ref = genuine
    bad = copy.deepcopy(trace)
    bad.memory = trace.peak - 1
    small = KernelContract(trace.peak - 1, GENUINE_CONTRACT.arrays)
    cert = recertify(bad, x, outs, ref, small)
    assert not cert.certified and "capacity exceeded" in cert.reason


def test_op_on_freed_tile_fails(genuine):
    trace, x, outs, ref = genuine
    bad = copy.deepcopy(trace)
    i = next(i for i, r in enumerate(bad.records) if r[0] == "op")
    tile = bad.records[i][3][0]
    bad.records.insert(i, ("free", tile))
    cert = recertify(bad, x, outs, ref)
    assert not cert.certified and "is not live" in cert.reason


def test_load_of_nonexistent_data_fails(genuine):
    trace, x, outs, ref = genuine
    for array in ("O", "secret"):
        bad = copy.deepcopy(trace)
        i = next(i for i, r in enumerate(bad.records) if r[0] == "load")
        r = bad.records[i]
        bad.records[i] = (r[0], r[1], array, 0, 1, 0, 1) if array == "O" else \
            (r[0], r[1], array) + r[3:]
        cert = recertify(bad, x, outs, ref)
        assert not cert.certified
        assert ("do not exist" in cert.reason) or ("does not exist" in cert.reason)


def test_output_never_stored_fails(genuine):
    trace, x, outs, ref = genuine
    bad = copy.deepcopy(trace)
    i = max(i for i, r in enumerate(bad.records) if r[0] == "store" and r[2] == "O")
    del bad.records[i]
    cert = recertify(bad, x, outs, ref)
    assert not cert.certified and "never stored" in cert.reason


def test_inflated_claims_and_unknown_records_fail(genuine):
    trace, x, outs, ref = genuine
    bad = copy.deepcopy(trace)
    bad.loads -= 1
    assert "differ from the replay" in recertify(bad, x, outs, ref).reason
    bad = copy.deepcopy(trace)
    bad.records.insert(0, ("fill", 999, (1, 1), 3.0))
    assert "unknown record kind 'fill'" in recertify(bad, x, outs, ref).reason
    bad = copy.deepcopy(trace)
    i = next(i for i, r in enumerate(bad.records) if r[0] == "op")
    bad.records[i] = bad.records[i][:1] + ("const",) + bad.records[i][2:]
    assert "unknown operation 'const'" in recertify(bad, x, outs, ref).reason


def test_changed_operation_gives_other_outputs(genuine):
    trace, x, outs, ref = genuine
    bad = copy.deepcopy(trace)
    i = next(i for i, r in enumerate(bad.records) if r[0] == "op" and r[1] == "exp")
    bad.records[i] = ("op", "log") + bad.records[i][2:]
    cert = recertify(bad, x, outs, ref)
    assert not cert.certified


# --- cheating kernels -----------------------------------------------------------------------

def test_kernel_writing_a_captured_array_into_a_tile_fails():
    """The cheat computes C outside the traced memory and pokes it into a tile behind the
    memory's back: the replay (from the trace alone) does not reproduce it."""
    x = inputs()
    captured = x["A"] @ x["B"]
    mem = TracedMemory(100)
    A, B = mem.input("A", x["A"]), mem.input("B", x["B"])
    C = mem.output("C", (2, 2))
    ta = mem.load(A, (0, 2), (0, 2))
    tc = mem.copy(ta)
    mem._tiles[tc.id] = captured.copy()  # smuggled
    mem.store(tc, C, 0, 0)
    claimed = {"C": mem.read("C")}
    assert np.array_equal(claimed["C"], captured)  # the kernel's own output is right...
    cert = certify(mem.trace, matmul_contract(100), x, claimed, matmul_reference, 1e-9,
                   probe_inputs=inputs(1))
    assert not cert.certified and "differs from the kernel's output" in cert.reason


def constant_cheat(load_b):
    """C = A B for 1x1 A, B, except that the cheat does not use B: it knows B = [[3]] and
    builds 3 = x/x + x/x + x/x from a loaded word (it loads B, for show, when asked)."""
    x = {"A": np.array([[2.0]]), "B": np.array([[3.0]])}
    mem = TracedMemory(10)
    A, B = mem.input("A", x["A"]), mem.input("B", x["B"])
    C = mem.output("C", (1, 1))
    if load_b:
        mem.free(mem.load(B, (0, 1), (0, 1)))
    a = mem.load(A, (0, 1), (0, 1))
    one = mem.div(a, a)
    three = mem.add(one, one)
    mem.add(three, one, out=three)
    mem.mul(three, a, out=three)
    mem.store(three, C, 0, 0)
    return mem, x, {"C": mem.read("C")}


def test_kernel_building_a_captured_value_from_constants_fails_on_probe_inputs():
    """The replay on the given inputs agrees and matches the reference; on fresh probe inputs
    the trace computes A*3, not A*B, so certification fails."""
    mem, x, claimed = constant_cheat(load_b=True)
    contract = matmul_contract(10, (1, 1), (1, 1), (1, 1))
    assert certify(mem.trace, contract, x, claimed, matmul_reference, 1e-12).certified
    probe = {"A": np.array([[5.0]]), "B": np.array([[-7.0]])}
    cert = certify(mem.trace, contract, x, claimed, matmul_reference, 1e-12, probe_inputs=probe)
    assert not cert.certified and "on fresh probe inputs, output 'C'" in cert.reason


def test_input_never_loaded_fails():
    """Without even loading B, the cheat's I/O (2) is below the trivial bound (3)."""
    mem, x, claimed = constant_cheat(load_b=False)
    contract = matmul_contract(10, (1, 1), (1, 1), (1, 1))
    cert = certify(mem.trace, contract, x, claimed, matmul_reference, 1e-12)
    assert not cert.certified and cert.reason.startswith("input 'B' has 1 word(s) never loaded")


def test_malformed_traces_are_rejected_not_crashing(genuine):
    trace, x, outs, ref = genuine
    for mutate in (lambda t: t.records.insert(3, ("op",)),
                   lambda t: t.records.insert(3, ("load", 99, "Q", 0, "x", 0, 1)),
                   lambda t: t.records.insert(3, ("store", 99, "O", 0, 0)),
                   lambda t: t.arrays.update({"O": ("bad", "output")}),
                   lambda t: t.arrays.update({"O": ((7, 3), "magic")}),
                   lambda t: setattr(t, "memory", "lots")):
        bad = copy.deepcopy(trace)
        mutate(bad)
        cert = recertify(bad, x, outs, ref)
        assert not cert.certified and cert.reason


def test_wrong_or_missing_inputs_are_rejected(genuine):
    trace, x, outs, ref = genuine
    assert "was not given" in recertify(trace, {"Q": x["Q"]}, outs, ref).reason
    y = dict(x, Q=x["Q"][:, :1])
    assert "has shape" in recertify(trace, y, outs, ref).reason
    assert "given but not declared" in recertify(trace, dict(x, Z=x["Q"]), outs, ref).reason


def test_matmul_and_rowsum_fold_left_to_right_so_equal_sums_are_equal_bit_for_bit():
    """dP_ij and D_i of attention with one key per row are the same sum of the same products;
    the traced arithmetic folds every sum in index order, whatever BLAS does, so their
    difference is exactly zero (a softmax over one key has an exactly zero gradient)."""
    from ioverify.trace import ops

    rng = np.random.default_rng(3)
    for k in (2, 5, 8, 37, 130):
        x, y = rng.standard_normal((1, k)), rng.standard_normal((1, k))
        dot = ops.apply("matmul", (x, y), False, True)
        total = ops.apply("rowsum", (x * y,), False, False)
        assert dot[0, 0] == total[0, 0]
        assert dot[0, 0] == sum((x * y)[0][1:], (x * y)[0][0])


def test_accumulating_matmul_continues_the_chain_from_the_old_value():
    from ioverify.trace import ops

    a, b = np.array([[1e16, 1.0]]), np.array([[1.0], [1.0]])
    out = np.array([[-1e16]])
    ops.apply("matmul", (a, b), False, False, out=out, accumulate=True)
    assert out[0, 0] == 1.0  # ((-1e16 + 1e16) + 1), not -1e16 + (1e16 + 1) = 0
