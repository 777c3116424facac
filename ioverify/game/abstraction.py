"""Additive abstraction bounds ("pattern databases") for the exhaustive search: lower bounds on
the remaining I/O that see M.

Split the vertices into disjoint PARTS P_1, ..., P_k.  The RESTRICTED GAME of a part P
(``ioverify.game.exhaustive``, N9) is the game in which only P's vertices carry pebbles and
count against M, P's inputs start blue, P's outputs must end blue, and computing a vertex of P
needs only its predecessors in P red: the vertices outside P are free.  Let V_P(c) be the
optimal I/O of P's restricted game from the configuration c restricted to P (red, blue and, in
one-shot, computed, each intersected with P; INFINITY if it cannot finish).

**Restriction lemma.**  Let S be any legal schedule (of either variant) that completes the real
game from a configuration c, and S|P its moves on vertices of P, in order.  Then S|P is a legal
schedule of P's restricted game, in the same variant, from c|P, and its I/O is the number of
loads and stores of S on P's vertices.  Proof: after each prefix the configuration of S|P is
that of S intersected with P (moves outside P change nothing in P).  A load of v in P needs
blue on v, which S had, and S|P has the same blue on P.  A store of v needs v red: same.  A
compute of v in P needs v's predecessors in P red (those outside are free), and S had them red.
Capacity: S|P's red set is S's red set intersected with P, so at most M.  One-shot: S computes
each vertex at most once, so S|P does, and c|P records the same computed vertices of P.  At the
end P's outputs are blue in S, so in S|P.  Nothing in the argument depends on the variant: it
holds for recompute exactly as for one-shot (a free vertex outside P can make P's restricted
game cheaper than S|P, never dearer, and a cheaper V_P is what a lower bound needs).

**Admissible.**  The parts are disjoint, so io(S) = sum_P io(S|P) >= sum_P V_P(c|P): the sum
never overestimates the cost of completing the game from c, in either variant.

**Consistent.**  A move (or a block of moves) of cost w from c to c' restricted to P is a legal
sequence of moves of P's restricted game from c|P to c'|P of cost w_P, with sum_P w_P = w (by
the lemma's step-by-step argument).  Prefixing it to an optimal restricted schedule from c'|P
gives V_P(c|P) <= w_P + V_P(c'|P); summing, h(c) <= w + h(c').

**Exact at a goal.**  When every output is red or blue, V_P is the number of P's outputs
without blue (each needs a store, and storing them finishes), so the sum is the exhaustive
search's final cost there.

**Automorphisms.**  The exhaustive search keeps one configuration per orbit of the DAG's
automorphisms, so its heuristic must take the same value on every image of a configuration
(else the value stored for an orbit could break consistency between orbits).  With the bound
it keys configurations only by the automorphisms g that map every part onto a part
(``AbstractionBound.preserved_by``; they form a group, the stabiliser of the partition).  Such a
g maps P's restricted game onto gP's (predecessors, inputs and outputs are preserved), so
V_gP(g(c)|gP) = V_P(c|P), and summing over the parts (g permutes them) gives h(g(c)) = h(c).
The same identity lets parts share their values (``AbstractionBound.key_by``): a part answers
from the memo of a part g maps it onto, at g's image of its configuration.

**Fewer vertices.**  Nothing above needs the parts to cover every vertex: dropping a vertex
from every part only drops its loads and stores from the sum.  Parts may leave out vertices.

**Overlapping parts (cost partitioning).**  Parts may also share vertices, if each shares
the cost: let k(v) be the number of parts holding v and, in P's restricted game, let a load or
store of v cost w(v) = 1 / k(v) (``cost_partition``: in integer units of 1 / D, D the least
common multiple of the k(v), each part's search costs v D / k(v)).  The restriction lemma
needs nothing of disjointness, so S|P is legal in P's game and costs there the weighted sum
of S's transfers on P's vertices; summing over the parts, each transfer of S on v is counted
k(v) times at 1 / k(v), so sum_P V_P^w(c|P) <= sum_P w-cost(S|P) <= io(S) (admissible).  A
block of cost w splits the same way into parts' costs summing to at most w (consistent).
Every cost is a whole number, so the ceiling of the sum keeps both properties
(ceil(h(c)) <= ceil(w + h(c')) = w + ceil(h(c'))), and the bound returns that ceiling.  At a
goal each part's value is its weighted missing output stores, and the sum is the number of
missing stores exactly.  The automorphisms kept are those permuting the parts, which
preserve each k(v) and so each weight.  The shared parts (``parts_of(share_inputs=True)``)
put each input in every part that reads it: the query rows of attention then each pay 1 / n
of a load of every key and value they read, instead of the first row paying all of them and
the others none.

V_P is computed by the exhaustive search itself on P's restricted game (N9 proves the normal
form from any configuration and for restricted games), with the same kind of bound over a
split of P into smaller parts as its heuristic (``nested``; the restricted game of a subset
of P within P's restricted game is the subset's own restricted game, so the argument above
applies unchanged), and memoised per restricted configuration; every configuration on the
optimal path of such a search is memoised too (its remaining cost on an optimal path is its
own optimum), and a restricted search ends at any configuration it reaches whose V_P is
memoised, as at a goal of that final cost (``restricted_optimum``'s ``known``;
``_Search.run`` argues that this changes no optimum).  A flat part's search also LEARNS
(``_Search.learn``): a search from c that ends with V_P(c) leaves, for each configuration x
it closed with cost g from c, the lower bound V_P(c) - g on V_P(x), and its later searches
take the largest of the count, that bound and their parent's heuristic less the block's
cost, reopening a closed configuration reached more cheaply (the heuristic is then
admissible, not consistent; ``learn`` gives the argument).  A restricted search that cannot
finish (deadline or state cap) has no exact value: it raises ``DeadlineReached`` and the
exhaustive search stops with the level it had proved.

**Capped values.**  The exhaustive search cuts every configuration whose f = g + h reaches its
limit, so past the room its limit leaves, limit - g, it needs no exact value: the bound is asked
with that room (``__call__``'s ``cap``) and answers exactly below it, else with a lower bound at
least the room.  A part is then searched only below what the room leaves it after the parts
already known, and a search that finds no schedule there gives that as a lower bound on V_P
(exact: no schedule of the restricted game from c|P costs less), which is remembered apart from
the exact values (``lows``).  The search keeps its answers exact where they count
(``_Search._admit``), and deepening its limit one level at a time (``ExhaustiveRun``'s
``deepen``) keeps nearly every ask capped near the level it closes.  Pure Python, no solver
(trusted base)."""

