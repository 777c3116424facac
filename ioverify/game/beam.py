"""Beam search over the exhaustive search's configurations: cheap upper bounds (pure Python).

The exhaustive search (``ioverify.game.exhaustive``) stores every configuration whose
f = g + h stays below its limit, the best I/O known; when that limit lies far above the optimum
most of what it stores is never expanded (approximate_attention(2,1,2) at M = 6, one-shot,
optimum 17: 1,424,846 configurations below 21, the greedy schedule's I/O, against 383,032 below
18, and 45 s against 30 s).  A beam search walks the same blocks (N1-N17) a layer at a time,
keeping the ``width`` configurations of least f (then least h) of each layer, so it finds good
schedules in a fraction of that time: an upper bound, never a proof.  Nothing it returns is
trusted: every schedule is replayed by ``ioverify.game.replay`` before it is returned.
"""

from __future__ import annotations

import heapq
import time

from ioverify._check import integer, positive
from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached
from ioverify.game import engine
from ioverify.game.exhaustive import IMPLEMENTED, INFINITY, _Search, less
from ioverify.game.rules import Schedule, Variant, check_memory, infeasibility, require_variant

# The widths tried in turn (``beam_schedule``), each search cut at the best I/O found so far,
# until GIVE_UP_AFTER in a row find nothing cheaper: where the first schedule known is optimal
# the search costs little more than its two narrowest beams, while a wider beam can find what a
# narrower one missed (attention_backward(2,1) at M = 8, one-shot, below the greedy schedule's
# 32: nothing at width 16, 30 at 64, 26 at 256).  Ending at the first width that finds nothing
# after one that did saves little and loses the widest beam's finds: approximate_attention(2,
# 1,2) at M = 5 in one-shot, 60 s, was settled (20) with two, [19, 21] with one.
WIDTHS = (16, 64, 256, 1024)
GIVE_UP_AFTER = 2


def beam_schedule(dag: DAG, memory: int, variant: str | Variant = "one-shot", *,
                  below: int | None = None, widths: tuple[int, ...] = WIDTHS,
                  max_successors: int | None = None,
                  deadline: float | None = None) -> Schedule | None:
    """The cheapest schedule of I/O below ``below`` that beam searches of the given ``widths``
    find (one after the other, each looking only below the best found before, until
    GIVE_UP_AFTER in a row find nothing cheaper), replayed in
    ``variant``; None if they find none.  ``max_successors``: stop once that many successors
    have been generated in all (a work budget: the same on every machine);
    ``deadline``: a ``time.monotonic()`` value after which the search stops.  Either way the
    best schedule found until then is returned."""
    rules = require_variant(variant, IMPLEMENTED, "the beam search")
    check_memory(memory)
    integer("below", below, optional=True)
    positive("max_successors", max_successors, optional=True)
    if infeasibility(dag, memory) is not None:
        return None
    copy = engine.search()  # the search's copy: its _Search and _verify go together
    try:
        search = copy._Search(dag, memory, rules, deadline)
    except DeadlineReached:
        return None
    beam = _Beam(search, deadline, max_successors)
    best, limit, misses = None, INFINITY if below is None else below, 0
    for width in widths:
        found = beam.run(width, limit)
        if found is not None:
            best, limit = found
        misses = 0 if found is not None else misses + 1
        if beam.stopped or misses == GIVE_UP_AFTER:
            break
    if best is None:
        return None
    copy._verify(dag, best, memory, rules.name, limit)
    return best


class _Beam:
    """Beam searches sharing one ``_Search`` (its heuristic memo) and one work budget."""

    def __init__(self, search: _Search, deadline: float | None, max_successors: int | None):
        self.search, self.deadline, self.left = search, deadline, max_successors
        self.stopped = False
        self.successors = 0  # generated so far, in all runs

    def run(self, width: int, limit: float) -> tuple[Schedule, int] | None:
        """One beam search of ``width``: (schedule, I/O) of the cheapest goal found below
        ``limit``, or None."""
        search = self.search
        start = search.input_mask << search.n
        h0 = search.heuristic(0, search.input_mask, 0)
        if h0 >= limit:
            return None
        info = {start: (0, None, None, h0, start)}
        layer, best, done = [start], None, set()
        while layer and not self.stopped:
            done.update(layer)
            children: dict[int, tuple[float, float]] = {}  # key -> (f, h)
            for key in layer:
                g = info[key][0]
                if search.goal(key):
                    cost = g + info[key][3]  # N7: the stores left, h exact at a goal
                    if cost < limit:
                        best, limit = key, cost
                    continue
                if self._out():
                    break
                self._children(key, info, limit, children, done)
            ranked = heapq.nsmallest(width, children, key=children.__getitem__)
            layer = [nkey for nkey in ranked if children[nkey][0] < limit]
        if best is None:
            return None
        return search._schedule(best, info), limit

    def _out(self) -> bool:
        """True (and ``stopped``) once the budget or the time is out."""
        if self.left is not None and self.successors >= self.left:
            self.stopped = True
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped = True
        return self.stopped

    def _children(self, key: int, info: dict, limit: float, children: dict,
                  done: set) -> None:
        """Record in ``info`` and ``children`` every successor of ``key`` below ``limit``
        whose g improves on what was seen of its orbit and that no earlier layer expanded (in
        recompute a configuration can come back; its successors keep the path they have)."""
        search = self.search
        n, full = search.n, search.full
        g, parent, _, _, reached = info[key]
        red, blue = reached & full, reached >> n & full
        fresh, computed = reached >> 2 * n & full, reached >> 3 * n
        for cost, nred, nblue, nfresh, ncomp, block in search.blocks(
                red, blue, fresh, computed, parent is None, less(limit, g)):
            self.successors += 1
            ng = g + cost
            hkey = nred | nblue << n | ncomp << 2 * n
            h = search.memo.get(hkey)
            if h is None:
                h = search.memo[hkey] = search.heuristic(nred, nblue, ncomp)
            if ng + h >= limit:
                continue
            nraw = nred | nblue << n | nfresh << 2 * n | ncomp << 3 * n
            nkey = search.symmetry.canonical(nraw)
            old = info.get(nkey)
            if old is not None and (old[0] <= ng or nkey in done):
                continue
            info[nkey] = (ng, key, block, h, nraw)
            children[nkey] = (ng + h, h)
