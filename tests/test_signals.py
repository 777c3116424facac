"""Ctrl-C and SIGTERM stop a solver working in C at once (``ioverify._signals``): before, both
waited for the solve call to return, as long as the whole --timeout."""

import signal
import subprocess
import sys
import textwrap

import pytest

# A script run in its own process: a solve call that would take minutes, a signal after 1 s,
# the seconds until the Python handler ran (the CLI's handlers: KeyboardInterrupt for both).
SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    from ioverify import _signals

    def on_term(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)
    solver, name = sys.argv[1], sys.argv[2]
    holes = 10 if solver.startswith("glucose") else 9
    var = lambda p, h: p * holes + h + 1
    clauses = [[var(p, h) for h in range(holes)] for p in range(holes + 1)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(holes)
                for p in range(holes + 1) for q in range(p + 1, holes + 1)]
    if solver == "cp-sat":
        from ioverify.dag import attention_forward
        from ioverify.game.greedy import greedy_schedule
        from ioverify.search import cpsat
        dag = attention_forward(2, 2)
        solve = lambda: cpsat.solve(dag, 3, "one-shot", greedy_schedule(dag, 3), 120.0).status
    elif solver.startswith("glucose"):
        from ioverify.solve.backends import SatQuery
        query = SatQuery(clauses, holes * (holes + 1), {}, [])
        # with a timeout the call runs in a child process, which the parent kills
        timeout = 600.0 if solver == "glucose-timed" else None
        solve = lambda: query.check(0, timeout)
    else:
        import z3
        from ioverify.solve.query import Query
        query = Query()
        b = {v: z3.Bool(str(v), query.ctx) for c in clauses for v in map(abs, c)}
        for c in clauses:
            query.solver.add(z3.Or([b[v] if v > 0 else z3.Not(b[-v]) for v in c]))
        solve = query.check
    with _signals.watch():
        threading.Timer(1.0, os.kill, (os.getpid(), getattr(signal, name))).start()
        start = time.monotonic()
        try:
            print("answered", solve())
        except KeyboardInterrupt:
            print("handled after", round(time.monotonic() - start, 2))
""")


@pytest.mark.parametrize("solver", ["glucose", "glucose-timed", "z3", "cp-sat"])
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_reaches_a_solver_working_in_c(solver, name):
    """For CP-SAT (the peer baseline and the curve's upper-bound worker) the bug was worse:
    its own SIGINT handler ended the search and the command went on to the next cell."""
    if solver.startswith("glucose"):
        pytest.importorskip("pysat")
    if solver == "cp-sat":
        pytest.importorskip("ortools")
    # SIGINT as at a terminal even where the tests run with it ignored (a background job)
    done = subprocess.run([sys.executable, "-c", SCRIPT, solver, name], capture_output=True,
                          text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    words = done.stdout.split()
    assert words[:2] == ["handled", "after"], done.stdout + done.stderr
    assert float(words[2]) < 4.0  # the signal came at 1 s; the solve alone takes minutes


def test_watching_outside_the_main_thread_changes_nothing():
    import threading

    from ioverify import _signals

    seen = []

    def run():
        with _signals.watch():
            seen.append(_signals.STOP.is_set())

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [False]


def test_a_signal_handled_in_one_command_stops_nothing_in_the_next():
    """The flag lives as long as the command that saw the signal: a library user who catches
    KeyboardInterrupt and goes on does not find every later solve interrupted."""
    import os

    from ioverify import _signals

    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with pytest.raises(KeyboardInterrupt):
            with _signals.watch():
                os.kill(os.getpid(), signal.SIGINT)
                assert _signals.STOP.wait(5)  # set by the relay thread, not by the handler
                assert seen == [signal.SIGINT]
                raise KeyboardInterrupt  # as the default handler would
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not _signals.STOP.is_set()


@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_to_the_curve_ends_its_worker_processes_at_once(tmp_path, name, code):
    """The curve's cells run in worker processes; on Ctrl-C or SIGTERM (to the command alone,
    as a job scheduler sends it) the command ended only once the running cells had used their
    slices: 33.4 s on this curve."""
    import time

    from ioverify.dag import attention_forward
    from ioverify.dag.jsonio import dag_to_json

    dag = tmp_path / "af22.json"
    dag.write_text(dag_to_json(attention_forward(2, 2)))
    command = subprocess.Popen(
        [sys.executable, "-m", "ioverify", "pebble", str(dag), "-M", "3..6", "--timeout", "120",
         "--jobs", "2", "--no-cp-sat"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(6.0)  # the cells at M = 3 and 4 are running in the workers (17 s or more)
        sent = time.monotonic()
        command.send_signal(getattr(signal, name))
        assert command.wait(timeout=60) == code
        assert time.monotonic() - sent < 10.0
    finally:
        command.kill()
        command.wait()
