"""Exact pebbling search: beat a claimed lower bound, or prove that nothing can (issue 3).

``pebble(dag, M)`` returns a verdict, never a bool.  The pieces, and the argument each relies on:

1. **Upper bound.** A greedy schedule (Belady eviction), beam searches over the exhaustive
   search's blocks (``ioverify.game.beam``, ``_beam``) before each exhaustive search, in
   recompute also on the DAG with its free recomputes copied per use (``_unfolded_upper``,
   ``ioverify.search.unfold``), and the
   Z3 encoding of ``ioverify.encode.pebbling`` with a descending I/O budget.  Every schedule,
   whatever produced it, is replayed by ``ioverify.game.replay`` before it is used; one that
   fails raises ``InternalError``.
2. **one-shot proof: the horizon is exact.**  In the one-shot variant every needed non-input
   vertex is computed exactly once, so a schedule has exactly N = |needed non-inputs| computes.
   The encoding has one step per compute, and loads, stores and deletes are derived between
   computes (deletes moved to the start of a phase, loads to its end and to the phase of their
   first use, stores right after the compute: each move only lowers the red count or makes blue
   earlier, so no schedule is lost).  Hence every one-shot schedule of I/O <= b is a model of the
   N-step encoding with budget b, whatever its number of moves, and "unsat" at budget b proves the
   one-shot optimum exceeds b.  Evidence ``one-shot-exact-horizon``.
3. **The exhaustive search first**: ``ioverify.game.exhaustive.exhaustive_optimum``, a
   configuration search over a proved normal form, horizon-free, in the verdict's variant, asked
   below the best known I/O, with a share of the time (a third for one-shot, half for
   recompute; nine tenths and 0.99 past Z3_PROVES_UP_TO_STEPS compute steps) and a
   state cap (with the abstraction bound, a search with it and one without share both,
   ``_race``, or each has a core with ``processes=2``, ``ioverify.search.apart``; without it,
   with ``processes=2`` and a timeout, its expansions are made on two worker processes,
   ``ioverify.search.farm``).  When it
   finishes its answer is a proof in either variant (evidence ``exhaustive-search``); when it
   does not, the Z3 searches take the time left.  For a recompute verdict on a DAG where every
   needed non-input vertex has one use (``single_use_lemma``) it searches in one-shot, whose
   configurations are far fewer: the two optima are equal there, so a level it proves is a
   recompute lower bound too, and its evidence names the variant searched and the lemma.
   Where the DAG has chains to contract (``contract_chains``), it searches the contracted DAG
   first (in recompute, first with the inputs as roots too): the contracted game's optimum
   is at most the DAG's, so a level it proves is a lower bound, and its evidence names the
   contraction; its schedules are of the contracted DAG,
   expanded onto the DAG (``unfold.expand_chains``) and kept only if they replay.
4. **recompute proofs need a horizon-free argument**; a bounded recompute encoding that is unsat
   only gives ``Bounded(horizon)``.  Besides the exhaustive search:
   * ``trivial-bound``: every needed input is loaded and every output stored at least once, in
     any variant; a schedule meeting that count is optimal.
   * ``proved-horizon`` by the *demand-count lemma* (``ioverify.game.lemmas.compute_demands``): some optimal
     recompute schedule computes each vertex u at most c(u) times (c = 1 for outputs, summed
     over successors), so the compute-step encoding with sum c(u) steps is exact.  When every
     c(u) is 1 (``single_use_lemma``) that is the one-shot encoding itself.
   Nothing else upgrades a bounded or unknown answer.
5. Deterministic: fixed seeds, fixed state caps; no wall-clock limit unless ``timeout`` is
   given.  A work budget bounds the search the same way on every machine: ``rlimit`` per solver
   call (Z3's resource units, or Glucose's propagations: ``ioverify.solve.query``) and ``max_states``
   for the exhaustive search.  Hitting it gives ``Unknown`` with the bounds reached, never a
   proof; every proof's evidence records the budget it ran under (``"budget"``).  With a
   timeout, every step runs under its deadline: the exhaustive search, the automorphisms, the
   encoding, its CNF, the SAT solver's load and each solver call (a step the deadline stops
   raises ``DeadlineReached``, and the answer is ``Unknown`` with the bounds reached).  The
   steps that cannot stop midway (building a search's tables, replaying and writing the
   answer) run inside a deadline held back by what the start took (FINISH_SHARE).
6. Variants are ``ioverify.game.rules.Variant`` records; the routes dispatch on
   ``at_most_once`` and a variant outside ``IMPLEMENTED`` is refused (``UnsupportedVariant``).
   The recompute routes also rely on every one-shot schedule being legal in the variant (its
   rules are one-shot's without at-most-once): one-shot searches give them upper bounds.
"""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

from ioverify import _signals
from ioverify._check import integer, positive
from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached, InternalError, InvalidArgument
from ioverify.game.beam import beam_schedule
from ioverify.game.greedy import best_greedy_schedule, greedy_schedule
from ioverify.game.lemmas import (CONTRACTIONS, SINGLE_USE, compute_demands, contractions,
                                  single_use_lemma, trivial_lower_bound)
from ioverify.game.replay import replay
from ioverify.game.rules import (ONE_SHOT, Schedule, Variant, check_dag, check_memory,
                                 infeasibility, require_variant)
from ioverify.verdict import (Attained, Bounded, Evidence, Infeasible, Optimal, Refuted, Unknown,
                              Verdict, Verified)
from ioverify.dag import symmetry
from ioverify.encode import cnf, pebbling
from ioverify.game import abstraction
from ioverify.game import engine
from ioverify.game.exhaustive import INFINITY, ExhaustiveRun, SearchResult, _Symmetry
from ioverify.search import apart, farm, unfold
from ioverify.solve import backends

Progress = Callable[[str], None]

# The variants the search implements (its routes and lemmas are proved for these); any other is
# refused with UnsupportedVariant.
IMPLEMENTED = frozenset({"recompute", "one-shot"})


@dataclass
class _State:
    """What the search knows so far: the best replayed schedule and the proved lower bound."""

    dag: DAG
    memory: int
    variant: Variant
    seed: int
    deadline: float | None
    progress: Progress | None
    start: float
    best: Schedule
    upper: int
    lower: int
    lower_evidence: Evidence  # what proves ``lower``
    exhaustive: bool = True  # try the exhaustive search before Z3
    rlimit: int | None = None  # work budget per solver call (ioverify.solve.query)
    max_states: int | None = None  # the exhaustive search's state cap (None: not run)
    timeout: float | None = None  # as given, for the record
    symmetry: tuple | None = None  # symmetry_of(dag), computed once by the first descent
    enough: int | None = None  # stop at a schedule this cheap (a bound proved elsewhere)
    abstraction: bool = True  # let the exhaustive search use the abstraction bound
    processes: int = 1  # 2: the race's second search in a child process (``apart``)
    contract: bool = True  # let the exhaustive search run on the contracted DAG first
    # The level the running exhaustive search has proved so far (no schedule below it in the
    # variant it searches), shown in its progress lines only: the verdict's lower bound is
    # raised from its result (``_record``).  None while no level is known.
    proving: int | None = None
    # The greedy schedule the search started from (one-shot, replayed), for the recompute
    # route's one-shot sub-search when the best schedule is not one-shot; None if not built.
    one_shot: Schedule | None = None

    def budget(self) -> dict:
        """The budget this search runs under, as recorded in its evidence."""
        return budget_record(rlimit=self.rlimit, max_states=self.max_states,
                             timeout=self.timeout, seed=self.seed)

    def raise_lower(self, bound: int, evidence: Evidence) -> None:
        if bound > self.lower:
            self.lower, self.lower_evidence = bound, evidence

    def remaining(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.001, self.deadline - time.monotonic())

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def proved_so_far(self, level: int | None) -> None:
        """Note a level the running exhaustive search has proved (``proving``)."""
        if level is not None and (self.proving is None or level > self.proving):
            self.proving = level

    def report(self, what: str) -> None:
        if self.progress is not None:
            self.progress(f"{what}; bounds [{self.lower}, {self.upper}]; "
                          f"{time.monotonic() - self.start:.1f} s")


