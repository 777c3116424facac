"""The SymPy symbols every bound formula is written in (docs/theory.md, "Notation").

One symbol per parameter name, shared by all records, so that a fact can compare two bounds
symbolically.  Counts (sizes, memory, block sides) are positive integers; ``s`` (the fraction of
non-zero blocks) is a positive real.  The attention ``n`` (sequence length) and the matmul ``n``
(columns of B) are the same symbol: each record says what its parameters mean.
"""

from __future__ import annotations

import sympy


def _count(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, positive=True, integer=True)


n = _count("n")  # sequence length (attention) / columns of B (matmul)
d = _count("d")  # head dimension
M = _count("M")  # fast-memory size in words (red pebbles; S in Hong-Kung)
m = _count("m")  # rows of A (matmul)
k = _count("k")  # columns of A = rows of B (matmul)
a = _count("a")  # tile rows (COSMA)
b = _count("b")  # tile columns (COSMA)
P = _count("P")  # P(2M): the least number of parts of a 2M-partition
V = _count("V")  # number of vertices of the DAG
U = _count("U")  # most vertices any set dominated by <= 2M vertices can hold
B = _count("B")  # block side of Saha-Ye Algorithm 1
B_c = _count("B_c")  # FlashAttention column block (rows of a K/V block)
B_r = _count("B_r")  # FlashAttention row block (rows of a Q block)
r = _count("r")  # rank of the polynomial-method factorisation (approximate attention)
g = _count("g")  # degree of the polynomial approximating exp
Z_in = _count("Z_in")  # non-zeros of the inputs (sparse attention)
Z_QK = _count("Z_QK")  # non-zeros of Q K^T (sparse attention)
s = sympy.Symbol("s", positive=True)  # fraction of non-zero blocks (block-sparse FlashAttention)
Z_r = _count("Z_r")  # sum over the allowed blocks of a block mask of the block's row count
Z_c = _count("Z_c")  # sum over the allowed blocks of a block mask of the block's column count
f = _count("f")  # features per pass of the polynomial-method kernel

BY_NAME: dict[str, sympy.Symbol] = {
    sym.name: sym for sym in (n, d, M, m, k, a, b, P, V, U, B, B_c, B_r, r, g, Z_in, Z_QK, s,
                              Z_r, Z_c, f)
}


def is_integer(sym: sympy.Symbol) -> bool:
    """Whether the parameter ranges over integers (else over positive reals)."""
    return bool(sym.is_integer)
