"""Re-checking a certificate: every field re-derived from the instance, never read back.

``check(doc)`` validates the structure (``ioverify.certificate.format.validate``) and the digest, then
rebuilds the contract from the obligation's spec and re-derives the verdict, one function per
obligation kind, and compares what it derived with every field the certificate states, the
status included:

* **feasibility first** (``ioverify.game.rules.infeasibility``): an infeasible instance may only
  carry the status ``infeasible``, naming the vertex; a feasible one never;
* **exact-search**: the DAG rebuilt from family and params equals the embedded one; the claimed
  lower bound is re-resolved from the spec (a number, or a bound id evaluated on the instance);
  witness schedules are replayed at M in the variant; the "nothing cheaper" side is re-run
  (the exhaustive search below the certified figure, the trivial bound recomputed, the horizon
  of a solver proof recomputed and its unsat answer re-derived by an exhaustive search under a
  state cap when it fits, and otherwise *not re-checked*; a clausal proof's CNF re-encoded
  by ``ioverify.certificate.reencode`` and compared, its LRAT proof checked by
  ``ioverify.certificate.lrat``, both files read beside the certificate by SHA-256; a search
  certificate's closed configurations read beside it by SHA-256 and checked block by block by
  ``ioverify.certificate.closed``); evidence proved in one-shot for a recompute bound
  (``searched``) is checked in one-shot once the single-use lemma is re-derived from the DAG;
  an exhaustive search, a search certificate or a clausal proof on the contracted DAG
  (``contracted``) is checked on the DAG contracted again here
  (``ioverify.game.lemmas.contract_chains``);
* **partition**: the witness re-checked as a 2M-partition of the core DAG, the bound recomputed
  as M (P - 1), the counting bound on P recomputed; a lower end on P that only a solver's
  unsat gives is *not re-checked*, and rejected where the whole core is one part;
* **kernel**: the kernel re-run with the certificate's seed, re-certified, its counts, bound
  values, status and reason re-derived (a genuine refutation re-checks: accepted, refuted);
* **symbolic**: the fact re-proved; a fact whose proof needs Z3 is *not re-checked* when Z3
  cannot be imported (``NotRechecked``), never accepted.

``relies_on`` is computed from the evidence (``ioverify.certificate.format.relies_on``) and must equal
the stated list.  Fields that record how a verdict was reached but decide nothing are not
compared: ``seconds``, ``tools``, the claim's prose (said under "not re-derived" on every
accepted outcome: this module cannot re-derive it), ``heavy``, and the budgets, state counts,
solver back end, automorphism count and lemma name (``EVIDENCE_FIELDS``, "recorded only");
every other field is, and a field this module does not know is rejected.  Any disagreement raises ``CertificateRejected`` naming the field and both values.

``check_file(path)`` turns every way a file can end into an ``Outcome``: accepted (exit 0),
rejected (1), malformed (2), not re-checked (3), internal error (4).

This module imports no solver, no search, no claim runner and no CLI (tests/test_imports.py);
the fact prover is imported only to re-prove a symbolic certificate.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from ioverify.certificate.closed import check_closed
from ioverify.certificate.format import (CONTRACTION_RELIES_ON, NotRechecked, RELIES_ON,
                                         SINGLE_USE_RELIES_ON, digest, read, validate)
from ioverify.certificate.lrat import check_lrat, read_dimacs
from ioverify.certificate.reencode import one_shot_cnf
from ioverify.certificate.format import relies_on as relies_on_of
from ioverify.game.lemmas import (CONTRACTIONS, carry_fact, compute_demands,
                                  contract_chains, counting_lower_bound, single_use_lemma,
                                  trivial_lower_bound)
from ioverify.errors import (EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_REFUTED, EXIT_UNKNOWN,
                             CertificateRejected, IOVerifyError, InvalidFormat, exit_code_of)
from ioverify.verdict import EVIDENCE_KINDS, SEVERITY, to_json
from ioverify.dag.jsonio import dag_from_dict
from ioverify.dag.registry import FAMILIES, build
from ioverify.game import abstraction
from ioverify.game.exhaustive import exhaustive_optimum
from ioverify.game.partition import check_partition as is_partition, core_dag
from ioverify.game.replay import replay
from ioverify.game.rules import infeasibility, require_variant, schedule_from_dict
from ioverify.trace.confront import certified_run, judge_sweep, row

# States the exhaustive re-search may store when it re-derives what a solver answered (or what a
# certificate states without evidence); past it the certificate is not re-checked.  About
# 4 s on attention-forward(n=2, d=2), 46 vertices.
RECHECK_MAX_STATES = 20_000

# The fields each status has (ioverify.verdict's dataclasses; the schedule is the witness).  A
# verified kernel or formula has its own fields (``Certified``, ``Proved``): VERIFIED_FIELDS.
VERDICT_FIELDS = {
    "optimal": {"status", "io", "evidence", "variant"},
    "verified": {"status", "bound", "evidence", "variant"},
    "refuted": {"status", "io", "claim", "variant", "reason", "evidence"},
    "bounded": {"status", "horizon", "lower_bound", "upper_bound", "variant"},
    "unknown": {"status", "reason", "lower_bound", "upper_bound", "variant"},
    "infeasible": {"status", "reason", "variant"},
    "supported": {"status", "bound_id", "kernel", "sweep", "exponent", "evidence", "variant"},
    "contradicted": {"status", "bound_id", "kernel", "along", "sweep", "exponent", "evidence",
                     "variant"},
}
VERIFIED_FIELDS = {
    "kernel": {"status", "io", "peak", "formula", "max_error", "evidence", "variant"},
    "formula": {"status", "statement", "evidence", "variant"},
}
# A verified claimed upper end (an exact-search spec with ``at_most``, ``Attained``).
ATTAINED_FIELDS = {"status", "io", "at_most", "evidence", "variant"}

# Evidence fields by kind: (compared, recorded only).
EVIDENCE_FIELDS = {
    "exhaustive-search": ({"below"}, {"states", "budget", "heuristic", "searched", "lemma",
                                      "contracted"}),
    "trivial-bound": ({"bound"}, {"budget"}),
    "one-shot-exact-horizon": ({"steps", "unsat_budget"},
                               {"method", "automorphisms", "backend", "budget"}),
    "clausal-proof": ({"steps", "unsat_budget", "cnf", "cnf_sha256", "proof", "proof_sha256",
                       "variables", "clauses", "lemmas"}, {"backend", "budget", "searched",
                                                           "lemma", "contracted"}),
    "search-certificate": ({"below", "closed", "closed_sha256", "states"},
                           {"automorphisms", "budget", "searched", "lemma", "contracted"}),
    "proved-horizon": ({"steps", "unsat_budget", "horizon_computes"},
                       {"method", "automorphisms", "backend", "budget", "lemma"}),
    "partition-lemma": ({"S", "memory", "parts", "parts_lower", "parts_upper", "lower_by",
                         "partition", "left_out"}, {"budget"}),
    "carried": ({"memory", "variant", "bound", "fact", "certificate", "digest"}, set()),
}

# The re-check does not import the claims layer, so it cannot re-derive the claim block: said
# on every accepted certificate.
CLAIM_PROSE = ("the claim's prose (title, statement, source, firmness and its other fields but "
               "the id) is recorded as written, not checked: the obligation is what was "
               "re-checked")

COUNTING = "counting inputs and sinks"  # the partition search's name for the counting bound
DAG_FILE = "dag-file"  # the family of a certificate ``pebble --proof`` writes: a DAG from a file


@dataclass(frozen=True)
class Recheck:
    """What a re-check established: the facts re-derived, what acceptance still relies on, and
    what the certificate states that was not re-derived because it decides nothing."""

    status: str
    rechecked: tuple[str, ...]
    relies_on: tuple[str, ...]
    not_rederived: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """How the re-check of one file ended: ``outcome`` is accepted, rejected, malformed,
    not re-checked or internal error (``ioverify.errors.EXIT_CODES``)."""

    path: str
    outcome: str
    status: str | None = None  # the status the certificate states, when it could be read
    rechecked: tuple[str, ...] = ()
    relies_on: tuple[str, ...] = ()
    not_rederived: tuple[str, ...] = ()
    reason: str = ""

    @property
    def exit_code(self) -> int:
        return exit_code_of(self.outcome)

    def to_json(self) -> dict:
        return {"path": self.path, "outcome": self.outcome, "status": self.status,
                "rechecked": list(self.rechecked), "relies_on": list(self.relies_on),
                "not_rederived": list(self.not_rederived), "reason": self.reason}


@dataclass
class _Log:
    folder: Path | None = None  # the certificate file's folder: proof files, carried sources
    rechecked: list[str] = field(default_factory=list)
    relies_on: list[str] = field(default_factory=list)
    not_rederived: list[str] = field(default_factory=list)
    seen: tuple[str, ...] = ()  # the certificates being re-checked (a cycle is rejected)
    deadline: float | None = None  # for the searches and proof files' checks: then not re-checked


# --- entry points -------------------------------------------------------------------------------

def check(doc: dict, folder: str | Path | None = None, seen: tuple[str, ...] = (),
          deadline: float | None = None) -> Recheck:
    """Re-check a certificate document; raises CertificateRejected naming the first field whose
    stated value differs from the re-derived one, NotRechecked when it cannot be re-derived
    here, InvalidFormat when it is malformed.  ``folder``: the folder of the certificate file,
    where the files a clausal proof names and the certificates a carried bound names are
    (without it neither is re-checked); ``seen``: the certificates being re-checked above this
    one (a cycle is rejected); ``deadline``: a ``time.monotonic()`` value past which the
    exhaustive re-searches and the checks of a clausal proof or a search certificate stop
    (``NotRechecked``, ``DeadlineReached``: not re-checked, never accepted nor rejected)."""
    validate(doc)
    if digest({k: v for k, v in doc.items() if k != "digest"}) != doc["digest"]:
        raise CertificateRejected("certificate digest does not match its content: it was "
                                  "edited after it was written")
    ob = doc["obligation"]
    log = _Log(folder=None if folder is None else Path(folder), seen=seen, deadline=deadline)
    _same("obligation claim (the claim's id)", doc["claim"]["id"], ob["claim"])
    _same("obligation id (from its kind and spec)", obligation_id(ob["kind"], ob["spec"]),
          ob["id"])
    CHECKERS[ob["kind"]](doc, log)
    _same("relies_on (from the verdict's evidence)", relies_on_of(doc["verdict"]),
          doc["relies_on"])
    if len(seen) <= 1:  # once, for the certificate checked (not again for each it names)
        log.not_rederived.append(CLAIM_PROSE)
    return Recheck(doc["verdict"]["status"], tuple(log.rechecked), tuple(log.relies_on),
                   tuple(log.not_rederived))


_OUTCOME_OF_CODE = {EXIT_REFUTED: "rejected", EXIT_BAD_INPUT: "malformed",
                    EXIT_UNKNOWN: "not re-checked", EXIT_INTERNAL: "internal error"}


def check_file(path: str | Path, *, debug: bool = False,
               deadline: float | None = None) -> Outcome:
    """Read and re-check one certificate file; every ending is an ``Outcome`` (an unexpected
    exception is an internal error of this file, re-raised with ``debug``; ``deadline``
    passed, before or during the re-check: not re-checked)."""
    path, status = str(path), None
    if _late(deadline):
        return Outcome(path, "not re-checked", status,
                       reason="the time limit passed before its re-check started")
    try:
        doc = read(path, "certificate")
        status = doc["verdict"]["status"]
        result = check(doc, Path(path).parent, (Path(path).name,), deadline)
    except IOVerifyError as error:
        return Outcome(path, _OUTCOME_OF_CODE.get(error.exit_code, "malformed"), status,
                       reason=_one_line(str(error)))
    except RecursionError:
        return Outcome(path, "malformed", status, reason="certificate is nested too deeply")
    except MemoryError:  # a re-search past the memory budget decides nothing
        return Outcome(path, "not re-checked", status,
                       reason="the re-check ran out of memory (the memory budget, "
                              "--max-memory, or the machine's)")
    except Exception as error:  # noqa: BLE001 - one file's bug must not stop the others
        if debug:
            raise
        return Outcome(path, "internal error", status,
                       reason=_one_line(f"{type(error).__name__}: {error}") +
                       " (a bug in ioverify; rerun with --debug for the traceback)")
    return Outcome(path, "accepted", result.status, *(tuple(map(_one_line, lines)) for lines in
                   (result.rechecked, result.relies_on, result.not_rederived)))


def _one_line(text: str) -> str:
    """``text`` as one printable line: each run of whitespace (a newline too) one space, and
    every other character that is not printable (a terminal escape, a lone surrogate) written
    as its escape.  The lines of an outcome quote text a certificate carries (a search's
    account of an unknown verdict, a file name), which must not print lines of its own (a
    second "accepted (optimal)") nor stop the output (a surrogate cannot be encoded)."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in " ".join(text.split()))


