"""Records for the exact kernel counts of ``ioverify.bounds.kernel_counts`` (the closed forms of
the traced kernels in ``kernels/``), picked up when that module is present.

Each count becomes a ``kernel-<name>`` record of kind ``exact``: the I/O of that kernel's loop
nest for every size and block size (uneven blocks included, through ceilings).  M is accepted for
uniformity: the block sizes carry the memory, and whether they fit is certified by the trace.
"""

from __future__ import annotations

import importlib

import sympy

from ioverify.bounds.model import Bound
from ioverify.bounds.symbols import BY_NAME, M

GRAPHS = {
    "attention-standard": ("attention-forward", "standard attention: S and P materialised"),
    "flash-forward-v1": ("attention-forward", "FlashAttention forward, outer loop over K/V"),
    "flash-forward-v2": ("attention-forward", "FlashAttention-2 forward, outer loop over Q"),
    "square-tiling-forward": ("attention-forward", "Saha-Ye Algorithm 1, square tiles"),
    "matmul-tiled": ("matmul", "a x b output tiles, k streamed"),
    "flash-backward-v1": ("attention-backward", "FlashAttention backward, outer loop over K/V"),
    "flash-backward-v2": ("attention-backward", "FlashAttention-2 backward"),
    "square-tiling-backward": ("attention-backward", "square-tiled backward"),
    "alman-song-backward": ("alman-song-backward", "Alman-Song gradient dL/dX, weight products "
                            "tiled"),
    "block-sparse-forward": (None, "block-sparse FlashAttention forward"),
    "block-sparse-backward": (None, "block-sparse FlashAttention backward"),
    "polynomial-forward": ("approximate-attention", "polynomial-method attention, blocked"),
}


def kernel_counts_module():
    """``ioverify.bounds.kernel_counts`` if it exists, else None."""
    try:
        return importlib.import_module("ioverify.bounds.kernel_counts")
    except ModuleNotFoundError as error:
        if error.name != "ioverify.bounds.kernel_counts":
            raise
        return None


def kernel_counts() -> dict[str, sympy.Expr]:
    """The kernel counts, in this package's symbols (same names and assumptions)."""
    module = kernel_counts_module()
    if module is None:
        return {}
    return {name: _own_symbols(expr) for name, expr in module.KERNEL_COUNTS.items()}


def theory_counts() -> dict[str, sympy.Expr]:
    """The [derived] forms of the same counts stated in docs/theory.md (exact divisions), as kept
    next to them."""
    module = kernel_counts_module()
    if module is None:
        return {}
    return {name: _own_symbols(expr) for name, expr in getattr(module, "STATED_COUNTS", {}).items()}


def _own_symbols(expr: sympy.Expr) -> sympy.Expr:
    """Map the module's symbols onto ours by name (a mismatch in assumptions would be a bug)."""
    return expr.xreplace({sym: BY_NAME.get(sym.name, sym) for sym in expr.free_symbols})


def _param_order(sym: sympy.Symbol) -> tuple:
    """Sizes first (n, d, m, k), then blocks, each alphabetically."""
    sizes = ("n", "d", "m", "k")
    return (0, sizes.index(sym.name)) if sym.name in sizes else (1, sym.name)


def kernel_bounds() -> list[Bound]:
    return [_record(name, expr) for name, expr in kernel_counts().items()]


def _record(name: str, expr: sympy.Expr) -> Bound:
    family, graph = GRAPHS.get(name, (None, f"the loop nest of kernel {name}"))
    params = tuple(sorted(expr.free_symbols, key=_param_order)) + (M,)
    return Bound(f"kernel-{name}", f"Traced kernel {name}: exact I/O count",
                 f"The traced kernel {name} moves exactly {sympy.sstr(expr)} words, for every "
                 f"size and block size (uneven blocks through ceilings).",
                 f"ioverify kernels ({name}): closed form from the loop nest, checked against "
                 f"the traced count", "derived", "exact", "kernel trace", graph, params,
                 sympy.true, expr, section="§6", family=family,
                 notes="M is accepted for uniformity; the block sizes carry the memory.")
