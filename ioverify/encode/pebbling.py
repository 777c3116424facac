"""Z3 encoding of the red-blue pebble game over compute steps (docs/theory.md §1).

The state is kept once per *compute step*, not once per move: loads, stores and deletes between two
computes are derived.  Step ``t`` (0 <= t < K) is a phase of deletes and loads that leaves the red
set ``red[t]``, followed by at most one compute ``x[t][v]``; the computed vertex may be stored right
after it (``store[t]``).  This loses no schedule:

* deletes are free and can be moved to the start of the phase, loads to its end, so the red set in
  the middle of a phase is never larger than at its ends;
* a store needs its vertex red and only makes blue earlier, so storing right after the compute that
  made the vertex red is never worse than storing it later;
* a load of a vertex that was red before the phase is never needed.

Every rule of the game is one function below, named after the rule it encodes; ``encode`` picks
them from the tables ``GAME_RULES``, ``AT_MOST_ONCE_RULES`` and ``RECOMPUTE_RULES`` by the
variant's ``at_most_once`` field, and refuses a variant not in ``IMPLEMENTED``.  Z3 comes only
through ``ioverify.solve.query``; the schedule decoded from a model is replayed by the caller.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached
from ioverify.game.rules import Schedule, Variant, require_variant
from ioverify.solve.query import Query, z3

# The variants this encoding implements; any other is refused with UnsupportedVariant.
IMPLEMENTED = frozenset({"recompute", "one-shot"})


@dataclass
class Encoding:
    """The Z3 variables of one bounded pebbling query (see the module docstring)."""

    dag: DAG
    memory: int
    variant: Variant
    steps: int
    vertices: tuple[int, ...]  # the useful vertices: ancestors of outputs, outputs included
    computable: tuple[int, ...]  # the useful non-input vertices
    query: Query
    x: dict = field(default_factory=dict)  # (t, v) -> v computed at step t
    red: dict = field(default_factory=dict)  # (t, u) -> u red just before the compute of step t
    load: dict = field(default_factory=dict)  # (t, u) -> u loaded in the phase of step t
    store: dict = field(default_factory=dict)  # t -> the vertex computed at step t is stored
    blue: dict = field(default_factory=dict)  # (t, u) -> u blue at the start of step t (t <= K)
    done: dict = field(default_factory=dict)  # (t, v) -> v computed before step t (one-shot only)
    later: dict = field(default_factory=dict)  # (t, v) -> v computed at step t or after (recompute)
    cost: list = field(default_factory=list)  # one Boolean per unit of I/O
    constraints: list = field(default_factory=list)  # everything added to the solver
    deadline: float | None = None  # a time.monotonic() value that bounds the build

    @property
    def ctx(self):
        return self.query.ctx


def encode(dag: DAG, memory: int, variant: str | Variant, steps: int, *, seed: int = 0,
           rlimit: int | None = None, timeout_ms: int | None = None, symmetry=None,
           max_computes=None, deadline: float | None = None) -> Encoding:
    """All rules of ``variant`` (a name or a ``Variant``) for ``steps`` compute steps; the I/O
    budget is added by the caller with ``limit_io``.  ``rlimit``: Z3's work budget per solver
    call (``ioverify.solve.query.Query``).  ``symmetry`` (optional) is a pair (first, second) of orbit
    representatives for the first two computes (see ``symmetry_first_computes``);
    ``max_computes`` (optional, recompute) caps the computes of each vertex (a normal form the
    caller proved, ``ioverify.game.lemmas.compute_demands``).  ``deadline`` (a
    ``time.monotonic()`` value): the build looks at the clock once per compute step of each
    rule and raises ``DeadlineReached`` once it has passed (the encoding of a DAG of a
    thousand vertices takes minutes and gigabytes to build)."""
    rules = require_variant(variant, IMPLEMENTED, "the Z3 pebbling encoding")
    vertices = dag.useful
    computable = tuple(v for v in vertices if not dag.is_input[v])
    enc = Encoding(dag, memory, rules, steps, vertices, computable,
                   Query(seed=seed, rlimit=rlimit, timeout_ms=timeout_ms, logic="QF_FD"),
                   deadline=deadline)
    _declare(enc)
    s = _Recorder(enc)
    for rule in GAME_RULES + (AT_MOST_ONCE_RULES if rules.at_most_once else RECOMPUTE_RULES):
        s.add(*rule(enc))
    if max_computes is not None and not rules.at_most_once:
        s.add(*recompute_at_most_demand(enc, max_computes))
    if symmetry is not None:
        s.add(*symmetry_first_computes(enc, *symmetry))
    enc.cost = [enc.load[k] for k in sorted(enc.load)] + [enc.store[t] for t in range(steps)]
    return enc


class _Recorder:
    """Adds constraints to the solver and keeps them (for export to other SAT back ends), in
    chunks with a look at the clock between them."""

    CHUNK = 10_000

    def __init__(self, enc: Encoding):
        self.enc = enc

    def add(self, *constraints) -> None:
        self.enc.constraints.extend(constraints)
        for i in range(0, len(constraints), self.CHUNK):
            check_deadline(self.enc)
            self.enc.query.solver.add(*constraints[i:i + self.CHUNK])


def check_deadline(enc: Encoding) -> None:
    """Raise ``DeadlineReached`` if the deadline of the build has passed."""
    if enc.deadline is not None and time.monotonic() >= enc.deadline:
        raise DeadlineReached("timeout while building the pebbling encoding")


def _steps(enc: Encoding, start: int = 0, stop: int | None = None):
    """``range(start, stop)`` over compute steps (``stop`` defaults to ``enc.steps``), with a
    look at the clock before each: every rule iterates over steps, so no rule outlives the
    deadline by more than one step's worth of constraints."""
    for t in range(start, enc.steps if stop is None else stop):
        check_deadline(enc)
        yield t


