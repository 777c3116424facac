"""A checker of search certificates, in pure Python (trusted; docs/explanation/proofs.md).

A SEARCH CERTIFICATE for "no complete schedule of the DAG with M red pebbles, in the variant,
costs less than BELOW" lists configurations of the game with a number g each: the closed
configurations of a finished exhaustive search and the I/O of the cheapest path it found to
each.  This module checks it locally, one configuration at a time, enumerating every block
that leaves it by the game's rules (docs/explanation/game.md) and the normal form stated below,
without the search's code (it imports nothing of ``ioverify.game``).

A configuration is (R, B, F, C): red, blue, FRESH (red vertices computed and not used since as
a predecessor) and, in one-shot, computed; in recompute C is O, the OWED vertices: stored, no
output, and not loaded since.  A vertex is LIVE when an output without blue is
reachable from it (itself, if it is an output).  A BLOCK for a vertex c that is not an input,
from which an output is reachable, not red (one-shot: not computed; recompute: live), whose
predecessors P not red all have blue: evict e = max(0, |R| + |P \\ R| + 1 - M) red vertices
outside P and not both fresh and blue, storing, in recompute, every evicted fresh one without
blue and any other evicted live one without blue, in one-shot exactly the evicted ones without
blue that are outputs or have a successor, from which an output is reachable, not computed;
load P \\ R; compute c; store every FINISHED output (red, without blue, no successor from
which an output is reachable left to compute in one-shot, none live in recompute; repeated,
as one stored can finish another); delete every red vertex that is then GARBAGE (recompute:
not live; one-shot: no output without blue, and no successor from which an output is
reachable left to compute).  Its cost is the loads plus the stores; afterwards F is
(F \\ P \\ evicted \\ garbage) + c, and in recompute O is (O \\ loaded) + (stored \\ outputs).
In one-shot, when |R| < M, a vertex c is EAGER if an output is reachable from it, it is not
computed, its predecessors are all red, and one of them, p, has no successor other than c
from which an output is reachable left to compute, and is either without blue and no
output, or blue while c is an output; where eager vertices exist, the blocks from the
configuration are those of one eager vertex alone (check (3) passes if it passes for the
blocks of any one of them).
The NORMAL FORM theorem (proved in ``ioverify.game.exhaustive``, N1-N16, and restated in
docs/explanation/proofs.md): if some complete schedule costs q, then some schedule of
I/O <= q is a sequence of blocks from the start (R, F, C empty, B the inputs) followed by
stores of outputs, the configuration before those stores has every output red or blue (a
GOAL), and the configurations before it do not; in recompute, moreover, every vertex it stores
that is no output it loads again later, it loads no vertex from which no output without blue
is reachable, and it owes nothing at its goal.  In one-shot, moreover (N16): if such a
schedule reaches a configuration between its blocks where a vertex c is eager, some schedule
with the same blocks up to there, continuing with the block of c, is one too.  That theorem is
what this checker relies on; everything else it derives.

LOWER(R, B, C), the transfers every legal continuation needs: the outputs without blue need a
store each; let MUST be the outputs with neither pebble and, recursively, the predecessors with
neither pebble of a MUST vertex (each can get red only by a compute, which its MUST successor
needs); each predecessor of a MUST vertex that is not red and is an input (recompute) or has
blue (one-shot: an input, or computed and stored, so never computed again) needs a load of its
own.  In one-shot a computed MUST vertex cannot be computed again: no continuation exists.
In recompute a predecessor of a MUST vertex that is blue, not red and no input is a CHOICE: it
is loaded (one load of its own) or computed (then it joins MUST, and so do, recursively, its
predecessors with neither pebble); LOWER counts the cheapest way over every choice.  Every
continuation makes each MUST vertex red (an output needs red to be stored; a predecessor, to
compute its successor) and so, taking for each choice whether its first time red is a load
or a compute, pays at least the loads of one of the ways counted: LOWER never exceeds what it
pays.  (It is the optimum of the game with no bound on red pebbles.)  With vertices owed,
LOWER(R, B, O) is |O| + LOWER(R + O, B), or INFINITE if a vertex of O has no output without
blue reachable from it: the rest of the theorem's schedule loads each vertex of O (one load
each), and counted red from the start they only spare it loads and computes; and it never
loads a vertex from which no output without blue is reachable (blue only grows, so that
stays so).

TWINS.  Call a vertex IDLE in a configuration when it is no input, no output, not red, not
owed (recompute) and either computed with no successor, from which an output is reachable,
left to compute (one-shot) or not live (recompute); two configurations are TWINS when they
differ only in the blue of vertices idle in both (idle reads no blue but the outputs', so this
is an equivalence, and automorphisms map twins to twins).  Twins have the same blocks, of the
same costs, to twins; the same eager vertices; the same goal status and outputs without blue;
and the same LOWER.  For every rule above reads the blue only of outputs, of red vertices (the
evicted ones, the finished ones, the garbage), of the predecessors of a vertex c not computed
from which an output is reachable (one-shot) or live (recompute) (the loads of c's block, the
eager p), and, in LOWER, of the predecessors of MUST vertices, which are not computed (else
LOWER is INFINITE for both) and reach an output without blue: none of these is idle.  A block
makes red only c and its predecessors, which were not idle, and owes only what it stores, which
was red; and an idle vertex stays idle (C and the outputs' blue only grow): so the vertices
where the twins differed are idle in both results, which are twins.

The CHECK, for the listed configurations L with their numbers g(L):
  (1) the start is listed with g = 0, or LOWER(start) >= BELOW;
  (2) a listed goal (in recompute, owing nothing) has g + (its outputs without blue) >= BELOW;
  (3) for every other listed L and every block from L of cost w to L' (where L has eager
      vertices: every block of one of them, whichever passes): some image of L', or of its
      twin without blue on its idle vertices, under the listed automorphisms is listed with
      g <= g(L) + w, or g(L) + w + LOWER(L') >= BELOW.

THE FLOOR (one-shot; how (3) is checked for the blocks of one vertex c at once).  Let R0 be
red after a block's loads and c, before its evictions, C' = C + c, and MUST0, REACHED0 the
MUST of LOWER at R0 (from the outputs without blue and not red, through predecessors neither
red nor blue) and its vertices' predecessors.  If MUST0 meets C', LOWER is INFINITE after every
block of c; otherwise every block of c that evicts G and stores S has
  w + LOWER(L') >= loads + |outputs without blue| + |S \\ outputs| + BASE + |G within REACHED0|,
BASE = |REACHED0, not in R0, with blue|.  Proof: after the block red is within R0 and blue
within B + R0, and an output without blue and not red at R0 is still so (the block stores and
finishes only red vertices), so the walk starts from more and stops at fewer: MUST contains
MUST0 (INFINITE if MUST0 meets C'), its predecessors REACHED0.  Each output without blue
before the block is stored by it (in w) or still without blue (in LOWER); S \\ outputs is in w;
a vertex of REACHED0 not red at R0 with blue is not red after and keeps its blue, a load of
LOWER; a vertex v of G within REACHED0 is a predecessor of a MUST0 vertex not computed, from
which an output is reachable, so v was needed and has blue after the block (stored if it had
none): a load of LOWER too.  These terms count disjoint moves.  So a block whose right-hand
side reaches BELOW - g(L) passes (3) with no look-up: ``blocks(budget=...)`` leaves it out,
and leaves out all of c's where the side reaches it with the fewest evictions within
REACHED0 (|G| less the evictable vertices outside REACHED0).

THE FLOOR in recompute.  Let R0 be red after a block's loads and c, O0 = O less what it loads,
and UNLIMITED the optimum of the game with no bound on red pebbles (LOWER without owed vertices,
which counts a store per output without blue plus the cheapest loads).  Every block of c that
evicts G and stores S, with K = S \\ outputs, has
  w + LOWER(L') >= loads + |K| + |O0 + K| + UNLIMITED(R0 + O0, B).
Proof: w is the loads, |S| and the finished outputs' stores; LOWER(L') is |O'| (O' = O0 + K)
plus UNLIMITED(R' + O', B') (or INFINITE).  Each output without blue before the block is in S,
finished, or still without blue after it, so |S within outputs| + |finished| + UNLIMITED's
stores after it is |outputs without blue| before it, UNLIMITED(R0 + O0, B)'s stores.  And
UNLIMITED's loads only fall as red or blue grow (a continuation from fewer pebbles is one from
more), blue on a red vertex changes nothing, R' + O' is within R0 + O0 (S within R0), and B' is
within B + R0.  So a block whose right-hand side reaches BELOW - g(L) is left out, and all of
c's where loads + |O0| + UNLIMITED(R0 + O0, B) reaches it.

The listed permutations must each be an automorphism of the DAG (inputs to inputs, outputs to
outputs, the predecessors of v onto those of its image).

SOUNDNESS.  Suppose a complete schedule costs q < BELOW.  By the normal form theorem there is a
normal-form one, blocks from s_0 = start to a goal s_m (w_i the cost of block i) and then
stores, of I/O Q <= q.  Claim: for every i, some image t_i(s'_i) of a twin s'_i of s_i under
a composition t_i of listed automorphisms is listed with g <= w_0 + ... + w_(i-1).  For i = 0
by (1) with s'_0 = s_0, unless LOWER(start) >= BELOW > Q, impossible.  Step: an
automorphism maps blocks to blocks of the same cost, and eager vertices to eager vertices (the
definitions above use only predecessors, inputs, outputs and M), and twins share both (TWINS).
If t_i(s'_i) has eager vertices, the one e whose blocks (3) checked is the image of an eager
vertex of s_i, and by the theorem the schedule may be taken to continue from s_i with that
vertex's block, keeping
its blocks up to s_i and I/O <= q (in one-shot a schedule has one block per vertex computed,
so this happens at most once per block).  So block i, carried to the twin and by t_i, is a
block from the listed t_i(s'_i) to an image of a twin of s_(i+1), which (3) checked: either an
image of a twin of s_(i+1) is listed with g <= the prefix (the claim for i + 1), or
prefix + LOWER(s_(i+1)) >= BELOW (LOWER is the same on every image and every twin), and since
LOWER never exceeds what the rest of the schedule pays, Q >= BELOW, impossible.  So an image of
a twin of the goal s_m is listed with g <= the prefix, and (2) gives
Q >= prefix + (outputs without blue) >= BELOW: impossible.  Hence every schedule costs at
least BELOW.  Extra listed configurations, a g larger than needed, or configurations listed
under another image only make the check harder to pass, never easier.

THE FILE (ASCII text, one item per line; ``c`` lines are comments):
  ``p closed N 4``      N the DAG's vertices, 4 masks of N bits: R, B, F and C (recompute: O)
  ``a V0 V1 ...``       an automorphism, the image of each vertex in order
  ``s KEY G``           a configuration: KEY in hexadecimal packs R | B << N | F << 2N | C << 3N
The contract (the DAG, M, the variant, BELOW) comes from the caller, never from the file.
"""