# --- the independent check every schedule goes through ----

def checked(dag: DAG, schedule: Schedule, memory: int, variant: str | Variant, budget: int | None,
            source: str) -> Schedule:
    """Replay ``schedule``; a solver or heuristic schedule that fails is a bug: InternalError."""
    result = replay(dag, schedule, memory, variant)
    if not result.ok:
        raise InternalError(f"{source} produced a schedule that fails replay: {result.describe()}")
    if budget is not None and result.io > budget:
        raise InternalError(f"{source} produced a schedule of I/O {result.io} above its "
                            f"budget {budget}")
    return schedule


# --- the Z3 searches ------------------------------------------------------------------------------

def symmetry_of(dag: DAG, deadline: float | None = None):
    """Orbit representatives for the first two computes, from automorphisms computed and checked
    on this DAG (``ioverify.dag.symmetry``); None if the group is too large to list or the
    ``deadline`` (a ``time.monotonic()`` value) passes first."""
    group = symmetry.checked_automorphisms(dag, deadline=deadline)
    if len(group) <= 1:
        return None, 1
    comp = [v for v in range(len(dag)) if not dag.is_input[v]]
    first = symmetry.orbit_representatives(group, comp)
    second = {a: symmetry.orbit_representatives(symmetry.stabiliser(group, a), comp)
              for a in first}
    return (first, second), len(group)


@dataclass(frozen=True)
class Descent:
    """The outcome of a descending-budget search on one encoding."""

    answer: str  # "unsat" at budget ``target`` (proved within the encoding), "reached" (the
    #              upper bound met the target, nothing was asked) or "unknown"
    target: int  # the last budget asked
    steps: int
    group: int
    reason: str = ""


def descend(st: _State, variant: str | Variant, steps: int, stop_at: int,
            max_computes: dict | None = None) -> Descent:
    """Ask for schedules of I/O <= b, b = upper - 1, upper - 2, ..., each sat answer replayed
    and made the new upper bound, until unsat, unknown or b < stop_at (nothing left to ask).
    Each solver call runs under ``st.rlimit``; the symmetry, the encoding and its CNF are
    built under ``st.deadline`` (past it: unknown, with the bounds reached so far)."""
    if st.upper - 1 < stop_at:
        return Descent("reached", st.upper - 1, steps, 1, "the target was reached")
    if st.out_of_time():
        return Descent("unknown", st.upper - 1, steps, 1, "timeout")
    group = 1
    try:
        if st.symmetry is None:
            st.symmetry = symmetry_of(st.dag, st.deadline)
        sym, group = st.symmetry
        st.report(f"building the encoding of {steps} compute steps")
        enc = pebbling.encode(st.dag, st.memory, variant, steps, seed=st.seed, rlimit=st.rlimit,
                              symmetry=sym, max_computes=max_computes, deadline=st.deadline)
        backend = backend_for(enc, st.upper, st.rlimit, st.deadline)
    except DeadlineReached as stop:
        return Descent("unknown", st.upper - 1, steps, group, str(stop))
    try:
        return _ask(st, enc, backend, stop_at, group)
    finally:
        backend.close()


def _ask(st: _State, enc, backend, stop_at: int, group: int) -> Descent:
    """The descending questions of ``descend`` to a built ``backend`` of ``enc``."""
    steps = enc.steps
    while True:
        budget = st.upper - 1
        if budget < stop_at:
            return Descent("reached", budget, steps, group, "the target was reached")
        if st.out_of_time():
            return Descent("unknown", budget, steps, group, "timeout")
        what = f"{enc.variant.name} search, {steps} compute steps, budget {budget}"
        st.report(what)
        with _heartbeat(st, what):
            answer = backend.check(budget, st.remaining())
        if answer == "unsat":
            return Descent("unsat", budget, steps, group)
        if answer != "sat":
            return Descent("unknown", budget, steps, group, backend.reason or "solver unknown")
        schedule = checked(st.dag, pebbling.decode(enc, backend.value), st.memory,
                           st.variant, budget, "the Z3 pebbling search")
        st.best, st.upper = schedule, schedule.io


HEARTBEAT = 10.0  # seconds between progress lines while one solver call runs


@contextmanager
def _heartbeat(st: _State, what: str):
    """Report ``what`` every HEARTBEAT seconds while the body runs (progress for long calls),
    with the level an exhaustive search has proved so far (``_State.proving``)."""
    if st.progress is None:
        yield
        return

    def beat():
        so_far = "" if st.proving is None else f"; none below {st.proving} so far"
        st.report(f"{what} (still running{so_far})")

    with _signals.periodically(HEARTBEAT, beat):
        yield


def backend_for(enc, ubound: int | None = None, rlimit: int | None = None,
                deadline: float | None = None):
    """Glucose on Z3's CNF of the encoding if PySAT is installed, else Z3 alone
    (``ioverify.solve.backends``).  ``ubound``: the largest I/O budget that will be asked;
    ``rlimit``: the work budget per call, which Glucose counts in propagations; ``deadline``:
    the CNF and the SAT solver are built before it or not at all (``DeadlineReached``)."""
    if not backends.available():
        return backends.Z3Backend(enc.query, lambda budget: pebbling.limit_io(enc, budget),
                                  pebbling.z3_values)
    clauses, nvars, names = cnf.to_cnf(enc.ctx, enc.constraints, deadline)
    return backends.SatQuery(clauses, nvars, names, [str(c) for c in enc.cost], ubound,
                             propagations=rlimit, deadline=deadline)


def backend_name() -> str:
    """The back end ``backend_for`` picks here: it fixes the unit of the rlimit."""
    return backends.name_here()


# --- the public entry point ----


def _first_schedule(dag: DAG, memory: int, rules: Variant, deadline: float | None,
                    incumbent: Schedule | None, greedy: bool) -> tuple[Schedule, Schedule | None]:
    """The search's first upper bound, replayed: the greedy schedule (unless ``greedy`` is
    False) or the incumbent if it is cheaper (``pebble``); and the greedy schedule (None when
    not built)."""
    if not greedy:
        if incumbent is None:
            raise InvalidArgument("greedy=False needs the incumbent that is no worse than the "
                                  "greedy schedule")
        return checked(dag, incumbent, memory, rules, None, "the incumbent schedule"), None
    built = checked(dag, best_greedy_schedule(dag, memory, deadline), memory, ONE_SHOT, None,
                    "greedy")
    first = built
    if incumbent is not None and incumbent.io < first.io:
        first = checked(dag, incumbent, memory, rules, None, "the incumbent schedule")
    return first, built

METHODS = ("auto", "exhaustive", "z3")