def _checked(enc: Encoding, vertices):
    """``vertices``, with a look at the clock every 1,024 of them: one step declares five
    Booleans per vertex, seconds for a DAG of 10^5 vertices."""
    for i, v in enumerate(vertices):
        if i % 1024 == 1023:
            check_deadline(enc)
        yield v


def _declare(enc: Encoding) -> None:
    z, ctx, K = z3(), enc.ctx, enc.steps
    for t in _steps(enc):
        for v in _checked(enc, enc.computable):
            enc.x[t, v] = z.Bool(f"x_{t}_{v}", ctx)
        for u in _checked(enc, enc.vertices):
            enc.red[t, u] = z.Bool(f"r_{t}_{u}", ctx)
            enc.load[t, u] = z.Bool(f"l_{t}_{u}", ctx)
        enc.store[t] = z.Bool(f"s_{t}", ctx)
    for t in _steps(enc, 0, K + 1):
        for u in _checked(enc, enc.computable):
            enc.blue[t, u] = z.Bool(f"b_{t}_{u}", ctx)
            if enc.variant.at_most_once:
                enc.done[t, u] = z.Bool(f"d_{t}_{u}", ctx)
            else:
                enc.later[t, u] = z.Bool(f"a_{t}_{u}", ctx)


# --- the rules of the game, one function each ----

def compute_at_most_one_per_step(enc: Encoding) -> list:
    # Rule: moves are sequential; a compute step computes at most one vertex.
    z = z3()
    return [z.AtMost(*[enc.x[t, v] for v in enc.computable], 1) for t in _steps(enc)]


def one_shot_every_vertex_once(enc: Encoding) -> list:
    # Rule (one-shot variant): every needed non-input vertex is computed exactly once, and with
    # K = |computable| steps every step computes one.
    z = z3()
    out = [z.PbEq([(enc.x[t, v], 1) for t in _steps(enc)], 1) for v in enc.computable]
    out += [z.Or(*[enc.x[t, v] for v in enc.computable]) for t in _steps(enc)]
    return out


def compute_needs_predecessors(enc: Encoding) -> list:
    # Rule "compute v": every predecessor of v holds a red pebble.
    z = z3()
    return [z.Implies(enc.x[t, v], enc.red[t, p])
            for t in _steps(enc) for v in enc.computable for p in enc.dag.preds[v]]


def compute_needs_no_red(enc: Encoding) -> list:
    # Rule "compute v": v has no red pebble (a compute that changes nothing is illegal).
    z = z3()
    return [z.Implies(enc.x[t, v], z.Not(enc.red[t, v]))
            for t in _steps(enc) for v in enc.computable]


def capacity(enc: Encoding) -> list:
    # Rule |R| <= M, counting the pebble being placed by the compute.
    z = z3()
    out = []
    for t in _steps(enc):
        terms = [(enc.red[t, u], 1) for u in enc.vertices]
        terms += [(enc.x[t, v], 1) for v in enc.computable]
        out.append(z.PbLe(terms, enc.memory))
    return out


def red_needs_a_source(enc: Encoding) -> list:
    # Rules "load"/"compute": a red pebble was there before the phase, was placed by the previous
    # compute, or is loaded in this phase (cost 1).
    z = z3()
    out = []
    for t in _steps(enc):
        for u in enc.vertices:
            sources = [enc.load[t, u]]
            if t > 0:
                sources.append(enc.red[t - 1, u])
                if (t - 1, u) in enc.x:
                    sources.append(enc.x[t - 1, u])
            out.append(z.Implies(enc.red[t, u], z.Or(*sources)))
    return out