from __future__ import annotations

import time
from itertools import combinations

from ioverify.errors import CertificateRejected, DeadlineReached

INFINITE = float("inf")
MEMO_MAX = 1 << 16  # entries a memo of ``_Game`` holds before it forgets them all


class SearchCertificateRejected(CertificateRejected):
    """A search certificate that does not check; the message says which line and why."""


def check_closed(dag, memory: int, one_shot: bool, below: int, text: str,
                 deadline: float | None = None) -> int:
    """Check that the search certificate ``text`` proves every complete schedule of ``dag``
    with ``memory`` red pebbles (``one_shot``: in that variant, else recompute) costs at least
    ``below``; the number of configurations checked.  ``SearchCertificateRejected`` otherwise;
    ``DeadlineReached`` (nothing decided) if the ``time.monotonic()`` value ``deadline``
    passes first."""
    game = _Game(dag, memory, one_shot)
    perms, listed = read_closed(text, game.n, game.parts)
    for number, perm in perms:
        _automorphism(dag, perm, number)
    canonical = _Images(perms, game.n, game.parts).canonical
    start = game.pack(0, game.inputs, 0, 0)
    if start in listed:
        _require(listed[start][0] == 0, f"line {listed[start][1]}: the start configuration is "
                                        f"listed with g = {listed[start][0]}, not 0")
    elif game.lower(0, game.inputs, 0) < below:
        _reject(f"the start configuration is not listed, and its lower bound "
                f"{game.lower(0, game.inputs, 0)} does not reach {below}")
    for done, (key, (g, number)) in enumerate(listed.items()):
        if deadline is not None and done % 256 == 0 and time.monotonic() > deadline:
            raise DeadlineReached(f"the check of the search certificate stopped at its "
                                  f"deadline after {done} of {len(listed)} configurations")
        _check_one(game, listed, canonical, key, g, number, below)
    return len(listed)


