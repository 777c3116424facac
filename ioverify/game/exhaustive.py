"""Exhaustive optimal search over configurations of the red-blue pebble game (both variants).

The differential oracle for the Z3 search, and the horizon-free optimum for the recompute
variant: the configuration graph is finite, so a shortest-path search over it covers schedules
of every length.  Rules: docs/theory.md §1, exactly as ``ioverify.game.replay`` checks them.

A state is a tuple of bitmasks ``(R, B, F)`` (red, blue, fresh: red vertices computed and not
used since) and, for ``one-shot``, C (vertices computed so far), packed into one int.  Cost is
I/O (load, store: 1; compute, delete: 0).  The search is A* with a consistent heuristic over a
bucket queue, so the first goal popped is optimal (a restricted search that learns from earlier
ones, ``_Search.learn``: an admissible heuristic, f kept from falling, closed configurations
reopened).

It explores only schedules in a NORMAL FORM.  Take any legal complete schedule S, and among the
schedules (of the same variant) with I/O <= io(S) one, S*, with the fewest I/O and then the
fewest computes.  The rewritings below never add I/O or computes (and keep one-shot schedules
one-shot), so applied to S* they cannot remove any either (S* is minimal): they only rearrange
moves.  The schedule they produce from S* is in the normal form and is no worse than S, so the
search, which covers every normal-form schedule, finds the optimum.

(N1) Useless vertices are never touched.  Let U be the vertices from which no output is
     reachable.  U is closed under successors, so dropping every move on U leaves each other
     move legal (no compute outside U needs a U vertex red; R only shrinks, so capacity holds)
     and the outputs (not in U) still end blue.
(N2) Lazy loads: a load of v is followed, with only deletes, stores and other such loads in
     between, by a compute having v as a predecessor.  Take a load of v at t and the first
     later move t2 that computes a successor of v or deletes v (or the end).  v is red in
     (t, t2), so no move there touches v (compute and load need v not red, a store needs v
     not blue).  If t2 deletes v or is the end, drop the load (and the delete); else move the
     load to just before t2: R is smaller in between, and at the new place R is as S's just
     before t2, which fits with the computed vertex.  Call the moves between two computes,
     with the second compute c, the *block* of c; its loads are of predecessors of c.
(N3) Deletes first: the deletes (with their stores) of a block move to its start.  A vertex
     deleted in a block was red at its start: it was not loaded there (N2 keeps a loaded
     vertex red until c) and nothing is computed inside a block.
(N4) Lazy deletion, sparing c's predecessors: rewrite S into S' keeping R' >= R and
     B' >= B: drop S's deletes; when S places v (a load or a compute), skip it if v is in R'
     already, else place it if |R'| < M, else evict (delete) some u in R' \\ R that is not a
     predecessor P of the block's c, then place v.  Such u exists: if R' \\ R were inside P,
     then, as S deletes nothing more before c (N3) and only loads P, S's red set just before
     c would contain R' (M vertices) and leave no room for c.  Loads stay legal (B' >= B),
     computes too (predecessors in R <= R'); a store of a vertex already blue in S' is
     dropped.  On S* nothing is skipped (that would save a load or a compute), so loads stay
     where N2 put them, c is not red at its block's start (else keeping c and evicting one
     vertex fewer would save the compute), and a block evicts exactly
     max(0, |R| + |P \\ R| + 1 - M) vertices, none in P, none loaded in the block: they
     can all be evicted at the block's start.
(N5) Postponed stores: a store of u happens only immediately before the delete of u, or at
     the end on an output.  Blue on u is used only by a load of u, which needs u not red, so
     while u stays red the store can wait; a store moved to the end serves nothing unless u
     is an output.
(N6) Fresh vertices are not thrown away: a vertex computed and not used since as a
     predecessor (F, fresh) is stored when it is evicted, so a fresh vertex with blue is never
     evicted.  Otherwise dropping its compute (and that delete) would leave every move legal
     (nothing touches it while it is red): a schedule with the I/O of S* and one compute
     fewer, against the minimality of S* (the rewritten schedule has S*'s counts).
(N7) Stopping early: once every output is red or blue, storing the red non-blue outputs ends
     the game at a cost every completion must pay anyway (each needs a store), so the search
     treats such a state as a goal with that final cost.
(N8) Symmetry: configurations are kept up to the automorphisms of the DAG (``_Symmetry``).

(N9) Other starts and restricted games.  Nothing in N1-N7 (nor N10, N11, N13-N15 below; N12 asks
     for a one-shot start the game reaches) uses that the start is the game's
     own: from any configuration (R0, B0, C0) with |R0| <= M, taking no vertex as fresh (and,
     in recompute, none as owed), the
     same rewritings apply to an optimal schedule from it (N1 with one change: a useless
     vertex red at the start may be deleted, which a block's eviction covers), so the search
     started there (``start_state``) finds the optimum from there.  Nor does any of them use
     that a vertex with no predecessor is an input: they hold for the RESTRICTED GAME of a
     vertex set P (``_Search(part=P)``), the game in which only P's vertices carry pebbles,
     count against M, are loaded, stored, computed and deleted, P's inputs start blue, P's
     outputs must end blue, and computing v in P needs only v's predecessors IN P red (those
     outside P are free).  Its optimum from a configuration is ``restricted_optimum``; that it
     bounds the real game is argued in ``ioverify.game.abstraction``.

(N10) Every store of a vertex that is not an output is followed, later, by a load of it.  Blue
     on v serves only loads of v (a store needs v without blue, and blue is never taken
     away), so dropping a store that no load of v follows leaves every move legal and the
     outputs blue: one transfer fewer, against the minimality of S* (of any weight, N9).
(N11) Nothing DEAD is touched.  Call v dead in a configuration when every output reachable
     from v (v itself if it is an output) has blue.  After any time t, S* loads, stores and
     computes no vertex dead at t.  Let D be the vertices dead at t: D is closed under
     successors (a successor reaches fewer outputs), so no predecessor of a vertex outside D
     is in D, and blue is never taken away, so D stays dead.  Drop every load, store and
     compute of a D vertex after t, and every delete of a D vertex not red any more in the
     new schedule.  A D vertex red in the new schedule was red at t and not deleted since by
     S*, so red in S* too: the red set only shrinks, capacity holds; the moves kept on
     vertices outside D see the same pebbles on their predecessors; the outputs in D were
     blue at t, the others are treated as before.  Fewer transfers or computes if anything was
     dropped, against the minimality of S*.  So the search computes only live vertices
     (recompute; in one-shot every vertex still to compute is live, below) and stores only
     live ones.
(N12) One-shot stores are determined.  Call a configuration REACHABLE when every computed
     vertex has its predecessors that are not inputs computed, and every vertex with a
     pebble that is not an input is computed: every configuration of a one-shot game
     started at its start, or the restriction of one to a part (N9), is.  In a reachable
     configuration a useful vertex s not computed yet reaches an output o, along vertices
     none of which is computed (a computed one would make the path's first vertex computed),
     so o has no pebble and must be computed, hence so must s and every vertex on the way.
     Then, for an evicted vertex u without blue: if u is an output, or has a useful successor
     not computed, u is needed red again (to end blue, or as a predecessor of that
     successor) and, computed already, can get red again only by a load, so blue only by a
     store now: leaving it unstored leaves no completion.  Otherwise u is no output and
     every useful successor is computed, so no compute of the rest needs u (one-shot), and
     by N2 and N10 S* does not store it.  So a one-shot block stores exactly its evicted
     vertices without blue that are outputs or have a useful successor not computed; the
     search refuses to start a one-shot game anywhere but at a reachable configuration.
(N13) Garbage is deleted as soon as it is made.  A red vertex is GARBAGE when it is dead
     (N11; recompute), or, in one-shot, when it is no output without blue and has no useful
     successor left to compute.  Garbage stays garbage (blue and C only grow), and S* only
     deletes it: it computes it no more (one-shot: its useful successors are computed, N1
     leaves the others; recompute: N11), loads it no more (N2: a load is followed by a compute
     with it as a predecessor, which would be one of those), and so stores it no more (N10).
(N14) Finished outputs are stored at once.  A red output without blue is FINISHED when it has
     no useful successor left to compute (one-shot) or none live (recompute).  Let o be
     finished at t.  S* stores o exactly once, at some t2 > t (it must end blue; a store needs
     o without blue).  Move that store to t: o is red at t, and blue on o earlier only allows
     more loads, so the schedule stays legal with S*'s counts, hence minimal; in it o is no
     longer needed (one-shot: no compute needs it; recompute: o is dead from t on, N11), so
     it only deletes o.  Storing o can finish another output in recompute (its successors
     may die with o); repeating the argument stores those at t too.  Call SPENT the vertices
     garbage once the finished outputs are stored.
     Some normal-form schedule with S*'s counts evicts SPENT FIRST: a block that evicts a
     vertex not spent evicts every vertex red and spent at its start.  Apply N4 to S with, at
     the end of each block, the stores of the outputs it finishes and the deletes of the
     vertices it leaves spent (legal by the above; N4 drops S's deletes, so only S's red set
     R changes), and let the construction prefer, when it evicts, a vertex spent at the
     block's start: red in R' and deleted by S, it is in R' \\ R, and it is no predecessor
     of c (c, a useful successor not computed, or live, would keep it from being spent).
     The rest of N4 stands, and N5-N12 do not change which vertices a block evicts.  Then
     move, to the end of every block of that schedule, the stores of the outputs it leaves
     finished and the deletes of all its red spent vertices.  A block's count
     |R| + |P \\ R| + 1 - M drops by the g spent vertices it no longer holds (none is in P),
     and the block evicts the vertices it evicted that are not spent: exactly
     max(0, count - g), by spent first (if it evicted one that is not spent, all g were among
     its evictions; else it needs none).  F loses nothing: S* holds no fresh spent vertex (in
     one-shot a fresh vertex has a useful successor left to compute, or is an output, which
     when spent is stored and deleted at once; in recompute a fresh dead vertex's compute
     serves nothing, neither before, as it is fresh, nor after, by N11, against the
     minimality of S*).  So a block ends by storing the outputs it finishes and deleting the
     vertices it leaves spent (one-shot: c and those predecessors whose last useful successor
     c was; recompute: what the blue of stored outputs leaves dead), and every configuration
     the search reaches after a block holds neither.  From a start that holds some (N9) the
     first block's evictions cover every choice.
(N15) Owed loads (recompute).  A vertex is stored at most once (a store needs it without blue,
     and blue is never taken away), and in a schedule of least I/O every store of a vertex
     that is no output is followed by a load of it (N10).  So the search keeps, in C's place,
     the set O of the vertices stored, no output, and not loaded since: each is OWED a load.
     No owed vertex is dead (N11: a dead vertex is never loaded again), and a configuration
     with every output red or blue is a goal (N7) only when nothing is owed: a schedule of
     least I/O ends there by storing the outputs, so it owes nothing there.  The count
     (``_Search.heuristic``) charges each owed load at once.
(N16) Eager computes (one-shot, the game itself).  At a configuration X = (R, B, C) between
     blocks with |R| < M, call a vertex c EAGER when it is useful, not computed, all its
     predecessors are red, and one predecessor p has c as its only useful successor not
     computed and is either without blue and no output, or blue while c is an output.  Then
     for every legal completion s from X there is one s' from X that first computes c, with
     no more I/O and the same computes.  Take s with the fewest computes (so, by N1, it
     computes each useful vertex not computed once and nothing else): it computes c at some
     t, and before t no move of s uses p as a predecessor (c is its only useful successor
     left) and none touches c (not computed, so without pebbles, N12).  Let s' compute c at
     once (room: |R| < M) and delete p, then play s with every move on p before t made on c
     instead (c is red, or blue, in s' exactly when p is in s: the red sets have the same
     size), leave out s's compute of c and every move on p after t (nothing needs p then:
     not red it is no output without blue) and every store of a vertex already blue.  If p
     has no blue, s stores p before t exactly when s' stores c, for the same cost.  If p is
     blue and c an output, s may delete p and load it again before t, which s' can follow
     only by storing c before its first such delete: one store more, and one fewer at the
     end, where s must store the output c and s' finds it blue.  Every move is legal (a
     compute that needed p needed it at t only), capacity holds, the outputs end blue.  Now
     take the normal form of an optimal schedule with the fewest computes that, among
     those, follows the rule longest: at each configuration between its blocks where an
     eager vertex exists, its next block computes one.  If it broke the rule at a
     configuration X, the rewriting of its rest from X gives a schedule of the same I/O and
     computes, and the rewritings N2-N14, which change a schedule only where it is not yet
     in their form and leave every choice they make (the evictions of N4 and N14) to be made
     as the schedule made it, keep its blocks up to X and the block of c, which evicts and
     loads nothing (N4: no room is lacking): it follows the rule longer, a contradiction.
     So at a configuration with an eager vertex the search takes only that block, for ONE
     eager vertex, whichever it is (the argument holds for each, so for any choice made as
     a function of the configuration): the least in vertex order (``_Search._eager``) of the
     configuration it expands, which under N8 is the image of one eager vertex of each
     configuration of its orbit.  The configurations stored are fewer (attention_forward(3,1) at
     M = 8: 2,468,146 to 867,353), and the searches that prove less than the optimum (a
     level, a ``below``) prove a bound on schedules of this form, which some optimal
     schedule has.  In recompute c may be computed again and p with it, and the
     rewriting fails; the restricted games of the abstraction bound (N9) are left as they
     were.

(N17) Idle blue is forgotten.  Call a vertex IDLE when it is no input, no output, not red, not
     owed (recompute, N15) and either computed with no useful successor left to compute
     (one-shot) or dead (recompute, N11), and two configurations TWINS when they differ only
     in the blue of vertices idle in both (whether a vertex is idle reads no blue but the
     outputs').  Twins have the same blocks, of the same costs, to twins, the same eager
     vertices, the same goal status and the same heuristic, so the same optimum: no rule
     reads the blue of an idle vertex.  Loads are of predecessors of c, which is useful and
     not computed (one-shot) or live (recompute), so they are not idle; stores and evictions
     are of red vertices; N12-N14 read the blue of outputs and of red vertices, N16 that of
     predecessors of c, MUST (``heuristic``) that of outputs and of predecessors of MUST
     vertices (useful and not computed, or live); in a part's restricted game (N9) an idle
     vertex is idle too (a useful successor within P is useful, a pending output reachable
     within P is one reachable), so the abstraction bound is the same.  A block makes red only
     c and its predecessors, none idle before it, owes only what it stores, which was red,
     and idle vertices stay idle (C and the outputs' blue only grow): the results are twins.
     So the search keys a configuration without the blue of its idle vertices
     (``_Search.idle_dropped``): a one-shot block drops it from the vertices it leaves spent
     that are no input or output (a vertex becomes idle only when its last useful successor
     c is computed, with it red as c's predecessor), and a recompute block that stores an
     output drops it from what that leaves dead (only an output's blue changes what is
     live).  The certificate checker (``ioverify.certificate.closed``) proves the same lemma
     from its own rules and looks a configuration up with and without that blue.  Merging
     twins cuts the configurations of one-shot searches 1.5 to 5 times
     (approximate_attention(2,1,2) at M = 4 below 26: 559,521 to 178,705), where a vertex
     stored and later used for the last time keeps a blue pebble that no rule reads.

(N18) Single demand (recompute, the game itself from its start).  Let c(u) be the demand counts
     of ``ioverify.game.lemmas.compute_demands`` and SINGLE the needed non-inputs with c(u) = 1:
     an output with no needed successor, or no output with one needed successor nxt(u), itself
     single; chain(u) is u, nxt(u), nxt(nxt(u)), ... up to that output.  The lemma's marked
     part of S* has no more I/O and no more computes (its proof), so, S* being minimal, it
     keeps every compute of S*: every compute of u in S* is MARKED, the last placing of u
     before a marked compute of a successor, or before the first store of u if u is an
     output, and u is computed at most c(u) times.  The normal form has the same moves (the
     rewritings move S*'s moves and drop none), so the same holds there.  A single vertex is
     computed at most once, and at every configuration after the start a single u has been
     computed iff a vertex of chain(u) has a pebble.  If: a non-input gets a pebble only by a
     compute or by a load after a store of it red, and computing nxt(v) needs v red.  Only
     if: were u computed and chain(u) without pebbles, its output, which ends blue, would be
     computed again later (it can get red only so), hence, back along the chain, u too:
     twice.  Call a single vertex with a pebble on its chain DONE: computed, and never again.
     Hence (a) a block never computes a done vertex; (b) a vertex u, no output, whose needed
     successors are all single and done (u single: nxt(u) done) is DEAD: S* uses it as a
     predecessor no more (N1: it computes only needed vertices), so it computes it no more
     (such a compute would be marked by a later compute of a successor), and it loads and
     stores it no more (N2, N10); it stays dead (done vertices stay done), and N11, N13 and
     N14 hold with this larger dead set, as their arguments use only that S* touches no dead
     vertex and that dead stays dead; (c) an evicted single vertex without blue that is
     not dead is stored: else, computed, it would leave its chain without pebbles.  The
     search applies (a)-(c) as functions of the pebbles (``_Search._done``, ``_dead_of``).  Only a
     compute makes a vertex done (a load or a store is of a vertex with a pebble), and only a
     single c's own: a block computing a single c may leave predecessors of c dead (it deletes
     them, as a one-shot block does), and no other block makes anything dead by red.  N17
     forgets the blue of vertices dead in the sense of N11 only, which leaves a pebble on
     every chain that had one (the chain's output, reachable, is blue).  The heuristic bounds
     every completion, so these too.  The searches that prove less than the optimum prove a
     bound on schedules of this form, which some optimal schedule has.  Not in restricted
     games (N9), nor from other starts, nor in a search that keeps its closed configurations
     for a certificate (``ExhaustiveRun``: its checker knows N1-N17).  The configurations it
     saves, searches without a bound on the DAGs contracted with inputs as roots:
     attention_forward(3,1) at M = 8 below 17, 144,287 to 107,433 (20.9 s to 15.5 s, as
     Python); attention_forward(2,1) at M = 3, 7,455 to 4,820.  N16's analogue (compute a
     single c at once when a predecessor single and without blue has it as nxt) saved 1 % more
     there and no time: not kept (docs/explanation/pebbling-search.md).

A move of the search is therefore a *block* for a vertex c that is not red (and, in recompute,
live): evict a set E of |R| + |P \\ R| + 1 - M (or no) vertices outside P, storing, in
one-shot, those N12 names, in recompute every fresh one and any other live one without blue,
load the predecessors P \\ R (they must have blue), compute c, store the outputs that leaves
finished and delete the vertices it leaves spent (N13, N14).  Its cost is the loads plus the
stores.  The found path is expanded into explicit store / delete / load / compute moves and
replayed by the independent replayer before it is returned; a replay failure raises
``InternalError``.
"""

