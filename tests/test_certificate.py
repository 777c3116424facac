"""``ioverify certificate check`` re-derives every certificate from its instance (issue 12).

A certificate of each status and each obligation kind re-checks; every field of each kind,
tampered and resealed with a fresh digest, is rejected with a reason naming it; malformed files
are one line and exit 2 without stopping the other files; and the re-check runs with Z3 and PySAT
unimportable for every kind but the Z3-proved symbolic facts, which then come out "not
re-checked" (exit 3).
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ioverify.certificate.format import (CONTRACTION_RELIES_ON, RELIES_ON,
                                         SINGLE_USE_RELIES_ON, seal)
from ioverify.game.lemmas import CHAIN_CONTRACTION, INPUT_CHAIN_CONTRACTION
from ioverify.claims.claim import Claim, confront, exact_search, kernel, partition, symbolic
from ioverify.cli import main
from ioverify.errors import (EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN,
                             InternalError)
from ioverify.certificate.recheck import check_file
from ioverify.certificate.recheck import obligation_id as recheck_obligation_id
from ioverify.dag.jsonio import dag_to_dict
from ioverify.dag.registry import build
from resealing import drop_last_store

ROOT = Path(__file__).resolve().parent.parent
MATMUL = {"m": 2, "k": 2, "n": 2}
TILED = {"m": 4, "k": 4, "n": 4}

# name -> (obligation builder, the status its certificate has); one claim per certificate.
CASES = {
    "optimal": (lambda c: exact_search(c, "pyramid", {"height": 2}, 3), "optimal"),
    "optimal-expected": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3, optimum=11),
                         "optimal"),
    "optimal-one-shot": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3,
                                                variant="one-shot"), "optimal"),
    # recompute, proved by a search in one-shot under the single-use lemma
    "optimal-single-use": (lambda c: exact_search(c, "matmul", MATMUL, 4), "optimal"),
    # recompute, proved by a search on the DAG with its chains (S to exp A) contracted
    "optimal-contracted": (lambda c: exact_search(c, "attention-forward", {"n": 2, "d": 1}, 3),
                           "optimal"),
    # recompute, proved on the DAG contracted with the inputs as roots (each square U of an
    # input joined to it)
    "optimal-input-rooted": (lambda c: exact_search(c, "approximate-attention",
                                                    {"n": 1, "d": 1, "degree": 2}, 3),
                             "optimal"),
    "verified-trivial": (lambda c: exact_search(c, "pyramid", {"height": 2}, 3, lower_bound=4),
                         "verified"),
    "verified-bound-id": (lambda c: exact_search(c, "matmul", MATMUL, 4,
                                                 lower_bound="matmul-trivial"), "verified"),
    "verified-exhaustive": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3,
                                                   lower_bound=11), "verified"),
    "refuted": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3, lower_bound=12),
                "refuted"),
    "refuted-optimum-low": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3, optimum=12),
                            "refuted"),
    "refuted-optimum-high": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3, optimum=10),
                             "refuted"),
    "refuted-beats-claim": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3, optimum=11,
                                                   lower_bound=12), "refuted"),
    "infeasible": (lambda c: exact_search(c, "pyramid", {"height": 2}, 2, lower_bound=3),
                   "infeasible"),
    # a claimed upper end: the optimum is 11
    "attained": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3, at_most=12), "verified"),
    "refuted-upper-end": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3, at_most=10),
                          "refuted"),
    "partition": (lambda c: partition(c, "matmul", MATMUL, 3), "verified"),
    "partition-z3": (lambda c: partition(c, "pyramid", {"height": 6}, 3), "verified"),
    "partition-refuted": (lambda c: partition(c, "matmul", MATMUL, 3, at_most=2), "refuted"),
    "partition-z3-refuted": (lambda c: partition(c, "pyramid", {"height": 6}, 3, at_most=5),
                             "refuted"),
    "partition-infeasible": (lambda c: partition(c, "pyramid", {"height": 2}, 2), "infeasible"),
    "kernel": (lambda c: kernel(c, "matmul-tiled", TILED, 16, lower_bounds=("matmul-trivial",)),
               "verified"),
    "kernel-refuted-upper": (lambda c: kernel(c, "matmul-tiled", TILED, 16,
                                              upper_bounds=("matmul-trivial",)), "refuted"),
    "kernel-refuted-expect": (lambda c: kernel(c, "matmul-tiled", TILED, 16,
                                               expect_certified=False), "refuted"),
    "kernel-fails-as-claimed": (lambda c: kernel(c, "flash-forward-v1", {"n": 8, "d": 4}, 16,
                                                 literal_blocks=True, expect_certified=False),
                                "verified"),
    "symbolic": (lambda c: symbolic(c, "sparse-recovers-dense"), "verified"),
    "confront-supported": (lambda c: confront(c, "matmul-trivial", "matmul-tiled", "square",
                                              [(TILED, 16), (TILED, 32)]), "supported"),
    "confront-refuted": (lambda c: confront(c, "matmul-trivial", "matmul-tiled", "inflated",
                                            [(TILED, 16)], reading={"m": "m*100"}), "refuted"),
    "confront-contradicted": (lambda c: confront(
        c, "sparse-attention", "block-sparse-forward", "permutation",
        [({"n": n, "d": 4, "mask": "permutation"}, 128) for n in (64, 128, 256)], along="n",
        reading={"Z_in": "n*d", "Z_QK": "Z_QK"}), "contradicted"),
    "symbolic-z3": (lambda c: symbolic(c, "backward-v2-is-v1-scaled"), "verified"),
}

# With the exhaustive search capped at one state, the solver proves these (Z3-based evidence),
# and a one-unit work budget leaves the others unknown.
SOLVER_CASES = {
    "solver-one-shot": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3,
                                               variant="one-shot"), "optimal"),
    "solver-single-use": (lambda c: exact_search(c, "binary-tree", {"leaves": 4}, 3), "optimal"),
    "solver-recompute": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3), "optimal"),
    "solver-verified": (lambda c: exact_search(c, "pyramid", {"height": 3}, 3,
                                               variant="one-shot", lower_bound=11), "verified"),
}
UNKNOWN_CASES = {
    "unknown": (lambda c: exact_search(c, "matmul", MATMUL, 4, lower_bound=14), "unknown"),
    "partition-unknown": (lambda c: partition(c, "matmul", MATMUL, 3), "unknown"),
}
NEEDS_Z3 = {"symbolic-z3"}


def _claim(name: str, build) -> Claim:
    return Claim(id=name, title=name, statement="a test claim", source="tests",
                 firmness="user", variant="recompute", obligations=(build(name),))


def _write(cases: dict, folder: Path, budget) -> dict[str, Path]:
    from ioverify.certificate.body import write_certificates
    from ioverify.claims.check import check_claims

    results = check_claims([_claim(name, build) for name, (build, _) in cases.items()], budget)
    write_certificates(results, folder, budget)
    return {name: folder / f"{name}--000.json" for name in cases}


def _bounded(folder: Path) -> Path:
    """A bounded verdict is hard to provoke on a tiny instance: this one is made by hand, the
    way the runner would write it (the search found 11, the bounded encoding nothing cheaper)."""
    from ioverify.claims.run import Budget, ObligationResult
    from ioverify.certificate.body import certificate_body
    from ioverify.verdict import Bounded

    claim = _claim("bounded", lambda c: exact_search(c, "pyramid", {"height": 3}, 3,
                                                     lower_bound=11))
    detail = {"lower_bound_source": "number", "vertices": 10, "claimed_lower_bound": 11,
              "budget": Budget().to_json()}
    result = ObligationResult(claim.obligations[0], Bounded(12, 5, 11), 0.0, detail)
    path = folder / "bounded--000.json"
    path.write_text(json.dumps(seal(certificate_body(claim, result, Budget()))))
    return path


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> dict[str, Path]:
    from ioverify.claims.run import Budget

    folder = tmp_path_factory.mktemp("certificates")
    paths = _write(CASES, folder, Budget(timeout=60))
    paths |= _write(SOLVER_CASES, folder, Budget(timeout=60, max_states=1))
    paths |= _write(UNKNOWN_CASES, folder, Budget(timeout=60, max_states=1, rlimit=1))
    paths["bounded"] = _bounded(folder)
    return paths


STATUS = {name: status for cases in (CASES, SOLVER_CASES, UNKNOWN_CASES)
          for name, (_, status) in cases.items()} | {"bounded": "bounded"}
# Certificates whose least number of partition parts only Z3's unsat gives: not re-checked.
RESTS_ON_Z3 = {"partition-z3", "partition-z3-refuted"}


def _doc(certs, name) -> dict:
    return json.loads(certs[name].read_text())


def _reseal(doc: dict) -> dict:
    """A forger's edit: the content changed and a fresh digest computed over it."""
    return seal({k: v for k, v in doc.items() if k not in ("digest", "format", "version")})


