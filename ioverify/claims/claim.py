"""Claims: what a paper (or a user) asserts, on which instances, and which checks apply.

A claim file is a Python module that defines ``CLAIMS``, a list of ``Claim``.  Each claim lists
``Obligation``s: one check on one instance, as plain JSON-able data, so that obligations can be
shipped to other processes, written into certificates and re-run.  Running them is
``ioverify.claims.run``; this module only describes and loads.

Obligation kinds (``Obligation.kind``):

    exact-search  pebble a DAG family instance: find the optimum, or confirm/refute a claimed
                  lower bound (a number, or a bound id evaluated on the instance), or a
                  claimed upper end (``at_most``: a schedule of at most that I/O exists)
    partition     Hong-Kung's partition lower bound M (P(2M) - 1) on an instance
    kernel        certify a traced kernel: legal, correct, I/O equal to its closed form, and
                  between the lower bounds and the claimed upper bounds
    symbolic      a proved fact about the bound formulas (ioverify.bounds.facts)
    io-curve      the whole I/O curve of an instance (ioverify.search.curve): every M of a range
                  in the variants given, answers carried between cells; optionally the
                  expected optimum of each cell
    confront      a bound against certified runs of a kernel computing the same function over
                  a sweep: refuted (an explicit bound above a run), contradicted (an asymptotic
                  bound whose ratio to the kernel grows along the sweep) or supported

A claim's statement is split into ``Part``s, each with the obligations that check it; a part
with none is only stated, and its page row says so: "verified" is the status of a part, never
of prose around unchecked parts.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ioverify.claims.validate import validate
from ioverify.errors import InvalidArgument

KINDS = ("exact-search", "partition", "kernel", "symbolic", "confront", "io-curve")
FIRMNESS = ("paper", "summary", "recalled", "derived", "user")
# What a kernel run's params may not give, as the certificate schema refuses them there (a test
# keeps the two equal), each with where it belongs instead.
RESERVED_PARAMS = {
    "memory": "M is the obligation's memory argument",
    "seed": "the seed is the check's (ioverify check --seed)",
    "literal_blocks": "give literal_blocks=True to kernel() instead",
    "blocks": "a run's blocks are its kernel's planner's, re-derived when its certificate is "
              "checked (for the paper's block sizes give literal_blocks=True to kernel())",
}


@dataclass(frozen=True)
class Obligation:
    """One check on one instance.  ``spec`` is JSON-able data interpreted by the runner."""

    claim: str
    kind: str
    spec: dict[str, Any]
    heavy: bool = False  # solver-heavy: marked in pytest, scheduled first in ``check``
    # WIDE: an exact search that ``check`` runs alone, before the others, on every core it has
    # (``Budget.processes``); TIME_FACTOR: it gets that many times the budget's seconds
    # (``ioverify.claims.run.budget_for``).  How it runs, not what it checks: not part of the
    # JSON (the certificate records the budget it ran with).
    wide: bool = field(default=False, compare=False)
    time_factor: int = field(default=1, compare=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InvalidArgument(f"obligation of claim {self.claim!r} has unknown kind "
                                  f"{self.kind!r} (expected one of {', '.join(KINDS)})")
        json.dumps(self.spec)  # must be JSON-able: fail here, not in a worker
        self._no_reserved_params()
        if isinstance(self.time_factor, bool) or not isinstance(self.time_factor, int) \
                or self.time_factor < 1:
            raise InvalidArgument(f"obligation of claim {self.claim!r}: time_factor must be an "
                                  f"integer >= 1, got {self.time_factor!r}")

    def _no_reserved_params(self) -> None:
        """A kernel run's params give none of RESERVED_PARAMS: refused here, when the claim is
        built, not when its certificate is written or checked."""
        if self.kind == "kernel":
            runs = [("params", self.spec.get("params"))]
        elif self.kind == "confront" and isinstance(self.spec.get("sweep"), list):
            runs = [(f"sweep[{i}].params", run.get("params") if isinstance(run, dict) else None)
                    for i, run in enumerate(self.spec["sweep"])]
        else:
            return
        for where, params in runs:
            for name in RESERVED_PARAMS:
                if isinstance(params, dict) and name in params:
                    raise InvalidArgument(f"claim {self.claim!r}: {self.kind} obligation's "
                                          f"{where} give {name!r}, which a certificate may not "
                                          f"carry: {RESERVED_PARAMS[name]}")

    @property
    def id(self) -> str:
        """A readable id such as ``matmul(m=2,k=2,n=2)/M=3/one-shot/exact-search``."""
        s = self.spec
        if self.kind == "symbolic":
            return f"symbolic/{s['fact']}"
        if self.kind == "confront":
            return f"{s['bound']}/vs/{s['kernel']}/{s['name']}/confront"
        target = s.get("family") or s.get("kernel")
        params = ",".join(f"{k}={_short(v)}" for k, v in s.get("params", {}).items())
        if self.kind == "io-curve":
            lo, hi = s["memory_range"]
            return f"{target}({params})/M={lo}..{hi}/{'+'.join(s['variants'])}/io-curve"
        parts = [f"{target}({params})", f"M={s['memory']}"]
        if self.kind == "exact-search":
            parts.append(s.get("variant", "recompute"))
        if s.get("literal_blocks"):
            parts.append("literal-blocks")
        if isinstance(s.get("lower_bound"), str):  # one id per bound checked on an instance
            parts.append(f">={s['lower_bound']}")
        if self.kind == "exact-search" and "at_most" in s:  # an upper end (partition: a check)
            parts.append(f"<={s['at_most']}")
        return "/".join(parts + [self.kind])

    def to_json(self) -> dict:
        return {"claim": self.claim, "kind": self.kind, "spec": self.spec, "heavy": self.heavy}

    @classmethod
    def from_json(cls, doc: dict) -> "Obligation":
        return cls(doc["claim"], doc["kind"], doc["spec"], doc.get("heavy", False))


def _short(value) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_short(v) for v in value) + "]"
    return str(value)


@dataclass(frozen=True)
class Claim:
    """A claim: what is stated, where it comes from, and the obligations that check it."""

    id: str
    title: str
    statement: str
    source: str
    firmness: str
    variant: str
    obligations: tuple[Obligation, ...]
    bounds: tuple[str, ...] = ()
    kernels: tuple[str, ...] = ()
    notes: str = ""
    origin: str = field(default="", compare=False)  # the file it was loaded from
    parts: tuple["Part", ...] = ()  # the statement's parts; none: the statement is one part

    def __post_init__(self):
        if self.firmness not in FIRMNESS:
            raise InvalidArgument(f"claim {self.id!r}: firmness must be one of "
                                  f"{', '.join(FIRMNESS)}, got {self.firmness!r}")
        if self.parts:
            derived = tuple(ob for part in self.parts for ob in part.obligations)
            if self.obligations and tuple(self.obligations) != derived:
                raise InvalidArgument(f"claim {self.id!r}: give obligations through its parts "
                                      f"or directly, not both")
            object.__setattr__(self, "obligations", derived)
        if not self.obligations:
            raise InvalidArgument(f"claim {self.id!r} has no obligations: nothing would be "
                                  f"checked")
        for ob in self.obligations:
            if ob.claim != self.id:
                raise InvalidArgument(f"obligation {ob.id!r} belongs to claim {ob.claim!r}, "
                                      f"listed under {self.id!r}")

    @property
    def checks(self) -> tuple[str, ...]:
        return tuple(k for k in KINDS if any(ob.kind == k for ob in self.obligations))

    def statement_parts(self) -> tuple["Part", ...]:
        """The parts, or the whole statement as one part checked by every obligation."""
        return self.parts or (Part("statement", self.statement, self.obligations),)


@dataclass(frozen=True)
class Part:
    """One statement inside a claim, the obligations that check it, and how it is read on
    ioverify's model (``reading``).  A part with no obligations is only stated."""

    id: str
    statement: str
    obligations: tuple[Obligation, ...] = ()
    reading: str = ""