from __future__ import annotations

import gc
import time
from typing import Any
from dataclasses import dataclass
from itertools import combinations

from ioverify._check import integer, positive
from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached, InternalError, InvalidArgument
from ioverify.game.flow import FlowNetwork
from ioverify.game.lemmas import compute_demands
from ioverify.game.replay import replay
from ioverify.game.rules import (COMPUTE, DELETE, LOAD, STORE, Schedule, Variant, check_dag,
                                 check_memory, infeasibility, require_variant)
from ioverify.dag import symmetry

# The variants this search implements (the normal form N1-N18 is proved for these); any other is
# refused with UnsupportedVariant.
IMPLEMENTED = frozenset({"recompute", "one-shot"})

# "No completion": an int, not float("inf"), so that every count and cost of the search is an
# int (the compiled copy, ``ioverify.game.engine``, keeps them as machine words); far above any
# I/O count, and still far from the end of a machine word when a cost is added to it.
INFINITY = 1 << 60
# The clock is read at every expansion and every so many successors within one: on a DAG of
# a thousand vertices one expansion takes a tenth of a second, and its heuristic values a
# millisecond each.
_CHECK_CLOCK_EVERY = 64  # successors
_MEMO_MAX = 1 << 22  # heuristic values remembered (about 0.5 GiB); then the memo starts over
# ``_Search._evictions`` remembers the eviction sets of up to this many candidates (at most
# 70 sets each), for this many candidate sets at a time.
_EVICTION_SET = 8
_EVICTION_MEMO_MAX = 1 << 16
# With at least this many automorphisms (besides the identity) configurations are made
# canonical when popped, not when stored (``_Search.run``): attention_forward(2,2), 15 of them,
# at M = 8 one-shot 19.1 s -> 6.9 s.  With 3 (attention_backward(2,1), approximate_attention,
# attention_forward(2,1)) it was 8 until 2026-11-29, when a canonical key per successor cost
# more than the images stored apart: attention_backward(2,1) at M = 5 one-shot, level 28 after
# 36.1 s -> 17.1 s (2.5 times the configurations); attention_forward(2,1) at M = 3 recompute,
# complete, 13.6 s -> 11.4 s; approximate_attention(2,1,2) at M = 5 one-shot below 20,
# complete, 24.6 s -> 18.6 s (docs/performance.md).
LAZY_GROUP = 3
# ``ExhaustiveRun``'s deepening: each run's limit this many levels past the level proved.
# Two halves the runs that expand every level again, and keeps the asks capped near the level
# being closed (one process, compiled, with the bound; step 1 -> 2 -> 3, 2026-11-30):
# attention_forward(2,2) at M = 3, recompute, none below 52: 64.8 s -> 53.6 s -> 54.9 s (one
# run, not deepened: 53.5 s); sparse_forward(causal 3,1) at M = 3, recompute, none below 35:
# 32.2 s -> 27.7 s -> 27.1 s; attention_forward(2,2) at M = 4, recompute, below 37: level 34
# after 159.7 s -> 143.0 s -> 138.0 s (in one run, level 31 after 178 s, 2026-11-29).
DEEPEN_STEP = 2
# ``farmed_steps``: configurations sent to a process at a time (one expansion takes a tenth of
# a millisecond to a few; a batch, a few milliseconds of a process's work for a round trip).
FARM_BATCH = 32


@dataclass(frozen=True)
class SearchResult:
    """Outcome of ``exhaustive_optimum``.

    ``complete=True, optimum=q``: q is the proven optimum, ``schedule`` replays with I/O q.
    ``complete=True, optimum=None``: no schedule exists (infeasible M), or none with I/O below
    the ``below`` limit.  ``complete=False``: the state or time budget ran out; only
    ``lower_bound`` is proved.  ``lower_bound``: every schedule costs at least this much (when
    A* stops, every configuration of f = g + h below it was expanded, and the optimal path
    always has a configuration of f <= optimum waiting: a consistent heuristic never
    overestimates); None when M is infeasible.  ``states``: distinct configurations stored;
    ``seconds``: wall-clock time of the search.
    """

    optimum: int | None
    schedule: Schedule | None
    complete: bool
    states: int
    seconds: float
    reason: str
    lower_bound: int | None = None
    # ``keep_closed``: the closed configurations (packed keys) with the cost of the cheapest
    # path found to each, and the automorphisms the keys are canonical under; a search
    # certificate (``ioverify.certificate.closed``) when the search finished finding nothing.
    closed: dict[int, int] | None = None
    automorphisms: tuple[tuple[int, ...], ...] = ()

    def __reduce__(self):
        """Pickled by its fields, in order (a search in another process sends its result;
        the compiled copy's class keeps no ``__dict__`` for pickle's default to restore)."""
        return type(self), (self.optimum, self.schedule, self.complete, self.states,
                            self.seconds, self.reason, self.lower_bound, self.closed,
                            self.automorphisms)


def exhaustive_optimum(dag: DAG, memory: int, variant: str | Variant = "recompute", *,
                       below: int | None = None, max_states: int | None = None,
                       deadline: float | None = None, bound=None,
                       keep_closed: bool = False, farm=None,
                       deepen: bool = False) -> SearchResult:
    """The optimal I/O of ``dag`` with ``memory`` red pebbles in ``variant`` (a name or a
    ``Variant``), by A* over configurations (module docstring: normal form N1-N18, heuristic in
    ``_Search.heuristic``).

    ``below``: look only for schedules of I/O < below (proving that none exists is often far
    quicker than finding the optimum).  ``max_states``: stop (incomplete) after storing that
    many distinct states (a work budget: the same cap stops at the same state on every
    machine).  ``deadline``: a ``time.monotonic()`` value after which the search stops
    (incomplete).  ``bound``: a further lower bound on the remaining I/O, admissible and
    consistent (``_Search``), such as ``ioverify.game.abstraction.AbstractionBound``; the
    search then keys configurations only by the automorphisms g with
    ``bound.preserved_by(g)``, which must leave the bound unchanged.  Intended for DAGs of up
    to about 30 vertices.  ``keep_closed``: a search that finishes with no schedule below
    ``below`` returns its closed configurations (``SearchResult.closed``).  ``farm``: the
    expansions made by other processes (``_Search.farmed_steps``, ``ioverify.search.farm``),
    with no ``keep_closed`` (with a ``bound``, each worker holds it: ``completed``).
    ``deepen``: with a capped ``bound``, iterative deepening on the limit (``ExhaustiveRun``):
    the same answer, often sooner.
    """
    result = ExhaustiveRun(dag, memory, variant, below=below, max_states=max_states,
                           deadline=deadline, bound=bound, keep_closed=keep_closed,
                           farm=farm, deepen=deepen).advance()
    if result is None:  # advance() with no pause runs to the end
        raise InternalError("exhaustive search: a run paused with no time to pause at")
    return result


class FewerCollections:
    """A context in which Python's cyclic collector looks at its youngest generation after
    ``YOUNG_COLLECTION`` new containers instead of its default 700, the threshold it had put
    back on leaving.  A search makes millions of short-lived tuples and owns no cycles, so most
    of them die uncollected; results are the same, and five searches of 150,000 to 600,000
    configurations took 6 to 24 % less time in single runs (docs/performance.md)."""

    YOUNG_COLLECTION = 100_000

    def __enter__(self) -> None:
        self.threshold = gc.get_threshold()
        gc.set_threshold(max(self.threshold[0], self.YOUNG_COLLECTION), self.threshold[1],
                         self.threshold[2])

    def __exit__(self, *exc: object) -> None:
        gc.set_threshold(*self.threshold)