def pebble(dag: DAG, memory: int, *, variant: str | Variant = "recompute",
           claim_lower_bound: int | None = None, timeout: float | None = None, seed: int = 0,
           progress: Progress | None = None, method: str = "auto", rlimit: int | None = None,
           max_states: int | None = None, started: float | None = None,
           incumbent: Schedule | None = None, enough: int | None = None,
           abstraction: bool = True, processes: int = 1, contract: bool = True,
           greedy: bool = True) -> Verdict:
    """The exact I/O optimum of ``dag`` with ``memory`` red pebbles, or, with a claim L, whether
    every schedule costs at least L (Verified) or a replayed schedule costs less (Refuted).

    ``variant``: a name or a ``Variant`` in ``IMPLEMENTED``.  ``method``: ``auto`` (the
    exhaustive search with a share of the time, then Z3), ``z3`` (the Z3 encodings only) or
    ``exhaustive`` (the exhaustive search only, all the time and up to
    EXHAUSTIVE_ONLY_MAX_STATES configurations).  The work budget (module docstring, 5):
    ``rlimit`` per solver call, ``max_states`` for the exhaustive search (default
    EXHAUSTIVE_MAX_STATES, or EXHAUSTIVE_ONLY_MAX_STATES for method exhaustive and past
    Z3_PROVES_UP_TO_STEPS compute steps: ``state_cap``).  ``started``:
    the ``time.monotonic()`` value the timeout counts from (default: now; the CLI passes its
    own start, so that reading the DAG counts too).  ``incumbent``: a schedule known from
    elsewhere (an upper-bound worker, a neighbouring cell of a curve); it is replayed at
    ``memory`` in ``variant`` (``InternalError`` if it fails) and starts the search as the upper
    bound when it beats the greedy schedule.  ``greedy``: False when the caller knows the
    ``incumbent`` is no worse than the greedy schedule at ``memory`` (a curve's cell, offered
    its greedy schedule): none is built here then (seconds on tens of thousands of vertices),
    and the incumbent, required, starts the search.  ``enough``: a lower bound the caller proved
    elsewhere (a settled neighbour of a curve); once a replayed schedule costs no more, the
    search stops with ``Unknown`` and the bracket reached, for the caller to settle with its own
    proof (nothing here relies on it).  ``abstraction``: let the exhaustive search use the
    abstraction bound of ``ioverify.game.abstraction`` where it sees more than the trivial bound
    (False: its own heuristic only, for comparison).  ``processes``: 2 or more runs the
    race's search without the bound in a child process, each with the whole time
    (``ioverify.search.apart``; only with a ``timeout``), instead of the two taking turns here,
    and a search without the bound on that many worker processes making its successors
    (``ioverify.search.farm``; only with a ``timeout``).  ``contract``: let the exhaustive
    search run on the DAG with its chains contracted first (``_run_contracted``; False: on the
    DAG only, for comparison)."""
    check_dag(dag)
    rules, claim = _check_arguments(memory, variant, method, claim_lower_bound, timeout,
                                    rlimit, max_states)
    positive("processes", processes)
    if enough is not None and (isinstance(enough, bool) or not isinstance(enough, int)):
        raise InvalidArgument(f"enough must be an integer I/O, got {enough!r}")
    why = infeasibility(dag, memory)
    if why is not None:
        return Infeasible(why, rules.name)
    start = time.monotonic() if started is None else started
    deadline = None if timeout is None else start + timeout
    trivial = trivial_lower_bound(dag)
    try:
        first, built = _first_schedule(dag, memory, rules, deadline, incumbent, greedy)
    except DeadlineReached as stop:  # reading the DAG and the first schedule used the time
        return Unknown(f"{stop}: no schedule yet", trivial, None, rules.name)
    if deadline is not None:
        deadline -= min(time.monotonic() - start, FINISH_SHARE * timeout)
    st = _State(dag, memory, rules, seed, deadline, progress, start, first, first.io, trivial,
                Evidence("trivial-bound", {"bound": trivial}), exhaustive=method != "z3",
                rlimit=rlimit, max_states=state_cap(method, max_states, dag), timeout=timeout,
                enough=None if claim is not None else enough, abstraction=abstraction,
                processes=processes, contract=contract, one_shot=built)
    settled = _settled(st, claim)
    if settled is not None:
        return settled
    route = (_exhaustive_route if method == "exhaustive" else
             _one_shot_route if rules.at_most_once or single_use_lemma(dag) else _recompute_route)
    try:
        return route(st, claim)
    except MemoryError:
        return _out_of_memory(st, "the process ran out of memory")
    except Exception as error:  # noqa: BLE001 - only Z3's own out-of-memory is an answer
        if type(error).__name__ != "Z3Exception" or "memory" not in str(error).lower():
            raise
        return _out_of_memory(st, f"Z3 ran out of memory ({error})")


# Some steps cannot stop midway, and each is about one pass over the DAG: building a search's
# tables, a beam's first expansion, the replay of the answer and writing it out.  On a DAG of
# tens of thousands of vertices each takes a second or so, so the steps after the first
# schedule run under a deadline held back by the time the command took until then (reading the
# DAG and the greedy schedules: a few passes), at most this share of the timeout
# (attention_backward(60,1), 43,440 vertices, M = 40, --timeout 10: 10.8 s in all without it,
# docs/performance.md).
FINISH_SHARE = 1 / 10


def upper_end(dag: DAG, memory: int, at_most: int, *, variant: str | Variant = "recompute",
              **limits) -> Verdict:
    """Whether some schedule of ``dag`` with ``memory`` red pebbles costs at most ``at_most``
    I/O: the claimed lower bound ``at_most`` + 1 turned round (``pebble``, ``limits`` its other
    keyword arguments).  A schedule that refutes that bound, replayed here again, attains the
    claim (``Attained``, evidence ``replay``); a proof of that bound refutes the claim, on the
    same evidence; anything else is what ``pebble`` answered."""
    at_most = integer("at_most", at_most, 0)
    name = require_variant(variant, IMPLEMENTED, "the pebbling search").name
    found = pebble(dag, memory, variant=variant, claim_lower_bound=at_most + 1, **limits)
    if isinstance(found, Refuted) and found.schedule is not None:
        replayed = replay(dag, found.schedule, memory, name)
        if not replayed.ok or replayed.io > at_most:
            raise InternalError(f"the search's schedule does not attain {at_most}: "
                                f"{replayed.describe()}")
        return Attained(replayed.io, at_most, found.schedule, Evidence("replay"), name)
    if isinstance(found, Verified):  # the re-check derives this reason word for word
        return Refuted(None, None, at_most, name,
                       f"every schedule needs >= {at_most + 1} I/O, above the claimed upper end "
                       f"{at_most} ({found.evidence.kind})", found.evidence)
    return found


def _out_of_memory(st: _State, why: str) -> Verdict:
    """Exhausted memory is a limit like the clock: unknown, with the bracket reached."""
    gc.collect()
    return Unknown(f"{why}: the memory budget (--max-memory) is spent", st.lower, st.upper,
                   st.variant.name, st.best)


