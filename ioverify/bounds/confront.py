"""Small-instance confrontation: every explicit-constant lower bound against exact optima.

For each lower bound with explicit constants and a matching DAG family, and each small instance
of that family whose exact optimum is known, the optimum must be at least the bound.  Optima come
from three places, always labelled:

- ``reference``: docs/theory.md §1's reference optima (an independent exhaustive search), used
  as data;
- ``search``: ``ioverify.game.exhaustive.exhaustive_optimum`` run here (complete runs only), its
  schedule replayed by ``ioverify.game.replay`` before the optimum is used;
- the shipped claims' exact optima, as their committed certificates record them
  (``ioverify.report.confrontation`` reads them; the test suite re-checks every committed
  certificate with ``ioverify certificate check``), in the variant each was proved in.

Every optimum has a variant, and every one-shot schedule is a recompute schedule, so the
recompute optimum is at most the one-shot one.  A bound is compared directly with an optimum of
its own variant.  A recompute optimum at least a one-shot bound supports it; below it, nothing
follows (``inconclusive``).  A one-shot optimum below a recompute bound refutes it (``failed``);
at or above it nothing follows, and no row is drawn.  Two sources giving different optima for
one instance and variant are an internal error.  A failing derived bound is a finding:
``ioverify.report.confrontation`` writes it into ``docs/bounds-confrontation.md`` with the instance
(``ioverify docs``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sympy

from ioverify.bounds.records import REGISTRY, Bound
from ioverify.errors import InternalError, InvalidArgument
from ioverify.dag.registry import FAMILIES
from ioverify.game import engine
from ioverify.game.replay import replay

REFERENCE = "reference optimum (docs/theory.md §1, independent exhaustive search, recompute)"
SEARCH = "exhaustive_optimum, complete run, schedule replayed (recompute)"

# docs/theory.md §1: 2x2x2 matmul with products and one addition per entry.
REFERENCE_OPTIMA = (("matmul", {"m": 2, "k": 2, "n": 2}, 3, 25),
                    ("matmul", {"m": 2, "k": 2, "n": 2}, 4, 17),
                    ("matmul", {"m": 2, "k": 2, "n": 2}, 5, 14),
                    ("matmul", {"m": 2, "k": 2, "n": 2}, 6, 13))

# Small instances searched exactly (a few seconds each at most, except where noted).
SEARCH_INSTANCES = (
    ("matmul", {"m": 1, "k": 1, "n": 1}, (3, 4)),
    ("matmul", {"m": 1, "k": 2, "n": 1}, (3, 4, 5)),
    ("matmul", {"m": 2, "k": 1, "n": 2}, (3, 4, 5)),
    ("matmul", {"m": 1, "k": 2, "n": 2}, (3, 4, 5)),
    ("attention-forward", {"n": 1, "d": 1}, (3, 4)),
    ("attention-forward", {"n": 1, "d": 2}, (3, 4)),
    ("attention-forward", {"n": 2, "d": 1}, (5, 6)),  # ~30 s each, 1.1M states at M = 6
    ("attention-backward", {"n": 1, "d": 1}, (3, 4)),
    ("alman-song-backward", {"n": 1, "d": 1}, (3, 4)),
    ("approximate-attention", {"n": 1, "d": 1, "degree": 1}, (3, 4, 5)),
    ("approximate-attention", {"n": 2, "d": 1, "degree": 1}, (4, 5)),  # ~10 s
)


@dataclass(frozen=True)
class Optimum:
    family: str
    params: dict
    memory: int
    io: int
    provenance: str
    variant: str = "recompute"

    @property
    def instance(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        where = f"{self.family}({args}), M={self.memory}"
        return where if self.variant == "recompute" else f"{where}, {self.variant}"

    @property
    def cell(self) -> tuple:
        """What two optima must agree on when they name the same instance."""
        return (self.family, tuple(sorted(self.params.items())), self.memory, self.variant)


@dataclass(frozen=True)
class Row:
    bound: str
    firmness: str
    optimum: Optimum
    value: str  # the bound's exact value on the instance
    status: str  # held | failed | inconclusive
    note: str


def explicit_lower_bounds() -> list[Bound]:
    """Lower bounds with explicit constants and a matching DAG family."""
    return [b for b in REGISTRY.values()
            if b.kind == "lower" and not b.asymptotic and b.family is not None]


def reference_optima() -> list[Optimum]:
    return [Optimum(f, p, m, q, REFERENCE) for f, p, m, q in REFERENCE_OPTIMA]


SEARCH_STATES = 2_000_000  # a work budget, not a clock: the page is the same on every machine


def searched_optima(*, max_states: int = SEARCH_STATES, seconds: float | None = None,
                    instances=SEARCH_INSTANCES) -> list[Optimum]:
    """Exact optima by exhaustive search (complete runs only, schedules replayed), each search
    capped at ``max_states`` configurations (and, if given, ``seconds``)."""
    found = []
    for family, params, memories in instances:
        dag = FAMILIES[family].build(**params)
        for memory in memories:
            deadline = None if seconds is None else time.monotonic() + seconds
            result = engine.search().exhaustive_optimum(dag, memory, deadline=deadline,
                                                        max_states=max_states)
            if not result.complete or result.optimum is None:
                continue
            check = replay(dag, result.schedule, memory, "recompute")
            if not check.ok or check.io != result.optimum:
                raise InternalError(f"{family}{params} M={memory}: the search's schedule does "
                                    f"not replay to its optimum {result.optimum}")
            found.append(Optimum(family, params, memory, result.optimum, SEARCH))
    return found


def distinct(optima: list[Optimum]) -> list[Optimum]:
    """The optima without repeats (the first source of each instance and variant is kept); two
    sources disagreeing on one is an InternalError: one of them is wrong."""
    seen: dict[tuple, Optimum] = {}
    for opt in optima:
        first = seen.setdefault(opt.cell, opt)
        if first.io != opt.io:
            raise InternalError(f"{opt.instance}: optimum {first.io} ({first.provenance}) "
                                f"against {opt.io} ({opt.provenance})")
    return list(seen.values())


def confront(optima: list[Optimum]) -> list[Row]:
    rows = []
    optima = distinct(optima)
    for bound in explicit_lower_bounds():
        for opt in optima:
            if opt.family == bound.family:
                row = _confront_one(bound, opt)
                if row is not None:
                    rows.append(row)
    return rows


def _confront_one(bound: Bound, opt: Optimum) -> Row | None:
    try:
        value = bound.exact(**opt.params, M=opt.memory)
    except InvalidArgument:
        return None  # outside the bound's regime: nothing is claimed there
    held = bool(sympy.Integer(opt.io) >= value)
    # A one-shot optimum bounds the recompute optimum from above: only its failures count.
    weaker = bound.variant == "recompute" and opt.variant == "one-shot"
    if weaker and held:
        return None
    notes = []
    if value <= 0:
        notes.append("vacuous (bound <= 0)")
    if bound.variant != opt.variant:
        notes.append(f"{bound.variant} bound vs {opt.variant} optimum")
    if bound.id == "cosma":
        notes.append("family has mul + add vertices, not FMA vertices")
    if held:
        status = "held"
    elif bound.variant == "one-shot" and opt.variant == "recompute":
        status = "inconclusive"
    else:
        status = "failed"
    if held and value == opt.io:
        notes.append("tight")
    elif held and sympy.ceiling(value) == opt.io:
        notes.append("tight after rounding up")
    return Row(bound.id, bound.firmness, opt, _show(value), status, "; ".join(notes))


def _show(value: sympy.Expr) -> str:
    if value.is_Rational:
        return str(value)
    return f"{sympy.sstr(value)} ≈ {float(value):.3f}"