class ExhaustiveRun:
    """``exhaustive_optimum`` a slice of time at a time: ``advance(until)`` searches until the
    ``time.monotonic()`` value ``until`` and pauses there (between two configurations, never
    within an expansion), or finishes (the deadline, the state cap or the end) and returns
    the ``SearchResult``.  While paused, ``level`` is proved: every configuration of
    f = g + h below it is expanded, so every schedule costs at least that much (as for a
    search stopped by its deadline).  ``seconds``: the time spent in ``advance`` so far.
    Arguments as for ``exhaustive_optimum``, which is one ``advance()`` without a pause.

    ``deepen`` (with a capped ``bound``, ``_Search._admit``): ITERATIVE DEEPENING on the
    limit.  The search runs below L + DEEPEN_STEP, where L is the level proved so far, then,
    if it finds nothing there, again below the level that run proved plus DEEPEN_STEP, and so
    on up to ``below``: each run is a whole A* below its own limit (``_Search.steps``), so
    each proves its limit (or finds the optimum, having proved every level below it), and the
    last one, below ``below``, is the search asked for.  The runs share the search and the bound,
    with what they remember (exact values and lower bounds), and nothing else.  Why: with a
    capped bound a configuration of f at or past the limit costs only a restricted search
    capped at its room, and with the limit a level or two above the level being closed
    nearly every configuration stored is one (attention_forward(2,2) at M = 4, recompute,
    below 37: level 33 after 230 s, against level 31 after 300 s in one run;
    docs/performance.md).  A configuration is then expanded once per run up to its f, a cost
    the restricted searches saved repay where they dominate; two levels a run halve it
    (DEEPEN_STEP).  ``level`` stays the highest proved so far."""

    def __init__(self, dag: DAG, memory: int, variant: str | Variant = "recompute", *,
                 below: int | None = None, max_states: int | None = None,
                 deadline: float | None = None, bound=None, keep_closed: bool = False,
                 farm=None, deepen: bool = False):
        rules = _check_arguments(dag, memory, variant, below, max_states, deadline)
        if deepen and not getattr(bound, "capped", False):
            raise InternalError("exhaustive search: deepening is for a capped bound")
        self.variant, self.memory, self.below, self.dag = rules.name, memory, below, dag
        self.deepen, self.deadline = deepen, deadline
        self.floor = 0  # deepening: the level the runs before this one proved
        self.limit = below  # the limit of the run under way (deepening: a stage's)
        self.seconds = 0.0
        self.level: int | None = None
        self.result: SearchResult | None = None  # set when the search is over
        self.search: Any = None  # the _Search, once built
        self.squeezed = False  # ``squeeze``
        self.farm = farm  # the workers making the expansions, if any (``farm_out``)
        start = time.monotonic()
        why = infeasibility(dag, memory)
        if why is not None:
            self.result = SearchResult(None, None, True, 0, time.monotonic() - start,
                                       f"infeasible: {why}")
            return
        late = "deadline reached before the search started"
        if deadline is not None and start > deadline:  # building a search takes time
            self.result = SearchResult(None, None, False, 0, time.monotonic() - start, late)
            return
        try:
            search = _Search(dag, memory, rules, deadline)
        except DeadlineReached:  # the masks of a large DAG are slow to build
            self.result = SearchResult(None, None, False, 0, time.monotonic() - start, late)
            return
        if bound is not None:
            search.symmetry.keep_only(bound.preserved_by)
            search.bound = bound
            search.bound_keyed = getattr(bound, "keys_orbits", False)
            search.bound_capped = getattr(bound, "capped", False)
        search.keep_closed = keep_closed
        # N18 but for a certificate, whose checker knows N1-N17
        search.single = 0 if keep_closed else search.single_mask
        search.debt = not keep_closed  # as N18: the checker's count knows no lookahead
        self.search = search
        self.seconds = time.monotonic() - start
        search.cap = max_states
        if deepen:
            self.limit = 1 if below is None else min(below, 1)  # the first run: h0 at once
            # Each run but the last closes every level below its limit, so partial expansion
            # would only add a second pass (sparse_forward(causal 3,1) at M = 3, recompute,
            # below 35: 97 s without it, 118 s with it).
            search.partial = 0
        self._steps = self._stage()

    @property
    def states(self) -> int:
        """The configurations it holds now: those stored when it paused, none once over."""
        return 0 if self.result is not None else self.search.stored

    def advance(self, until: float | None = None,
                max_states: int | None = None) -> SearchResult | None:
        """``max_states``: from now on, the state cap instead of the one given (it stops,
        incomplete, once it stores more)."""
        if self.result is not None:
            return self.result
        search, start = self.search, time.monotonic()
        search.pause = until
        if max_states is not None:
            search.cap = max_states
        while True:
            try:
                with FewerCollections():
                    next(self._steps)
            except StopIteration as end:
                if self._deeper(*end.value):
                    continue
                self.seconds += time.monotonic() - start
                self.result = self._finish(*end.value)
                return self.result
            self.seconds += time.monotonic() - start
            self.level = max(search.level, self.floor)
            return None

    def _deeper(self, found, states, stop, level) -> bool:
        """Deepening (``deepen``): whether the run that just ended, having found nothing and
        proved ``level`` (at least its limit), is followed by one below
        ``level + DEEPEN_STEP``, which then starts.  Not after the last run (its limit
        ``below``) or one stopped early."""
        if (not self.deepen or found is not None or stop or self.limit == self.below
                or level >= INFINITY):
            return False
        self.floor = max(self.floor, level)
        limit = self.floor + DEEPEN_STEP
        self.limit = limit if self.below is None else min(self.below, limit)
        self.search.closed = None  # ``keep_closed``: only the last run's closed ones count
        self._steps = self._stage()
        return True

    def _stage(self):
        """The steps of a run below ``self.limit``: here, or farmed out (``farm``)."""
        if self.farm is None:
            return self.search.steps(self.limit, self.deadline)
        return self.search.farmed_steps(self.limit, self.deadline, self.farm)

    def farm_out(self, farm) -> None:
        """From the next ``advance`` on, the expansions made by ``farm``'s processes
        (``_Search.farmed_steps``), from where the search paused: the same A*, the level it
        reached still proved, and so are the runs after it when it deepens (``_deeper``).
        Only for a paused run with no closed configurations kept (with a bound, the farm's
        workers hold it: ``completed``); nothing to do once it is over."""
        if self.result is not None:
            return
        if self.level is None:
            raise InternalError("exhaustive search: a run is farmed out only where it paused")
        self.search.farmable()
        self.search.handover = self.farm = farm

    def squeeze(self) -> None:
        """From now on, expand every level partially (``_Search.steps``, PARTIAL EXPANSION,
        with d past every level: an expansion at level f makes only its successors of
        f' < f + 1 and goes back into the queue, flagged, for the others), for a search short
        of memory (``ioverify.search.apart.relieve``).  It then stores no successor of a level
        before that level comes, so where its limit lies well above the level it reaches the
        configurations it stores grow with that level, not with every level up to the limit:
        attention_forward(2,1) at M = 3, recompute, below 40, 387,398 configurations before
        the optimum 24, 99,886 squeezed from the start; approximate_attention(2,1,2) at M = 4,
        recompute, below 25, 60 s, level 18 with 4,890,375 configurations, level 19 with
        1,210,518.  Where the limit is near, the passes cost time instead (sparse_forward(causal
        3,1) at M = 4, recompute, below 22: the optimum 21 from as many configurations, in 1.3
        times the time; docs/performance.md).  Sound whenever it is done: each pass reports
        the least f' it cut, whatever its reach, which is all the argument in ``steps`` needs.
        Nothing to do once the search is over."""
        if self.result is None and not self.squeezed:
            self.search.partial = INFINITY
            self.squeezed = True

    def stopped(self, reason: str) -> SearchResult:
        """The result of a run given no more time (it may never be advanced again): the
        result if it is over, else incomplete with the level it proved when it paused."""
        if self.result is not None:
            return self.result
        below = "" if self.level is None else f" (no schedule below {self.level})"
        self.result = SearchResult(None, None, False, self.search.stored, self.seconds,
                                   reason + below, self.level)
        self._steps.close()
        return self.result

    def _finish(self, found, states, stop, level) -> SearchResult:
        search, variant, seconds = self.search, self.variant, self.seconds
        if found is None and level is not None:
            level = max(level, self.floor)  # deepening: what the runs before proved
        if found is None:
            if stop:
                below_level = "" if level is None else f" (no schedule below {level})"
                return SearchResult(None, None, False, states, seconds, stop + below_level,
                                    level)
            limit = f"with I/O < {self.below}" if self.below is not None else "at all"
            return SearchResult(None, None, True, states, seconds,
                                f"exhaustive: no complete {variant} schedule {limit} with "
                                f"M = {self.memory}", level, search.closed,
                                tuple(search.symmetry.group))
        cost, schedule = found
        _verify(self.dag, schedule, self.memory, variant, cost)
        return SearchResult(cost, schedule, True, states, seconds,
                            f"exhaustive: optimum {cost} ({variant}, M = {self.memory}), "
                            f"{states} states, schedule replayed", cost)


def restricted_optimum(search: "_Search", red: int, blue: int, computed: int,
                       deadline: float | None = None, max_states: int | None = None,
                       known: dict[int, int] | None = None, below: int | None = None):
    """The optimal I/O from (red, blue, computed) of the game ``search`` was built for (N9:
    a ``_Search(part=P)`` searches the game restricted to P; only P's bits of the three masks
    matter), with the exact remaining cost of every configuration on the optimal path found:
    (optimum, [((red, blue, computed), remaining), ...]).  The optimum is INFINITY when no
    schedule finishes (one-shot).  Raises ``DeadlineReached`` if ``deadline`` passes or more
    than ``max_states`` configurations are stored first: an unfinished search has no exact
    value to give.

    ``known``: optima already computed in the same game, by configuration packed as
    ``red | blue << n | computed << 2 * n`` (computed 0 in recompute; ``pack``), each the
    exact optimal I/O from that configuration.  The search treats a configuration it reaches
    with a known optimum K as a goal of final cost K instead of searching on from it
    (``_Search.run``: the answer is unchanged, and the searches from neighbouring
    configurations, which meet each other's optimal paths, stop early).  A search that learns
    (``_Search.learn``) keeps lower bounds from this run for its later ones.

    ``below``: only an optimum below it is wanted.  If there is one, the answer is as above;
    else it is (L, None) with L >= ``below`` a lower bound on the optimum (the search found no
    schedule below ``below``, and stopped there: a CAPPED search, ``AbstractionBound``)."""
    inside = search.full if search.part is None else search.part
    start = (red & inside, blue & inside, computed & inside if search.at_most_once else 0)
    found, states, stop, proved = search.run(below, max_states, deadline, start_state=start,
                                             known=known)
    if stop:
        raise DeadlineReached(f"restricted search stopped after {states} states: {stop}")
    if found is None:
        return (INFINITY, []) if below is None else (max(below, proved), None)
    cost, path = found
    n, full, once = search.n, search.full, search.at_most_once
    # On an optimal path the cost still to pay from each configuration is the optimum from it:
    # a cheaper completion would give a cheaper schedule from the start.  In recompute that
    # optimum is of (red, blue) alone, whatever loads the path owes there (N15): the path's
    # rest is one completion, and none is cheaper.
    return cost, [((key & full, key >> n & full, key >> 3 * n if once else 0), cost - g)
                  for key, g in path]


def less(limit: int, cost: int) -> int:
    """``limit - cost``, or INFINITY if ``limit`` is: no limit stays no limit (``blocks`` cuts,
    and counts, only against a finite budget)."""
    return limit - cost if limit < INFINITY else INFINITY


