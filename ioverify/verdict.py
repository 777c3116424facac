"""Verdicts are data: what a check established, and on what evidence.

A solver answer is never a bool.  Each verdict names what it proves; merging verdicts over a grid is
"worst wins", so an ``Unknown`` or a ``Bounded`` can never turn into ``Verified``.

Severity order used by ``merge`` (worst first):
    Refuted > Infeasible > Unknown > Bounded > Verified > Optimal
A refutation dominates because it is a replayed counterexample; ``Infeasible`` means the instance
could not be posed (a vertex needs more red pebbles than M) and so nothing was checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from ioverify.errors import exit_code_of

# The argument that backs a "none exists" answer.  Every Optimal/Verified carries one.
EVIDENCE_KINDS = (
    "exhaustive-search",  # complete configuration search, horizon-free
    "one-shot-exact-horizon",  # one-shot variant: the bounded encoding's horizon is exact
    "proved-horizon",  # a horizon bound that is itself proved
    "partition-lemma",  # Q >= M (P(2M) - 1), Hong-Kung, horizon-free
    "trivial-bound",  # every input loaded and every output stored
    "kernel-certification",  # a kernel trace replayed, outputs checked, I/O recounted
    "symbolic-proof",  # SymPy identity or Z3 arithmetic over a whole parameter region
)


@dataclass(frozen=True)
class Evidence:
    """The argument behind a verdict: ``kind`` is one of EVIDENCE_KINDS; ``detail`` is data."""

    kind: str
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"unknown evidence kind {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.detail}


@dataclass(frozen=True)
class Optimal:
    """The exact optimum: ``schedule`` (replayed) attains ``io``; ``evidence`` shows nothing cheaper."""

    io: int
    schedule: Any
    evidence: Evidence
    variant: str = "recompute"
    status = "optimal"


@dataclass(frozen=True)
class Verified:
    """A claimed lower bound holds on the instance: no schedule costs less than ``bound``."""

    bound: int
    evidence: Evidence
    variant: str = "recompute"
    status = "verified"


@dataclass(frozen=True)
class Refuted:
    """A claim fails.  For a lower bound: ``schedule`` (replayed) costs ``io`` < ``claim``.
    For other claims (a kernel, a formula) ``schedule`` is None and ``reason`` says what failed,
    on evidence that was itself checked."""

    schedule: Any
    io: int | None
    claim: int | None = None
    variant: str = "recompute"
    reason: str = ""
    status = "refuted"


@dataclass(frozen=True)
class Bounded:
    """No schedule of at most ``horizon`` moves beats the claim; nothing is proved beyond that."""

    horizon: int
    lower_bound: int | None = None
    upper_bound: int | None = None
    variant: str = "recompute"
    status = "bounded"


@dataclass(frozen=True)
class Unknown:
    """The check did not finish or the solver said unknown: ``reason`` says why."""

    reason: str
    lower_bound: int | None = None
    upper_bound: int | None = None
    variant: str = "recompute"
    status = "unknown"


@dataclass(frozen=True)
class Infeasible:
    """The instance cannot be pebbled at all (``reason`` names the vertex and its in-degree)."""

    reason: str
    variant: str = "recompute"
    status = "infeasible"


Verdict = Optimal | Verified | Refuted | Bounded | Unknown | Infeasible

SEVERITY = {"optimal": 0, "verified": 1, "bounded": 2, "unknown": 3, "infeasible": 4, "refuted": 5}


def is_proof(verdict: Verdict) -> bool:
    """True only for verdicts that establish a claim: Optimal and Verified."""
    return isinstance(verdict, (Optimal, Verified))


def merge(verdicts: Iterable[Verdict]) -> Verdict:
    """Worst wins.  An empty grid proves nothing, so it merges to ``Unknown``."""
    worst = None
    for verdict in verdicts:
        if worst is None or SEVERITY[verdict.status] > SEVERITY[worst.status]:
            worst = verdict
    return worst if worst is not None else Unknown("no instance was checked")


def exit_code(verdict: Verdict) -> int:
    """The verdict's exit code, from the one table ``ioverify.errors.EXIT_CODES``."""
    return exit_code_of(verdict.status)


def verdict_to_json(verdict: Verdict, dag: Any = None, *, seconds: float | None = None) -> dict:
    """One JSON object for a pebbling verdict (issue 3): ``status``, ``io``, ``lower_bound``,
    ``upper_bound``, ``variant``, ``method`` (the evidence kind, or what was run), ``seconds``,
    ``schedule`` (ioverify-schedule format, needs ``dag``; null when there is none), plus
    ``evidence``/``reason``/``horizon``/``claim`` where the verdict has them."""
    io = lower = upper = None
    method, extra = None, {}
    if isinstance(verdict, Optimal):
        io = lower = upper = verdict.io
        method, extra = verdict.evidence.kind, {"evidence": verdict.evidence.to_json()}
    elif isinstance(verdict, Verified):
        lower, method = verdict.bound, verdict.evidence.kind
        extra = {"evidence": verdict.evidence.to_json()}
    elif isinstance(verdict, Refuted):
        io = upper = verdict.io
        method, extra = "counterexample", {"claim": verdict.claim, "reason": verdict.reason}
    elif isinstance(verdict, Bounded):
        lower, upper, method = verdict.lower_bound, verdict.upper_bound, "bounded-search"
        extra = {"horizon": verdict.horizon}
    elif isinstance(verdict, (Unknown, Infeasible)):
        lower = getattr(verdict, "lower_bound", None)
        upper = getattr(verdict, "upper_bound", None)
        method, extra = "none", {"reason": verdict.reason}
    schedule = getattr(verdict, "schedule", None)
    return {"status": verdict.status, "io": io, "lower_bound": lower, "upper_bound": upper,
            "variant": verdict.variant, "method": method,
            "seconds": None if seconds is None else round(seconds, 3),
            "schedule": None if schedule is None or dag is None else schedule.to_dict(dag),
            **extra}
