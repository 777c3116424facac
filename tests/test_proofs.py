"""Clausal proofs of one-shot lower bounds (issue 15): the LRAT checker on hand-made proofs, the
re-encoder against the search's own encoding, and ``pebble --proof`` certificates, accepted
with Z3 and PySAT unimportable and rejected, with a reason, whenever the CNF or the proof is
not the one the DAG, M and the budget call for."""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ioverify.certificate.lrat import ProofRejected, check_lrat, read_dimacs
from ioverify.certificate.recheck import check_file
from ioverify.certificate.reencode import at_most, canonical, one_shot_cnf
from ioverify.cli import main
from ioverify.dag import attention_forward, matmul, pyramid
from ioverify.dag.jsonio import dag_to_dict
from ioverify.errors import EXIT_OK

from resealing import check_without_solvers, rejection, reseal

ROOT = Path(__file__).resolve().parent.parent

# (1 2) (-1 2) (1 -2) (-1 -2): unsatisfiable; the proof derives (2), then the empty clause.
SQUARE = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
PROOF = "5 2 0 1 2 0\n6 0 5 3 4 0\n"


def _check(cnf: str, proof: str) -> int:
    return check_lrat(read_dimacs(cnf), proof)


# --- the LRAT checker -----------------------------------------------------------------------------

def test_lrat_accepts_a_hand_made_refutation():
    assert _check(SQUARE, PROOF) == 2


def test_lrat_accepts_deletions_of_clauses_no_longer_needed():
    assert _check(SQUARE, "5 2 0 1 2 0\n5 d 1 2 0\n6 0 5 3 4 0\n") == 2


@pytest.mark.parametrize("cnf, proof, reason", [
    ("p cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n", PROOF, "hint 4 is not a live clause"),
    (SQUARE, "5 2 0 1 2 0\n", "ends without adding the empty clause"),
    (SQUARE, "", "ends without adding the empty clause"),
    (SQUARE, "5 2 0 1 3 0\n6 0 5 3 4 0\n", "hint 3 is already satisfied"),
    (SQUARE, "5 2 0 1 2 0\n6 0 3 5 4 0\n", "hint 3 is not unit"),
    (SQUARE, "5 2 0 1 0\n6 0 5 3 4 0\n", "the hints end without a conflict"),
    (SQUARE, "5 2 0 1 2 0\n5 d 3 0\n6 0 5 3 4 0\n", "hint 3 is not a live clause"),
    (SQUARE, "5 2 0 1 2 0\n5 d 7 0\n", "deletes clause 7, which is not live"),
    (SQUARE, "4 2 0 1 2 0\n6 0 4 3 4 0\n", "clause number 4 is not above 4"),
    (SQUARE, "5 2 0 1 -2 0\n6 0 5 3 4 0\n", "RAT step"),
    (SQUARE, "5 2 -2 0 1 0\n", "tautology"),
    (SQUARE, "5 2 0 1 2\n", "not 'ID literals 0 hints 0'"),
    (SQUARE, "5 2 0 x 2 0\n", "'x' is not an integer"),
])
def test_lrat_rejects_with_arejection(cnf, proof, reason):
    with pytest.raises(ProofRejected, match=reason):
        _check(cnf, proof)


@pytest.mark.parametrize("cnf, reason", [
    ("p cnf 2 5\n1 2 0\n", "announces 5 clauses, the file has 1"),
    ("p cnf 1 1\n1 2 0\n", "literal 2 beyond the 1 variables"),
    ("1 2 0\n", "before the 'p cnf' header"),
    ("p cnf 2 1\n1 2\n", "not ended by 0"),
    ("c nothing\n", "no 'p cnf' header"),
])
def test_dimacs_reader_rejects_malformed_cnf(cnf, reason):
    with pytest.raises(ProofRejected, match=reason):
        read_dimacs(cnf)


@pytest.mark.parametrize("clauses", [
    [(1, 2), (-1, 2), (1, -2), (-1, -2)],
    [(3,), (1, 2, -3), (-1, 2), (1, -2), (-1, -2)],  # CaDiCaL numbers derived clauses in between
    [(1, 2), (-3,), (-1, 2, 3), (1, -2), (4,), (-1, -2, -4)],
])
def test_cadical_refutation_is_mapped_to_the_cnfs_numbers(clauses):
    pytest.importorskip("pysat")
    from ioverify.solve.proof import refute

    answer, proof = refute(clauses)
    assert answer == "unsat" and check_lrat(clauses, proof) >= 1


