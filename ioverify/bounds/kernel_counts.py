"""Closed-form I/O counts of the traced kernels (SymPy), exact for every size, uneven included.

Each count is derived from its kernel's loop nest (see the kernel modules' docstrings) and is
checked against the traced count on a grid by the tests: a mismatch is a bug.  Blocks of side B
over a dimension of length x are ceil(x/B) blocks whose lengths sum to x, which is why the counts
need only ceilings.  ``STATED_COUNTS`` keeps the [derived] forms that docs/theory.md states
(exact divisions), for comparison.
"""

from __future__ import annotations

import numbers

import sympy as sp
from ioverify.errors import InvalidArgument

n, d, m, k = sp.symbols("n d m k", positive=True, integer=True)
B, B_r, B_c, a, b = sp.symbols("B B_r B_c a b", positive=True, integer=True)

_ceil = sp.ceiling

KERNEL_COUNTS = {
    "attention-standard": 2 * n * d + 2 * _ceil(n / B) * n * d + 5 * n**2,
    "flash-forward-v1": 2 * n * d + _ceil(n / B_c) * (3 * n * d + 4 * n) - (n * d + 2 * n),
    "flash-forward-v2": 2 * n * d + 2 * n * d * _ceil(n / B_r) + n,
    "square-tiling-forward": (3 * _ceil(n / B) * n * d + _ceil(d / B) * n**2 + n**2 + n * d
                              + 2 * n),
    "matmul-tiled": k * (m * _ceil(n / b) + n * _ceil(m / a)) + m * n,
}

# docs/theory.md §3, §4 and §6, valid when the blocks divide the sizes.
STATED_COUNTS = {
    "flash-forward-v1": 2 * n * d + (n / B_c) * (3 * n * d + 4 * n),
    "flash-forward-v2": 2 * n * d + 2 * n * d * (n / B_r) + n,
    "square-tiling-forward": 4 * n**2 * d / B + n**2 + n * d + 2 * n,
    "matmul-tiled": m * n * k * (1 / a + 1 / b) + m * n,
}

# Kernel block names -> symbols of the formulas.
BLOCK_SYMBOLS = {"block": B, "block_r": B_r, "block_c": B_c, "a": a, "b": b}
SIZE_SYMBOLS = {"n": n, "d": d, "m": m, "k": k}


def formula(name) -> sp.Expr:
    """The closed-form I/O count of kernel ``name``; a SymPy expression (the ``count`` of a
    kernel declared by another package) is its own closed form."""
    if isinstance(name, sp.Expr):
        return name
    try:
        return KERNEL_COUNTS[name]
    except (KeyError, TypeError):
        raise InvalidArgument(f"no closed-form count for kernel {name!r}") from None


def evaluate(name, sizes: dict, blocks: dict) -> int:
    """The count at the given sizes and block sizes, as an exact integer.  The formulas of
    KERNEL_COUNTS use the symbols above; an expression given as a kernel's ``count`` uses
    symbols named after the sizes and block sizes themselves."""
    expr = formula(name)
    if name is expr:
        named = {**sizes, **blocks}
        values = {s: named[s.name] for s in expr.free_symbols if s.name in named}
    else:
        values = {SIZE_SYMBOLS[key]: v for key, v in sizes.items() if key in SIZE_SYMBOLS}
        values.update({BLOCK_SYMBOLS[key]: v for key, v in blocks.items()
                       if key in BLOCK_SYMBOLS})
    for symbol, given in values.items():  # never text: SymPy's subs would evaluate it
        if isinstance(given, bool) or not isinstance(given, (numbers.Integral, sp.Integer)):
            raise InvalidArgument(f"count of {name!r}: {symbol} = {given!r} is not an integer")
    value = expr.subs(values)
    if not value.is_Integer:
        raise ValueError(f"count of {name!r} did not evaluate to an integer: {value}")
    return int(value)


# --- backward, block-sparse and approximate kernels (issue 6; see docs/kernels-backward.md) -----
# Z_r, Z_c: sums over the allowed blocks of a block mask of the block's row count and column
# count (Z_r = Z_c = s n ceil(n/B) when B divides n); f: features per pass of the polynomial
# kernel (f = r: U2^T V stays in fast memory).
Z_r, Z_c, f, r = sp.symbols("Z_r Z_c f r", positive=True, integer=True)

KERNEL_COUNTS.update({
    "flash-backward-v1": 3 * n * d + _ceil(n / B_c) * (5 * n * d + 2 * n),
    "flash-backward-v2": 5 * n * d + n + _ceil(n / B_c) * (4 * n * d + 2 * n),
    "square-tiling-backward": (5 * n * d + 3 * n + 2 * n**2 + 7 * _ceil(n / B) * n * d
                               + 3 * _ceil(d / B) * n**2),
    "block-sparse-forward": 2 * n * d + n + 2 * d * Z_c,
    "block-sparse-backward": 5 * n * d + n + (4 * d + 2) * Z_r,
    "polynomial-forward": (2 * n * d * _ceil(r / f) + 2 * n * d + r * (d + 2)
                           + r * (d + 2) * sp.Piecewise((1, sp.Eq(f, r)), (_ceil(n / B), True))),
})
# The Alman-Song gradient dL/dX (kernels/alman_song_backward.py): the two weight products
# with a x b tiles, the two-pass row loop, dX with B x B tiles.
KERNEL_COUNTS["alman-song-backward"] = (
    2 * d * (n * _ceil(d / b) + d * _ceil(n / a)) + 2 * n * d
    + 3 * n * d + 4 * n * d * _ceil(n / B_r)
    + 2 * n * d * _ceil(d / B) + d**2)
STATED_COUNTS.update({
    "flash-backward-v1": 4 * n * d + (n / B_c) * (5 * n * d + 2 * n),
    "block-sparse-forward": 2 * n * d + n + 2 * sp.Symbol("s", positive=True) * n**2 * d / B,
})
BLOCK_SYMBOLS.update({"Z_r": Z_r, "Z_c": Z_c, "group": f, "rank": r})
