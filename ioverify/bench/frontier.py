"""The exact-search frontier (issue 16): the seeds' own instances at every M from the smallest
feasible one to the first where the optimum equals inputs plus outputs, both variants, each cell
run by ``pebble`` (method auto) twice: with the exhaustive search's own heuristic only, and with
the abstraction bound of ``ioverify.game.abstraction`` allowed (the ablation).  A row gives the
verdict (the optimum, or the bracket proved) and the seconds of each run.

Per-cell time limits are the issue's targets (60 s up to 46 vertices, 600 s up to 64) unless
``cell_limit`` is given (``ioverify bench frontier --cell-limit S``); the full sweep at the
targets takes hours; ``max_vertices`` (``--max-vertices N``) sweeps only the instances of at
most N vertices, ``only`` (``--only TEXT``) those whose label contains TEXT.  ``--quick``: attention_backward(1,1) only, at 5 s a cell."""

from __future__ import annotations

from ioverify.bench import Rows, machine_line

import time

TARGETS = ((46, 60.0), (64, 600.0))  # (up to this many vertices, seconds per cell)
QUICK_LIMIT = 5.0


def instances(quick: bool):
    """(label, dag) in the order of the table."""
    from ioverify.dag import (approximate_attention, attention_backward, attention_forward,
                              matmul, sparse_attention_backward, sparse_attention_forward)

    causal = [[j <= i for j in range(3)] for i in range(3)]
    if quick:
        return [("attention_backward(1,1)", attention_backward(1, 1))]
    return [("attention_backward(1,1)", attention_backward(1, 1)),
            ("approximate_attention(2,1,1)", approximate_attention(2, 1, 1)),
            ("approximate_attention(1,1,2)", approximate_attention(1, 1, 2)),
            ("approximate_attention(2,1,2)", approximate_attention(2, 1, 2)),
            ("matmul(2,2,3)", matmul(2, 2, 3)),
            ("sparse_forward(causal 3,1)", sparse_attention_forward(causal, 1)),
            ("sparse_backward(causal 3,1)", sparse_attention_backward(causal, 1)),
            ("attention_forward(2,2)", attention_forward(2, 2)),
            ("attention_forward(3,1)", attention_forward(3, 1)),
            ("attention_backward(2,1)", attention_backward(2, 1)),
            ("matmul(3,3,3)", matmul(3, 3, 3))]


def target(vertices: int) -> float:
    """The issue's time target for a DAG of ``vertices`` vertices (the largest one past 64)."""
    for most, seconds in TARGETS:
        if vertices <= most:
            return seconds
    return TARGETS[-1][1]


def answer(verdict) -> tuple[str, int | None, int | None]:
    """(text, lower, upper) of a verdict: the optimum, or the bracket proved."""
    from ioverify.verdict import verdict_to_json

    doc = verdict_to_json(verdict)
    if doc["io"] is not None and doc["status"] == "optimal":
        return f"{doc['io']} opt", doc["io"], doc["io"]
    lower, upper = doc.get("lower_bound"), doc.get("upper_bound")
    return f"[{lower}, {upper}]", lower, upper


def run(quick: bool = False, out: Rows | None = None, cell_limit: float | None = None,
        max_vertices: int | None = None, only: str | None = None) -> int:
    """Exit 0 when every cell is settled within its limit, else 3 (a target missed)."""
    from ioverify.search.pebbling import pebble, trivial_lower_bound

    out = out or Rows()
    missed = False
    out.note(machine_line())
    out.note(f"{'instance':<29} {'V':>3} {'M':>3} {'variant':<10} {'without':>12} {'s':>6} "
             f"{'with abstraction':>16} {'s':>6}")
    for label, dag in instances(quick):
        if (max_vertices is not None and len(dag) > max_vertices
                or only is not None and only not in label):
            continue
        limit = QUICK_LIMIT if quick else cell_limit or target(len(dag))
        trivial = trivial_lower_bound(dag)
        for memory in range(dag.min_memory, len(dag) + 2):
            settled = True
            for variant in ("one-shot", "recompute"):
                cells = []
                for use in (False, True):
                    start = time.monotonic()
                    verdict = pebble(dag, memory, variant=variant, timeout=limit,
                                     abstraction=use)
                    cells.append((*answer(verdict), time.monotonic() - start, verdict))
                (plain, low0, up0, s0, _), (text, low1, upper, s1, last) = cells
                settled = settled and upper == trivial
                status = "optimal" if low1 is not None and low1 == upper else "unknown"
                missed = missed or status != "optimal"
                out.row("frontier", status,
                        f"{label:<29} {len(dag):>3} {memory:>3} {variant:<10} {plain:>12} "
                        f"{s0:>6.1f} {text:>16} {s1:>6.1f}",
                        instance=label, vertices=len(dag), memory=memory, variant=variant,
                        without={"lower": low0, "upper": up0, "seconds": round(s0, 3)},
                        with_abstraction={"lower": low1, "upper": upper,
                                          "seconds": round(s1, 3)})
            if settled:
                break
    return 3 if missed else 0