# --- comparing ----------------------------------------------------------------------------------

def _reject(message: str):
    raise CertificateRejected(message)


def _require(condition: bool, message: str) -> None:
    if not condition:
        _reject(message)


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _same(what: str, derived, stated) -> None:
    """``stated`` must equal ``derived`` (floats to a relative 1e-6, for numerical errors
    re-measured on another machine); the message names the field and both values."""
    if not _equal(derived, stated):
        _reject(f"{what}: the re-check derives {_show(derived)}, the certificate says "
                f"{_show(stated)}")


def _equal(a, b) -> bool:
    """Whether the stated ``b`` is the derived ``a``: floats to a relative 1e-6, an integer
    derived only by an integer stated (10.0 is no count of states), a non-finite float derived
    by null (JSON has no NaN or infinity; the writer states null, ``ioverify._io.finite``)."""
    if type(a) is int and type(b) is not int:
        return False
    if b is None and isinstance(a, float) and not math.isfinite(a):
        return True
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) \
                or not isinstance(b, (int, float)):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _fields(what: str, stated: dict, compared: dict, recorded=()) -> None:
    """Every field of ``stated`` is compared with ``compared`` or is recorded provenance; a
    field missing on either side, or one this re-check does not know, is rejected."""
    for key in sorted(set(stated) | set(compared)):
        if key in recorded:
            continue
        if key not in compared:
            _reject(f"{what} field {key!r} is not one this re-check can re-derive")
        if key not in stated:
            _reject(f"{what} field {key!r} is missing (the re-check derives "
                    f"{_show(compared[key])})")
        _same(f"{what} {key}", compared[key], stated[key])


def _verdict_fields(verdict: dict, upper_end: bool = False) -> None:
    """The verdict has exactly the fields of its status (and, verified, of its variant, or of
    an attained upper end when the spec claims one)."""
    allowed = VERDICT_FIELDS[verdict["status"]]
    if verdict["status"] == "verified":
        allowed = VERIFIED_FIELDS.get(verdict["variant"],
                                      ATTAINED_FIELDS if upper_end else allowed)
    for key in sorted(set(verdict) - allowed):
        _reject(f"verdict field {key!r} does not belong to status {verdict['status']!r}")


def _witness(doc: dict, allowed: set[str]) -> dict:
    """The witness holds nothing but what the status may carry."""
    for key in sorted(set(doc["witness"]) - allowed):
        _reject(f"witness {key!r} does not belong to a certificate of status "
                f"{doc['verdict']['status']!r} ({doc['obligation']['kind']})")
    return doc["witness"]


def _known_fields(what: str, stated: dict, compared: set[str], recorded=()) -> None:
    """``stated`` has every field of ``compared`` and nothing but those and ``recorded``."""
    for key in sorted(set(stated) - set(compared) - set(recorded)):
        _reject(f"{what} field {key!r} is not one this re-check can re-derive")
    for key in sorted(set(compared) - set(stated)):
        _reject(f"{what} field {key!r} is missing")


def _no_instance(doc: dict) -> None:
    _require("instance" not in doc, f"a {doc['obligation']['kind']} certificate embeds no "
                                    f"instance DAG (it would not be re-derived)")


def obligation_id(kind: str, spec: dict) -> str:
    """The readable id of an obligation (``ioverify.claims.claim.Obligation.id``, computed here again
    so the re-check does not import the claims layer)."""
    if kind == "symbolic":
        return f"symbolic/{spec['fact']}"
    if kind == "confront":
        return f"{spec['bound']}/vs/{spec['kernel']}/{spec['name']}/confront"
    target = spec.get("family") or spec.get("kernel")
    params = ",".join(f"{k}={_short(v)}" for k, v in spec.get("params", {}).items())
    if kind == "io-curve":
        lo, hi = spec["memory_range"]
        return f"{target}({params})/M={lo}..{hi}/{'+'.join(spec['variants'])}/io-curve"
    parts = [f"{target}({params})", f"M={spec['memory']}"]
    if kind == "exact-search":
        parts.append(spec.get("variant", "recompute"))
    if spec.get("literal_blocks"):
        parts.append("literal-blocks")
    if isinstance(spec.get("lower_bound"), str):
        parts.append(f">={spec['lower_bound']}")
    if kind == "exact-search" and "at_most" in spec:
        parts.append(f"<={spec['at_most']}")
    return "/".join(parts + [kind])


def _short(value) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_short(v) for v in value) + "]"
    return str(value)


# --- the instance -------------------------------------------------------------------------------

def _instance(doc: dict, log: _Log):
    """The DAG rebuilt from the spec's family and params, which must equal the embedded one."""
    spec = doc["obligation"]["spec"]
    embedded = dag_from_dict(doc["instance"]["dag"], "certificate instance DAG")
    if spec["family"] == DAG_FILE:
        log.not_rederived.append(f"the instance is the embedded DAG ({len(embedded)} vertices), "
                                 f"read from {spec['params'].get('file')!r} by "
                                 f"'ioverify pebble': no family rebuilds it")
        return embedded
    if spec["family"] not in FAMILIES:
        log.not_rederived.append(f"the instance is the embedded DAG ({len(embedded)} vertices): "
                                 f"family {spec['family']!r} is not installed here, so it was "
                                 f"not rebuilt from the spec; every verdict is re-checked on "
                                 f"the embedded DAG")
        return embedded
    dag = _build(spec)
    if embedded != dag:
        _reject(f"instance: the embedded DAG ({len(embedded)} vertices, {embedded.num_edges} "
                f"edges) differs from {_family_call(spec)} rebuilt from the spec "
                f"({len(dag)} vertices, {dag.num_edges} edges)")
    log.rechecked.append(f"instance rebuilt from the spec: {_family_call(spec)} equals the "
                         f"embedded DAG ({len(dag)} vertices)")
    return dag