# --- every status and every kind re-checks ------------------------------------------------------

@pytest.mark.parametrize("name", sorted(set(STATUS) - RESTS_ON_Z3))
def test_certificate_of_each_status_and_kind_is_accepted(certs, name):
    doc = _doc(certs, name)
    assert doc["verdict"]["status"] == STATUS[name], doc["verdict"]
    outcome = check_file(certs[name])
    assert (outcome.outcome, outcome.status) == ("accepted", STATUS[name]), outcome.reason
    assert outcome.exit_code == EXIT_OK and outcome.rechecked


def test_the_cases_cover_every_kind_status_and_evidence(certs):
    docs = [_doc(certs, name) for name in STATUS]
    pairs = {(d["obligation"]["kind"], d["verdict"]["status"]) for d in docs}
    assert pairs >= {("exact-search", s) for s in ("optimal", "verified", "refuted", "bounded",
                                                   "unknown", "infeasible")}
    assert pairs >= {("partition", s) for s in ("verified", "refuted", "unknown", "infeasible")}
    assert pairs >= {("kernel", "verified"), ("kernel", "refuted"), ("symbolic", "verified")}
    assert pairs >= {("confront", s) for s in ("supported", "refuted", "contradicted")}
    evidence = {(d["verdict"].get("evidence") or {}).get("kind") for d in docs}
    assert evidence >= {"exhaustive-search", "trivial-bound", "one-shot-exact-horizon",
                        "proved-horizon", "partition-lemma", "kernel-certification",
                        "symbolic-proof"}


def test_solver_answers_are_rederived_or_not_rechecked(certs):
    """Regression: a least number of parts that only Z3's unsat gave was accepted, "relied
    on"; a forger resealing a certificate could state any unsat (it is now not re-checked)."""
    for name in SOLVER_CASES:
        outcome = check_file(certs[name])
        assert any("unsat re-derived by exhaustive search" in f for f in outcome.rechecked)
        assert outcome.relies_on == ()
    for name, status in (("partition-z3", "verified"), ("partition-z3-refuted", "refuted")):
        outcome = check_file(certs[name])
        assert (outcome.outcome, outcome.exit_code) == ("not re-checked", EXIT_UNKNOWN)
        assert outcome.status == status
        assert "rests on Z3's unsat" in outcome.reason and "P(6) >= 3" in outcome.reason


def test_a_solver_unsat_past_the_recheck_cap_is_not_rechecked(certs, monkeypatch):
    from ioverify.certificate import recheck as recheck

    monkeypatch.setattr(recheck, "RECHECK_MAX_STATES", 1)
    outcome = check_file(certs["solver-verified"])
    assert (outcome.outcome, outcome.exit_code) == ("not re-checked", EXIT_UNKNOWN)
    assert "is not re-derived" in outcome.reason and "runs no solver" in outcome.reason


