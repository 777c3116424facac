"""Schedules of a DAG from schedules of another made from it: recompute upper bounds from
one-shot schedules of an UNFOLDED DAG (``unfold``, ``fold``), and schedules from those of the
CONTRACTED DAG (``expand_chains``, for ``ioverify.game.lemmas.contract_chains``).

A vertex u whose only predecessor is an input costs nothing to compute again while that input
is red: approximate attention's degree-2 features (U = Q^2, U = K^2) are such vertices, each
feeding a numerator and a denominator, and its recompute optima lie below the one-shot ones
(approximate_attention(2,1,2): 14 against 17 at M = 6).  The recompute search finds those
schedules slowly, its beam not at all (15 at M = 6, none below 20 at M = 5).

UNFOLDING such a u gives it one copy per use: a copy with u's operation and predecessor for
each needed successor s, feeding s alone.  A one-shot schedule of the unfolded DAG computes
every copy once, so it computes u once per use at most, and FOLDING maps it onto the original
DAG: each move on a copy becomes the same move on u, except that a compute or load of u while
another copy holds it red is dropped (u is red already), a delete is dropped while another copy
still holds it, and a store is dropped once u has blue.  So the red set of the folded schedule
is, at every moment, the image of the unfolded one (no larger), every compute finds its
predecessors red (their images are), every load finds blue (the copy's store, folded, gave u
blue, or u is an input), and every output, never copied, ends blue: the folded schedule is a
legal recompute schedule of no more I/O.  Nothing rests on this argument: every folded schedule
is replayed in the recompute variant by the caller (``pebbling._unfolded_upper``) before it is
used, and it is only an upper bound.
"""

from __future__ import annotations

import time

from ioverify.dag.model import DAG
from ioverify.errors import InternalError
from ioverify.game.lemmas import chain_groups
from ioverify.game.rules import COMPUTE, DELETE, LOAD, STORE, Schedule


def free_recomputes(dag: DAG) -> tuple[int, ...]:
    """The needed vertices, no output, whose only predecessor is an input and which have two
    needed successors or more: the vertices ``unfold`` copies."""
    needed = set(dag.useful)
    return tuple(v for v in dag.useful
                 if len(dag.preds[v]) == 1 and dag.is_input[dag.preds[v][0]]
                 and not dag.is_output[v] and sum(s in needed for s in dag.succs[v]) > 1)


# A vertex is CHEAP to compute again when at most this many vertices above it are no inputs:
# its compute needs those and inputs only.  Two covers attention backward's P = exp(S - L), from
# S = QK^T: attention_backward(2,1) at M = 10 in recompute, whose one-shot optimum is 22, has
# 21 with every P recomputed, which the beams on the DAG with S, S - L and P copied per use
# find in 14 s and the recompute search alone in 423 s (docs/performance.md).
CHEAP_ANCESTORS = 2


def cheap_recomputes(dag: DAG) -> tuple[int, ...]:
    """The OUTERMOST cheap recomputes: the needed vertices, no input or output, with two
    needed successors or more and at most CHEAP_ANCESTORS vertices above them that are no
    inputs, less those above another such vertex (``unfold`` copies no vertex with a
    predecessor among those it copies; ``unfold_cheap`` takes them a layer at a time)."""
    needed = set(dag.useful)
    above: list[frozenset[int] | None] = []  # the non-inputs above v, None past the limit
    for v in range(len(dag)):
        seen: set[int] = set()
        for p in dag.preds[v]:
            if dag.is_input[p]:
                continue
            if above[p] is None:
                seen = None
                break
            seen |= above[p] | {p}
        above.append(None if seen is None or len(seen) > CHEAP_ANCESTORS else frozenset(seen))
    cheap = {v for v in dag.useful if above[v] is not None and not dag.is_input[v]
             and not dag.is_output[v] and sum(s in needed for s in dag.succs[v]) > 1}
    under = set().union(*(above[v] for v in cheap))
    return tuple(sorted(cheap - under))


def unfold_cheap(dag: DAG, deadline: float | None = None) -> tuple[DAG, tuple[int, ...]]:
    """(the DAG with its cheap recomputes copied per use, ORIGIN): ``unfold`` of the outermost
    (``cheap_recomputes``), then of those of the result, until none is left, ORIGIN mapping
    each vertex onto the vertex of ``dag`` it stands for.  Each layer takes vertices above
    the last, so there are at most CHEAP_ANCESTORS + 1; ``fold`` folds the result at once
    (a copy of a copy stands for its vertex of ``dag`` like any copy).  Past ``deadline`` (a
    ``time.monotonic()`` value) no further layer is unfolded: fewer layers are an unfolding
    too (attention_backward(60,1), 43,440 vertices: 1.8 s for all of them)."""
    origin = tuple(range(len(dag)))
    for _ in range(CHEAP_ANCESTORS + 1):
        if deadline is not None and time.monotonic() > deadline:
            break
        vertices = cheap_recomputes(dag)
        if not vertices:
            break
        dag, layer = unfold(dag, vertices)
        origin = tuple(origin[v] for v in layer)
    return dag, origin


