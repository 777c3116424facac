"""The gradient with respect to the weights X of Alman and Song's attention loss (arXiv
2402.04497, Definition 1.5, without the 1/d scale; docs/theory.md §5):

    L(X) = 1/2 || softmax(A1 X A2^T) A3 Y - E ||_F^2,    A1, A2, A3, E (n x d), X, Y (d x d),

    dX = A1^T dQx,  dQx = dS A2,  dS = P * (G V^T - D),  G = O - E,  D = rowsum(G * O),
    with Qx = A1 X, V = A3 Y, P = softmax(Qx A2^T), O = P V.

Three phases, each freeing its fast memory before the next:
1. Qx = A1 X and V = A3 Y, (n x d)(d x d) products tiled as in ``matmul_tiled`` (an a x b
   tile of the result stays while the inner dimension streams), stored.
2. Per row block i (B_r rows), FlashAttention-2 style with Qx_i resident: one pass over the
   key/value blocks (B_c rows of A2 and V) for O_i, the row max and sum (online softmax); then
   G_i = O_i - E_i, D_i and the logsumexp L_i stay in fast memory and a second pass recomputes
   P_ij = exp(Qx_i A2_j^T - L_i) and accumulates dQx_i += dS_ij A2_j; dQx_i is stored.
   O, G, D and L never reach slow memory.
3. dX = A1^T dQx, a d x d product over the inner dimension n, tiled with square B x B tiles
   of dX (rows of A1 and dQx stream by).

I/O:
    2d(n ceil(d/b) + d ceil(n/a)) + 2nd          (phase 1)
  + 3nd + 4nd ceil(n/B_r)                         (phase 2: Qx, E, dQx once; A2, V twice per block)
  + 2nd ceil(d/B) + d^2                           (phase 3)
For M >> d^2 that is about 7nd + d^2 + 20 n^2 d^2 / M + 2 n d^3 / M: the n d^3 / M term of the
v2 bound comes from the weight products, which the FlashAttention-form graph does not have.
"""

from __future__ import annotations

import numpy as np

from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import KernelSpec, blocks, largest_fitting
from ioverify.trace.memory import TracedMemory
from ioverify.kernels import matmul_tiled
from ioverify.kernels.flash_forward_v2 import online_softmax

INPUTS = ("A1", "A2", "A3", "E")
WEIGHTS = ("X", "Y")


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d = sizes["n"], sizes["d"]
    tile = {"m": n, "k": d, "n": d}
    matmul_tiled.run(mem, {"A": a["A1"], "B": a["X"], "C": a["Qx"]}, tile, blk)
    matmul_tiled.run(mem, {"A": a["A3"], "B": a["Y"], "C": a["V"]}, tile, blk)
    attention_phase(mem, a, sizes, blk)
    weight_gradient(mem, a, n, d, blk["block"])


def attention_phase(mem, a: dict, sizes: dict, blk: dict) -> None:
    """dQx_i for every row block i, from two passes over the key/value blocks."""
    n, d = sizes["n"], sizes["d"]
    columns = blocks(n, blk["block_c"])
    keys = {"K": a["A2"], "V": a["V"]}
    for r0, r in blocks(n, blk["block_r"]):
        q = mem.load(a["Qx"], (r0, r0 + r), (0, d))
        g, dd, lse = _row_statistics(mem, a, q, r0, r, d, keys, columns)
        dq = None
        for c0, c in columns:
            dq = _gradient_step(mem, a, q, g, dd, lse, (c0, c), d, dq)
        mem.store(dq, a["dQx"], r0, 0)
        for t in (dq, lse, dd, g, q):
            mem.free(t)


def _row_statistics(mem, a, q, r0, r, d, keys, columns) -> tuple:
    """G_i = O_i - E_i, D_i = rowsum(G_i * O_i) and L_i = m_i + log l_i, all kept in fast
    memory (O_i from the online softmax, never stored)."""
    o, m, l = online_softmax(mem, keys, q, d, columns)
    mem.div(o, l, out=o)
    mem.log(l, out=l)
    mem.add(l, m, out=l)
    mem.free(m)
    g = mem.load(a["E"], (r0, r0 + r), (0, d))
    mem.sub(o, g, out=g)
    mem.mul(o, g, out=o)
    dd = mem.rowsum(o)
    mem.free(o)
    return g, dd, l


def _gradient_step(mem, a, q, g, dd, lse, column, d, dq):
    """P = exp(Qx_i A2_j^T - L_i), dS = P * (G_i V_j^T - D_i), dQx_i += dS A2_j."""
    c0, c = column
    k = mem.load(a["A2"], (c0, c0 + c), (0, d))
    p = mem.matmul(q, k, trans_b=True)
    mem.sub(p, lse, out=p)
    mem.exp(p, out=p)
    v = mem.load(a["V"], (c0, c0 + c), (0, d))
    ds = mem.matmul(g, v, trans_b=True)
    mem.free(v)
    mem.sub(ds, dd, out=ds)
    mem.mul(ds, p, out=ds)
    mem.free(p)
    if dq is None:
        dq = mem.matmul(ds, k)
    else:
        mem.matmul(ds, k, out=dq, accumulate=True)
    mem.free(ds)
    mem.free(k)
    return dq