def test_a_resealed_z3_part_count_above_one_part_is_rejected(certs, tmp_path):
    """Regression (found by trying): a pyramid(3) at M = 3, whose whole core is one
    6-partition part, resealed with a 5-part witness and "Z3: no 6-partition with 4 parts" as a
    bound of 12 (its optimum is 11), was accepted as verified."""
    doc = copy.deepcopy(_doc(certs, "partition"))
    doc["obligation"]["spec"].update(family="pyramid", params={"height": 3}, memory=3)
    doc["obligation"]["id"] = recheck_obligation_id("partition", doc["obligation"]["spec"])
    dag = build(doc["obligation"]["spec"])
    doc["instance"]["dag"] = dag_to_dict(dag)
    parts = [["x[0,0]", "x[0,1]", "x[0,2]", "x[0,3]"], ["x[1,0]"], ["x[1,1]", "x[1,2]"],
             ["x[2,0]", "x[2,1]"], ["x[3,0]"]]
    doc["witness"]["partition"] = parts
    doc["detail"]["vertices"] = len(dag)
    doc["verdict"].update(bound=12)
    doc["verdict"]["evidence"].update(S=6, memory=3, parts=5, parts_lower=5, parts_upper=5,
                                      partition=parts, left_out=[],
                                      lower_by="Z3: no 6-partition with 4 parts")
    doc["relies_on"] = [RELIES_ON["partition-lemma"]]
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(_reseal(doc)))
    outcome = check_file(path)
    assert (outcome.outcome, outcome.exit_code) == ("rejected", EXIT_REFUTED), outcome
    assert "the whole core is one 6-partition part, so P(6) = 1" in outcome.reason


def test_a_recompute_optimum_searched_in_one_shot_names_and_rederives_the_lemma(certs):
    """matmul is single-use: its recompute optimum is proved by the one-shot search, and the
    re-check re-derives the lemma before it re-runs that search."""
    doc = _doc(certs, "optimal-single-use")
    assert doc["verdict"]["variant"] == "recompute"
    assert doc["verdict"]["evidence"]["searched"] == "one-shot"
    outcome = check_file(certs["optimal-single-use"])
    assert outcome.outcome == "accepted" and outcome.relies_on == (SINGLE_USE_RELIES_ON,)
    assert any("single-use lemma re-derived" in line for line in outcome.rechecked)
    assert any("no one-shot schedule with I/O <" in line for line in outcome.rechecked)


@pytest.mark.parametrize("name, optimum, lemma, rechecked", [
    # attention_forward(2,1) at M = 3: each S joined to its exp A
    ("optimal-contracted", 24, CHAIN_CONTRACTION, "chains contracted again: 20 vertices, not 24"),
    # approximate_attention(1,1,2) at M = 3: each square U joined to its input
    ("optimal-input-rooted", 15, INPUT_CHAIN_CONTRACTION,
     "chains contracted again (inputs as roots): 13 vertices, not 16"),
])
def test_a_recompute_optimum_searched_on_the_contracted_dag_contracts_it_again(
        certs, name, optimum, lemma, rechecked):
    """The optimum is proved on the contracted DAG, and the re-check contracts the DAG again,
    the way the lemma's text says, before it re-runs that search."""
    doc = _doc(certs, name)
    assert doc["verdict"]["io"] == optimum
    assert doc["verdict"]["evidence"]["contracted"] == lemma
    outcome = check_file(certs[name])
    assert outcome.outcome == "accepted" and CONTRACTION_RELIES_ON in outcome.relies_on
    assert any(rechecked in line for line in outcome.rechecked)


def test_partition_refutation_by_a_solver_bound_carries_its_evidence(certs):
    """Regression: a refutation of at_most whose bound only Z3 proved kept no evidence; it
    now carries the partition evidence (which, resting on Z3's unsat, is not re-checked)."""
    doc = _doc(certs, "partition-z3-refuted")
    evidence = doc["verdict"]["evidence"]
    assert evidence["kind"] == "partition-lemma" and evidence["parts_lower"] == 3
    assert doc["verdict"]["reason"].startswith("the proved partition bound 6 exceeds")
    assert check_file(certs["partition-z3-refuted"]).outcome == "not re-checked"


def test_genuine_kernel_refutation_is_accepted_as_refuted(certs, capsys):
    """Regression: I/O above a claimed upper bound is a true refutation; it used to be rejected
    as unsupported."""
    doc = _doc(certs, "kernel-refuted-upper")
    assert doc["verdict"]["reason"] == "traced I/O 64 exceeds upper bound matmul-trivial = 48"
    assert main(["certificate", "check", str(certs["kernel-refuted-upper"])]) == EXIT_OK
    out = capsys.readouterr().out
    assert "accepted (refuted)" in out and "exceeds upper bound matmul-trivial" in out


def test_all_accepted_certificates_together_exit_0(certs, capsys):
    accepted = [str(path) for name, path in certs.items() if name not in RESTS_ON_Z3]
    assert main(["certificate", "check", *accepted]) == EXIT_OK
    assert capsys.readouterr().out.count(": accepted (") == len(accepted)
    assert main(["certificate", "check", *map(str, certs.values())]) == EXIT_UNKNOWN


# --- tampering ------------------------------------------------------------------------------------

def _set(path: str, value):
    """A tamper setting the field at ``path`` (dots; list indices as numbers)."""
    def edit(doc):
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        target = doc
        for p in parents:
            target = target[p]
        target[last] = value(target[last]) if callable(value) else value
    return edit


def _all(*edits):
    def edit(doc):
        for e in edits:
            e(doc)
    return edit


def _respec(**changes):
    """Edit the obligation spec and keep the obligation id consistent, as a careful forger
    would (so the rejection comes from the re-derivation, not the id)."""
    def edit(doc):
        from ioverify.certificate.recheck import obligation_id

        spec = doc["obligation"]["spec"]
        for key, value in changes.items():
            if value is None:
                spec.pop(key, None)
            else:
                spec[key] = value
        doc["obligation"]["id"] = obligation_id(doc["obligation"]["kind"], spec)
    return edit


def _pop(path: str):
    def edit(doc):
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        target = doc
        for p in parents:
            target = target[p]
        target.pop(last)
    return edit


def _as_verified(bound, evidence, relies_on=()):
    def edit(doc):
        doc["verdict"] = {"status": "verified", "bound": bound, "evidence": evidence,
                          "variant": doc["verdict"]["variant"]}
        doc["relies_on"] = list(relies_on)
        doc["witness"] = {}
    return edit


TRIVIAL = {"kind": "trivial-bound", "bound": 3}
HORIZON = {"kind": "one-shot-exact-horizon", "steps": 3, "unsat_budget": 2}

