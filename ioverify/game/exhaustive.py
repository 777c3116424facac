"""Exhaustive optimal search over configurations of the red-blue pebble game (both variants).

The differential oracle for the Z3 search, and the horizon-free optimum for the recompute
variant: the configuration graph is finite, so a shortest-path search over it covers schedules
of every length.  Rules: THEORY.md section 1, exactly as ``ioverify.game.replay`` checks them.

A state is a tuple of bitmasks ``(R, B)`` (red, blue) for ``recompute`` and ``(R, B, C)`` (C:
vertices computed so far) for ``one-shot``, packed into one int.  Cost is I/O (load, store: 1;
compute, delete: 0).  The search is A* with a consistent heuristic over a bucket queue, so the
first goal popped is optimal.  It explores only schedules in a NORMAL FORM; each reduction below
is sound because every legal complete schedule can be rewritten into the normal form with I/O
not larger (and, for one-shot, still computing every vertex at most once):

(N1) Useless vertices are never touched.  Let U be the vertices from which no output is
     reachable.  U is closed under successors, so dropping every move on U leaves each other
     move legal (no compute outside U needs a U vertex red; R only shrinks, so capacity holds)
     and the outputs (not in U) still end blue.  I/O does not grow.
(N2) Lazy deletion: a delete happens only immediately before a load or compute made when
     |R| = M, and never removes a predecessor of the vertex being computed.  Rewrite a schedule
     S into S' keeping R' >= R and B' >= B step by step: drop S's deletes; when S places v,
     skip it if v is already in R' (free: no cost added), else if |R'| < M place it, else
     |R'| = M > |R| (S's own capacity check counts v, so |R| <= M - 1 before the move), so some
     u in R' \\ R exists: delete u, then place v.  u is not red in S, so u is not a
     predecessor of a computed v.  Loads stay legal (B' >= B), computes too (preds in R <=
     R'); a store of a vertex already blue in S' is skipped.  S' computes only when S does
     (one-shot preserved) and its I/O is at most S's.
(N3) Postponed stores: a store of u happens only immediately before the delete of u (N2), or
     at the very end, and at the end only on outputs.  Take a store of u at time t in a
     lazy-deletion schedule; u is red from t until its next delete t_d (or the end).  Blue on
     u is used only by a load of u, which needs u not red, so no move in (t, t_d) needs it:
     moving the store to just before t_d keeps every move legal and the I/O equal.  A store
     moved to the end is dropped unless u is an output (it then serves no later move).  This
     is applied after N2 and moves no delete, so N2 still holds.
(N4) Stopping early: once every output is red or blue, storing the red non-blue outputs ends
     the game at a cost every completion must pay anyway (each needs a store), so the search
     treats such a state as a goal with that final cost.

Moves of the search are therefore placements, each possibly preceded (when |R| = M) by an
eviction of one red vertex u, optionally stored first.  Cost of a placement: 1 for a load, 0
for a compute, +1 if the evicted vertex is stored.  The found path is expanded into explicit
store / delete / load / compute moves and replayed by the independent replayer before it is
returned; a replay failure raises ``InternalError``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ioverify.dag.model import DAG
from ioverify.errors import InternalError, InvalidArgument
from ioverify.game.replay import replay
from ioverify.game.rules import (COMPUTE, DELETE, LOAD, STORE, Schedule, check_memory,
                                 check_variant, infeasibility)

INFINITY = float("inf")
_CHECK_CLOCK_EVERY = 2048


@dataclass(frozen=True)
class SearchResult:
    """Outcome of ``exhaustive_optimum``.

    ``complete=True, optimum=q``: q is the proven optimum, ``schedule`` replays with I/O q.
    ``complete=True, optimum=None``: no schedule exists (infeasible M), or none with I/O below
    the ``below`` limit.  ``complete=False``: the state or time budget ran out; nothing proved.
    ``states``: distinct configurations stored; ``seconds``: wall-clock time of the search.
    """

    optimum: int | None
    schedule: Schedule | None
    complete: bool
    states: int
    seconds: float
    reason: str


def exhaustive_optimum(dag: DAG, memory: int, variant: str = "recompute", *,
                       below: int | None = None, max_states: int | None = None,
                       deadline: float | None = None) -> SearchResult:
    """The optimal I/O of ``dag`` with ``memory`` red pebbles in ``variant``, by A* over
    configurations (module docstring: normal form N1-N4, heuristic in ``_Search.heuristic``).

    ``below``: look only for schedules of I/O < below.  ``max_states``: stop (incomplete) after
    storing that many distinct states.  ``deadline``: a ``time.monotonic()`` value after which
    the search stops (incomplete).  Intended for DAGs of up to about 20 vertices.
    """
    _check_arguments(dag, memory, variant, below, max_states, deadline)
    start = time.monotonic()
    why = infeasibility(dag, memory)
    if why is not None:
        return SearchResult(None, None, True, 0, time.monotonic() - start, f"infeasible: {why}")
    search = _Search(dag, memory, variant)
    found, states, stop = search.run(below, max_states, deadline)
    seconds = time.monotonic() - start
    if found is None:
        if stop:
            return SearchResult(None, None, False, states, seconds, stop)
        limit = f"with I/O < {below}" if below is not None else "at all"
        return SearchResult(None, None, True, states, seconds,
                            f"exhaustive: no complete {variant} schedule {limit} with M = {memory}")
    cost, schedule = found
    _verify(dag, schedule, memory, variant, cost)
    return SearchResult(cost, schedule, True, states, seconds,
                        f"exhaustive: optimum {cost} ({variant}, M = {memory}), "
                        f"{states} states, schedule replayed")


def _check_arguments(dag, memory, variant, below, max_states, deadline) -> None:
    if not isinstance(dag, DAG):
        raise InvalidArgument(f"dag must be an ioverify DAG, got {type(dag).__name__}")
    check_memory(memory)
    check_variant(variant)
    if below is not None and (isinstance(below, bool) or not isinstance(below, int)):
        raise InvalidArgument(f"below must be an integer or None, got {below!r}")
    if max_states is not None and (isinstance(max_states, bool) or not isinstance(max_states, int)
                                   or max_states < 1):
        raise InvalidArgument(f"max_states must be a positive integer or None, got {max_states!r}")
    if deadline is not None and not isinstance(deadline, (int, float)):
        raise InvalidArgument(f"deadline must be a time.monotonic() value, got {deadline!r}")


def _verify(dag, schedule, memory, variant, cost) -> None:
    """Rule 6 of the house: every witness is replayed by the independent replayer."""
    result = replay(dag, schedule, memory, variant)
    if not result.ok or result.io != cost:
        raise InternalError(f"exhaustive search schedule failed replay (claimed I/O {cost}): "
                            f"{result.describe()}")


def _bits(mask: int):
    """The set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Search:
    """A* over normal-form configurations; see the module docstring for N1-N4."""

    def __init__(self, dag: DAG, memory: int, variant: str):
        self.n = n = len(dag)
        self.memory = memory
        self.one_shot = variant == "one-shot"
        self.pred_mask = [sum(1 << p for p in ps) for ps in dag.preds]
        self.input_mask = sum(1 << v for v in dag.inputs)
        self.output_mask = sum(1 << v for v in dag.outputs)
        useful = _useful_mask(dag)  # N1
        self.computable = [v for v in range(n) if not dag.is_input[v] and useful >> v & 1]
        self.useful = useful
        self.full = (1 << n) - 1

    # --- the heuristic ---------------------------------------------------------------------

    def heuristic(self, red: int, blue: int, computed: int) -> float:
        """A lower bound on the remaining I/O, consistent (no move of cost c lowers it by more
        than c), or INFINITY for a one-shot state that can no longer finish.

        Every output without blue needs a store (1 each).  Let MUST be the vertices that must
        still be computed: outputs with neither pebble, and, recursively, predecessors with
        neither pebble of a MUST vertex (they can reach red only by a compute).  Every
        predecessor of a MUST vertex that is blue and not red needs a load of its own if it is
        an input (inputs cannot be computed) or, in one-shot, at all (it was computed already).
        In one-shot a MUST vertex that was computed already makes the state dead.
        Consistency: a compute of v needs all of v's predecessors red, so v contributed nothing
        beyond itself; a load lowers the count by at most 1; a store (of a red vertex) removes
        at most one output from the first term; deleting red pebbles only raises the bound."""
        pending = self.output_mask & ~blue
        loads = 0
        todo = pending & ~red
        must = 0
        pred_mask = self.pred_mask
        loadable = blue if self.one_shot else self.input_mask
        while todo:
            low = todo & -todo
            todo ^= low
            v = low.bit_length() - 1
            if computed >> v & 1:
                return INFINITY  # one-shot only: v must be computed again
            must |= low
            missing = pred_mask[v] & ~red
            loads |= missing & loadable
            todo |= missing & ~blue & ~must
        return pending.bit_count() + loads.bit_count()

    # --- the search --------------------------------------------------------------------------

    def run(self, below, max_states, deadline):
        """Bucket-queue A*.  Returns ((cost, schedule) or None, states stored, stop reason).

        A state key packs red | blue << n | computed << 2n (computed: one-shot only);
        ``info[key] = (g, parent key, move, h)``.  With a consistent heuristic a state's g is
        final when it is first popped, so popped states are closed, and the first goal popped
        (N4) is optimal: every state left in the queue has f = g + h >= its f, and h is exact
        at a goal."""
        n, one_shot, memory = self.n, self.one_shot, self.memory
        full, heuristic = self.full, self.heuristic
        pred_mask, computable, useful = self.pred_mask, self.computable, self.useful
        output_mask = self.output_mask
        start = self.input_mask << n
        h0 = heuristic(0, self.input_mask, 0)
        limit = INFINITY if below is None else below
        if h0 >= limit:
            return None, 1, ""
        info = {start: (0, None, None, h0)}
        buckets: list[list[int]] = [[] for _ in range(int(h0) + 1)]
        buckets[int(h0)].append(start)
        f = int(h0)
        closed = set()
        expanded = 0
        while f < len(buckets) and f < limit:
            bucket = buckets[f]
            if not bucket:
                f += 1
                continue
            key = bucket.pop()
            if key in closed:
                continue
            closed.add(key)
            expanded += 1
            if expanded % _CHECK_CLOCK_EVERY == 0 and deadline is not None \
                    and time.monotonic() > deadline:
                return None, len(info), f"deadline reached after {len(info)} states"
            red, blue, computed = key & full, key >> n & full, key >> 2 * n
            if output_mask & ~(red | blue) == 0:  # N4: a goal
                return (f, self._schedule(key, info)), len(info), ""
            g = info[key][0]
            # Placements: loads of blue non-red vertices, computes with every predecessor red.
            places = []
            loadable = blue & ~red & useful
            while loadable:
                low = loadable & -loadable
                loadable ^= low
                places.append((low.bit_length() - 1, 1))
            for v in computable:
                if not red >> v & 1 and pred_mask[v] & ~red == 0 and not computed >> v & 1:
                    places.append((v, 0))
            is_full = red.bit_count() >= memory
            for v, cost in places:
                bit = 1 << v
                ncomp = computed | bit if one_shot and not cost else computed
                if not is_full:
                    successors = ((red | bit, blue, cost, (v, cost, -1, False)),)
                else:
                    successors = []
                    # N2: evict u, never a predecessor of the vertex being computed.
                    evictable = red if cost else red & ~pred_mask[v]
                    while evictable:
                        ubit = evictable & -evictable
                        evictable ^= ubit
                        u = ubit.bit_length() - 1
                        nred = (red ^ ubit) | bit
                        successors.append((nred, blue, cost, (v, cost, u, False)))
                        if not blue & ubit:  # N3: the store right before the eviction
                            successors.append((nred, blue | ubit, cost + 1, (v, cost, u, True)))
                for nred, nblue, c, move in successors:
                    ng = g + c
                    nkey = nred | nblue << n | ncomp << 2 * n
                    if nkey in closed:  # consistent heuristic: closed states are final
                        continue
                    old = info.get(nkey)
                    if old is None:
                        h = heuristic(nred, nblue, ncomp)
                    elif old[0] <= ng:
                        continue
                    else:
                        h = old[3]
                    nf = ng + h
                    if nf >= limit:
                        continue
                    info[nkey] = (ng, key, move, h)
                    nf = int(nf)
                    while len(buckets) <= nf:
                        buckets.append([])
                    buckets[nf].append(nkey)
                    if max_states is not None and len(info) > max_states:
                        return None, len(info), f"state budget of {max_states} states exhausted"
        return None, len(info), ""

    def _schedule(self, goal: int, info: dict) -> Schedule:
        """Expand the path of placements into explicit moves, then store the red outputs (N4)."""
        steps = []
        key = goal
        while info[key][1] is not None:
            _, key, move, _ = info[key]
            steps.append(move)
        kinds, verts = bytearray(), []
        for v, cost, evicted, stored in reversed(steps):
            if evicted >= 0:
                if stored:
                    kinds.append(STORE)
                    verts.append(evicted)
                kinds.append(DELETE)
                verts.append(evicted)
            kinds.append(LOAD if cost else COMPUTE)
            verts.append(v)
        blue = goal >> self.n & self.full
        for v in _bits(self.output_mask & ~blue):
            kinds.append(STORE)
            verts.append(v)
        return Schedule(kinds, verts)


def _useful_mask(dag: DAG) -> int:
    """The vertices from which some output is reachable (outputs included): N1."""
    useful = bytearray(len(dag))
    for v in dag.outputs:
        useful[v] = 1
    succs = dag.succs
    for v in range(len(dag) - 1, -1, -1):
        if not useful[v] and any(useful[s] for s in succs[v]):
            useful[v] = 1
    return sum(1 << v for v in range(len(dag)) if useful[v])
