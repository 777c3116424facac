"""FlashAttention-2 forward (Dao, arXiv 2307.08691, Algorithm 1): outer loop over Q blocks.

For each row block Q_i (B_r rows) the output O_i, row max m_i and row sum l_i stay in fast
memory while K_j, V_j (B_c rows) stream by; O_i is rescaled online and divided by l_i once at
the end; the logsumexp L_i = m_i + log l_i is stored.  No 1/sqrt(d) scale (docs/theory.md §4).
I/O: Q once, K and V once per row block, O and L once:
    2nd + 2nd * ceil(n / B_r) + n        (docs/theory.md §6, exact for any n)
"""

from __future__ import annotations

from ioverify.trace.kernel import KernelSpec, blocks, square_plan
from ioverify.kernels.base import attention_arrays, attention_scale, flash_dry_sizes, flash_literal_blocks, softmax_reference


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d = sizes["n"], sizes["d"]
    for r0, r in blocks(n, blk["block_r"]):
        attend_row_block(mem, a, r0, r, d, blocks(n, blk["block_c"]))


def attend_row_block(mem, a: dict, r0: int, r: int, d: int, columns) -> None:
    """FlashAttention-2's inner loop for the query rows r0 .. r0 + r over the key/value blocks
    ``columns`` ((c0, c) pairs): O_i, m_i, l_i stay in fast memory (online softmax), then O_i and
    L_i are stored.  Block-sparse attention passes only the allowed blocks."""
    q = mem.load(a["Q"], (r0, r0 + r), (0, d))
    o, m, l = online_softmax(mem, a, q, d, columns)
    _finish(mem, a, r0, q, o, m, l)


def online_softmax(mem, a: dict, q, d: int, columns) -> tuple:
    """The unnormalised O_i = exp(S - m_i) V, the row max m_i and the row sum l_i for the query
    tile ``q`` over the key/value blocks ``columns`` of a["K"], a["V"], with S = q K^T."""
    o = m = l = None
    for c0, c in columns:
        k = mem.load(a["K"], (c0, c0 + c), (0, d))
        s = mem.matmul(q, k, trans_b=True)
        mem.free(k)
        mx = mem.rowmax(s)
        if m is None:
            m = mx
            mem.sub(s, m, out=s)
            mem.exp(s, out=s)
            l = mem.rowsum(s)
        else:
            m, l = _rescale(mem, s, mx, m, l, o)
        v = mem.load(a["V"], (c0, c0 + c), (0, d))
        if o is None:
            o = mem.matmul(s, v)
        else:
            mem.matmul(s, v, out=o, accumulate=True)
        mem.free(v)
        mem.free(s)
    return o, m, l


def _rescale(mem, s, mx, m, l, o):
    """Online softmax step: m_new = max(m, rowmax S); alpha = exp(m - m_new) rescales l and O;
    S becomes exp(S - m_new) and its row sums join l."""
    mem.maximum(mx, m, out=mx)
    mem.sub(m, mx, out=m)
    mem.exp(m, out=m)
    mem.mul(l, m, out=l)
    mem.mul(o, m, out=o)
    mem.free(m)
    mem.sub(s, mx, out=s)
    mem.exp(s, out=s)
    mem.rowsum(s, out=l, accumulate=True)
    return mx, l


def _finish(mem, a, r0, q, o, m, l) -> None:
    """O_i / l_i and L_i = m_i + log l_i, stored once."""
    mem.div(o, l, out=o)
    mem.store(o, a["O"], r0, 0)
    mem.free(o)
    mem.log(l, out=l)
    mem.add(l, m, out=l)
    mem.store(l, a["L"], r0, 0)
    for t in (l, m, q):
        mem.free(t)


SPEC = KernelSpec(
    name="flash-forward-v2",
    summary="FlashAttention-2 forward: outer loop over Q blocks, logsumexp stored",
    sizes=("n", "d"),
    inputs=attention_arrays,
    outputs=lambda s: {"O": (s["n"], s["d"]), "L": (s["n"], 1)},
    scratch=lambda s: {},
    run=run,
    reference=lambda x: {k: v for k, v in softmax_reference(x).items() if k in ("O", "L")},
    plan=square_plan(("block_r", "block_c"), lambda s: s["n"], flash_literal_blocks),
    dry_sizes=flash_dry_sizes,
    count="flash-forward-v2",
    input_scale=attention_scale,
)
