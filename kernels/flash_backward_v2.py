"""FlashAttention-2 backward (Dao, arXiv 2307.08691, Algorithm 2): D first, P from logsumexp.

Inputs Q, K, V, O, dO (n x d) and the logsumexp L (n x 1) saved by the forward pass.
Phase 1: D_i = rowsum(dO_i * O_i) for every row block, stored.  Phase 2: outer loop over K/V
blocks j (B_c rows), with K_j, V_j, dK_j, dV_j in fast memory; inner loop over Q blocks i
(B_r rows): P_ij = exp(Q_i K_j^T - L_i), dV_j += P^T dO_i, dP = dO_i V_j^T,
dS = P * (dP - D_i), dK_j += dS^T Q_i, dQ_i += dS K_j (read from and written back to slow
memory; at j = 0 there is nothing to read yet, so it is only written).  dK_j, dV_j are stored
after the inner loop.  No 1/sqrt(d) scale (docs/theory.md §4).  I/O with T_c = ceil(n/B_c):
    5nd + n + T_c (4nd + 2n)
(phase 1: 2nd + n; K, V: 2nd; per outer step Q, dO, L, D: 2nd + 2n and dQ written nd; dQ
read (T_c - 1) nd; dK, dV: 2nd).
"""

from __future__ import annotations

from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import KernelSpec, blocks, ceil_div
from ioverify.kernels.reference import backward_sample, gradient_reference

GRADS = ("dQ", "dK", "dV")


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d = sizes["n"], sizes["d"]
    for r0, r in blocks(n, blk["block_r"]):
        store_rowdot(mem, a, r0, r, d)
    column_loop(mem, a, sizes, blk, inner_step)


def column_loop(mem, a: dict, sizes: dict, blk: dict, step) -> None:
    """The outer loop of both published backward orders: per K/V block, dK_j and dV_j stay in
    fast memory while ``step`` runs over every Q block, then they are stored once."""
    n, d = sizes["n"], sizes["d"]
    for c0, c in blocks(n, blk["block_c"]):
        k = mem.load(a["K"], (c0, c0 + c), (0, d))
        v = mem.load(a["V"], (c0, c0 + c), (0, d))
        acc = {"dK": None, "dV": None}
        for r0, r in blocks(n, blk["block_r"]):
            step(mem, a, d, k, v, acc, r0, r, first=c0 == 0)
        for name in ("dK", "dV"):
            mem.store(acc[name], a[name], c0, 0)
            mem.free(acc[name])
        mem.free(k)
        mem.free(v)


def store_rowdot(mem, a, r0, r, d) -> None:
    """D_i = rowsum(dO_i * O_i) (FlashAttention-2, Algorithm 2 line 4), stored."""
    do = mem.load(a["dO"], (r0, r0 + r), (0, d))
    o = mem.load(a["O"], (r0, r0 + r), (0, d))
    mem.mul(o, do, out=o)
    mem.free(do)
    dd = mem.rowsum(o)
    mem.free(o)
    mem.store(dd, a["D"], r0, 0)
    mem.free(dd)


def inner_step(mem, a, d, k, v, acc, r0, r, first) -> None:
    """One inner step (block (i, j)): dV_j, dK_j accumulated, dQ_i updated in slow memory."""
    q = mem.load(a["Q"], (r0, r0 + r), (0, d))
    do = mem.load(a["dO"], (r0, r0 + r), (0, d))
    p = probabilities(mem, a, q, k, r0, r, "L")
    accumulate(mem, acc, "dV", p, do, trans_a=True)
    ds = score_gradient(mem, a, p, do, v, r0, r)
    mem.free(do)
    mem.free(p)
    accumulate(mem, acc, "dK", ds, q, trans_a=True)
    mem.free(q)
    update_dq(mem, a, ds, k, r0, r, d, first)
    mem.free(ds)


