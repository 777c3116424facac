"""FlashAttention backward (Dao et al., arXiv 2205.14135, Algorithm 4): outer loop over K/V.

Inputs Q, K, V, O, dO (n x d) and the forward row statistics l (row sum) and m (row max),
n x 1.  Outer loop over K/V blocks j (B_c rows) keeping K_j, V_j, dK_j, dV_j in fast memory;
inner loop over Q blocks i (B_r rows) loading Q_i, O_i, dO_i, l_i, m_i (and dQ_i):
P_ij = exp(Q_i K_j^T - m_i) / l_i, dV_j += P^T dO_i, dP = dO_i V_j^T,
D_i = rowsum(dO_i * O_i) (recomputed at every inner step, as in Algorithm 4 line 19),
dS = P * (dP - D_i), dQ_i += dS K_j written back, dK_j += dS^T Q_i.  dK_j, dV_j are stored after
the inner loop.  I/O with T_c = ceil(n/B_c):
    3nd + T_c (5nd + 2n)
(K, V: 2nd; per outer step Q, O, dO: 3nd, l, m: 2n, dQ written: nd; dQ read (T_c - 1) nd;
dK, dV: 2nd).  docs/theory.md §6 gives 4nd + T_c(5nd + 2n): the paper initialises dQ = 0 in
slow memory and reads it at the first outer step, nd words a trace cannot move (it may only
load words that exist), so the first outer step writes dQ_i without reading it.
"""

from __future__ import annotations

from ioverify.trace.kernel import KernelSpec
from ioverify.kernels.flash_backward_v2 import (_dry_sizes, accumulate, backward_inputs, column_loop,
                                       column_plan, grad_outputs, update_dq)
from ioverify.kernels.reference import backward_sample, gradient_reference


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    column_loop(mem, a, sizes, blk, _inner)


def _inner(mem, a, d, k, v, acc, r0, r, first) -> None:
    q = mem.load(a["Q"], (r0, r0 + r), (0, d))
    p = _probabilities(mem, a, q, k, r0, r)
    do = mem.load(a["dO"], (r0, r0 + r), (0, d))
    accumulate(mem, acc, "dV", p, do, trans_a=True)
    ds = _score_gradient(mem, a, p, do, v, r0, r, d)
    mem.free(p)
    accumulate(mem, acc, "dK", ds, q, trans_a=True)
    mem.free(q)
    update_dq(mem, a, ds, k, r0, r, d, first)
    mem.free(ds)


def _probabilities(mem, a, q, k, r0, r):
    """P_ij = exp(Q_i K_j^T - m_i) / l_i (Algorithm 4, lines 11-13)."""
    s = mem.matmul(q, k, trans_b=True)
    m = mem.load(a["m"], (r0, r0 + r), (0, 1))
    mem.sub(s, m, out=s)
    mem.free(m)
    mem.exp(s, out=s)
    l = mem.load(a["l"], (r0, r0 + r), (0, 1))
    mem.div(s, l, out=s)
    mem.free(l)
    return s


def _score_gradient(mem, a, p, do, v, r0, r, d):
    """D_i = rowsum(dO_i * O_i), dS = P * (dO_i V_j^T - D_i); frees dO_i."""
    o = mem.load(a["O"], (r0, r0 + r), (0, d))
    mem.mul(o, do, out=o)
    dd = mem.rowsum(o)
    mem.free(o)
    ds = mem.matmul(do, v, trans_b=True)
    mem.free(do)
    mem.sub(ds, dd, out=ds)
    mem.free(dd)
    mem.mul(ds, p, out=ds)
    return ds


SPEC = KernelSpec(
    name="flash-backward-v1",
    summary="FlashAttention backward: outer loop over K/V blocks, dQ read and written per step",
    sizes=("n", "d"),
    inputs=backward_inputs(("l", "m")),
    outputs=grad_outputs,
    scratch=lambda s: {},
    run=run,
    reference=gradient_reference,
    plan=column_plan,
    dry_sizes=_dry_sizes,
    count="flash-backward-v1",
    sample=backward_sample(("l", "m")),
)