# --- the re-encoder -------------------------------------------------------------------------------

@pytest.mark.parametrize("n, k", [(n, k) for n in range(1, 5) for k in range(0, 4)])
def test_sequential_counter_allows_exactly_at_most_k(n, k):
    """Brute force: an assignment of the inputs extends to a model of the counter's clauses
    iff at most k inputs are true."""
    inputs = [(f"v{i}", True) for i in range(n)]
    clauses = at_most(k, inputs)
    aux = sorted({name for c in clauses for name, _ in c} - {name for name, _ in inputs})
    for values in itertools.product((False, True), repeat=n):
        given = {f"v{i}": value for i, value in enumerate(values)}
        extends = any(all(any(({**given, **dict(zip(aux, more))}[name]) == pos
                              for name, pos in c) for c in clauses)
                      for more in itertools.product((False, True), repeat=len(aux)))
        assert extends == (sum(values) <= k), (values, k)


def test_canonical_form_sorts_and_drops_tautologies():
    cnf = canonical([(("b", True), ("a", False)), (("a", True), ("a", False)),
                     (("b", True), ("a", False))])
    assert cnf.names == ("a", "b") and cnf.clauses == ((-1, 2),)


@pytest.mark.parametrize("dag, memory, budget", [
    (pyramid(3), 3, 10), (matmul(2, 2, 2), 4, 16), (attention_forward(2, 1), 5, 10)])
def test_reencoder_derives_the_searchs_own_encoding(dag, memory, budget):
    """The re-encoder, written from the rules, and the search's Z3 encoding turned into
    clauses give the same CNF, text for text."""
    pytest.importorskip("z3")
    from ioverify.encode.clauses import one_shot_dimacs

    assert one_shot_cnf(dag, memory, budget).dimacs() == one_shot_dimacs(dag, memory, budget)


@pytest.mark.parametrize("dag, memory", [(pyramid(2), 3), (pyramid(3), 3), (pyramid(3), 4)])
def test_reencoded_query_is_unsat_exactly_below_the_optimum(dag, memory):
    """Differential: satisfiable at the exhaustive search's one-shot optimum, unsatisfiable one
    below it."""
    pytest.importorskip("pysat")
    from pysat.solvers import Cadical195

    from ioverify.game.exhaustive import exhaustive_optimum

    optimum = exhaustive_optimum(dag, memory, "one-shot").optimum
    for budget, expected in ((optimum, True), (optimum - 1, False)):
        with Cadical195(bootstrap_with=[list(c) for c in
                                        one_shot_cnf(dag, memory, budget).clauses]) as solver:
            assert solver.solve() == expected, budget


# --- pebble --proof and the certificate check ----------------------------------------------------

@pytest.fixture(scope="module")
def proved(tmp_path_factory):
    """``pebble --one-shot --proof`` on pyramid(3), M = 3 (optimum 11), and a second proof one
    budget lower (I/O >= 10)."""
    pytest.importorskip("pysat")
    base = tmp_path_factory.mktemp("proofs")
    dag_file = base / "pyramid3.json"
    dag_file.write_text(json.dumps(dag_to_dict(pyramid(3))))
    assert main(["pebble", str(dag_file), "-M", "3", "--one-shot", "--proof",
                 str(base / "opt")]) == EXIT_OK
    assert main(["pebble", str(dag_file), "-M", "3", "--one-shot", "--claim-lower-bound",
                 "10", "--proof", str(base / "ten")]) == EXIT_OK
    return base


def _copy(proved: Path, tmp_path: Path, name: str = "opt") -> Path:
    folder = tmp_path / name
    shutil.copytree(proved / name, folder)
    return folder


def _edit(folder: Path, which: str, text: str) -> Path:
    """Replace the file ``which`` (cnf or proof) and reseal the certificate with its digest:
    only the re-check's own derivation can then reject it."""
    def change(doc):
        evidence = doc["verdict"]["evidence"]
        (folder / evidence[which]).write_text(text)
        evidence[f"{which}_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    return reseal(folder, change)


def test_proof_certificate_is_accepted(proved):
    outcome = check_file(proved / "opt" / "certificate.json")
    assert outcome.outcome == "accepted" and outcome.status == "optimal"
    assert any("LRAT proof query.lrat checked" in line for line in outcome.rechecked)
    assert outcome.relies_on == ()
    bracket = check_file(proved / "ten" / "certificate.json")
    assert bracket.outcome == "accepted" and bracket.status == "verified"


def test_cnf_with_a_clause_dropped_is_rejected(proved, tmp_path):
    folder = _copy(proved, tmp_path)
    lines = (folder / "query.cnf").read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    _, _, nvars, nclauses = lines[header].split()
    lines[header] = f"p cnf {nvars} {int(nclauses) - 1}"
    del lines[header + 7]
    reason = rejection(_edit(folder, "cnf", "\n".join(lines) + "\n"))
    assert "differs from the re-encoded one" in reason and "0 extra, 1 missing" in reason


def test_cnf_differing_from_the_reencoded_one_is_rejected(proved, tmp_path):
    folder = _copy(proved, tmp_path)
    text = (folder / "query.cnf").read_text()
    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("p cnf")) + 3
    first, *rest = lines[i].split()
    lines[i] = " ".join([str(-int(first)), *rest])
    assert "is only in the stored CNF" in rejection(_edit(folder, "cnf", "\n".join(lines) + "\n"))


