"""The exact pebbling search on a fixed suite (issue 3): matmul(2,2,2) with chain sums at
M = 3..6, and attention_forward(2, 1) and (2, 2) at every M from the smallest feasible one up to
the one where the optimum equals inputs plus outputs.  Both variants; per instance the optimum
(or the bounds reached), the evidence and the seconds.  Timings are wall-clock on whatever
machine runs it; ``--quick`` runs a small subset.  Suite ``pebble`` runs ``pebble`` as shipped
(method auto), suite ``pebble-z3`` the Z3 encodings alone (``ioverify.bench.pebble_z3``)."""

from __future__ import annotations

import time

from ioverify.bench import Rows, machine_line

# Seconds allowed per instance and variant (the targets of issue 3: 10 s and 60 s).
LIMITS = {"matmul": 60.0, "attention21": 60.0, "attention22": 60.0}


def instances(quick: bool):
    """(label, dag, memories or None for 'up to the trivial bound', time limit)."""
    from ioverify.dag import attention_forward, matmul

    if quick:
        return [("matmul(2,2,2)", matmul(2, 2, 2), [5, 6], LIMITS["matmul"]),
                ("attention_forward(2,1)", attention_forward(2, 1), [7, 8], 30.0)]
    return [("matmul(2,2,2)", matmul(2, 2, 2), [3, 4, 5, 6], LIMITS["matmul"]),
            ("attention_forward(2,1)", attention_forward(2, 1), None, LIMITS["attention21"]),
            ("attention_forward(2,2)", attention_forward(2, 2), None, LIMITS["attention22"])]


def row(out: Rows, label: str, memory: int, variant: str, verdict, seconds: float) -> None:
    from ioverify.verdict import verdict_to_json

    doc = verdict_to_json(verdict)
    if doc["io"] is not None:
        value = str(doc["io"])
    else:
        value = f"[{doc['lower_bound']}, {doc['upper_bound']}]"
    out.row("pebble", doc["status"],
            f"{label:<24} {memory:>3} {variant:<10} {doc['status']:<9} {value:>10} "
            f"{doc['method']:<23} {seconds:>8.1f}",
            instance=label, memory=memory, variant=variant, io=doc["io"],
            lower_bound=doc["lower_bound"], upper_bound=doc["upper_bound"],
            evidence=doc["method"], seconds=round(seconds, 3))


def run(quick: bool = False, method: str = "auto", out: Rows | None = None) -> int:
    from ioverify.search.pebbling import pebble, trivial_lower_bound

    out = out or Rows()
    out.note(machine_line(f"method {method}"))
    out.note(f"{'instance':<24} {'M':>3} {'variant':<10} {'status':<9} {'I/O':>10} "
          f"{'evidence':<23} {'seconds':>8}")
    worst = 0
    for label, dag, memories, limit in instances(quick):
        trivial = trivial_lower_bound(dag)
        memory = dag.min_memory
        while True:
            if memory > (max(memories) if memories is not None else len(dag) + 1):
                break
            if memories is None or memory in memories:
                reached = True
                for variant in ("one-shot", "recompute"):
                    start = time.monotonic()
                    verdict = pebble(dag, memory, variant=variant, timeout=limit,
                                     method=method)
                    row(out, label, memory, variant, verdict, time.monotonic() - start)
                    worst = max(worst, 0 if verdict.status == "optimal" else 3)
                    upper = getattr(verdict, "io", None) or getattr(verdict, "upper_bound", None)
                    reached = reached and upper == trivial
                if memories is None and reached:
                    break
            memory += 1
    return worst
