"""The red-blue pebble game of Hong and Kung, corrected rules (docs/theory.md §1).

A configuration is (R, B): the vertices with a red pebble (fast memory) and a blue pebble (slow
memory).  Start: blue on every input, no red.  Goal: blue on every output.

    load v     cost 1  v has blue and no red; put red on v
    store v    cost 1  v has red and no blue; put blue on v
    compute v  cost 0  v is not an input, has no red, every predecessor is red; put red on v
    delete v   cost 0  v has red; remove it
    |R| <= M at every moment, counting the pebble being placed.

Moves that would change nothing are illegal, so schedules stay canonical.  Variants are records
(``Variant``, registered in ``VARIANTS``): ``recompute`` (Hong-Kung's own, the default) and
``one-shot`` (each non-input vertex is computed at most once, the rule a replay checks; a complete
schedule computes every vertex it needs, so those exactly once).  Each component names the
variants it implements and refuses any other with ``UnsupportedVariant`` (``require_variant``), so
a new record (the partial-computation game, say) is refused everywhere until it is taught:
first the replayer, then the searches and encodings.

This module and ``replay`` are the trusted base: pure Python, no solver imports.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Iterable, Iterator

from ioverify._check import positive
from ioverify._io import check_header, load_json_document
from ioverify.dag.model import DAG
from ioverify.errors import InvalidArgument, InvalidSchedule, UnsupportedVariant

LOAD, STORE, COMPUTE, DELETE = 0, 1, 2, 3
MOVE_NAMES = ("load", "store", "compute", "delete")
MOVE_CODES = {name: code for code, name in enumerate(MOVE_NAMES)}
COST = (1, 1, 0, 0)

FORMAT = "ioverify-schedule"
VERSION = 1


@dataclass(frozen=True)
class Variant:
    """One variant of the game as data (docs/theory.md §1).  The moves, costs and capacity rule
    above are common to every registered variant; the fields say how a variant departs from them,
    and are what components dispatch on.

    ``name``: how the variant is written in JSON (verdicts, claims, certificates) and on the CLI.
    ``at_most_once``: each non-input vertex is computed at most once (the replay rule
    ``one-shot-recompute``).  A complete schedule computes every needed vertex at least once, so
    then exactly once: the number of computes is known, which makes the compute-step encoding's
    horizon exact (``ioverify.search.pebbling``) and puts the computed set into the exhaustive search's
    state.  False: a vertex may be recomputed any number of times.
    ``summary``: one line for ``--help``.
    """

    name: str
    at_most_once: bool
    summary: str


RECOMPUTE = Variant("recompute", at_most_once=False,
                    summary="Hong-Kung's own: a vertex may be computed any number of times")
ONE_SHOT = Variant("one-shot", at_most_once=True,
                   summary="each non-input vertex is computed at most once")

# The registered variants, by name.  A record added here is refused by every component until it
# is added to that component's IMPLEMENTED set (and taught its rules).
VARIANTS: dict[str, Variant] = {v.name: v for v in (RECOMPUTE, ONE_SHOT)}

# What the Hong-Kung components implement: the game above, with or without at-most-once.
HONG_KUNG = frozenset({"recompute", "one-shot"})


def variant(name_or_record: str | Variant) -> Variant:
    """The registered ``Variant`` for a name or a record; ``UnsupportedVariant`` (exit 2) for an
    unknown name or a record that is not the registered one of its name."""
    known = ", ".join(VARIANTS)
    if isinstance(name_or_record, Variant):
        if VARIANTS.get(name_or_record.name) != name_or_record:
            raise UnsupportedVariant(f"unregistered game variant record {name_or_record!r} "
                                     f"(known: {known})")
        return VARIANTS[name_or_record.name]
    record = VARIANTS.get(name_or_record) if isinstance(name_or_record, str) else None
    if record is None:
        raise UnsupportedVariant(f"unknown game variant {name_or_record!r} (known: {known})")
    return record


def require_variant(name_or_record: str | Variant, implemented: frozenset[str],
                    component: str) -> Variant:
    """The registered ``Variant``, if ``component`` implements it; ``UnsupportedVariant``
    naming the variant and what the component implements otherwise."""
    record = variant(name_or_record)
    if record.name not in implemented:
        raise UnsupportedVariant(f"{component} does not implement the game variant "
                                 f"{record.name!r} (it implements: "
                                 f"{', '.join(sorted(implemented))})")
    return record


def check_variant(name_or_record: str | Variant) -> str:
    """The name of a Hong-Kung variant (recompute or one-shot), for callers that implement
    exactly those two; ``UnsupportedVariant`` otherwise."""
    return require_variant(name_or_record, HONG_KUNG, "this component").name


def check_memory(memory: int) -> int:
    return positive("memory M", memory)


def check_dag(dag) -> DAG:
    """``dag`` if it is an ioverify DAG; InvalidArgument naming what it is otherwise (a
    library caller's mistake, not an AttributeError deep inside)."""
    if not isinstance(dag, DAG):
        raise InvalidArgument(f"dag must be an ioverify DAG, got {type(dag).__name__}")
    return dag


def infeasibility(dag: DAG, memory: int) -> str | None:
    """Why no schedule exists with ``memory`` red pebbles, naming the vertex; None if feasible.
    Only the vertices some output needs (``DAG.useful``) count: a schedule never has to
    compute another one (dropping every move on it keeps a schedule legal and complete)."""
    preds = dag.preds
    for v in dag.useful:
        ps = preds[v]
        if ps and len(ps) + 1 > memory:
            return (f"vertex {dag.names[v]!r} has in-degree {len(ps)} and needs M >= "
                    f"{len(ps) + 1} red pebbles, but M = {memory}")
    if memory < 1:
        return "M must be at least 1"
    return None


class Schedule:
    """A sequence of moves, stored compactly: one byte of kind and one integer vertex per move."""

    __slots__ = ("kinds", "vertices")

    def __init__(self, kinds: bytes | bytearray = b"", vertices: Iterable[int] = ()):
        self.kinds = bytes(kinds)
        self.vertices = array("l", vertices)
        if len(self.kinds) != len(self.vertices):
            raise InvalidSchedule("a schedule needs one vertex per move")
        if self.kinds and max(self.kinds) >= len(MOVE_NAMES):
            raise InvalidSchedule(f"move kind {max(self.kinds)} is none of "
                                  f"{', '.join(f'{k} ({n})' for k, n in enumerate(MOVE_NAMES))}")

    @classmethod
    def from_moves(cls, moves: Iterable[tuple[str, int]]) -> "Schedule":
        kinds, verts = bytearray(), array("l")
        for name, v in moves:
            if name not in MOVE_CODES:
                raise InvalidSchedule(f"unknown move {name!r} (moves: "
                                      f"{', '.join(MOVE_CODES)})")
            kinds.append(MOVE_CODES[name])
            verts.append(v)
        return cls(kinds, verts)

    def __len__(self) -> int:
        return len(self.kinds)

    def __iter__(self) -> Iterator[tuple[str, int]]:
        for k, v in zip(self.kinds, self.vertices):
            yield MOVE_NAMES[k], v

    def __eq__(self, other) -> bool:
        return (isinstance(other, Schedule) and self.kinds == other.kinds
                and self.vertices == other.vertices)

    def __repr__(self) -> str:
        return f"Schedule({len(self)} moves, io={self.io})"

    @property
    def io(self) -> int:
        return self.kinds.count(LOAD) + self.kinds.count(STORE)

    def named(self, dag: DAG) -> list[list[str]]:
        names = dag.names
        return [[MOVE_NAMES[k], names[v]] for k, v in zip(self.kinds, self.vertices)]

    def to_dict(self, dag: DAG) -> dict:
        return {"format": FORMAT, "version": VERSION, "moves": self.named(dag)}


def schedule_from_dict(doc: object, dag: DAG, what: str = "schedule") -> Schedule:
    doc = check_header(doc, FORMAT, VERSION, what)
    unknown = set(doc) - {"format", "version", "moves"}
    if unknown:
        raise InvalidSchedule(f"{what} has unknown field {sorted(unknown)[0]!r}")
    moves = doc.get("moves")
    if not isinstance(moves, list):
        raise InvalidSchedule(f"{what}: 'moves' must be a list of [kind, node] pairs")
    index = dag.index
    kinds, verts = bytearray(), array("l")
    for i, move in enumerate(moves):
        if not (isinstance(move, list) and len(move) == 2):
            raise InvalidSchedule(f"{what}: move #{i} must be a [kind, node] pair, got {move!r}")
        kind, name = move
        code = MOVE_CODES.get(kind) if isinstance(kind, str) else None
        if code is None:
            raise InvalidSchedule(f"{what}: move #{i} has unknown kind {kind!r} "
                                  f"(expected one of {', '.join(MOVE_NAMES)})")
        v = index.get(name) if isinstance(name, str) else None
        if v is None:
            raise InvalidSchedule(f"{what}: move #{i} {move!r} names unknown node {name!r}")
        kinds.append(code)
        verts.append(v)
    return Schedule(kinds, verts)


def schedule_from_json(text: str, dag: DAG, what: str = "schedule") -> Schedule:
    return schedule_from_dict(load_json_document(text, what), dag, what)


def read_schedule(path, dag: DAG) -> Schedule:
    from pathlib import Path

    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise InvalidSchedule(f"cannot read schedule file {str(path)!r}: "
                              f"{error.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidSchedule(f"schedule file {str(path)!r} is not UTF-8 text") from None
    return schedule_from_json(text, dag, f"schedule file {str(path)!r}")