def _check_arguments(dag, memory, variant, below, max_states, deadline) -> Variant:
    check_dag(dag), check_memory(memory)
    rules = require_variant(variant, IMPLEMENTED, "the exhaustive search")
    integer("below", below, optional=True)
    positive("max_states", max_states, optional=True)
    if deadline is not None and not isinstance(deadline, (int, float)):
        raise InvalidArgument(f"deadline must be a time.monotonic() value, got {deadline!r}")
    return rules


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
    """A* over normal-form configurations at block boundaries; module docstring: N1-N18."""

    def __init__(self, dag: DAG, memory: int, variant: Variant, deadline: float | None = None,
                 part: int | None = None, bound=None, weights: tuple[int, dict] | None = None):
        """``part``: a vertex mask; search the game RESTRICTED to it (``restricted_optimum``)
        instead of the game itself.  ``weights`` (restricted games only): ``(scale, {v: w})``,
        a load or store of v costs w (``scale`` if v is not listed) instead of 1; costs and
        the optimum are then in units of 1 / scale of a transfer (the cost-partitioned
        abstraction bound, ``ioverify.game.abstraction``).  N1-N9 compare schedules by their
        I/O and computes only through "never adds a load or a store", so they hold for any
        positive weights.  ``bound``: a further lower bound on the remaining I/O,
        a function of (red, blue, computed) that is admissible, consistent and unchanged by the
        automorphisms the search keys by (``ioverify.game.abstraction``; ``exhaustive_optimum``
        keeps only those); the heuristic is the larger of the two, which keeps all three
        properties.  It may raise ``DeadlineReached``: the search
        then stops with the level it proved.  It is asked at a configuration's canonical
        image, so that the images of one configuration share its work, unless its attribute
        ``keys_orbits`` says it shares that work itself (``AbstractionBound.key_by``)."""
        self.n = n = len(dag)
        self.memory = memory
        self.at_most_once = variant.at_most_once  # C (computed) is part of the state
        self.full = (1 << n) - 1
        inside = self.full if part is None else part
        self.pred_mask = _masks(dag.preds, deadline)
        if part is not None:
            self.pred_mask = [mask & inside for mask in self.pred_mask]
        self.input_mask = _mask_of(dag.inputs, n) & inside
        self.output_mask = _mask_of(dag.outputs, n) & inside
        self.kept_blue = self.input_mask | self.output_mask  # N17: never idle
        _in_time(deadline)
        useful = _useful_mask(dag) if part is None else _useful_within(self.pred_mask,
                                                                         self.output_mask)  # N1
        _in_time(deadline)
        self.computable = [v for v in range(n) if not dag.is_input[v] and useful >> v & 1]
        # N12: each vertex's useful successors (one-shot); N11: the live vertices of each set
        # of outputs without blue (recompute).
        self.useful_succs = [0] * n
        for v in self.computable:
            for p in _bits(self.pred_mask[v]):
                self.useful_succs[p] |= 1 << v
        _in_time(deadline)
        self.live_memo: dict[int, int] = {}
        # N18: the single vertices, and the function from a set with pebbles to the DONE
        # vertices; applied only once ``ExhaustiveRun`` sets ``single``.
        self.single = 0
        self.done_of: Any = None
        self.single_mask = 0
        self.users: list[int] = []  # the vertices, no outputs, whose needed successors
        if part is None and not self.at_most_once:  # are all single (``_dead_of``)
            self.single_mask, self.done_of = _single_demand(dag)
            self.users = [u for u in range(n) if self.useful_succs[u] and not dag.is_output[u]
                          and not self.useful_succs[u] & ~self.single_mask]
            _in_time(deadline)
        self.must_memo: dict[int, tuple[int, int]] = {}  # ``_must_of``
        # MUST (``_trivial``) a layer at a time: the predecessors of a set in a few look-ups
        self.preds_of = _compiled_union(self.pred_mask) if n <= _UNION_MAX_VERTICES else None
        # ``_ready``: the computable vertices with a predecessor in a set, in a few look-ups
        # (asked once an expansion: small tables, quick to build)
        self.computable_mask = _mask_of(self.computable, n)
        self.succs_of = (_compiled_union(self.useful_succs, 8) if n <= _UNION_MAX_VERTICES
                         else None)
        self.eviction_memo: dict[int, tuple[int, ...]] = {}  # ``_evictions``
        # N8 needs automorphisms of the game searched: a restricted game keeps none.
        self.symmetry = (_Symmetry(dag, 4, deadline)
                         if part is None else _NoSymmetry())
        self.part = part
        self.bound = bound
        if weights is not None and part is None:
            raise InternalError("exhaustive search: weights are for restricted games only")
        self.cost_of = int.bit_count if weights is None else _weighted_count(*weights)
        self.least_weight = 1 if weights is None else min([weights[0], *weights[1].values()])
        self.most_weight = 1 if weights is None else max([weights[0], *weights[1].values()])
        self.eager = self.at_most_once and part is None  # N16: the game itself, one-shot
        self.memo: dict[int, int] = {}  # heuristic values by (red, blue, computed)
        self.trivial_memo: dict[int, int] = {}  # with ``bound``: the count alone (``_trivial``)
        self.family_memo: dict[int, int] = {}  # recompute: ``_loads_at_least``'s counts
        # The next block's evictions (``_eviction_debt``), on the game itself only: set by
        # ``ExhaustiveRun`` unless it keeps its closed configurations for a certificate.
        self.debt = False
        self.debt_memo: dict[int, int] = {}  # by the whole configuration (fresh included)
        self.keep_closed = False  # ``run`` keeps the closed keys with their g in ``closed``
        # ``bound`` takes the same value at every image of a configuration without being
        # given the canonical one, and shares its work between them (``AbstractionBound.key_by``)
        self.bound_keyed = False
        # ``bound`` takes the room below the search's limit and may answer only a lower
        # bound past it (``_admit``)
        self.bound_capped = getattr(bound, "capped", False)
        self.lazy = False  # set by ``run``: configurations made canonical when popped
        self.closed: dict[int, int] | None = None
        self.pause: float | None = None  # ``steps`` pauses once this time has passed
        self.handover: Any = None  # a farm ``steps`` goes on with after its next pause
        self.level: int | None = None  # ``steps``: proved when it pauses
        self.stored = 0  # ``steps``: the configurations stored when it paused
        self.cap: int | None = None  # ``steps`` stops past it; it may change at a pause
        self.nodes_left = 0  # ``_cheapest_loads``: branches left before ``_min_cut``
        self.beyond = INFINITY  # set by ``blocks`` once it has given every block
        # ``steps``: the levels below a finite limit expanded partially (0: none).  The last
        # one: its successors are the most, and a search that finds the optimum one below its
        # limit (the upper bound a beam search gives) never makes most of them
        # (approximate_attention(2,1,2) at M = 6, recompute, below 15: the optimum 14 in
        # 237 s, 284 s with every level expanded partially, level 13 after 300 s with none).
        # A search that closes every level pays a second pass for the last one
        # (sparse_forward(causal 3,1) at M = 4, recompute, none below 21: 128 s, against 105 s
        # with none and 157 s with every level), and one stopped far below its limit stores
        # the successors of the levels between (approximate_attention(2,1,2) at M = 4,
        # recompute, below 26, 120 s: level 17, against 18 with every level).
        self.partial = 1
        # ``learn``: lower bounds on the optimum by configuration, learned from the searches
        # this one ran before from other starts (None: none kept, none used).
        self.learned: dict[int, int] | None = None

    # --- the heuristic ---------------------------------------------------------------------

    def heuristic(self, red: int, blue: int, computed: int) -> int:
        """A lower bound on the remaining I/O, consistent (no move of cost c lowers it by more
        than c, so no block of cost c does either), or INFINITY for a one-shot state that can no
        longer finish.  It depends only on the DAG's structure, so automorphisms preserve it.

        Every output without blue needs a store (1 each).  Let MUST be the vertices that must
        still be computed: outputs with neither pebble, and, recursively, predecessors with
        neither pebble of a MUST vertex (they can reach red only by a compute).  Every
        predecessor of a MUST vertex that is blue and not red needs a load of its own if it is
        an input (inputs cannot be computed) or, in one-shot, at all (it was computed already).
        In one-shot a MUST vertex that was computed already makes the state dead.
        Consistency: a compute of v needs all of v's predecessors red, so v contributed nothing
        beyond itself; a load lowers the count by at most 1; a store (of a red vertex) removes
        at most one output from the first term; deleting red pebbles only raises the bound.

        In recompute a predecessor of MUST that is blue, not red and no input can be loaded or
        computed again, and the count is then the exact optimum of the UNLIMITED game: the same
        game from the same configuration with no bound on red pebbles (``_cheapest_loads``).
        It never exceeds the real optimum, since every legal schedule is legal there; it is
        consistent, since each move (or block) of cost w from c to c' is legal there too, so
        the unlimited optimum from c is at most w plus that from c'; and at a goal it is the
        stores of the outputs without blue.  In one-shot the count above is that optimum
        already (no vertex is computed twice, so a blue predecessor of MUST is loaded).

        With owed loads O (recompute, N15) the count is the weight of O plus the unlimited
        game's optimum with O red, or INFINITY if a vertex of O is dead.  It is a lower bound
        on every completion that loads all of O, which every completion of least I/O does (N10,
        N11): red from the start, O only helps the unlimited game.  Consistent: a store makes a
        red vertex blue, no change the unlimited game sees, and owed (+1 for a move of cost 1);
        a load of an owed vertex moves it from O to red (-1); a compute of one changes nothing
        (it stays owed); every other move is one of the unlimited game, as above.

        The search (``successors``, the game itself) raises the count of each configuration
        a block reaches by what the next block's evictions must add (``_eviction_debt``),
        which keeps it consistent; this function gives the count without it."""
        pending = self.output_mask & ~blue
        if self.bound is not None:
            trivial = self._trivial(pending, red, blue, computed)
            return trivial if trivial == INFINITY else max(trivial,
                                                           self.bound(red, blue, computed))
        return self._trivial(pending, red, blue, computed)

    def _trivial(self, pending: int, red: int, blue: int, computed: int,
                 cap: int = INFINITY) -> int:
        """The count of ``heuristic`` (stores of ``pending``, the loads MUST forces; in
        recompute, the unlimited game's optimum), or, if it is ``cap`` or more, a value from
        ``cap`` to the count: a result below ``cap`` is the count itself, one at ``cap`` or
        above only a lower bound on it (``_cheapest_loads`` cuts every branch at ``cap``).
        In recompute ``computed`` is O, the owed loads (N15): each costs its load, and is then
        red for the rest of the count; an owed vertex that is dead makes the state dead."""
        once, cost_of, inputs = self.at_most_once, self.cost_of, self.input_mask
        if computed and not once:
            if computed & ~self.live(blue):
                return INFINITY  # N15: a dead vertex is never loaded again (N11)
            owed = cost_of(computed)
            return owed + self._trivial(pending, red | computed, blue, 0, cap - owed)
        todo = pending & ~red
        stop = red | blue  # MUST stops at a vertex with a pebble
        if once:
            if todo & computed:
                return INFINITY  # v must be computed again
            stop |= computed  # reaching one ends the search below
        must, reached = self._must_of(todo, stop)
        if once:
            if reached & ~red & ~blue & computed:
                return INFINITY  # a MUST vertex computed, without a pebble: computed again
            return cost_of(pending) + cost_of(reached & ~red & blue)
        fixed = inputs | self.single & blue  # loaded, never computed (N18: single with blue)
        choices = reached & ~red & ~fixed & ~must  # blue: load or compute again
        stores = cost_of(pending)
        if not choices:
            return stores + cost_of(reached & ~red & fixed)
        self.nodes_left = _BRANCH_NODES
        try:
            loads = self._cheapest_loads(must, reached, choices, 0, red, stop, cap - stores,
                                         fixed)
        except _TooManyNodes:
            loads = self._min_cut(todo, red, blue, fixed)
        return stores + loads

    def _must(self, todo: int, must: int, reached: int, stop: int) -> tuple[int, int]:
        """(MUST, the predecessors of MUST) once ``todo`` and, recursively, its predecessors
        not in ``stop`` join ``must``; ``reached``: the predecessors of ``must`` already."""
        preds_of = self.preds_of
        if preds_of is not None:  # a layer of MUST at a time
            must |= todo
            while todo:
                preds = preds_of(todo)
                reached |= preds
                todo = preds & ~stop & ~must
                must |= todo
            return must, reached
        pred_mask = self.pred_mask
        while todo:
            low = todo & -todo
            must |= low
            preds = pred_mask[low.bit_length() - 1]
            reached |= preds
            todo = (todo ^ low) | (preds & ~stop & ~must)
        return must, reached

    def _must_of(self, todo: int, stop: int) -> tuple[int, int]:
        """``_must(todo, 0, 0, stop)``, remembered: many configurations share their ``todo``
        and ``stop`` (sparse_forward(causal 3,1), M = 4, below 21: 832,489 walks in the first
        20 s, 50,420 distinct)."""
        memo, key = self.must_memo, todo | stop << self.n
        found = memo.get(key)
        if found is None:
            if len(memo) >= _MEMO_MAX:
                memo.clear()
            found = memo[key] = self._must(todo, 0, 0, stop)
        return found

    def _cheapest_loads(self, must: int, reached: int, choices: int, loaded: int, red: int,
                        stop: int, best: int, fixed: int) -> int:
        """Recompute: the least cost of the loads that make every vertex of ``must`` red in
        the unlimited game (``heuristic``), or ``best`` if it is not less, by branch and bound.
        In that game nothing red need ever be deleted, so a schedule is a set L of vertices
        loaded (each once, each blue) and a set of vertices computed (each once, its
        predecessors red, loaded or computed before it), and it costs the weight of L.  MUST
        is computed; each predecessor of MUST outside MUST that is not red is blue and is an
        input (loaded: inputs cannot be computed) or a CHOICE: loaded (into ``loaded``) or
        computed (then its own MUST joins, ``_must``).  Trying both for every choice, the
        least cost found is the optimum; the cost of the inputs reached and of ``loaded``
        only grows down a branch, so a branch at ``best`` or above is cut, and loading every
        choice left is a schedule, so its cost is an upper bound from the start.  ``fixed``:
        the vertices only loaded, never computed, the inputs and, under N18, the single
        vertices with blue (a single vertex is computed at most once, so one with a pebble
        never again: the unlimited game with that rule, of which every schedule of N18's
        form is one; every block is one of its move sequences, so the count stays
        consistent, and it still never rises when red grows, ``_loads_at_least``)."""
        self.nodes_left -= 1
        if not self.nodes_left:
            raise _TooManyNodes
        cost_of = self.cost_of
        low = cost_of(reached & ~red & fixed) + cost_of(loaded)
        if low >= best or not choices:
            return min(low, best)
        best = min(best, low + cost_of(choices))  # a schedule: load every choice
        first = choices & -choices
        more, further = self._must(first, must, reached, stop)
        best = self._cheapest_loads(more, further, further & ~red & ~fixed & ~more & ~loaded,
                                    loaded, red, stop, best, fixed)
        return self._cheapest_loads(must, reached, choices ^ first, loaded | first, red, stop,
                                    best, fixed)

    def _min_cut(self, targets: int, red: int, blue: int, fixed: int = 0) -> int:
        """``_cheapest_loads`` from MUST = the closure of ``targets``, when branching takes too
        long: the least weight of a set L of blue vertices not red meeting every path, along
        predecessors and through vertices not red, from ``targets`` to an input.  (L is
        loaded and the vertices such paths reach without meeting L are computed, so L gives a
        schedule; and a schedule's loads meet every such path, since the path's last vertex,
        an input, cannot be computed.)  By Menger: the maximum flow from the inputs to
        ``targets`` with each vertex's capacity its weight if it can be loaded, else
        unbounded (a vertex with no pebble can only be computed); ``fixed`` (N18's single
        vertices with blue, never computed) as the inputs: a path ends there."""
        n, pred_mask, inputs = self.n, self.pred_mask, self.input_mask | fixed
        net = FlowNetwork(2 * n + 2, 2 * n, 2 * n + 1)  # v: in-node 2v, out-node 2v + 1
        todo, seen = targets, 0
        while todo:  # the vertices not red that the targets reach
            low = todo & -todo
            todo ^= low
            seen |= low
            v = low.bit_length() - 1
            loadable = (blue | inputs) & low  # as ``_trivial`` counts inputs
            net.add(2 * v, 2 * v + 1, self.cost_of(low) if loadable else FlowNetwork.INF)
            if inputs & low:
                net.add(net.source, 2 * v, FlowNetwork.INF)
                continue  # (an input has no predecessors; a fixed vertex's are never needed)
            for p in _bits(pred_mask[v] & ~red):
                net.add(2 * p + 1, 2 * v, FlowNetwork.INF)
            todo |= pred_mask[v] & ~red & ~seen
        for v in _bits(targets):
            net.add(2 * v + 1, net.sink, FlowNetwork.INF)
        flow = 0
        while net.augment():  # finite: every path from the source enters through an input
            flow += 1
        return flow

    # --- the blocks ---------------------------------------------------------------------------

    def blocks(self, red: int, blue: int, fresh: int, computed: int, start: bool = True,
               budget: int = INFINITY, spare: int = 0):
        """The blocks leaving a configuration (module docstring, N4-N6, N10-N14): tuples (cost,
        red, blue, fresh, computed, block), block = (c, evicted, stored, finished, dropped)
        as masks: the configuration after the block has its finished outputs stored (N14)
        and its spent vertices deleted (N13, N14).  ``start=False``: the configuration was
        reached by a block, so it holds nothing finished or spent, and none is looked for.
        ``budget``: only the blocks whose cost plus the stores of the outputs without blue
        after them (and the owed loads after them, N15) is below it (the search's first test
        of a successor, ``_expand``; its finished outputs move from the second term to the
        first, so it is the block's loads and stores plus the outputs without blue before it
        that it does not store, plus the loads still owed after it); in recompute, plus the
        loads the count charges after every block of one eviction (``_loads_at_least``).
        Each is part of the count, so a block cut here is one ``_expand`` would drop.
        ``spare``: the budget less the heuristic at the configuration (0 if unknown): in
        one-shot the eviction floor (``_evictions_floor``) is sought only where it can cut.
        Once every block is given, ``self.beyond`` is how far past the budget the least value
        it cut a block on lies (INFINITY if none): each is a lower bound on a block's cost
        plus the count after it, less the outputs without blue before it (that is how it cuts
        at any budget), so every block cut has cost + count >= budget + ``self.beyond`` +
        the weight of those outputs (partial expansion, ``steps``)."""
        memory, pred_mask, once, cost_of = (self.memory, self.pred_mask, self.at_most_once,
                                            self.cost_of)
        output_mask = self.output_mask
        owed = not once  # N15: in recompute ``computed`` holds O, the owed loads
        # The family counts (``_loads_at_least``) only cut against a finite budget; without
        # one (a restricted search asked for its optimum, ``restricted_optimum``) they cut
        # nothing and cost much (attention_forward(2,2), M = 3, the start value of the rows
        # sharing their inputs: 1,037,326 counts, none cutting, 4.1 of 10.1 s).
        finite = budget < INFINITY  # (tested before ``budget`` is lowered below)
        counted = owed and finite
        per_store = 2 if owed else 1
        size = red.bit_count()
        kept = fresh & blue  # N6: fresh and blue: cannot be evicted
        if once:  # N12: the vertices an eviction stores, if they have no blue
            live = self.output_mask | (self._needed(red, computed) & ~blue)
        else:  # N11: only live vertices are computed or stored (N18: nor those it leaves dead)
            done = self._done(red | blue)
            live = self.live(blue) & ~self._dead_of(done)
        # N6: fresh without blue: stored when evicted; N18: so is a live single vertex
        must_store = (fresh | self.single & live) & ~blue
        # Nothing finished or spent but at a start (N9): every block leaves none.
        stale_finished, stale_spent = self.spent(red, blue, computed) if start else (0, 0)
        pending = self.output_mask & ~blue
        budget -= cost_of(pending)  # an output stored in the block leaves the second term
        # c: not red, not computed (one-shot) or live and not done (recompute, N18), its
        # predecessors red or blue
        ready = self._ready(red | blue) & ~red & (~computed if once else live & ~done)
        if self.eager and size < memory:
            eager = self._eager(red, blue, computed)
            if eager is not None:  # N16: that block alone
                ready &= 1 << eager
        # Recompute: an evicted vertex is stored if fresh (N6, forced), may be if live and
        # without blue (N11, optional), else is not (unstorable); the forced stores of vertices
        # no output are charged below (an output's store is in the count already).
        may_store = live & ~blue & ~must_store
        unstorable = ~must_store & ~may_store
        charged = must_store & ~pending
        beyond = INFINITY  # the least cut value: below it nothing was cut (``beyond``)
        while ready:
            bit = ready & -ready
            ready ^= bit
            c = bit.bit_length() - 1
            preds = pred_mask[c]
            missing = preds & ~red
            loads = cost_of(missing)
            # one-shot: C; recompute: O less what the block loads (N15)
            ncomputed = computed | bit if once else computed & ~missing
            least = loads + cost_of(ncomputed) if owed else loads  # N15: the count has O
            if least >= budget:
                beyond = least if least < beyond else beyond
                continue
            evict = size + missing.bit_count() + 1 - memory
            nfresh = (fresh & ~preds) | bit
            after = red | missing | bit  # red after the block, before its evictions
            if once or pending >> c & 1 or self.single >> c & 1:
                finished, spent = self._left_by(c, preds, after, blue, ncomputed, live,
                                                stale_finished, stale_spent)
            else:  # recompute: unless c is an output without blue or single (N18), as they
                # were (``_left_by``)
                finished, spent = stale_finished, stale_spent
            if evict <= 0:
                nblue = self.idle_dropped(blue | finished, spent, finished, ncomputed)
                yield (loads + cost_of(finished), after & ~spent, nblue, nfresh & ~spent,
                       ncomputed, (c, 0, 0, finished, spent))
                continue
            reached = base = 0
            # one-shot: every eviction costs its loads back (``_evictions_floor``).  The floor
            # is at most the loads, the count here less the outputs' stores and the weight of
            # every eviction: it cannot cut where that stays below the budget.
            if once and finite and least + evict * self.most_weight >= spare:
                reached, base = self._evictions_floor(after, blue, ncomputed, pending)
                out_of_reach = (red & ~preds & ~kept & ~reached).bit_count()
                low = least + base + max(0, evict - out_of_reach) * self.least_weight
                if low >= budget:
                    beyond = low if low < beyond else beyond
                    continue
            # Every eviction's family at once (``_loads_at_least``: red after any of them is
            # within red before it, and its stores within red; 46 vertices, M = 7, below 20:
            # 78 s -> 52 s).
            if counted:
                family = self._loads_at_least(red & ~blue, after, computed, blue, pending,
                                              budget - least)
                if least + family >= budget:
                    beyond = least + family if least + family < beyond else beyond
                    continue
                # Exact (below its cap), and the count of every eviction below that takes no
                # vertex out of the red set it assumes: counts by what an eviction takes out,
                # each with whether it is exact or only a bound at its cap.
                counts = {0: (family, True)}
            for gone in self._evictions(red & ~preds & ~kept, evict):
                if once:
                    nred = after & ~gone
                    stored = gone & ~blue & live
                    low = loads + cost_of(stored & ~pending)
                    if reached:  # the floor of this eviction (``_evictions_floor``)
                        low += base + cost_of(gone & reached)
                    if low >= budget:
                        beyond = low if low < beyond else beyond
                        continue
                    fin, drop = finished & ~gone, spent & ~gone
                    yield (loads + cost_of(stored) + cost_of(fin), nred & ~drop,
                           self.idle_dropped(blue | stored | fin, drop, stored, 0),
                           nfresh & ~gone & ~drop, ncomputed, (c, gone, stored, fin, drop))
                    continue
                # N15: a vertex stored, no output, is owed a load: its store counts twice
                floor = least + per_store * cost_of(gone & charged)
                if floor >= budget:
                    beyond = floor if floor < beyond else beyond
                    continue
                nred, forced, optional = after & ~gone, gone & must_store, gone & may_store
                # the loads that every choice of stores still needs (cheaper than a count per
                # choice: attention_forward(2,2), M = 7, below 20, 102 s -> 78 s)
                if counted:
                    # An eviction's count depends only on what it takes out of the family's
                    # red set, red | missing | c | O: the evicted vertices it may not store
                    # (with blue, or dead and not fresh).  The ones it may store stay red there
                    # and turn blue, which changes nothing for a red vertex, and the outputs
                    # left to store are those without blue outside that set either way.
                    leaving = gone & unstorable
                    known, exact = counts.get(leaving, (0, False))
                    if not exact and known < budget - floor:  # at or past a cap: a bound
                        cap = budget - floor
                        known = self._loads_at_least(forced | optional, nred, computed, blue,
                                                     pending, cap)
                        counts[leaving] = known, known < cap
                    floor += known
                    if floor >= budget:
                        beyond = floor if floor < beyond else beyond
                        continue
                for extra in _submasks(optional):
                    low = floor + per_store * cost_of(extra & ~pending)
                    if low >= budget:
                        beyond = low if low < beyond else beyond
                        continue
                    stored = forced | extra
                    nblue = blue | stored
                    nowed = ncomputed | stored & ~output_mask  # N15: O after the block
                    if stored & output_mask or finished:
                        # N11: an output's blue may leave vertices dead, and what a finished
                        # output's leaves dead depends on whether this block evicts it
                        fin, drop = self.spent(nred, nblue, nowed)
                        nblue = self.idle_dropped(nblue | fin, drop, fin | stored, nowed)
                    else:
                        fin, drop = finished, spent & ~gone
                    yield (loads + cost_of(stored) + cost_of(fin), nred & ~drop, nblue,
                           nfresh & ~gone & ~drop, nowed, (c, gone, stored, fin, drop))
        self.beyond = beyond - budget if beyond < INFINITY else INFINITY

    def _evictions_floor(self, red: int, blue: int, computed: int,
                         pending: int) -> tuple[int, int]:
        """One-shot: (REACHED, BASE) for the blocks computing a vertex c with eviction, from
        ``red`` = R0, the red set after the block's loads and c with nothing evicted, ``blue``
        and ``pending`` (the outputs without blue) before it, ``computed`` after it.  Every
        such block evicting G costs, with the count (``_trivial``) after it, at least its loads
        plus the weight of its stores that are no outputs plus BASE plus the weight of G within
        REACHED, the predecessors of MUST at R0; and BASE + the weight of ``pending`` is the
        count at R0 (0, 0 when that count is INFINITY: no cut).

        Proof.  Let R', B' be red and blue after the block.  The count's MUST walk starts at
        the outputs without blue and not red and stops at STOP = red | blue | computed.  After
        the block STOP is within STOP at R0 (R' is within R0, B' within blue and R0), and the
        start contains that at R0: an output without blue and not red at R0 is neither stored
        nor finished by the block.  So MUST after the block contains MUST at R0, and its
        predecessors contain REACHED.  A vertex v of REACHED is a predecessor of a vertex m
        of MUST, useful and not computed (STOP holds the computed vertices), so m is not c,
        and v, if evicted, is needed (N12) and has blue after the block (it had, or the block
        stores it); a vertex of REACHED not red at R0 that had blue keeps it (idle vertices
        have nothing left to compute, N17).  So the count after the block is at least the
        weight of the outputs without blue after it, plus that of REACHED less R0 with blue
        (BASE), plus that of G within REACHED.  The
        outputs without blue after it are those before it less the outputs it stores, and
        less the finished outputs it stores, whose stores the block pays: the claim follows.
        Each vertex of G costs at least ``least_weight``, so a block evicting e vertices of
        which at most k lie outside REACHED pays at least (e - k) ``least_weight`` there."""
        todo = pending & ~red
        if todo & computed:
            return 0, 0
        _, reached = self._must_of(todo, red | blue | computed)
        if reached & ~red & ~blue & computed:
            return 0, 0
        return reached, self.cost_of(reached & ~red & blue)

    def _debt_of(self, raw: int, red: int, blue: int, fresh: int, computed: int) -> int:
        """``_eviction_debt``, remembered by the configuration ``raw`` (red | blue << n |
        fresh << 2n | C or O << 3n, as ``steps`` keys it): successors repeat
        (approximate_attention(2,1,2) at M = 4, recompute, contracted with inputs as roots,
        none below 25: 75.3 s without the memo, 71.7 s with it)."""
        memo = self.debt_memo
        debt = memo.get(raw)
        if debt is None:
            if len(memo) >= _MEMO_MAX:
                memo.clear()
            debt = memo[raw] = self._eviction_debt(red, blue, fresh, computed)
        return debt

    def _eviction_debt(self, red: int, blue: int, fresh: int, computed: int) -> int:
        """THE NEXT BLOCK'S EVICTIONS: a number the count (``_trivial``) may be raised by at
        a configuration X = (R, B, F, C or O) reached by a block, the game itself (no
        part, unit weights), keeping it consistent.  The count is the optimum of the
        unlimited game, in which nothing is evicted; the next block of any completion from
        X computes some c whose predecessors are red or blue and evicts
        e(c) = |R| + |P(c) \\ R| + 1 - M vertices of R outside P(c) (N4), none fresh and
        blue (N6).  Call v in R NEEDED when it is a predecessor of a MUST vertex (``heuristic``:
        a vertex with no pebble that every completion computes); WEIGHT it w(v) =
        - 2 if its eviction stores it and it is no output: in one-shot, needed without
          blue (N12); in recompute, fresh, or single and live (N18), without blue (N6, N18);
        - else 1 if it is needed and can only be loaded: in one-shot any needed vertex
          (computed, or an input); in recompute an input, or single with blue (N18);
        - else 0.
        The DEBT is the least, over every c whose predecessors are red or blue (a superset of
        the blocks the search makes), of the e(c) least weights of the vertices it may
        evict, or 0 where some c evicts none (or none can be computed).

        Claim: every block b from X to Y of cost w evicting E has h(X) + w(E) <= w + h(Y),
        with h the count; so h + debt, at most h + w(E) before every block, stays consistent
        (and is 0 at a goal, where MUST is empty).  Proof.  A needed v in E, a predecessor of a
        MUST vertex m (m is not c: c's predecessors have pebbles, and m has none; nor is any
        MUST vertex on m's path to its output without pebbles c, whose predecessor there would
        have none), keeps m a MUST vertex of Y (b gives pebbles only to c and to vertices
        that had them, and takes red from vertices that had it).  So if v can only be
        loaded, every unlimited schedule from Y loads it; from X the unlimited game can make
        b's loads and compute c, store the outputs b stores, keep E red and follow an
        optimal unlimited schedule from Y without those loads: h(X) <= w + h(Y) - (the loads
        of E's needed vertices of weight 1) - (the stores of b of vertices no output, which
        it need not make).  In recompute a vertex stored is then owed (N15), and the count of
        Y charges its load: each weighs 2.  Both counts' red sets include the owed vertices;
        the fixed vertices (N18) of Y include X's (single with blue: blue only grows)."""
        memory = self.memory
        size = red.bit_count()
        if size + 1 < memory:  # every c with a predecessor missing at most evicts none
            return 0
        outputs, once = self.output_mask, self.at_most_once
        pending = outputs & ~blue
        stop = red | blue | computed if once else red | blue
        needed = red & self._must_of(pending & ~red, stop)[1]
        if once:
            heavy = needed & ~blue & ~outputs
            light = needed & ~heavy
        else:
            heavy = (fresh | self.single & self.live(blue)) & ~blue & ~outputs & red
            light = needed & (self.input_mask | self.single & blue)
        ready = self._ready(red | blue) & ~red
        if once:
            ready &= ~computed
        movable = red & ~(fresh & blue)
        pred_mask, least = self.pred_mask, INFINITY
        while ready:
            bit = ready & -ready
            ready ^= bit
            preds = pred_mask[bit.bit_length() - 1]
            evict = size + (preds & ~red).bit_count() + 1 - memory
            if evict <= 0:
                return 0
            free = movable & ~preds
            two, one = (free & heavy).bit_count(), (free & light).bit_count()
            zero = free.bit_count() - one - two
            if evict > zero + one + two:
                continue  # c cannot be computed here
            debt = min(max(0, evict - zero), one) + 2 * max(0, evict - zero - one)
            if debt < least:
                if not debt:
                    return 0
                least = debt
        return 0 if least == INFINITY else least

    def _ready(self, pebbled: int) -> int:
        """The computable vertices whose predecessors all lie in ``pebbled``: those that are
        no useful successor of a vertex outside it."""
        unpebbled = self.full & ~pebbled
        if self.succs_of is not None:
            return self.computable_mask & ~self.succs_of(unpebbled)
        return _mask_of((c for c in self.computable if not self.pred_mask[c] & unpebbled),
                        self.n)

    def _evictions(self, candidates: int, count: int) -> tuple[int, ...]:
        """The sets of ``count`` vertices of ``candidates``, as masks, in the order of
        ``combinations``; remembered for up to ``_EVICTION_SET`` candidates (a search asks for
        the same few sets again and again)."""
        memo, key = self.eviction_memo, candidates | count << self.n
        sets = memo.get(key)
        if sets is None:
            sets = tuple(map(sum, combinations(_bit_list(candidates), count)))
            if candidates.bit_count() <= _EVICTION_SET:
                if len(memo) >= _EVICTION_MEMO_MAX:
                    memo.clear()
                memo[key] = sets
        return sets

    def _eager(self, red: int, blue: int, computed: int) -> int | None:
        """N16 (one-shot, with room for one more red vertex): the least EAGER vertex, or None:
        useful, not computed, its predecessors red, one of them p with no other useful
        successor left to compute and either without blue and no output, or blue while the
        vertex is an output."""
        succs, outputs = self.useful_succs, self.output_mask
        for c in self.computable:
            bit = 1 << c
            preds = self.pred_mask[c]
            if computed & bit or preds & ~red:
                continue
            wanted = ~blue & ~outputs | (blue if outputs & bit else 0)
            for p in _bits(preds & wanted):
                if succs[p] & ~computed == bit:
                    return c
        return None

    def _loads_at_least(self, stores: int, red: int, owed: int, blue: int, pending: int,
                        cap: int) -> int:
        """Recompute: a lower bound (or, if it is ``cap`` or more, a value from ``cap`` to it)
        on the loads the count (``_trivial``) charges after any block of one eviction whose
        stores lie within ``stores``, beyond its owed loads and the stores of its outputs
        without blue.  ``red``: the red set after the eviction, with the block's vertex and
        before its finished outputs are let go; ``owed``, ``blue``, ``pending``: O, blue and
        the outputs without blue before the block.  After any such block those loads are the
        unlimited game's from red R' | O' and blue B', with R' | O' within
        ``red | owed | stores`` and B' within ``blue | stores`` and the red outputs (the
        finished ones it stores).  The unlimited game's optimum never rises when red and blue
        grow and fewer outputs are left to store (its schedules stay legal), so the loads from
        that largest configuration bound every choice: ``blocks`` cuts a whole family of
        stores with one count.

        The value depends only on ``red | owed | stores``, the blue set above and ``cap``, and
        two in three counts repeat one made before (sparse_forward(causal 3,1), M = 4, below
        21: 3,050,336 counts, 1,032,418 distinct), so each is remembered in ``family_memo``:
        the count if it is below the cap it was made with (exact), else its negation (a bound
        at or past that cap, which answers any cap it reaches)."""
        everything = red | owed | stores
        nblue = blue | stores | (pending & red)
        memo = self.family_memo
        key = everything | nblue << self.n
        known = memo.get(key)
        if known is not None and (known >= 0 or -known >= cap):  # exact, or a bound reaching cap
            return known if known >= 0 else -known
        rest = self.output_mask & ~nblue
        stores_left = self.cost_of(rest)
        count = self._trivial(rest, everything, nblue, 0, cap + stores_left) - stores_left
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        if count < cap:
            memo[key] = count
        elif count > 0:  # a bound (0 at a cap of 0 or less says nothing worth keeping)
            memo[key] = -count
        return count

    def _left_by(self, c: int, preds: int, red: int, blue: int, computed: int, live: int,
                 stale_finished: int, stale_spent: int) -> tuple[int, int]:
        """(finished, spent) after the block computing c, with ``red`` after it, if it evicts
        nothing (N13, N14), from those of the configuration before it: in one-shot c and the
        predecessors whose last useful successor c is; in recompute c, and what its blue
        leaves dead, and, if c is single, what it leaves dead (N18; nothing else dies by
        red)."""
        pending, succs = self.output_mask & ~blue, self.useful_succs
        finished, spent = stale_finished, stale_spent
        if self.at_most_once:
            for p in _bits(preds | 1 << c):
                if not succs[p] & ~computed:
                    if pending >> p & 1:
                        finished |= 1 << p
                    spent |= 1 << p
            return finished, spent
        if pending >> c & 1 and not succs[c] & live or self.single >> c & 1:
            return self.spent(red, blue, computed)
        return finished, spent

    def spent(self, red: int, blue: int, computed: int) -> tuple[int, int]:
        """(finished, spent) of a configuration, N13 and N14: the FINISHED outputs, red
        without blue and with no useful successor left to compute (recompute: none live, once
        the other finished outputs are stored), and the SPENT vertices, red and garbage once
        those are stored."""
        pending, succs = self.output_mask & ~blue, self.useful_succs
        finished = 0
        if self.at_most_once:
            for o in _bits(red & pending):
                if not succs[o] & ~computed:
                    finished |= 1 << o
            needed = self._needed(red, computed) | (pending & ~finished)
            return finished, red & ~needed
        dead = self._dead_of(self._done(red | blue))  # N18
        while True:  # storing a finished output can finish another (N14)
            live = self.live(blue | finished) & ~dead
            more = 0
            for o in _bits(red & pending & ~finished):
                if not succs[o] & live:
                    more |= 1 << o
            if not more:
                return finished, red & ~live
            finished |= more

    def idle_dropped(self, blue: int, dropped: int, stored: int, owed: int) -> int:
        """``blue`` after a block without its IDLE vertices (N17): ``dropped``, the spent
        vertices the block deletes, ``stored``, what it stores, ``owed``: O after it."""
        if self.at_most_once:
            return blue & ~(dropped & ~self.kept_blue)
        if stored & self.output_mask:
            return blue & (self.live(blue) | self.kept_blue | owed)
        return blue

    def _needed(self, red: int, computed: int) -> int:
        """One-shot: the red vertices with a useful successor not computed yet (N12, N13)."""
        needed, succs = 0, self.useful_succs
        for u in _bits(red):
            if succs[u] & ~computed:
                needed |= 1 << u
        return needed

    def _done(self, pebbled: int) -> int:
        """N18 (once ``single`` is set): the DONE vertices when ``pebbled`` have pebbles, the
        single ones with a pebble on their chain."""
        return self.done_of(pebbled) if self.single else 0

    def _dead_of(self, done: int) -> int:
        """N18: the vertices, no outputs, that the DONE set ``done`` leaves dead, those whose
        needed successors are all done (none without N18: nothing is done)."""
        if not done:
            return 0
        dead, succs = 0, self.useful_succs
        for u in self.users:
            if not succs[u] & ~done:
                dead |= 1 << u
        return dead

    def live(self, blue: int) -> int:
        """The vertices that are not dead (N11) when ``blue`` has blue: those from which an
        output without blue is reachable."""
        pending = self.output_mask & ~blue
        live = self.live_memo.get(pending)
        if live is None:
            if len(self.live_memo) >= _MEMO_MAX:
                self.live_memo.clear()
            live = self.live_memo[pending] = _useful_within(self.pred_mask, pending)
        return live

    def reachable(self, red: int, blue: int, computed: int) -> bool:
        """Whether a one-shot configuration is REACHABLE (N12): the predecessors of every
        computed vertex that are not inputs are computed, and every vertex with a pebble that
        is not an input is computed."""
        inputs = self.input_mask
        if (red | blue) & ~inputs & ~computed:
            return False
        return all(self.pred_mask[v] & ~inputs & ~computed == 0 for v in _bits(computed))

    # --- the search --------------------------------------------------------------------------

    def learn(self) -> None:
        """Let this search's later runs from given starts (``restricted_optimum``) use lower
        bounds learned from its earlier ones.  A run from c0 that ends with the optimum V(c0)
        closed each configuration x it expanded with the cost g of a real path from c0 to x, so
        V(x) >= V(c0) - g: else that path followed by an optimal schedule from x would beat
        V(c0).  A run asked only below a limit L that finds nothing there (``_exhausted``) learns
        the same with L, a lower bound on V(c0), in its place.  In recompute the bound is on V of
        x's red and blue, whatever loads the path owes there (every completion of x's node is a
        completion of them); in one-shot on V of (red, blue, computed).  Each later run takes as
        a successor's heuristic the largest of its count, the bound learned for it, and its
        parent's heuristic less the block's cost (PATHMAX: the block followed by an optimal
        completion from the successor is a completion from the parent, so that is no more than
        the successor's optimum either).  Every value is then still a lower bound on the cost of
        completing the node in the search, and f never falls along a block, but the heuristic
        need not be consistent: a closed configuration reached again more cheaply is REOPENED
        (stored and pushed again with its lower g).  A* with an admissible heuristic and
        reopening pops a goal only at the optimum: some configuration of an optimal path waits
        in the queue with its optimal g, at an f no more than the optimum.  The path returned is
        optimal, so the cost still to pay from each of its configurations is that
        configuration's optimum, as without learning (``restricted_optimum``).  For the flat
        restricted searches only: with a further ``bound`` the heuristic's memo would keep
        parents' values, and a search keyed by automorphisms closes orbits for good."""
        if self.bound is not None or self.part is None:
            raise InternalError("exhaustive search: learning is for flat restricted searches")
        self.learned = {}

    def _learn(self, closed: dict, cost: int) -> None:
        """Keep, for each configuration a run from a given start closed with g, the lower
        bound ``cost - g`` on its optimum (``learn``); ``cost``: the run's optimum."""
        learned = self.learned
        if learned is None:
            return
        if len(learned) >= _MEMO_MAX:
            learned.clear()
        once, pebbles = self.at_most_once, (1 << 2 * self.n) - 1
        for key, g in closed.items():
            at = self.pack(key) if once else key & pebbles
            if learned.get(at, 0) < cost - g:
                learned[at] = cost - g

    def run(self, below, max_states, deadline, start_state=None, known=None):
        """``steps`` to the end, with no pause."""
        self.pause, self.cap = None, max_states
        steps = self.steps(below, deadline, start_state, known)
        while True:
            try:
                next(steps)
            except StopIteration as end:
                return end.value

    def steps(self, below, deadline, start_state=None, known=None):
        """A* over canonical configurations (N8), as a generator: it pauses (yields) between
        two configurations once ``self.pause``, a ``time.monotonic()`` value, has passed, with
        ``self.level`` proved (``ExhaustiveRun``), and returns ((cost, schedule) or None,
        states stored, stop reason, proved lower bound).  ``start_state``: (red, blue, computed) to
        start from instead of the game's start (inputs blue), searched with no fresh vertex;
        then the answer is ((cost, path of keys) or None, ...), the path from the start to the
        goal with each key's g (``restricted_optimum``).

        ``known`` (with ``start_state`` only): exact optima of configurations (packed as the
        heuristic's memo keys, ``pack``).  A configuration x reached with a known optimum K(x)
        gets h(x) = K(x) and is a TERMINAL: when popped, it is a goal of final cost g + K(x),
        and it is never expanded.  This is A* on the configuration graph with an edge of cost
        K(x) from each such x to the goal and x's own blocks dropped: every path to the goal
        there is a legal schedule (the blocks to x, then an optimal schedule from x), and the
        optimal path of the configuration graph either avoids every terminal or reaches one
        with the same or a lower cost through its edge (K(x) is no more than any completion
        from x, fresh vertices or not, as fresh only narrows the normal form), so the optimum
        is the same.  The heuristic stays consistent on it: a terminal has only its edge, on
        which h(x) = K(x) + h(goal); on an edge of cost w into x from y,
        h(y) <= w + h_trivial(x) <= w + K(x) (the count is admissible).  On the path found, the
        cost still to pay from each configuration is its optimum (``restricted_optimum``), the
        terminal's included.

        A configuration packs red | blue << n | fresh << 2n | computed << 3n (computed:
        one-shot; in recompute O, the owed loads, N15); ``info[key] = (g, parent key, block,
        h, configuration)``, the configuration as reached, which is the one expanded.  The key
        is its canonical form (N8), or, with a group of LAZY_GROUP automorphisms or more, the
        configuration itself, made canonical only when it is popped: most stored
        configurations are never popped
        (attention_forward(2,2), 15 automorphisms, at M = 8: 6,735 of 539,934), so this makes
        far fewer canonical keys, at the price of storing images of one configuration apart
        (1.4 times the configurations there; with 3 automorphisms, 1.4 to 2.5 times as many,
        and still sooner: ``LAZY_GROUP``).  Either way a popped configuration whose orbit
        is closed is passed over.  With a consistent heuristic, which takes the same value on a
        whole orbit, the first configuration of an orbit popped has the orbit's smallest g, so
        closing the orbit with it is right; the first goal popped (N7) is optimal: every state
        left in the queue has f = g + h >= its f, and h is exact at a goal.  A run stopped
        early has proved the f it reached.

        PARTIAL EXPANSION (Yoshizumi, Miura and Ishida, AAAI 2000; a finite limit only): with
        ``self.partial`` = d, the levels expanded partially (0: none), a configuration popped at
        level f makes only its successors of f' < max(f + 1, limit - d), and goes back into
        the queue (flagged AGAIN, at bit 4n, past every field of a key) at the least f' that
        ``_expand`` reports it cut a successor on, to make, when popped there, the next ones,
        and so on up to the limit: the search stores no successor of those levels before its
        level comes (matmul(3,3,3) at M = 13, one-shot, below 30: 14.1 million configurations
        without finishing level 27 in 600 s; with the last level expanded partially, the
        optimum 29 from 2.7 million in 570 s).  The level popped is still proved and the first
        goal popped still optimal.  Take a cheapest path to a goal below the limit and its
        first configuration x whose orbit is not closed; its predecessor y on the path is
        closed, with its final g.  Either a pass over y made x, and x waits in the queue with
        its final g at f(x), as in plain A*; or no pass has made it yet, so f(x) is at least
        the lower bound L that y's last pass reported on what it cut (itself at least that
        pass's limit, above the level the pass was made at), and y waits, flagged, at L.
        Either way the queue holds an entry at a level at most f(x), which is at most the
        path's cost (f never falls along a path: the heuristic is consistent).  An AGAIN
        configuration's orbit is closed already, with its g, which is final; it is expanded
        with that g."""
        answer, begun = self._begin(below, deadline, start_state, known)
        if answer is not None:  # over before it started
            return answer
        limit, info, queue, closed = begun
        canonical = self.symmetry.canonical if self.lazy else None
        again = 1 << 4 * self.n  # partial expansion: a configuration to expand further
        while True:
            if self.pause is not None and time.monotonic() > self.pause:
                self.level, self.stored = queue.f, len(info)  # every popped one is expanded
                yield
                if self.handover is not None:  # ``ExhaustiveRun.farm_out``: go on farmed
                    farm, self.handover = self.handover, None
                    return (yield from self._farmed(begun, deadline, farm, resumed=True))
            key = queue.pop()
            if key is None:  # no schedule below the limit (or none at all)
                return self._exhausted(info, closed, limit)
            key = self._take(key, info, closed, canonical, again)
            if key is None:
                continue
            if self.goal(key):
                found = self._schedule(key, info) if start_state is None else _path(key, info)
                self._learn(closed, queue.f)
                return (queue.f, found), len(info), "", queue.f
            if known and self.pack(key) in known:  # a terminal: its optimum is known
                self._learn(closed, queue.f)
                return (queue.f, _path(key, info)), len(info), "", queue.f
            if deadline is not None and time.monotonic() > deadline:
                return None, len(info), "deadline reached", queue.f
            reach = self._reach(queue.f, limit)
            try:
                after = self._expand(key, info, closed, queue, deadline, known, reach)
            except DeadlineReached:  # raised by ``bound``: the level popped is proved
                after = None
            if after is None:  # cut short: the level popped is proved, and nothing more
                return None, len(info), "deadline reached", queue.f
            if after < limit:  # partial expansion: its successors of f >= reach are to come
                queue.push(after, info[key][3], key | again)
            if self.cap is not None and len(info) > self.cap:
                return None, len(info), f"state budget of {self.cap} states exhausted", queue.f

    def farmed_steps(self, below, deadline, farm):
        """``steps`` from the game's start, with the expansions' first half (``successors``,
        nearly all of the work) made by ``farm``'s processes, each holding the same search
        (with its ``bound``, which it asks there, ``completed``), and the second
        (``_admit``) here.  ``farm.submit(tag, tasks)`` sends a
        batch, ``farm.collect(deadline)`` gives back (tag, the successors of each task, None
        for one the deadline cut) for a batch sent, or None once ``deadline`` has passed;
        ``farm.capacity``: the batches sent and not collected at most.

        The same A*: a batch holds configurations of the level popped, ``queue.f``, and the
        level moves on only when no batch is out (``_Queue.pop(stay=True)``), so every level
        below the one reached is expanded in full and the level reached is proved, whatever
        the order the batches come back in; within a level the order of expansions is free
        (an orbit's first configuration popped has its least g, as every configuration of one
        level and one orbit has the same g).  Which configuration of a level comes first
        varies from run to run, so the configurations stored at a state cap do too."""
        self.farmable()
        answer, begun = self._begin(below, deadline, None, None)
        if answer is not None:
            return answer
        return (yield from self._farmed(begun, deadline, farm))

    def farmable(self) -> None:
        """Raise ``InternalError`` unless this search's expansions can be farmed."""
        if self.keep_closed:
            raise InternalError("exhaustive search: the farm keeps no closed configurations")

    def _farmed(self, begun, deadline, farm, resumed: bool = False):
        """``farmed_steps`` from the search state ``begun`` (``_begin``), at the start or
        where ``steps`` paused (every configuration popped there is expanded, so the state is
        one ``farmed_steps`` could have paused in).  ``resumed``: a batch is sent before the
        next pause."""
        limit, info, queue, closed = begun
        canonical = self.symmetry.canonical if self.lazy else None
        again = 1 << 4 * self.n
        out: dict[int, tuple[list[int], int]] = {}  # batch tag -> (the keys sent, reach)
        tag = 0
        while True:
            paused = not resumed and self.pause is not None and time.monotonic() > self.pause
            if paused and not out:
                self.level, self.stored = queue.f, len(info)
                yield
                resumed = True
                continue
            while not paused and len(out) < farm.capacity:
                batch: list = []
                while len(batch) < FARM_BATCH:
                    popped = queue.pop(stay=bool(out or batch))
                    if popped is None:
                        break
                    key = self._take(popped, info, closed, canonical, again)
                    if key is None:
                        continue
                    if self.goal(key):
                        return (queue.f, self._schedule(key, info)), len(info), "", queue.f
                    batch.append(key)
                if not batch:
                    break
                reach = self._reach(queue.f, limit)
                farm.submit(tag, [(info[key][4], info[key][0], info[key][3],
                                   info[key][1] is None, reach) for key in batch])
                out[tag], tag, resumed = (batch, reach), tag + 1, False
            if deadline is not None and time.monotonic() > deadline:
                return None, len(info), "deadline reached", queue.f
            if not out:
                if paused:
                    continue
                return self._exhausted(info, closed, limit)
            back = farm.collect(deadline)
            if back is None:  # the deadline passed: every level below the one popped is done
                return None, len(info), "deadline reached", queue.f
            done, made = back
            batch, reach = out.pop(done)
            for key, one in zip(batch, made):
                if one is None:  # cut short by the deadline
                    return None, len(info), "deadline reached", queue.f
                try:  # as ``_expand``
                    admitted = self._admit(key, one[1], info, closed, queue,
                                           min(reach, queue.limit))
                except DeadlineReached:  # raised by ``bound``: the level popped is proved
                    return None, len(info), "deadline reached", queue.f
                after = min(one[0], admitted)
                if after < limit:
                    queue.push(after, info[key][3], key | again)
            if self.cap is not None and len(info) > self.cap:
                return None, len(info), f"state budget of {self.cap} states exhausted", queue.f

    def _begin(self, below, deadline, start_state, known):
        """The search's start (``steps``): (None, (limit, info, queue, closed)) with the start
        pushed, or (the search's answer, None) if it is over before it starts."""
        n = self.n
        if deadline is not None and time.monotonic() > deadline:  # h0 costs 1.5 s on 10^5 vertices
            return (None, 0, "deadline reached", None), None
        red0, blue0, computed0 = (0, self.input_mask, 0) if start_state is None else start_state
        if self.single and start_state is not None:
            raise InternalError("exhaustive search: N18 holds from the game's start only")
        if self.at_most_once and not self.reachable(red0, blue0, computed0):
            raise InternalError("exhaustive search: a one-shot search must start at a reachable "
                                "configuration (N12)")
        if known and start_state is None:
            raise InternalError("exhaustive search: known optima are for searches from a "
                                "given start")
        try:
            h0 = known.get(red0 | blue0 << n | computed0 << 2 * n) if known else None
            h0 = self.heuristic(red0, blue0, computed0) if h0 is None else h0
        except DeadlineReached:
            return (None, 0, "deadline reached", self._trivial(self.output_mask & ~blue0, red0,
                                                               blue0, computed0)), None
        limit = INFINITY if below is None else below
        if h0 >= limit:
            return (None, 1, "", h0), None
        self.lazy = len(self.symmetry.group) >= LAZY_GROUP
        start = red0 | blue0 << n | computed0 << 3 * n  # fixed by every automorphism
        info = {start: (0, None, None, h0, start)}
        queue = _Queue(limit, h0)
        queue.push(h0, h0, start)
        return None, (limit, info, queue, {})  # closed: canonical key -> the g it was closed with

    def _take(self, key: int, info: dict, closed: dict, canonical, again: int) -> int | None:
        """A key popped, to expand (an AGAIN one, its flag cleared: its orbit is closed
        already, with its g), or None if its orbit is closed; else its orbit is closed now,
        with its g."""
        if key & again:
            return key ^ again
        orbit = canonical(key) if canonical else key
        if orbit in closed:
            return None
        closed[orbit] = info[key][0]
        return key

    def _reach(self, level: int, limit: int) -> int:
        """How far the expansions at ``level`` make successors: ``limit``, or with partial
        expansion (a finite limit only, ``steps``) the levels below ``limit - self.partial``
        and at least the next one."""
        if not self.partial or limit == INFINITY:
            return limit
        return min(limit, max(level + 1, limit - self.partial))

    def _exhausted(self, info: dict, closed: dict, limit: int):
        """The answer when no key is left below the limit: no schedule below it.  A run
        from a given start that learns (``learn``) keeps its closed configurations' bounds
        with ``limit`` for the optimum: the optimum is at least ``limit``, and the argument
        there needs only a lower bound on it."""
        if self.keep_closed:  # every key stored was pushed below the limit, so popped
            self.closed = closed
        if limit != INFINITY:
            self._learn(closed, limit)
        return None, len(info), "", None if limit == INFINITY else limit

    def goal(self, key: int) -> bool:
        """Whether a search key is a GOAL: every output red or blue (N7) and, in recompute,
        no load owed (N15: else no completion is minimal)."""
        n = self.n
        return (self.output_mask & ~(key | key >> n) & self.full == 0
                and (self.at_most_once or not key >> 3 * n))

    def pack(self, key: int) -> int:
        """The configuration of a search key (red | blue << n | fresh << 2n | computed << 3n)
        as the heuristic's memo keys it, red | blue << n | computed << 2n: fresh dropped."""
        n = self.n
        return key & ((1 << 2 * n) - 1) | key >> 3 * n << 2 * n

    def _expand(self, key: int, info: dict, closed: dict, queue: "_Queue",
                deadline: float | None = None, known: dict | None = None,
                limit: int = INFINITY) -> int | None:
        """Push every block's successor whose g improves and whose f stays below ``limit``
        (the queue's, or less: partial expansion, ``steps``), and return a lower bound on the
        f of every successor cut at ``limit`` (INFINITY if none was).  Once ``deadline`` has
        passed, stop early and return None: the caller must then stop at once, before it pops
        another configuration (the f of the one popped last is proved; a successor this
        expansion left out may lie below every configuration in the queue, or the queue may
        be empty).  ``known``: ``run``.  Two halves: ``successors`` (the blocks and their
        heuristic values; another process may make them, ``farmed_steps``) and ``_admit``."""
        g, _, _, h, reached = entry = info[key]
        limit = min(limit, queue.limit)
        made = self.successors(reached, g, h, entry[1] is None, limit, deadline, known)
        if made is None:
            return None
        after, out = made
        return min(after, self._admit(key, out, info, closed, queue, limit))

    def successors(self, reached: int, g: int, h: int, start: bool, limit: int,
                   deadline: float | None = None, known: dict | None = None):
        """The successors of the configuration ``reached`` (a search key's fields, reached
        with cost ``g`` and heuristic value ``h``; ``start``: the search's first one) whose f
        stays below ``limit``, as (after, [(ng, h, raw key, block, whole, base), ...]):
        ``after`` a lower bound on the f of every successor cut (INFINITY if none was),
        ``whole`` whether ``h`` is the whole heuristic (else ``bound`` is still to be asked,
        ``_admit``), ``base`` the same without the next block's evictions (``debt``,
        ``_eviction_debt``: raised to the count plus them, never kept in a memo); None if
        ``deadline`` passed first.  A function of its arguments and the search's fixed data
        only (its memos are caches), so that another process holding the same search makes the
        same ones (``farmed_steps``; with a ``bound``, completed there, ``completed``)."""
        n, full = self.n, self.full
        bounded = self.bound is not None
        n2, n3 = 2 * n, 3 * n
        red, blue = reached & full, reached >> n & full
        fresh, computed = reached >> n2 & full, reached >> n3
        output_mask, memo, learned = self.output_mask, self.memo, self.learned
        once = self.at_most_once  # ``_trivial`` is exact in one-shot, whatever its cap
        # Without ``bound`` the memo holds the whole heuristic; with it, ``trivial_memo`` holds
        # the cheap count alone, so a successor it already puts out of reach costs no call of
        # ``bound``.
        trivial_memo = self.trivial_memo if bounded else memo
        beyond = INFINITY  # the least f of a successor cut at ``limit``
        out = []
        budget = less(limit, g)
        blocks = self.blocks(red, blue, fresh, computed, start, budget, less(budget, h))
        for i, (cost, nred, nblue, nfresh, ncomp, block) in enumerate(blocks, 1):
            if (deadline is not None and i % _CHECK_CLOCK_EVERY == 0
                    and time.monotonic() > deadline):
                return None
            ng = g + cost  # ``blocks`` left out those whose stores and owed loads reach limit
            pebbles = nred | nblue << n
            hkey = pebbles | ncomp << n2
            value: int | None = known.get(hkey) if known else None  # a terminal (``run``)
            terminal = value is not None
            if value is None:
                value = memo.get(hkey)
            if value is not None and value < 0 and trivial_memo is not memo:
                if ng - value >= limit:  # a capped bound's answer: at least -value (``_admit``)
                    beyond = min(beyond, ng - value)
                    continue
                value = None
            whole = value is not None  # the heuristic itself, not only its cheap count
            if value is None or value < 0:
                if trivial_memo is not memo:  # else value is what it holds already
                    value = trivial_memo.get(hkey)
                if value is not None and value < 0:  # the count is at least -value (a cap)
                    if ng - value >= limit:
                        beyond = min(beyond, ng - value)
                        continue
                    value = None
                if value is None:
                    if len(trivial_memo) >= _MEMO_MAX:
                        trivial_memo.clear()
                    value = self._trivial(output_mask & ~nblue, nred, nblue, ncomp, limit - ng)
                    if ng + value >= limit:  # recompute: perhaps only a lower bound, kept as one
                        trivial_memo[hkey] = value if once else -value
                        beyond = min(beyond, ng + value)
                        continue
                    trivial_memo[hkey] = value
                whole = not bounded or value == INFINITY
            # the count itself, exact (-1: not wanted, not at hand, or a terminal's optimum)
            count = -1
            if self.debt and not terminal:
                count = value if trivial_memo is memo or not whole else trivial_memo.get(hkey, -1)
            if learned is not None and value != INFINITY:  # ``learn``
                lower = learned.get(hkey if once else pebbles, 0)
                value = max(value, lower, h - cost)
            raw = pebbles | nfresh << n2 | ncomp << n3
            base = value  # the heuristic without the debt, which reads the fresh vertices
            if 0 <= count < INFINITY and ng + value < limit:
                value = max(value, count + self._debt_of(raw, nred, nblue, nfresh, ncomp))
            if ng + value >= limit:
                beyond = min(beyond, ng + value)
                continue
            out.append((ng, value, raw, block, whole, base))
        return min(beyond, limit + self.beyond), out

    def _admit(self, key: int, out: list, info: dict, closed: dict, queue: "_Queue",
               limit: int) -> int:
        """Store and push the successors ``out`` of ``key`` (``successors``) that improve on
        what is stored, asking ``bound`` for those without their whole heuristic; return the
        least f of those the bound puts at or past ``limit`` (INFINITY if none).  ``lazy``
        (``run``): successors are keyed as reached, and made canonical when popped (a
        successor whose orbit is closed already is passed over there).

        A CAPPED bound (``bound_capped``; ``AbstractionBound``) is asked with the room left
        below the queue's limit, ``queue.limit - g``, and answers exactly below the room; at
        or past it, it may answer only a lower bound at least as large.  Either way a
        successor whose f reaches the queue's limit is cut here, as it would be with the
        exact value, which is no smaller: the search stores, pushes and pops the same
        configurations, so everything ``steps`` proves stands.  Such an answer is kept in
        the memo negated, as a lower bound only (``successors`` cuts with it, or asks again);
        ``limit`` being ``queue.limit`` or less, the least f reported is still a lower bound
        on every successor cut."""
        canonical, lazy, memo, top = self.symmetry.canonical, self.lazy, self.memo, queue.limit
        beyond = INFINITY
        for ng, h, nraw, block, whole, base in out:
            nkey = nraw if lazy else canonical(nraw)
            old = info.get(nkey)
            if old is not None:
                # consistent heuristic: closed orbits are final (not lazy, a closed key is a
                # stored one, ``_take``: only a stored key needs looking up there)
                if old[0] <= ng:
                    continue
                if self.learned is not None:  # ``learn``: a closed key reached cheaper reopens
                    closed.pop(nkey, None)
                    h = max(h, old[3])
                elif not lazy and nkey in closed:
                    continue
                else:
                    h = old[3]
            elif not whole:
                h = max(h, self._bounded(nraw, ng, base, top))
                if ng + h >= limit:
                    beyond = min(beyond, ng + h)
                    continue
            info[nkey] = (ng, key, block, h, nraw)
            queue.push(ng + h, h, nkey)
        return beyond

    def _bounded(self, nraw: int, ng: int, base: int, top: int) -> int:
        """``bound``'s value at the configuration ``nraw`` reached with cost ``ng`` (whose
        memo entry ``successors`` found wanting), asked with the room below ``top`` if it is
        capped (``_admit``), and kept in the memo as at least the count ``base``: negated
        where it reaches ``top``."""
        n, full, memo = self.n, self.full, self.memo
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        # The bound is the same on an orbit: on the canonical image, so that the images of
        # one configuration share its work, unless it shares it itself.
        image = nraw if self.bound_keyed else self.symmetry.canonical(nraw)
        # the memo keeps the heuristic without the debt (``base``), which reads the fresh
        # vertices, not in the memo's keys (``_eviction_debt``)
        red, blue, computed = image & full, image >> n & full, image >> 3 * n
        if self.bound_capped:
            value = self.bound(red, blue, computed, less(top, ng))
            kept = max(base, value)
            memo[self.pack(nraw)] = -kept if ng + kept >= top else kept
        else:
            value = self.bound(red, blue, computed)
            memo[self.pack(nraw)] = max(base, value)
        return value

    def completed(self, made, limit: int):
        """``successors``' answer ``made`` (below ``limit``) with ``bound`` asked, as
        ``_admit`` asks it with the room below ``limit``, for each successor without its
        whole heuristic, and those it puts at or past ``limit`` cut (the least f cut kept in
        the first term): for a farm's worker holding the bound of the search it works for
        (``ioverify.search.farm``), so that the bound is asked there.  Its values are the
        ones asked here: a sum of restricted optima, exact below the room (``AbstractionBound``),
        and a successor at or past the room is cut either way."""
        after, out = made
        kept = []
        for ng, h, nraw, block, whole, base in out:
            if not whole:
                h = max(h, self._bounded(nraw, ng, base, limit))
                if ng + h >= limit:
                    after = min(after, ng + h)
                    continue
            kept.append((ng, h, nraw, block, True, base))
        return after, kept

    def _schedule(self, goal: int, info: dict) -> Schedule:
        """Expand the path of blocks into explicit moves, then store the red outputs (N7).
        Each block was applied to the configuration its parent was reached as (``run``), so
        it applies as found; each step is checked to lead to the configuration recorded."""
        path: list[tuple[int, tuple, int]] = []
        key = goal
        while info[key][1] is not None:
            _, parent, block, _, reached = info[key]
            path.append((info[parent][4], block, reached))
            key = parent
        n, full = self.n, self.full
        kinds, verts = bytearray(), []
        actual = info[key][4]
        for parent, block, child in path[::-1]:  # (not reversed(): the compiled copy)
            c, gone, stored, finished, drop = block
            if parent != actual:
                raise InternalError("exhaustive search: a path does not follow its blocks")
            for u in _bits(gone):
                if stored >> u & 1:
                    kinds.append(STORE)
                    verts.append(u)
                kinds.append(DELETE)
                verts.append(u)
            for p in _bits(self.pred_mask[c] & ~(actual & full)):
                kinds.append(LOAD)
                verts.append(p)
            kinds.append(COMPUTE)
            verts.append(c)
            for u in _bits(finished):  # N14: the finished outputs
                kinds.append(STORE)
                verts.append(u)
            for u in _bits(drop):  # N13, N14: the spent vertices
                kinds.append(DELETE)
                verts.append(u)
            actual = self._after(actual, (c, gone, stored, finished, drop))
            if actual != child:
                raise InternalError("exhaustive search: a block did not lead to its recorded "
                                    "state")
        blue = actual >> n & full
        for v in _bits(self.output_mask & ~blue):
            kinds.append(STORE)
            verts.append(v)
        return Schedule(kinds, verts)

    def _after(self, key: int, block: tuple[int, int, int, int, int]) -> int:
        """The configuration after ``block`` (``blocks``): evict, store, compute c, store the
        finished outputs and delete the spent vertices."""
        c, gone, stored, finished, drop = block
        n, full = self.n, self.full
        red, blue = key & full, key >> n & full
        fresh, computed = key >> 2 * n & full, key >> 3 * n
        preds, bit = self.pred_mask[c], 1 << c
        missing = preds & ~red
        red = ((red & ~gone) | preds | bit) & ~drop
        fresh = ((fresh & ~preds & ~gone) | bit) & ~drop
        if self.at_most_once:
            computed |= bit
        else:  # N15: O less the loads, with the stores of vertices no output
            computed = computed & ~missing | stored & ~self.output_mask
        blue = self.idle_dropped(blue | stored | finished, drop, stored | finished, computed)
        return red | blue << n | fresh << 2 * n | computed << 3 * n


