"""The race of ``ioverify.search.pebbling`` on two cores: the exhaustive search with the
abstraction bound in this process, the one without it in a child process, each with the whole
time left (in one process the two take turns, ``pebbling._race``).

The child is a fresh interpreter (``python -m ioverify.search.apart``, in a session of its own,
so that it never re-runs the caller's main module and a Ctrl-C at the terminal reaches only this
process).  It reads its task (the DAG, M, the variant, ``below``, the seconds left, its state
cap and memory limit) pickled on its standard input, builds the search without a bound, and
writes pickled reports on its standard output: its proved A* level after every REPORT_EVERY
seconds, then its result.  Nothing it sends is a premise beyond what the same search run here
would be: a schedule it finds is replayed by the caller (``pebbling._record``) and its level is
what its own search proved (a paused search's level is proved, ``ExhaustiveRun``).  Limits:

- the state cap is split evenly (each search stores at most half of it), and so is the memory
  budget (``--max-memory``, the soft address-space limit of this process, when one is set):
  this process keeps half during the race, the child gets the other half;
- the child stops at the same deadline; past it the caller waits at most GRACE seconds for its
  last word, then kills it and keeps the last level it reported;
- Ctrl-C and SIGTERM are this process's to handle: whatever ends the race here (the answer, the
  deadline, an exception) kills the child before returning.

A child that fails or ends without its result is a bug: ``InternalError`` with what it said.
Exhausted memory is a limit: the child's search counts as stopped at its last level.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

from ioverify.errors import InternalError
from ioverify.game.exhaustive import ExhaustiveRun, SearchResult

REPORT_EVERY = 1.0  # seconds between two reports of the child's level
SLICE = 0.5  # seconds this process searches between two looks at the child's reports
# Seconds past the deadline to wait for the child's last report (it stops at the same deadline
# and sends at once; later, the level it reported last, at most REPORT_EVERY old, stands):
# short, since --timeout bounds the whole command.
GRACE = 0.25


def default_processes() -> int:
    """The processes a single search uses unless told otherwise (``ioverify pebble`` without
    ``--jobs``, ``ioverify bench frontier``): two when the machine has two cores, else one."""
    return min(2, os.cpu_count() or 1)


def race_apart(run: ExhaustiveRun, deadline: float, max_states: int
               ) -> tuple[SearchResult, SearchResult] | None:
    """(``run``'s result, the result of the same search without a bound in a child process),
    each searching until one finishes or ``deadline`` (a ``time.monotonic()`` value) passes,
    each storing at most half of ``max_states`` configurations.  A result not finished is
    stopped at its last proved level.  None, with nothing searched, if no child process can
    be started (the caller then races in one process)."""
    half = max(1, max_states // 2)
    with halved_memory() as child_memory:
        try:
            child = _start(run, deadline - time.monotonic(), half, child_memory)
        except OSError:  # no process to be had (a process limit, no memory to start one)
            return None
        listener = _Listener(child)
        try:
            here = _search_here(run, listener, deadline, half)
            _wait_for(listener, here, deadline)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
            child.stdout.close()
    if here is None:
        here = run.stopped("time shared out")
    return here, listener.result()


def _start(run: ExhaustiveRun, seconds: float, max_states: int,
           memory_limit: int | None) -> subprocess.Popen:
    """The child process, its task written to its standard input."""
    child = start_child("ioverify.search.apart")
    task = (run.dag, run.memory, run.variant, run.below, seconds, max_states, memory_limit)
    try:
        pickle.dump(task, child.stdin)
        child.stdin.close()
    except BaseException:
        child.kill()
        child.wait()
        raise
    return child


def start_child(module: str) -> subprocess.Popen:
    """A fresh interpreter running ``python -m module`` with this process's ioverify, its
    standard input and output piped, in a session of its own (a Ctrl-C at the terminal
    reaches only this process, which ends it)."""
    path = os.pathsep.join(p for p in sys.path if p)  # this process's ioverify, wherever it is
    return subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": path})


def _search_here(run: ExhaustiveRun, listener: "_Listener", deadline: float,
                 cap: int) -> SearchResult | None:
    """Advance ``run`` a SLICE at a time until it ends, the child finishes or the deadline
    passes; its result if it ended."""
    while time.monotonic() < deadline:
        listener.listen()
        if listener.finished:
            return None
        result = run.advance(min(deadline, time.monotonic() + SLICE), cap)
        if result is not None:
            return result
    return None


def _wait_for(listener: "_Listener", here: SearchResult | None, deadline: float) -> None:
    """Unless ``here`` finished, wait for the child's result until GRACE past the deadline."""
    if here is not None and here.complete:
        return
    while not listener.over:
        left = deadline + GRACE - time.monotonic()
        if left <= 0:
            return
        listener.listen(wait=left)


class _Listener:
    """The child's reports as they come (read by a thread, so that looking never blocks): its
    last proved level, states and seconds, then its result (``over``)."""

    def __init__(self, child: subprocess.Popen):
        self.child = child
        self.reports: queue.Queue = queue.Queue()
        self.level: int | None = None
        self.states, self.seconds = 0, 0.0
        self.final: SearchResult | None = None
        self.over = False
        threading.Thread(target=self._read, name="ioverify-race-reader", daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                self.reports.put(pickle.load(self.child.stdout))
        except (EOFError, OSError, ValueError, pickle.UnpicklingError):
            self.reports.put(("ended",))

    @property
    def finished(self) -> bool:
        return self.final is not None and self.final.complete

    def listen(self, wait: float = 0.0) -> None:
        """Take every report waiting, after waiting up to ``wait`` seconds for the first."""
        while not self.over:
            try:
                kind, *detail = self.reports.get(timeout=wait) if wait else \
                    self.reports.get_nowait()
            except queue.Empty:
                return
            wait = 0.0
            if kind == "level":
                self.level, self.states, self.seconds = detail
            elif kind == "result":
                self.final, self.over = detail[0], True
            elif kind == "out of memory":
                self.over = True
            elif kind == "failed":
                raise InternalError(f"the race's second search failed in its process: "
                                    f"{detail[0]}")
            else:
                code = self.child.wait()
                raise InternalError(f"the race's second search ended without its result "
                                    f"(exit code {code})")

    def result(self) -> SearchResult:
        """The child's result, or its search stopped at the last level it reported."""
        if self.final is not None:
            return self.final
        below = "" if self.level is None else f" (no schedule below {self.level})"
        return SearchResult(None, None, False, self.states, self.seconds,
                            "time shared out in the second process" + below, self.level)


@contextmanager
def halved_memory():
    """Within the block this process has half its soft address-space limit; yields the other
    half for the child (None when no limit is set or the platform has none)."""
    try:
        import resource
    except ImportError:
        yield None
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        yield None
        return
    resource.setrlimit(resource.RLIMIT_AS, (soft // 2, hard))
    try:
        yield soft - soft // 2
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _child(source, sink) -> None:
    """The child: the search without a bound, its level after each REPORT_EVERY seconds, then
    its result, pickled to ``sink``."""
    dag, memory, variant, below, seconds, max_states, memory_limit = pickle.load(source)

    def send(*message) -> None:
        pickle.dump(message, sink)
        sink.flush()

    try:
        if memory_limit is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS,
                               (memory_limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        run = ExhaustiveRun(dag, memory, variant, below=below, max_states=max_states,
                            deadline=time.monotonic() + seconds)
        while (result := run.advance(time.monotonic() + REPORT_EVERY)) is None:
            send("level", run.level, run.states, run.seconds)
        send("result", result)
    except MemoryError:
        send("out of memory")
    except Exception as error:  # noqa: BLE001 - reported to the parent, which raises it
        send("failed", f"{type(error).__name__}: {error}")


if __name__ == "__main__":
    _child(sys.stdin.buffer, sys.stdout.buffer)
