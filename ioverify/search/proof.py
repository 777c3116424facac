"""Lower bounds with a proof a small checker verifies (docs/explanation/proofs.md).

Two routes.  A SEARCH CERTIFICATE (``search_certificate``, both variants): the exhaustive
search, run below the bound with its own heuristic only, writes its closed configurations with
the cost of the cheapest path to each; ``ioverify.certificate.closed`` checks every block from
each of them without the search's code.

A CLAUSAL PROOF (one-shot only):

``clausal_proof(dag, M, lower, folder)`` asks CaDiCaL (``ioverify.solve.proof``) whether a
one-shot schedule of I/O at most ``lower - 1`` exists, on the CNF of the exact-horizon encoding
(``ioverify.encode.clauses``: the search's own encoding, without symmetry breaking, so that the
checker can re-derive it from the DAG, M and the budget alone).  The answer must be "unsat":
the caller has already proved ``lower`` by its own search, so a model is a bug in ioverify.  The
CNF and its LRAT refutation are written to ``folder`` and described by the evidence returned
(kind ``clausal-proof``); nothing is trusted until ``ioverify certificate check`` has re-encoded
the CNF and checked the proof.

A recompute bound on a DAG where every needed non-input vertex has one use
(``single_use_lemma``: the two optima are equal) is proved in one-shot by either route, whose
configurations and clauses are far fewer; the evidence then says so (``searched``, ``lemma``),
and the certificate check re-derives the lemma from the DAG before it checks the proof.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from ioverify._io import write_text
from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached, InternalError, InvalidArgument
from ioverify.encode.clauses import dimacs, one_shot_clauses
from ioverify.game import engine
from ioverify.game.lemmas import SINGLE_USE, single_use_lemma
from ioverify.solve import proof as lrat_solver

CNF_FILE = "query.cnf"
PROOF_FILE = "query.lrat"
BACKEND = "CaDiCaL 1.9.5 (PySAT Cadical195), LRAT, trimmed"
CLOSED_FILE = "search.closed"


def proved_in(dag: DAG, variant: str) -> str:
    """The variant a proof of a ``variant`` lower bound is written in: one-shot for a recompute
    bound under the single-use lemma (fewer configurations, and an exact horizon), else
    ``variant``."""
    return "one-shot" if variant == "recompute" and single_use_lemma(dag) else variant


def _lemma_fields(variant: str, searched: str) -> dict:
    """The evidence fields that name a proof in another variant and the lemma allowing it."""
    return {} if searched == variant else {"searched": searched, "lemma": SINGLE_USE}


def search_certificate(dag: DAG, memory: int, variant: str, lower: int, folder: str | Path,
                       timeout: float | None = None) -> dict:
    """Prove again, by the exhaustive search with its own heuristic, that no ``variant``
    schedule costs less than ``lower``, and write its closed configurations to ``folder``
    (``CLOSED_FILE``, the format of ``ioverify.certificate.closed``); the evidence detail
    (without its kind) is returned.  ``DeadlineReached`` if ``timeout`` seconds pass first."""
    if lower < 1:
        raise InvalidArgument(f"a search certificate needs a lower bound of at least 1, got "
                              f"{lower}")
    deadline = None if timeout is None else time.monotonic() + timeout
    searched = proved_in(dag, variant)
    result = engine.search().exhaustive_optimum(dag, memory, searched, below=lower,
                                                deadline=deadline, keep_closed=True)
    if result.optimum is not None:
        raise InternalError(f"the exhaustive search finds a {searched} schedule of I/O "
                            f"{result.optimum}, below the proved {lower}: a bug")
    if not result.complete:
        raise DeadlineReached(f"the exhaustive search for the certificate stopped: "
                              f"{result.reason}")
    text = closed_text(dag, searched, result.closed or {}, result.automorphisms)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_text(text, str(folder / CLOSED_FILE))
    return {"below": lower, "closed": CLOSED_FILE, "closed_sha256": _sha256(text),
            "states": len(result.closed or {}), "automorphisms": len(result.automorphisms),
            **_lemma_fields(variant, searched)}


def closed_text(dag: DAG, variant: str, closed: dict[int, int], automorphisms) -> str:
    """The search certificate's text: header, automorphisms, configurations by key."""
    lines = [f"c ioverify search certificate: {len(closed)} closed {variant} configurations",
             f"p closed {len(dag)} 4"]
    lines += ["a " + " ".join(map(str, perm)) for perm in automorphisms]
    lines += [f"s {key:x} {g}" for key, g in sorted(closed.items())]
    return "\n".join(lines) + "\n"


def clausal_proof(dag: DAG, memory: int, lower: int, folder: str | Path,
                  timeout: float | None = None, variant: str = "one-shot") -> dict:
    """Refute every one-shot schedule of I/O < ``lower``, for a ``variant`` bound (recompute
    only under the single-use lemma); the files go to ``folder`` and the evidence detail
    (without its kind) is returned.  ``DeadlineReached`` if ``timeout`` seconds pass first."""
    if proved_in(dag, variant) != "one-shot":
        raise InvalidArgument(f"a clausal proof refutes one-shot schedules: it proves a "
                              f"{variant} bound only where every needed non-input vertex has "
                              f"one use")
    if lower < 1:
        raise InvalidArgument(f"a clausal proof needs a lower bound of at least 1, got {lower}")
    start = time.monotonic()
    names, clauses = one_shot_clauses(dag, memory, lower - 1)
    left = None if timeout is None else max(0.001, timeout - (time.monotonic() - start))
    answer, proof = lrat_solver.refute(clauses, left)
    if answer == "unknown":
        raise DeadlineReached(f"the proof-producing solver stopped: {proof}")
    if answer != "unsat":
        raise InternalError(f"CaDiCaL finds a one-shot schedule of I/O <= {lower - 1}, which "
                            f"the search proved impossible: a bug in an encoding")
    cnf = dimacs(names, clauses)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_text(cnf, str(folder / CNF_FILE))
    write_text(proof, str(folder / PROOF_FILE))
    lemmas = sum(1 for line in proof.splitlines() if line.split()[1:2] != ["d"])
    return {"steps": sum(1 for v in dag.useful if not dag.is_input[v]),
            "unsat_budget": lower - 1, "cnf": CNF_FILE, "cnf_sha256": _sha256(cnf),
            "proof": PROOF_FILE, "proof_sha256": _sha256(proof), "variables": len(names),
            "clauses": len(clauses), "lemmas": lemmas, "backend": BACKEND,
            **_lemma_fields(variant, "one-shot")}


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