def load_needs_blue(enc: Encoding) -> list:
    # Rule "load v": v has a blue pebble (inputs always do).
    z = z3()
    return [z.Implies(enc.load[t, u], enc.blue[t, u])
            for t in _steps(enc) for u in enc.computable]


def blue_needs_a_store(enc: Encoding) -> list:
    # Rule "store v": a non-input vertex is blue only after a compute of it was stored (storing
    # right after the compute is never worse; see the module docstring).
    z = z3()
    out = [z.Not(enc.blue[0, u]) for u in enc.computable]
    for t in _steps(enc, 1, enc.steps + 1):
        for u in enc.computable:
            stored_now = z.And(enc.x[t - 1, u], enc.store[t - 1])
            out.append(z.Implies(enc.blue[t, u], z.Or(enc.blue[t - 1, u], stored_now)))
    return out


def outputs_end_blue(enc: Encoding) -> list:
    # Goal: every output holds a blue pebble at the end.
    return [enc.blue[enc.steps, o] for o in enc.dag.outputs]


def load_only_what_is_missing(enc: Encoding) -> list:
    # Normal form: a load puts red on a vertex that was not red after the previous compute
    # (a load of a red vertex is illegal, and a load whose pebble is not kept is useless).
    z = z3()
    out = []
    for t in _steps(enc):
        for u in enc.vertices:
            out.append(z.Implies(enc.load[t, u], enc.red[t, u]))
            if t > 0:
                out.append(z.Implies(enc.load[t, u], z.Not(enc.red[t - 1, u])))
                if (t - 1, u) in enc.x:
                    out.append(z.Implies(enc.load[t, u], z.Not(enc.x[t - 1, u])))
    return out


def load_just_in_time(enc: Encoding) -> list:
    # Normal form: a load is postponed to the phase of the first compute that uses the vertex
    # (postponing a load only lowers the red count in between; blue pebbles are never removed).
    z = z3()
    dag, out = enc.dag, []
    for t in _steps(enc):
        for u in enc.vertices:
            users = [enc.x[t, s] for s in dag.succs[u] if (t, s) in enc.x]
            out.append(z.Implies(enc.load[t, u], z.Or(*users)) if users
                       else z.Not(enc.load[t, u]))
    return out


def delete_only_after_use(enc: Encoding) -> list:
    # Normal form: a red pebble not used by this step's compute is still red in the next phase
    # (a pebble deleted without a use since the last phase is better deleted one phase
    # earlier), and a computed vertex stays red into the next phase unless it is stored at once.
    z = z3()
    K, out = enc.steps, []
    for t in _steps(enc):
        for u in enc.vertices:
            users = [enc.x[t, s] for s in enc.dag.succs[u] if (t, s) in enc.x]
            keep = [enc.red[t + 1, u]] if t + 1 < K else []
            out.append(z.Implies(enc.red[t, u], z.Or(*users, *keep)) if users or keep
                       else z.Not(enc.red[t, u]))
            if (t, u) in enc.x:
                out.append(z.Implies(enc.x[t, u], z.Or(enc.store[t], *keep)))
    return out


def every_input_loaded(enc: Encoding) -> list:
    # Implied (the trivial lower bound): every needed input is loaded at least once.
    z = z3()
    return [z.Or(*[enc.load[t, u] for t in _steps(enc)])
            for u in enc.vertices if enc.dag.is_input[u]]


def one_shot_red_only_while_needed(enc: Encoding) -> list:
    # Normal form (one-shot): a red pebble is kept only while a successor is still to be
    # computed (deleting a pebble that is never used again never hurts); done[t, v] says v was
    # computed before step t.
    z = z3()
    out = [z.Not(enc.done[0, v]) for v in enc.computable]
    for t in _steps(enc):
        for v in enc.computable:
            out.append(enc.done[t + 1, v] == z.Or(enc.done[t, v], enc.x[t, v]))
    useful = set(enc.vertices)
    for t in _steps(enc):
        for u in enc.vertices:
            later = [z.Not(enc.done[t, s]) for s in enc.dag.succs[u] if s in useful]
            out.append(z.Implies(enc.red[t, u], z.Or(*later)) if later
                       else z.Not(enc.red[t, u]))
    return out


def symmetry_first_computes(enc: Encoding, first: set, second: dict) -> list:
    # Symmetry breaking: the first compute is an orbit representative under the DAG's
    # automorphism group G, the second one a representative under the stabiliser of the first
    # (sound: the caller computed G and checked every element is an automorphism).
    z = z3()
    out = [z.Not(enc.x[0, v]) for v in enc.computable if v not in first]
    if enc.steps > 1:
        for a, allowed in second.items():
            if (0, a) in enc.x:
                out += [z.Implies(enc.x[0, a], z.Not(enc.x[1, v]))
                        for v in enc.computable if v not in allowed]
    return out