# ``_cheapest_loads`` branches at most this often per count, then ``_min_cut`` takes over (the
# same value, in polynomial time).  Attention_forward(2,2) at M = 4, recompute: 9 in 10 counts
# with a choice take fewer than 20 nodes, the most seen 130.
_BRANCH_NODES = 2_000


class _TooManyNodes(Exception):
    """``_cheapest_loads`` has branched ``_BRANCH_NODES`` times."""


# ``_compiled_union`` up to this many vertices (past it ``_trivial`` walks a vertex at a time
# and ``_Search._ready`` tests one at a time), by default in chunks of 16 bits up to 64 vertices
# (4 tables of 65,536 masks, 0.05 s to build), else of 8.
_UNION_MAX_VERTICES = 128


def _compiled_union(masks: list[int], step: int | None = None):
    """The function mask -> the OR of ``masks[v]`` over the bits v of mask, as one expression
    of table look-ups, one per chunk of the mask's bits: the OR over a chunk's bits is
    tabulated for each of its values (built incrementally, each entry one OR).  On
    sparse_forward(causal 3,1) (36 vertices) at M = 5, recompute, below 16, ``_trivial`` with
    it makes the search 1.4 times as fast (53 s -> 39 s, the same 237,828 configurations).
    ``step``: the bits of a chunk, if not the default."""
    if step is None:
        step = 16 if len(masks) <= 64 else 8
    tables = []
    for base in range(0, len(masks), step):
        chunk = masks[base:base + step]
        table = [0] * (1 << len(chunk))
        for value in range(1, len(table)):
            low = value & -value
            table[value] = table[value ^ low] | chunk[low.bit_length() - 1]
        tables.append(table)
    width = (1 << step) - 1
    terms = [f"T{i}[(mask >> {i * step}) & {width:#x}]" for i in range(len(tables))] or ["0"]
    scope: dict[str, object] = {f"T{i}": table for i, table in enumerate(tables)}
    exec(compile("def union(mask):\n    return " + " | ".join(terms), "<union>", "exec"),
         scope)  # noqa: S102 (our own text)
    return scope["union"]