def _as_unknown_at(upper):
    def edit(doc):
        doc["verdict"] = {"status": "unknown", "reason": "timeout", "lower_bound": None,
                          "upper_bound": upper, "variant": doc["verdict"]["variant"]}
        doc["relies_on"] = []
    return edit


# (certificate, field, tamper, a phrase the rejection must contain)
TAMPERS = [
    # exact-search, a claimed upper end attained by the witness (optimum 11, at most 12)
    ("attained", "io", _set("verdict.io", 10), "verdict io"),
    ("attained", "at_most", _set("verdict.at_most", 11), "verdict at_most"),
    ("attained", "spec at_most under the witness",
     _all(_respec(at_most=10), _set("detail.claimed_upper_end", 10),
          _set("verdict.at_most", 10)), "above the claimed upper end 10"),
    ("attained", "no witness", _set("witness", {}), "must carry its schedule"),
    ("attained", "evidence", _set("verdict.evidence", {"kind": "exhaustive-search", "below": 11}),
     "verdict evidence"),
    ("attained", "status optimal", _set("verdict", lambda v: {
        "status": "optimal", "io": v["io"], "evidence": {"kind": "exhaustive-search", "below": 11},
        "variant": v["variant"]}), "never answered 'optimal'"),
    ("attained", "status unknown with its schedule", _as_unknown_at(11), "attains it"),
    ("attained", "a lower bound's fields", _as_verified(12, TRIVIAL),
     "'bound' does not belong"),
    ("attained", "detail claimed_upper_end", _set("detail.claimed_upper_end", 13),
     "detail claimed_upper_end"),
    ("attained", "a lower bound beside it",
     _all(_respec(lower_bound=100), _set("detail.claimed_lower_bound", 100),
          _set("detail.lower_bound_source", "number")), "claims nothing else"),
    ("attained", "an optimum beside it",
     _all(_respec(optimum=12), _set("detail.expected_optimum", 12)), "claims nothing else"),
    # exact-search, a claimed upper end refuted by a proof that every schedule costs more
    ("refuted-upper-end", "io", _set("verdict.io", 11), "verdict io"),
    ("refuted-upper-end", "reason", _set("verdict.reason", "the optimum is 11"),
     "verdict reason"),
    ("refuted-upper-end", "claim", _set("verdict.claim", 9), "verdict claim"),
    ("refuted-upper-end", "no evidence", _set("verdict.evidence", None), "carries the evidence"),
    ("refuted-upper-end", "evidence below", _set("verdict.evidence.below", 10), "evidence below"),
    ("refuted-upper-end", "an upper end the proof does not pass",
     _all(_respec(at_most=11), _set("detail.claimed_upper_end", 11), _set("verdict.claim", 11),
          _set("verdict.reason", "every schedule needs >= 12 I/O, above the claimed upper end "
                                 "11 (exhaustive-search)")), "evidence below"),
    ("refuted-upper-end", "a schedule added", _set("witness", lambda w: {
        "schedule": {"format": "ioverify-schedule", "version": 1, "moves": []}}),
     "does not belong"),
    # exact-search, optimal
    ("optimal", "status", _as_verified(6, {"kind": "exhaustive-search", "below": 6}),
     "status 'verified' needs a claimed lower bound"),
    ("optimal", "io", _set("verdict.io", 5), "verdict io"),
    ("optimal", "evidence kind", _set("verdict.evidence", {"kind": "trivial-bound", "bound": 6}),
     "evidence bound"),
    ("optimal", "evidence below", _set("verdict.evidence.below", 5), "evidence below"),
    ("optimal", "unknown evidence field", _set("verdict.evidence.extra", 1), "'extra'"),
    ("optimal", "evidence heuristic", _set("verdict.evidence.heuristic", "oracle"),
     "heuristic"),
    ("optimal", "variant", _set("verdict.variant", "one-shot"), "verdict variant"),
    ("optimal-expected", "searched without the lemma",  # pyramid(3): two uses of a vertex
     _set("verdict.evidence.searched", "one-shot"), "single-use lemma does not hold"),
    ("optimal-one-shot", "searched in recompute", _set("verdict.evidence.searched", "recompute"),
     "only a recompute bound"),
    ("optimal-single-use", "searched in its own variant",
     _set("verdict.evidence.searched", "recompute"), "only a recompute bound"),
    ("optimal-one-shot", "lemma without another variant", _set("verdict.evidence.lemma", "x"),
     "no lemma is needed"),
    ("optimal-single-use", "lemma not relied on", _set("relies_on", []), "relies_on"),
    ("optimal-contracted", "another lemma", _set("verdict.evidence.contracted", "trust me"),
     "evidence contracted"),
    ("optimal-contracted", "contraction not relied on", _set("relies_on", []), "relies_on"),
    ("optimal", "contracted without a chain",  # pyramid(2): every vertex reads two
     _all(_set("verdict.evidence.contracted", CHAIN_CONTRACTION),
          _set("relies_on", [CONTRACTION_RELIES_ON])), "no chain to contract"),
    ("optimal", "unknown verdict field", _set("verdict.horizon", 3), "does not belong"),
    ("optimal", "relies_on", _set("relies_on", ["a friend's word"]), "relies_on"),
    ("optimal", "instance DAG", lambda d: d["instance"]["dag"]["edges"].pop(), "instance"),
    ("optimal", "witness schedule", lambda d: drop_last_store(d["witness"]["schedule"]["moves"]),
     "witness schedule does not replay"),
    ("optimal", "witness dropped", _pop("witness.schedule"), "must carry its schedule"),
    ("optimal", "spec memory", _respec(memory=4), "exhaustive re-search finds"),
    ("optimal", "spec params", _respec(params={"height": 3}), "instance"),
    ("optimal", "spec variant", _respec(variant="one-shot"), "verdict variant"),
    ("optimal", "spec lower_bound", _all(_respec(lower_bound=5),
                                         _set("detail.claimed_lower_bound", 5),
                                         _set("detail.lower_bound_source", "number")),
     "answers no claimed lower bound"),
    ("optimal", "detail vertices", _set("detail.vertices", 7), "detail vertices"),
    ("optimal", "claim id", _set("claim.id", "someone-else"), "obligation claim"),
    ("optimal", "obligation id", _set("obligation.id", "pyramid(height=9)/M=3"),
     "obligation id"),
    ("optimal-expected", "spec optimum", _all(_respec(optimum=12),
                                              _set("detail.expected_optimum", 12)),
     "expects the optimum 12"),
    # exact-search, verified
    ("verified-bound-id", "bound", _set("verdict.bound", 13), "verdict bound"),
    ("verified-bound-id", "spec lower_bound", _all(
        _respec(lower_bound=13), _set("detail.claimed_lower_bound", 13),
        _set("detail.lower_bound_source", "number"), _pop("detail.lower_bound_exact"),
        _set("verdict.bound", 13), _set("verdict.evidence.bound", 13)), "evidence bound"),
    ("verified-bound-id", "detail lower_bound_exact", _set("detail.lower_bound_exact", "13"),
     "detail lower_bound_exact"),
    ("verified-bound-id", "evidence kind", _all(
        _set("verdict.evidence", dict(HORIZON, steps=12)),
        _set("relies_on", [RELIES_ON["one-shot-exact-horizon"]])),
     "proves nothing in the recompute variant"),
    ("verified-exhaustive", "claim raised with its evidence", _all(
        _respec(lower_bound=12), _set("detail.claimed_lower_bound", 12),
        _set("verdict.bound", 12), _set("verdict.evidence.below", 12)),
     "exhaustive re-search finds"),
    # exact-search, refuted
    ("refuted", "status", _as_verified(12, {"kind": "exhaustive-search", "below": 12}),
     "exhaustive re-search finds"),
    ("refuted", "claim", _set("verdict.claim", 13), "verdict claim"),
    ("refuted", "io", _set("verdict.io", 10), "verdict io"),
    ("refuted", "reason", _set("verdict.reason", "because I say so"), "verdict reason"),
    ("refuted", "spec lower_bound", _all(_respec(lower_bound=11),
                                         _set("detail.claimed_lower_bound", 11),
                                         _set("verdict.claim", 11)), "does not beat"),
    ("refuted", "witness dropped", _pop("witness.schedule"), "must carry the cheaper schedule"),
    ("refuted-optimum-high", "io", _all(_set("verdict.io", 12), _set(
        "verdict.reason", "the optimum is 12, not 10 (exhaustive-search)")), "evidence below"),
    ("refuted-optimum-high", "io and its evidence", _all(_set("verdict.io", 12), _set(
        "verdict.evidence.below", 12), _set(
        "verdict.reason", "the optimum is 12, not 10 (exhaustive-search)")),
     "exhaustive re-search finds"),
    ("refuted-optimum-high", "evidence kind", _set("verdict.evidence", TRIVIAL),
     "evidence kind"),
    ("refuted", "evidence added", _set("verdict.evidence", TRIVIAL), "verdict evidence"),
    ("refuted-optimum-high", "reason", _set("verdict.reason",
                                            "the optimum is 11, not 10 (a hunch)"),
     "verdict reason"),
    ("refuted-optimum-low", "spec optimum", _all(_respec(optimum=11),
                                                 _set("detail.expected_optimum", 11),
                                                 _set("verdict.claim", 11)),
     "is the expected optimum"),
    # exact-search, infeasible (the reseal found adversarially, with two kinds of evidence)
    ("infeasible", "status (trivial evidence)", _as_verified(3, TRIVIAL),
     "the instance is infeasible"),
    ("infeasible", "status (solver evidence, its relies_on)",
     _as_verified(3, HORIZON, [RELIES_ON["one-shot-exact-horizon"]]),
     "the instance is infeasible"),
    ("infeasible", "reason", _set("verdict.reason", "no reason"), "verdict reason"),
    ("infeasible", "spec memory", _respec(memory=3), "the instance is feasible"),
    # exact-search, unknown and bounded: claim nothing, but may not contradict what they state
    ("unknown", "bounds", _set("verdict.lower_bound", 19), "above upper end"),
    ("unknown", "upper below the claim", _all(_pop("witness.schedule"),
                                              _set("verdict.upper_bound", 13)),
     "refutes it, not 'unknown'"),
    ("bounded", "lower at the claim", _set("verdict.lower_bound", 11), "verifies it"),
    # partition
    ("partition", "bound", _set("verdict.bound", 6), "verdict bound"),
    ("partition", "parts", _all(*(_set(f"verdict.evidence.{k}", 3)
                                  for k in ("parts", "parts_lower", "parts_upper"))),
     "evidence parts"),
    ("partition", "witness partition", _all(
        _set("witness.partition", lambda parts: [sum(parts, [])]),
        _set("verdict.evidence.partition", lambda parts: [sum(parts, [])]),
        *(_set(f"verdict.evidence.{k}", 1) for k in ("parts", "parts_lower", "parts_upper")),
        _set("verdict.bound", 0), _set("relies_on", lambda r: r)),
     "not a 6-partition"),
    ("partition", "witness differs from evidence", _set("witness.partition",
                                                        lambda parts: parts[::-1]),
     "evidence partition"),
    ("partition", "lower_by", _set("verdict.evidence.lower_by", "intuition"), "neither"),
    ("partition", "left_out", _set("verdict.evidence.left_out", ["A[0,0]"]),
     "evidence left_out"),
    ("partition", "variant", _set("verdict.variant", "partition"), "verdict variant"),
    ("partition", "spec memory", _respec(memory=4), "evidence S"),
    ("partition", "spec at_most", _respec(at_most=2), "exceeds the spec's at_most"),
    ("partition", "relies_on", _set("relies_on", [RELIES_ON["partition-lemma"]]), "relies_on"),
    ("partition-refuted", "claim", _set("verdict.claim", 1), "verdict claim"),
    ("partition-refuted", "bound in the reason", _set(
        "verdict.reason", "the proved partition bound 6 exceeds the claimed optimum 2: no "
                          "schedule can cost 2"), "verdict reason"),
    ("partition-refuted", "evidence dropped", _all(_set("verdict.evidence", None),
                                                   _set("relies_on", [])),
     "must carry the evidence"),
    ("partition-refuted", "witness parts", _set("verdict.evidence.parts_lower", 5),
     "evidence parts_lower"),
    ("partition-refuted", "spec at_most", _all(_respec(at_most=3), _set("verdict.claim", 3), _set(
        "verdict.reason", "the proved partition bound 3 exceeds the claimed optimum 3: no "
                          "schedule can cost 3")), "does not exceed at_most"),
    ("partition-infeasible", "status", _as_verified(0, {"kind": "partition-lemma"}),
     "the instance is infeasible"),
    # kernel
    *[("kernel", f"detail {key}", _set(f"detail.{key}", change), f"detail {key}")
      for key, change in (("io", 63), ("loads", 47), ("stores", 17), ("peak", 16),
                          ("formula", 63), ("max_error", 1e-3), ("certified", False),
                          ("reason", "trust me"))],
    ("kernel", "detail bound value", _set("detail.lower_bounds.matmul-trivial", "47"),
     "detail lower_bounds"),
    ("kernel", "bound added", _set("verdict.bound", 64), "does not belong to status"),
    *[("kernel", f"verdict {key}", _set(f"verdict.{key}", change), f"verdict {key}")
      for key, change in (("io", 63), ("peak", 3), ("formula", 63), ("max_error", 1e-3))],
    ("kernel", "evidence", _set("verdict.evidence.formula", 63), "verdict evidence"),
    ("kernel", "status", _set("verdict", {"status": "refuted", "io": 64, "claim": None,
                                          "variant": "kernel", "reason": "I say so",
                                          "evidence": None}),
     "verdict status"),
    ("kernel", "spec params", _respec(params={"m": 8, "k": 4, "n": 4}), "detail"),
    ("kernel", "spec memory", _respec(memory=32), "detail"),
    ("kernel", "spec upper_bounds", _respec(upper_bounds=["matmul-trivial"]), "verdict status"),
    ("kernel", "spec expect_certified", _respec(expect_certified=False), "verdict status"),
    ("kernel-refuted-upper", "status", _set("verdict", {
        "status": "verified", "io": 64, "peak": 16, "formula": 64, "max_error": 0.0,
        "variant": "kernel", "evidence": {"kind": "kernel-certification"}}),
     "verdict status"),
    ("kernel-refuted-upper", "claim", _set("verdict.claim", 47), "verdict claim"),
    ("kernel-refuted-upper", "reason", _set("verdict.reason", "too slow"), "verdict reason"),
    ("kernel-refuted-upper", "detail bound value", _set("detail.upper_bounds.matmul-trivial",
                                                        "64"), "detail upper_bounds"),
    ("kernel-refuted-upper", "spec upper_bounds", _respec(upper_bounds=[]), "verdict status"),
    ("kernel-refuted-expect", "status", _set("verdict", {
        "status": "verified", "io": 64, "peak": 16, "formula": 64, "max_error": 0.0,
        "variant": "kernel",
        "evidence": {"kind": "kernel-certification", "failed_as_claimed": "capacity exceeded"}}),
     "verdict status"),
    ("kernel-fails-as-claimed", "detail reason", _set("detail.reason", "capacity exceeded"),
     "detail reason"),
    ("kernel-fails-as-claimed", "spec memory", _respec(memory=200), "verdict status"),
    ("kernel", "instance added", _set("instance", {"dag": {
        "format": "ioverify-dag", "version": 1, "nodes": ["a"]}}), "embeds no instance"),
    # symbolic: the status must be the re-proof's
    ("symbolic", "status refuted", _set("verdict", {"status": "refuted", "io": None,
                                                    "claim": None, "variant": "formula",
                                                    "reason": "refuted: no",
                                                    "evidence": None}), "verdict status"),
    ("symbolic", "statement", _set("verdict.statement", "1 = 1"), "verdict statement"),
    ("unknown", "upper end", _set("verdict.upper_bound", 19), "verdict upper_bound"),
    # confront: every run re-run, the bound read off again, the sweep judged again
    ("confront-supported", "exponent", _set("verdict.exponent", 0.5), "verdict exponent"),
    ("confront-supported", "io of a run", _set("verdict.sweep.0.io", 47), "verdict sweep"),
    ("confront-supported", "trace digest", _set("verdict.sweep.1.trace_digest", "0" * 64),
     "verdict sweep"),
    ("confront-supported", "spec memory", _set("obligation.spec.sweep.0.memory", 64),
     "verdict sweep"),
    ("confront-refuted", "reading dropped", _set("obligation.spec.reading", {}),
     "verdict status"),
    ("confront-refuted", "claim", _set("verdict.claim", 10), "verdict claim"),
    ("confront-contradicted", "exponent", _set("verdict.exponent", 0.1), "verdict exponent"),
    ("confront-contradicted", "along dropped", _set("obligation.spec.along", None),
     "verdict status"),
    ("confront-contradicted", "status", _set("verdict", lambda v: {
        **{k: x for k, x in v.items() if k != "along"}, "status": "supported"}),
     "verdict status"),
    ("symbolic", "status unknown", _set("verdict", {"status": "unknown", "reason": "not proved",
                                                    "lower_bound": None, "upper_bound": None,
                                                    "variant": "formula"}), "verdict status"),
    ("symbolic", "method", _set("verdict.evidence.method", "z3 says so"), "verdict evidence"),
    ("symbolic", "detail statement", _set("detail.statement", "1 = 2"), "detail statement"),
    ("symbolic", "spec fact", _respec(fact="backward-v1-is-forward-form"), "detail statement"),
    ("symbolic", "relies_on", _set("relies_on", []), "relies_on"),
]


