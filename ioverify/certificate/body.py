"""The body of a certificate, as ``ioverify check`` writes it (verdicts and obligation results as
JSON), and the writing of one sealed certificate per obligation.  The re-checker
(``ioverify.certificate.recheck``) never uses this module: it reads only the sealed document."""

from __future__ import annotations

import glob
import json
from pathlib import Path

from ioverify._io import finite, make_folder, write_text
from ioverify.certificate.format import relies_on as relies_on_json
from ioverify.certificate.curve import io_curve_body
from ioverify.certificate.format import seal, tool_versions
from ioverify.certificate.recheck import DAG_FILE, obligation_id
from ioverify.dag.jsonio import dag_to_dict
from ioverify.dag.registry import build
from ioverify.verdict import Verdict, to_json


def relies_on(verdict: Verdict) -> list[str]:
    """What ``verdict`` relies on beyond its replayed witness (``ioverify.certificate.format.relies_on``,
    the table the re-check computes again)."""
    return relies_on_json(to_json(verdict))


def certificate_body(claim, result, budget) -> dict:
    """The body of the certificate of one obligation result (``ioverify.certificate.format.seal`` adds
    the format, version and digest).  The re-checker (``ioverify.certificate.recheck``) does not use this
    module: it reads only the sealed document."""
    ob, verdict = result.obligation, result.verdict
    dag = _instance_dag(ob)
    body = {
        "claim": {"id": claim.id, "title": claim.title, "statement": claim.statement,
                  "source": claim.source, "firmness": claim.firmness},
        "obligation": {"id": ob.id, **ob.to_json()},
        "verdict": to_json(verdict, dag),
        "seconds": result.seconds,
        "seed": budget.seed,
        "detail": result.detail,
        "relies_on": [],  # filled in below, from the verdict as written
        "tools": tool_versions(),
    }
    schedule = body["verdict"].pop("schedule", None)
    witness = {}
    if schedule is not None:
        witness["schedule"] = schedule
    evidence = body["verdict"].get("evidence") or {}
    if evidence.get("partition"):
        witness["partition"] = evidence["partition"]
    body["witness"] = witness
    body["relies_on"] = relies_on_json(body["verdict"])
    if dag is not None:
        body["instance"] = {"dag": dag_to_dict(dag)}
    return body


def _instance_dag(ob):
    if ob.kind not in ("exact-search", "partition"):
        return None
    return build(ob.spec)


def write_certificates(claim_results, folder: Path, budget) -> list[Path]:
    """One sealed certificate per obligation, named ``<claim id>--<index>.json``, the stale ones
    of the same claims removed first (``CertificateWriter``)."""
    writer = CertificateWriter([cr.claim for cr in claim_results], folder, budget)
    return writer.finish(claim_results)


class CertificateWriter:
    """Writes each obligation's certificate as soon as its result arrives, so that an
    interrupted ``check`` keeps what it finished.  The certificates an earlier run left for the
    same claims are removed when the writer is made: the folder never mixes runs."""

    def __init__(self, claims, folder: Path, budget):
        self.folder, self.budget = folder, budget
        self.written: dict[tuple[str, int], Path] = {}
        self.slots: dict[str, list] = {}  # obligation (as JSON) -> its (claim, index) places
        make_folder(folder, "certificates")
        for claim in claims:
            for stale in folder.glob(f"{glob.escape(claim.id)}--*.json"):
                stale.unlink()
            for i, ob in enumerate(claim.obligations):
                self.slots.setdefault(_key(ob), []).append((claim, i))

    def __call__(self, result) -> Path | None:
        """Write the certificate of one result (the first place of its obligation not yet
        written); None if the obligation is not one of the writer's claims."""
        for claim, i in self.slots.get(_key(result.obligation), ()):
            if (claim.id, i) not in self.written:
                return self._write(claim, i, result)
        return None

    def finish(self, claim_results) -> list[Path]:
        """Write whatever has not been written yet; every certificate's path, in claim order."""
        for cr in claim_results:
            for i, result in enumerate(cr.results):
                if (cr.claim.id, i) not in self.written:
                    self._write(cr.claim, i, result)
        return [self.written[cr.claim.id, i] for cr in claim_results
                for i in range(len(cr.results))]

    def _write(self, claim, i: int, result) -> Path:
        path = self.folder / f"{claim.id}--{i:03d}.json"
        if result.obligation.kind == "io-curve":  # its cells' certificates first
            body = io_curve_body(claim, result, self.budget, self.folder, path.stem)
        else:
            body = certificate_body(claim, result, self.budget)
        write_text(json.dumps(seal(finite(body)), indent=1, allow_nan=False), str(path))
        self.written[claim.id, i] = path
        return path


def _key(obligation) -> str:
    return json.dumps(obligation.to_json(), sort_keys=True)


# --- the certificate of ``ioverify pebble --proof`` -------------------------------------------------



def pebble_certificate(dag, file_name: str, memory: int, verdict: Verdict, seconds: float,
                       claim: int | None) -> dict:
    """The sealed certificate of a ``pebble --proof`` verdict (its variant is the verdict's)
    whose evidence is a clausal proof or a search certificate: the obligation names the DAG
    file and states the claimed lower bound (``claim``, or the bound proved for a bracket); the
    DAG is embedded."""
    variant = verdict.variant
    spec = {"family": DAG_FILE, "params": {"file": file_name}, "memory": memory,
            "variant": variant}
    if claim is not None:
        spec["lower_bound"] = claim
    detail = {"vertices": len(dag), "claimed_lower_bound": claim}
    if claim is not None:
        detail["lower_bound_source"] = "number"
    body = {
        "claim": {"id": "pebble", "title": f"{variant} pebbling of {file_name} with M = {memory}",
                  "statement": f"No {variant} schedule of {file_name} with {memory} red pebbles "
                               f"costs less than the bound the verdict states.",
                  "source": "ioverify pebble --proof", "firmness": "user"},
        "obligation": {"id": obligation_id("exact-search", spec), "claim": "pebble",
                       "kind": "exact-search", "spec": spec, "heavy": False},
        "verdict": to_json(verdict, dag),
        "seconds": seconds,
        "seed": 0,
        "detail": detail,
        "relies_on": relies_on(verdict),
        "tools": tool_versions(),
        "instance": {"dag": dag_to_dict(dag)},
    }
    schedule = body["verdict"].pop("schedule", None)
    body["witness"] = {} if schedule is None else {"schedule": schedule}
    return seal(body)
