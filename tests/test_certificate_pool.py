"""``ioverify certificate check --jobs N --timeout S``: files re-checked on worker processes,
reported in the order given as each is done, and a wall-clock limit that leaves an unfinished
file not re-checked (exit 3), never accepted or rejected.

Before, the command re-checked one file after another in one process, printed nothing until the
last was done, and took no limit: re-checking the shipped certificates took well over ten
minutes, attention_backward(2, 1) at M = 3 alone 147 s (its exhaustive re-search, in Python)."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ioverify.certificate.format import NotRechecked
from ioverify.certificate.recheck import check, check_file
from ioverify.cli import main

SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "claims" / "certificates"
QUICK = sorted(SHIPPED.glob("attention-backward-tiny-optima--00*.json"))  # 0.5 s each
SLOW = SHIPPED / "attention-backward-2x1-optima--000.json"  # minutes: M = 3, its re-search


@pytest.fixture(autouse=True)
def _address_space_restored():
    """The command caps its process's address space (--max-memory, by default half the
    machine): run in this process, it must not cap the tests after it."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS)
    yield
    resource.setrlimit(resource.RLIMIT_AS, before)


def _records(capsys, *argv) -> tuple[int, list[dict]]:
    code = main(["certificate", "check", "--json", *map(str, argv)])
    return code, json.loads(capsys.readouterr().out)["files"]


def test_the_shipped_certificates_it_reads_exist():
    assert len(QUICK) == 5 and SLOW.is_file()


def test_workers_give_the_outcomes_of_one_process_in_the_order_given(capsys):
    files = QUICK[::-1]
    alone = _records(capsys, *files, "--jobs", "1")
    pooled = _records(capsys, *files, "--jobs", "2")
    assert alone == pooled
    assert alone[0] == 0
    assert [record["path"] for record in pooled[1]] == [str(path) for path in files]
    assert {record["outcome"] for record in pooled[1]} == {"accepted"}


def test_text_output_names_each_file_in_the_order_given(capsys):
    code = main(["certificate", "check", "--jobs", "2", *map(str, QUICK[:3])])
    heads = [line for line in capsys.readouterr().out.splitlines()
             if not line.startswith(" ")]
    assert code == 0
    assert heads == [f"{path}: accepted (optimal)" for path in QUICK[:3]]


def test_a_file_unfinished_at_the_timeout_is_not_rechecked(capsys):
    start = time.monotonic()
    code, records = _records(capsys, SLOW, QUICK[0], "--timeout", "10", "--jobs", "2")
    assert time.monotonic() - start < 40.0  # the re-search alone takes minutes
    assert code == 3
    assert records[0]["outcome"] == "not re-checked"
    assert "time limit" in records[0]["reason"]
    assert records[1]["outcome"] == "accepted"  # the other worker had the time it needed


def test_one_process_keeps_the_timeout_too(capsys):
    code, records = _records(capsys, SLOW, "--timeout", "2", "--jobs", "1")
    assert code == 3 and records[0]["outcome"] == "not re-checked"


def test_a_deadline_already_passed_rechecks_nothing():
    outcome = check_file(QUICK[0], deadline=time.monotonic() - 1.0)
    assert outcome.outcome == "not re-checked"
    assert outcome.exit_code == 3


def test_a_re_search_stopped_by_the_deadline_is_not_rechecked_not_rejected():
    doc = json.loads(SLOW.read_text())
    start = time.monotonic()
    with pytest.raises(NotRechecked, match="time limit passed before the exhaustive re-search"):
        check(doc, SLOW.parent, (SLOW.name,), deadline=time.monotonic() + 1.0)
    assert time.monotonic() - start < 30.0


@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_ends_the_workers_at_once(name, code):
    command = subprocess.Popen(
        [sys.executable, "-m", "ioverify", "certificate", "check", str(SLOW), str(SLOW),
         "--jobs", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(4.0)  # both workers are in their re-searches
        sent = time.monotonic()
        command.send_signal(getattr(signal, name))
        assert command.wait(timeout=60) == code
        assert time.monotonic() - sent < 10.0
        assert "Traceback" not in command.stderr.read()
    finally:
        command.kill()
        command.wait()


def test_a_re_check_out_of_memory_is_not_rechecked(monkeypatch):
    """Before, a re-search past the memory budget was an internal error, "a bug in ioverify"."""
    from ioverify.certificate import recheck

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(recheck, "check", exhausted)
    outcome = check_file(QUICK[0])
    assert outcome.outcome == "not re-checked" and "out of memory" in outcome.reason


def test_the_memory_budget_is_a_usage_check(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["certificate", "check", str(QUICK[0]), "--max-memory", "100"])
    assert stop.value.code == 2
    assert "too little" in capsys.readouterr().err