@pytest.mark.parametrize("name, field, tamper, phrase", TAMPERS,
                         ids=[f"{n}-{f}" for n, f, _, _ in TAMPERS])
def test_tampered_and_resealed_field_is_rejected(certs, tmp_path, name, field, tamper, phrase):
    doc = copy.deepcopy(_doc(certs, name))
    tamper(doc)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(_reseal(doc)))
    outcome = check_file(path)
    assert (outcome.outcome, outcome.exit_code) == ("rejected", EXIT_REFUTED), outcome
    assert phrase in outcome.reason


@pytest.mark.parametrize("hint", ["abstraction", "abstraction-shared"])
def test_the_abstraction_hint_changes_how_the_search_reruns_not_the_outcome(certs, tmp_path,
                                                                            hint):
    doc = copy.deepcopy(_doc(certs, "optimal"))
    doc["verdict"]["evidence"]["heuristic"] = hint
    path = tmp_path / "hinted.json"
    path.write_text(json.dumps(_reseal(doc)))
    assert check_file(path).outcome == "accepted"


def test_an_unknown_heuristic_hint_is_rejected(certs, tmp_path):
    doc = copy.deepcopy(_doc(certs, "optimal"))
    doc["verdict"]["evidence"]["heuristic"] = "oracle"
    path = tmp_path / "hinted.json"
    path.write_text(json.dumps(_reseal(doc)))
    outcome = check_file(path)
    assert outcome.outcome == "rejected" and "'oracle'" in outcome.reason


