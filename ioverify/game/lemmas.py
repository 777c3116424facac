"""Lemmas about the game that the searches and the certificate checker both use (pure Python).

``trivial_lower_bound``: every needed input is loaded and every output stored at least once.
``compute_demands``: the demand-count lemma, a proved bound on the computes some optimal
recompute schedule needs (its proof is in the docstring); ``single_use_lemma``: when every demand
is 1 the recompute and one-shot optima are equal.  ``counting_lower_bound``: a part count below
which no S-partition exists.
"""

from __future__ import annotations

from ioverify.dag.model import DAG


def trivial_lower_bound(dag: DAG) -> int:
    """Every needed input is loaded once and every output stored once (any variant)."""
    return sum(1 for v in dag.useful if dag.is_input[v]) + len(dag.outputs)


def compute_demands(dag: DAG) -> dict[int, int]:
    """The *demand-count lemma*: some optimal recompute schedule computes every needed non-input
    vertex u at most c(u) times, c(u) = sum of c(s) over needed successors s + (1 if u is an
    output); outputs without successors have c = 1.

    Proof.  Take any complete recompute schedule S.  Call the *placing event* of u for a move at
    time t the last compute or load of u before t (u stays red from it until t, because placing
    red on a red vertex is illegal).  Mark, for each output o, its first store and the placing
    event of that store, which is a compute (a load would need o blue before its first store).
    For each marked compute of v, mark the placing event of each predecessor.  For a marked load
    of a non-input u, mark the first store of u and its placing compute.  So each marked compute
    of a successor s adds at most one marked event of u (a compute, or a load whose store compute
    is shared by all loads of u), and the output store adds one: the marked computes of u number
    at most c(u).  Keep only marked computes, loads and stores, each pebble held from its event
    to its last marked use.  Every kept interval lies inside a red interval of S, so the red set
    is a subset of S's at every moment (capacity holds), every kept move is legal (compute and
    load find the vertex not red, loads find the first store before them, stores find the
    vertex red and not yet blue), every output is stored, and the kept loads and stores are a
    subset of S's.  So a schedule of no more I/O with at most sum c(u) computes exists: that sum
    is a proved horizon for the compute-step encoding of the recompute variant.  When every c(u)
    is 1 (every needed non-input vertex has one use) the horizon equals the one-shot one and the
    two optima are equal."""
    needed = set(dag.useful)
    demand: dict[int, int] = {}
    for u in sorted(needed, reverse=True):
        if dag.is_input[u]:
            continue
        demand[u] = sum(demand[s] for s in dag.succs[u] if s in needed) + dag.is_output[u]
    return demand


# How evidence proved in one-shot for a recompute bound names its argument (field ``lemma``).
SINGLE_USE = ("single-use: every needed non-input vertex has one use, so the recompute and "
              "one-shot optima are equal (ioverify.game.lemmas.compute_demands)")


def single_use_lemma(dag: DAG) -> bool:
    """True if every needed non-input vertex has one use (``compute_demands`` all 1): then the
    recompute and one-shot optima are equal."""
    return all(c == 1 for c in compute_demands(dag).values())


def counting_lower_bound(dag: DAG, S: int) -> int:
    """P(S) >= ceil(#inputs / S) and P(S) >= ceil(#sinks / S): a part's dominator must contain
    its inputs (paths of length 0), and its minimum set contains its sinks, each of size <= S."""
    sinks = sum(1 for succ in dag.succs if not succ)
    return max(1, -(-len(dag.inputs) // S), -(-sinks // S))


def carry_fact(source_variant: str) -> str:
    """The fact that carries a lower bound from a cell of ``source_variant`` to a smaller or
    equal M, as curve certificates name it and the re-check compares it: optimal I/O is
    non-increasing in M (a schedule at M replays at M' >= M), and every one-shot schedule is a
    recompute schedule, so a recompute lower bound is a one-shot lower bound."""
    fact = "optimal I/O is non-increasing in M"
    if source_variant == "recompute":
        fact += "; a recompute lower bound is a one-shot lower bound"
    return fact