def unfold(dag: DAG, vertices: tuple[int, ...]) -> tuple[DAG, tuple[int, ...]]:
    """(the DAG with each of ``vertices`` replaced by one copy per needed successor, ORIGIN:
    the vertex of ``dag`` each of its vertices stands for).  Each of ``vertices`` must be
    needed, no input, no output, and have no predecessor among them.  Vertices no output
    reaches are left out, as no schedule needs them.  A copy is named after u with ``#k``
    appended (then ``#``s until the name is new)."""
    copied, needed = set(vertices), set(dag.useful)
    for u in vertices:
        if u not in needed or dag.is_input[u] or dag.is_output[u] or copied & set(dag.preds[u]):
            raise InternalError(f"unfold: {dag.names[u]!r} is no needed vertex, input or output, "
                                f"or has a predecessor copied too")
    names = set(dag.names)
    nodes: list[str] = []
    edges: list[tuple[str, str]] = []
    ops: dict[str, str] = {}
    origin_of: dict[str, int] = {}
    name_of = dag.names
    for v in dag.useful:
        if v in copied:
            continue
        nodes.append(name_of[v])
        origin_of[name_of[v]] = v
        if dag.preds[v]:
            ops[name_of[v]] = dag.ops[v]
        edges += [(name_of[p], name_of[v]) for p in dag.preds[v] if p not in copied]
    for u in vertices:
        for k, s in enumerate(s for s in dag.succs[u] if s in needed):
            name = f"{dag.names[u]}#{k}"
            while name in names:
                name += "#"
            names.add(name)
            nodes.append(name)
            origin_of[name] = u
            ops[name] = dag.ops[u]
            edges += [(name_of[p], name) for p in dag.preds[u]] + [(name, name_of[s])]
    unfolded = DAG.from_edges(nodes, edges, [dag.names[o] for o in dag.outputs], ops)
    return unfolded, tuple(origin_of[name] for name in unfolded.names)


def fold(schedule: Schedule, origin: tuple[int, ...]) -> Schedule:
    """The moves of ``schedule`` (on the unfolded DAG) on the vertices they stand for
    (``origin``), less those that would do nothing there (module docstring)."""
    holders: dict[int, int] = {}  # vertex -> how many of its copies are red
    stored: set[int] = set()
    kinds, vertices = bytearray(), []
    for kind, v in zip(schedule.kinds, schedule.vertices):
        u = origin[v]
        if kind in (COMPUTE, LOAD):
            keep = not holders.get(u)
            holders[u] = holders.get(u, 0) + 1
        elif kind == DELETE:
            holders[u] -= 1
            keep = not holders[u]
        else:  # STORE
            keep = u not in stored
            stored.add(u)
        if keep:
            kinds.append(kind)
            vertices.append(u)
    return Schedule(kinds, vertices)


def expand_chains(schedule: Schedule, dag: DAG, inputs: bool = False) -> Schedule:
    """The moves of ``schedule``, a schedule of ``dag``'s contracted DAG
    (``ioverify.game.lemmas.contract_chains``, with ``inputs`` as roots or not), on ``dag``: a
    compute of a group computes its members in order, deleting each member as soon as the
    next is computed when it has no successor outside the group and is no output, and so does
    a load of a group rooted at an input, after loading the input; any other load, a store
    of a group loads, stores its last member; a delete deletes its red members.  An upper
    bound at most: it may exceed M (the group's computes hold one pebble more) or miss a
    member a successor needs, and is replayed before use like any schedule."""
    group = chain_groups(dag, inputs)
    members: dict[int, list[int]] = {}
    for v, root in enumerate(group):
        members.setdefault(root, []).append(v)
    chains = [members[root] for root in sorted(members)]
    private = [dag.is_output[v] == 0 and all(group[s] == group[v] for s in dag.succs[v])
               for v in range(len(dag))]
    red: set[int] = set()
    kinds, vertices = bytearray(), []

    def move(kind: int, v: int) -> None:
        kinds.append(kind)
        vertices.append(v)
        if kind in (COMPUTE, LOAD):
            red.add(v)
        elif kind == DELETE:
            red.discard(v)

    def place(kind: int, chain: list[int]) -> None:  # the root by ``kind``, the rest computed
        for before, v in zip([None, *chain], chain):
            move(kind if before is None else COMPUTE, v)
            if before is not None and private[before]:
                move(DELETE, before)

    for kind, w in zip(schedule.kinds, schedule.vertices):
        chain = chains[w]
        if kind == COMPUTE or (kind == LOAD and dag.is_input[chain[0]]):
            place(kind, chain)
        elif kind == DELETE:
            for v in chain:
                if v in red:
                    move(DELETE, v)
        else:
            move(kind, chain[-1])
    return Schedule(kinds, vertices)
