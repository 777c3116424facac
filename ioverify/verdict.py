"""Verdicts are data: what a check established, and on what evidence.

A solver answer is never a bool.  Each verdict names what it proves; merging verdicts over a grid is
"worst wins", so an ``Unknown`` or a ``Bounded`` can never turn into ``Verified``.

Every check answers in this vocabulary: the pebbling and partition searches (``Optimal``,
``Verified`` with a proved lower ``bound``, ``Attained`` with a replayed schedule within a
claimed upper end), a kernel run (``Certified``: the certified I/O, the
peak and the closed form, never stuffed into a bound), a formula fact (``Proved``: the statement),
a schedule replay (``Legal``: its cost), and for all of them ``Refuted``, ``Bounded``, ``Unknown``
and ``Infeasible``.  There is one JSON form (``to_json``: the status and every field) and one
line of text (``describe``); ``status`` is one of ``SEVERITY``'s keys and sets the exit code
through ``ioverify.errors.EXIT_CODES``.

Severity order used by ``merge`` (worst first):
    Refuted > Contradicted > Infeasible > Unknown > Bounded > Supported > Verified > Optimal
A refutation dominates because it is a replayed counterexample; a contradiction is evidence
against an asymptotic statement along a sweep (no single instance refutes a Theta);
``Infeasible`` means the instance could not be posed (a vertex needs more red pebbles than M)
and so nothing was checked; ``Supported`` is a sweep's evidence for a bound, not a proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Iterable

from ioverify.errors import exit_code_of

# The argument that backs a "none exists" answer.  Every Optimal/Verified carries one.
EVIDENCE_KINDS = (
    "exhaustive-search",  # complete configuration search, horizon-free
    "one-shot-exact-horizon",  # one-shot variant: the bounded encoding's horizon is exact
    "clausal-proof",  # one-shot variant: the exact-horizon CNF with a checked LRAT refutation
    "search-certificate",  # the exhaustive search's closed configurations, checked block by block
    "proved-horizon",  # a horizon bound that is itself proved
    "partition-lemma",  # Q >= M (P(2M) - 1), Hong-Kung, horizon-free
    "trivial-bound",  # every input loaded and every output stored
    "kernel-certification",  # a kernel trace replayed, outputs checked, I/O recounted
    "symbolic-proof",  # SymPy identity or Z3 arithmetic over a whole parameter region
    "replay",  # the independent replayer checked every move of a schedule
    "kernel-sweep",  # certified kernel runs confronted with a bound over a sweep
    "carried",  # a neighbouring cell's proof, carried by monotonicity in M or variant
)


@dataclass(frozen=True)
class Evidence:
    """The argument behind a verdict: ``kind`` is one of EVIDENCE_KINDS; ``detail`` is data."""

    kind: str
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"unknown evidence kind {self.kind!r}")
        if "kind" in self.detail:  # to_json would write it over the kind
            raise ValueError(f"evidence {self.kind!r}: its detail cannot have a 'kind' key "
                             f"(got {self.detail['kind']!r})")

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
class Attained:
    """A claimed upper end holds on the instance: ``schedule`` (replayed) costs ``io`` <=
    ``at_most``, so the optimum is at most ``at_most``.  Nothing is claimed below it."""

    io: int
    at_most: int
    schedule: Any
    evidence: Evidence  # kind "replay": the schedule is the whole argument
    variant: str = "recompute"
    status = "verified"


@dataclass(frozen=True)
class Certified:
    """A kernel claim holds: the trace was certified (legal within M, every output stored and
    right, I/O recounted), its ``io`` equals the kernel's closed form ``formula`` and lies within
    every bound the claim names.  When the claim is that certification fails, ``evidence``
    carries ``failed_as_claimed`` (the capacity failure) and ``io``/``peak`` are the run's."""

    io: int
    peak: int
    formula: int
    max_error: float
    evidence: Evidence
    variant: str = "kernel"
    status = "verified"


@dataclass(frozen=True)
class Proved:
    """A fact about the bound formulas holds over its whole region: ``statement`` is what was
    proved, ``evidence.method`` how (a SymPy identity, Z3's arithmetic, ...)."""

    statement: str
    evidence: Evidence
    variant: str = "formula"
    status = "verified"


@dataclass(frozen=True)
class Legal:
    """A schedule replayed legal and complete: every move obeys the rules of ``variant`` with
    ``memory`` red pebbles and every output ends blue, at ``io`` = ``loads`` + ``stores``."""

    io: int
    loads: int
    stores: int
    peak: int
    moves: int
    memory: int
    evidence: Evidence
    variant: str = "recompute"
    status = "verified"


@dataclass(frozen=True)
class Supported:
    """A bound confronted with certified runs of a kernel computing the same function, and
    none contradicts it: every run's I/O is at least an explicit bound, or the ratio
    bound / kernel of an asymptotic one does not grow along the sweep.  Evidence, never a
    proof of the bound: its status is not "verified".  ``sweep`` holds one row per run
    (params, memory, io, bound, ratio, trace digest); ``exponent`` the fitted growth of the
    ratio along the swept parameter, when there is one."""

    bound_id: str
    kernel: str
    sweep: list
    exponent: float | None
    evidence: Evidence
    variant: str = "kernel"
    status = "supported"


