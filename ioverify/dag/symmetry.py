"""Automorphisms of a DAG, computed (never assumed), for symmetry breaking in the search.

An automorphism is a permutation of the vertices that maps predecessor sets onto predecessor sets
and outputs onto outputs.  It maps every legal schedule to a legal schedule of the same I/O (the
rules of docs/theory.md §1 mention only predecessors, inputs and outputs), so a search may
restrict its first computes to orbit representatives.  Every permutation returned here is checked
against the definition by ``is_automorphism`` before use.

The group is listed by an iterative backtracking search (no recursion: any number of vertices)
under a limit on its size, a work budget and an optional deadline: past any of them no symmetry
is used, which keeps every search sound.  It replaced a recursive search with neither budget nor
deadline (RecursionError from about 1,000 vertices; matmul(3,3,3) unfinished after 300 s).
Measured against networkx with the same colours as node labels, alone on the two cores of
docs/performance.md: matmul(3,3,3), 144 automorphisms, 0.03 s (VF2++ 0.47 s, VF2 1.5 s);
binary_tree(16), more than 4,096, 0.03 s (0.33 s, 1.7 s); attention-forward(4,2), 192, 0.19 s
(1.7 s, 37 s).  So ioverify does not depend on networkx; the tests compare the two.
"""

from __future__ import annotations

import time
from collections import deque

from ioverify.dag.model import DAG
from ioverify.errors import InternalError

MAX_AUTOMORPHISMS = 4096
# The work budget: steps of the search (a vertex refined or an image tried), about 1 us each.
# matmul(4,4,4) takes 3.6 million (2,304 automorphisms); attention-backward(4,2) would take 18
# million for its 16, attention-forward(4,3) more than 30 million: past the budget, no symmetry.
MAX_STEPS = 4_000_000
CHECK_CLOCK_EVERY = 256  # steps between two looks at the clock


class _GiveUp(Exception):
    """The deadline passed or the work budget ran out: the caller gets no group (then no
    symmetry is used)."""


def is_automorphism(dag: DAG, perm: tuple[int, ...]) -> bool:
    """The definition, checked directly: a bijection preserving predecessor sets and outputs."""
    n = len(dag)
    if sorted(perm) != list(range(n)):
        return False
    for v in range(n):
        if {perm[p] for p in dag.preds[v]} != set(dag.preds[perm[v]]):
            return False
    return {perm[o] for o in dag.outputs} == set(dag.outputs)


class _Clock:
    """Counts steps and looks at ``time.monotonic()`` at the first step and every
    CHECK_CLOCK_EVERY steps after it: a step past ``max_steps``, or past ``deadline`` (None:
    no deadline), raises ``_GiveUp``."""

    def __init__(self, deadline: float | None, max_steps: int = MAX_STEPS):
        self.deadline, self.max_steps, self.count = deadline, max_steps, 0

    def tick(self) -> None:
        self.count += 1
        if self.count % CHECK_CLOCK_EVERY == 1:
            if self.count > self.max_steps or (
                    self.deadline is not None and time.monotonic() >= self.deadline):
                raise _GiveUp


def _colours(dag: DAG, clock: _Clock | None = None) -> list[int]:
    """An invariant colouring: an automorphism maps a vertex only to a vertex of the same
    colour.  Colour refinement in sweeps along the topological order, downwards (a vertex's
    colour and its predecessors' new colours) and then upwards (successors): one sweep carries
    information across the whole depth of the DAG, where rounds of 1-dimensional
    Weisfeiler-Leman need as many rounds as the DAG is deep.  Each sweep only splits colours;
    they stop when one pair of sweeps splits none."""
    clock = clock or _Clock(None)
    colour = _intern([(len(dag.preds[v]), len(dag.succs[v]), dag.is_output[v])
                      for v in range(len(dag))])
    classes = len(set(colour))
    while True:
        colour = _sweep(colour, dag.preds, range(len(dag)), clock)
        colour = _sweep(colour, dag.succs, range(len(dag) - 1, -1, -1), clock)
        if len(set(colour)) == classes:
            return colour
        classes = len(set(colour))


def _sweep(colour: list[int], neighbours, order, clock: _Clock) -> list[int]:
    """New colours in ``order``, each from the old colour of the vertex and the new colours of
    its ``neighbours`` (all earlier in ``order``).  Equal keys get equal numbers, so the
    partition is canonical even though the numbers depend on the order."""
    new, table = [0] * len(colour), {}
    for v in order:
        clock.tick()
        key = (colour[v], tuple(sorted(new[u] for u in neighbours[v])))
        new[v] = table.setdefault(key, len(table))
    return new


def _intern(keys) -> list[int]:
    table: dict = {}
    return [table.setdefault(k, len(table)) for k in keys]


