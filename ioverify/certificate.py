"""Certificates: versioned, self-describing JSON, one per checked obligation, re-checkable
without Z3.

A certificate says what was claimed, on which instance (the DAG itself is embedded), what the
verdict is, the witness (a schedule or a partition), what the verdict relies on, and the tool
versions.  A SHA-256 digest over the canonical body catches accidental edits; the re-check catches
deliberate ones, because it recomputes everything it can from the embedded data:

    schedules are replayed by the independent replayer and their I/O recounted;
    partitions are re-checked by the partition checker and the bound recomputed;
    kernels are re-run, re-certified and their counts recomputed;
    an exhaustive-search optimum is searched again (pure Python);
    what only a solver can establish (an unsat answer) is listed under ``relies_on``.

This module never imports Z3.
"""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ioverify.errors import IOVerifyError, InvalidFormat

FORMAT = "ioverify-certificate"
VERSION = 1


class CertificateRejected(IOVerifyError):
    """A certificate failed its re-check (tampered, inconsistent or mis-versioned)."""

    exit_code = 1


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
    """Add format, version and digest to a certificate body."""
    doc = {"format": FORMAT, "version": VERSION, **body}
    doc["digest"] = digest({k: v for k, v in doc.items() if k != "digest"})
    return doc


def read(path: str | Path) -> dict:
    from ioverify.dag.jsonio import check_header, load_json_document

    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise InvalidFormat(f"cannot read certificate {str(path)!r}: {error.strerror}") from None
    doc = check_header(load_json_document(text, f"certificate {str(path)!r}"), FORMAT, VERSION,
                       f"certificate {str(path)!r}")
    for key in ("claim", "obligation", "verdict", "digest"):
        if key not in doc:
            raise InvalidFormat(f"certificate {str(path)!r} has no {key!r} field")
    return doc


@dataclass(frozen=True)
class Recheck:
    """What a re-check established: the facts re-derived, and what is taken on trust."""

    status: str
    rechecked: tuple[str, ...]
    relies_on: tuple[str, ...]


def check(doc: dict) -> Recheck:
    """Re-check a certificate; raises CertificateRejected naming the first inconsistency."""
    body = {k: v for k, v in doc.items() if k != "digest"}
    if digest(body) != doc["digest"]:
        raise CertificateRejected("certificate digest does not match its content: it was "
                                  "edited after it was written")
    from ioverify import recheck

    kind = doc["obligation"].get("kind")
    checker = recheck.CHECKERS.get(kind)
    if checker is None:
        raise CertificateRejected(f"certificate has unknown obligation kind {kind!r}")
    rechecked = checker(doc)
    return Recheck(doc["verdict"]["status"], tuple(rechecked), tuple(doc.get("relies_on", ())))