def _build(spec: dict):
    family = FAMILIES.get(spec["family"])
    if family is not None:
        known = {p.name for p in family.params}
        extra = sorted(set(spec["params"]) - known)
        if extra:
            raise InvalidFormat(f"obligation spec: family {spec['family']!r} has no parameter "
                                f"{extra[0]!r} (it takes {', '.join(sorted(known))})")
    try:
        return build(spec)
    except (TypeError, ValueError) as error:
        if isinstance(error, IOVerifyError):
            raise
        raise InvalidFormat(f"obligation spec: {_family_call(spec)} cannot be built: "
                            f"{error}") from None


def _family_call(spec: dict) -> str:
    params = ", ".join(f"{k}={v!r}" for k, v in spec["params"].items())
    return f"{spec['family']}({params})"


def _feasibility(doc: dict, dag, memory: int, log: _Log) -> bool:
    """True if the instance is infeasible (and the certificate says exactly that)."""
    why, verdict = infeasibility(dag, memory), doc["verdict"]
    if why is None:
        _require(verdict["status"] != "infeasible", f"status: the instance is feasible with "
                 f"M = {memory} (every vertex has in-degree < M), but the certificate says "
                 f"'infeasible'")
        return False
    _require(verdict["status"] == "infeasible", f"status: the instance is infeasible ({why}), "
                                                f"but the certificate says "
                                                f"{verdict['status']!r}")
    _verdict_fields(verdict)
    _same("verdict reason (the vertex that needs more red pebbles)", why, verdict["reason"])
    _witness(doc, set())
    log.rechecked.append(f"infeasibility re-derived: {why}")
    return True


def _bound_value(bound_id: str, params: dict, memory: int, blocks: dict | None = None):
    """A bound evaluated on an instance (and a kernel run's blocks), exactly (SymPy: loaded
    when a bound is named)."""
    from ioverify.bounds.instance import bound_value

    return bound_value(bound_id, params, memory, blocks)


def _claimed_lower_bound(spec: dict) -> tuple[int | None, dict]:
    """The spec's claimed lower bound, re-resolved from the spec, never read from the verdict."""
    from ioverify.bounds.instance import resolve_lower_bound

    return resolve_lower_bound(spec)


# --- exact-search ---------------------------------------------------------------------------------

def check_exact_search(doc: dict, log: _Log) -> None:
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    dag = _instance(doc, log)
    memory, variant = spec["memory"], spec.get("variant", "recompute")
    claim, derived = _claimed_lower_bound(spec)
    derived.update(vertices=len(dag), claimed_lower_bound=claim)
    if "optimum" in spec:
        derived["expected_optimum"] = spec["optimum"]
    if "at_most" in spec:
        derived["claimed_upper_end"] = spec["at_most"]
    _fields("detail", doc["detail"], derived, recorded={"budget", "curve"})
    _same("verdict variant (the spec's)", variant, verdict["variant"])
    if claim is not None:
        log.rechecked.append(f"claimed lower bound re-resolved from the spec: {claim}"
                             + (f" ({spec['lower_bound']} = {derived['lower_bound_exact']})"
                                if "lower_bound_exact" in derived else ""))
    if _feasibility(doc, dag, memory, log):
        return _curve_lines(doc, dag, log)
    _verdict_fields(verdict, upper_end="at_most" in spec)
    if "at_most" in spec:
        # The runner checks an upper end alone (claims.validate): a lower bound or an optimum
        # beside it would be stated by the certificate and checked by nothing.
        _require(claim is None and "optimum" not in spec,
                 "a spec with at_most claims nothing else (no lower_bound, no optimum)")
        UPPER_END_STATUSES[verdict["status"]](doc, dag, claim, log)
        return _curve_lines(doc, dag, log)
    EXACT_STATUSES[verdict["status"]](doc, dag, claim, log)
    _curve_lines(doc, dag, log)


def _replay(doc: dict, dag, memory: int, variant: str, log: _Log) -> int:
    schedule = schedule_from_dict(doc["witness"]["schedule"], dag, "certificate witness schedule")
    result = replay(dag, schedule, memory, variant)
    _require(result.ok, f"witness schedule does not replay at M = {memory} ({variant}): "
                        f"{result.describe()}")
    log.rechecked.append(f"witness schedule replayed at M = {memory} ({variant}): "
                         f"{result.io} I/O")
    return result.io


def _exact_optimal(doc: dict, dag, claim, log: _Log) -> None:
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    memory, variant = spec["memory"], verdict["variant"]
    _require("schedule" in _witness(doc, {"schedule"}), "an optimum must carry its schedule")
    io = _replay(doc, dag, memory, variant, log)
    _same("verdict io (the witness schedule's replayed I/O)", io, verdict["io"])
    if "optimum" not in spec:
        _require(claim is None, f"status 'optimal' answers no claimed lower bound: a claim of "
                                f"{claim} is verified or refuted")
    else:
        _require(io == spec["optimum"], f"status 'optimal' with io {io}, but the spec expects "
                                        f"the optimum {spec['optimum']}: that is a refutation")
        _require(claim is None or io >= claim, f"status 'optimal' with io {io} below the "
                                               f"claimed lower bound {claim}: a refutation")
    if "optimum" in spec:
        log.rechecked.append(f"the optimum {io} is the spec's expected optimum")
    _lower_end(dag, memory, variant, verdict["evidence"], io, log, exact=True, spec=spec)


def _exact_verified(doc: dict, dag, claim, log: _Log) -> None:
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    _require(claim is not None and "optimum" not in spec,
             "status 'verified' needs a claimed lower bound and no expected optimum in the spec")
    _same("verdict bound (the claimed lower bound)", claim, verdict["bound"])
    _witness(doc, set())
    _lower_end(dag, spec["memory"], verdict["variant"], verdict["evidence"], claim, log,
               exact=False, spec=spec)


def _lower_end(dag, memory: int, variant: str, evidence: dict, figure: int, log: _Log, *,
               exact: bool, spec: dict | None = None) -> None:
    """Re-derive that no schedule costs less than ``figure`` (``exact``: and that the evidence
    shows exactly ``figure``, for an optimum) from the evidence the certificate names."""
    kind = evidence["kind"]
    if kind not in EVIDENCE_FIELDS or kind == "partition-lemma":
        _reject(f"evidence {kind!r} does not apply to an exact-search obligation")
    compared, recorded = EVIDENCE_FIELDS[kind]
    _known_fields("evidence", evidence, compared | {"kind"}, recorded)
    if kind == "exhaustive-search":
        searched = _searched(dag, variant, evidence, log)
        _exhaustive_evidence(_contracted(dag, evidence, log), memory, searched,
                             evidence["below"], figure, log, exact, evidence.get("heuristic"))
    elif kind == "trivial-bound":
        _trivial_evidence(dag, evidence["bound"], figure, log, exact)
    elif kind == "clausal-proof":
        searched = _searched(dag, variant, evidence, log)
        _clausal_evidence(_contracted(dag, evidence, log), memory, searched, evidence, figure,
                          log)
    elif kind == "search-certificate":
        searched = _searched(dag, variant, evidence, log)
        _search_certificate_evidence(_contracted(dag, evidence, log), memory, searched,
                                     evidence, figure, log, exact)
    elif kind == "carried":
        _carried_evidence(dag, spec, variant, evidence, figure, log, exact)
    else:
        _horizon_evidence(dag, memory, variant, evidence, figure, log)


def _searched(dag, variant: str, evidence: dict, log: _Log) -> str:
    """The variant to check the evidence in (re-run an exhaustive search, check a search
    certificate or a clausal proof): the verdict's, or (evidence field ``searched``) one-shot
    for a recompute verdict, once the single-use lemma is re-derived for the DAG (every needed
    non-input vertex of one use: the two optima are equal)."""
    searched = evidence.get("searched")
    if searched is None:
        _require("lemma" not in evidence, "evidence lemma: no lemma is needed for a search in "
                                          "the verdict's own variant")
        return variant
    _require(searched == "one-shot" and variant == "recompute",
             f"evidence searched {searched!r}: only a recompute bound may be proved by a "
             f"search in another variant (one-shot), not a {variant} one")
    _require(single_use_lemma(dag), "evidence searched 'one-shot': the single-use lemma does "
                                    "not hold for this DAG (a needed non-input vertex has more "
                                    "than one use), so the one-shot optimum may exceed the "
                                    "recompute one")
    log.rechecked.append("single-use lemma re-derived: every needed non-input vertex has one "
                         "use, so the recompute and one-shot optima are equal")
    log.relies_on.append(SINGLE_USE_RELIES_ON)  # the lemma's proof is on paper
    return searched