def _check_one(game, listed, canonical, key: int, g: int, number: int, below: int) -> None:
    red, blue, fresh, computed = game.unpack(key)
    owed = 0 if game.one_shot else computed  # vertices stored, no output or input: blue
    _require(red.bit_count() <= game.memory and fresh & ~red == 0
             and owed & (~blue | game.outputs | game.inputs) == 0,
             f"line {number}: not a configuration the game reaches with M = {game.memory}")
    outputs = game.outputs
    if outputs & ~(red | blue) == 0 and not owed:  # (2) a goal
        _require(g + (outputs & ~blue).bit_count() >= below,
                 f"line {number}: a goal reached with I/O {g} + "
                 f"{(outputs & ~blue).bit_count()} final stores, below {below}")
        return
    # (3), for the blocks of one eager vertex if there are any (any one will do: N16 holds
    # for each, and the search expanded another image of this configuration, whose first
    # eager vertex may map to any of them), else for every block
    config = (red, blue, fresh, computed)
    tries = iter([[c] for c in game.eagers(red, blue, computed)] or [game.computable])
    failure = _uncovered(game, listed, canonical, g, below, config, next(tries))
    if failure is not None and all(_uncovered(game, listed, canonical, g, below, config, among)
                                   is not None for among in tries):
        _reject(f"line {number}: {failure}")


