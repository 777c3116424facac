"""DAG family build times (target: attention_forward(64, 8) in at most a few seconds)."""

from __future__ import annotations

import time

from ioverify.bench import Rows

CASES = (
    ("attention_forward", (64, 8)), ("attention_backward", (64, 8)),
    ("approximate_attention", (64, 8, 2)), ("matmul", (32, 32, 32)),
)


def run(quick: bool = False, out: Rows | None = None) -> int:
    import ioverify.dag as dags

    out = out or Rows()
    out.note(f"{'family':<24} {'args':<14} {'vertices':>9} {'edges':>9} {'best s':>7}")
    for name, args in CASES[:2] if quick else CASES:
        best, dag = float("inf"), None
        for _ in range(3):
            start = time.perf_counter()
            dag = getattr(dags, name)(*args)
            best = min(best, time.perf_counter() - start)
        out.row("families", "valid",
                f"{name:<24} {str(args):<14} {len(dag):>9} {dag.num_edges:>9} {best:>7.2f}",
                family=name, args=list(args), vertices=len(dag), edges=dag.num_edges,
                seconds=round(best, 4))
    return 0