def recompute_idle_steps_last(enc: Encoding) -> list:
    # Normal form (recompute, K steps): a step without a compute only comes after the last
    # compute (two phases with no compute between them merge into one).
    z = z3()
    busy = [z.Or(*[enc.x[t, v] for v in enc.computable]) for t in _steps(enc)]
    return [z.Implies(busy[t], busy[t - 1]) for t in _steps(enc, 1)]


def recompute_red_only_while_needed(enc: Encoding) -> list:
    # Normal form (recompute): a red pebble is kept only while some successor is computed at
    # this step or later, and a compute is used by a later successor compute or stored (a
    # pebble never used is deleted at once, a compute never used is dropped: neither hurts);
    # later[t, v] says v is computed at step t or after.
    z = z3()
    K, out = enc.steps, []
    for v in enc.computable:
        out.append(z.Not(enc.later[K, v]))
        for t in _steps(enc):
            out.append(enc.later[t, v] == z.Or(enc.x[t, v], enc.later[t + 1, v]))
    useful = set(enc.vertices)
    for t in _steps(enc):
        for u in enc.vertices:
            users = [enc.later[t, s] for s in enc.dag.succs[u] if s in useful]
            out.append(z.Implies(enc.red[t, u], z.Or(*users)) if users
                       else z.Not(enc.red[t, u]))
            if (t, u) in enc.x:
                used = [enc.later[t + 1, s] for s in enc.dag.succs[u] if s in useful]
                out.append(z.Implies(enc.x[t, u], z.Or(enc.store[t], *used)))
    return out


def recompute_every_vertex_computed(enc: Encoding) -> list:
    # Implied (recompute): every needed non-input vertex is computed at least once.
    z = z3()
    return [z.Or(*[enc.x[t, v] for t in _steps(enc)]) for v in enc.computable]


def recompute_at_most_demand(enc: Encoding, demand: dict) -> list:
    # Normal form (recompute, demand-count lemma): v is computed at most demand[v] times.
    z = z3()
    return [z.AtMost(*[enc.x[t, v] for t in _steps(enc)], demand[v])
            for v in enc.computable if demand.get(v, enc.steps) < enc.steps]


def one_shot_topological(enc: Encoding) -> list:
    # Implied (one-shot): a vertex is computed after every non-input predecessor.
    z = z3()
    return [z.Implies(enc.x[t, v], enc.done[t, p]) for t in _steps(enc)
            for v in enc.computable for p in enc.dag.preds[v] if (t, p) in enc.done]


# --- which rules each variant gets ----

# Every variant: the moves, the capacity, the goal, and normal forms valid for both.
GAME_RULES = (compute_at_most_one_per_step, compute_needs_predecessors, compute_needs_no_red,
              capacity, red_needs_a_source, load_needs_blue, blue_needs_a_store,
              outputs_end_blue, load_only_what_is_missing, load_just_in_time,
              every_input_loaded)
# at_most_once (one-shot): exactly one compute per step and vertex.  delete_only_after_use is
# measured to help here and to slow the recompute proofs, so only these get it.
AT_MOST_ONCE_RULES = (one_shot_every_vertex_once, one_shot_red_only_while_needed,
                      one_shot_topological, delete_only_after_use)
# Recomputation allowed: idle steps last, pebbles and computes only while used.
RECOMPUTE_RULES = (recompute_idle_steps_last, recompute_red_only_while_needed,
                   recompute_every_vertex_computed)


def limit_io(enc: Encoding, budget: int):
    """The cost rule: loads + stores <= budget (a pseudo-Boolean constraint)."""
    z = z3()
    return z.PbLe([(c, 1) for c in enc.cost], budget)


# --- decoding ----

def z3_values(model):
    """The value function of a Z3 model, for ``decode``."""
    z = z3()
    return lambda b: z.is_true(model.eval(b, model_completion=True))


def decode(enc: Encoding, val) -> Schedule:
    """Turn a model (``val(variable) -> bool``) into moves: per step, delete what is not red
    next, load what is missing, compute, store if asked and not yet blue.  Nothing here is
    trusted: the caller replays the result."""
    dag, moves = enc.dag, []
    red: set[int] = set()
    blue = {v for v in range(len(dag)) if dag.is_input[v]}
    for t in range(enc.steps):
        target = {u for u in enc.vertices if val(enc.red[t, u])}
        moves += [("delete", u) for u in sorted(red - target)]
        moves += [("load", u) for u in sorted(target - red)]
        red = set(target)
        done = [v for v in enc.computable if val(enc.x[t, v])]
        for v in done:
            moves.append(("compute", v))
            red.add(v)
            if val(enc.store[t]) and v not in blue:
                moves.append(("store", v))
                blue.add(v)
    return Schedule.from_moves(moves)
