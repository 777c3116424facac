"""``ioverify check`` end to end on a user's own claim file, certificates and their re-check."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ioverify.cli import main
from resealing import drop_last_store

CLAIM_FILE = '''
from ioverify.claims.claim import Claim, exact_search

CLAIMS = [Claim(
    id="{id}", title="Pyramid of height 3", statement="{statement}",
    source="a user's belief", firmness="user", variant="recompute",
    obligations=tuple(exact_search("{id}", "pyramid", {{"height": 3}}, memory, **kw)
                      for memory, kw in {grid}),
)]
'''


def write_claim(folder: Path, claim_id: str, grid: str, statement="A pebbling bound.") -> Path:
    path = folder / f"{claim_id.replace('-', '_')}.py"
    path.write_text(CLAIM_FILE.format(id=claim_id, grid=grid, statement=statement))
    return path


def run_check(tmp_path, *args):
    return main(["check", *map(str, args), "--certificates", str(tmp_path / "certs"),
                 "--docs", str(tmp_path / "pages"), "--quiet", "--jobs", "1"])


def test_true_claim_is_verified_with_certificates_and_pages(tmp_path, capsys):
    path = write_claim(tmp_path, "pyramid-optima",
                       '[(3, {"optimum": 11}), (4, {"optimum": 7}), (5, {"lower_bound": 5})]')
    assert run_check(tmp_path, path) == 0
    out = capsys.readouterr().out
    assert "overall: optimal" in out or "overall: verified" in out
    certs = sorted((tmp_path / "certs").glob("*.json"))
    assert len(certs) == 3
    page = (tmp_path / "pages" / "pyramid-optima.md").read_text()
    assert "Pyramid of height 3" in page and "pyramid(height=3)/M=3" in page
    assert main(["certificate", "check", *map(str, certs)]) == 0


def test_false_claim_is_refuted_with_a_replayable_schedule(tmp_path, capsys):
    path = write_claim(tmp_path, "pyramid-too-strong", '[(3, {"lower_bound": 12})]')
    assert run_check(tmp_path, path) == 1
    (cert,) = (tmp_path / "certs").glob("*.json")
    doc = json.loads(cert.read_text())
    assert doc["verdict"]["status"] == "refuted"
    assert doc["verdict"]["io"] == 11 and doc["witness"]["schedule"]["moves"]
    capsys.readouterr()
    assert main(["certificate", "check", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "accepted (refuted)" in out
    assert "witness schedule replayed at M = 3 (recompute): 11 I/O" in out


def _certificate(tmp_path) -> Path:
    path = write_claim(tmp_path, "pyramid-m3", '[(3, {"optimum": 11})]')
    assert run_check(tmp_path, path) == 0
    (cert,) = (tmp_path / "certs").glob("*.json")
    return cert


def _reseal(doc):
    from ioverify.certificate.format import seal

    return seal({k: v for k, v in doc.items() if k not in ("digest", "format", "version")})


@pytest.mark.parametrize("tamper, reason", [
    ("edit-io", "certificate digest does not match"), ("edit-io-resealed", "verdict io"),
    ("drop-move-resealed", "witness schedule does not replay"),
    ("swap-dag-resealed", "instance: the embedded DAG")])
def test_tampered_certificate_is_rejected(tmp_path, capsys, tamper, reason):
    cert = _certificate(tmp_path)
    doc = json.loads(cert.read_text())
    if tamper.startswith("edit-io"):
        doc["verdict"]["io"] = 10
    elif tamper == "drop-move-resealed":
        drop_last_store(doc["witness"]["schedule"]["moves"])
    else:
        doc["instance"]["dag"]["edges"].pop()
    if tamper.endswith("resealed"):
        doc = _reseal(doc)
    cert.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["certificate", "check", str(cert)]) == 1
    assert f"{cert}: rejected: {reason}" in capsys.readouterr().out


def test_misversioned_certificate_is_bad_input(tmp_path, capsys):
    cert = _certificate(tmp_path)
    doc = json.loads(cert.read_text())
    doc["version"] = 99
    cert.write_text(json.dumps(doc))
    assert main(["certificate", "check", str(cert)]) == 2
    err = capsys.readouterr().err
    assert "version 99" in err and len(err.strip().splitlines()) == 1


def test_certificate_check_does_not_import_z3(tmp_path):
    cert = _certificate(tmp_path)
    code = textwrap.dedent(f"""
        import sys
        sys.modules["z3"] = None  # any import of z3 now fails
        from ioverify.cli import main
        sys.exit(main(["certificate", "check", {str(cert)!r}]))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_bad_claim_file_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("CLAIMS = 3\n")
    assert run_check(tmp_path, bad) == 2
    err = capsys.readouterr().err.strip()
    assert "CLAIMS" in err and len(err.splitlines()) == 1
    assert run_check(tmp_path, tmp_path / "missing.py") == 2


