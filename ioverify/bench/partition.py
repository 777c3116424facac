"""P(2M) for matmul(2,2,2) and attention_forward(2,1) at every feasible M (target: <= 30 s each),
with the exact recompute pebbling optimum beside each, so the gap between the partition bound
M * (P(2M) - 1) and the truth is visible.

P(S) never grows with S (an S-partition is an S'-partition for S' >= S), so once P(2M) = 1 the
bound is 0 for every larger M and the sweep stops there.  The optimum comes from the exhaustive
search when it finishes within its budget, else from the reference table of docs/theory.md §1,
else "?".
The full run adds matmul(3,3,3) as the frontier where the Z3 search stops being exact in 30 s.
"""

from __future__ import annotations

from ioverify.bench import Rows, machine_line

# docs/theory.md §1: independent exhaustive search, recompute variant.
REFERENCE_OPTIMA = {("matmul(2,2,2)", 3): 25, ("matmul(2,2,2)", 4): 17,
                    ("matmul(2,2,2)", 5): 14, ("matmul(2,2,2)", 6): 13}

TIMEOUT = 30.0
FRONTIER = ("matmul(3,3,3)",)


def instances(quick: bool):
    from ioverify.dag import matmul
    from ioverify.dag.attention import attention_forward

    yield "matmul(2,2,2)", matmul(2, 2, 2)
    yield "attention_forward(2,1)", attention_forward(2, 1)
    if not quick:
        yield "matmul(3,3,3)", matmul(3, 3, 3)


def optimum(name: str, dag, memory: int, budget: float) -> tuple[str, int | None]:
    """(source, value) of the exact recompute optimum, or ("?", None) if not known in budget.
    The exhaustive search runs as ``ioverify pebble --method exhaustive`` runs it."""
    from ioverify.search.pebbling import pebble

    if budget > 0:
        verdict = pebble(dag, memory, method="exhaustive", timeout=budget)
        if verdict.status == "optimal":
            return "exhaustive", verdict.io
    if (name, memory) in REFERENCE_OPTIMA:
        return "docs/theory.md §1", REFERENCE_OPTIMA[(name, memory)]
    return "?", None


def run(quick: bool = False, out: Rows | None = None) -> int:
    from ioverify.search.partition import search_partition

    out = out or Rows()
    out.note(machine_line(f"Z3 timeout {TIMEOUT:.0f} s per instance"))
    out.note(f"{'DAG':<24} {'M':>3} {'S':>3} {'P(2M)':>7} {'bound':>6} {'seconds':>8} "
          f"{'optimum':>8} {'gap':>5}  optimum from")
    worst = 0
    for name, dag in instances(quick):
        for memory in range(dag.min_memory, len(dag) + 1):
            result = search_partition(dag, 2 * memory, timeout=TIMEOUT)
            if name not in FRONTIER:  # the frontier rows are informative, not targets
                worst = max(worst, 0 if result.exact else 3)
            bound = memory * (result.lower - 1)
            parts = str(result.upper) if result.exact else f"{result.lower}..{result.upper}"
            source, best = ("-", None) if name in FRONTIER else optimum(
                name, dag, memory, 2.0 if quick else 30.0)
            best_text = "?" if best is None else str(best)
            gap = "?" if best is None else str(best - bound)
            wrong = best is not None and bound > best
            out.row("partition", "internal error" if wrong else
                    "verified" if result.exact else "unknown",
                    f"{name:<24} {memory:>3} {2 * memory:>3} {parts:>7} {bound:>6} "
                    f"{result.seconds:>8.2f} {best_text:>8} {gap:>5}  {source}",
                    dag=name, memory=memory, s=2 * memory, parts_lower=result.lower,
                    parts_upper=result.upper, bound=bound, seconds=round(result.seconds, 3),
                    optimum=best, optimum_from=None if best is None else source,
                    target=name not in FRONTIER)
            if wrong:
                out.note(f"BUG: partition bound {bound} exceeds the optimum {best}")
                return 4
            if result.upper == 1:
                break
    return worst