def _uncovered(game, listed, canonical, g: int, below: int, config: tuple[int, int, int, int],
               among: list[int]) -> str | None:
    """What (3) finds wrong with the blocks of the vertices ``among`` from the configuration
    ``config`` (red, blue, fresh, computed) reached with I/O ``g``, or None if every one
    passes."""
    for cost, c, nred, nblue, nfresh, ncomputed in game.blocks(*config, below - g, among):
        reached = g + cost
        if reached + (game.outputs & ~nblue).bit_count() >= below:
            continue  # the stores still to come alone reach BELOW
        image = _listed_image(game, listed, canonical, reached, nred, nblue, nfresh, ncomputed)
        if image is not None and image[0] <= reached:
            continue
        lower = game.lower(nred, nblue, ncomputed, below - reached)
        if reached + lower < below:
            return (f"the block computing {game.names[c]} (I/O {reached} so far) leads to a "
                    f"configuration that is "
                    + ("not listed" if image is None else f"listed with g = {image[0]}")
                    + f" and whose lower bound {lower} leaves room below {below}")
    return None


def _listed_image(game, listed, canonical, reached: int, red: int, blue: int, fresh: int,
                  computed: int):
    """(g, line) of a listed image of the configuration, or, unless that one is listed with
    g <= ``reached``, of its twin without blue on its IDLE vertices (module docstring) if
    that is listed with a smaller g; None if neither is listed."""
    image = listed.get(canonical(game.pack(red, blue, fresh, computed)))
    if image is not None and image[0] <= reached:
        return image
    twin = blue & ~game.idle(red, blue, computed)
    other = listed.get(canonical(game.pack(red, twin, fresh, computed))) if twin != blue else None
    if other is not None and (image is None or other[0] < image[0]):
        return other
    return image