def test_truncated_proof_is_rejected(proved, tmp_path):
    folder = _copy(proved, tmp_path)
    lines = (folder / "query.lrat").read_text().splitlines()
    reason = rejection(_edit(folder, "proof", "\n".join(lines[: len(lines) // 2]) + "\n"))
    assert "ends without adding the empty clause" in reason


def test_proof_with_a_bad_hint_is_rejected(proved, tmp_path):
    folder = _copy(proved, tmp_path)
    lines = (folder / "query.lrat").read_text().splitlines()
    words = lines[0].split()
    words[-2] = "1"  # the last hint of the first lemma now names clause 1
    lines[0] = " ".join(words)
    assert "proof line 1: " in rejection(_edit(folder, "proof", "\n".join(lines) + "\n"))


def test_proof_for_a_different_budget_is_rejected(proved, tmp_path):
    """The budget-9 CNF and proof (I/O >= 10) presented as the budget-10 ones, and the budget-9
    proof presented for the budget-10 CNF."""
    folder = _copy(proved, tmp_path)
    other = proved / "ten"
    path = _edit(folder, "cnf", (other / "query.cnf").read_text())
    _edit(folder, "proof", (other / "query.lrat").read_text())
    assert "differs from the re-encoded one at I/O budget 10" in rejection(path)
    folder = tmp_path / "mixed"
    shutil.copytree(proved / "opt", folder)
    assert "proof line" in rejection(_edit(folder, "proof", (other / "query.lrat").read_text()))


def test_proof_file_edited_without_its_digest_is_rejected(proved, tmp_path):
    folder = _copy(proved, tmp_path)
    with open(folder / "query.lrat", "a") as handle:
        handle.write("c appended\n")
    assert "proof_sha256" in rejection(folder / "certificate.json")


def test_missing_proof_file_is_rejected(proved, tmp_path):
    folder = _copy(proved, tmp_path)
    (folder / "query.cnf").unlink()
    assert "cannot read 'query.cnf'" in rejection(folder / "certificate.json")


def test_stated_budget_above_the_proof_is_rejected(proved, tmp_path):
    folder = _copy(proved, tmp_path)
    path = reseal(folder, lambda doc: doc["verdict"]["evidence"].update(unsat_budget=9))
    assert "proves I/O >= 10 only, not >= 11" in rejection(path)


def test_proof_certificate_rechecks_without_solvers(proved):
    out = check_without_solvers(proved / "opt" / "certificate.json", ROOT)
    assert "accepted (optimal)" in out and "LRAT proof query.lrat checked" in out


def test_a_clausal_check_past_its_deadline_decides_nothing(proved):
    import time

    from ioverify.certificate.recheck import check
    from ioverify.errors import DeadlineReached

    path = proved / "opt" / "certificate.json"
    late = check_file(path, deadline=time.monotonic() - 1)
    assert late.outcome == "not re-checked" and "time limit passed" in late.reason
    with pytest.raises(DeadlineReached, match="stopped at its deadline"):  # the LRAT check's
        check(json.loads(path.read_text()), path.parent, (path.name,), time.monotonic() - 1)


def test_clausal_proof_needs_the_one_shot_variant(tmp_path, capsys):
    dag_file = tmp_path / "p.json"  # or single use: pyramid(3)'s middle vertices have two each
    dag_file.write_text(json.dumps(dag_to_dict(pyramid(3))))
    assert main(["pebble", str(dag_file), "-M", "3", "--proof-kind", "clausal", "--proof",
                 str(tmp_path / "x")]) == 2
    assert "--proof-kind clausal needs the one-shot variant" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


EXTERNAL = [name for name in ("cake_lpr", "lrat-check") if shutil.which(name)]


@pytest.mark.skipif(not EXTERNAL, reason="no external LRAT checker installed")
def test_external_lrat_checker_accepts_the_proof(proved):
    folder = proved / "opt"
    done = subprocess.run([shutil.which(EXTERNAL[0]), str(folder / "query.cnf"),
                           str(folder / "query.lrat")], capture_output=True, text=True)
    assert done.returncode == 0 and "s VERIFIED" in done.stdout.upper(), done.stdout


def test_bracket_lower_end_gets_a_verified_certificate(tmp_path, capsys):
    """An unknown verdict's proved lower end (the exhaustive search stopped early) is what the
    proof and its certificate verify."""
    pytest.importorskip("pysat")
    dag_file = tmp_path / "pyramid3.json"
    dag_file.write_text(json.dumps(dag_to_dict(pyramid(3))))
    code = main(["pebble", str(dag_file), "-M", "3", "--one-shot", "--method", "exhaustive",
                 "--max-states", "3", "--json", "--proof", str(tmp_path / "bracket")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 3 and doc["status"] == "unknown"
    assert doc["proof"]["written"] and doc["proof"]["lower_bound"] == doc["lower_bound"]
    outcome = check_file(tmp_path / "bracket" / "certificate.json")
    assert outcome.outcome == "accepted" and outcome.status == "verified"


def test_proof_path_that_is_a_file_is_refused_before_the_search(tmp_path, capsys):
    dag_file = tmp_path / "p.json"
    dag_file.write_text(json.dumps(dag_to_dict(pyramid(2))))
    (tmp_path / "taken").write_text("")
    assert main(["pebble", str(dag_file), "-M", "3", "--one-shot", "--proof",
                 str(tmp_path / "taken")]) == 2
    assert "--proof" in capsys.readouterr().err and (tmp_path / "taken").read_text() == ""


def _pigeonhole(holes: int) -> list[tuple[int, ...]]:
    """holes + 1 pigeons in ``holes`` holes: unsatisfiable, and exponentially hard for CDCL."""
    var = lambda p, h: p * holes + h + 1  # noqa: E731
    clauses = [tuple(var(p, h) for h in range(holes)) for p in range(holes + 1)]
    clauses += [(-var(p, h), -var(q, h)) for h in range(holes)
                for p in range(holes + 1) for q in range(p + 1, holes + 1)]
    return clauses


def test_refutation_stops_at_its_timeout():
    """CaDiCaL's solve holds the interpreter lock: the timeout must stop it all the same."""
    pytest.importorskip("pysat")
    import time

    from ioverify.solve.proof import available, refute

    if not available():
        pytest.skip("no CaDiCaL 1.9.5 in PySAT")
    start = time.monotonic()
    answer, reason = refute(_pigeonhole(12), timeout=1.0)
    assert (answer, reason) == ("unknown", "timeout")
    assert time.monotonic() - start < 5
    answer, proof = refute(_pigeonhole(3), timeout=60)
    assert answer == "unsat" and proof.splitlines()[-1].split()[1] == "0"


def test_a_clausal_proof_is_made_on_the_contracted_dag(tmp_path):
    """attention_forward(2,1) at M = 6, one-shot (optimum 10, the contracted DAG's too): the
    CNF refuted is the contracted DAG's, one compute step per group, and the check re-encodes
    it from the DAG contracted again; resealed without the lemma, the CNF is not the DAG's."""
    pytest.importorskip("pysat")
    from ioverify.game.lemmas import CHAIN_CONTRACTION, contract_chains

    dag = attention_forward(2, 1)
    dag_file = tmp_path / "af21.json"
    dag_file.write_text(json.dumps(dag_to_dict(dag)))
    folder = tmp_path / "opt"
    assert main(["pebble", str(dag_file), "-M", "6", "--one-shot", "--proof-kind", "clausal",
                 "--proof", str(folder)]) == EXIT_OK
    evidence = json.loads((folder / "certificate.json").read_text())["verdict"]["evidence"]
    contracted = contract_chains(dag)
    assert evidence["contracted"] == CHAIN_CONTRACTION
    assert evidence["steps"] == sum(1 for v in contracted.useful if not contracted.is_input[v])
    outcome = check_file(folder / "certificate.json")
    assert outcome.outcome == "accepted", outcome
    assert any("chains contracted again" in line for line in outcome.rechecked)
    reason = rejection(reseal(folder, lambda doc: doc["verdict"]["evidence"].pop("contracted")))
    assert "evidence steps" in reason
