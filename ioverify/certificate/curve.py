"""The certificates of a curve (``ioverify.search.curve``): one exact-search certificate per
cell, named ``<stem>--M<m>-<variant>.json``.  A cell settled by a carried lower bound names the
certificate it was carried from, with that certificate's digest, and the re-check
(``ioverify.certificate.recheck``) re-checks the source too.  Sources are written first, so a
certificate never names one that is not on disk."""

from __future__ import annotations

import json
from pathlib import Path

from ioverify._io import write_text
from ioverify.certificate.format import relies_on, seal, tool_versions
from ioverify.certificate.recheck import obligation_id
from ioverify.dag.jsonio import dag_to_dict
from ioverify.search.curve import evidence_lines
from ioverify.verdict import to_json


def cell_file(stem: str, key: tuple[int, str]) -> str:
    return f"{stem}--M{key[0]}-{key[1]}.json"


def write_curve_certificates(result, dag, folder: Path, instance: dict, *, seed: int = 0,
                             claim: dict | None = None, stem: str | None = None) -> list[Path]:
    """Write every cell's certificate into ``folder``; ``instance``: the spec's family and
    params (``{"family": "dag-file", ...}`` for a DAG read from a file)."""
    stem = stem or _stem(instance)
    claim = claim or _claim(instance, result)
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[tuple[int, str], tuple[Path, str]] = {}

    def write(key):
        if key in written:
            return written[key]
        cell = result.cells[key]
        verdict = to_json(cell.verdict, dag)
        evidence = verdict.get("evidence") or {}
        if evidence.get("kind") == "carried":
            source = (evidence["memory"], evidence["variant"])
            path, digest = write(source)
            evidence.update(certificate=path.name, digest=digest)
        spec = {**instance, "memory": cell.memory, "variant": cell.variant}
        body = {"claim": claim,
                "obligation": {"id": obligation_id("exact-search", spec), "claim": claim["id"],
                               "kind": "exact-search", "spec": spec, "heavy": False},
                "verdict": verdict, "seconds": round(cell.seconds, 3), "seed": seed,
                "detail": {"vertices": len(dag), "claimed_lower_bound": None,
                           "curve": evidence_lines(result, cell)},
                "relies_on": [], "tools": tool_versions()}
        schedule = verdict.pop("schedule", None)
        body["witness"] = {} if schedule is None else {"schedule": schedule}
        body["relies_on"] = relies_on(verdict)
        body["instance"] = {"dag": dag_to_dict(dag)}
        doc = seal(body)
        path = folder / cell_file(stem, key)
        write_text(json.dumps(doc, indent=1), str(path))
        written[key] = path, doc["digest"]
        return written[key]

    return [write(key)[0] for key in result.cells]


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
