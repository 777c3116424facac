"""Automorphisms of a DAG, computed (never assumed), for symmetry breaking in the search.

An automorphism is a permutation of the vertices that maps predecessor sets onto predecessor sets
and outputs onto outputs.  It maps every legal schedule to a legal schedule of the same I/O (the
rules of docs/theory.md §1 mention only predecessors, inputs and outputs), so a search may
restrict its first computes to orbit representatives.  Every permutation returned here is checked
against the definition by ``is_automorphism`` before use.
"""

from __future__ import annotations

from ioverify.dag.model import DAG
from ioverify.errors import InternalError

MAX_AUTOMORPHISMS = 4096


def is_automorphism(dag: DAG, perm: tuple[int, ...]) -> bool:
    """The definition, checked directly: a bijection preserving predecessor sets and outputs."""
    n = len(dag)
    if sorted(perm) != list(range(n)):
        return False
    for v in range(n):
        if {perm[p] for p in dag.preds[v]} != set(dag.preds[perm[v]]):
            return False
    return {perm[o] for o in dag.outputs} == set(dag.outputs)


def _colours(dag: DAG) -> list[int]:
    """Colour refinement (1-dimensional Weisfeiler-Leman on predecessors and successors): an
    automorphism maps a vertex only to a vertex of the same colour."""
    colour = [(len(dag.preds[v]), len(dag.succs[v]), dag.is_output[v]) for v in range(len(dag))]
    ids = _relabel(colour)
    while True:
        sig = [(ids[v], tuple(sorted(ids[p] for p in dag.preds[v])),
                tuple(sorted(ids[s] for s in dag.succs[v]))) for v in range(len(dag))]
        new = _relabel(sig)
        if len(set(new)) == len(set(ids)):
            return new
        ids = new


def _relabel(keys) -> list[int]:
    table = {k: i for i, k in enumerate(sorted(set(keys)))}
    return [table[k] for k in keys]


def automorphisms(dag: DAG, limit: int = MAX_AUTOMORPHISMS) -> list[tuple[int, ...]] | None:
    """All automorphisms, or None if there are more than ``limit`` (then use no symmetry).
    Backtracking over vertices from the sinks down, matching predecessor sets."""
    colour = _colours(dag)
    n = len(dag)
    order = sorted(range(n), key=lambda v: (-len(dag.preds[v]) == 0, -v))
    found: list[tuple[int, ...]] = []
    perm: dict[int, int] = {}
    used: set[int] = set()

    def consistent(v: int, w: int) -> bool:
        for a, b in ((v, w),):
            for s in dag.succs[a]:
                if s in perm and perm[s] not in dag.succs[b]:
                    return False
        return True

    def extend(i: int) -> bool:
        if len(found) > limit:
            return False
        if i == n:
            candidate = tuple(perm[v] for v in range(n))
            if is_automorphism(dag, candidate):
                found.append(candidate)
            return True
        v = order[i]
        for w in range(n):
            if w in used or colour[w] != colour[v] or not consistent(v, w):
                continue
            perm[v] = w
            used.add(w)
            extend(i + 1)
            del perm[v]
            used.discard(w)
        return True

    extend(0)
    return None if len(found) > limit else found


def orbit_representatives(group: list[tuple[int, ...]], among) -> set[int]:
    """The least vertex of each orbit of ``group`` on ``among``."""
    reps = set()
    for v in among:
        if min(g[v] for g in group) == v:
            reps.add(v)
    return reps


def stabiliser(group: list[tuple[int, ...]], v: int) -> list[tuple[int, ...]]:
    return [g for g in group if g[v] == v]


def checked_automorphisms(dag: DAG, limit: int = MAX_AUTOMORPHISMS) -> list[tuple[int, ...]]:
    """``automorphisms`` (empty when there are more than ``limit``), each re-checked against the
    definition before a search relies on it; one that fails is a bug in ioverify."""
    group = automorphisms(dag, limit) or []
    for perm in group:
        if not is_automorphism(dag, perm):
            raise InternalError("a computed permutation is not an automorphism of the DAG")
    return group