# --- builders used by claim files ---------------------------------------------------------------

def exact_search(claim: str, family: str, params: dict, memory: int, *, variant="recompute",
                 lower_bound: int | str | None = None, optimum: int | None = None,
                 at_most: int | None = None, heavy: bool = False,
                 wide: bool = False, time_factor: int = 1) -> Obligation:
    """Pebble ``family(**params)`` with ``memory`` red pebbles.  ``lower_bound`` is a number or a
    bound id (evaluated on the instance, rounded up); ``optimum`` an expected exact optimum;
    ``at_most`` a claimed upper end, checked alone: a schedule of at most that I/O exists.
    ``wide``: ``check`` runs it alone on every core (``Obligation.wide``; heavy too);
    ``time_factor``: it gets that many times the budget's seconds."""
    spec = {"family": family, "params": params, "memory": memory, "variant": variant}
    if lower_bound is not None:
        spec["lower_bound"] = lower_bound
    if optimum is not None:
        spec["optimum"] = optimum
    if at_most is not None:
        spec["at_most"] = at_most
    return Obligation(claim, "exact-search", spec, heavy or wide, wide, time_factor)


def io_curve(claim: str, family: str, params: dict, memories: range | list[int], *,
             variants=("one-shot", "recompute"), optima: dict | None = None,
             heavy: bool = True) -> Obligation:
    """The curve of ``family(**params)`` at every M of ``memories`` (consecutive) in
    ``variants``; ``optima``: the expected optimum of some cells, ``{variant: {M: q}}``."""
    memories = list(memories)
    spec = {"family": family, "params": params, "memory_range": [memories[0], memories[-1]],
            "variants": list(variants)}
    if optima:
        spec["optima"] = {v: {str(m): q for m, q in cells.items()} for v, cells in optima.items()}
    return Obligation(claim, "io-curve", spec, heavy)


