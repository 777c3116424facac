"""Re-checking a certificate's content, one function per obligation kind (no Z3 here).

Each checker re-derives what it can from the certificate alone and raises
``CertificateRejected`` naming the first inconsistency; it returns the list of facts re-derived.
"""

from __future__ import annotations

from ioverify.certificate import CertificateRejected


def _dag(doc: dict):
    from ioverify.dag.jsonio import dag_from_dict
    from ioverify.obligations import build_family

    instance = doc.get("instance") or {}
    if "dag" not in instance:
        raise CertificateRejected("certificate embeds no DAG for its instance")
    dag = dag_from_dict(instance["dag"], "certificate instance")
    if dag != build_family(doc["obligation"]["spec"]):
        raise CertificateRejected("embedded DAG differs from the family instance it names")
    return dag


def _replay_witness(doc: dict, dag, memory: int, variant: str) -> int:
    from ioverify.game.replay import replay
    from ioverify.game.rules import schedule_from_dict

    schedule = schedule_from_dict(doc["witness"]["schedule"], dag, "certificate schedule")
    result = replay(dag, schedule, memory, variant)
    if not result.ok:
        raise CertificateRejected(f"witness schedule does not replay: {result.describe()}")
    return result.io


def check_exact_search(doc: dict) -> list[str]:
    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    dag = _dag(doc)
    memory, variant = spec["memory"], spec.get("variant", "recompute")
    done = ["embedded DAG equals the family instance"]
    status = verdict["status"]
    if status in ("optimal", "refuted") and (doc.get("witness") or {}).get("schedule"):
        io = _replay_witness(doc, dag, memory, variant)
        if io != verdict.get("io"):
            raise CertificateRejected(f"witness schedule costs {io}, certificate says "
                                      f"{verdict.get('io')}")
        done.append(f"witness schedule replayed: {io} I/O")
        claim = verdict.get("claim")
        if status == "refuted" and claim is not None and not io < claim:
            raise CertificateRejected(f"refutation witness costs {io}, not below claim {claim}")
    elif status == "refuted" and verdict.get("claim") is not None and \
            verdict.get("io") is not None and verdict["io"] < verdict["claim"]:
        raise CertificateRejected("a refutation by a cheaper schedule must carry the schedule")
    evidence = (verdict.get("evidence") or {}).get("kind")
    if evidence == "exhaustive-search" and status in ("optimal", "verified"):
        done.append(_recheck_exhaustive(dag, memory, variant, verdict))
    return done


def _recheck_exhaustive(dag, memory, variant, verdict) -> str:
    """Re-run the exhaustive search below the certified figure: an optimum (whose witness was
    replayed above) or a verified bound must have nothing cheaper."""
    from ioverify.game.exhaustive import exhaustive_optimum

    if verdict["status"] == "optimal":
        figure, what = verdict.get("io"), "optimum"
    else:
        figure, what = verdict.get("bound"), "verified bound"
    if not isinstance(figure, int):
        raise CertificateRejected(f"exhaustive-search evidence without an integer {what}")
    result = exhaustive_optimum(dag, memory, variant, below=figure)
    if not result.complete:
        raise CertificateRejected(f"exhaustive re-search did not finish: {result.reason}")
    if result.optimum is not None:
        raise CertificateRejected(f"exhaustive re-search finds a schedule of I/O "
                                  f"{result.optimum} below the certified {what} {figure}")
    return f"exhaustive search re-run: nothing below {figure} ({result.states} states)"


def check_partition(doc: dict) -> list[str]:
    from ioverify.partition import check_partition as check
    from ioverify.partition import core_dag

    spec, verdict = doc["obligation"]["spec"], doc["verdict"]
    dag = core_dag(_dag(doc))  # the lemma is applied to the vertices with an output downstream
    memory = spec["memory"]
    done = ["embedded DAG equals the family instance"]
    parts = (doc.get("witness") or {}).get("partition")
    if parts:
        index = dag.index
        try:
            vertex_parts = [[index[name] for name in part] for part in parts]
        except KeyError as error:
            raise CertificateRejected(f"witness partition names unknown node {error}") from None
        result = check(dag, 2 * memory, vertex_parts)
        if not result.ok:
            raise CertificateRejected(f"witness partition is not a {2 * memory}-partition: "
                                      f"{result.message}")
        done.append(f"witness {2 * memory}-partition re-checked: {len(parts)} parts")
    bound = verdict.get("bound")
    lower_parts = (verdict.get("evidence") or {}).get("parts_lower")
    if bound is not None and lower_parts is not None and bound != memory * (lower_parts - 1):
        raise CertificateRejected(f"bound {bound} is not M (P - 1) = {memory} * "
                                  f"({lower_parts} - 1)")
    return done


def check_kernel(doc: dict) -> list[str]:
    from kernels import run_kernel

    spec, detail = doc["obligation"]["spec"], doc.get("detail", {})
    report = run_kernel(spec["kernel"], memory=spec["memory"], seed=doc.get("seed", 0),
                        literal_blocks=spec.get("literal_blocks", False), **spec["params"])
    for key in ("io", "loads", "stores", "peak", "formula", "certified"):
        if key in detail and detail[key] != getattr(report, key):
            raise CertificateRejected(f"kernel re-run gives {key} = {getattr(report, key)}, "
                                      f"certificate says {detail[key]}")
    expected = spec.get("expect_certified", True)
    status = doc["verdict"]["status"]
    if (status == "verified") != (report.certified == expected and
                                  (not expected or report.io == report.formula)):
        raise CertificateRejected(f"kernel re-run does not support status {status!r}")
    return [f"kernel re-traced and re-certified: io {report.io}, certified {report.certified}"]


def check_symbolic(doc: dict) -> list[str]:
    return []  # the proof is SymPy/Z3 work; recorded under relies_on


CHECKERS = {
    "exact-search": check_exact_search,
    "partition": check_partition,
    "kernel": check_kernel,
    "symbolic": check_symbolic,
}