class _Game:
    """The DAG as bit masks, the blocks and the lower bound of the module docstring."""

    def __init__(self, dag, memory: int, one_shot: bool):
        self.n = n = len(dag)
        self.memory, self.one_shot = memory, one_shot
        self.parts = 4
        self.names = dag.names
        self.preds = [sum(1 << p for p in dag.preds[v]) for v in range(n)]
        self.inputs = sum(1 << v for v in range(n) if dag.is_input[v])
        self.outputs = sum(1 << v for v in set(dag.outputs))
        reaches = self.outputs  # vertices from which an output is reachable
        for v in range(n - 1, -1, -1):  # vertices are numbered in a topological order
            if reaches >> v & 1:
                reaches |= self.preds[v]
        self.computable = [v for v in range(n) if reaches >> v & 1 and not dag.is_input[v]]
        self.succs = [0] * n  # each vertex's successors from which an output is reachable
        for v in self.computable:
            for p in _bits(self.preds[v]):
                self.succs[p] |= 1 << v
        self.live: dict[int, int] = {}  # the live vertices of each set of outputs without blue
        self.pendings: dict[int, int] = {}  # one-shot: ``_pending`` of each computed set
        self.musts: dict[int, tuple[int, int]] = {}  # one-shot: ``_must``
        # recompute: by red | blue << n, (LOWER, True), or (v, False) when LOWER >= v
        self.lowers: dict[int, tuple[float, bool]] = {}

    def pack(self, red: int, blue: int, fresh: int, computed: int) -> int:
        n = self.n
        return red | blue << n | fresh << 2 * n | computed << 3 * n

    def unpack(self, key: int) -> tuple[int, int, int, int]:
        n, full = self.n, (1 << self.n) - 1
        return key & full, key >> n & full, key >> 2 * n & full, key >> 3 * n & full

    def blocks(self, red: int, blue: int, fresh: int, computed: int,
               budget: float = INFINITE, among: list[int] | None = None):
        """(cost, c, red, blue, fresh, computed) after every block from the configuration
        (only those of the vertices ``among`` if it is given; else, where there are eager
        vertices, those of the first); with a finite ``budget``, not those that THE FLOOR
        (module docstring, in each variant) shows have w + LOWER after them at ``budget`` or
        more."""
        size, memory = red.bit_count(), self.memory
        # What a block computes (recompute) and stores of what it evicts without blue: the
        # live vertices (recompute); the outputs and the red vertices with a successor, from
        # which an output is reachable, left to compute (one-shot).
        stores = self._needed(red, blue, computed)
        if among is None:
            among = self.eagers(red, blue, computed)[:1] or self.computable
        for c in among:
            bit = 1 << c
            if red & bit or (computed & bit if self.one_shot else not stores >> c & 1):
                continue
            preds = self.preds[c]
            missing = preds & ~red
            if missing & ~blue:
                continue  # a predecessor neither red nor blue
            loads = missing.bit_count()
            nred, nfresh = red | missing | bit, (fresh & ~preds) | bit
            # one-shot: computed; recompute: owed, less what is loaded
            ncomputed = computed | bit if self.one_shot else computed & ~missing
            evict = size + loads + 1 - memory
            if evict <= 0:
                yield self._collected(loads, c, nred, blue, nfresh, ncomputed)
                continue
            evictable = red & ~preds & ~(fresh & blue)
            floor = reached = 0
            if budget < INFINITE and not self.one_shot:  # THE FLOOR in recompute
                owed = ncomputed.bit_count()
                floor = loads + self.lower(nred | ncomputed, blue, 0, budget - loads - owed)
                if floor + owed >= budget:
                    continue  # every block of c
            elif budget < INFINITE:  # THE FLOOR in one-shot
                floor, reached = self._floor(nred, blue, ncomputed)
                floor += loads + (self.outputs & ~blue).bit_count()
                if floor + max(0, evict - (evictable & ~reached).bit_count()) >= budget:
                    continue  # every block of c (THE FLOOR)
            for chosen in combinations(_bits(evictable), evict):
                gone = sum(1 << u for u in chosen)
                if self.one_shot:
                    stored = gone & ~blue & stores
                    if floor + (gone & reached).bit_count() + (
                            stored & ~self.outputs).bit_count() >= budget:
                        continue  # THE FLOOR
                    yield self._collected(loads + stored.bit_count(), c, nred & ~gone,
                                          blue | stored, nfresh & ~gone, ncomputed)
                    continue
                forced, free = gone & fresh & ~blue, gone & ~fresh & ~blue & stores
                for extra in _subsets(free):
                    stored = forced | extra
                    kept = stored & ~self.outputs  # stored, no output: owed after the block
                    if floor + kept.bit_count() + (ncomputed | kept).bit_count() >= budget:
                        continue  # THE FLOOR
                    yield self._collected(loads + stored.bit_count(), c, nred & ~gone,
                                          blue | stored, nfresh & ~gone,
                                          ncomputed | stored & ~self.outputs)

    def _floor(self, red: int, blue: int, computed: int) -> tuple[float, int]:
        """One-shot: (BASE, REACHED0) of THE FLOOR (module docstring) at R0 = ``red``, or
        (INFINITE, 0) when MUST0 meets ``computed`` = C'."""
        must, reached = self._must(self.outputs & ~blue & ~red, red | blue)
        if must & computed:
            return INFINITE, 0
        return (reached & ~red & blue).bit_count(), reached

    def idle(self, red: int, blue: int, computed: int) -> int:
        """The IDLE vertices (module docstring): no input, no output, not red, not owed,
        and with no successor, from which an output is reachable, left to compute
        (one-shot) or not live (recompute)."""
        others = ~(self.inputs | self.outputs | red | (0 if self.one_shot else computed))
        if not self.one_shot:
            return others & ~self._live(blue) & ((1 << self.n) - 1)
        return computed & others & ~self._pending(computed)

    def eagers(self, red: int, blue: int, computed: int) -> list[int]:
        """The EAGER vertices (module docstring) in vertex order: none but in one-shot with
        |R| < M."""
        if not self.one_shot or red.bit_count() >= self.memory:
            return []
        return [c for c in self.computable if self._is_eager(c, red, blue, computed)]

    def _is_eager(self, c: int, red: int, blue: int, computed: int) -> bool:
        bit = 1 << c
        if computed & bit or self.preds[c] & ~red:
            return False
        for p in _bits(self.preds[c]):
            if self.succs[p] & ~computed != bit:
                continue  # c is not its last successor left to compute
            if blue >> p & 1:
                if self.outputs >> c & 1:
                    return True  # blue, while c is an output
            elif not self.outputs >> p & 1:
                return True  # without blue, and no output
        return False

    def _collected(self, cost, c, red, blue, fresh, computed):
        """The block's end: the FINISHED outputs are stored, then every red vertex that is
        GARBAGE is deleted."""
        finished = self._finished(red, blue, computed)
        blue |= finished
        garbage = red & ~self._needed(red, blue, computed)
        return (cost + finished.bit_count(), c, red & ~garbage, blue, fresh & ~garbage,
                computed)

    def _finished(self, red: int, blue: int, computed: int) -> int:
        """The FINISHED outputs: red, without blue, and with no successor from which an output
        is reachable left to compute (one-shot) or live (recompute), added until none is:
        storing one can finish another."""
        if self.one_shot:  # what is left to compute does not change as outputs are stored
            return red & self.outputs & ~blue & ~self._pending(computed)
        finished = 0
        while True:
            rest = self._live(blue | finished)
            more = 0
            for o in _bits(red & self.outputs & ~blue & ~finished):
                if not self.succs[o] & rest:
                    more |= 1 << o
            if not more:
                return finished
            finished |= more

    def _needed(self, red: int, blue: int, computed: int) -> int:
        """The vertices that are not GARBAGE: recompute, the live ones; one-shot, the outputs
        without blue and the red vertices with a successor, from which an output is
        reachable, left to compute."""
        if not self.one_shot:
            return self._live(blue)
        return self.outputs & ~blue | red & self._pending(computed)

    def _pending(self, computed: int) -> int:
        """One-shot: the vertices with a successor, from which an output is reachable, not in
        ``computed`` (remembered per set, ``_remember``)."""
        pending = self.pendings.get(computed)
        if pending is None:
            left = ~computed
            pending = _remember(self.pendings, computed,
                                sum(1 << u for u in range(self.n) if self.succs[u] & left))
        return pending

    def _live(self, blue: int) -> int:
        """The vertices from which an output without blue is reachable."""
        pending = self.outputs & ~blue
        live = self.live.get(pending)
        if live is None:
            live = pending
            for v in range(self.n - 1, -1, -1):  # vertices are numbered in a topological order
                if live >> v & 1:
                    live |= self.preds[v]
            self.live[pending] = live
        return live

    def lower(self, red: int, blue: int, computed: int, enough: float = INFINITE) -> float:
        """LOWER of the module docstring (INFINITE when no one-shot continuation exists), or,
        when LOWER is at least ``enough``, possibly just ``enough`` (all a check needs)."""
        stores = self.outputs & ~blue
        if not self.one_shot and computed:  # owed (module docstring)
            if computed & ~self._live(blue):
                return INFINITE
            owed = computed.bit_count()
            return owed + self.lower(red | computed, blue, 0, enough - owed)
        if not self.one_shot:
            key = red | blue << self.n
            value, exact = self.lowers.get(key, (0, False))
            if exact or value >= enough:
                return value
            cap = enough - stores.bit_count()  # the ways at cap or above need not be told apart
            loads = self._cheapest(stores & ~red, red, blue, 0, cap)
            self.lowers[key] = (stores.bit_count() + loads, loads < cap)
            return stores.bit_count() + loads
        must, reached = self._must(stores & ~red, red | blue)
        if must & computed:
            return INFINITE
        return stores.bit_count() + (reached & ~red & blue).bit_count()

    def _must(self, todo: int, stop: int) -> tuple[int, int]:
        """One-shot: (MUST, the predecessors of MUST vertices) when MUST is ``todo`` and,
        recursively, the predecessors of MUST vertices outside ``stop`` (the vertices red or
        blue); remembered per (todo, stop), ``_remember``."""
        key = todo | stop << self.n
        found = self.musts.get(key)
        if found is None:
            must = reached = 0
            while todo:
                low = todo & -todo
                must |= low
                preds = self.preds[low.bit_length() - 1]
                reached |= preds
                todo = (todo ^ low) | (preds & ~stop & ~must)
            found = _remember(self.musts, key, (must, reached))
        return found

    def _cheapest(self, computing: int, red: int, blue: int, loaded: int, best: float) -> float:
        """Recompute: the fewest loads over the ways of LOWER (module docstring) in which the
        vertices ``computing`` are computed and ``loaded`` loaded, or ``best`` if not fewer.
        The loads counted only grow as choices are made, so a way at ``best`` is cut; loading
        every choice left is one of the ways, so its count bounds the rest."""
        must = inputs = choices = 0
        todo = computing
        while todo:
            low = todo & -todo
            todo ^= low
            must |= low
            missing = self.preds[low.bit_length() - 1] & ~red & ~loaded
            inputs |= missing & self.inputs
            choices |= missing & blue & ~self.inputs & ~computing
            todo |= missing & ~blue & ~must
        count = inputs.bit_count() + loaded.bit_count()
        if count >= best or not choices:
            return min(count, best)
        best = min(best, count + choices.bit_count())  # a way: load every choice
        first = choices & -choices
        best = self._cheapest(computing | first, red, blue, loaded, best)
        return self._cheapest(computing, red, blue, loaded | first, best)


