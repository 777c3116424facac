"""Tiled matrix multiplication C = A B (A m x k, B k x n), COSMA-style (docs/theory.md §3).

An a x b tile of C stays in fast memory while, for each l, the column A[i:i+a, l] and the row
B[l, j:j+b] are loaded and their outer product is accumulated.  Working set ab + a + b words,
plus 1 for the pebble being placed by the accumulating update when k >= 2 (the FMA-chain DAG:
the new partial sum is placed while the old one is live).  I/O:
    k (m ceil(n/b) + n ceil(m/a)) + m n      (= mnk(1/a + 1/b) + mn when a | m and b | n)
The plan picks (a, b) minimising that count subject to ab + a + b + [k >= 2] <= M.
"""

from __future__ import annotations

from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import KernelSpec, blocks, ceil_div


def run(mem, x: dict, sizes: dict, blk: dict) -> None:
    m, k, n = sizes["m"], sizes["k"], sizes["n"]
    for i0, a in blocks(m, blk["a"]):
        for j0, b in blocks(n, blk["b"]):
            c = None
            for l in range(k):
                at = mem.load(x["A"], (i0, i0 + a), (l, l + 1))
                bt = mem.load(x["B"], (l, l + 1), (j0, j0 + b))
                if c is None:
                    c = mem.matmul(at, bt)
                else:
                    mem.matmul(at, bt, out=c, accumulate=True)
                mem.free(at)
                mem.free(bt)
            mem.store(c, x["C"], i0, j0)
            mem.free(c)


def working_set(a: int, b: int, k: int) -> int:
    """Peak words of one C tile: ab + a + b, plus 1 for the accumulating update when k >= 2."""
    return a * b + a + b + (1 if k >= 2 else 0)


def count(m: int, k: int, n: int, a: int, b: int) -> int:
    return k * (m * ceil_div(n, b) + n * ceil_div(m, a)) + m * n


def plan(spec, sizes: dict, memory: int, literal: bool) -> dict:
    """The (a, b) with the least I/O among those whose working set fits in M."""
    if literal:
        raise InvalidArgument(f"kernel {spec.name!r} has no literal block sizes")
    m, k, n = sizes["m"], sizes["k"], sizes["n"]
    best = None
    for a in range(1, m + 1):
        b = min(n, (memory - (1 if k >= 2 else 0) - a) // (a + 1))
        if b < 1:
            break
        key = (count(m, k, n, a, b), -a * b, a)
        if best is None or key < best[0]:
            best = (key, a, b)
    if best is None:
        raise InvalidArgument(f"memory M = {memory} is too small for kernel {spec.name!r}: a 1x1 "
                              f"tile needs {working_set(1, 1, k)} words")
    return {"a": best[1], "b": best[2]}


SPEC = KernelSpec(
    name="matmul-tiled",
    summary="tiled matmul holding an a x b tile of C (ab + a + b <= M)",
    sizes=("m", "k", "n"),
    inputs=lambda s: {"A": (s["m"], s["k"]), "B": (s["k"], s["n"])},
    outputs=lambda s: {"C": (s["m"], s["n"])},
    scratch=lambda s: {},
    run=run,
    reference=lambda x: {"C": x["A"] @ x["B"]},
    plan=plan,
    dry_sizes=lambda s, blk: s,
    count="matmul-tiled",
)