def test_edit_without_reseal_is_caught_by_the_digest(certs, tmp_path):
    doc = _doc(certs, "optimal")
    doc["verdict"]["io"] = 5
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    assert "digest does not match" in check_file(path).reason


def test_infeasible_resealed_as_verified_is_rejected_by_the_cli(certs, tmp_path, capsys):
    """Regression: the checker echoed the certificate's own relies_on and accepted this."""
    doc = _doc(certs, "infeasible")
    _as_verified(3, HORIZON, [RELIES_ON["one-shot-exact-horizon"]])(doc)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(_reseal(doc)))
    assert main(["certificate", "check", str(path)]) == EXIT_REFUTED
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"{path}: rejected: status: the instance is infeasible")
    assert "needs M >= 3 red pebbles, but M = 2" in out


# --- malformed files ----------------------------------------------------------------------------

def _malformed_files(certs, folder: Path) -> dict[str, Path]:
    good = _doc(certs, "optimal")
    texts = {
        "not-json": "{ not json",
        "empty": "",
        "not-an-object": "[1, 2, 3]",
        "other-format": json.dumps(good["instance"]["dag"]),
        "wrong-type": json.dumps({**good, "verdict": {**good["verdict"], "io": "six"}}),
        "missing-field": json.dumps({k: v for k, v in good.items() if k != "verdict"}),
        "unknown-field": json.dumps({**good, "comment": "hello"}),
        "bad-enum": json.dumps({**good, "verdict": {**good["verdict"], "status": "proved"}}),
        "bool-as-int": json.dumps({**good, "obligation": {**good["obligation"], "spec": {
            **good["obligation"]["spec"], "memory": True}}}),
        "deep-nesting": "[" * 200_000 + "]" * 200_000,
        "deep-in-detail": json.dumps({**good, "detail": {"x": json.loads("[" * 500 + "]" * 500)}}),
        "long-integer": json.dumps(good).replace('"memory": 3', '"memory": ' + "9" * 5000),
        "unknown-node": json.dumps(_reseal({**good, "witness": {"schedule": {
            **good["witness"]["schedule"], "moves": [["load", "nowhere"]]}}})),
    }
    paths = {name: folder / f"{name}.json" for name in texts}
    for name, text in texts.items():
        paths[name].write_text(text)
    paths["not-utf8"] = folder / "not-utf8.json"
    paths["not-utf8"].write_bytes(b"\xff\xfe{")
    paths["missing"] = folder / "missing.json"
    return paths