@dataclass(frozen=True)
class Contradicted:
    """An asymptotic lower bound contradicted along a family of certified kernel runs: the
    ratio bound / kernel grows at every step of the sweep along ``along``, like
    ``along``^``exponent``, so no constant makes the bound hold there.  Distinct from
    ``Refuted``, which needs one instance and an explicit constant."""

    bound_id: str
    kernel: str
    along: str
    sweep: list
    exponent: float
    evidence: Evidence
    variant: str = "kernel"
    status = "contradicted"


@dataclass(frozen=True)
class Refuted:
    """A claim fails.  For a lower bound: ``schedule`` (replayed) costs ``io`` < ``claim``.
    For other claims (a kernel, a formula) ``schedule`` is None and ``reason`` says what failed,
    on evidence that was itself checked.  A refutation by a proved bound (a claimed optimum below
    the Hong-Kung partition bound) carries that bound's ``evidence``."""

    schedule: Any
    io: int | None
    claim: int | None = None
    variant: str = "recompute"
    reason: str = ""
    evidence: Evidence | None = None
    status = "refuted"


@dataclass(frozen=True)
class Bounded:
    """No schedule of at most ``horizon`` moves beats the claim; nothing is proved beyond that."""

    horizon: int
    lower_bound: int | None = None
    upper_bound: int | None = None
    variant: str = "recompute"
    schedule: Any = None  # the best schedule found (replayed), at upper_bound
    status = "bounded"


@dataclass(frozen=True)
class Unknown:
    """The check did not finish or the solver said unknown: ``reason`` says why."""

    reason: str
    lower_bound: int | None = None
    upper_bound: int | None = None
    variant: str = "recompute"
    schedule: Any = None  # the best schedule found (replayed), at upper_bound, if any
    status = "unknown"


@dataclass(frozen=True)
class Infeasible:
    """The instance cannot be pebbled at all (``reason`` names the vertex and its in-degree)."""

    reason: str
    variant: str = "recompute"
    status = "infeasible"


Verdict = (Optimal | Verified | Attained | Certified | Proved | Legal | Supported | Contradicted
           | Refuted | Bounded | Unknown | Infeasible)

SEVERITY = {"optimal": 0, "verified": 1, "supported": 2, "bounded": 3, "unknown": 4,
            "infeasible": 5, "contradicted": 6, "refuted": 7}


def is_proof(verdict: Verdict) -> bool:
    """True only for verdicts that establish a claim (status optimal or verified)."""
    return isinstance(verdict, (Optimal, Verified, Attained, Certified, Proved,
                                Legal))  # not Supported


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


def to_json(verdict: Verdict, dag: Any = None) -> dict[str, Any]:
    """The one JSON form of a verdict: ``status`` and every field, evidence as an object, a
    schedule in the ioverify-schedule format (needs ``dag``; null without one)."""
    out: dict[str, Any] = {"status": verdict.status}
    for f in fields(verdict):
        value = getattr(verdict, f.name)
        if isinstance(value, Evidence):
            value = value.to_json()
        elif f.name == "schedule":
            value = value.to_dict(dag) if value is not None and dag is not None else None
        out[f.name] = value
    return out


def from_json(doc: dict[str, Any]) -> Verdict:
    """The verdict ``to_json`` wrote (a schedule stays in its JSON form): the inverse used to
    render pages from certificates.  A document of no known shape is a ValueError."""
    cls = _class_of(doc.get("status"), doc.get("variant"), set(doc))
    names = {f.name for f in fields(cls)}
    if set(doc) - {"status"} != names:
        raise ValueError(f"a {doc.get('status')!r} verdict has the fields {sorted(names)}, "
                         f"not {sorted(set(doc) - {'status'})}")
    values = {name: doc[name] for name in names}
    if isinstance(values.get("evidence"), dict):
        detail = dict(values["evidence"])
        values["evidence"] = Evidence(detail.pop("kind"), detail)
    return cls(**values)


def _class_of(status, variant, keys: set) -> type:
    """The class of a verdict document: its status, and for the five that verify, the
    variant (a kernel's, a formula's) or the field that only one of them has."""
    if status == "verified":
        return {"kernel": Certified, "formula": Proved}.get(
            variant, Attained if "at_most" in keys else Legal if "loads" in keys else Verified)
    classes = {"optimal": Optimal, "refuted": Refuted, "bounded": Bounded, "unknown": Unknown,
               "infeasible": Infeasible, "supported": Supported, "contradicted": Contradicted}
    if status not in classes:
        raise ValueError(f"no verdict has status {status!r}")
    return classes[status]


def bracket(verdict: Verdict) -> tuple[int | None, int | None]:
    """What the verdict says about the optimum of a pebbling instance: (lower, upper) ends,
    None where it says nothing."""
    if isinstance(verdict, Optimal):
        return verdict.io, verdict.io
    if isinstance(verdict, Verified):
        return verdict.bound, None
    if isinstance(verdict, Attained):
        return None, verdict.io
    if isinstance(verdict, Refuted):
        return None, verdict.io
    return getattr(verdict, "lower_bound", None), getattr(verdict, "upper_bound", None)


