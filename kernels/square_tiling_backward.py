"""Small-cache attention backward by square tiling (docs/theory.md §5's reconstruction of Li,
Liang, Shi, Song et al., arXiv 2410.09397; design in docs/kernels-backward.md).

Every product is tiled with square tiles of side B (the last ones may be shorter) and the two
n x n intermediates P and dS live in slow memory.  Inputs Q, K, V, O, dO (n x d) and the
logsumexp L (n x 1) of the forward pass (as FlashAttention-2's backward takes them).
Phase 1: D = rowsum(dO * O), one d-tile at a time, stored.  Phase 2: for each tile (i, j) of the
n x n score matrix: S_ij = sum_w Q_iw K_jw^T, P_ij = exp(S_ij - L_i) stored;
dP_ij = sum_w dO_iw V_jw^T, dS_ij = P_ij * (dP_ij - D_i) stored (L_i, D_i kept per row block).
Phase 3: three tiled (n x n)(n x d) products with the output tile held in fast memory:
dQ = dS K, dK = dS^T Q, dV = P^T dO.  Cache: 4B^2 + 2B (phase 2) plus the pebble being placed.
I/O with T = ceil(n/B), T_d = ceil(d/B):
    5nd + 3n + 2n^2 + 7 T n d + 3 T_d n^2
(phase 1: 2nd + n; phase 2: 4Tnd + 2n + 2n^2; phase 3: 3(T_d n^2 + T n d + nd)).
"""

from __future__ import annotations

import math

from ioverify.trace.kernel import KernelSpec, blocks, square_plan
from ioverify.kernels.flash_backward_v2 import backward_inputs, grad_outputs
from ioverify.kernels.reference import backward_sample, gradient_reference
from ioverify.errors import InvalidArgument


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d, b = sizes["n"], sizes["d"], blk["block"]
    for r0, r in blocks(n, b):
        _rowdot(mem, a, d, b, r0, r)
    for r0, r in blocks(n, b):
        _score_tiles(mem, a, n, d, b, r0, r)
    _product(mem, a, "dS", "K", "dQ", n, d, b, transpose=False)
    _product(mem, a, "dS", "Q", "dK", n, d, b, transpose=True)
    _product(mem, a, "P", "dO", "dV", n, d, b, transpose=True)


def _rowdot(mem, a, d, b, r0, r) -> None:
    """D_i = rowsum(dO_i * O_i), accumulated over d-tiles, stored."""
    dd = None
    for w0, w in blocks(d, b):
        do = mem.load(a["dO"], (r0, r0 + r), (w0, w0 + w))
        o = mem.load(a["O"], (r0, r0 + r), (w0, w0 + w))
        mem.mul(o, do, out=o)
        mem.free(do)
        if dd is None:
            dd = mem.rowsum(o)
        else:
            mem.rowsum(o, out=dd, accumulate=True)
        mem.free(o)
    mem.store(dd, a["D"], r0, 0)
    mem.free(dd)


def _score_tiles(mem, a, n, d, b, r0, r) -> None:
    """For row block i: P_ij = exp(Q_i K_j^T - L_i) and dS_ij = P_ij * (dO_i V_j^T - D_i),
    both stored, for every column block j."""
    lse = mem.load(a["L"], (r0, r0 + r), (0, 1))
    dd = mem.load(a["D"], (r0, r0 + r), (0, 1))
    for c0, c in blocks(n, b):
        p = _tiled_abt(mem, a["Q"], a["K"], r0, r, c0, c, d, b)
        mem.sub(p, lse, out=p)
        mem.exp(p, out=p)
        mem.store(p, a["P"], r0, c0)
        ds = _tiled_abt(mem, a["dO"], a["V"], r0, r, c0, c, d, b)
        mem.sub(ds, dd, out=ds)
        mem.mul(ds, p, out=ds)
        mem.free(p)
        mem.store(ds, a["dS"], r0, c0)
        mem.free(ds)
    mem.free(lse)
    mem.free(dd)


def _tiled_abt(mem, x, y, r0, r, c0, c, d, b):
    """X_i Y_j^T accumulated over d-tiles of side b."""
    out = None
    for w0, w in blocks(d, b):
        xt = mem.load(x, (r0, r0 + r), (w0, w0 + w))
        yt = mem.load(y, (c0, c0 + c), (w0, w0 + w))
        if out is None:
            out = mem.matmul(xt, yt, trans_b=True)
        else:
            mem.matmul(xt, yt, out=out, accumulate=True, trans_b=True)
        mem.free(xt)
        mem.free(yt)
    return out


def _product(mem, a, big, thin, name, n, d, b, transpose) -> None:
    """name = big @ thin (or big^T @ thin), big n x n in slow memory, thin n x d: for each
    output tile (i, w), sum over k of big tile (i, k) (or (k, i)) times thin tile (k, w)."""
    for r0, r in blocks(n, b):
        for w0, w in blocks(d, b):
            out = None
            for k0, k in blocks(n, b):
                rows, cols = ((k0, k0 + k), (r0, r0 + r)) if transpose else \
                    ((r0, r0 + r), (k0, k0 + k))
                left = mem.load(a[big], rows, cols)
                right = mem.load(a[thin], (k0, k0 + k), (w0, w0 + w))
                if out is None:
                    out = mem.matmul(left, right, trans_a=transpose)
                else:
                    mem.matmul(left, right, out=out, accumulate=True, trans_a=transpose)
                mem.free(left)
                mem.free(right)
            mem.store(out, a[name], r0, w0)
            mem.free(out)


def _literal(sizes: dict, memory: int) -> dict:
    """Side floor(sqrt(M/4)) as in Saha and Ye's forward (4B^2 + 2B + 1 <= M then needs a
    little more than that: the checker decides)."""
    b = math.isqrt(memory // 4)
    if b < 1:
        raise InvalidArgument(f"memory M = {memory} gives the block side floor(sqrt(M/4)) = 0")
    return {"block": b}


SPEC = KernelSpec(
    name="square-tiling-backward",
    summary="small-cache backward: square tiles of side B, P and dS materialised",
    sizes=("n", "d"),
    inputs=backward_inputs(("L",)),
    outputs=grad_outputs,
    scratch=lambda s: {"D": (s["n"], 1), "P": (s["n"], s["n"]), "dS": (s["n"], s["n"])},
    run=run,
    reference=gradient_reference,
    plan=square_plan(("block",), lambda s: max(s["n"], s["d"]), _literal),
    dry_sizes=lambda s, blk: {"n": min(s["n"], 2 * blk["block"]),
                              "d": min(s["d"], 2 * blk["block"])},
    count="square-tiling-backward",
    sample=backward_sample(("L",)),
)