def test_malformed_files_are_one_line_exit_2(certs, tmp_path, capsys):
    for name, path in _malformed_files(certs, tmp_path).items():
        assert main(["certificate", "check", str(path)]) == EXIT_BAD_INPUT, name
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1, (name, err)
        assert err.startswith(f"{path}: malformed: ") and "Traceback" not in err, err


def test_schema_errors_name_the_offending_field(certs, tmp_path):
    files = _malformed_files(certs, tmp_path)
    expected = {"wrong-type": "at $.verdict.io:", "missing-field": "'verdict' is a required",
                "unknown-field": "'comment' was unexpected", "bad-enum": "at $.verdict.status:",
                "bool-as-int": "at $.obligation.spec.memory:",
                "long-integer": "integer string conversion", "deep-nesting": "nested too deeply",
                "deep-in-detail": "nested more than 64 levels", "other-format": "ioverify-dag",
                "unknown-node": "unknown node 'nowhere'"}
    for name, phrase in expected.items():
        outcome = check_file(files[name])
        assert outcome.outcome == "malformed" and phrase in outcome.reason, (name, outcome)


def test_every_file_is_checked_past_malformed_ones(certs, tmp_path, capsys):
    """Regression: the first malformed file used to stop the command (with a traceback)."""
    bad = _malformed_files(certs, tmp_path)
    forged = _doc(certs, "refuted")
    forged["verdict"]["claim"] = 13
    forged_path = tmp_path / "forged.json"
    forged_path.write_text(json.dumps(_reseal(forged)))
    files = [bad["not-json"], certs["optimal"], bad["wrong-type"], forged_path, certs["kernel"]]
    assert main(["certificate", "check", *map(str, files)]) == EXIT_REFUTED
    out, err = capsys.readouterr()
    assert f"{certs['optimal']}: accepted (optimal)" in out
    assert f"{certs['kernel']}: accepted (verified)" in out
    assert f"{forged_path}: rejected: verdict claim" in out
    assert len(err.strip().splitlines()) == 2 and "malformed" in err


@pytest.mark.parametrize("codes, worst", [
    ({"accepted"}, EXIT_OK), ({"accepted", "not re-checked"}, EXIT_UNKNOWN),
    ({"not re-checked", "malformed"}, EXIT_BAD_INPUT), ({"malformed", "rejected"}, EXIT_REFUTED),
    ({"rejected", "internal error"}, EXIT_INTERNAL)])
def test_worst_outcome_sets_the_exit_code(codes, worst):
    from ioverify.errors import exit_code_of, worst_exit

    assert worst_exit(exit_code_of(c) for c in codes) == worst


