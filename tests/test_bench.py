"""``ioverify bench SUITE --json`` (issue 19): one JSON object per run, with the suite's status
and exit code, and one record per row of the table, each with its own status in the one
outcome vocabulary (``ioverify.errors.EXIT_CODES``), as ``certificate check --json`` and
``pebble --json`` report theirs."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys

import pytest

from ioverify.bench import SUITES, Rows, summary
from ioverify.errors import EXIT_CODES, exit_code_of


def _bench_json(suite: str) -> tuple[dict, int]:
    done = subprocess.run([sys.executable, "-m", "ioverify", "bench", suite, "--quick", "--json"],
                          capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout), done.returncode


def _check_document(doc: dict, code: int, suite: str) -> None:
    assert doc["suite"] == suite and doc["quick"] is True
    assert doc["exit_code"] == code == exit_code_of(doc["status"])
    assert doc["rows"], "a suite reports at least one row"
    for record in doc["rows"]:
        assert record["status"] in EXIT_CODES and record["table"]
    targets = [exit_code_of(r["status"]) for r in doc["rows"] if r.get("target", True)]
    assert code == 0 or code in targets  # the suite's status is one of its rows'


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_every_suite_reports_through_rows(suite):
    run = importlib.import_module(SUITES[suite]).run
    assert "out" in inspect.signature(run).parameters


@pytest.mark.parametrize("suite", ["families", "replay", "exhaustive"])
def test_bench_json_has_one_record_per_row_with_a_status(suite):
    doc, code = _bench_json(suite)
    _check_document(doc, code, suite)
    assert code == 0


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["pebble", "pebble-z3", "partition", "kernels",
                                   "kernels-extra", "proofs"])
def test_bench_json_of_the_solver_and_kernel_suites(suite):
    doc, code = _bench_json(suite)
    _check_document(doc, code, suite)


def test_bench_json_rows_match_the_text_table(capsys):
    from ioverify.bench import families

    families.run(quick=True)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln and "family" not in ln]
    out = Rows(as_json=True)
    families.run(quick=True, out=out)
    assert capsys.readouterr().out == ""  # JSON mode prints nothing until the end
    assert [r["family"] for r in out.records] == [ln.split()[0] for ln in lines]
    assert [r["vertices"] for r in out.records] == [int(ln.split()[-3]) for ln in lines]


def test_the_exhaustive_suite_marks_a_wrong_optimum_refuted(monkeypatch):
    from ioverify.bench import exhaustive

    wrong = tuple((label, b, a, m, None if e is None else e + 1)
                  for label, b, a, m, e in exhaustive.CASES[:1])
    monkeypatch.setattr(exhaustive, "CASES", wrong)
    out = Rows(as_json=True)
    code = exhaustive.run(quick=True, out=out)
    doc = summary("exhaustive", True, code, out)
    assert code == 1 and doc["status"] == "refuted" and doc["exit_code"] == 1
    assert [r["status"] for r in doc["rows"]] == ["refuted", "optimal"]  # one-shot: no reference


def test_a_row_status_outside_the_vocabulary_is_a_bug():
    with pytest.raises(ValueError, match="EXIT_CODES"):
        Rows(as_json=True).row("t", "fine", "text")
