"""The exact-search frontier (issue 16): the seeds' own instances at every M from the smallest
feasible one to the first where the optimum equals inputs plus outputs, both variants, each cell
run by ``pebble`` (method auto, on two processes where the machine has two cores, as the
command by default) twice: with the exhaustive search's own heuristic only, and with
the abstraction bound of ``ioverify.game.abstraction`` allowed (the ablation).  A row gives the
verdict (the optimum, or the bracket proved) and the seconds of each run.

Per-cell time limits are the issue's targets (60 s up to 46 vertices, 600 s up to 64) unless
``cell_limit`` is given (``ioverify bench frontier --cell-limit S``); the full sweep at the
targets takes hours; ``max_vertices`` (``--max-vertices N``) sweeps only the instances of at
most N vertices, ``only`` (``--only TEXT``) those whose label contains TEXT; ``variants``
(``--variant``) and ``memories`` (``--memory M|LO..HI``) sweep only those of each instance's
cells (its M below the smallest feasible one left out, and no stop at the first M where the
optimum is inputs plus outputs): to measure the open cells again.  ``--quick``:
attention_backward(1,1) only, at 5 s a cell.

The peer baseline runs in the same sweep, on the same cell with the same time limit: the
time-indexed 0-1 model in the style of OneStopParallel solved by OR-Tools CP-SAT
(``ioverify.search.cpsat``, the optional ``cpsat`` extra; horizon = the greedy schedule's
actions + 3, as that project sets it, warm-started from that schedule, the one ``pebble``
starts from).  Its columns are its
best I/O (its schedule replayed here; ``NO`` if it fails replay), whether CP-SAT proved it
optimal *within that horizon* (``h`` after the value: not a proof of the game's optimum) and
its seconds.  The peer is a baseline only: nothing it answers reaches a verdict.
``peer=False`` (``--no-peer``) leaves it out, ``ablation=False`` (``--no-ablation``) the run
without the abstraction bound."""

from __future__ import annotations

from ioverify.bench import Rows, machine_line
from ioverify.bench.peer import cell as peer_cell
from ioverify.search.apart import default_processes

import time

VARIANTS = ("one-shot", "recompute")
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
        max_vertices: int | None = None, only: str | None = None, peer: bool = True,
        ablation: bool = True, variants: tuple[str, ...] = VARIANTS,
        memories: list[int] | None = None) -> int:
    """Exit 0 when every cell is settled within its limit, else 3 (a target missed; the
    peer's answers never count)."""
    from ioverify.search.cpsat import available
    from ioverify.search.pebbling import trivial_lower_bound

    out = out or Rows()
    missed = False
    missing = peer and not available()
    peer = peer and not missing
    out.note(f"{machine_line()}; each cell on {default_processes()} process(es), as 'ioverify "
             f"pebble' by default" + (", the peer on as many CP-SAT workers" if peer else ""))
    if missing:
        out.note("the peer column is left out: it needs the optional 'cpsat' extra "
                 "(pip install 'ioverify[cpsat]')")
    out.note(f"{'instance':<29} {'V':>3} {'M':>3} {'variant':<10} "
             + (f"{'without':>12} {'s':>6} " if ablation else "")
             + f"{'with abstraction':>16} {'s':>6}" + (f" {'peer':>8} {'s':>6}" if peer else ""))
    for label, dag in instances(quick):
        if (max_vertices is not None and len(dag) > max_vertices
                or only is not None and only not in label):
            continue
        limit = QUICK_LIMIT if quick else cell_limit or target(len(dag))
        trivial = trivial_lower_bound(dag)
        for memory in _memories(dag, memories):
            settled = True
            for variant in variants:
                record, columns = cell(dag, memory, variant, limit, ablation, peer)
                ours = record["with_abstraction"]
                settled = settled and ours["upper"] == trivial
                status = ("optimal" if ours["lower"] is not None
                          and ours["lower"] == ours["upper"] else "unknown")
                missed = missed or status != "optimal"
                out.row("frontier", status,
                        f"{label:<29} {len(dag):>3} {memory:>3} {variant:<10} {columns}",
                        instance=label, vertices=len(dag), memory=memory, variant=variant,
                        **record)
            if settled and memories is None:
                break
    return 3 if missed else 0


def _memories(dag, memories: list[int] | None):
    """The M to sweep: ``memories`` from the smallest feasible M on, or, by default, every M
    from that one (the sweep stops at the first where the optimum is inputs plus outputs)."""
    if memories is None:
        return range(dag.min_memory, len(dag) + 2)
    return [memory for memory in memories if memory >= dag.min_memory]


def cell(dag, memory: int, variant: str, limit: float, ablation: bool,
         peer: bool) -> tuple[dict, str]:
    """One (M, variant) cell: ``pebble`` with the abstraction bound (and without it if
    ``ablation``), then the peer if ``peer``, each with ``limit`` seconds; the JSON record
    and the table's columns."""
    from ioverify.search.pebbling import pebble

    record, columns = {}, []
    for name, use in (("without", False), ("with_abstraction", True)):
        if name == "without" and not ablation:
            continue
        start = time.monotonic()
        text, lower, upper = answer(pebble(dag, memory, variant=variant, timeout=limit,
                                           abstraction=use, processes=default_processes()))
        seconds = time.monotonic() - start
        record[name] = {"lower": lower, "upper": upper, "seconds": round(seconds, 3)}
        columns.append(f"{text:>{12 if name == 'without' else 16}} {seconds:>6.1f}")
    if peer:
        record["peer"] = peer_cell(dag, memory, variant, limit,
                                   workers=default_processes())
        columns.append(f"{peer_text(record['peer']):>8} {record['peer']['seconds']:>6.1f}")
    return record, " ".join(columns)


def peer_text(record: dict) -> str:
    """``17h``: I/O 17, optimal within the horizon; ``17``: the best found; ``-``: none;
    ``NO``: a schedule that failed replay."""
    if record["replays"] == "NO":
        return "NO"
    if record["io"] is None:
        return "-"
    return f"{record['io']}{'h' if record['proved_within_horizon'] else ''}"
