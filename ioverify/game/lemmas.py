"""Lemmas about the game that the searches and the certificate checker both use (pure Python).

``trivial_lower_bound``: every needed input is loaded and every output stored at least once.
``compute_demands``: the demand-count lemma, a proved bound on the computes some optimal
recompute schedule needs (its proof is in the docstring); ``single_use_lemma``: when every demand
is 1 the recompute and one-shot optima are equal.  ``contract_chains``: the chain-contraction
lemma, a smaller DAG whose optimum is at most the DAG's, in both variants, with the inputs as
roots or not; ``contractions``: the ones the searches and the proofs try, in turn.
``counting_lower_bound``: a part count below which no S-partition exists.
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


# How evidence proved on the contracted DAG names its argument (field ``contracted``).
CHAIN_CONTRACTION = ("chain contraction: each vertex of one predecessor, not an input, joined to "
                     "its predecessor's group; the contracted game's optimum is at most the "
                     "DAG's in either variant (ioverify.game.lemmas.contract_chains)")


# The same with inputs as roots (``contract_chains(dag, inputs=True)``): the recompute search's.
INPUT_CHAIN_CONTRACTION = ("chain contraction with inputs as roots: each vertex of one "
                           "predecessor joined to its predecessor's group, a group rooted at an "
                           "input an input and no output; the contracted game's optimum is at "
                           "most the DAG's in either variant "
                           "(ioverify.game.lemmas.contract_chains)")
# Each lemma text, by whether the inputs are roots (the certificate checker's way back).
CONTRACTIONS = {CHAIN_CONTRACTION: False, INPUT_CHAIN_CONTRACTION: True}


def contract_chains(dag: DAG, inputs: bool = False) -> DAG | None:
    """The *chain-contraction lemma*: the DAG with each non-input vertex u whose one
    predecessor p is not an input joined to p's GROUP (in topological order, so a group is a
    non-input ROOT r and vertices each of one predecessor in the group), each group one vertex
    w of the CONTRACTED DAG, named after its last member: w's predecessors are the groups of
    r's predecessors, w is an output if a member is, the inputs stay as they are.  At every M,
    in both variants, the contracted game's optimum is at most the DAG's.  None if no vertex
    is joined.

    Proof.  Map a configuration of the game on the DAG to one on the contracted DAG: w red if
    a member is red, blue if a member is blue (one-shot: computed if r is).  Take any legal
    schedule S of the DAG and map each move; each becomes at most one legal move of the same
    kind, or nothing:
    * compute r (r's predecessors red, so their groups red): if w is not red, compute w (its
      predecessors are those groups); w is not red only then.  One-shot: r is computed once,
      and before it no member was computed or loaded (each needs r computed first), so w is
      not red and is computed once.
    * compute a member u other than r: its one predecessor is in the group and red, so w is
      red already: nothing.  A vertex outside every larger group is its own group (its
      predecessors' groups are red when they are).
    * load v (v blue, so its group blue): load the group if it is not red, else nothing.
    * store v (v red, so its group red): store the group if it is not blue, else nothing.
    * delete v: delete its group if no other member is red, else nothing.
    At the start the inputs, each its own group, are blue and nothing is red, as in the
    contracted game.  The groups are disjoint and a red group has a red member, so the red
    count never exceeds S's: capacity M holds.  Every output of S ends blue, so every output
    group does.  So the moves mapped form a legal schedule of the contracted game with at most
    S's loads and stores, and its optimum is at most S's I/O for every S.  An exhaustive
    search that finds no contracted schedule below L therefore proves every schedule of the
    DAG costs at least L, in the variant searched (the contraction is a relaxation: a
    schedule of the contracted DAG need not be one of the DAG, whose computes inside a group
    may need one red pebble more).  Roots are kept off the inputs so that a group does not
    come for free with a load: with the inputs as roots, approximate_attention(1,1,2) at M = 3
    falls from 17 to 15 in one-shot.

    With ``inputs``, an input is a root too (INPUT_CHAIN_CONTRACTION): its group is an input of
    the contracted DAG, and no output.  The proof above holds with one change: such a group
    is blue from the start, its input member being blue, so a store of a member maps to
    nothing and an output in it ends blue without one (the contracted game, which asks
    less, can only be cheaper).  A weaker relaxation, kept for the recompute variant, where
    a vertex of one input is recomputed from it for no I/O while the input is red.  For
    approximate_attention(2,1,2) (37 vertices, 31 contracted so) at M = 5 in recompute its
    optimum is the DAG's, 19; in one-shot its optima at M = 3 to 6 are 40, 25, 19 and 14,
    against the DAG's 43, 26, 20 and 17 (2026-11-30, docs/performance.md)."""
    group = chain_groups(dag, inputs)
    roots = sorted(set(group))
    if len(roots) == len(dag):
        return None
    index = {root: i for i, root in enumerate(roots)}
    last = {g: u for u, g in enumerate(group)}  # each group's last member
    names = tuple(dag.names[last[root]] for root in roots)
    ops = tuple(dag.ops[root] if dag.is_input[root] else dag.ops[last[root]] for root in roots)
    preds = tuple(tuple(sorted({index[group[p]] for p in dag.preds[root]})) for root in roots)
    outputs = tuple(sorted({index[group[o]] for o in dag.outputs
                            if not dag.is_input[group[o]]}))
    return DAG(names, preds, ops, outputs)


def contractions(dag: DAG, recompute: bool) -> list[tuple[DAG, str]]:
    """The contracted DAGs a search or a proof tries before the DAG itself, in turn, each
    with its lemma's text: in ``recompute``, the one with the inputs as roots where it has
    fewer vertices than the other (smaller, and weaker: see ``contract_chains``), then the
    one without, where either removes a vertex."""
    plain = contract_chains(dag)
    found = [] if plain is None else [(plain, CHAIN_CONTRACTION)]
    if recompute:
        rooted = contract_chains(dag, inputs=True)
        if rooted is not None and len(rooted) < len(plain or dag):
            found.insert(0, (rooted, INPUT_CHAIN_CONTRACTION))
    return found


def chain_groups(dag: DAG, inputs: bool = False) -> list[int]:
    """Per vertex, the root of its group in ``contract_chains`` (itself if it is one)."""
    group = list(range(len(dag)))
    for u in range(len(dag)):
        preds = dag.preds[u]
        if len(preds) == 1 and (inputs or not dag.is_input[preds[0]]):
            group[u] = group[preds[0]]
    return group


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