def probabilities(mem, a, q, k, r0, r, stat):
    """P_ij = exp(Q_i K_j^T - L_i) from the stored logsumexp."""
    s = mem.matmul(q, k, trans_b=True)
    lse = mem.load(a[stat], (r0, r0 + r), (0, 1))
    mem.sub(s, lse, out=s)
    mem.free(lse)
    mem.exp(s, out=s)
    return s


def score_gradient(mem, a, p, do, v, r0, r):
    """dS = P * (dO_i V_j^T - D_i)."""
    ds = mem.matmul(do, v, trans_b=True)
    dd = mem.load(a["D"], (r0, r0 + r), (0, 1))
    mem.sub(ds, dd, out=ds)
    mem.free(dd)
    mem.mul(ds, p, out=ds)
    return ds


def accumulate(mem, acc, name, x, y, trans_a=False) -> None:
    """acc[name] += x^T y (a new tile the first time)."""
    if acc[name] is None:
        acc[name] = mem.matmul(x, y, trans_a=trans_a)
    else:
        mem.matmul(x, y, out=acc[name], accumulate=True, trans_a=trans_a)


def update_dq(mem, a, ds, k, r0, r, d, first) -> None:
    """dQ_i += dS K_j in slow memory (only written at the first outer step)."""
    if first:
        dq = mem.matmul(ds, k)
    else:
        dq = mem.load(a["dQ"], (r0, r0 + r), (0, d))
        mem.matmul(ds, k, out=dq, accumulate=True)
    mem.store(dq, a["dQ"], r0, 0)
    mem.free(dq)


def column_plan(spec, sizes: dict, memory: int, literal: bool) -> dict:
    """The I/O depends on B_c only (the inner loop reads every row once per outer step,
    whatever B_r): B_c is the largest that fits with B_r = 1, then B_r the largest that fits
    with that B_c (fewer, larger inner steps, same I/O)."""
    from ioverify.trace.kernel import dry_peak, largest_fitting

    if literal:
        bc = ceil_div(memory, 4 * sizes["d"])
        return {"block_r": min(bc, sizes["d"]), "block_c": bc}
    bc = largest_fitting(lambda c: dry_peak(spec, sizes, memory, {"block_r": 1,
                                                                  "block_c": c}) <= memory,
                         sizes["n"])
    if bc is None:
        need = dry_peak(spec, sizes, memory, {"block_r": 1, "block_c": 1})
        raise InvalidArgument(f"memory M = {memory} is too small for kernel {spec.name!r}: "
                              f"even 1-wide blocks need {need} words")
    br = largest_fitting(lambda r: dry_peak(spec, sizes, memory, {"block_r": r,
                                                                  "block_c": bc}) <= memory,
                         sizes["n"])
    return {"block_r": br, "block_c": bc}


def _dry_sizes(sizes: dict, blk: dict) -> dict:
    return {"n": min(sizes["n"], 2 * max(blk.values())), "d": sizes["d"]}


def grad_outputs(sizes: dict) -> dict:
    n, d = sizes["n"], sizes["d"]
    return {name: (n, d) for name in GRADS}


def backward_inputs(stats: tuple):
    def inputs(sizes: dict) -> dict:
        n, d = sizes["n"], sizes["d"]
        arrays = {name: (n, d) for name in ("Q", "K", "V", "O", "dO")}
        arrays.update({name: (n, 1) for name in stats})
        return arrays

    return inputs


SPEC = KernelSpec(
    name="flash-backward-v2",
    summary="FlashAttention-2 backward: D = rowsum(dO*O) first, P from the logsumexp",
    sizes=("n", "d"),
    inputs=backward_inputs(("L",)),
    outputs=grad_outputs,
    scratch=lambda s: {"D": (s["n"], 1)},
    run=run,
    reference=gradient_reference,
    plan=column_plan,
    dry_sizes=_dry_sizes,
    count="flash-backward-v2",
    sample=backward_sample(("L",)),
)