from __future__ import annotations

import math
import re

from ioverify.dag import symmetry
from ioverify.dag.model import DAG
from ioverify.errors import InternalError
from ioverify.game import engine
from ioverify.game.exhaustive import INFINITY, _bits, _in_time, _mask_of, _Search, _Symmetry
from ioverify.game.rules import Variant

# A restricted search stores at most this many configurations (about 430 MB); past it the
# bound has no exact value and the search using it stops.  With 200,000 (about 50 MB) the
# search with the bound stopped where the restricted recompute games are largest:
# attention_forward(2,2) at M = 3, recompute, the rows sharing their inputs, stopped at its
# start value 46 when the first restricted search after the start passed the cap (9.8 s); with
# 1,000,000 none does, and ``pebble`` proved the optimum 52 in 229 s once (3.4 GB at most;
# later runs stopped at [51, 52] after 600 s; with ``_Search.learn``, 52 in 245 s).  A search
# that finishes under the old cap is the same search (docs/performance.md).
RESTRICTED_MAX_STATES = 1_000_000
# The restricted searches at the game's start (``root``) may store this many (430 MB measured
# on 46 vertices): each runs once, and the later ones end where their paths meet its
# remembered optimal path (attention_forward(2,2) at M = 3, recompute, the rows sharing their
# inputs: 46 after one search of between 200,000 and 500,000 configurations, 5.5 s).
ROOT_MAX_STATES = 1_000_000
# Parts with more vertices than this are not built by ``parts_of`` (their restricted searches
# would cost as much as the game itself).
PART_MAX_VERTICES = 30
MEMO_MAX = 1 << 20  # restricted values remembered per part; then that memo starts over