def _path(goal: int, info: dict) -> list[tuple[int, int]]:
    """The (key, g) of every configuration on the path from the start to ``goal``."""
    path = []
    key: int | None = goal
    while key is not None:
        path.append((key, info[key][0]))
        key = info[key][1]
    return path


class _NoSymmetry:
    """The trivial group (a restricted game, ``_Search(part=...)``): every key is its own
    canonical key."""

    group: list = []

    def keep_only(self, keep) -> None:
        pass

    def canonical(self, key: int) -> int:
        return key


class _Queue:
    """A bucket queue on f = g + h, and within one f on h, lowest first: among states of equal
    f the search goes on from those nearest a goal, which finds the goal of the last layer
    (f = optimum) early.  Keys are pushed with integer f below ``limit``."""

    def __init__(self, limit, start: int):
        self.limit = limit
        self.levels: list[list[list[int]]] = []
        self.f = start
        self.low = 0  # no stack of level f below this h is non-empty

    def push(self, f: int, h: int, key: int) -> None:
        levels = self.levels
        while len(levels) <= f:
            levels.append([])
        level = levels[f]
        while len(level) <= h:
            level.append([])
        level[h].append(key)
        if f < self.f:
            raise InternalError("exhaustive search: f decreased (inconsistent heuristic)")
        if f == self.f and h < self.low:
            self.low = h

    def pop(self, stay: bool = False) -> int | None:
        """The next key, or None when every f below the limit is exhausted (``stay``: when
        level f is, without moving on to the next)."""
        levels = self.levels
        while self.f < len(levels) and self.f < self.limit:
            level = levels[self.f]
            while self.low < len(level):
                stack = level[self.low]
                if stack:
                    return stack.pop()
                self.low += 1
            if stay:
                return None
            self.f += 1
            self.low = 0
        return None