def describe(verdict: Verdict) -> str:
    """The one line of text: what the verdict established and on what evidence (a reason
    that spans lines is joined into one)."""
    return " ".join(_text(verdict).splitlines())


def _text(verdict: Verdict) -> str:
    kind = getattr(getattr(verdict, "evidence", None), "kind", None)
    if isinstance(verdict, Optimal):
        return f"optimum {verdict.io} ({kind})"
    if isinstance(verdict, Verified):
        return f"every schedule needs >= {verdict.bound} I/O ({kind})"
    if isinstance(verdict, Attained):
        return (f"a schedule with {verdict.io} I/O, within the claimed upper end "
                f"{verdict.at_most} ({kind})")
    if isinstance(verdict, Certified):
        failed = verdict.evidence.detail.get("failed_as_claimed")
        if failed:
            return f"certification failed as claimed: {failed}"
        return (f"certified, I/O {verdict.io} = the closed form, peak {verdict.peak}, "
                f"max error {verdict.max_error:.3g}")
    if isinstance(verdict, Proved):
        return f"proved: {verdict.statement} ({verdict.evidence.detail.get('method', kind)})"
    if isinstance(verdict, Legal):
        return (f"legal and complete: {verdict.loads} loads + {verdict.stores} stores = "
                f"{verdict.io} I/O, peak {verdict.peak} red of M = {verdict.memory} "
                f"({verdict.variant})")
    if isinstance(verdict, Supported):
        return _supported_text(verdict)
    if isinstance(verdict, Contradicted):
        return _contradicted_text(verdict)
    if isinstance(verdict, Refuted):
        return _refuted_text(verdict)
    if isinstance(verdict, Bounded):
        return (f"no better schedule within {verdict.horizon} moves (not a proof beyond that "
                f"horizon)" + _bracket_text(verdict))
    return verdict.reason + _bracket_text(verdict)


def _supported_text(verdict: Supported) -> str:
    ratios = [row["ratio"] for row in verdict.sweep]
    growth = "" if verdict.exponent is None else f", fitted growth exponent {verdict.exponent:.2f}"
    vacuous = ("; vacuous: the bound is <= 0 on every run"
               if all(row["bound"] <= 0 for row in verdict.sweep) else "")
    return (f"no certified run of {verdict.kernel} contradicts {verdict.bound_id} on "
            f"{len(ratios)} instance(s): bound / I/O between {min(ratios):.3g} and "
            f"{max(ratios):.3g}{growth} (evidence, not a proof){vacuous}")


def _contradicted_text(verdict: Contradicted) -> str:
    first, last = verdict.sweep[0], verdict.sweep[-1]
    fixed = {k: v for k, v in first["params"].items()
             if all(row["params"].get(k) == v for row in verdict.sweep)}
    fixed_text = ", ".join(f"{k} = {v}" for k, v in fixed.items())
    memory = {row["memory"] for row in verdict.sweep}
    fixed_text += (", " if fixed_text else "") + (f"M = {memory.pop()}" if len(memory) == 1
                                                   else "M varying")
    return (f"contradicted along {verdict.along} = {first['params'][verdict.along]}.."
            f"{last['params'][verdict.along]} ({fixed_text}): {verdict.bound_id} / certified I/O "
            f"of {verdict.kernel} grows from {first['ratio']:.3g} to {last['ratio']:.3g}, like "
            f"{verdict.along}^{verdict.exponent:.2f}")


def _refuted_text(verdict: Refuted) -> str:
    if verdict.reason:
        return verdict.reason
    if verdict.schedule is not None and verdict.claim is not None:
        return (f"a replayed schedule with {verdict.io} I/O beats the claimed lower bound "
                f"{verdict.claim}")
    return "refuted"


def _bracket_text(verdict: Verdict) -> str:
    lower, upper = bracket(verdict)
    ends = [f"{name} {value}" for name, value in (("lower", lower), ("upper", upper))
            if value is not None]
    return f" (bounds so far: {', '.join(ends)})" if ends else ""


def verdict_to_json(verdict: Verdict, dag: Any = None, *, seconds: float | None = None) -> dict:
    """``pebble --json``: ``to_json`` with the bracket on the optimum (``io`` when known,
    ``lower_bound``, ``upper_bound``), ``method`` (the evidence kind, or what was run) and
    ``seconds``."""
    lower, upper = bracket(verdict)
    exact = lower if lower is not None and lower == upper else None
    return {"schedule": None, **to_json(verdict, dag), "io": getattr(verdict, "io", exact),
            "lower_bound": lower, "upper_bound": upper, "method": _method(verdict),
            "seconds": None if seconds is None else round(seconds, 3)}


def _method(verdict: Verdict) -> str:
    evidence = getattr(verdict, "evidence", None)
    if evidence is not None and verdict.status != "refuted":
        return evidence.kind
    return {"refuted": "counterexample", "bounded": "bounded-search"}.get(verdict.status, "none")
