"""Small reference families: pyramids, binary trees and matrix multiplication (scalar granularity).

Every vertex is labelled with its operation.  Names are stable and readable (``A[0,1]``,
``C[1,0]``), so schedules and partitions can be read by a person.  The attention families live in
``ioverify.dag.attention``.
"""

from __future__ import annotations

from typing import Sequence

from ioverify._check import integer
from ioverify.dag.model import DAG, DAGBuilder
from ioverify.errors import InvalidArgument

SUMMATIONS = ("chain", "tree")


def positive(name: str, value: int, minimum: int = 1) -> int:
    return integer(name, value, minimum)


def check_summation(summation: str) -> str:
    if summation not in SUMMATIONS:
        raise InvalidArgument(f"summation must be one of {', '.join(SUMMATIONS)}, "
                              f"got {summation!r}")
    return summation


def add_sum(b: DAGBuilder, terms: Sequence[int], name: str, summation: str,
            op: str = "add") -> int:
    """Sum ``terms`` into a vertex named ``name``: a left-to-right chain or a balanced tree.
    Intermediate partial sums are named ``name~1``, ``name~2``, ...; one term is returned as is."""
    if len(terms) == 1:
        return terms[0]
    if summation == "chain":
        acc = terms[0]
        for i, t in enumerate(terms[1:], 1):
            acc = b.op(op, name if i == len(terms) - 1 else f"{name}~{i}", [acc, t])
        return acc
    level, counter = list(terms), 0
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level) - 1, 2):
            counter += 1
            last = len(level) == 2
            nxt.append(b.op(op, name if last else f"{name}~{counter}", [level[i], level[i + 1]]))
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def matrix_inputs(b: DAGBuilder, label: str, rows: int, cols: int) -> list[list[int]]:
    return [[b.input(f"{label}[{i},{j}]") for j in range(cols)] for i in range(rows)]


def add_matmul(b: DAGBuilder, A: list[list[int]], B: list[list[int]], label: str,
               summation: str, mul_op: str = "mul") -> list[list[int]]:
    """C = A B with one product vertex per (i, l, j) and a per-entry sum."""
    m, k, n = len(A), len(B), len(B[0])
    C = []
    for i in range(m):
        row = []
        for j in range(n):
            products = [b.op(mul_op, f"{label}*[{i},{l},{j}]" if k > 1 else f"{label}[{i},{j}]",
                             [A[i][l], B[l][j]]) for l in range(k)]
            row.append(add_sum(b, products, f"{label}[{i},{j}]", summation))
        C.append(row)
    return C


def matmul(m: int, k: int, n: int, summation: str = "chain") -> DAG:
    """C = A B for A (m x k), B (k x n): mkn products, per-entry chain or tree summation."""
    positive("m", m), positive("k", k), positive("n", n), check_summation(summation)
    b = DAGBuilder()
    A = matrix_inputs(b, "A", m, k)
    B = matrix_inputs(b, "B", k, n)
    add_matmul(b, A, B, "C", summation)
    return b.build()


def pyramid(height: int) -> DAG:
    """The pebbling pyramid: ``height + 1`` inputs at the base, each vertex above two neighbours
    below, one apex (height 3: 4 inputs, 10 vertices)."""
    positive("height", height)
    b = DAGBuilder()
    level = [b.input(f"x[0,{i}]") for i in range(height + 1)]
    for h in range(1, height + 1):
        level = [b.op("f", f"x[{h},{i}]", [level[i], level[i + 1]]) for i in range(len(level) - 1)]
    return b.build()


def binary_tree(leaves: int) -> DAG:
    """A complete binary tree with ``leaves`` leaves (a power of two) reduced to one root."""
    positive("leaves", leaves, 2)
    if leaves & (leaves - 1):
        raise InvalidArgument(f"leaves must be a power of two, got {leaves}")
    b = DAGBuilder()
    level = [b.input(f"x[0,{i}]") for i in range(leaves)]
    h = 0
    while len(level) > 1:
        h += 1
        level = [b.op("add", f"x[{h},{i}]", [level[2 * i], level[2 * i + 1]])
                 for i in range(len(level) // 2)]
    return b.build()
