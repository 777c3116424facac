"""FlashAttention forward (Dao et al., arXiv 2205.14135, Algorithm 1): outer loop over K/V.

K_j, V_j (B_c rows) stay in fast memory while the row blocks Q_i (B_r rows) stream by; the
running output O_i (kept normalised), row max m_i and row sum l_i live in slow memory and are
read back and rewritten at every outer step.  The first outer step has nothing to read back (a
trace may only load words that exist), so it writes O, l, m without reading them.  I/O:
    2nd + ceil(n/B_c) * (3nd + 4n) - (nd + 2n)
docs/theory.md §6 gives 2nd + T_c(3nd + 4n): that counts reads of O, l, m at the first outer
step but not the nd + 2n writes that would initialise them in slow memory.
"""

from __future__ import annotations

from ioverify.trace.kernel import KernelSpec, blocks, square_plan
from ioverify.kernels.base import attention_arrays, attention_scale, flash_dry_sizes, flash_literal_blocks, softmax_reference


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d = sizes["n"], sizes["d"]
    for c0, c in blocks(n, blk["block_c"]):
        k = mem.load(a["K"], (c0, c0 + c), (0, d))
        v = mem.load(a["V"], (c0, c0 + c), (0, d))
        for r0, r in blocks(n, blk["block_r"]):
            mx, ls, pv = _local(mem, a, r0, r, d, k, v)
            if c0 == 0:
                mem.div(pv, ls, out=pv)
                _store_free(mem, a, r0, pv, ls, mx)
            else:
                _merge(mem, a, r0, r, d, mx, ls, pv)
        mem.free(k)
        mem.free(v)


def _local(mem, a, r0, r, d, k, v):
    """Block statistics of S_ij = Q_i K_j^T: m~ = rowmax, P~ = exp(S - m~), l~ = rowsum P~,
    and P~ V_j."""
    q = mem.load(a["Q"], (r0, r0 + r), (0, d))
    s = mem.matmul(q, k, trans_b=True)
    mem.free(q)
    mx = mem.rowmax(s)
    mem.sub(s, mx, out=s)
    mem.exp(s, out=s)
    ls = mem.rowsum(s)
    pv = mem.matmul(s, v)
    mem.free(s)
    return mx, ls, pv


def _merge(mem, a, r0, r, d, mx, ls, pv) -> None:
    """m_new = max(m, m~); l_new = e^(m - m_new) l + e^(m~ - m_new) l~;
    O_i = (l e^(m - m_new) O_i + e^(m~ - m_new) P~V_j) / l_new (Algorithm 1, lines 11-13)."""
    o = mem.load(a["O"], (r0, r0 + r), (0, d))
    l = mem.load(a["l"], (r0, r0 + r), (0, 1))
    m = mem.load(a["m"], (r0, r0 + r), (0, 1))
    mn = mem.maximum(m, mx)
    mem.sub(m, mn, out=m)
    mem.exp(m, out=m)
    mem.sub(mx, mn, out=mx)
    mem.exp(mx, out=mx)
    mem.mul(l, m, out=l)
    mem.free(m)
    mem.mul(o, l, out=o)
    mem.mul(pv, mx, out=pv)
    mem.add(o, pv, out=o)
    mem.free(pv)
    mem.mul(ls, mx, out=ls)
    mem.free(mx)
    mem.add(l, ls, out=l)
    mem.free(ls)
    mem.div(o, l, out=o)
    _store_free(mem, a, r0, o, l, mn)


def _store_free(mem, a, r0, o, l, m) -> None:
    mem.store(o, a["O"], r0, 0)
    mem.store(l, a["l"], r0, 0)
    mem.store(m, a["m"], r0, 0)
    for t in (o, l, m):
        mem.free(t)


SPEC = KernelSpec(
    name="flash-forward-v1",
    summary="FlashAttention forward: outer loop over K/V blocks, m and l in slow memory",
    sizes=("n", "d"),
    inputs=attention_arrays,
    outputs=lambda s: {"O": (s["n"], s["d"]), "l": (s["n"], 1), "m": (s["n"], 1)},
    scratch=lambda s: {},
    run=run,
    reference=lambda x: {k: v for k, v in softmax_reference(x).items() if k in ("O", "l", "m")},
    plan=square_plan(("block_r", "block_c"), lambda s: s["n"], flash_literal_blocks),
    dry_sizes=flash_dry_sizes,
    count="flash-forward-v1",
    input_scale=attention_scale,
)
