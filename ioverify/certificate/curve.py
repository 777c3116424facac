"""The certificates of a curve (``ioverify.search.curve``): one exact-search certificate per
cell, named ``<stem>--M<m>-<variant>.json``, and for an ``io-curve`` obligation of a claim the
obligation's own certificate, which names its cells' certificates with their digests.  A cell
settled by a carried lower bound names the certificate it was carried from, with that
certificate's digest, and the re-check (``ioverify.certificate.recheck``) re-checks the source
too.  Sources are written first, so a certificate never names one that is not on disk.

Under a deadline (``write_curve_certificates_within``) a certificate is started only if the
rate measured on those written so far says it ends in time, and one that passes the deadline
all the same is abandoned between its steps, its temporary file removed: no certificate is
half-written, and every cell not written is named with the reason."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from ioverify._io import make_folder, write_atomically
from ioverify.certificate.format import relies_on, seal, tool_versions
from ioverify.certificate.recheck import obligation_id
from ioverify.dag.jsonio import dag_to_dict
from ioverify.dag.registry import build
from ioverify.errors import DeadlineReached
from ioverify.search.curve import evidence_lines
from ioverify.verdict import SEVERITY, to_json


def cell_file(stem: str, key: tuple[int, str]) -> str:
    return f"{stem}--M{key[0]}-{key[1]}.json"


def write_curve_certificates(result, dag, folder: Path, instance: dict, *,
                             seed: int = 0) -> list[Path]:
    """Every cell's certificate of a computed curve into ``folder``; ``instance``: the spec's
    family and params (``{"family": "dag-file", ...}`` for a DAG read from a file)."""
    written = write_curve_certificates_within(result, dag, folder, instance, seed=seed)
    return [written.paths[key] for key in result.cells]


def write_curve_certificates_within(result, dag, folder: Path, instance: dict, *,
                                    seed: int = 0, deadline: float | None = None,
                                    seconds_per_unit: float | None = None,
                                    named: dict | None = None) -> "Written":
    """The cells' certificates of a computed curve (records as ``io-curve`` results carry them:
    M, variant, the verdict as JSON, where its ends came from, seconds), each one only if it
    can be finished by ``deadline`` (a ``time.monotonic()`` value; None: all of them); ``seconds_per_unit``: the
    expected cost of a vertex, an edge or a move before any is measured.  A cell's verdict is
    named (its schedule's moves) only when its certificate is started, unless ``named`` has it
    already: {(M, variant): ``to_json(verdict, dag)``} (the command's JSON records)."""
    named = named or {}
    cells = [{"memory": c.memory, "variant": c.variant,
              "verdict": named.get(c.key) or (lambda cell=c: to_json(cell.verdict, dag)),
              "evidence": evidence_lines(result, c), "seconds": round(c.seconds, 3),
              "moves": _moves(c.verdict), "source": _source(c.verdict)}
             for c in result.cells.values()]
    return _write_cells(cells, dag, folder, instance, _stem(instance), _claim(instance, result),
                        seed, None, _Budget(deadline, seconds_per_unit))


def io_curve_body(claim, result, budget, folder: Path, stem: str) -> dict:
    """The body of an ``io-curve`` obligation's certificate, its cells' certificates written
    first into ``folder`` (``<stem>--M<m>-<variant>.json``): the verdict is the worst cell's as
    its certificate states it (the first of the most severe, cells in (M, variant) order, as
    ``ioverify.verdict.merge`` picks it), and the detail names every cell's certificate."""
    ob = result.obligation
    spec = ob.spec
    instance = {"family": spec["family"], "params": spec["params"]}
    claim_json = {"id": claim.id, "title": claim.title, "statement": claim.statement,
                  "source": claim.source, "firmness": claim.firmness}
    dag = build(instance)
    written = write_cells(result.detail["cells"], dag, folder, instance, stem, claim_json,
                          budget.seed, spec.get("optima"))
    worst = None
    for key, (_, _, verdict) in written.items():
        if worst is None or SEVERITY[verdict["status"]] > SEVERITY[worst["status"]]:
            worst = verdict
    return {"claim": claim_json, "obligation": {"id": ob.id, **ob.to_json()},
            "verdict": worst, "seconds": result.seconds, "seed": budget.seed,
            "detail": io_curve_detail(result.detail, written), "relies_on": relies_on(worst),
            "tools": tool_versions(), "witness": {}}


def _moves(verdict) -> int:
    schedule = getattr(verdict, "schedule", None)
    return 0 if schedule is None else len(schedule)


def _source(verdict) -> tuple[int, str] | None:
    """The cell a carried verdict's lower bound comes from (its evidence), None if not carried."""
    evidence = getattr(verdict, "evidence", None)
    if evidence is None or evidence.kind != "carried":
        return None
    return evidence.detail["memory"], evidence.detail["variant"]


def write_cells(cells: list[dict], dag, folder: Path, instance: dict, stem: str, claim: dict,
                seed: int, optima: dict | None = None) -> dict:
    """Write one exact-search certificate per cell record; ``optima``: expected optima
    ``{variant: {"M": q}}`` (put into the cells' specs).  Returns {(M, variant): (path,
    digest, verdict)}."""
    written = _write_cells(cells, dag, folder, instance, stem, claim, seed, optima, _Budget())
    return {key: (written.paths[key], *written.sealed[key]) for key in written.paths}


@dataclass
class Written:
    """The certificates of a curve's cells: ``paths`` of those written, in cell order; for
    each one not written, the reason (``missing``)."""

    paths: dict = field(default_factory=dict)
    missing: dict = field(default_factory=dict)
    sealed: dict = field(default_factory=dict)  # (digest, verdict) of each written


@dataclass
class _Budget:
    """The deadline certificates are written by, and the rate of writing them (seconds per
    unit: a vertex, an edge or a move), measured on those written, ``prior`` before."""

    deadline: float | None = None
    prior: float | None = None
    seconds: float = 0.0
    units: int = 0

    def rate(self) -> float | None:
        return self.seconds / self.units if self.units else self.prior

    def fits(self, units: int) -> bool:
        """Whether a certificate of ``units`` ends by the deadline at the rate so far."""
        if self.deadline is None:
            return True
        left = self.deadline - time.monotonic()
        return left > 0 and (self.rate() is None or self.rate() * units <= left)

    def check(self) -> None:
        """DeadlineReached once the deadline has passed (between a certificate's steps)."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise DeadlineReached("--timeout reached while it was being written")


TIMEOUT_BEFORE = "--timeout reached before it was started"


def _write_cells(cells: list[dict], dag, folder: Path, instance: dict, stem: str, claim: dict,
                 seed: int, optima: dict | None, budget: _Budget) -> Written:
    """The certificates of the cell records, sources before the cells carried from them, each
    within ``budget``: one that would not end in time is not started, one that passes the
    deadline is abandoned (nothing of it left on disk), and a cell carried from a certificate
    not written is not written either (it would name a file that is not there)."""
    make_folder(folder, "certificates")
    by_key = {(c["memory"], c["variant"]): c for c in cells}
    out = Written()
    size = len(dag) + dag.num_edges  # its vertices and edges
    dags: list[dict] = []  # the DAG as JSON, the same in every certificate: built once

    def dag_dict() -> dict:
        if not dags:
            dags.append(dag_to_dict(dag))
        return dags[0]

    def write(key) -> bool:
        if key in out.paths or key in out.missing:
            return key in out.paths
        cell = by_key[key]
        source = _carried_from(cell)
        if source is not None and not write(source):
            out.missing[key] = (f"carried from M = {source[0]} ({source[1]}), whose "
                                f"certificate was not written")
            return False
        units = size + cell.get("moves", 0)
        if not budget.fits(units):
            out.missing[key] = TIMEOUT_BEFORE
            return False
        started = time.monotonic()
        try:
            path, digest, verdict = _write_cell(key, cell, dag_dict(), len(dag), folder,
                                                instance, stem, claim, seed, optima, out, budget)
        except DeadlineReached as stop:
            out.missing[key] = str(stop)
            return False
        budget.seconds += time.monotonic() - started
        budget.units += units
        out.paths[key], out.sealed[key] = path, (digest, verdict)
        return True

    for key in by_key:
        write(key)
    out.paths = {key: out.paths[key] for key in by_key if key in out.paths}
    return out


def _carried_from(cell: dict) -> tuple[int, str] | None:
    """The cell whose certificate a carried verdict names, None if it is not carried (a
    record whose verdict is not named yet says it: ``source``)."""
    if "source" in cell:
        return cell["source"]
    evidence = cell["verdict"].get("evidence") or {}
    if evidence.get("kind") != "carried":
        return None
    return evidence["memory"], evidence["variant"]


def _write_cell(key, cell, dag_dict, vertices, folder, instance, stem, claim, seed, optima,
                out, budget):
    """One cell's certificate, sealed and written atomically, its source's name and digest
    put into a carried verdict; DeadlineReached between the steps leaves nothing on disk."""
    budget.check()
    # The verdict is copied through JSON (tuples to arrays, the caller's record untouched); the
    # schedule, arrays of strings already, is not copied (0.2 s of 180,000 moves).
    verdict = cell["verdict"]
    record = dict(verdict() if callable(verdict) else verdict)  # named only now
    schedule = record.pop("schedule", None)
    verdict = json.loads(json.dumps(record))
    evidence = verdict.get("evidence") or {}
    if evidence.get("kind") == "carried":
        source = (evidence["memory"], evidence["variant"])
        evidence.update(certificate=out.paths[source].name, digest=out.sealed[source][0])
    spec = {**instance, "memory": key[0], "variant": key[1]}
    expected = (optima or {}).get(key[1], {}).get(str(key[0]))
    detail = {"vertices": vertices, "claimed_lower_bound": None, "curve": cell["evidence"]}
    if expected is not None:
        spec["optimum"] = expected
        detail["expected_optimum"] = expected
    body = {"claim": claim,
            "obligation": {"id": obligation_id("exact-search", spec), "claim": claim["id"],
                           "kind": "exact-search", "spec": spec, "heavy": False},
            "verdict": verdict, "seconds": cell["seconds"], "seed": seed,
            "detail": detail, "relies_on": relies_on(verdict), "tools": tool_versions(),
            "witness": {} if schedule is None else {"schedule": schedule},
            "instance": {"dag": dag_dict}}
    budget.check()
    doc = seal(body)
    budget.check()
    path = folder / cell_file(stem, key)
    write_atomically(str(path), _json_writer(doc, budget), "w")
    return path, doc["digest"], doc["verdict"]


CHUNKS = 1 << 16  # pieces of the encoder's output written at once, the deadline checked between


def _json_writer(doc: dict, budget: _Budget):
    """Write ``doc`` as ``json.dumps(doc, indent=1)`` would, in batches of CHUNKS pieces, the
    deadline checked between them (a certificate of 180,000 moves is 14 MB, 0.6 s to encode)."""
    def write(handle) -> None:
        pieces = json.JSONEncoder(indent=1, allow_nan=False).iterencode(doc)
        while batch := list(islice(pieces, CHUNKS)):
            budget.check()
            handle.write("".join(batch))
        handle.write("\n")

    return write


def io_curve_detail(detail: dict, written: dict) -> dict:
    """The detail of an ``io-curve`` obligation's own certificate: each cell's status and ends
    and the certificate that holds it (name and digest), the schedules left to the cells."""
    cells = []
    for cell in detail["cells"]:
        verdict = cell["verdict"]
        path, digest, _ = written[cell["memory"], cell["variant"]]
        cells.append({"memory": cell["memory"], "variant": cell["variant"],
                      "status": verdict["status"], "lower_bound": cell_lower(verdict),
                      "upper_bound": cell_upper(verdict), "evidence": cell["evidence"],
                      "certificate": path.name, "digest": digest})
    return {**{k: v for k, v in detail.items() if k != "cells"}, "cells": cells}


def cell_lower(verdict: dict):
    if verdict["status"] == "optimal":
        return verdict["io"]
    return verdict.get("lower_bound")


def cell_upper(verdict: dict):
    """An optimum's io; a refutation's io only when it states the optimum (a schedule attains
    it, or no evidence: a search settled it), not when it shows "at least io" alone."""
    if verdict["status"] == "optimal":
        return verdict.get("io")
    if verdict["status"] == "refuted":
        settled = verdict.get("schedule") is not None or verdict.get("evidence") is None
        return verdict.get("io") if settled else None
    return verdict.get("upper_bound")


def _stem(instance: dict) -> str:
    if instance["family"] == "dag-file":
        return Path(instance["params"]["file"]).stem
    params = "-".join(f"{k}{v}" for k, v in instance["params"].items())
    return f"{instance['family']}-{params}"


def _claim(instance: dict, result) -> dict:
    memories = sorted({k[0] for k in result.cells})
    variants = sorted({k[1] for k in result.cells})
    return {"id": f"curve-{_stem(instance)}", "title": f"I/O curve of {_stem(instance)}",
            "statement": f"the optimum, or the proved bracket, at every M = {memories[0]}.."
                         f"{memories[-1]} ({', '.join(variants)})",
            "source": "ioverify pebble --memory LO..HI", "firmness": "user"}