def _bit_list(mask: int) -> list[int]:
    """The set bits of ``mask`` as one-bit masks, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def _submasks(mask: int):
    """Every subset of ``mask`` (as masks), the empty one first."""
    sub = 0
    while True:
        yield sub
        if sub == mask:
            return
        sub = (sub - mask) & mask


class _Symmetry:
    """N8: configurations up to the automorphisms of the DAG (``ioverify.dag.symmetry``, each
    re-checked against the definition).  An automorphism maps legal schedules to legal schedules
    of the same I/O and normal form, fixes the start and the goals, and preserves the
    heuristic, so the optimal cost from a configuration equals that from its image: the search
    may expand one configuration per orbit, known by its canonical key (the smallest image;
    ``_Search.run`` makes it when it pops a configuration).  A key has ``parts`` bitmasks
    of n bits (red, blue, fresh and, in one-shot, computed), each permuted alike.

    A permutation is applied as a few shifts: the vertices v with the same offset
    perm[v] - v form one mask, and the image of a mask is the OR of its bits under each of
    those masks shifted by its offset.  The DAG families number their vertices in regular
    blocks, so an automorphism has few offsets (3 to 20 on attention_forward(2,2)).  The
    least image is found a part at a time, from the most significant: an image whose first
    part differs from the best one's is decided there, and most are, so the image of one
    n-bit mask per automorphism is all that is usually built (``canonical``)."""

    # Larger groups are not used (the group is then the trivial one).  The cap bounds the
    # cost of a canonical key, one image per automorphism; up to it a group pays: matmul(3,3,3)
    # (144 automorphisms) at M = 14, one-shot, below 29, stored 11,118 configurations in 3.9 s
    # with its group against 382,767 in 75.1 s without (docs/performance.md).
    MAX_GROUP = 512

    def __init__(self, dag: DAG, parts: int, deadline: float | None = None):
        self.n = n = len(dag)
        self.parts = parts
        self.full = (1 << n) - 1
        # Empty past MAX_GROUP or the deadline: a subset of the group would not give one
        # canonical key per orbit, and the trivial group is always sound.
        group = symmetry.checked_automorphisms(dag, self.MAX_GROUP, deadline)
        identity = tuple(range(n))
        self.group: list[tuple[int, ...]] = [perm for perm in group if perm != identity]
        shifts = [_signed_shifts(perm, deadline) for perm in self.group]
        if None in shifts:  # the deadline passed: no symmetry, as for a large group
            self.group, shifts = [], []
        self.shifts: list = shifts

    def keep_only(self, keep) -> None:
        """Keep the automorphisms g with ``keep(g)`` (the caller's guarantee: they form a
        group, such as the automorphisms mapping each part of a partition onto a part).  Called
        before the search starts."""
        kept = [i for i, perm in enumerate(self.group) if keep(perm)]
        self.group = [self.group[i] for i in kept]
        self.shifts = [self.shifts[i] for i in kept]

    def canonical(self, key: int) -> int:
        """The least of ``key`` and its images.  Keys compare as their parts do, the most
        significant first, so each image is compared with the best so far a part at a time,
        on n-bit masks, a part's image made only when every part above it ties: most images
        are decided by their first part (a test compares the value with the least of the
        whole images)."""
        if not self.shifts:
            return key
        n, full, parts = self.n, self.full, self.parts
        mine = [key >> part * n & full for part in range(parts)]
        best = _least_images(self.shifts, mine, mine)
        if best is mine:
            return key
        least = 0
        for part in range(parts):
            least |= best[part] << part * n
        return least


def _signed_shifts(perm: tuple[int, ...], deadline: float | None = None):
    """``perm`` on one n-bit mask as (masks, offsets): the vertices v of one offset
    perm[v] - v form one mask, which moves by that offset (negative: to lower bits); None if
    ``deadline`` passes."""
    by_offset: dict[int, int] = {}
    for v, w in enumerate(perm):
        if deadline is not None and v % 4096 == 0 and time.monotonic() > deadline:
            return None
        by_offset[w - v] = by_offset.get(w - v, 0) | 1 << v
    offsets = sorted(by_offset)
    return [by_offset[offset] for offset in offsets], offsets


def _least_images(shifts: list, mine: list[int], best: list[int]) -> list[int]:
    """The least of ``best`` and the images of ``mine`` under ``shifts`` (``_signed_shifts``
    of each permutation), as lists of n-bit masks compared from the last, the most
    significant: each image is compared with the best so far a mask at a time, a mask's image
    made only when every mask above it ties, and most are decided by their first (a test
    compares the value with the least of the whole images).  Returns ``best`` itself if no
    image is less."""
    parts = len(mine)
    for masks, offsets in shifts:
        part = parts - 1
        while True:
            image = _mask_image(masks, offsets, mine[part])
            if image != best[part]:
                if image < best[part]:
                    best = [_mask_image(masks, offsets, mine[other]) if other < part
                            else image if other == part else best[other]
                            for other in range(parts)]
                break
            if part == 0:  # an image equal to the best
                break
            part -= 1
    return best


def _mask_image(masks: list[int], offsets: list[int], mask: int) -> int:
    """The image of one n-bit ``mask`` under the shifts of ``_signed_shifts``."""
    image = 0
    for i in range(len(masks)):
        offset = offsets[i]
        if offset >= 0:
            image |= (mask & masks[i]) << offset
        else:
            image |= (mask & masks[i]) >> -offset
    return image


class LeastImage:
    """The function key -> the least image of ``key`` (three n-bit masks: red | blue << n |
    computed << 2n) under ``perms`` (at least one; ``key`` itself only if the identity is
    among them), each permuting the three masks alike: the abstraction bound keys each part's
    values by it (``AbstractionBound.key_by``).  Found as ``_Symmetry.canonical`` finds its
    keys, a mask at a time from the most significant, each image made only while the masks
    above it tie: on n-bit masks, which the compiled search holds unboxed up to 62 bits,
    where a whole key is a long integer (attention_forward(2,2) at M = 3, recompute, the rows
    sharing their inputs, the part of 8 automorphisms onto the other: 7.0 us a key as
    straight-line code on whole keys, 9.1 us as a compiled loop on them, 3.1 us this way)."""

    def __init__(self, perms: list[tuple[int, ...]], n: int):
        if not perms:
            raise InternalError("least image: no permutation given")
        self.n, self.full = n, (1 << n) - 1
        shifts = [_signed_shifts(perm) for perm in perms]
        self.first, self.rest = shifts[0], shifts[1:]

    def __call__(self, key: int) -> int:
        n, full = self.n, self.full
        mine = [key & full, key >> n & full, key >> 2 * n]
        masks, offsets = self.first
        best = _least_images(self.rest, mine, [_mask_image(masks, offsets, m) for m in mine])
        return best[0] | best[1] << n | best[2] << 2 * n


def _in_time(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise DeadlineReached("deadline reached before the search started")


def _masks(sets, deadline: float | None) -> list[int]:
    """One bit mask per vertex set; on a DAG of many vertices each mask is a long integer, so
    the clock is read every 1,024 of them."""
    masks = []
    for i, vertices in enumerate(sets):
        if i % 1024 == 0:
            _in_time(deadline)
        masks.append(sum(1 << v for v in vertices))
    return masks


def _weighted_count(scale: int, weights: dict[int, int]):
    """mask -> the sum over its bits v of ``weights.get(v, scale)`` (a few masked counts)."""
    by_weight: dict[int, int] = {}
    for v, w in weights.items():
        if not (isinstance(w, int) and 0 < w):
            raise InternalError(f"exhaustive search: weight {w!r} of vertex {v} is not a "
                                "positive integer")
        if w != scale:
            by_weight[w] = by_weight.get(w, 0) | 1 << v
    classes = [(mask, scale - w) for w, mask in sorted(by_weight.items())]
    lights = 0
    for light, _ in classes:
        lights |= light

    def cost(mask: int) -> int:
        total = scale * mask.bit_count()
        # Most masks hold no lighter vertex (the shared inputs): the stores, the computes
        # (sparse_forward(causal 3,1) at M = 3, recompute, the rows sharing their inputs:
        # 1.45 times the restricted searches in a given time, docs/performance.md).
        if mask & lights:
            for light, less in classes:
                total -= less * (mask & light).bit_count()
        return total

    return cost


def _single_demand(dag: DAG) -> tuple[int, Any]:
    """N18: (SINGLE as a mask, the function from a mask of vertices with pebbles to the DONE
    vertices)."""
    demand = compute_demands(dag)
    n, needed = len(dag), set(dag.useful)
    single = [u for u, c in demand.items() if c == 1]
    done_by = [0] * n  # v -> the single u with v on chain(u)
    for u in single:
        v = u
        done_by[v] |= 1 << u
        while not dag.is_output[v]:
            after = [s for s in dag.succs[v] if s in needed]
            if len(after) != 1 or demand[after[0]] != 1:
                raise InternalError(f"exhaustive search: vertex {v} has demand 1 but not one "
                                    "needed successor of demand 1")
            v = after[0]
            done_by[v] |= 1 << u
    if n <= _UNION_MAX_VERTICES:
        return _mask_of(single, n), _compiled_union(done_by, 8)

    def union(mask: int) -> int:
        out = 0
        for v in _bits(mask):
            out |= done_by[v]
        return out
    return _mask_of(single, n), union


def _useful_within(pred_mask: list[int], output_mask: int) -> int:
    """The vertices from which some output of ``output_mask`` is reachable along the edges of
    ``pred_mask`` (N1 in a restricted game; vertices are topologically numbered)."""
    useful = output_mask
    for v in range(len(pred_mask) - 1, -1, -1):
        if useful >> v & 1:
            useful |= pred_mask[v]
    return useful


def _useful_mask(dag: DAG) -> int:
    """The vertices from which some output is reachable (outputs included): N1."""
    useful = bytearray(len(dag))
    for v in dag.outputs:
        useful[v] = 1
    succs = dag.succs
    for v in range(len(dag) - 1, -1, -1):
        if not useful[v] and any(useful[s] for s in succs[v]):
            useful[v] = 1
    return _mask_of((v for v in range(len(dag)) if useful[v]), len(dag))


_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def _mask_of(vertices, n: int) -> int:
    """The mask with the bits of ``vertices`` set, in time linear in ``n`` (a sum of shifted
    ones is quadratic on a DAG of many vertices)."""
    flags = bytearray(n)
    for v in vertices:
        flags[v] = 1
    return int(bytes(reversed(flags)).translate(_DIGITS) or b"0", 2)
