"""``--timeout`` counts from the start of the process (Linux), Python's start-up and imports
included: counted from the command's handler, a run took 0.1 to 0.3 s longer than its limit."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from ioverify.cli._clock import MAX_START_UP, command_started, process_age

LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)


@LINUX
def test_the_start_is_the_process_start():
    """A process that slept 1 s before ``main`` has used that second of its limit."""
    done = _python("import time; time.sleep(1.0)\n"
                   "from ioverify.cli._clock import command_started\n"
                   "print(time.monotonic() - command_started(own_process=True))")
    assert done.returncode == 0, done.stderr
    assert 1.0 <= float(done.stdout) < 1.0 + MAX_START_UP


def test_a_caller_s_main_starts_now():
    """``main(argv)`` called by a caller (a test session, a library) starts when it is called:
    that process's age says nothing about the command."""
    before = time.monotonic()
    assert before <= command_started(own_process=False) <= time.monotonic()


@LINUX
def test_an_implausible_age_is_ignored(monkeypatch):
    monkeypatch.setattr("ioverify.cli._clock.process_age", lambda: MAX_START_UP + 1)
    before = time.monotonic()
    assert before <= command_started(own_process=True) <= time.monotonic()
    monkeypatch.setattr("ioverify.cli._clock.process_age", lambda: None)
    assert before <= command_started(own_process=True) <= time.monotonic()


@LINUX
def test_process_age_reads_a_name_with_spaces_and_parentheses(tmp_path):
    """The command name in /proc/self/stat is in parentheses and may hold both."""
    link = tmp_path / "py (x) y"
    link.symlink_to(sys.executable)
    done = subprocess.run([str(link), "-c", "from ioverify.cli._clock import process_age; "
                           "print(process_age())"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert 0.0 <= float(done.stdout) < MAX_START_UP
    assert process_age() is not None


@LINUX
def test_the_timeout_of_pebble_counts_the_start_up(tmp_path):
    """Was: the limit counted from the handler.  A run whose start-up took 1.5 s of a 1 s limit
    now ends unknown at once, nothing searched."""
    dag = tmp_path / "pyramid.json"
    subprocess.run([sys.executable, "-m", "ioverify", "dag", "pyramid", "--height", "6", "-o",
                    str(dag)], check=True, capture_output=True, timeout=120)
    done = _python("import sys, time; time.sleep(1.5)\n"
                   f"sys.argv = ['ioverify', 'pebble', {str(dag)!r}, '-M', '4', '--timeout', '1',"
                   " '--json']\n"
                   "from ioverify.cli import main; sys.exit(main())")
    assert done.returncode == 3, done.stderr
    doc = json.loads(done.stdout)
    assert doc["status"] == "unknown"
    assert doc["seconds"] >= 1.5
