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

Either route first proves the bound on the DAG with its chains contracted
(``contract_chains``: its optimum is at most the DAG's, so a proof there is one here), where
that removes a vertex, as the search does (in recompute, with the inputs as roots first); the
evidence then names the lemma (``contracted``) and the certificate check contracts the DAG
again before it checks the proof.  Where the contracted optimum lies below the bound (the
contraction is a relaxation), the proof is made on the next one, or the DAG itself.
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
from ioverify.game.lemmas import SINGLE_USE, contractions, single_use_lemma
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
                       timeout: float | None = None, contract: bool = True) -> dict:
    """Prove again, by the exhaustive search with its own heuristic, that no ``variant``
    schedule costs less than ``lower``, and write its closed configurations to ``folder``
    (``CLOSED_FILE``, the format of ``ioverify.certificate.closed``); the evidence detail
    (without its kind) is returned.  On the contracted DAG first (``contract``, module
    docstring).  ``DeadlineReached`` if ``timeout`` seconds pass first."""
    if lower < 1:
        raise InvalidArgument(f"a search certificate needs a lower bound of at least 1, got "
                              f"{lower}")
    deadline = None if timeout is None else time.monotonic() + timeout
    searched = proved_in(dag, variant)
    for graph, fields in _graphs(dag, contract, searched):
        result = engine.search().exhaustive_optimum(graph, memory, searched, below=lower,
                                                    deadline=deadline, keep_closed=True)
        if not result.complete:
            raise DeadlineReached(f"the exhaustive search for the certificate stopped: "
                                  f"{result.reason}")
        if result.optimum is None:
            break
        if not fields:
            raise InternalError(f"the exhaustive search finds a {searched} schedule of I/O "
                                f"{result.optimum}, below the proved {lower}: a bug")
    text = closed_text(graph, searched, result.closed or {}, result.automorphisms)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_text(text, str(folder / CLOSED_FILE))
    return {"below": lower, "closed": CLOSED_FILE, "closed_sha256": _sha256(text),
            "states": len(result.closed or {}), "automorphisms": len(result.automorphisms),
            **_lemma_fields(variant, searched), **fields}


def _graphs(dag: DAG, contract: bool, variant: str):
    """The DAGs to prove a ``variant`` bound on, in turn, each with its evidence fields: the
    contracted ones the search tries (``lemmas.contractions``) if ``contract``, then the DAG
    itself.  A proof on a contracted DAG stands for the DAG; where none exists there (its
    optimum is lower), the next one is tried."""
    if contract:
        for graph, lemma in contractions(dag, variant == "recompute"):
            yield graph, {"contracted": lemma}
    yield dag, {}


def closed_text(dag: DAG, variant: str, closed: dict[int, int], automorphisms) -> str:
    """The search certificate's text: header, automorphisms, configurations by key."""
    lines = [f"c ioverify search certificate: {len(closed)} closed {variant} configurations",
             f"p closed {len(dag)} 4"]
    lines += ["a " + " ".join(map(str, perm)) for perm in automorphisms]
    lines += [f"s {key:x} {g}" for key, g in sorted(closed.items())]
    return "\n".join(lines) + "\n"


def clausal_proof(dag: DAG, memory: int, lower: int, folder: str | Path,
                  timeout: float | None = None, variant: str = "one-shot",
                  contract: bool = True) -> dict:
    """Refute every one-shot schedule of I/O < ``lower``, for a ``variant`` bound (recompute
    only under the single-use lemma); on the contracted DAG first (``contract``, module
    docstring).  The files go to ``folder`` and the evidence detail (without its kind) is
    returned.  ``DeadlineReached`` if ``timeout`` seconds pass first."""
    if proved_in(dag, variant) != "one-shot":
        raise InvalidArgument(f"a clausal proof refutes one-shot schedules: it proves a "
                              f"{variant} bound only where every needed non-input vertex has "
                              f"one use")
    if lower < 1:
        raise InvalidArgument(f"a clausal proof needs a lower bound of at least 1, got {lower}")
    deadline = None if timeout is None else time.monotonic() + timeout
    for graph, fields in _graphs(dag, contract, "one-shot"):
        names, clauses = one_shot_clauses(graph, memory, lower - 1)
        left = None if deadline is None else max(0.001, deadline - time.monotonic())
        answer, proof = lrat_solver.refute(clauses, left)
        if answer == "unknown":
            raise DeadlineReached(f"the proof-producing solver stopped: {proof}")
        if answer == "unsat":
            break
        if not fields:
            raise InternalError(f"CaDiCaL finds a one-shot schedule of I/O <= {lower - 1}, "
                                f"which the search proved impossible: a bug in an encoding")
    cnf = dimacs(names, clauses)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_text(cnf, str(folder / CNF_FILE))
    write_text(proof, str(folder / PROOF_FILE))
    lemmas = sum(1 for line in proof.splitlines() if line.split()[1:2] != ["d"])
    return {"steps": sum(1 for v in graph.useful if not graph.is_input[v]),
            "unsat_budget": lower - 1, "cnf": CNF_FILE, "cnf_sha256": _sha256(cnf),
            "proof": PROOF_FILE, "proof_sha256": _sha256(proof), "variables": len(names),
            "clauses": len(clauses), "lemmas": lemmas, "backend": BACKEND,
            **_lemma_fields(variant, "one-shot"), **fields}


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