def _strip_seconds(obj):
    if isinstance(obj, dict):
        return {k: _strip_seconds(v) for k, v in obj.items() if k not in ("seconds", "digest")}
    if isinstance(obj, list):
        return [_strip_seconds(v) for v in obj]
    return obj


def _results(tmp_path, claim, *extra):
    out = tmp_path / "out"
    jobs = [] if "--jobs" in extra else ["--jobs", "1"]
    assert main(["check", str(claim), "--certificates", str(out), "--docs", str(out / "p"),
                 "--quiet", *jobs, *extra]) == 0
    return {p.name: _strip_seconds(json.loads(p.read_text())) for p in sorted(out.glob("*.json"))}


def test_jobs_give_identical_results(tmp_path):
    claim = write_claim(tmp_path, "pyramid-grid", '[(m, {"lower_bound": 5}) for m in (3, 4, 5)]')
    serial = _results(tmp_path / "a", claim)
    parallel = _results(tmp_path / "b", claim, "--jobs", "2")
    assert serial == parallel and len(serial) == 3


def test_dask_cluster_gives_identical_results(tmp_path):
    distributed = pytest.importorskip("distributed")
    claim = write_claim(tmp_path, "pyramid-grid", '[(m, {"lower_bound": 5}) for m in (3, 4)]')
    serial = _results(tmp_path / "a", claim)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = _results(tmp_path / "b", claim, "--scheduler", cluster.scheduler_address)
    assert serial == remote