def test_json_output_has_a_record_per_file(certs, tmp_path, capsys):
    bad = _malformed_files(certs, tmp_path)["not-json"]
    files = [certs["optimal"], bad, certs["partition"]]
    assert main(["certificate", "check", "--json", *map(str, files)]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert err == "" and doc["outcome"] == "malformed" and doc["exit_code"] == EXIT_BAD_INPUT
    records = doc["files"]
    assert [r["outcome"] for r in records] == ["accepted", "malformed", "accepted"]
    assert set(records[0]) == {"path", "outcome", "status", "rechecked", "relies_on",
                               "not_rederived", "reason"}
    assert records[2]["status"] == "verified" and records[2]["rechecked"]


def test_an_internal_failure_is_exit_4_for_that_file_only(certs, monkeypatch, capsys):
    from ioverify.certificate import recheck as recheck

    def broken(doc, log):
        raise KeyError("a bug")

    monkeypatch.setitem(recheck.CHECKERS, "kernel", broken)
    files = [certs["kernel"], certs["optimal"]]
    assert main(["certificate", "check", "--jobs", "1", *map(str, files)]) == EXIT_INTERNAL
    out, err = capsys.readouterr()
    assert f"{certs['optimal']}: accepted" in out
    assert f"{certs['kernel']}: internal error: KeyError" in err and "Traceback" not in err


# --- without Z3 -----------------------------------------------------------------------------------

def _without_solvers(*argv) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        import sys
        sys.modules["z3"] = None  # any import of z3 now fails
        sys.modules["pysat"] = None
        from ioverify.cli import main
        code = main({["certificate", "check", *map(str, argv)]!r})
        assert "z3" not in sys.modules or sys.modules["z3"] is None
        sys.exit(code)
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT)


def test_every_kind_but_z3_facts_rechecks_without_z3(certs):
    files = [certs[name] for name in sorted(STATUS) if name not in NEEDS_Z3 | RESTS_ON_Z3]
    done = _without_solvers("--json", *files)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    records = json.loads(done.stdout)["files"]
    assert {r["outcome"] for r in records} == {"accepted"}
    kinds = {json.loads(f.read_text())["obligation"]["kind"] for f in files}
    assert kinds == {"exact-search", "partition", "kernel", "symbolic", "confront"}


def test_z3_proved_fact_is_not_rechecked_without_z3(certs):
    done = _without_solvers(certs["symbolic-z3"])
    assert done.returncode == EXIT_UNKNOWN, done.stdout + done.stderr
    assert re.search(r": not re-checked: fact 'backward-v2-is-v1-scaled' is proved with Z3",
                     done.stdout), done.stdout


# --- the re-check and the searches share the game's lemmas (one copy, in the trusted base) -------

def test_recheck_and_searches_use_the_trusted_lemmas():
    from ioverify.certificate import recheck
    from ioverify.game import lemmas
    from ioverify.search import partition, pebbling

    for name in ("trivial_lower_bound", "compute_demands"):
        assert getattr(recheck, name) is getattr(pebbling, name) is getattr(lemmas, name)
    assert recheck.counting_lower_bound is partition.counting_lower_bound \
        is lemmas.counting_lower_bound


def test_recomputed_ids_and_claims_agree_with_the_runner():
    from ioverify.certificate import recheck
    from ioverify.claims import run as obligations

    for name, (build, _) in {**CASES, **SOLVER_CASES}.items():
        ob = build(name)
        assert recheck.obligation_id(ob.kind, ob.spec) == ob.id
        if ob.kind == "exact-search":
            assert recheck._claimed_lower_bound(ob.spec) == obligations.resolve_lower_bound(
                ob.spec)


# --- the format ---------------------------------------------------------------------------------

def test_sealing_refuses_a_body_outside_the_schema(certs):
    doc = _doc(certs, "optimal")
    doc["verdict"]["status"] = "sure"
    with pytest.raises(InternalError, match=r"\$\.verdict\.status"):
        _reseal(doc)


def test_shipped_schemas_are_valid_and_packaged():
    from jsonschema import Draft202012Validator

    from ioverify.schemas import SCHEMAS, schema

    for fmt in SCHEMAS:
        Draft202012Validator.check_schema(schema(fmt))
        assert schema(fmt)["properties"]["format"] == {"const": fmt}
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"ioverify.schemas" = ["*.schema.json"]' in pyproject


def test_format_reference_shows_each_schema_and_its_examples_validate():
    from ioverify.schemas import SCHEMAS, validate

    page = (ROOT / "docs" / "reference" / "formats.md").read_text()
    for fmt, filename in SCHEMAS.items():
        assert f"ioverify/schemas/{filename}" in page, filename
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", page, re.S)]
    by_format = {}
    for example in examples:
        by_format.setdefault(example.get("format"), []).append(example)
    for fmt in ("ioverify-dag", "ioverify-schedule"):
        assert by_format.get(fmt), fmt
        for example in by_format[fmt]:
            validate(example, fmt, f"the {fmt} example in formats.md")


def test_written_dags_and_schedules_fit_their_schemas():
    from ioverify.dag import pyramid
    from ioverify.dag.jsonio import dag_to_dict
    from ioverify.schemas import validate
    from ioverify.search.pebbling import greedy_schedule

    dag = pyramid(3)
    validate(dag_to_dict(dag), "ioverify-dag", "a written DAG")
    validate(greedy_schedule(dag, 3).to_dict(dag), "ioverify-schedule", "a written schedule")


def test_a_malformed_item_deep_in_a_long_array_is_refused_by_the_writer_and_the_recheck(
        certs, tmp_path):
    """The writer validates every item (it checked the first 1,000 of each array only, when
    validating a certificate of 43,440 vertices whole took 14 s): a body with a malformed move
    past the first 1,000 is a bug in the writer; resealed by hand, the re-check rejects it."""
    from ioverify.certificate.format import digest

    doc = _doc(certs, "optimal")
    moves = doc["witness"]["schedule"]["moves"]
    moves.extend([moves[0]] * 1000 + [["load", 7]])  # a vertex named by a number
    where = f"$.witness.schedule.moves[{len(moves) - 1}]"
    with pytest.raises(InternalError, match=re.escape(where)):
        _reseal(doc)
    doc["digest"] = digest({k: v for k, v in doc.items() if k != "digest"})
    path = tmp_path / "sealed.json"
    path.write_text(json.dumps(doc))
    outcome = check_file(path)
    assert outcome.outcome == "malformed" and outcome.exit_code != EXIT_OK
    assert where in outcome.reason and "not a valid" in outcome.reason