def _contracted(dag, evidence: dict, log: _Log):
    """The DAG to check the evidence on (re-run an exhaustive search, check a search
    certificate or a clausal proof): ``dag``, or (evidence field ``contracted``, one of the
    two lemma texts) ``dag`` with its chains contracted, with or without the inputs as roots
    as the text says, contracted again here; a contracted game's optimum is at most the DAG's
    in either variant, so no contracted schedule below a level means no schedule of the DAG
    below it."""
    if "contracted" not in evidence:
        return dag
    lemma = evidence["contracted"]
    known = " or ".join(map(repr, CONTRACTIONS))
    _require(lemma in CONTRACTIONS, f"evidence contracted {lemma!r}: the lemma the search on "
                                    f"the contracted DAG rests on is {known}")
    inputs = CONTRACTIONS[lemma]
    contracted = contract_chains(dag, inputs)
    _require(contracted is not None, "evidence contracted: the DAG has no chain to contract")
    log.rechecked.append(f"chains contracted again{' (inputs as roots)' if inputs else ''}: "
                         f"{len(contracted)} vertices, not {len(dag)}; the contracted optimum "
                         f"is at most the DAG's")
    log.relies_on.append(CONTRACTION_RELIES_ON)  # the lemma's proof is on paper
    return contracted


def _exhaustive_evidence(dag, memory, variant, below, figure, log, exact, heuristic) -> None:
    """Re-run the exhaustive search below ``below``.  ``heuristic`` (a name of
    ``abstraction.KINDS``, or absent) only says how to re-run it quickly: every admissible
    heuristic gives the same answer, so the certificate's word on it is a hint, never a
    premise."""
    if exact:
        _same("evidence below (the level the search proved, the optimum)", figure, below)
    _require(below >= figure, f"evidence below {below}: the exhaustive search proved nothing "
                              f"cheaper than {below} only, not {figure}")
    known = " and ".join(map(repr, abstraction.KINDS))
    _require(heuristic in (None, *abstraction.KINDS),
             f"evidence heuristic {heuristic!r}: only {known} are known")
    parts = (abstraction.parts_of(dag, share_inputs=abstraction.KINDS[heuristic])
             if heuristic is not None else [])
    bound = None
    if parts:
        bound = abstraction.AbstractionBound(dag, memory, require_variant(variant, {variant},
                                                                          "the re-check"),
                                             parts, nested=False)
    result = exhaustive_optimum(dag, memory, variant, below=below, bound=bound,
                                deepen=getattr(bound, "capped", False), deadline=log.deadline)
    if result.optimum is not None:
        _reject(f"exhaustive re-search finds a {variant} schedule of I/O {result.optimum} below "
                f"the certified {below}")
    _in_time(result, log, f"the exhaustive re-search below {below}")
    _require(result.complete, f"exhaustive re-search below {below} did not finish: "
                              f"{result.reason}")
    log.rechecked.append(f"exhaustive search re-run: no {variant} schedule with I/O < {below} "
                         f"({result.states} states)")