def read_closed(text: str, n: int, parts: int):
    """([(line, permutation)], {key: (g, line)}) of a search certificate for a DAG of ``n``
    vertices whose keys have ``parts`` masks; every malformed line is rejected by number."""
    header, perms, listed = None, [], {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0] == "c":
            continue
        if header is None:
            _require(words == ["p", "closed", str(n), str(parts)],
                     f"line {number}: the header must be 'p closed {n} {parts}' for this DAG "
                     f"and variant, got {line.strip()!r}")
            header = number
        elif words[0] == "a":
            perms.append((number, _permutation(words[1:], n, number)))
        elif words[0] == "s" and len(words) == 3:
            key, g = _number(words[1], 16, number), _number(words[2], 10, number)
            _require(key >> parts * n == 0, f"line {number}: the key has more than "
                                            f"{parts * n} bits")
            _require(key not in listed, f"line {number}: the configuration of line "
                                        f"{listed.get(key, (0, 0))[1]} again")
            listed[key] = (g, number)
        else:
            _reject(f"line {number}: expected 'a PERMUTATION' or 's KEY G', got "
                    f"{line.strip()[:60]!r}")
    _require(header is not None, "no 'p closed' header")
    return perms, listed


def _number(word: str, base: int, number: int) -> int:
    digits = "0123456789abcdef"[:base]
    _require(0 < len(word) <= 4096 and all(ch in digits for ch in word),
             f"line {number}: {word[:40]!r} is not a number in base {base}")
    return int(word, base)


