"""The certificates of a curve (``ioverify.search.curve``): one exact-search certificate per
cell, named ``<stem>--M<m>-<variant>.json``, and for an ``io-curve`` obligation of a claim the
obligation's own certificate, which names its cells' certificates with their digests.  A cell
settled by a carried lower bound names the certificate it was carried from, with that
certificate's digest, and the re-check (``ioverify.certificate.recheck``) re-checks the source
too.  Sources are written first, so a certificate never names one that is not on disk."""

from __future__ import annotations

import json
from pathlib import Path

from ioverify._io import make_folder, write_text
from ioverify.certificate.format import relies_on, seal, tool_versions
from ioverify.certificate.recheck import obligation_id
from ioverify.dag.jsonio import dag_to_dict
from ioverify.dag.registry import build
from ioverify.search.curve import evidence_lines
from ioverify.verdict import SEVERITY, to_json


def cell_file(stem: str, key: tuple[int, str]) -> str:
    return f"{stem}--M{key[0]}-{key[1]}.json"


def curve_cells(result, dag) -> list[dict]:
    """The cells of a computed curve as records: M, variant, the verdict as JSON (schedule
    included), where its ends came from, seconds (the form ``io-curve`` results carry)."""
    return [{"memory": c.memory, "variant": c.variant, "verdict": to_json(c.verdict, dag),
             "evidence": evidence_lines(result, c), "seconds": round(c.seconds, 3)}
            for c in result.cells.values()]


def write_curve_certificates(result, dag, folder: Path, instance: dict, *,
                             seed: int = 0) -> list[Path]:
    """Every cell's certificate of a computed curve into ``folder``; ``instance``: the spec's
    family and params (``{"family": "dag-file", ...}`` for a DAG read from a file)."""
    stem = _stem(instance)
    written = write_cells(curve_cells(result, dag), dag, folder, instance, stem,
                          _claim(instance, result), seed)
    return [written[key][0] for key in result.cells]


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


def write_cells(cells: list[dict], dag, folder: Path, instance: dict, stem: str, claim: dict,
                seed: int, optima: dict | None = None) -> dict:
    """Write one exact-search certificate per cell record; ``optima``: expected optima
    ``{variant: {"M": q}}`` (put into the cells' specs).  Returns {(M, variant): (path,
    digest)}."""
    make_folder(folder, "certificates")
    by_key = {(c["memory"], c["variant"]): c for c in cells}
    written: dict[tuple[int, str], tuple[Path, str]] = {}
    verdicts: dict[tuple[int, str], dict] = {}

    def write(key):
        if key in written:
            return written[key]
        cell = by_key[key]
        verdict = json.loads(json.dumps(cell["verdict"]))
        evidence = verdict.get("evidence") or {}
        if evidence.get("kind") == "carried":
            path, digest = write((evidence["memory"], evidence["variant"]))
            evidence.update(certificate=path.name, digest=digest)
        spec = {**instance, "memory": key[0], "variant": key[1]}
        expected = (optima or {}).get(key[1], {}).get(str(key[0]))
        detail = {"vertices": len(dag), "claimed_lower_bound": None, "curve": cell["evidence"]}
        if expected is not None:
            spec["optimum"] = expected
            detail["expected_optimum"] = expected
        body = {"claim": claim,
                "obligation": {"id": obligation_id("exact-search", spec), "claim": claim["id"],
                               "kind": "exact-search", "spec": spec, "heavy": False},
                "verdict": verdict, "seconds": cell["seconds"], "seed": seed,
                "detail": detail, "relies_on": [], "tools": tool_versions()}
        schedule = verdict.pop("schedule", None)
        body["witness"] = {} if schedule is None else {"schedule": schedule}
        body["relies_on"] = relies_on(verdict)
        body["instance"] = {"dag": dag_to_dict(dag)}
        doc = seal(body)
        path = folder / cell_file(stem, key)
        write_text(json.dumps(doc, indent=1, allow_nan=False), str(path))
        written[key] = path, doc["digest"]
        verdicts[key] = doc["verdict"]
        return written[key]

    for key in by_key:
        write(key)
    return {key: (*written[key], verdicts[key]) for key in by_key}


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
