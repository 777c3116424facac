"""Certificates: versioned, self-describing JSON, one per checked obligation.

This module is the format: the errors a re-check ends in, the seal (format, version, digest),
the reader (structure validated against the shipped JSON Schema before anything reads the
content) and the table of what a verdict relies on.  Re-checking is ``ioverify.certificate.recheck``, which
imports this module and never the reverse.

A certificate says what was claimed, on which instance (the DAG itself is embedded), what the
verdict is, the witness (a schedule or a partition), what the verdict relies on and the tool
versions.  The SHA-256 digest over the canonical body catches accidental edits; deliberate ones
(an edit resealed with a fresh digest) are caught by the re-check, which re-derives the content
from the instance instead of reading it back.

This module never imports Z3.
"""

from __future__ import annotations

import hashlib
import json
import platform
from importlib import metadata
from pathlib import Path

from ioverify.errors import (EXIT_UNKNOWN, IOVerifyError, InternalError,
                             InvalidFormat)
from ioverify._io import check_header, load_json_document
from ioverify.schemas import validate as against_schema

FORMAT = "ioverify-certificate"
VERSION = 3  # 2: verified kernels and formulas carry their own fields, not a bound;
#               3: the evidence kinds clausal-proof (a CNF and its LRAT proof beside the file)
#                  and search-certificate (closed configurations beside the file); a reader
#                  that predates a kind refuses it by the schema, never misreads it
READABLE = (2, 3)  # version 2 certificates have no clausal proofs and re-check unchanged

MAX_DEPTH = 64  # nesting levels a certificate may have (the shipped ones use at most 6)


class NotRechecked(IOVerifyError):
    """A certificate could not be re-checked here (e.g. its fact needs Z3, which is missing):
    nothing is accepted, nothing is rejected."""

    exit_code = EXIT_UNKNOWN


def tool_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for dist in ("ioverify", "z3-solver", "sympy", "numpy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    return versions


def digest(body: dict) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def seal(body: dict) -> dict:
    """Add format, version and digest to a certificate body.  The result must have the
    certificate schema's structure, checked whole (0.1 s for a certificate of 43,440 vertices
    and 163,725 moves: ``ioverify.schemas`` checks long arrays item by item): a body that does
    not is a bug in the writer (InternalError), never a certificate."""
    doc = {"format": FORMAT, "version": VERSION, **body}
    doc["digest"] = digest({k: v for k, v in doc.items() if k != "digest"})
    try:
        validate(doc, "certificate being written")
    except InvalidFormat as error:
        raise InternalError(str(error)) from None
    return doc


def validate(doc: object, what: str = "certificate") -> dict:
    """Check the structure of a certificate document (nesting depth, then the JSON Schema
    ``ioverify/schemas/certificate.schema.json``); InvalidFormat names the offending field."""
    if _deeper_than(doc, MAX_DEPTH):
        raise InvalidFormat(f"{what} is nested more than {MAX_DEPTH} levels deep")
    against_schema(doc, FORMAT, what)
    return doc


def read(path: str | Path, what: str | None = None) -> dict:
    """Load and validate a certificate file; every way it can be unreadable or malformed is an
    InvalidFormat with one line naming the file (or ``what``)."""
    path = Path(path)
    what = what or f"certificate {str(path)!r}"
    try:
        text = path.read_text()
    except OSError as error:
        raise InvalidFormat(f"cannot read {what}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidFormat(f"{what} is not UTF-8 text") from None
    doc = load_json_document(text, what)
    _check_header(doc, what)
    return validate(doc, what)


def _check_header(doc: object, what: str) -> None:
    """Format and version first, so a file of another format or version says so plainly."""
    version = doc.get("version") if isinstance(doc, dict) else None
    readable = type(version) is int and version in READABLE
    check_header(doc, FORMAT, version if readable else VERSION, what)


def _deeper_than(doc: object, limit: int) -> bool:
    """Whether ``doc`` nests more than ``limit`` levels (iterative: no recursion to exhaust).
    ``level`` holds the arrays and objects ``depth`` levels down (``doc`` itself is level 1),
    one level at a time: a certificate's half a million strings are looked at once each, never
    stacked (0.05 s instead of 0.3 s for 43,440 vertices)."""
    level = [doc] if isinstance(doc, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [item for value in level
                 for item in (value.values() if isinstance(value, dict) else value)
                 if isinstance(item, (dict, list))]
    return False


# --- what a verdict relies on -------------------------------------------------------------------

# What a verdict relies on beyond the replayed witness, by evidence kind (written into every
# certificate under ``relies_on``; the re-check computes it again from the evidence and rejects a
# certificate that states anything else).
RELIES_ON = {
    "one-shot-exact-horizon": "the SAT back end (Glucose through PySAT on Z3's CNF of the "
                              "encoding, or Z3 alone) answered unsat for every one-shot schedule "
                              "under the claimed I/O at the exact one-shot horizon",
    "proved-horizon": "the demand-count lemma (ioverify.game.lemmas.compute_demands) bounding the "
                      "computes, and the SAT back end's unsat answer within that horizon",
    "partition-lemma": "Z3 answered unsat for every 2M-partition with fewer parts "
                       "(Hong-Kung Lemma 3.1 turns the part count into the bound)",
    "symbolic-proof": "the SymPy or Z3 arithmetic proof of the fact",
    "search-certificate": "the normal form of the exhaustive search (N1-N16 of "
                          "ioverify.game.exhaustive, a proof on paper restated in "
                          "docs/explanation/proofs.md): some optimal schedule is a sequence of "
                          "the blocks the checker enumerates",
    "carried": "the monotonicity of the optimum in M and in the variant (docs/theory.md), and "
               "the certificate the bound was carried from, re-checked with this one",
}
# A search, a search certificate or a clausal proof in one-shot for a recompute verdict
# (evidence field ``searched``): the lemma that makes the two optima equal, re-derived for the
# DAG by the checker but proved on paper.
SINGLE_USE_RELIES_ON = ("the demand-count lemma (ioverify.game.lemmas.compute_demands): with "
                        "every needed non-input vertex of one use, the recompute and one-shot "
                        "optima are equal")


CONTRACTION_RELIES_ON = ("the chain-contraction lemma (ioverify.game.lemmas.contract_chains): "
                         "the contracted DAG's optimum is at most the DAG's, in either variant")


def relies_on(verdict: dict) -> list[str]:
    """What a verdict (as certificate JSON: ``status`` and ``evidence``) relies on: an optimum,
    a verified bound, or a refutation by a proved bound, and only through its evidence kind."""
    evidence = verdict.get("evidence")
    if not isinstance(evidence, dict) or verdict.get("status") not in ("optimal", "verified",
                                                                        "refuted"):
        return []
    if evidence.get("kind") == "partition-lemma" and not str(
            evidence.get("lower_by", "Z3")).startswith("Z3"):
        return [f"the counting argument for the least number of parts: {evidence['lower_by']}"]
    lemma = [SINGLE_USE_RELIES_ON] if "searched" in evidence else []
    if "contracted" in evidence:
        lemma.append(CONTRACTION_RELIES_ON)
    reason = RELIES_ON.get(evidence.get("kind"))
    return lemma + ([reason] if reason else [])
