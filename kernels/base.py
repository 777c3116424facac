"""Helpers the attention kernels share: the float64 softmax reference, the attention input
shapes and scale, FlashAttention's literal block sizes and dry-run sizes.  The kernel framework
(``KernelSpec``, planning, running, certification) is ``ioverify.trace.kernel``."""

from __future__ import annotations

import numpy as np

from ioverify.trace.kernel import ceil_div

# --- float64 references -------------------------------------------------------------------------

def scores(inputs: dict) -> np.ndarray:
    """S = Q K^T (no 1/sqrt(d) scale: docs/theory.md §4's model)."""
    return inputs["Q"] @ inputs["K"].T


def softmax_reference(inputs: dict) -> dict:
    """O = softmax(QK^T) V with the row statistics m = rowmax(S), l = rowsum(exp(S - m)), and
    the logsumexp L = m + log l."""
    s = scores(inputs)
    m = s.max(axis=1, keepdims=True)
    e = np.exp(s - m)
    l = e.sum(axis=1, keepdims=True)
    return {"O": (e / l) @ inputs["V"], "m": m, "l": l, "L": m + np.log(l)}


def attention_arrays(sizes: dict) -> dict:
    n, d = sizes["n"], sizes["d"]
    return {"Q": (n, d), "K": (n, d), "V": (n, d)}


def attention_scale(sizes: dict) -> float:
    return float(sizes["d"]) ** -0.25


def flash_literal_blocks(sizes: dict, memory: int) -> dict:
    """FlashAttention's literal block sizes (Algorithm 1): B_c = ceil(M / 4d), B_r = min(B_c, d)."""
    bc = ceil_div(memory, 4 * sizes["d"])
    return {"block_r": min(bc, sizes["d"]), "block_c": bc}


def flash_dry_sizes(sizes: dict, blk: dict) -> dict:
    """Two blocks of the larger side show every block shape and loop case of a FlashAttention
    forward pass."""
    return {"n": min(sizes["n"], 2 * max(blk.values())), "d": sizes["d"]}
