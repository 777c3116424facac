"""Block-sparse FlashAttention backward: FlashAttention-2's backward (D first, P from the
logsumexp) restricted to the allowed blocks of a block mask (as in ``block_sparse_forward``).

Phase 1: D = rowsum(dO * O) for every row block.  Phase 2: outer loop over K/V blocks j
(every block-column has an allowed block, so every dK_j, dV_j is computed); inner loop over the
row blocks i with (i, j) allowed only: P = exp(Q_i K_j^T - L_i), dV_j += P^T dO_i,
dS = P * (dO_i V_j^T - D_i), dK_j += dS^T Q_i, dQ_i += dS K_j in slow memory (only written at
row i's first allowed block).  With Z_r = sum over allowed blocks (i, j) of the length of row
block i, the I/O is
    5nd + n + (4d + 2) Z_r
(phase 1: 2nd + n; K, V: 2nd; per allowed block Q_i, dO_i: 2 r_i d, L_i, D_i: 2 r_i, dQ_i
written r_i d; dQ read Z_r d - nd; dK, dV: 2nd).  Dense mask: Z_r = n ceil(n/B), the count of
``flash-backward-v2``.
"""

from __future__ import annotations

from ioverify.trace.kernel import KernelSpec, blocks
from ioverify.kernels.block_sparse_forward import OPTIONS, dry_sizes, element_mask_of, mask_of, mask_plan
from ioverify.kernels.flash_backward_v2 import backward_inputs, grad_outputs, inner_step, store_rowdot
from ioverify.kernels.reference import backward_sample, gradient_reference


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d, b = sizes["n"], sizes["d"], blk["block"]
    mask = mask_of(sizes, b)
    for r0, r in blocks(n, b):
        store_rowdot(mem, a, r0, r, d)
    written = set()
    for j, (c0, c) in enumerate(blocks(n, b)):
        k = mem.load(a["K"], (c0, c0 + c), (0, d))
        v = mem.load(a["V"], (c0, c0 + c), (0, d))
        acc = {"dK": None, "dV": None}
        for i, (r0, r) in enumerate(blocks(n, b)):
            if mask[i, j]:
                inner_step(mem, a, d, k, v, acc, r0, r, first=i not in written)
                written.add(i)
        for name in ("dK", "dV"):
            mem.store(acc[name], a[name], c0, 0)
            mem.free(acc[name])
        mem.free(k)
        mem.free(v)


def _reference(inputs: dict, sizes: dict, blk: dict) -> dict:
    return gradient_reference(inputs, element_mask_of(sizes, blk))


SPEC = KernelSpec(
    name="block-sparse-backward",
    summary="block-sparse FlashAttention-2 backward: only allowed blocks loaded and computed",
    sizes=("n", "d"),
    inputs=backward_inputs(("L",)),
    outputs=grad_outputs,
    scratch=lambda s: {"D": (s["n"], 1)},
    run=run,
    reference=_reference,
    plan=mask_plan,
    dry_sizes=dry_sizes,
    count="block-sparse-backward",
    options=OPTIONS,
    sample=backward_sample(("L",), element_mask_of),
    sized_reference=True,
)
