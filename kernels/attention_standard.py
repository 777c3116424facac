"""Standard attention (FlashAttention paper, Algorithm 0): S = QK^T and P = softmax(S) are
written to slow memory, then O = PV.

Blocked with one side B: (1) for each row block Q_i (kept) and column block K_j: S_ij, stored;
(2) for each row block: a pass over S_i computes the row max m and row sum l online (kept in
fast memory), a second pass writes P_ij = exp(S_ij - m) / l; (3) O_i = sum_j P_ij V_j, stored.
I/O (T = ceil(n/B)):  phase 1  nd + T nd + n^2,  phase 2  3n^2,  phase 3  n^2 + T nd + nd:
    2nd + 2 T nd + 5n^2
"""

from __future__ import annotations

from ioverify.trace.kernel import KernelSpec, blocks, square_plan
from ioverify.kernels.base import attention_arrays, attention_scale, softmax_reference


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d, b = sizes["n"], sizes["d"], blk["block"]
    for r0, r in blocks(n, b):
        _scores(mem, a, n, d, b, r0, r)
    for r0, r in blocks(n, b):
        m, l = _row_stats(mem, a, n, b, r0, r)
        _probabilities(mem, a, n, b, r0, r, m, l)
    for r0, r in blocks(n, b):
        _output(mem, a, n, d, b, r0, r)


def _scores(mem, a, n, d, b, r0, r) -> None:
    """Phase 1: S_ij = Q_i K_j^T for every column block, stored."""
    q = mem.load(a["Q"], (r0, r0 + r), (0, d))
    for c0, c in blocks(n, b):
        k = mem.load(a["K"], (c0, c0 + c), (0, d))
        s = mem.matmul(q, k, trans_b=True)
        mem.free(k)
        mem.store(s, a["S"], r0, c0)
        mem.free(s)
    mem.free(q)


def _row_stats(mem, a, n, b, r0, r):
    """Phase 2a: m = rowmax S_i and l = rowsum exp(S_i - m), online over column blocks."""
    m = l = None
    for c0, c in blocks(n, b):
        s = mem.load(a["S"], (r0, r0 + r), (c0, c0 + c))
        mx = mem.rowmax(s)
        if m is None:
            m = mx
            mem.sub(s, m, out=s)
            mem.exp(s, out=s)
            l = mem.rowsum(s)
        else:
            mem.maximum(mx, m, out=mx)
            mem.sub(m, mx, out=m)
            mem.exp(m, out=m)
            mem.mul(l, m, out=l)
            mem.free(m)
            m = mx
            mem.sub(s, m, out=s)
            mem.exp(s, out=s)
            mem.rowsum(s, out=l, accumulate=True)
        mem.free(s)
    return m, l


def _probabilities(mem, a, n, b, r0, r, m, l) -> None:
    """Phase 2b: P_ij = exp(S_ij - m) / l, stored."""
    for c0, c in blocks(n, b):
        s = mem.load(a["S"], (r0, r0 + r), (c0, c0 + c))
        mem.sub(s, m, out=s)
        mem.exp(s, out=s)
        mem.div(s, l, out=s)
        mem.store(s, a["P"], r0, c0)
        mem.free(s)
    mem.free(m)
    mem.free(l)


def _output(mem, a, n, d, b, r0, r) -> None:
    """Phase 3: O_i = sum_j P_ij V_j, stored."""
    o = None
    for c0, c in blocks(n, b):
        p = mem.load(a["P"], (r0, r0 + r), (c0, c0 + c))
        v = mem.load(a["V"], (c0, c0 + c), (0, d))
        if o is None:
            o = mem.matmul(p, v)
        else:
            mem.matmul(p, v, out=o, accumulate=True)
        mem.free(p)
        mem.free(v)
    mem.store(o, a["O"], r0, 0)
    mem.free(o)


SPEC = KernelSpec(
    name="attention-standard",
    summary="standard attention: S and P written to slow memory",
    sizes=("n", "d"),
    inputs=attention_arrays,
    outputs=lambda s: {"O": (s["n"], s["d"])},
    scratch=lambda s: {"S": (s["n"], s["n"]), "P": (s["n"], s["n"])},
    run=run,
    reference=lambda x: {"O": softmax_reference(x)["O"]},
    plan=square_plan(("block",), lambda s: s["n"]),
    dry_sizes=lambda s, blk: {"n": min(s["n"], 2 * blk["block"]), "d": s["d"]},
    count="attention-standard",
    input_scale=attention_scale,
)