def weight_gradient(mem, a: dict, n: int, d: int, side: int) -> None:
    """dX = A1^T dQx with a B x B tile of dX in fast memory: for each of the n rows l, the
    slices A1[l, i0:i0+B] and dQx[l, j0:j0+B] are loaded and their outer product accumulated."""
    for i0, r in blocks(d, side):
        for j0, c in blocks(d, side):
            acc = None
            for l in range(n):
                x = mem.load(a["A1"], (l, l + 1), (i0, i0 + r))
                y = mem.load(a["dQx"], (l, l + 1), (j0, j0 + c))
                if acc is None:
                    acc = mem.matmul(x, y, trans_a=True)
                else:
                    mem.matmul(x, y, out=acc, accumulate=True, trans_a=True)
                mem.free(x)
                mem.free(y)
            mem.store(acc, a["dX"], i0, j0)
            mem.free(acc)


# --- planning ------------------------------------------------------------------------------------

def plan(spec, sizes: dict, memory: int, literal: bool) -> dict:
    """Each phase's blocks chosen for that phase alone (the phases free everything between
    them): (a, b) as ``matmul_tiled`` picks them for the (n x d)(d x d) products; the largest
    square B whose tile fits for dX; for phase 2 the largest B_r that fits with B_c = 1 (the
    I/O depends on B_r only), then the largest B_c with that B_r."""
    if literal:
        raise InvalidArgument(f"kernel {spec.name!r} has no literal block sizes")
    n, d = sizes["n"], sizes["d"]
    tiles = matmul_tiled.plan(spec, {"m": n, "k": d, "n": d}, memory, False)
    side = largest_fitting(lambda s: matmul_tiled.working_set(s, s, n) <= memory, d)
    fits = lambda r, c: attention_peak(sizes, {"block_r": r, "block_c": c}) <= memory
    rows = largest_fitting(lambda r: fits(r, 1), n)
    if rows is None:
        need = attention_peak(sizes, {"block_r": 1, "block_c": 1})
        raise InvalidArgument(f"memory M = {memory} is too small for kernel {spec.name!r}: its "
                              f"attention phase needs {need} words with 1-row blocks")
    cols = largest_fitting(lambda c: fits(rows, c), n)
    return {**tiles, "block": side, "block_r": rows, "block_c": cols}


def attention_peak(sizes: dict, blk: dict) -> int:
    """The peak words of phase 2 alone (a shape-only dry run on two row and column blocks)."""
    small = _dry_sizes(sizes, blk)
    mem = TracedMemory(1, execute=False)
    arrays = {name: mem.input(name, (small["n"], small["d"])) for name in ("Qx", "A2", "V", "E")}
    arrays["dQx"] = mem.scratch("dQx", (small["n"], small["d"]))
    attention_phase(mem, arrays, small, blk)
    return mem.trace.peak


def _dry_sizes(sizes: dict, blk: dict) -> dict:
    return {"n": min(sizes["n"], 2 * max(blk.get("block_r", 1), blk.get("block_c", 1),
                                         blk.get("a", 1))),
            "d": sizes["d"]}


# --- inputs and reference ------------------------------------------------------------------------

def sample(sizes: dict, blk: dict, rng) -> dict:
    """A1, A2, A3, E scaled by d^(-1/4) and X, Y by d^(-1/2), so that the scores A1 X A2^T are
    of order 1 whatever d."""
    n, d = sizes["n"], sizes["d"]
    x = {name: rng.standard_normal((n, d)) * float(d) ** -0.25 for name in INPUTS}
    x.update({name: rng.standard_normal((d, d)) * float(d) ** -0.5 for name in WEIGHTS})
    return x


def loss(inputs: dict, weights: np.ndarray) -> float:
    """L(X) = 1/2 ||softmax(A1 X A2^T) A3 Y - E||_F^2 (for finite differences)."""
    s = inputs["A1"] @ weights @ inputs["A2"].T
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return 0.5 * float(np.sum((p @ (inputs["A3"] @ inputs["Y"]) - inputs["E"]) ** 2))


def reference(inputs: dict) -> dict:
    """dL/dX in closed form (float64, max subtraction in the softmax)."""
    qx, v = inputs["A1"] @ inputs["X"], inputs["A3"] @ inputs["Y"]
    s = qx @ inputs["A2"].T
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    g = p @ v - inputs["E"]
    dp = g @ v.T
    ds = p * (dp - np.sum(p * dp, axis=1, keepdims=True))
    return {"dX": inputs["A1"].T @ (ds @ inputs["A2"])}


SPEC = KernelSpec(
    name="alman-song-backward",
    summary="Alman-Song gradient dL/dX: weight products tiled, then a FlashAttention-2 style "
            "two-pass row loop, then dX = A1^T dQx",
    sizes=("n", "d"),
    inputs=lambda s: {**{x: (s["n"], s["d"]) for x in INPUTS},
                      **{x: (s["d"], s["d"]) for x in WEIGHTS}},
    outputs=lambda s: {"dX": (s["d"], s["d"])},
    scratch=lambda s: {x: (s["n"], s["d"]) for x in ("Qx", "V", "dQx")},
    run=run,
    reference=reference,
    plan=plan,
    dry_sizes=_dry_sizes,
    count="alman-song-backward",
    sample=sample,
)