def _check_arguments(memory, variant, method, claim, timeout, rlimit, max_states):
    """The variant's record and the claim, after every argument of ``pebble`` is checked."""
    check_memory(memory)
    rules = require_variant(variant, IMPLEMENTED, "the pebbling search")
    if method not in METHODS:
        raise InvalidArgument(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if timeout is not None and not timeout > 0:
        raise InvalidArgument(f"timeout must be a positive number of seconds, got {timeout!r}")
    positive("rlimit", rlimit, optional=True)
    positive("max_states", max_states, optional=True)
    return rules, _check_claim(claim)


def budget_record(*, rlimit: int | None, max_states: int | None, timeout: float | None,
                  seed: int) -> dict:
    """A search's budget as data: the work budget (``rlimit`` per solver call, ``max_states``
    the state cap in force, None when the exhaustive search does not run), the wall clock and
    the seed."""
    return {"rlimit": rlimit, "max_states": max_states, "timeout": timeout, "seed": seed}


def state_cap(method: str, max_states: int | None, dag: DAG | None = None) -> int | None:
    """The exhaustive search's state cap for ``method`` on ``dag`` (None when it does not
    run): EXHAUSTIVE_MAX_STATES, after which Z3 takes over, except with method exhaustive or
    past Z3_PROVES_UP_TO_STEPS compute steps, where Z3 proves no lower bound, so stopping the
    search early would only throw its time away: EXHAUSTIVE_ONLY_MAX_STATES there, which
    within a time limit the search seldom reaches (attention_forward(3,1) at M = 8, one-shot:
    the optimum in 154 s past the 2,000,000 configurations)."""
    if method == "z3":
        return None
    if max_states is not None:
        return max_states
    large = dag is not None and _compute_steps(dag) > Z3_PROVES_UP_TO_STEPS
    return (EXHAUSTIVE_ONLY_MAX_STATES if method == "exhaustive" or large
            else EXHAUSTIVE_MAX_STATES)


def _settled(st: _State, claim: int | None) -> Verdict | None:
    """The verdict if the bounds alone decide: a replayed schedule below the claim refutes it,
    a proved lower bound at or above it verifies it, an upper bound meeting the lower bound is
    the optimum (on the argument that proved the lower bound)."""
    name = st.variant.name
    if claim is not None:
        if st.upper < claim:
            return Refuted(st.best, st.upper, claim, name)
        if claim <= st.lower:
            return Verified(claim, _with_budget(st), name)
    elif st.upper <= st.lower:
        return Optimal(st.upper, st.best, _with_budget(st), name)
    elif st.enough is not None and st.upper <= st.enough:
        return Unknown(f"stopped at a schedule of I/O {st.upper}: the caller's bound "
                       f"{st.enough}, proved elsewhere, is met", st.lower, st.upper, name,
                       st.best)
    return None


def _with_budget(st: _State) -> Evidence:
    """The evidence of the lower bound, recording the budget the search ran under."""
    evidence = st.lower_evidence
    return Evidence(evidence.kind, {**evidence.detail, "budget": st.budget()})


def _stop(st: _State, claim: int | None) -> int:
    """The smallest I/O budget worth asking a solver for."""
    if claim is not None:
        return claim - 1
    return st.lower if st.enough is None else max(st.lower, st.enough)


def _check_claim(claim):
    if claim is None:
        return None
    if isinstance(claim, bool) or not isinstance(claim, int) or claim < 0:
        raise InvalidArgument(f"claim_lower_bound must be an integer >= 0, got {claim!r}")
    return claim


@contextmanager
def _share(st: _State, fraction: float):
    """Within the body, ``st`` runs out of time after ``fraction`` of the time left (when a
    timeout was given), so that the steps after it keep the rest."""
    saved = st.deadline
    if saved is not None:
        st.deadline = time.monotonic() + fraction * st.remaining()
    try:
        yield
    finally:
        st.deadline = saved


# Of the time left, with a timeout, by the variant's at_most_once: one-shot (True) keeps more for
# its exact-horizon encoding.
EXHAUSTIVE_SHARE = {True: 1 / 3, False: 1 / 2}
# Past this many compute steps the Z3 encodings have proved no lower bound above the trivial
# one in any measured cell at 60 s (sparse_forward(causal 3,1), 27 steps, M = 6;
# attention_forward(2,2), 34 steps, every M; docs/performance.md; at 18 steps they prove
# attention_forward(2,1) in seconds), so there the exhaustive search, which proves every level
# it closes, takes the larger share, LARGE_EXHAUSTIVE_SHARE, and the Z3 searches keep the rest
# for the upper bounds they find.  In one-shot they found some (approximate_attention(2,1,2)
# at M = 3, 60 s: 53 -> 51 after the exhaustive search) until the beam searches (``_beam``)
# found better ones first (44 there): at 120 s, 2/3 against 0.9 of the time gave the same
# upper ends on matmul(3,3,3) at M = 9 and 12, attention_forward(3,1) at M = 4 and
# attention_backward(2,1) at M = 5, and the lower end rose in the last (29 -> 30), while
# approximate_attention(2,1,2) at M = 4 is proved (26) in 54 s with 0.9 and not within 60 s
# with 2/3 (docs/performance.md).  In recompute the Z3 search after the
# exhaustive one neither proved nor found a cheaper schedule in any of the nine open cells of
# up to 46 vertices measured at 60 s (approximate_attention(2,1,2) at M = 3..6,
# sparse_forward(causal 3,1) at M = 3, attention_forward(2,2) at M = 3, 4, 6, 7;
# docs/performance.md), while with 0.9 of the time instead of 3/4 the exhaustive search
# settles attention_forward(2,2) at M = 6 and 7, and with 0.95 instead of 0.9
# sparse_forward(causal 3,1) at M = 4 (53 s, after the counts shared per eviction class in
# ``_Search.blocks``).  It later fell just short again (the hand-over needs 501,739
# configurations; 488,817 with 0.95 on 2026-11-28, after the search's inner loop became a
# fifth faster), and with 0.99 it is proved in 54 s: so 0.99 (the Z3 search keeps 0.6 s).
Z3_PROVES_UP_TO_STEPS = 24
LARGE_EXHAUSTIVE_SHARE = {True: 0.9, False: 0.99}
EXHAUSTIVE_MAX_STATES = 2_000_000  # about 0.5 GiB of configurations; past it, Z3 takes over
EXHAUSTIVE_ONLY_MAX_STATES = 20_000_000  # method="exhaustive", or past 24 steps: about 5 GiB


def _exhaustive_route(st: _State, claim: int | None) -> Verdict:
    """method="exhaustive": the configuration search alone, with all the time left (for
    recompute, the beams on the unfolded DAG and a quarter of it first for the one-shot
    search, whose schedules are kept)."""
    if not st.variant.at_most_once:
        _unfolded_upper(st, claim)
        settled = _settled(st, claim)
        if settled is not None:
            return settled
        _one_shot_upper(st, claim, _exhaustive_route, EXHAUSTIVE_ONE_SHOT_SHARE)
        _cheap_upper(st, claim)
        settled = _settled(st, claim)
        if settled is not None:
            return settled
    proof = _exhaustive(st, claim, share=1.0)
    if not isinstance(proof, str):
        return proof
    return Unknown(proof, st.lower, st.upper, st.variant.name, st.best)


HORIZON_CAP = 4  # use the proved horizon only if it is at most this many times the one-shot one


def _one_shot_route(st: _State, claim: int | None) -> Verdict:
    """The exhaustive search first (a share of the time), then the exact horizon: the one-shot
    encoding with one step per needed compute.  Used for the recompute variant only when the
    single-use lemma holds (then the optima are equal)."""
    proof = _exhaustive(st, claim)
    if not isinstance(proof, str):
        return proof
    steps = _compute_steps(st.dag)
    result = descend(st, ONE_SHOT, steps, _stop(st, claim))
    if result.answer == "unsat":
        detail = {"method": "z3-compute-steps", "steps": steps, "unsat_budget": result.target,
                  "automorphisms": result.group, "backend": backend_name()}
        evidence = Evidence("one-shot-exact-horizon", detail)
        if not st.variant.at_most_once:
            evidence = Evidence("proved-horizon", {**detail, "horizon_computes": steps,
                                                   "lemma": "demand-count, every c(u) = 1 "
                                                   "(ioverify.game.lemmas.compute_demands)"})
        st.raise_lower(result.target + 1, evidence)
    settled = _settled(st, claim)
    if settled is not None:
        return settled
    return Unknown(f"{proof}; one-shot search: {result.reason or 'solver unknown'} at "
                   f"I/O budget {result.target}", st.lower, st.upper, st.variant.name, st.best)


def _recompute_route(st: _State, claim: int | None) -> Verdict:
    """Recomputation may help.  First, where some vertices are free to compute again, beam
    searches on the DAG unfolded at them (``_unfolded_upper``), whose schedules recompute
    those.  Then the one-shot sub-search (``_one_shot_upper``, half the time left), whose best
    schedule, replayed in the recompute variant, is the upper bound if it is cheaper: every
    one-shot schedule is a recompute schedule, so the answer is never worse than the one-shot
    one under the same work budget.  Where no vertex is free to compute again, beam searches
    on the DAG with its cheap recomputes copied per use (``_cheap_upper``).  Then the
    horizon-free exhaustive search (half the rest; LARGE_EXHAUSTIVE_SHARE past
    Z3_PROVES_UP_TO_STEPS) asked only below it, and the recompute encoding with the horizon of the demand-count lemma, a proof when that horizon
    is small enough, otherwise run with a shorter horizon (only ``Bounded``)."""
    _unfolded_upper(st, claim)
    settled = _settled(st, claim)  # the beams' schedule may refute the claim or meet ``enough``
    if settled is not None:
        return settled
    one_shot = _one_shot_upper(st, claim)
    settled = _settled(st, claim)
    if settled is not None:
        return settled
    _cheap_upper(st, claim)
    settled = _settled(st, claim)
    if settled is not None:
        return settled
    proof = _exhaustive(st, claim)
    if not isinstance(proof, str):
        return proof
    n = _compute_steps(st.dag)
    demands = compute_demands(st.dag)
    horizon = sum(demands.values())
    proved = horizon <= HORIZON_CAP * n
    steps = horizon if proved else 2 * n
    bounded = None
    if not st.out_of_time():
        bounded = descend(st, st.variant, steps, _stop(st, claim), max_computes=demands)
        if bounded.answer == "unsat" and proved:
            st.raise_lower(bounded.target + 1, Evidence("proved-horizon", {
                "method": "z3-compute-steps", "steps": steps, "unsat_budget": bounded.target,
                "automorphisms": bounded.group, "horizon_computes": horizon,
                "lemma": "demand-count (ioverify.game.lemmas.compute_demands)",
                "backend": backend_name()}))
        settled = _settled(st, claim)
        if settled is not None:
            return settled
        if bounded.answer == "unsat":
            return Bounded(steps, st.lower, st.upper, st.variant.name, st.best)
    why = f"{proof}; one-shot sub-search: {one_shot}"
    if bounded is not None and bounded.answer == "unknown":
        why = f"{why}; recompute search: {bounded.reason} at I/O budget {bounded.target}"
    return Unknown(why, st.lower, st.upper, st.variant.name, st.best)


ONE_SHOT_SHARE = 1 / 2  # of the time left, for the recompute route's one-shot sub-search


EXHAUSTIVE_ONE_SHOT_SHARE = 1 / 4  # the same, with method exhaustive


def _one_shot_upper(st: _State, claim: int | None, route=None,
                    share: float = ONE_SHOT_SHARE) -> str:
    """The recompute route's one-shot sub-search: exactly the one-shot route (``pebble`` with
    variant one-shot, the same seed, rlimit and state cap; ``route``, default
    ``_one_shot_route``) on a state of its own, with ``share`` of the time left.  Its best
    schedule is replayed in ``st``'s variant and kept as the upper bound; nothing it proves is
    a recompute lower bound (the one-shot optimum may exceed the recompute one).  When the
    best known schedule is cheaper than any one-shot one known (the unfolded DAG's, say), only
    a one-shot schedule below it would help: the sub-search is asked for that alone, so it
    stops once it proves none exists instead of proving its own optimum.  Returns the
    sub-search's answer, for the record."""
    start = _one_shot_start(st)
    if start is None:
        return "not run: the deadline came before a one-shot schedule to start from"
    if st.upper < start.io:
        claim = _below(st, claim)
    sub = _State(st.dag, st.memory, ONE_SHOT, st.seed, st.deadline, st.progress, st.start,
                 start, start.io, st.lower, st.lower_evidence, exhaustive=st.exhaustive,
                 rlimit=st.rlimit, max_states=st.max_states, timeout=st.timeout,
                 symmetry=st.symmetry, enough=st.enough, processes=st.processes,
                 contract=st.contract)
    with _share(sub, share):
        answer = _settled(sub, claim) or (route or _one_shot_route)(sub, claim)
    st.symmetry = sub.symmetry
    if sub.upper < st.upper:
        st.best = checked(st.dag, sub.best, st.memory, st.variant, sub.upper,
                          "the one-shot sub-search")
        st.upper = sub.upper
    return _verdict_text(answer)


def _one_shot_start(st: _State) -> Schedule | None:
    """The one-shot sub-search's first schedule: the best known if it is one-shot, else the
    greedy schedule the search started from, else one built now under the deadline (None if
    the deadline comes first; before, it was built again with no deadline, seconds on tens of
    thousands of vertices)."""
    if replay(st.dag, st.best, st.memory, ONE_SHOT).ok:
        return st.best
    if st.one_shot is not None:
        return st.one_shot
    try:
        return checked(st.dag, best_greedy_schedule(st.dag, st.memory, st.deadline), st.memory,
                       ONE_SHOT, None, "greedy")
    except DeadlineReached:
        return None


# The beam searches on the unfolded DAG (``_unfolded_upper``), the recompute route's first step:
# at most this share of the time (approximate_attention(2,1,2) alone: 14, 19, 25 and 42 at M = 6,
# 5, 4 and 3 in 7.4, 15.1, 11.7 and 6.6 s; at M = 5 only width 1,024 finds 19, after 15 s, and
# the one-shot sub-search first, or a quarter of a minute, left it too little;
# docs/performance.md).
UNFOLDED_SHARE = 1 / 3
# The same for the DAG with its cheap recomputes copied per use (``_cheap_upper``), where none
# is free: a copy must be computed from what lies above it, so these beams find less often
# (none as good as the known schedules of attention_forward(3,1) at M = 3..8, up to 48 s there
# without a limit) and get less of the time: attention_backward(2,1) at M = 10 and 11 in
# recompute, 21 and 20, one below the one-shot optima, in 14 s and 18 s;
# sparse_backward(causal 3,1) at M = 13, 27, its inputs plus outputs, in 27 s (the cells
# settled in 120.6 s, 69.3 s and 28.7 s; docs/performance.md).
CHEAP_SHARE = 1 / 10


def _unfolded_upper(st: _State, claim: int | None) -> None:
    """Where the DAG has vertices that are free to compute again (``unfold.free_recomputes``:
    one predecessor, an input), beam searches in one-shot on the DAG with one copy of each per
    use (``ioverify.search.unfold``), within UNFOLDED_SHARE of the time left (``_folded_beam``)."""
    vertices = unfold.free_recomputes(st.dag)
    if not vertices or st.out_of_time() or _below(st, claim) <= st.lower:
        return
    unfolded, origin = unfold.unfold(st.dag, vertices)
    _folded_beam(st, unfolded, origin, f"{len(vertices)} vertices copied per use",
                 UNFOLDED_SHARE)


def _cheap_upper(st: _State, claim: int | None) -> None:
    """Where the DAG has no free recompute but cheap ones (``unfold.unfold_cheap``), beam
    searches in one-shot on the DAG with those copied per use, within CHEAP_SHARE of the time
    left (``_folded_beam``).  They run after the one-shot sub-search, so that a schedule of
    theirs worse than the one-shot optimum never asks that sub-search below it alone (it
    would then stop at its first schedule below it: sparse_backward(causal 3,1) at M = 14 in
    recompute, 120 s, one process, stopped at 30 where it proves 27)."""
    if (unfold.free_recomputes(st.dag) or st.out_of_time()
            or _below(st, claim) <= st.lower):
        return
    with _share(st, CHEAP_SHARE):  # the unfolding too: seconds on tens of thousands of vertices
        unfolded, origin = unfold.unfold_cheap(st.dag, st.deadline)
        if len(unfolded) > len(st.dag) and not st.out_of_time():
            _folded_beam(st, unfolded, origin,
                         f"its cheap recomputes copied per use ({len(unfolded)} vertices)", 1.0)


def _folded_beam(st: _State, unfolded: DAG, origin: tuple[int, ...], what: str,
                 share: float) -> None:
    """Beam searches in one-shot on ``unfolded`` (``what``, for the user), within ``share``
    of the time left or, without a timeout, BEAM_SUCCESSORS successors.  The best schedule
    found, folded onto the DAG (``origin``), is replayed in the recompute variant and kept if
    it beats the best known: an upper bound, nothing it does is a lower bound."""
    st.report(f"beam search in one-shot on the DAG with {what}")
    with _share(st, share):
        found = beam_schedule(unfolded, st.memory, ONE_SHOT,
                              max_successors=BEAM_SUCCESSORS if st.deadline is None else None,
                              deadline=st.deadline)
    if found is None:
        return
    folded = unfold.fold(found, origin)
    if folded.io < st.upper:
        st.best = checked(st.dag, folded, st.memory, st.variant, folded.io,
                          "the beam search on the unfolded DAG")
        st.upper = folded.io


def _verdict_text(verdict: Verdict) -> str:
    """The one-shot sub-search's answer in words, its brackets named as one-shot ones: they
    bound the one-shot optimum, not the answer's (whose own bracket follows it)."""
    from ioverify.verdict import describe

    return describe(verdict).replace(" (bounds so far: ", " (one-shot bounds so far: ")


def _exhaustive(st: _State, claim: int | None, share: float | None = None):
    """The horizon-free configuration search in the verdict's variant, asked only for
    schedules below the best known, with ``share`` of the time left (EXHAUSTIVE_SHARE) and at
    most ``st.max_states`` configurations; a verdict if it settled the question, else the
    reason (a string).  For recompute, the one-shot sub-search has already run
    (``_one_shot_upper``) and its best schedule is the upper bound: proving that nothing is
    cheaper is far quicker than finding the cheapest.  A search stopped early still proves the level it
    reached (``SearchResult.lower_bound``)."""
    if not st.exhaustive:
        return "exhaustive search not run (method z3)"
    if share is None:
        large = _compute_steps(st.dag) > Z3_PROVES_UP_TO_STEPS
        share = (LARGE_EXHAUSTIVE_SHARE if large else EXHAUSTIVE_SHARE)[st.variant.at_most_once]
    max_states = st.max_states
    _beam(st, claim)
    settled = _settled(st, claim)
    if settled is not None:
        return settled
    if st.out_of_time():
        return "timeout before the exhaustive search"
    try:
        with _share(st, share):
            result, where = _run_contracted(st, claim, _searched_variant(st), max_states)
    finally:
        st.proving = None  # the progress lines of what follows (Z3) are not this search's
    settled = _settled(st, claim)
    if settled is not None:
        return settled
    return f"exhaustive search{where} incomplete after {result.states} states: {result.reason}"


def _run_contracted(st: _State, claim: int | None, variant: Variant, max_states: int):
    """The exhaustive search in ``variant`` on the DAG with its chains contracted
    (``contract_chains``), where that removes a vertex, else on the DAG (``_run_exhaustive``);
    in recompute, first with the inputs as roots too, where that removes more
    (``_contractions``).  A contracted game's optimum is at most the DAG's, so every level its
    search proves is a lower bound here, its evidence naming the contraction
    (``contracted``).  A contracted schedule below the DAG's best is a lower bound too (the
    contracted optimum, once its search is complete) and is expanded onto the DAG
    (``unfold.expand_chains``): if that replays at M it is the optimum.  If it does not, the
    next contraction, then the search on the DAG itself, takes the time left (the contracted
    optimum lies below the DAG's there).  Returns the last search's result and where it ran,
    for the record ("" or " on the contracted DAG")."""
    for contracted, lemma in _contractions(st, variant):
        result = _run_on_contracted(st, claim, variant, max_states, contracted, lemma)
        if not result.complete or st.lower >= _below(st, claim) or st.out_of_time():
            return result, " on the contracted DAG"
    return _run_exhaustive(st, claim, variant, max_states), ""


def _contractions(st: _State, variant: Variant) -> list[tuple[DAG, str]]:
    """The contracted DAGs to search before the DAG, each with its lemma's text
    (``lemmas.contractions``: in recompute the one with the inputs as roots first); none
    unless ``st.contract``."""
    return contractions(st.dag, not variant.at_most_once) if st.contract else []


def _run_on_contracted(st: _State, claim: int | None, variant: Variant, max_states: int,
                       contracted: DAG, lemma: str) -> SearchResult:
    """``_run_exhaustive`` on ``contracted`` (by ``lemma``), below the DAG's best;
    the level it proves raises the DAG's lower bound, its schedule expanded is kept if it
    replays and is cheaper."""
    sub = _State(contracted, st.memory, variant, st.seed, st.deadline, st.progress, st.start,
                 None, _below(st, claim), st.lower, st.lower_evidence, rlimit=st.rlimit,
                 max_states=st.max_states, timeout=st.timeout, abstraction=st.abstraction,
                 processes=st.processes)  # its best: a contracted schedule, once it has one
    roots = " (inputs as roots)" if CONTRACTIONS[lemma] else ""
    st.report(f"the DAG with its chains contracted{roots}: "
              f"{len(contracted)} vertices, not {len(st.dag)}")
    try:
        result = _run_exhaustive(sub, claim, variant, max_states)
    finally:
        if sub.lower > st.lower:
            st.raise_lower(sub.lower, _contracted_evidence(st, variant, sub.lower_evidence,
                                                           lemma))
    if sub.best is not None and sub.upper < st.upper:
        _expanded(st, sub.best, CONTRACTIONS[lemma])
    return result


def _contracted_evidence(st: _State, variant: Variant, evidence: Evidence,
                         lemma: str) -> Evidence:
    """The evidence of a level proved on the DAG contracted by ``lemma`` in ``variant``, for
    the verdict on the DAG: the contraction named, and the single-use lemma too if
    ``variant`` is not the verdict's (``_record``)."""
    if evidence.kind != "exhaustive-search":
        raise InternalError(f"the search on the contracted DAG proved its level by "
                            f"{evidence.kind!r}, not by an exhaustive search")
    return Evidence(evidence.kind, {**evidence.detail, "contracted": lemma,
                                    **_other_variant(st, variant)})


def _other_variant(st: _State, variant: Variant) -> dict:
    """The evidence fields of a level proved in ``variant`` for a verdict in another (one-shot
    for recompute, ``_equal_optima``): the variant searched and the lemma, which the checker
    re-derives; none in the verdict's own variant."""
    return {} if variant == st.variant else {"searched": variant.name, "lemma": SINGLE_USE}


def _expanded(st: _State, schedule: Schedule, inputs: bool) -> None:
    """Keep ``schedule`` of the contracted DAG (``inputs``: as roots), expanded onto the DAG,
    as the best if it replays at M in the verdict's variant and beats the best known."""
    expanded = unfold.expand_chains(schedule, st.dag, inputs)
    if expanded.io < st.upper and replay(st.dag, expanded, st.memory, st.variant).ok:
        st.best = checked(st.dag, expanded, st.memory, st.variant, expanded.io,
                          "the schedule of the contracted DAG, expanded")
        st.upper = expanded.io


def _searched_variant(st: _State) -> Variant:
    """The variant the exhaustive search runs in: the verdict's, or one-shot for a recompute
    verdict where the single-use lemma makes the optima equal (``_record``)."""
    return ONE_SHOT if _equal_optima(st, ONE_SHOT) else st.variant


def _equal_optima(st: _State, variant: Variant) -> bool:
    """Whether a lower bound proved in ``variant`` is one in the verdict's variant: the
    same variant, or one-shot for recompute under the single-use lemma."""
    if variant == st.variant:
        return True
    return (variant.at_most_once and not st.variant.at_most_once
            and single_use_lemma(st.dag))


# The beam searches before the exhaustive one (``_beam``): with a timeout, at most this share of
# the time left; without one, at most this many successors (a work budget, the same on every
# machine: about 5 s here in one-shot).  A cap with a timeout would cut the widest beams of
# the largest cells (attention_backward(2,1) at M = 8, one-shot, 600 s: 30 at width 64, and
# width 256, which finds 26, needs 933,282 successors more).  A sixth, not a tenth: in the
# recompute route's one-shot sub-search of approximate_attention(2,1,2) at M = 5 (30 s of 60),
# width 1,024 finds the optimum 20 after 3.3 s of beams, and a tenth (3 s) stopped it at 21.
BEAM_SHARE = 1 / 6
BEAM_SUCCESSORS = 1_000_000


def _beam(st: _State, claim: int | None) -> None:
    """Beam searches in the verdict's variant (``ioverify.game.beam``) for a schedule below the
    best known, so that the exhaustive search after them stores only what lies below a tighter
    limit (approximate_attention(2,1,2) at M = 6, one-shot: greedy 21, beam 17 in 0.1 s, the
    optimum).  Within BEAM_SHARE of the time left, or, without a timeout, BEAM_SUCCESSORS
    successors; what it finds is replayed and becomes the upper bound, nothing it does is a
    lower bound."""
    if st.out_of_time():
        return
    below = _below(st, claim)
    st.report(f"beam search in {st.variant.name} below {below}")
    with _share(st, BEAM_SHARE):
        found = beam_schedule(st.dag, st.memory, st.variant, below=below,
                              max_successors=BEAM_SUCCESSORS if st.deadline is None else None,
                              deadline=st.deadline)
    if found is not None and found.io < st.upper:
        st.best = checked(st.dag, found, st.memory, st.variant, found.io,
                          f"the {st.variant.name} beam search")
        st.upper = found.io


def _compute_steps(dag: DAG) -> int:
    """The one-shot encoding's horizon: one step per useful non-input vertex."""
    return sum(1 for v in dag.useful if not dag.is_input[v])


def _run_exhaustive(st: _State, claim: int | None, variant: Variant, max_states: int):
    """One exhaustive search in ``variant`` below the best known I/O (and the claim).  A
    schedule it finds is replayed in the verdict's variant and becomes the upper bound; the
    lower bound it proves counts only in the verdict's own variant.

    With the abstraction bound and a timeout, the search with the bound and the search
    without it share the time and the state cap (``_race``; with ``st.processes`` > 1 each
    has the whole time on a core of its own, ``apart.race_apart``), and the higher level
    proved stands.  The bound's restricted searches can cost more than they prune
    (approximate_attention(2,1,2) at M = 5, one-shot, disjoint parts: 1,556 configurations
    in 40 s, level 14, against 1,263,464 and level 19 without it) or far less
    (attention_forward(2,2) at M = 4, one-shot: level 30 against 25), and which way it goes
    is seen only by running both."""
    bound, kind = _abstraction(st, variant) if st.abstraction else (None, None)
    if bound is None or st.deadline is None:
        return _search_once(st, claim, variant, max_states, bound, kind)
    below = _below(st, claim)
    what = f"exhaustive {variant.name} search below {below}"
    st.report(f"{what} ({kind} bound and none, "
              f"{'on two processes' if st.processes > 1 else 'sharing the time'})")
    with _heartbeat(st, what):
        results = _race_with(st, bound, kind, variant, below, max_states)
    for result, use_kind in zip(results, (kind, None)):
        _record(st, variant, result, use_kind)
    done = [result for result in results if result.complete]
    return done[0] if done else max(results, key=lambda result: result.lower_bound or 0)


def _race_with(st: _State, bound, kind: str, variant: Variant, below: int,
               max_states: int) -> list[SearchResult]:
    """The results of the search with ``bound`` (of ``kind``) and the search without it,
    racing: on two processes (``apart.race_apart``) when ``st.processes`` > 1 and the child
    starts, else taking turns here (``_race``).  A search of the race that runs out of memory
    stops at its level and the other goes on (``apart.stop_out_of_memory``); out of memory
    anywhere else here, the levels the runs here proved are kept (``_keep_levels``)."""
    def run(use):
        return engine.search().ExhaustiveRun(st.dag, st.memory, variant, below=below,
                                             deadline=st.deadline, max_states=max_states,
                                             bound=use, deepen=getattr(use, "capped", False))

    runs = [run(bound)]
    try:
        if st.processes > 1:
            results = apart.race_apart(runs[0], st.deadline, max_states, st.processes,
                                       st.report, st.proved_so_far)
            if results is not None:
                return list(results)
        runs.append(run(None))
        return _race(st, runs, max_states)
    except MemoryError:
        _keep_levels(st, variant, runs, [kind, None])
        raise


def _keep_levels(st: _State, variant: Variant, runs: list[ExhaustiveRun],
                 kinds: list[str | None]) -> None:
    """Out of memory, as out of time: the level each of ``runs`` proved when it last paused
    stands (``ExhaustiveRun.stopped``; matmul(3,3,3) at M = 10 in one-shot had proved none
    below 31 when it ran out at 403 s, and answered [27, 35]).  Each run's configurations
    are let go before anything is recorded (``kinds``: the bound each used, for the
    evidence)."""
    results = [apart.stop_out_of_memory(run) for run in runs]
    for result, kind in zip(results, kinds):
        _record(st, variant, result, kind)


# ``_race``: a slice is RACE_SLICES-th of the time left (at least MIN_SLICE s).  The share
# kept by the search behind: one TRAIL_EVERY-th of the time.
RACE_SLICES = 40
MIN_SLICE = 0.5
PROBE = apart.PROBE
TRAIL_EVERY = 4


def _race(st: _State, runs: list[ExhaustiveRun], max_states: int) -> list[SearchResult]:
    """Advance ``runs`` (two paused ``ExhaustiveRun``) a slice at a time until one finishes
    or the time is up, together storing at most ``max_states`` configurations (the run given
    a slice may fill what the other leaves).  The slice goes to the run that has searched
    less until each has had PROBE of the time (the search with the bound first), then to the
    one AHEAD (``_ahead``: the higher level forecast for the end, from each search's level
    as a function of its own time, recorded after each slice), unless the other has had
    less than one TRAIL_EVERY-th of the time spent, in case the forecast is wrong.  Time is
    counted as spent, not in slices: a search pauses only between two configurations, and
    one configuration of the search with the bound can take seconds (its restricted
    searches).  A run that runs out of memory stops where it last paused
    (``apart.stop_out_of_memory``: its level stands, its configurations are let go) and the
    other goes on alone.  Returns both results: the finished ones as they finished, the
    others stopped where they paused (their level is proved)."""
    total = st.remaining()
    slice_ = max(MIN_SLICE, total / RACE_SLICES)
    history: list[list[tuple[float, int]]] = [[], []]
    results: list[SearchResult | None] = [None, None]
    base = [run.seconds for run in runs]  # building a run is not racing
    ahead = 0
    while not st.out_of_time():
        live = [i for i in (0, 1) if results[i] is None]
        if len(live) < 2 and (not live or results[1 - live[0]].complete):
            break
        spent = [run.seconds - start for run, start in zip(runs, base)]
        if len(live) == 1:
            pick = live[0]
        elif min(spent) < PROBE * total:  # probing: the one behind, the bound's first
            pick = 0 if spent[0] <= spent[1] else 1
        else:
            ahead = _ahead(history, spent, ahead, st.remaining())
            pick = 1 - ahead if spent[1 - ahead] < sum(spent) / TRAIL_EVERY else ahead
        try:
            results[pick] = runs[pick].advance(min(st.deadline, time.monotonic() + slice_),
                                               max(1, max_states - runs[1 - pick].states))
        except MemoryError:
            results[pick] = apart.stop_out_of_memory(runs[pick])
            continue
        if results[pick] is not None and results[pick].complete:
            break
        apart.relieve(runs[pick], st.report)
        if runs[pick].level is not None:
            history[pick].append((runs[pick].seconds - base[pick], runs[pick].level))
            st.proved_so_far(runs[pick].level)
    return [result if result is not None else run.stopped("time shared out")
            for result, run in zip(results, runs)]


def _ahead(history, spent: list[float], ahead: int, left: float) -> int:
    """Which of the two runs is AHEAD (``_race``): the one whose level, forecast for the end
    if it had all of the ``left`` seconds, is higher; on a tie ``ahead`` stays.  ``spent``:
    the seconds each has searched."""
    forecast = [apart.forecast(history[i], spent[i], left) for i in (0, 1)]
    if forecast[0] == forecast[1]:
        return ahead
    return 0 if forecast[0] > forecast[1] else 1


def _below(st: _State, claim: int | None) -> int:
    return st.upper if claim is None else min(claim, st.upper)


def _advance_noting(st: _State, run: ExhaustiveRun) -> SearchResult:
    """``run`` to its end, paused every HEARTBEAT seconds to note the level it proved so far
    for the progress lines (a pause falls between two configurations: it changes nothing the
    search does), and squeezed there if memory is short (``apart.relieve``)."""
    while True:
        result = run.advance(time.monotonic() + HEARTBEAT)
        if result is not None:
            return result
        apart.relieve(run, st.report)
        st.proved_so_far(run.level)


def _search_once(st: _State, claim: int | None, variant: Variant, max_states: int, bound,
                 kind: str | None):
    """One exhaustive search; without a bound, with a timeout and ``st.processes`` > 1, its
    expansions made on that many processes (``ioverify.search.farm``), else here."""
    below = _below(st, claim)
    what = f"exhaustive {variant.name} search below {below}"
    farmed = bound is None and st.deadline is not None and st.processes > 1
    st.report(what + (f" ({kind} bound)" if bound is not None else
                      f" (expansions on {st.processes} processes)" if farmed else ""))
    with _heartbeat(st, what), _farm(st, variant, farmed) as workers:
        run = engine.search().ExhaustiveRun(st.dag, st.memory, variant, below=below,
                                            deadline=st.deadline, max_states=max_states,
                                            bound=bound, farm=workers,
                                            deepen=getattr(bound, "capped", False))
        try:
            result = _advance_noting(st, run)
        except MemoryError:
            _keep_levels(st, variant, [run], [kind])
            raise
    _record(st, variant, result, kind)
    return result


@contextmanager
def _farm(st: _State, variant: Variant, wanted: bool):
    """``st.processes`` expansion workers for a search in ``variant`` (``farm.workers``), or
    None when not ``wanted`` or none could be started."""
    if not wanted:
        yield None
        return
    with farm.workers(st.dag, st.memory, variant.name, st.deadline, st.processes) as workers:
        yield workers


def _record(st: _State, variant: Variant, result: SearchResult, kind: str | None) -> None:
    """Keep what an exhaustive search found (its schedule, replayed) and proved (its level,
    in the verdict's own variant or one with the same optima, ``_equal_optima``, named in the
    evidence with the lemma; ``kind``: the abstraction bound it used, a hint for the
    certificate checker to re-run it quickly, never a premise)."""
    if result.optimum is not None and result.optimum < st.upper:
        st.best = checked(st.dag, result.schedule, st.memory, st.variant, result.optimum,
                          f"the exhaustive {variant.name} search")
        st.upper = result.optimum
    if _equal_optima(st, variant) and result.lower_bound is not None:
        detail = {"states": result.states, "below": result.lower_bound,
                  **_other_variant(st, variant)}
        if kind is not None:  # how to re-run it quickly; any admissible heuristic agrees
            detail["heuristic"] = kind
        st.raise_lower(result.lower_bound, Evidence("exhaustive-search", detail))


# Of the search's time, for the abstraction bound at the start, by the variant's at_most_once:
# recompute restricted games are dearer (attention_forward(2,2) at M = 3: one-shot 0.1 s,
# recompute 5.5 s with the rows sharing their inputs, 15 s with the disjoint rows), and their
# start value lifts the recompute level most (there 46 against the 37 of a minute without it).
ABSTRACTION_SHARE = {True: 0.25, False: 1 / 3}
# The start value must beat the trivial bound by this much (or a quarter of it) for the bound to
# be used: each configuration then costs restricted searches, which a small gain does not repay
# (attention_forward(2,1) recompute, M = 4: start value 10 against 8, 47 s with it, 19 s without).
ABSTRACTION_MARGIN = 3


# Of that time, the kind with fewer distinct restricted games (tried first) may take all of it,
# the others an even share of what is left: its searches are the fewest, the likeliest to
# finish, and a start value cut short is time lost whole, while the other kind, with more
# restricted games, seldom finishes in what a smaller share would leave it
# (attention_forward(2,2) at M = 3, recompute, 60 s: the rows sharing their inputs reach 46 in
# 13.8 s alone, the disjoint rows 41 in 35.2 s; with half the share, then three quarters
# (about 13.8 s there), the first was stopped, and the cell fell from [46, 52] to [36, 52]; with
# all of it, [46, 52]).
FIRST_KIND_SHARE = 1.0


def _ceilings(st: _State, variant: Variant,
              bounds: list[tuple[str, list[int], abstraction.AbstractionBound]],
              group: list[tuple[int, ...]]) -> list[float]:
    """Per bound of ``bounds``, a value its start value cannot pass (INFINITY: none known).
    In recompute, the one-shot bound over the same parts at the start: every one-shot schedule
    of a part's restricted game is a recompute one, so each part's recompute optimum is at most
    its one-shot optimum, and so is their sum.  One-shot restricted searches are cheap (each
    vertex computed once), and the two values nearly always agree (attention_forward(2,2) at
    M = 3: 46 and 41 in both variants; the disjoint rows' recompute value takes 9.3 s, both
    one-shot values under 0.1 s).  Whether a kind is computed is all that hangs on it.
    ``group``: the automorphisms to key the parts' values by, as for ``bounds``."""
    if variant.at_most_once:
        return [INFINITY] * len(bounds)
    ceilings = []
    for _, parts, _ in bounds:
        try:
            once = abstraction.AbstractionBound(st.dag, st.memory, ONE_SHOT, parts,
                                                deadline=st.deadline, nested=False, group=group)
            ceilings.append(once.root(st.dag))
        except DeadlineReached:
            ceilings.append(INFINITY)
    return ceilings


def _abstraction(st: _State, variant: Variant):
    """(the abstraction bound, its kind) for the exhaustive search in ``variant``
    (``ioverify.game.abstraction``), over the disjoint parts or the parts sharing their inputs,
    whichever is higher at the start (computed within ABSTRACTION_SHARE of the time left, the
    kind with fewer distinct restricted games first with FIRST_KIND_SHARE of it (all of it),
    each other an even share of what is left; without a timeout, within the restricted
    searches' state cap), if
    that value beats the trivial bound by ABSTRACTION_MARGIN or a quarter of it; else (None, None):
    it would see little the search's own heuristic does not, and cost time at every
    configuration.  A kind whose ceiling (``_ceilings``) cannot beat the value in hand, or the
    trivial bound by that margin, is not computed."""
    best, trivial = None, trivial_lower_bound(st.dag)
    margin = max(ABSTRACTION_MARGIN, trivial // 4)
    try:  # the parts cost passes over the DAG: seconds past the deadline on 43,440 vertices
        kinds = [(kind, parts) for kind, share_inputs in abstraction.KINDS.items()
                 if (parts := abstraction.parts_of(st.dag, share_inputs=share_inputs,
                                                   deadline=st.deadline))]
    except DeadlineReached:
        return None, None
    with _share(st, ABSTRACTION_SHARE[variant.at_most_once]):
        # Flat: the nested split makes the start value slower (attention_forward(2,2), M = 3:
        # 7.3 s against 2.2 s) for a small gain later (docs/performance.md).
        # One group for every bound here (each keeps the automorphisms that map its parts
        # onto parts, ``AbstractionBound.key_by``).
        group = symmetry.checked_automorphisms(st.dag, _Symmetry.MAX_GROUP, st.deadline)
        try:
            bounds = [(kind, parts, abstraction.AbstractionBound(
                          st.dag, st.memory, variant, parts, deadline=st.deadline,
                          nested=False, group=group))
                      for kind, parts in kinds]
        except DeadlineReached:  # building them on a DAG of many vertices ran out of time
            return None, None
        # Parts the automorphisms map onto each other share their restricted searches
        # (``AbstractionBound.key_by``): the kind with fewer is likelier to finish in time.
        bounds.sort(key=lambda item: len(set(item[2].home)))
        # A kind whose start value cannot beat the one in hand, or the trivial bound by the
        # margin, is not computed (``_ceilings``).
        ceilings = _ceilings(st, variant, bounds, group)
        for i, (kind, _, bound) in enumerate(bounds):
            if ceilings[i] < max(best[0] + 1 if best else 0, trivial + margin):
                continue
            with _share(st, FIRST_KIND_SHARE if i == 0 and len(bounds) > 1
                        else 1 / (len(bounds) - i)):
                bound.set_deadline(st.deadline)
                try:
                    root = bound.root(st.dag)
                except DeadlineReached:
                    continue
            if best is None or root > best[0]:
                best = (root, bound, kind)
    if best is None or best[0] < trivial + margin:
        return None, None
    best[1].set_deadline(st.deadline)
    return best[1], best[2]
