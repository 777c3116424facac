"""``ioverify bench curve``: the curve command (``ioverify.search.curve``) against independent
per-cell runs of ``ioverify.search.pebbling.pebble`` with the same total time, on the seeds'
instances, every M from the smallest feasible one to the first where the greedy schedule meets
the trivial bound, both variants: settled cells and total bracket width for each, and how often
each upper-bound worker lowered an upper end in the curve (the CP-SAT worker runs when the
optional ``cpsat`` extra is installed)."""

from __future__ import annotations

import time

from ioverify.bench import Rows, machine_line
from ioverify.dag.registry import build
from ioverify.game.greedy import greedy_schedule
from ioverify.game.lemmas import trivial_lower_bound
from ioverify.game.rules import infeasibility
from ioverify.search.cpsat import portfolio
from ioverify.search.curve import VARIANTS, curve
from ioverify.search.pebbling import pebble

INSTANCES = (("attention-forward", {"n": 2, "d": 2}), ("attention-forward", {"n": 3, "d": 1}),
             ("attention-backward", {"n": 2, "d": 1}))
TOTAL = {False: 120.0, True: 20.0}  # seconds per instance and mode (quick: 20)


def memory_range(dag) -> list[int]:
    first = next(m for m in range(1, 200) if infeasibility(dag, m) is None)
    trivial, last = trivial_lower_bound(dag), first
    while greedy_schedule(dag, last).io > trivial:
        last += 1
    return list(range(first, last + 1))


def independent(dag, memories, total: float) -> tuple[int, int]:
    """Each cell on its own, an even share of ``total``: settled cells, total bracket width."""
    share, settled, width = total / (len(memories) * len(VARIANTS)), 0, 0
    for m in memories:
        for v in VARIANTS:
            verdict = pebble(dag, m, variant=v, timeout=share)
            if verdict.status == "optimal":
                settled += 1
            else:
                width += verdict.upper_bound - verdict.lower_bound
    return settled, width


def run(quick: bool = False, out: Rows | None = None) -> int:
    out, total = out or Rows(), TOTAL[quick]
    out.note(machine_line())
    out.note(f"{'instance':30} {'M':>6} {'cells':>5} {'mode':>12} {'settled':>7} {'width':>6} "
             f"{'seconds':>7}  upper-end improvements")
    for family, params in INSTANCES:
        dag = build({"family": family, "params": params})
        memories = memory_range(dag)
        name = f"{family}({', '.join(str(v) for v in params.values())})"
        span = f"{memories[0]}..{memories[-1]}"
        cells = len(memories) * len(VARIANTS)
        start = time.monotonic()
        settled, width = independent(dag, memories, total)
        seconds = time.monotonic() - start
        out.row("curve", "valid", f"{name:30} {span:>6} {cells:>5} {'per cell':>12} "
                f"{settled:>7} {width:>6} {seconds:>7.1f}", instance=name, memory=span,
                cells=cells, mode="per cell", settled=settled, width=width,
                seconds=round(seconds, 3))
        start = time.monotonic()
        result = curve(dag, memories, VARIANTS, timeout=total, upper_workers=portfolio())
        seconds = time.monotonic() - start
        out.row("curve", "valid", f"{name:30} {span:>6} {cells:>5} {'curve':>12} "
                f"{result.settled():>7} {result.total_width():>6} {seconds:>7.1f}  "
                f"{result.improvements}", instance=name, memory=span, cells=cells,
                mode="curve", settled=result.settled(), width=result.total_width(),
                seconds=round(seconds, 3), improvements=dict(result.improvements))
    return 0
