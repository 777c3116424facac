"""Saha and Ye's small-cache attention (arXiv 2402.07443, Algorithm 1): square tiling.

Model of docs/theory.md §4: A = exp(QK^T) without max subtraction, O = diag(A 1)^-1 A V.
Every dimension is cut into blocks of side B (the last ones may be shorter).  Phase 1: for each
row block i, for each column block j: S_ij = sum over d-blocks Q_il K_jl^T (accumulated in fast
memory), A_ij = exp(S_ij) stored, its row sums accumulated into l_i (kept); l_i stored.
Phase 2: for each row block i (l_i loaded once and kept), for each d-block w:
O_iw = sum_j A_ij V_jw, divided by l_i, stored.  Cache: 3B^2 + B plus the pebble being placed.
I/O with T = ceil(n/B), T_d = ceil(d/B):
    3 T n d + T_d n^2 + n^2 + n d + 2n     (= 4n^2 d/B + n^2 + nd + 2n when B divides n and d)
"""

from __future__ import annotations

import math

from ioverify.trace.kernel import KernelSpec, blocks, square_plan
from ioverify.kernels.base import attention_arrays, attention_scale, softmax_reference
from ioverify.errors import InvalidArgument


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d, b = sizes["n"], sizes["d"], blk["block"]
    for r0, r in blocks(n, b):
        _exp_scores(mem, a, n, d, b, r0, r)
    for r0, r in blocks(n, b):
        _output(mem, a, n, d, b, r0, r)


def _exp_scores(mem, a, n, d, b, r0, r) -> None:
    """Phase 1 for row block i: A_ij = exp(sum_l Q_il K_jl^T) stored; l_i = rowsum A_i."""
    l = None
    for c0, c in blocks(n, b):
        s = None
        for w0, w in blocks(d, b):
            q = mem.load(a["Q"], (r0, r0 + r), (w0, w0 + w))
            k = mem.load(a["K"], (c0, c0 + c), (w0, w0 + w))
            if s is None:
                s = mem.matmul(q, k, trans_b=True)
            else:
                mem.matmul(q, k, out=s, accumulate=True, trans_b=True)
            mem.free(q)
            mem.free(k)
        mem.exp(s, out=s)
        mem.store(s, a["A"], r0, c0)
        if l is None:
            l = mem.rowsum(s)
        else:
            mem.rowsum(s, out=l, accumulate=True)
        mem.free(s)
    mem.store(l, a["rowsum"], r0, 0)
    mem.free(l)


def _output(mem, a, n, d, b, r0, r) -> None:
    """Phase 2 for row block i: O_iw = (sum_j A_ij V_jw) / l_i for every d-block w."""
    l = mem.load(a["rowsum"], (r0, r0 + r), (0, 1))
    for w0, w in blocks(d, b):
        o = None
        for c0, c in blocks(n, b):
            p = mem.load(a["A"], (r0, r0 + r), (c0, c0 + c))
            v = mem.load(a["V"], (c0, c0 + c), (w0, w0 + w))
            if o is None:
                o = mem.matmul(p, v)
            else:
                mem.matmul(p, v, out=o, accumulate=True)
            mem.free(p)
            mem.free(v)
        mem.div(o, l, out=o)
        mem.store(o, a["O"], r0, w0)
        mem.free(o)
    mem.free(l)


def _literal(sizes: dict, memory: int) -> dict:
    """The paper's side B = floor(sqrt(M / 4))."""
    b = math.isqrt(memory // 4)
    if b < 1:
        raise InvalidArgument(f"memory M = {memory} gives the paper's block side "
                              f"floor(sqrt(M/4)) = 0")
    return {"block": b}


SPEC = KernelSpec(
    name="square-tiling-forward",
    summary="Saha-Ye small-cache Algorithm 1: square tiles of side B, exp(QK^T) materialised",
    sizes=("n", "d"),
    inputs=attention_arrays,
    outputs=lambda s: {"O": (s["n"], s["d"])},
    scratch=lambda s: {"A": (s["n"], s["n"]), "rowsum": (s["n"], 1)},
    run=run,
    reference=lambda x: {"O": softmax_reference(x)["O"]},
    plan=square_plan(("block",), lambda s: max(s["n"], s["d"]), _literal),
    dry_sizes=lambda s, blk: {"n": min(s["n"], 2 * blk["block"]),
                              "d": min(s["d"], 2 * blk["block"])},
    count="square-tiling-forward",
    input_scale=attention_scale,
)