def partition(claim: str, family: str, params: dict, memory: int, *,
              at_most: int | None = None, heavy: bool = False) -> Obligation:
    """Hong-Kung's bound M (P(2M) - 1) on the instance; ``at_most`` is a known optimum the bound
    must not exceed (a consistency check between two independent arguments)."""
    spec = {"family": family, "params": params, "memory": memory}
    if at_most is not None:
        spec["at_most"] = at_most
    return Obligation(claim, "partition", spec, heavy)


def kernel(claim: str, name: str, params: dict, memory: int, *, lower_bounds=(),
           upper_bounds=(), literal_blocks: bool = False, expect_certified: bool = True,
           heavy: bool = False) -> Obligation:
    """Certify kernel ``name`` on ``params`` with ``memory`` words: legal, correct, I/O equal to
    its closed form, at least each lower bound id and at most each upper bound id.  With
    ``expect_certified=False`` the claim is that certification FAILS on fast-memory capacity."""
    spec = {"kernel": name, "params": params, "memory": memory,
            "lower_bounds": list(lower_bounds), "upper_bounds": list(upper_bounds),
            "expect_certified": expect_certified}
    if literal_blocks:
        spec["literal_blocks"] = True
    return Obligation(claim, "kernel", spec, heavy)


def symbolic(claim: str, fact: str) -> Obligation:
    return Obligation(claim, "symbolic", {"fact": fact})


def confront(claim: str, bound: str, kernel_name: str, name: str, sweep, *,
             along: str | None = None, reading: dict | None = None,
             regime: bool = True) -> Obligation:
    """Confront bound ``bound`` with certified runs of ``kernel_name`` on ``sweep`` (a list of
    ``(params, memory)``), named ``name``.  ``along``: the parameter the sweep grows, a size or "M" (needed to
    contradict an asymptotic bound); ``reading``: how the bound's parameters are read off a run
    (expressions over the kernel's sizes, blocks and M, e.g. ``{"Z_in": "n*d"}``);
    ``regime=False`` attaches the formula to every instance, outside its stated regime too."""
    spec = {"bound": bound, "kernel": kernel_name, "name": name,
            "sweep": [{"params": params, "memory": memory} for params, memory in sweep],
            "along": along, "reading": dict(reading or {}), "regime": regime}
    return Obligation(claim, "confront", spec)


# --- loading claim files ------------------------------------------------------------------------

def load_file(path: str | Path) -> list[Claim]:
    """Import a claim file and return its ``CLAIMS``; errors name the file."""
    path = Path(path)
    if not path.is_file():
        raise InvalidArgument(f"claim file {str(path)!r} does not exist")
    name = f"ioverify_claims_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InvalidArgument(f"{str(path)!r} is not a Python claim file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except InvalidArgument as error:
        raise InvalidArgument(f"{path}: {error}") from None
    except Exception as error:  # a user's file: report its error on one line
        raise InvalidArgument(f"{path}: cannot load claims: {type(error).__name__}: "
                              f"{error}") from None
    except SystemExit as error:  # exit 0 would read as "all verified"
        raise InvalidArgument(f"{path}: cannot load claims: the file exits while it is "
                              f"loaded (SystemExit({error.code!r}))") from None
    claims = getattr(module, "CLAIMS", None)
    if not isinstance(claims, (list, tuple)) or not all(isinstance(c, Claim) for c in claims):
        raise InvalidArgument(f"{path}: a claim file must define CLAIMS, a list of Claim")
    claims = [_with_origin(c, path) for c in claims]
    validate(claims)  # every id, before any obligation runs
    return claims


def _with_origin(claim: Claim, path: Path) -> Claim:
    from dataclasses import replace

    return replace(claim, origin=str(path))


def claim_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand folders into their claim files (``*.py`` not starting with ``_`` or ``test_``)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(f for f in p.glob("*.py")
                                if not f.name.startswith(("_", "test_", "conftest"))))
        elif p.exists():
            files.append(p)
        else:
            raise InvalidArgument(f"no such claim file or folder: {str(p)!r}")
    return files


def load(paths: Iterable[str | Path]) -> list[Claim]:
    claims: list[Claim] = []
    seen: dict[str, str] = {}
    for f in claim_files(paths):
        for c in load_file(f):
            if c.id in seen:
                raise InvalidArgument(f"claim id {c.id!r} defined twice: in {seen[c.id]} and {f}")
            seen[c.id] = str(f)
            claims.append(c)
    return claims
