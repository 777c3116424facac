"""Block-sparse FlashAttention forward (Dao et al., arXiv 2205.14135, Algorithm 5 and Prop. 4),
in FlashAttention-2's loop order (outer loop over Q blocks, logsumexp stored).

A block mask over square blocks of side B (``kernels.reference.block_mask``: causal, or random
with density s, every block-row and block-column with an allowed block) says which blocks of
S = QK^T exist; masked entries are excluded from the softmax (the element mask is the block mask
expanded).  For each row block Q_i only the allowed K_j, V_j are loaded and computed with
(online softmax, O_i, m_i, l_i in fast memory), then O_i and L_i = m_i + log l_i are stored.
With Z_c = sum over allowed blocks (i, j) of the length of column block j, the I/O is
    2nd + n + 2d Z_c
(= 2nd + n + 2 s n^2 d / B when B divides n: Theta(nd + n^2 d^2 s / M) for B = Theta(M/d)).
"""

from __future__ import annotations

import numpy as np

from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import KernelOption, KernelSpec, blocks, ceil_div, square_plan
from ioverify.kernels.base import attention_arrays, attention_scale
from ioverify.kernels.flash_forward_v2 import attend_row_block
from ioverify.kernels.reference import MASKS, attention_softmax, block_mask, element_mask


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d, b = sizes["n"], sizes["d"], blk["block"]
    mask = mask_of(sizes, b)
    columns = list(blocks(n, b))
    for i, (r0, r) in enumerate(columns):
        attend_row_block(mem, a, r0, r, d, [col for j, col in enumerate(columns) if mask[i, j]])


# --- the mask as a kernel parameter ------------------------------------------------------------

def parse_mask(value) -> str:
    if value not in MASKS:
        raise InvalidArgument(f"--mask must be one of {', '.join(MASKS)}, got {value!r}")
    return value


def parse_density(value) -> float:
    try:
        s = float(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"--density must be a number in (0, 1], got {value!r}") from None
    if not 0.0 < s <= 1.0:
        raise InvalidArgument(f"--density must be in (0, 1], got {value!r}")
    return s


OPTIONS = (
    KernelOption("mask", parse_mask, "causal", "block mask: " + ", ".join(MASKS)),
    KernelOption("density", parse_density, 0.5,
                 "fraction s of allowed blocks of a random mask (at least one per block-row "
                 "and block-column)", only_with=("mask", ("random",))),
)


def mask_of(sizes: dict, block: int) -> np.ndarray:
    """The block mask of a run: a function of the sizes, options and block side only."""
    return block_mask(sizes["mask"], ceil_div(sizes["n"], block), sizes["density"])


def element_mask_of(sizes: dict, blk: dict) -> np.ndarray:
    return element_mask(mask_of(sizes, blk["block"]), sizes["n"], blk["block"])


def mask_plan(spec, sizes: dict, memory: int, literal: bool) -> dict:
    """Square blocks from M (largest that fit), then the mask's statistics for the count:
    allowed blocks, Z_r and Z_c (sums of the allowed blocks' row and column lengths), and Z_QK
    (the allowed entries of S = QK^T, the sparse lower bound's parameter)."""
    blk = square_plan(("block",), lambda s: s["n"])(spec, sizes, memory, literal)
    b = blk["block"]
    mask = mask_of(sizes, b)
    lengths = np.array([length for _, length in blocks(sizes["n"], b)])
    blk.update(allowed=int(mask.sum()), s=round(float(mask.mean()), 6),
               Z_r=int((mask * lengths[:, None]).sum()), Z_c=int((mask * lengths[None, :]).sum()),
               Z_QK=int((mask * lengths[:, None] * lengths[None, :]).sum()))
    return blk


def _reference(inputs: dict, sizes: dict, blk: dict) -> dict:
    fwd = attention_softmax(inputs["Q"], inputs["K"], inputs["V"], element_mask_of(sizes, blk))
    return {"O": fwd["O"], "L": fwd["L"]}


def dry_sizes(sizes: dict, blk: dict) -> dict:
    """Two block rows with a dense mask: every loop case of any mask (a block-row's first
    allowed block, later ones with the accumulators live) occurs, so the peak is the run's."""
    return {**sizes, "n": min(sizes["n"], 2 * blk["block"]), "mask": "random", "density": 1.0}


SPEC = KernelSpec(
    name="block-sparse-forward",
    summary="block-sparse FlashAttention-2 forward: only allowed blocks loaded and computed",
    sizes=("n", "d"),
    inputs=attention_arrays,
    outputs=lambda s: {"O": (s["n"], s["d"]), "L": (s["n"], 1)},
    scratch=lambda s: {},
    run=run,
    reference=_reference,
    plan=mask_plan,
    dry_sizes=dry_sizes,
    count="block-sparse-forward",
    input_scale=attention_scale,
    options=OPTIONS,
    sized_reference=True,
)