def _late(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


def _in_time(result, log: _Log, what: str) -> None:
    """A search ``result`` that stopped unfinished because the deadline passed leaves the
    certificate not re-checked (neither accepted nor rejected)."""
    if not result.complete and _late(log.deadline):
        raise NotRechecked(f"the time limit passed before {what} finished")


def _trivial_evidence(dag, bound, figure, log, exact) -> None:
    trivial = trivial_lower_bound(dag)
    _same("evidence bound (needed inputs + outputs)", trivial, bound)
    if exact:
        _same("the optimum (the trivial bound it must meet)", trivial, figure)
    _require(trivial >= figure, f"the trivial bound {trivial} does not reach {figure}")
    log.rechecked.append(f"trivial bound recomputed: every needed input loaded and every output "
                         f"stored, {trivial} I/O")


def _carried_evidence(dag, spec, variant, evidence, figure, log, exact) -> None:
    """A lower bound carried from another cell of the same instance: the direction of the
    carry re-derived (its M at least this one's; its variant this one's or recompute), and the
    certificate it names read from the same folder, its digest compared and the whole of it
    re-checked with this one; its proved bound must reach the figure."""
    source_m, source_v, bound = evidence["memory"], evidence["variant"], evidence["bound"]
    _require(source_m >= spec["memory"] and source_v in (variant, "recompute"),
             f"evidence carried from M = {source_m} ({source_v}): a lower bound carries only "
             f"to a smaller or equal M, from the same variant or from recompute, not to "
             f"M = {spec['memory']} ({variant})")
    _same("evidence fact (the monotonicity that carries the bound)", carry_fact(source_v),
          evidence["fact"])
    if exact:
        _same("evidence bound (the optimum it must meet)", figure, bound)
    _require(bound >= figure, f"the carried bound {bound} does not reach {figure}")
    source = _named_certificate(evidence["certificate"], evidence["digest"], log)
    sub = check(source, log.folder, log.seen + (evidence["certificate"],), log.deadline)
    source_spec = source["obligation"]["spec"]
    _require(source["obligation"]["kind"] == "exact-search"
             and {k: source_spec.get(k) for k in ("family", "params")}
             == {k: spec.get(k) for k in ("family", "params")}
             and dag_from_dict(source["instance"]["dag"], "source instance DAG") == dag,
             f"the certificate {evidence['certificate']!r} is about another instance")
    _same("evidence memory (the source certificate's M)", source_spec["memory"], source_m)
    _same("evidence variant (the source certificate's)", source["verdict"]["variant"], source_v)
    proved = _proved_lower(source["verdict"])
    _require(proved is not None and proved >= bound,
             f"the certificate {evidence['certificate']!r} ({source['verdict']['status']}) "
             f"proves no lower bound of {bound}")
    log.rechecked.append(f"lower bound {bound} carried from {evidence['certificate']} "
                         f"(M = {source_m}, {source_v}), re-checked with it: {evidence['fact']}")
    log.rechecked.extend(f"{evidence['certificate']}: {line}" for line in sub.rechecked)
    log.relies_on.extend(sub.relies_on)
    log.not_rederived.extend(f"{evidence['certificate']}: {line}" for line in sub.not_rederived)


_UPPER_REPLAYED = re.compile(r"upper end from the schedule at M = ([1-9][0-9]*) \((one-shot|"
                             r"recompute)\), replayed at M = ([1-9][0-9]*) \((one-shot|"
                             r"recompute)\)")
_UPPER_FOUND = re.compile(r"upper end from the ([A-Za-z0-9][A-Za-z0-9 ._:/-]{0,79}) "
                          r"schedule")
# A cell the timeout kept from its greedy schedule (``search.curve.evidence_lines``).
_NO_UPPER = "no upper end: the timeout came before the cell's greedy schedule"
_LOWER_CARRIED = re.compile(r"lower end from M = ([1-9][0-9]*) \((one-shot|recompute)\) "
                            r"\((.+)\)")


def _curve_lines(doc: dict, dag, log: _Log) -> None:
    """A curve cell's ``detail.curve`` lines (where the curve run found its ends, shown on
    claim pages): re-derived from the verdict where it names its evidence (the lower end by
    an evidence kind, carried from a cell, the infeasible vertex); otherwise of one of the
    forms the curve writes, for this cell, with its provenance recorded as written (which
    search found a schedule decides nothing: the schedule is replayed)."""
    if "curve" not in doc["detail"]:
        return
    spec, verdict, lines = doc["obligation"]["spec"], doc["verdict"], doc["detail"]["curve"]
    memory, variant = spec["memory"], spec.get("variant", "recompute")
    what = "detail curve"
    _require(isinstance(lines, list) and all(isinstance(line, str) for line in lines),
             f"{what}: a list of lines")
    if verdict["status"] == "infeasible":
        _same(f"{what} (the infeasible vertex)", [verdict.get("reason")], lines)
        return
    _require(len(lines) == 2, f"{what}: two lines (the upper end's, the lower end's), not "
                              f"{len(lines)}")
    upper, lower = lines
    replayed, found = _UPPER_REPLAYED.fullmatch(upper), _UPPER_FOUND.fullmatch(upper)
    none = upper == _NO_UPPER and verdict["status"] == "unknown" \
        and verdict.get("upper_bound") is None
    _require(found is not None or none or (replayed is not None
                                           and (int(replayed[3]), replayed[4])
                                           == (memory, variant)),
             f"{what}: {upper!r} is not how the curve names where the schedule of the cell "
             f"M = {memory} ({variant}) was found")
    evidence = verdict.get("evidence")
    if verdict["status"] in ("optimal", "refuted") and isinstance(evidence, dict):
        if evidence["kind"] == "carried":
            derived = (f"lower end from M = {evidence['memory']} ({evidence['variant']}) "
                       f"({evidence['fact']})")
        else:
            derived = f"lower end by {evidence['kind']}"
        _same(f"{what} lower end (the verdict's evidence)", derived, lower)
    else:
        carried = _LOWER_CARRIED.fullmatch(lower)
        stated = verdict.get("lower_bound")
        _require(lower == "lower end proved by the cell's own search"
                 or (lower == "lower end: the trivial bound"
                     and stated == trivial_lower_bound(dag))
                 or (carried is not None and int(carried[1]) >= memory
                     and carried[2] in (variant, "recompute")
                     and carried[3] == carry_fact(carried[2])),
                 f"{what}: {lower!r} is not a lower end the curve can give the cell "
                 f"M = {memory} ({variant}) with lower end {stated}")
        log.not_rederived.append(f"{what}: {lower!r}, the account of an unsettled cell's "
                                 f"lower end, reported, not relied on")
    log.not_rederived.append(f"{what}: {upper!r}: which search found the schedule is recorded "
                             f"as written (the schedule itself is what is replayed)")


def _proved_lower(verdict: dict) -> int | None:
    """The lower bound a re-checked exact-search verdict proves: an optimum, a verified bound
    (an attained upper end, verified with ``at_most``, proves none)."""
    if verdict["status"] == "optimal":
        return verdict["io"]
    if verdict["status"] == "verified":
        return verdict.get("bound")
    return None


def _horizon_evidence(dag, memory, variant, evidence, figure, log) -> None:
    """A solver's unsat at an I/O budget within a proved horizon: the horizon is recomputed,
    the unsat re-derived by an exhaustive search under a state cap when it fits; when it does
    not, the certificate is not re-checked (``NotRechecked``): nothing in it shows the unsat."""
    kind = evidence["kind"]
    applies = "one-shot" if kind == "one-shot-exact-horizon" else "recompute"
    _require(variant == applies, f"evidence {kind!r} proves nothing in the {variant} variant "
                                 f"(it applies to {applies})")
    computes = sum(1 for v in dag.useful if not dag.is_input[v])
    if kind == "one-shot-exact-horizon":
        _same("evidence steps (one compute per needed non-input vertex)", computes,
              evidence["steps"])
    else:
        horizon = sum(compute_demands(dag).values())
        _same("evidence horizon_computes (the demand-count lemma's sum)", horizon,
              evidence["horizon_computes"])
        _same("evidence steps (the proved horizon)", horizon, evidence["steps"])
    proved = evidence["unsat_budget"] + 1
    _require(proved >= figure, f"the solver's unsat at budget {proved - 1} proves I/O >= "
                               f"{proved} only, not >= {figure}")
    log.rechecked.append(f"solver horizon recomputed: {evidence['steps']} compute steps")
    result = exhaustive_optimum(dag, memory, variant, below=proved,
                                max_states=RECHECK_MAX_STATES, deadline=log.deadline)
    if result.optimum is not None:
        _reject(f"exhaustive re-search finds a {variant} schedule of I/O {result.optimum}, "
                f"which the solver's unsat at budget {proved - 1} excludes")
    if result.complete:
        log.rechecked.append(f"the solver's unsat re-derived by exhaustive search: no {variant} "
                             f"schedule with I/O < {proved} ({result.states} states)")
        return
    # The certificate only says that a solver answered unsat; its digest anyone can recompute,
    # so what it says is no evidence, and a checker without a solver cannot accept it.
    raise NotRechecked(f"the solver's unsat at I/O budget {proved - 1} is not re-derived: the "
                       f"exhaustive re-search stopped ({result.reason}), and this checker runs "
                       f"no solver")


def _clausal_evidence(dag, memory, variant, evidence, figure, log) -> None:
    """A one-shot lower bound by an LRAT refutation: the CNF beside the certificate is the one
    the re-encoder derives from the DAG, M and the budget (clause for clause, as sets), and the
    proof beside it checks against it (``ioverify.certificate.lrat``)."""
    _require(variant == "one-shot", f"evidence 'clausal-proof' proves nothing in the {variant} "
                                    f"variant (it applies to one-shot)")
    computes = sum(1 for v in dag.useful if not dag.is_input[v])
    _same("evidence steps (one compute per needed non-input vertex)", computes,
          evidence["steps"])
    budget = evidence["unsat_budget"]
    _require(budget >= 0, f"evidence unsat_budget {budget}: a refutation needs a budget of at "
                          f"least 0")
    _require(budget + 1 >= figure, f"a refutation at budget {budget} proves I/O >= "
                                   f"{budget + 1} only, not >= {figure}")
    cnf_text = _proof_file(log, evidence, "cnf")
    proof_text = _proof_file(log, evidence, "proof")
    derived = one_shot_cnf(dag, memory, budget)
    stored = read_dimacs(cnf_text)
    _same_clauses(derived, stored, budget)
    _same("evidence variables (the re-encoded CNF's)", len(derived.names), evidence["variables"])
    _same("evidence clauses (the re-encoded CNF's)", len(derived.clauses), evidence["clauses"])
    log.rechecked.append(f"CNF {evidence['cnf']} re-encoded from the DAG, M = {memory} and "
                         f"I/O budget {budget}: the same {len(stored)} clauses over "
                         f"{len(derived.names)} variables")
    lemmas = check_lrat(stored, proof_text, log.deadline)
    _same("evidence lemmas (the clauses the proof adds)", lemmas, evidence["lemmas"])
    log.rechecked.append(f"LRAT proof {evidence['proof']} checked: {lemmas} clauses added, the "
                         f"last one empty; no one-shot schedule with I/O <= {budget}")


def _search_certificate_evidence(dag, memory, variant, evidence, figure, log, exact) -> None:
    """A lower bound by a search certificate: the closed configurations beside the certificate
    (by SHA-256) checked block by block against the DAG, M and the variant of the obligation
    (``ioverify.certificate.closed``), at the level the evidence states."""
    below = evidence["below"]
    if exact:
        _same("evidence below (the level the certificate proves, the optimum)", figure, below)
    _require(below >= figure, f"evidence below {below}: the search certificate proves nothing "
                              f"cheaper than {below} only, not {figure}")
    text = _proof_file(log, evidence, "closed")
    states = check_closed(dag, memory, variant == "one-shot", below, text, log.deadline)
    _same("evidence states (the configurations the file lists)", states, evidence["states"])
    log.rechecked.append(f"search certificate {evidence['closed']} checked: every block from "
                         f"each of its {states} closed configurations enumerated from the rules; "
                         f"no {variant} schedule with I/O < {below}")
    log.relies_on.append(RELIES_ON["search-certificate"])


def _proof_file(log: _Log, evidence: dict, which: str) -> str:
    """The text of the file ``evidence[which]`` beside the certificate, whose SHA-256 must be
    ``evidence[which + '_sha256']``."""
    name = evidence[which]
    if log.folder is None:
        raise NotRechecked(f"the {which} file {name!r} is beside the certificate file: check "
                           f"the file, not a document in memory")
    try:
        data = (log.folder / name).read_bytes()
    except OSError as error:
        _reject(f"evidence {which}: cannot read {name!r} beside the certificate: "
                f"{error.strerror}")
    _same(f"evidence {which}_sha256 (the SHA-256 of {name!r})", hashlib.sha256(data).hexdigest(),
          evidence[f"{which}_sha256"])
    try:
        return data.decode("ascii")
    except UnicodeDecodeError:
        _reject(f"evidence {which}: {name!r} is not ASCII text")


def _same_clauses(derived, stored, budget: int) -> None:
    """The stored clauses are the re-encoded ones: the same set, each once."""
    mine = set(derived.clauses)
    theirs = [tuple(sorted(set(c), key=lambda lit: (abs(lit), lit))) for c in stored]
    extra = [c for c in theirs if c not in mine]
    missing = sorted(mine - set(theirs))
    if extra or missing:
        clause = extra[0] if extra else missing[0]
        named = " ".join(("" if lit > 0 else "~") + (derived.names[abs(lit) - 1]
                         if abs(lit) <= len(derived.names) else f"v{abs(lit)}") for lit in clause)
        _reject(f"the stored CNF differs from the re-encoded one at I/O budget {budget}: "
                f"clause ({named}) is {'only in the stored' if extra else 'missing from the stored'}"
                f" CNF ({len(extra)} extra, {len(missing)} missing)")
    _require(len(theirs) == len(mine), "the stored CNF repeats a clause")


def _exact_refuted(doc: dict, dag, claim, log: _Log) -> None:
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    io = verdict["io"]
    _require(io is not None, "a refuted exact-search states the I/O that refutes the claim")
    witness = _witness(doc, {"schedule"})
    if "optimum" not in spec or (claim is not None and io < claim):
        _require(claim is not None, "status 'refuted', but the spec claims nothing (no "
                                    "lower_bound, no optimum)")
        _same("verdict evidence (a cheaper schedule needs none)", None, verdict["evidence"])
        _beats_claim(doc, dag, claim, log, "optimum" in spec)
        return
    expected = spec["optimum"]
    _same("verdict claim (the spec's expected optimum)", expected, verdict["claim"])
    _require(io != expected, f"status 'refuted', but io {io} is the expected optimum")
    evidence = verdict["evidence"]
    # The optimum itself is stated only when it is shown from both sides: a schedule replayed
    # at io (or, without evidence, the exhaustive search re-run to the optimum); evidence alone
    # shows the lower end, "the optimum is at least io", and no upper end.
    settled = io < expected or "schedule" in witness or evidence is None
    stated = "the optimum is" if settled else "the optimum is at least"
    reason = re.fullmatch(rf"{stated} {io}, not {expected} \((.+)\)", verdict["reason"])
    _require(reason is not None and reason.group(1) in EVIDENCE_KINDS,
             f"verdict reason: the re-check derives '{stated} {io}, not {expected} "
             f"(EVIDENCE)'" + ("" if settled else " (no schedule is carried, so no upper end "
                                                  "is shown)")
             + f", the certificate says {verdict['reason']!r}")
    if io < expected:
        _require("schedule" in witness, f"an optimum {io} below the expected {expected} must "
                                        f"carry its schedule")
        _same("verdict io (the witness schedule's replayed I/O)",
              _replay(doc, dag, spec["memory"], verdict["variant"], log), io)
    if evidence is None:
        _optimum_by_search(dag, spec["memory"], verdict["variant"], io, log)
    else:
        _same("verdict reason's evidence kind", evidence["kind"], reason.group(1))
        _lower_end(dag, spec["memory"], verdict["variant"], evidence, io, log, exact=True,
                   spec=spec)
    if io > expected and "schedule" in witness:
        _same("verdict io (the witness schedule's replayed I/O)",
              _replay(doc, dag, spec["memory"], verdict["variant"], log), io)
    elif io > expected and evidence is not None:
        log.rechecked.append(f"refutation re-derived: every schedule costs at least {io} > "
                             f"the expected optimum {expected} (no schedule carried: the "
                             f"optimum's upper end is not stated)")


def _beats_claim(doc: dict, dag, claim: int, log: _Log, found_optimum: bool) -> None:
    """A replayed schedule cheaper than the claimed lower bound refutes it."""
    verdict, memory = doc["verdict"], doc["obligation"]["spec"]["memory"]
    _require("schedule" in doc["witness"], "a refutation of a lower bound must carry the "
                                           "cheaper schedule")
    io = _replay(doc, dag, memory, verdict["variant"], log)
    _same("verdict io (the witness schedule's replayed I/O)", io, verdict["io"])
    _same("verdict claim (the spec's claimed lower bound)", claim, verdict["claim"])
    _require(io < claim, f"the witness costs {io}, which does not beat the claimed lower bound "
                         f"{claim}")
    reason = (f"a schedule with {io} I/O beats the claimed lower bound {claim}"
              if found_optimum else "")
    _same("verdict reason", reason, verdict["reason"])
    log.rechecked.append(f"refutation re-derived: the replayed schedule costs {io} < claimed "
                         f"lower bound {claim}")


def _optimum_by_search(dag, memory: int, variant: str, io: int, log: _Log) -> None:
    """A refutation states the optimum it found without recording the evidence for it: the
    exhaustive search (capped) must re-derive it, else the certificate is rejected."""
    result = exhaustive_optimum(dag, memory, variant, below=io + 1,
                                max_states=RECHECK_MAX_STATES, deadline=log.deadline)
    _in_time(result, log, f"the exhaustive re-search of the optimum {io}")
    _require(result.complete, f"the certificate states the optimum {io} without evidence, and "
                              f"the exhaustive re-search could not settle it "
                              f"({result.reason})")
    _same(f"verdict io (the {variant} optimum, by exhaustive re-search)", result.optimum, io)
    log.rechecked.append(f"optimum re-derived by exhaustive search: {io} ({result.states} "
                         f"states)")


def _exact_inconclusive(doc: dict, dag, claim, log: _Log) -> None:
    """Bounded and unknown claim nothing; their bounds are re-derived where that is cheap, and
    otherwise said plainly not re-derived (nothing relies on them)."""
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    status, lower, upper = verdict["status"], verdict["lower_bound"], verdict["upper_bound"]
    witness = _witness(doc, {"schedule"})
    if lower is not None:
        trivial = trivial_lower_bound(dag)
        if lower <= trivial:
            log.rechecked.append(f"lower end {lower} re-derived: the trivial bound is {trivial}")
        else:
            log.not_rederived.append(f"lower end {lower}: an {status} verdict proves nothing, "
                                     f"so its lower end is reported, not relied on")
    if "schedule" in witness:
        _same("verdict upper_bound (the best schedule's replayed I/O)",
              _replay(doc, dag, spec["memory"], verdict["variant"], log), upper)
    elif upper is not None:
        log.not_rederived.append(f"upper end {upper}: the certificate records no schedule "
                                 f"for it")
    if lower is not None and upper is not None:
        _require(lower <= upper, f"lower end {lower} above upper end {upper}")
        if claim is None or "optimum" in spec:
            _require(lower < upper, f"bounds that meet ({lower}) give the optimum, not "
                                    f"{status!r}")
    if claim is not None and "optimum" not in spec:
        _require(upper is None or upper >= claim, f"an upper end {upper} below the claimed "
                                                  f"lower bound {claim} refutes it, not "
                                                  f"{status!r}")
        _require(lower is None or lower < claim, f"a lower end {lower} at the claimed lower "
                                                 f"bound {claim} verifies it, not {status!r}")
    if status == "bounded":
        log.not_rederived.append(f"no schedule within {verdict['horizon']} moves: a bounded "
                                 f"search, not a proof, not re-run")
    else:
        log.not_rederived.append(f"the reason is the search's account: {verdict['reason']}")


# --- a claimed upper end (spec ``at_most``): a schedule attains it, a proof of more refutes it

def _upper_end_attained(doc: dict, dag, claim, log: _Log) -> None:
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    at_most = spec["at_most"]
    _require("schedule" in _witness(doc, {"schedule"}),
             "an attained upper end must carry its schedule")
    io = _replay(doc, dag, spec["memory"], verdict["variant"], log)
    _same("verdict io (the witness schedule's replayed I/O)", io, verdict["io"])
    _same("verdict at_most (the spec's claimed upper end)", at_most, verdict["at_most"])
    _same("verdict evidence (the replay is the whole argument)", {"kind": "replay"},
          verdict["evidence"])
    _require(io <= at_most, f"the witness costs {io}, above the claimed upper end {at_most}")
    log.rechecked.append(f"upper end re-derived: the replayed schedule costs {io} <= {at_most}")


def _upper_end_refuted(doc: dict, dag, claim, log: _Log) -> None:
    """Refuted only by a proof that every schedule costs more than the claimed upper end."""
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    at_most, evidence = spec["at_most"], verdict["evidence"]
    _require(evidence is not None, "a refuted upper end carries the evidence that every "
                                   "schedule costs more")
    _witness(doc, set())
    _same("verdict io (a refuted upper end states none)", None, verdict["io"])
    _same("verdict claim (the spec's claimed upper end)", at_most, verdict["claim"])
    _same("verdict reason", f"every schedule needs >= {at_most + 1} I/O, above the claimed "
                            f"upper end {at_most} ({evidence['kind']})", verdict["reason"])
    _lower_end(dag, spec["memory"], verdict["variant"], evidence, at_most + 1, log,
               exact=False, spec=spec)
    log.rechecked.append(f"no schedule costs {at_most} or less")


def _upper_end_optimal(doc: dict, dag, claim, log: _Log) -> None:
    _reject("a claimed upper end is attained (verified) or refuted, never answered 'optimal'")


def _upper_end_inconclusive(doc: dict, dag, claim, log: _Log) -> None:
    verdict, at_most = doc["verdict"], doc["obligation"]["spec"]["at_most"]
    upper = verdict["upper_bound"]
    _require(upper is None or upper > at_most or "schedule" not in doc["witness"],
             f"a schedule of {upper} I/O within the claimed upper end {at_most} attains it, "
             f"not {verdict['status']!r}")
    _exact_inconclusive(doc, dag, claim, log)


UPPER_END_STATUSES = {
    "optimal": _upper_end_optimal,
    "verified": _upper_end_attained,
    "refuted": _upper_end_refuted,
    "bounded": _upper_end_inconclusive,
    "unknown": _upper_end_inconclusive,
}


EXACT_STATUSES = {
    "optimal": _exact_optimal,
    "verified": _exact_verified,
    "refuted": _exact_refuted,
    "bounded": _exact_inconclusive,
    "unknown": _exact_inconclusive,
}


# --- partition ------------------------------------------------------------------------------------

def check_partition(doc: dict, log: _Log) -> None:
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    dag = _instance(doc, log)
    memory = spec["memory"]
    _fields("detail", doc["detail"], {"vertices": len(dag)}, recorded={"budget"})
    if _feasibility(doc, dag, memory, log):
        _same("verdict variant", "recompute", verdict["variant"])
        return
    _verdict_fields(verdict)
    core = core_dag(dag)
    status = verdict["status"]
    _same("verdict variant", "partition" if status == "refuted" else "recompute",
          verdict["variant"])
    if status == "verified":
        _partition_verified(doc, dag, core, memory, log)
    elif status == "refuted":
        _partition_refuted(doc, dag, core, memory, log)
    elif status == "unknown":
        _partition_unknown(doc, core, memory, log)
    else:
        _reject(f"status {status!r} is not one a partition obligation produces")


def _provable_parts(core, S: int) -> tuple[int, str]:
    """The least number of parts this re-check proves without a solver: the counting bound,
    and 2 when the whole core is not one S-partition part."""
    lower, how = counting_lower_bound(core, S), "by counting inputs and sinks"
    if lower < 2 and not is_partition(core, S, [list(range(len(core)))]).ok:
        lower, how = 2, f"the whole core is not one {S}-partition part"
    return lower, how


def _partition_verified(doc, dag, core, memory, log) -> None:
    verdict, spec = doc["verdict"], doc["obligation"]["spec"]
    bound = _partition_bound(doc, dag, core, memory, log)
    _same("verdict bound (M (P - 1), Hong-Kung Lemma 3.1)", bound, verdict["bound"])
    at_most = spec.get("at_most")
    _require(at_most is None or bound <= at_most, f"the bound {bound} exceeds the spec's "
                                                  f"at_most {at_most}: that is a refutation")


def _partition_bound(doc, dag, core, memory, log) -> int:
    """The bound M (P - 1) the verdict's partition-lemma evidence proves: the witness
    partition re-checked, the part counts recomputed, P's lower end re-derived (or, resting
    on a solver's unsat, not re-checked)."""
    verdict, S = doc["verdict"], 2 * memory
    evidence = verdict["evidence"]
    _require(evidence["kind"] == "partition-lemma", f"evidence {evidence['kind']!r} does not "
                                                    f"apply to a partition obligation")
    witness = _witness(doc, {"partition"})
    _require("partition" in witness, "a partition bound must carry its witness partition")
    parts = witness["partition"]
    lower = evidence.get("parts_lower")
    _require(isinstance(lower, int), "evidence parts_lower is missing")
    left_out = sorted(set(dag.names) - set(core.names))
    compared = {"kind": "partition-lemma", "S": S, "memory": memory, "parts": len(parts),
                "parts_lower": len(parts), "parts_upper": len(parts),
                "lower_by": evidence.get("lower_by"), "partition": parts, "left_out": left_out}
    _fields("evidence", evidence, compared, recorded={"budget"})
    index = core.index
    unknown = [name for part in parts for name in part if name not in index]
    _require(not unknown, f"witness partition names {unknown[0] if unknown else ''!r}, not a "
                          f"vertex of the core DAG")
    result = is_partition(core, S, [[index[name] for name in part] for part in parts])
    _require(result.ok, f"witness partition is not a {S}-partition of the core: "
                        f"{result.message}")
    log.rechecked.append(f"witness partition re-checked: a {S}-partition of the core DAG in "
                         f"{len(parts)} part(s)")
    _parts_lower_end(core, S, lower, evidence["lower_by"], log)
    return memory * (lower - 1)


def _parts_lower_end(core, S: int, lower: int, lower_by: str, log: _Log) -> None:
    """P(S) >= lower: re-derived when the counting bound (or the one-part check) reaches it;
    rejected when the whole core is one S-partition part (then P(S) = 1); otherwise not
    re-checked (``NotRechecked``): the certificate can only say that a solver answered unsat
    at lower - 1 parts, which nothing in it shows."""
    provable, how = _provable_parts(core, S)
    if lower_by == COUNTING:
        _same(f"evidence parts_lower ({COUNTING})", counting_lower_bound(core, S), lower)
    elif lower_by != f"Z3: no {S}-partition with {lower - 1} parts":
        _reject(f"evidence lower_by {lower_by!r} is neither {COUNTING!r} nor Z3's unsat at "
                f"{lower - 1} parts")
    if provable >= lower:
        log.rechecked.append(f"P({S}) >= {lower} re-derived {how}: the bound is "
                             f"M (P - 1) by Hong-Kung Lemma 3.1")
        return
    _require(lower <= 1 or not is_partition(core, S, [list(range(len(core)))]).ok,
             f"evidence parts_lower {lower}: the whole core is one {S}-partition part, so "
             f"P({S}) = 1")
    raise NotRechecked(f"P({S}) >= {lower} rests on Z3's unsat at {lower - 1} parts, which "
                       f"this checker, running no solver, cannot re-derive (it proves "
                       f"P({S}) >= {provable} only, {how})")


def _partition_refuted(doc, dag, core, memory, log) -> None:
    """The claimed optimum ``at_most`` is below a proved partition bound: the bound is
    re-derived from the refutation's evidence, as a verified bound's is."""
    verdict, spec = doc["verdict"], doc["obligation"]["spec"]
    at_most = spec.get("at_most")
    _require(at_most is not None, "status 'refuted', but the spec claims no at_most")
    _same("verdict claim (the spec's at_most)", at_most, verdict["claim"])
    _same("verdict io", None, verdict["io"])
    _require(verdict["evidence"] is not None, "a partition refutation must carry the evidence "
                                              "of the bound that refutes at_most")
    bound = _partition_bound(doc, dag, core, memory, log)
    reason = (f"the proved partition bound {bound} exceeds the claimed optimum {at_most}: no "
              f"schedule can cost {at_most}")
    _same("verdict reason", reason, verdict["reason"])
    _require(bound > at_most, f"the re-derived bound {bound} does not exceed at_most "
                              f"{at_most}: nothing is refuted")
    log.rechecked.append(f"refutation re-derived: every schedule costs at least {bound} > "
                         f"at_most {at_most}")


def _partition_unknown(doc, core, memory, log) -> None:
    verdict, S = doc["verdict"], 2 * memory
    _witness(doc, set())
    _same("verdict upper_bound", None, verdict["upper_bound"])
    lower = verdict["lower_bound"]
    provable, how = _provable_parts(core, S)
    if lower is None or lower <= memory * (provable - 1):
        log.rechecked.append(f"lower end {lower} re-derived: P({S}) >= {provable} ({how})")
    else:
        log.not_rederived.append(f"lower end {lower}: an unknown verdict proves nothing, so "
                                 f"it is reported, not relied on")
    log.not_rederived.append(f"the reason is the search's account: {verdict['reason']}")


# --- kernel ---------------------------------------------------------------------------------------

def _kernel_here(name) -> None:
    """A kernel is re-run, so its code must be here: a kernel another package declares (entry
    point group ``ioverify.kernels``) that is not installed is NotRechecked, naming it."""
    from ioverify.trace.kernel import KERNELS

    if isinstance(name, str) and name not in KERNELS:
        raise NotRechecked(f"kernel {name!r} is not installed here (not shipped with ioverify, "
                           f"and no installed package declares it as an entry point of "
                           f"ioverify.kernels): it cannot be re-run")


def check_kernel(doc: dict, log: _Log) -> None:
    from ioverify.trace.kernel import run_kernel

    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    _no_instance(doc)
    _witness(doc, set())
    _verdict_fields(verdict)
    _kernel_here(spec["kernel"])
    report = run_kernel(spec["kernel"], memory=spec["memory"], seed=doc["seed"],
                        literal_blocks=spec.get("literal_blocks", False), **spec["params"])
    log.rechecked.append(f"kernel {spec['kernel']} re-run (seed {doc['seed']}) and re-certified: "
                         f"{report.io} I/O, peak {report.peak}, "
                         f"{'certified' if report.certified else 'not certified'}")
    derived, detail = kernel_verdict(spec, report)
    _same("verdict status (re-derived from the re-run)", derived["status"], verdict["status"])
    _fields("detail", doc["detail"], _with_report_fields(doc["detail"], detail, report),
            recorded={"seconds"})
    _fields("verdict", verdict, derived)
    log.rechecked.append(f"status re-derived: {derived['status']} ("
                         + (derived.get("reason") or _kernel_why(spec, doc["detail"])) + ")")


def kernel_verdict(spec: dict, report) -> tuple[dict, dict]:
    """The verdict (as certificate JSON) and detail the re-run supports, judged by the trusted
    ``ioverify.trace.kernel.judge`` on the re-run's report and the bounds evaluated here: certified,
    I/O equal to the closed form, within every bound is verified; ``expect_certified=False`` is
    verified only when certification failed on capacity; anything else is refuted."""
    from ioverify.trace.kernel import judge

    detail = {"loads": report.loads, "stores": report.stores, "io": report.io,
              "peak": report.peak, "formula": report.formula, "max_error": report.max_error,
              "certified": report.certified, "reason": report.reason}
    expect = spec.get("expect_certified", True)
    bounds = {"lower_bounds": [], "upper_bounds": []}
    if expect and report.certified and report.io == report.formula:
        for key, values in bounds.items():
            values += [(b, _bound_value(b, spec["params"], spec["memory"], report.blocks))
                       for b in spec.get(key, ())]
            if values:
                detail[key] = {b: str(value) for b, value in values}
    derived = to_json(judge(report, expect_certified=expect, **bounds))
    derived.pop("schedule", None)  # a kernel refutation has none; a certificate keeps it apart
    return derived, detail


def _kernel_why(spec: dict, detail: dict) -> str:
    if not spec.get("expect_certified", True):
        return "certification fails on capacity, as claimed"
    bounds = [f"{kind} {bid} = {value}" for kind in ("lower_bounds", "upper_bounds")
              for bid, value in detail.get(kind, {}).items()]
    return (f"certified, I/O {detail['io']} equals the closed form"
            + (f", within {', '.join(bounds)}" if bounds else ""))


def _with_report_fields(stated: dict, derived: dict, report) -> dict:
    """Detail fields beyond ``kernel_verdict``'s that name a field of the kernel report (a
    runner may record more of it) are compared with the re-run's value too."""
    recorded = report.to_json()
    extra = {key: recorded[key] for key in stated
             if key not in derived and key in recorded and key != "seconds"}
    return {**derived, **extra}


# --- symbolic -------------------------------------------------------------------------------------

def check_symbolic(doc: dict, log: _Log) -> None:
    fact, verdict = doc["obligation"]["spec"]["fact"], doc["verdict"]
    _no_instance(doc)
    _witness(doc, set())
    _verdict_fields(verdict)
    result = _reprove(fact)
    log.rechecked.append(f"fact {fact!r} re-proved: {result.status} ({result.method})")
    _fields("detail", doc["detail"], {"statement": result.statement, "method": result.method,
                                      "detail": result.detail})
    if result.status == "proved":
        derived = {"status": "verified", "statement": result.statement, "variant": "formula",
                   "evidence": {"kind": "symbolic-proof", "method": result.method}}
        log.relies_on.append(f"the re-proof just run: {result.method}")
    elif result.status == "refuted":
        derived = {"status": "refuted", "io": None, "claim": None, "variant": "formula",
                   "reason": f"refuted: {result.detail}", "evidence": None}
    else:
        derived = {"status": "unknown", "reason": f"not proved: {result.detail}",
                   "lower_bound": None, "upper_bound": None, "variant": "formula"}
    _same(f"verdict status (the re-proof: {result.status})", derived["status"], verdict["status"])
    _fields("verdict", verdict, derived)


def _reprove(fact: str):
    """Prove the fact again; NotRechecked when its proof needs Z3 and Z3 cannot be imported."""
    from ioverify.bounds.facts import prove

    try:
        return prove(fact)
    except ImportError as error:
        if (error.name or "").split(".")[0] != "z3":
            raise
        raise NotRechecked(f"fact {fact!r} is proved with Z3's arithmetic, and z3 cannot be "
                           f"imported here: install z3-solver to re-check it") from None


# --- confront -------------------------------------------------------------------------------------

def check_confront(doc: dict, log: _Log) -> None:
    """Every run of the sweep re-run with the certificate's seed and re-certified, the bound
    read off it again, and the sweep judged again (``ioverify.trace.confront``); the stated
    verdict must be the re-derived one, row by row, trace digests included."""
    from ioverify.bounds.instance import bound_on_run
    from ioverify.bounds.records import get

    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    _no_instance(doc)
    _witness(doc, set())
    _verdict_fields(verdict)
    _kernel_here(spec["kernel"])
    rows, explicit, derived = [], not get(spec["bound"]).asymptotic, None
    for point in spec["sweep"]:
        run = certified_run(spec["kernel"], point["params"], point["memory"], doc["seed"])
        if not run["certified"]:
            derived = {"status": "unknown", "reason": f"{spec['kernel']} at {point['params']}, "
                       f"M={point['memory']} was not certified ({run['reason']}): nothing to "
                       f"confront", "lower_bound": None, "upper_bound": None, "variant": "kernel"}
            break
        value = bound_on_run(spec["bound"], spec["reading"], point["params"], point["memory"],
                             run["blocks"], regime=spec["regime"])
        rows.append(row(point["params"], point["memory"], run["io"], value,
                        run["trace_digest"]))
    log.rechecked.append(f"{len(rows)} run(s) of {spec['kernel']} re-run (seed {doc['seed']}), "
                         f"re-certified and {spec['bound']} read off each")
    if derived is None:
        derived = to_json(judge_sweep(spec["bound"], spec["kernel"], rows, explicit=explicit,
                                      along=spec["along"]))
        derived.pop("schedule", None)
    _same("verdict status (the sweep judged again)", derived["status"], verdict["status"])
    _fields("verdict", verdict, derived)
    _fields("detail", doc["detail"], {"explicit": explicit, "runs": len(rows)})
    log.rechecked.append(f"status re-derived: {derived['status']}")


# --- io-curve -------------------------------------------------------------------------------------

CURVE_CELL_FIELDS = {"memory", "variant", "status", "lower_bound", "upper_bound", "evidence",
                     "certificate", "digest"}


def check_io_curve(doc: dict, log: _Log) -> None:
    """A curve's certificate names one exact-search certificate per cell of the spec's range
    and variants: each is read from the same folder, its digest compared, re-checked whole
    (carried bounds with their sources) and must be about the cell it is listed for (the
    spec's instance, M, variant and expected optimum); the stated ends and status of each cell
    are compared with its certificate, and the verdict must be the worst cell's."""
    spec, detail = doc["obligation"]["spec"], doc["detail"]
    _known_fields("obligation spec", spec, {"family", "params", "memory_range", "variants"},
                  {"optima"})
    lo, hi = spec["memory_range"]
    if type(lo) is not int or type(hi) is not int or lo > hi:
        raise InvalidFormat(f"obligation spec memory_range {_show(spec['memory_range'])}: two "
                            f"integers lo <= hi")
    keys = [(m, v) for m in range(lo, hi + 1) for v in ("one-shot", "recompute")
            if v in spec["variants"]]
    consumed = {(str(m), v) for m, v in keys}
    stray = sorted((v, m) for v, by_m in spec.get("optima", {}).items() for m in by_m
                   if (m, v) not in consumed)
    _require(not stray, f"obligation spec optima: an expected optimum no cell checks "
                        f"({stray[0][0]}, M = {stray[0][1]!r}): the curve's cells are M = "
                        f"{lo}..{hi} in {', '.join(spec['variants'])}" if stray else "")
    _require(isinstance(detail.get("cells"), list) and
             [(c.get("memory"), c.get("variant")) for c in detail["cells"]] == keys,
             f"detail cells: the curve's cells are {keys}, in this order")
    _no_instance(doc)
    dag = _build({"family": spec["family"], "params": spec["params"]})
    _fields("detail", {k: v for k, v in detail.items() if k != "cells"},
            {"vertices": len(dag), "trivial_bound": trivial_lower_bound(dag)},
            recorded={"budget"})
    _witness(doc, set())
    worst = None
    for cell in detail["cells"]:
        verdict = _curve_cell(doc, spec, cell, log)
        if worst is None or SEVERITY[verdict["status"]] > SEVERITY[worst["status"]]:
            worst = verdict
    _curve_consistent(detail["cells"])
    _same("verdict (the worst cell's, as its certificate states it)", worst, doc["verdict"])
    log.rechecked.append(f"{len(keys)} cells re-checked with their certificates; the verdict "
                         f"is the worst cell's ({worst['status']})")


def _curve_cell(doc: dict, spec: dict, cell: dict, log: _Log) -> dict:
    _known_fields("detail cell", cell, CURVE_CELL_FIELDS)
    memory, variant = cell["memory"], cell["variant"]
    source = _named_certificate(cell["certificate"], cell["digest"], log)
    sub = check(source, log.folder, log.seen + (cell["certificate"],), log.deadline)
    expected = {"family": spec["family"], "params": spec["params"], "memory": memory,
                "variant": variant}
    optimum = spec.get("optima", {}).get(variant, {}).get(str(memory))
    if optimum is not None:
        expected["optimum"] = optimum
    _same(f"the spec of {cell['certificate']} (the cell M = {memory}, {variant})", expected,
          source["obligation"]["spec"])
    verdict = source["verdict"]
    _same(f"cell M = {memory} ({variant}) status", verdict["status"], cell["status"])
    lower = verdict["io"] if verdict["status"] == "optimal" else verdict.get("lower_bound")
    upper = verdict.get("upper_bound")
    if verdict["status"] == "optimal" or (verdict["status"] == "refuted" and (
            "schedule" in source["witness"] or verdict.get("evidence") is None)):
        upper = verdict["io"]  # replayed (or re-searched) by the cell's re-check
    elif verdict["status"] == "refuted":
        upper = None  # "the optimum is at least io": no schedule, no upper end
    _same(f"cell M = {memory} ({variant}) evidence (the lines its certificate's detail "
          f"curve gives, checked with it)", source["detail"].get("curve"), cell["evidence"])
    _same(f"cell M = {memory} ({variant}) lower_bound", lower, cell["lower_bound"])
    _same(f"cell M = {memory} ({variant}) upper_bound", upper, cell["upper_bound"])
    log.rechecked.extend(f"{cell['certificate']}: {line}" for line in sub.rechecked)
    log.relies_on.extend(r for r in sub.relies_on if r not in log.relies_on)
    log.not_rederived.extend(f"{cell['certificate']}: {line}" for line in sub.not_rederived)
    return verdict


def _curve_consistent(cells: list[dict]) -> None:
    """Across cells (each already re-checked): the optimum is non-increasing in M and one-shot's
    is at least recompute's (docs/theory.md), so a cell's upper end is never below a lower end
    another cell proves at a larger or equal M, in its variant or in recompute."""
    for low in cells:
        for high in cells:
            if low["lower_bound"] is None or high["upper_bound"] is None:
                continue
            if high["memory"] <= low["memory"] and low["variant"] in (high["variant"],
                                                                       "recompute"):
                _require(high["upper_bound"] >= low["lower_bound"],
                         f"cell M = {high['memory']} ({high['variant']}) upper end "
                         f"{high['upper_bound']} is below the lower end {low['lower_bound']} "
                         f"of the cell M = {low['memory']} ({low['variant']}): the optimum "
                         f"is non-increasing in M and one-shot's is at least recompute's")


def _named_certificate(name, stated_digest: str, log: _Log) -> dict:
    """A certificate another one names: a plain file name in the same folder, not one being
    re-checked already (a cycle), whose digest is the one stated."""
    if log.folder is None:
        raise NotRechecked(f"the certificate names {name!r}, and no folder was given to find "
                           f"it in: re-check the file, not the document")
    _require(isinstance(name, str) and name == Path(name).name and name not in ("", ".", ".."),
             f"certificate name {name!r} must be a file name in the same folder")
    _require(name not in log.seen, f"the certificate {name!r} names itself (a cycle)")
    named = read(log.folder / name, f"certificate {name!r}")
    _same(f"digest of {name}", named["digest"], stated_digest)
    return named


CHECKERS = {
    "io-curve": check_io_curve,
    "exact-search": check_exact_search,
    "partition": check_partition,
    "kernel": check_kernel,
    "symbolic": check_symbolic,
    "confront": check_confront,
}