def _match_order(dag: DAG, colour: list[int]) -> list[int]:
    """The vertices in breadth-first order over edges of either direction, each component
    started at a vertex of its rarest colour: every vertex after a component's first has a
    neighbour placed before it, which narrows its candidates to that neighbour's image's
    neighbours."""
    size: dict[int, int] = {}
    for c in colour:
        size[c] = size.get(c, 0) + 1
    placed, order = bytearray(len(dag)), []
    for root in sorted(range(len(dag)), key=lambda v: (size[colour[v]], v)):
        if placed[root]:
            continue
        placed[root] = 1
        queue = deque([root])
        while queue:
            v = queue.popleft()
            order.append(v)
            for u in (*dag.preds[v], *dag.succs[v]):
                if not placed[u]:
                    placed[u] = 1
                    queue.append(u)
    return order


class _Backtrack:
    """The search state of ``automorphisms``: a partial map ``perm`` of the first vertices of
    ``order`` and, per level, an iterator over the images still to try."""

    def __init__(self, dag: DAG, colour: list[int]):
        self.dag, self.colour = dag, colour
        self.order = _match_order(dag, colour)
        position = {v: i for i, v in enumerate(self.order)}
        # Per level: the neighbours placed earlier, as (vertex, True if it is a predecessor).
        self.earlier = [[(u, True) for u in dag.preds[v] if position[u] < position[v]]
                        + [(u, False) for u in dag.succs[v] if position[u] < position[v]]
                        for v in self.order]
        self.by_colour: dict[int, list[int]] = {}
        for v in range(len(dag)):
            self.by_colour.setdefault(colour[v], []).append(v)
        self.pred_sets = [set(ps) for ps in dag.preds]
        self.perm = [-1] * len(dag)
        self.used = bytearray(len(dag))

    def candidates(self, level: int) -> list[int]:
        """Unused vertices of the colour of ``order[level]`` whose edges to the images of its
        earlier neighbours match its own (so a complete map preserves every edge)."""
        v, near = self.order[level], self.earlier[level]
        if not near:
            return [w for w in self.by_colour[self.colour[v]] if not self.used[w]]
        u, is_pred = near[0]
        pool = self.dag.succs[self.perm[u]] if is_pred else self.dag.preds[self.perm[u]]
        return [w for w in pool if not self.used[w] and self.colour[w] == self.colour[v]
                and self._edges_match(w, near)]

    def _edges_match(self, w: int, near) -> bool:
        perm, pred_sets = self.perm, self.pred_sets
        return all(perm[x] in pred_sets[w] if is_pred else w in pred_sets[perm[x]]
                   for x, is_pred in near)

    def run(self, limit: int, clock: _Clock) -> list[tuple[int, ...]] | None:
        """Every complete map (an automorphism up to the re-check), or None past ``limit``."""
        order, perm, used, n = self.order, self.perm, self.used, len(self.order)
        found: list[tuple[int, ...]] = []
        stack = [iter(self.candidates(0))]
        while stack:
            clock.tick()
            v = order[len(stack) - 1]
            if perm[v] >= 0:  # undo the image tried last at this level
                used[perm[v]], perm[v] = 0, -1
            w = next(stack[-1], None)
            if w is None:
                stack.pop()
                continue
            perm[v], used[w] = w, 1
            if len(stack) < n:
                stack.append(iter(self.candidates(len(stack))))
                continue
            found.append(tuple(perm))
            if len(found) > limit:
                return None
        return found


def automorphisms(dag: DAG, limit: int = MAX_AUTOMORPHISMS, deadline: float | None = None,
                  max_steps: int = MAX_STEPS) -> list[tuple[int, ...]] | None:
    """All automorphisms, or None (then use no symmetry) if there are more than ``limit``, or
    ``deadline`` (a ``time.monotonic()`` value) passes first, or the search takes more than
    ``max_steps`` steps (a work budget: the same answer on every machine).  Backtracking over
    the vertices in ``_match_order`` with colour refinement, iterative: its depth is the
    number of vertices, its stack a list."""
    clock = _Clock(deadline, max_steps)
    try:
        return _Backtrack(dag, _colours(dag, clock)).run(limit, clock)
    except _GiveUp:
        return None


def orbit_representatives(group: list[tuple[int, ...]], among) -> set[int]:
    """The least vertex of each orbit of ``group`` on ``among``."""
    reps = set()
    for v in among:
        if min(g[v] for g in group) == v:
            reps.add(v)
    return reps


def stabiliser(group: list[tuple[int, ...]], v: int) -> list[tuple[int, ...]]:
    return [g for g in group if g[v] == v]


def checked_automorphisms(dag: DAG, limit: int = MAX_AUTOMORPHISMS,
                          deadline: float | None = None) -> list[tuple[int, ...]]:
    """``automorphisms`` (empty when there are more than ``limit`` or the deadline passed),
    each re-checked against the definition before a search relies on it; one that fails is a
    bug in ioverify.  A deadline passing during the re-check also gives the empty list: only a
    group re-checked in full is used."""
    group = automorphisms(dag, limit, deadline) or []
    for perm in group:
        if deadline is not None and time.monotonic() >= deadline:
            return []
        if not is_automorphism(dag, perm):
            raise InternalError("a computed permutation is not an automorphism of the DAG")
    return group