def _permutation(words: list[str], n: int, number: int) -> tuple[int, ...]:
    perm = tuple(_number(w, 10, number) for w in words)
    _require(sorted(perm) == list(range(n)), f"line {number}: not a permutation of the {n} "
                                             f"vertices")
    return perm


def _automorphism(dag, perm: tuple[int, ...], number: int) -> None:
    """``perm`` maps inputs to inputs, outputs to outputs, and v's predecessors onto perm(v)'s."""
    outputs = set(dag.outputs)
    for v in range(len(dag)):
        image = perm[v]
        _require(dag.is_input[v] == dag.is_input[image] and (v in outputs) == (image in outputs)
                 and {perm[p] for p in dag.preds[v]} == set(dag.preds[image]),
                 f"line {number}: not an automorphism of the DAG (vertex {dag.names[v]} and "
                 f"its image {dag.names[image]})")


class _Images:
    """The smallest image of a key under the listed permutations and the identity, by tables
    over the bytes of the key."""

    def __init__(self, perms, n: int, parts: int):
        width = n * parts
        self.tables = [[self._table(perm, n, width, base) for base in range(0, width, 8)]
                       for _, perm in perms]

    @staticmethod
    def _table(perm, n: int, width: int, base: int) -> list[int]:
        bits = [0] * 8
        for i in range(8):
            if base + i < width:
                part, v = divmod(base + i, n)
                bits[i] = 1 << (part * n + perm[v])
        table = [0] * 256
        for byte in range(1, 256):
            low = byte & -byte
            table[byte] = table[byte ^ low] | bits[low.bit_length() - 1]
        return table

    def canonical(self, key: int) -> int:
        best = key
        for tables in self.tables:
            image, rest = 0, key
            for table in tables:
                image |= table[rest & 0xFF]
                rest >>= 8
            if image < best:
                best = image
        return best


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _remember(memo: dict, key: int, value):
    """``value``, stored in ``memo`` under ``key``; a memo of MEMO_MAX entries is emptied
    first, which bounds its memory and changes no result."""
    if len(memo) >= MEMO_MAX:
        memo.clear()
    memo[key] = value
    return value


def _subsets(mask: int):
    """Every subset of ``mask``; the search has its own (this module imports none of it)."""
    sub = 0
    while True:
        yield sub
        if sub == mask:
            return
        sub = (sub - mask) & mask


def _require(condition: bool, message: str) -> None:
    if not condition:
        _reject(message)


def _reject(message: str):
    raise SearchCertificateRejected(f"search certificate: {message}")