class AbstractionBound:
    """h(red, blue, computed) = the sum over ``parts`` (disjoint vertex masks) of V_P (module
    docstring).  ``deadline``: restricted searches stop there (``DeadlineReached``), and
    so does building them on a DAG of many vertices;
    ``nested``: each restricted search uses the bound over a split of its part
    (``split_part``) as its own heuristic, when the split has two parts or more.  ``group``:
    automorphisms of ``dag`` to key the parts' values by (``key_by``; those not mapping every
    part onto a part are left out), by default every one (up to the search's own cap,
    ``_Symmetry.MAX_GROUP``; past it, none).  ``learn``:
    each flat part's restricted searches learn lower bounds from each other (module
    docstring; the values are the same either way)."""

    # The search may ask the bound at any image of a configuration, not only the canonical
    # one: the parts' values are keyed by the automorphisms here (``key_by``).
    keys_orbits = True
    # The search may give it the room below its limit (``__call__``'s ``cap``).
    capped = True

    def __init__(self, dag: DAG, memory: int, variant: Variant, parts: list[int],
                 deadline: float | None = None, max_states: int = RESTRICTED_MAX_STATES,
                 nested: bool = True, group: list[tuple[int, ...]] | None = None,
                 learn: bool = True):
        self.n = len(dag)
        self.parts = list(parts)
        self.nested, self.learns = nested, learn  # for ``recipe``
        if len(set(self.parts)) != len(self.parts):
            raise InternalError("abstraction bound: a part is given twice")
        self.scale, weights = cost_partition(self.parts)
        # The search's copy (``ioverify.game.engine``) for the parts' restricted searches, fixed
        # here: each part's searches and ``restricted_optimum`` must come from the same one.
        self.engine = engine.search()
        self.inner = []
        self.searches = []
        for part, weight in zip(self.parts, weights):
            # Each part's search costs a pass over the whole DAG: on one of tens of thousands
            # of vertices, seconds in all, hence the clock read per part.
            _in_time(deadline)
            inner = None
            if nested and weight is None:  # nesting needs each part's game unweighted
                pieces = split_part(dag, part)
                if len(pieces) > 1:
                    inner = AbstractionBound(dag, memory, variant, pieces, deadline, max_states,
                                             nested=False, group=[])
            self.inner.append(inner)
            search = self.engine._Search(dag, memory, variant, deadline, part=part, bound=inner,
                                         weights=weight)
            if inner is None and learn:
                search.learn()
            self.searches.append(search)
        # Per part, V_P by restricted configuration, packed as red | blue << n |
        # computed << 2n (``_Search.pack``): also the restricted searches' known optima.
        self.memos: list[dict[int, float]] = [{} for _ in self.parts]
        # Per part, lower bounds on V_P by the same keys, from capped searches (``__call__``).
        self.lows: list[dict[int, float]] = [{} for _ in self.parts]
        self.deadline = deadline
        self.max_states = max_states
        self.one_shot = variant.at_most_once
        self.restricted_searches = 0  # how many restricted searches ran (for the benchmark)
        if group is None:
            group = symmetry.checked_automorphisms(dag, _Symmetry.MAX_GROUP, deadline)
        self.group = [perm for perm in group if self.preserved_by(perm)]
        self.key_by(self.group)

    def recipe(self) -> tuple:
        """What builds the same bound in another process (``rebuilt``; a farm's worker,
        ``ioverify.search.farm``): the arguments it was built with but the DAG, M, the
        variant and the deadline, and the values it remembers (each V_P or a lower bound on
        it, ``memos`` and ``lows``: the bound is the same function with them or without),
        and what the parts' restricted searches learned (lower bounds on their optima,
        ``_Search.learn``: they only speed those searches up)."""
        return (self.parts, self.max_states, self.nested, self.group, self.learns,
                self.memos, self.lows, [search.learned for search in self.searches])

    @classmethod
    def rebuilt(cls, dag: DAG, memory: int, variant: Variant, recipe: tuple,
                deadline: float | None = None) -> "AbstractionBound":
        """The bound ``recipe`` (``recipe``) describes, on ``dag`` at ``memory`` in
        ``variant``, remembering what it remembered."""
        parts, max_states, nested, group, learn, memos, lows, learned = recipe
        bound = cls(dag, memory, variant, parts, deadline, max_states, nested, group, learn)
        if not len(memos) == len(lows) == len(learned) == len(parts) or any(
                (known is None) != (search.learned is None)
                for known, search in zip(learned, bound.searches)):
            raise InternalError("abstraction bound: a recipe's values do not match its parts")
        bound.memos, bound.lows = [dict(memo) for memo in memos], [dict(low) for low in lows]
        for known, search in zip(learned, bound.searches):
            if known is not None:
                search.learned = dict(known)
        return bound

    def set_deadline(self, deadline: float | None) -> None:
        self.deadline = deadline
        for inner in self.inner:
            if inner is not None:
                inner.set_deadline(deadline)

    def forget(self) -> None:
        """Let go of every value remembered (the parts' memos and lower bounds, what their
        restricted searches learned and their heuristics' memos), for a search that stopped
        for good out of memory (``apart.stop_out_of_memory``): the rest of the race then has
        that memory.  The values are the same afterwards, searched again if asked."""
        for table in (*self.memos, *self.lows):
            table.clear()
        for search in self.searches:
            for memo in (search.memo, search.trivial_memo, search.family_memo,
                         search.live_memo):
                memo.clear()
            if search.learned is not None:
                search.learned.clear()
        for inner in self.inner:
            if inner is not None:
                inner.forget()

    def preserved_by(self, perm: tuple[int, ...]) -> bool:
        """Whether the automorphism ``perm`` maps every part onto a part: then it permutes
        the parts (it is a bijection), keeps each vertex's number of parts and so its weight,
        maps the vertices in no part onto vertices in no part, and the bound is the same at
        every image."""
        parts = set(self.parts)
        return all(_image(part, perm) in parts for part in self.parts)

    def key_by(self, group: list[tuple[int, ...]]) -> None:
        """Key the parts' values by ``group``, automorphisms that each map every part onto a
        part (``preserved_by``; the caller's guarantee: they form a group).  Each part P then
        answers from the memo of its HOME, the first part some g of the group (or the
        identity) maps it onto, under the key min_g g(c|P) over those g: g maps P's restricted
        game onto its home's (predecessors, inputs, outputs and, as g permutes the parts, each
        vertex's weight), so V_P(c|P) = V_home(g(c|P)) for each of them (module docstring,
        "Automorphisms").  The value is the same as without it; images of one restricted
        configuration, in one part or in parts mapped onto each other, then share one
        restricted search, and the bound is the same on every image of a configuration
        without making the search's canonical key (attention_forward(2,2), M = 4, one-shot,
        shared parts, below 38: 66,130 restricted searches in 44.0 s before, see
        docs/explanation/pebbling-search.md)."""
        identity = tuple(range(self.n))
        perms = [identity] + [perm for perm in group if perm != identity]
        if any(not self.preserved_by(perm) for perm in perms):
            raise InternalError("abstraction bound: an automorphism does not map every part "
                                "onto a part")
        # Per part: the part whose memo answers for it, and the function from its restricted
        # configurations to their keys there (None: its own memo, the configuration itself).
        self.home = list(range(len(self.parts)))
        self.image: list = [None] * len(self.parts)
        for i, part in enumerate(self.parts):
            onto: dict[int, list[tuple[int, ...]]] = {}
            for perm in perms:
                onto.setdefault(self.parts.index(_image(part, perm)), []).append(perm)
            self.home[i] = home = min(onto)
            if onto[home] != [identity]:  # else home is i, and no other map keeps it there
                self.image[i] = self.engine.LeastImage(onto[home], self.n)

    def root(self, dag: DAG) -> float:
        """The bound at the game's start (inputs blue, nothing red): a lower bound on the
        optimal I/O itself.  Its restricted searches may store up to ROOT_MAX_STATES
        configurations, if more than the bound's own cap."""
        cap, self.max_states = self.max_states, max(self.max_states, ROOT_MAX_STATES)
        try:
            return self(0, sum(1 << v for v in dag.inputs), 0)
        finally:
            self.max_states = cap

    def __call__(self, red: int, blue: int, computed: int, cap: float = INFINITY) -> float:
        """sum_P V_P(c|P) (with overlapping parts: its ceiling, the values being in units
        of 1 / scale), or INFINITY if some part cannot finish.

        ``cap``: only a value below it is wanted (the search cuts the configuration
        otherwise, ``_Search._admit``).  The answer is exact if below ``cap``; else it is a
        lower bound on the sum, at least ``cap``.  The parts with remembered values come
        first, and each part still to search is searched only below the ROOM the sum leaves
        it (``restricted_optimum``'s ``below``): if it has no schedule below its room, the
        room is a lower bound on its V_P, and with the other parts' V_P >= 0 the sum
        reaches ``cap``.  A CAPPED search of this kind stops at the room instead of going on
        to the optimum, which may lie several levels above it (sparse_forward(causal 3,1)
        at M = 3, recompute, below 35: of 2.07 million asks, 1.91 million were cut, and
        they ran nearly every restricted search); its lower bound is remembered
        (``lows``) to answer a later ask whose room it reaches."""
        total, n, scale = 0, self.n, self.scale
        if not self.one_shot:
            computed = 0
        pending = []
        for i, (part, memo) in enumerate(zip(self.parts, self.memos)):
            key = red & part | (blue & part) << n | (computed & part) << 2 * n
            value = memo.get(key)
            if value is None:
                pending.append((i, key))
                continue
            if value == INFINITY:
                return INFINITY
            total += value
        # The sum reaches ``cap`` once ceil(total / scale) >= cap, that is, once total is at
        # least ``first`` (in the parts' units of 1 / scale).
        first = INFINITY if cap == INFINITY else (cap - 1) * scale + 1
        for i, key in pending:
            if total >= first:
                break
            value = self._value(i, key, INFINITY if first == INFINITY else first - total)
            if value == INFINITY:
                return INFINITY
            total += value
        return total if scale == 1 else -(-total // scale)

    def _value(self, i: int, key: int, room: float = INFINITY) -> float:
        """V of part i at its restricted configuration ``key``, not in its memo: from its
        home's memo under its key there, or a restricted search (``key_by``).  ``room``: a
        value below it is exact, one at or past it may be a lower bound (``__call__``)."""
        image = self.image[i]
        if image is None:
            home, at = i, key
        else:
            home, at = self.home[i], image(key)
            value = self.memos[home].get(at)
            if value is not None:
                return self._remember(i, key, value)
        low = self.lows[home].get(at, 0)
        if low >= room:
            return low
        value, exact = self._solve(home, at, room)
        return self._remember(i, key, value) if exact and image is not None else value

    def _remember(self, i: int, key: int, value: float) -> float:
        """Keep part i's exact ``value`` at ``key`` in its own memo (a part answering from its
        home's, ``key_by``), and return it."""
        memo = self.memos[i]
        if len(memo) >= MEMO_MAX:
            memo.clear()
        memo[key] = value
        return value

    def _solve(self, i: int, key: int, room: float = INFINITY) -> tuple[float, bool]:
        """V_P of part i from the packed configuration ``key``, by a restricted search that
        stops at any configuration whose V_P is remembered already (``restricted_optimum``'s
        ``known``: attention_forward(2,2) at M = 4, one-shot, below 37, 374,214
        configurations in 69.2 s before, 41.9 s after) and, with a finite ``room``, at the
        room: then the answer may be a lower bound only, at least ``room``, kept in the
        part's ``lows`` (``__call__``).  Returns (the value, whether it is exact)."""
        self.restricted_searches += 1
        memo, lows = self.memos[i], self.lows[i]
        if len(memo) >= MEMO_MAX:
            memo.clear()
        n, full = self.n, (1 << self.n) - 1
        value, path = self.engine.restricted_optimum(
            self.searches[i], key & full, key >> n & full, key >> 2 * n,
            deadline=self.deadline, max_states=self.max_states, known=memo,
            below=None if room == INFINITY else room)
        if path is None:
            if len(lows) >= MEMO_MAX:
                lows.clear()
            lows[key] = value
            return value, False
        memo[key] = value
        lows.pop(key, None)
        for (red, blue, computed), remaining in path:
            memo.setdefault(red | blue << n | computed << 2 * n, remaining)
        return value, True


def _image(mask: int, perm: tuple[int, ...]) -> int:
    image = 0
    for v in _bits(mask):
        image |= 1 << perm[v]
    return image


def cost_partition(parts: list[int]) -> tuple[int, list[tuple[int, dict] | None]]:
    """(scale, per part its ``_Search`` weights or None): a vertex in k parts costs
    scale / k in each (scale: the least common multiple of the k > 1), so its shares add up
    to one transfer; None for a part with no shared vertex when no part shares any."""
    count: dict[int, int] = {}
    for part in parts:
        for v in _bits(part):
            count[v] = count.get(v, 0) + 1
    scale = math.lcm(1, *count.values())
    if scale == 1:
        return 1, [None] * len(parts)
    return scale, [(scale, {v: scale // count[v] for v in _bits(part) if count[v] > 1})
                   for part in parts]


# --- partitions ---------------------------------------------------------------------------------

# The two kinds of parts, by the name a proof's evidence records (``"heuristic"``), each with
# its ``share_inputs``: the disjoint parts, and the parts sharing their inputs' cost.
KINDS = {"abstraction": False, "abstraction-shared": True}


def parts_of(dag: DAG, max_vertices: int = PART_MAX_VERTICES,
             share_inputs: bool = False, deadline: float | None = None) -> list[int]:
    """Parts (vertex masks) of ``dag``'s useful vertices for the bound: for an attention
    backward DAG (recognised by its vertex names) whose rows fit in ``max_vertices``, its query
    rows (``attention_backward_rows``); else the connected pieces of the non-input vertices
    (for attention forward, the query rows), each input in the piece of its first successor, a
    piece larger than ``max_vertices`` split by the first output its vertices reach.

    ``share_inputs``: each input is then also put in every other part holding one of its
    successors, its cost split evenly among them (``cost_partition``), so the rows pay their
    share of the keys and values they all read, where the disjoint parts charge one row and make
    them free for the others; empty if that changes no part or makes one larger than
    ``max_vertices``.  Either kind then has its smallest parts joined while that makes no part
    larger than the largest (``_joined``).  Neither kind is always stronger
    (attention_forward(3,1), M = 3: 37 disjoint, 45 shared; attention_backward(2,1), M = 5: 26
    and 24), so ``pebble`` computes both at the start and keeps the stronger.  Any such parts
    give a valid bound (module docstring); these only aim at a strong one.  Empty if there is
    only one part (then the bound is the game itself).  ``deadline`` (a ``time.monotonic()``
    value): DeadlineReached once it passes (each kind takes about a second on a DAG of 43,440
    vertices, attention_backward(60,1))."""
    _in_time(deadline)
    parts = _disjoint_parts(dag, max_vertices)
    if not share_inputs or len(parts) <= 1:
        parts = _joined(parts)
        return parts if len(parts) > 1 else []
    shared = _share_inputs(dag, parts, deadline)
    if shared == parts or any(part.bit_count() > max_vertices for part in shared):
        return []
    shared = _joined(shared)
    return shared if len(shared) > 1 else []


def _joined(parts: list[int]) -> list[int]:
    """``parts`` with the two smallest joined into one, again, while the union has no more
    vertices than the largest part (so no restricted game grows past the largest there is).
    One part for two never lowers the bound on disjoint parts (the two parts' restricted
    games are restricted games of the union's, so V_union >= V_P + V_Q by the restriction
    lemma), and it lets the bound see the two compete for M: sparse_forward(causal 3,1),
    whose query rows have 7, 14 and 21 vertices with their inputs, at M = 3 in recompute:
    the rows 19 and 21 start at 30, not 29, and the search with the bound proves nothing
    below 35 storing 116,468 configurations instead of 269,825 (docs/performance.md).  The
    union takes the place of the first of the two."""
    parts = list(parts)
    largest = max((part.bit_count() for part in parts), default=0)  # no union passes it
    while len(parts) > 1:
        order = sorted(range(len(parts)), key=lambda i: (parts[i].bit_count(), i))
        first, second = sorted(order[:2])
        union = parts[first] | parts[second]
        if union.bit_count() > largest:
            break
        parts[first] = union
        del parts[second]
    return parts


def _disjoint_parts(dag: DAG, max_vertices: int) -> list[int]:
    rows = attention_backward_rows(dag, max_vertices)
    if rows is not None:
        return rows
    pieces = _pieces(dag, set(dag.useful))
    parts = []
    for piece in pieces:
        if len(piece) > max_vertices:
            parts.extend(_by_first_output(dag, piece, max_vertices))
        else:
            parts.append(piece)
    return [sum(1 << v for v in part) for part in parts if part]


def _share_inputs(dag: DAG, parts: list[int], deadline: float | None = None) -> list[int]:
    """``parts`` with each input added to every part holding one of its successors (a pass
    over the inputs per part: the clock is read per part)."""
    shared = []
    for part in parts:
        _in_time(deadline)
        inside = set(_bits(part))  # a set: shifting a long mask per look-up is quadratic
        shared.append(part | _mask_of([v for v in dag.inputs
                                       if any(s in inside for s in dag.succs[v])], len(dag)))
    return shared


# Vertex labels of the attention backward families (``ioverify.dag.attention``,
# ``sparse_attention_backward``) with their number of indices: those of a query row i (first
# index i), and those of a key j (first index j; the products ``dK*[j,i,l]``, ``dV*[j,i,l]`` of
# the key sums are also of query i).
_QUERY_LABELS = {"Q": 2, "O": 2, "dO": 2, "L": 1, "D": 1, "D*": 2, "S": 2, "S*": 3, "S-L": 2,
                 "P": 2, "dP": 2, "dP*": 3, "dP-D": 2, "dS": 2, "dQ": 2, "dQ*": 3}
_KEY_LABELS = {"K": 2, "V": 2, "dK": 2, "dV": 2, "dK*": 3, "dV*": 3}
_NAME = re.compile(r"([^\[\]]+)\[(\d+(?:,\d+)*)\](?:~\d+)?")


def attention_backward_rows(dag: DAG, max_vertices: int = PART_MAX_VERTICES) -> list[int] | None:
    """The query-row partition of an attention backward DAG (vertex masks), or None if ``dag``'s
    names are not those of ``attention_backward`` / ``sparse_attention_backward`` or a row has
    more than ``max_vertices`` vertices.

    Row i holds every vertex of query row i (its inputs Q, O, dO, L, then D, S, P, dP, dS and
    the dQ sums, with their products and partial sums).  The key sums dK[j,*] and dV[j,*] are
    shared by all rows: they go, with key j's inputs K[j,*] and V[j,*], to key j's HOME row, j
    itself if query j attends key j (always in the dense family), else the first query that
    does; so do the products dK*[j,i,*] of every query i and the products dV*[j,i,*] of the
    home row i only.  In the home row's restricted game the other rows' dS entering the dK
    products are free, but the products still take red pebbles while they are summed; the
    other rows' dV products are left out because with them the rows of attention_backward(2,1)
    need about 200,000 configurations (the cap on restricted searches then) at M = 3 against
    70,000 without, for a start value higher only at M = 3 (44 against 42, one-shot).  Each
    row then keeps only the vertices that reach one of its outputs within it (the others cost
    nothing in its restricted game).  Leaving vertices out is sound ("Fewer vertices", module
    docstring), and the rows are disjoint by construction, so the bound over them is sound
    whatever the DAG really computes; the names only steer its strength."""
    query_of: dict[int, int] = {}
    key_of: dict[int, int] = {}
    term_of: dict[int, int] = {}  # a dV*[j,i,l] product -> its query i
    attends: dict[int, set[int]] = {}  # key j -> the queries with an S[i,j]
    for v, name in enumerate(dag.names):
        match = _NAME.fullmatch(name)
        if match is None:
            return None
        label, index = match.group(1), [int(x) for x in match.group(2).split(",")]
        if _QUERY_LABELS.get(label) == len(index):
            query_of[v] = index[0]
            if label == "S":
                attends.setdefault(index[1], set()).add(index[0])
        elif _KEY_LABELS.get(label) == len(index):
            key_of[v] = index[0]
            if label == "dV*":
                term_of[v] = index[1]
        else:
            return None
    if not any(dag.names[o].startswith(("dQ[", "dK[", "dV[")) for o in dag.outputs):
        return None
    home = {j: j if j in queries else min(queries) for j, queries in attends.items()}
    rows: dict[int, list[int]] = {}
    for v in dag.useful:
        if v in query_of:
            row = query_of[v]
        elif key_of.get(v) in home:
            row = home[key_of[v]]
            if term_of.get(v, row) != row:
                continue  # another query's dV product: left out
        else:
            continue  # a key no query attends: its inputs feed nothing useful
        rows.setdefault(row, []).append(v)
    parts = [_reaching_outputs(dag, row) for _, row in sorted(rows.items())]
    parts = [part for part in parts if part]
    if any(part.bit_count() > max_vertices for part in parts):
        return None
    return parts


def _reaching_outputs(dag: DAG, part: list[int]) -> int:
    """The mask of the vertices of ``part`` with a path within ``part`` to an output in
    ``part`` (in sets: on a DAG of 43,440 vertices, shifting long masks per vertex took
    seconds)."""
    keep: set[int] = set()
    for v in sorted(part, reverse=True):  # successors first: vertices are in topological order
        if dag.is_output[v] or any(s in keep for s in dag.succs[v]):
            keep.add(v)
    return _mask_of(keep, len(dag))


def _pieces(dag: DAG, useful: set[int]) -> list[list[int]]:
    """Connected pieces of the useful non-input vertices, inputs added to the piece of their
    first useful successor."""
    parent = list(range(len(dag)))

    def find(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for v in useful:
        if dag.is_input[v]:
            continue
        for p in dag.preds[v]:
            if not dag.is_input[p]:
                parent[find(p)] = find(v)
    groups: dict[int, list[int]] = {}
    for v in sorted(useful):
        if dag.is_input[v]:
            users = [s for s in dag.succs[v] if s in useful]
            if not users:
                continue
            groups.setdefault(find(min(users)), []).append(v)
        else:
            groups.setdefault(find(v), []).append(v)
    return sorted(groups.values())


def _by_first_output(dag: DAG, piece: list[int], max_vertices: int,
                     within: int | None = None) -> list[list[int]]:
    """Split ``piece`` by the first output (lowest index) each vertex reaches, then join
    neighbouring groups while they stay within ``max_vertices``; ``within``: only the outputs
    in this mask count."""
    reach = {}
    outputs = {o for o in dag.outputs if within is None or within >> o & 1}
    for v in sorted(piece, reverse=True):
        firsts = [v] if v in outputs else []
        firsts += [reach[s] for s in dag.succs[v] if s in reach]
        if firsts:
            reach[v] = min(firsts)
    groups: dict[int, list[int]] = {}
    for v in piece:
        if v in reach:
            groups.setdefault(reach[v], []).append(v)
    merged: list[list[int]] = []
    for _, group in sorted(groups.items()):
        if merged and len(merged[-1]) + len(group) <= max_vertices:
            merged[-1].extend(group)
        else:
            merged.append(list(group))
    return [sorted(group) for group in merged]


def split_part(dag: DAG, part: int) -> list[int]:
    """``part`` split by the first output of the part each of its vertices reaches within the
    part, joined into pieces of at most half its size (the nested bound's parts); vertices
    reaching no output of the part are left out (they are useless in its restricted game)."""
    piece = [v for v in range(len(dag)) if part >> v & 1]
    groups = _by_first_output(dag, piece, max(1, len(piece) // 2), within=part)
    return [sum(1 << v for v in group) for group in groups if group]


def root_bound(dag: DAG, memory: int, variant: Variant, parts: list[int] | None = None,
               deadline: float | None = None, nested: bool = True) -> float:
    """The bound at the start configuration (inputs blue, nothing red): a lower bound on the
    optimal I/O of the game itself (module docstring).  ``nested=False``: the flat bound, as
    ``pebble`` uses it (the same value, often sooner)."""
    parts = parts_of(dag) if parts is None else parts
    return AbstractionBound(dag, memory, variant, parts, deadline=deadline,
                            nested=nested).root(dag)