def test_json_output_is_one_object(tmp_path, capsys):
    path = write_claim(tmp_path, "pyramid-json", '[(3, {"lower_bound": 12}), (4, {"optimum": 7})]')
    assert main(["check", str(path), "--json", "--jobs", "1", "--certificates",
                 str(tmp_path / "c"), "--docs", str(tmp_path / "d")]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "refuted"
    (claim,) = doc["claims"]
    assert [o["status"] for o in claim["obligations"]] == ["refuted", "optimal"]
    assert "beats the claimed lower bound 12" in claim["obligations"][0]["message"]
    assert len(doc["certificates"]) == 2


def test_user_claims_never_replace_the_shipped_pages(tmp_path, monkeypatch):
    """``ioverify check my_claims.py`` writes its pages to ./ioverify-pages, not docs/claims."""
    path = write_claim(tmp_path, "pyramid-mine", '[(4, {"optimum": 7})]')
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs" / "claims").mkdir(parents=True)
    shipped_index = tmp_path / "docs" / "claims" / "index.md"
    shipped_index.write_text("the shipped index\n")
    assert main(["check", str(path), "--quiet", "--jobs", "1"]) == 0
    assert shipped_index.read_text() == "the shipped index\n"
    assert (tmp_path / "ioverify-pages" / "pyramid-mine.md").exists()


def test_pages_carry_no_run_times_or_versions(tmp_path):
    """Checking the same claims twice writes the same pages (a checkout stays clean)."""
    path = write_claim(tmp_path, "pyramid-twice", '[(3, {"optimum": 11}), (4, {"optimum": 7})]')
    first = tmp_path / "first"
    for folder in ("first", "second"):
        assert main(["check", str(path), "--certificates", str(tmp_path / "c"), "--docs",
                     str(tmp_path / folder), "--quiet", "--jobs", "1"]) == 0
    for page in first.glob("*.md"):
        assert page.read_text() == (tmp_path / "second" / page.name).read_text()
        assert "seconds" not in page.read_text().split("## Grid checked")[-1].split("\n")[2]
        assert "z3-solver" not in page.read_text()


def test_rewriting_a_claim_removes_its_stale_certificates(tmp_path):
    """A claim re-run with fewer obligations leaves no certificate of the earlier run behind."""
    run_check(tmp_path, write_claim(tmp_path, "pyramid-shrinks", '[(3, {}), (4, {}), (5, {})]'))
    assert len(list((tmp_path / "certs").glob("pyramid-shrinks--*.json"))) == 3
    run_check(tmp_path, write_claim(tmp_path, "pyramid-shrinks", '[(4, {})]'))
    assert [p.name for p in (tmp_path / "certs").glob("pyramid-shrinks--*.json")] == \
        ["pyramid-shrinks--000.json"]


def test_an_interrupted_check_keeps_the_certificates_it_finished(tmp_path, monkeypatch, capsys):
    """Ctrl-C after the first obligation: exit 130, and that obligation's certificate is there
    (and re-checks), not lost with the rest of the run."""
    import importlib

    runner = importlib.import_module("ioverify.claims.check")  # the name the runner calls
    real, calls = runner.run, []

    def interrupt_second(obligation, budget):
        calls.append(obligation)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(obligation, budget)

    monkeypatch.setattr(runner, "run", interrupt_second)
    path = write_claim(tmp_path, "pyramid-interrupted", '[(3, {}), (4, {}), (5, {})]')
    assert run_check(tmp_path, path) == 130
    assert len(calls) == 2
    kept = sorted((tmp_path / "certs").glob("pyramid-interrupted--*.json"))
    assert [p.name for p in kept] == ["pyramid-interrupted--000.json"]
    monkeypatch.setattr(runner, "run", real)
    assert main(["certificate", "check", str(kept[0])]) == 0


def test_a_wide_obligation_runs_alone_first_on_every_core(tmp_path, caplog):
    """On a pool, a wide obligation runs before the others, with the budget's processes set to
    the pool's size (its certificate records it); the others, and every obligation of a serial
    check, run with one process, and their certificates record the budget as before.  An
    obligation's time factor multiplies the budget's seconds either way."""
    import logging

    path = write_claim(tmp_path, "pyramid-wide",
                       '[(5, {"lower_bound": 5, "heavy": True}), '
                       '(3, {"optimum": 11, "wide": True}), (4, {"optimum": 7, "time_factor": 3})]')
    for jobs, wide_processes in (("2", 2), ("1", None)):
        out = tmp_path / f"jobs{jobs}"
        with caplog.at_level(logging.INFO, logger="ioverify.check"):
            caplog.clear()
            assert main(["check", str(path), "--certificates", str(out), "--docs",
                         str(out / "p"), "--quiet", "--jobs", jobs]) == 0
        docs = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
        processes = [doc["detail"]["budget"].get("processes") for doc in docs]
        assert processes == [None, wide_processes, None]
        assert [doc["detail"]["budget"]["timeout"] for doc in docs] == [120.0, 120.0, 360.0]
        assert all(doc["obligation"].keys() == {"id", "claim", "kind", "spec", "heavy"}
                   for doc in docs)
        finished = [r.getMessage() for r in caplog.records if r.name == "ioverify.check"]
        assert len(finished) == 3
        # wide first on a pool; serially it is one heavy obligation among others
        assert ("M=3" in finished[0]) == (jobs == "2") and "M=4" in finished[2]
        assert ("alone on every core" in finished[0]) == (jobs == "2")
        assert all("s left)" in line for line in finished[1:])
        assert main(["certificate", "check", *map(str, sorted(out.glob("*.json")))]) == 0


def test_wide_is_scheduling_not_part_of_the_obligation():
    from ioverify.claims.claim import Obligation, exact_search
    from ioverify.errors import InvalidArgument

    wide = exact_search("c", "pyramid", {"height": 3}, 3, optimum=11, wide=True)
    plain = exact_search("c", "pyramid", {"height": 3}, 3, optimum=11, heavy=True)
    assert wide.wide and wide.heavy and wide == plain
    assert wide.to_json() == plain.to_json() and "wide" not in wide.to_json()
    assert not Obligation.from_json(wide.to_json()).wide
    longer = exact_search("c", "pyramid", {"height": 3}, 3, optimum=11, time_factor=2)
    assert longer == exact_search("c", "pyramid", {"height": 3}, 3, optimum=11)
    with pytest.raises(InvalidArgument, match="time_factor must be an integer >= 1, got 0"):
        exact_search("c", "pyramid", {"height": 3}, 3, optimum=11, time_factor=0)
