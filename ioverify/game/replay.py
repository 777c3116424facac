"""The independent replayer: is a schedule legal and complete, and what does it cost?

This is the trusted base every other result is checked against.  It is deliberately small, pure
Python and free of solver imports; each rule is one named check below, in the order of
``ioverify.game.rules``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ioverify.dag.model import DAG
from ioverify.errors import InvalidArgument, InvalidSchedule
from ioverify.game.rules import (COMPUTE, DELETE, LOAD, MOVE_NAMES, STORE, Schedule, Variant,
                                 check_dag, check_memory, require_variant)
from ioverify.verdict import Evidence, Legal, Refuted, Verdict

# The variants whose rules this replayer checks; any other is refused (UnsupportedVariant).  A new
# variant is taught here first: the trusted base decides what a legal schedule is.
IMPLEMENTED = frozenset({"recompute", "one-shot"})

# The rule each failure breaks, as printed to users.
RULES = {
    "load-needs-blue": "load needs a blue pebble on the vertex",
    "load-already-red": "load of a vertex that already has a red pebble changes nothing",
    "store-needs-red": "store needs a red pebble on the vertex",
    "store-already-blue": "store of a vertex that already has a blue pebble changes nothing",
    "compute-input": "inputs cannot be computed",
    "compute-already-red": "compute of a vertex that already has a red pebble changes nothing",
    "compute-needs-predecessors": "compute needs a red pebble on every predecessor",
    "one-shot-recompute": "the one-shot variant computes every vertex at most once",
    "capacity": "more than M red pebbles",
    "delete-needs-red": "delete needs a red pebble on the vertex",
}


@dataclass(frozen=True)
class ReplayResult:
    """The outcome of replaying a schedule: costs, and the first broken rule if any."""

    memory: int
    variant: str
    moves: int
    loads: int
    stores: int
    peak: int
    error_index: int | None = None
    error_move: tuple[str, str] | None = None
    error_rule: str | None = None
    error_detail: str = ""
    missing_outputs: tuple[str, ...] = field(default=())

    @property
    def io(self) -> int:
        return self.loads + self.stores

    @property
    def legal(self) -> bool:
        return self.error_rule is None

    @property
    def ok(self) -> bool:
        """Legal and complete: every move obeys the rules and every output ends blue."""
        return self.legal and not self.missing_outputs

    def describe(self) -> str:
        if self.error_rule is not None:
            kind, name = self.error_move
            detail = f" ({self.error_detail})" if self.error_detail else ""
            return (f"illegal move #{self.error_index} [{kind!r}, {name!r}]: "
                    f"{RULES[self.error_rule]}{detail}")
        if self.missing_outputs:
            shown = ", ".join(repr(n) for n in self.missing_outputs[:5])
            more = len(self.missing_outputs) - 5
            return (f"incomplete: {len(self.missing_outputs)} output(s) without a blue pebble: "
                    f"{shown}{f' and {more} more' if more > 0 else ''}")
        return (f"legal and complete: {self.loads} loads + {self.stores} stores = {self.io} I/O, "
                f"peak {self.peak} red of M = {self.memory} ({self.variant})")

    def verdict(self) -> Verdict:
        """The answer in ioverify's verdict vocabulary: ``Legal`` with the cost, or ``Refuted``
        with the broken rule (or the outputs left without blue)."""
        if not self.ok:
            return Refuted(None, None, None, self.variant, self.describe())
        return Legal(self.io, self.loads, self.stores, self.peak, self.moves, self.memory,
                     Evidence("replay"), self.variant)

    def to_json(self) -> dict:
        return {
            "status": self.verdict().status,
            "legal": self.legal, "complete": self.legal and not self.missing_outputs,
            "ok": self.ok, "variant": self.variant, "memory": self.memory, "moves": self.moves,
            "loads": self.loads, "stores": self.stores, "io": self.io, "peak": self.peak,
            "error": None if self.legal else {
                "index": self.error_index, "move": list(self.error_move),
                "rule": self.error_rule, "message": self.describe()},
            "missing_outputs": list(self.missing_outputs),
        }


def replay(dag: DAG, schedule: Schedule, memory: int,
           variant: str | Variant = "recompute") -> ReplayResult:
    """Replay ``schedule`` on ``dag`` with ``memory`` red pebbles in ``variant`` (a name or a
    ``Variant``); never raises on an illegal move (that is a result), only on malformed
    arguments or a variant it does not implement."""
    check_dag(dag), check_memory(memory)
    if not isinstance(schedule, Schedule):
        raise InvalidArgument(f"schedule must be a Schedule (Schedule.from_moves makes one of "
                              f"(kind, vertex) moves), got {type(schedule).__name__}")
    rules = require_variant(variant, IMPLEMENTED, "the replayer")
    variant = rules.name  # the name, as results carry it
    n = len(dag)
    red = bytearray(n)
    blue = bytearray(dag.is_input)  # inputs start blue
    computed = bytearray(n)
    is_input, preds = dag.is_input, dag.preds
    at_most_once = rules.at_most_once
    _check_vertices(schedule, n)
    nred = peak = loads = stores = 0
    verts = schedule.vertices
    for i, k in enumerate(schedule.kinds):
        v = verts[i]
        if k == COMPUTE:
            if is_input[v]:
                return _fail(dag, memory, variant, schedule, i, "compute-input", loads, stores, peak)
            if red[v]:
                return _fail(dag, memory, variant, schedule, i, "compute-already-red", loads,
                             stores, peak)
            for p in preds[v]:
                if not red[p]:
                    return _fail(dag, memory, variant, schedule, i, "compute-needs-predecessors",
                                 loads, stores, peak, f"predecessor {dag.names[p]!r} is not red")
            if at_most_once:
                if computed[v]:
                    return _fail(dag, memory, variant, schedule, i, "one-shot-recompute", loads,
                                 stores, peak)
                computed[v] = 1
            nred += 1
            if nred > memory:
                return _fail(dag, memory, variant, schedule, i, "capacity", loads, stores, peak,
                             f"{nred} > M = {memory}")
            red[v] = 1
        elif k == LOAD:
            if not blue[v]:
                return _fail(dag, memory, variant, schedule, i, "load-needs-blue", loads, stores,
                             peak)
            if red[v]:
                return _fail(dag, memory, variant, schedule, i, "load-already-red", loads, stores,
                             peak)
            nred += 1
            if nred > memory:
                return _fail(dag, memory, variant, schedule, i, "capacity", loads, stores, peak,
                             f"{nred} > M = {memory}")
            red[v] = 1
            loads += 1
        elif k == DELETE:
            if not red[v]:
                return _fail(dag, memory, variant, schedule, i, "delete-needs-red", loads, stores,
                             peak)
            red[v] = 0
            nred -= 1
            continue
        elif k == STORE:
            if not red[v]:
                return _fail(dag, memory, variant, schedule, i, "store-needs-red", loads, stores,
                             peak)
            if blue[v]:
                return _fail(dag, memory, variant, schedule, i, "store-already-blue", loads,
                             stores, peak)
            blue[v] = 1
            stores += 1
            continue
        else:
            raise InvalidSchedule(f"move #{i} has unknown kind code {k}")
        if nred > peak:
            peak = nred
    missing = tuple(dag.names[v] for v in dag.outputs if not blue[v])
    return ReplayResult(memory, variant, len(schedule), loads, stores, peak,
                        missing_outputs=missing)


def _check_vertices(schedule: Schedule, n: int) -> None:
    verts = schedule.vertices
    if verts and not (0 <= min(verts) and max(verts) < n):
        i = next(i for i, v in enumerate(verts) if not 0 <= v < n)
        raise InvalidSchedule(f"move #{i} names vertex index {verts[i]}, but the DAG has "
                              f"vertices 0..{n - 1}")


def _fail(dag, memory, variant, schedule, i, rule, loads, stores, peak, detail="") -> ReplayResult:
    name = dag.names[schedule.vertices[i]]
    return ReplayResult(memory, variant, len(schedule), loads, stores, peak, error_index=i,
                        error_move=(MOVE_NAMES[schedule.kinds[i]], name), error_rule=rule,
                        error_detail=detail)
