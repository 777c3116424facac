"""The race of ``ioverify.search.pebbling`` on two cores: the exhaustive search with the
abstraction bound in this process, the one without it in a child process, each with the whole
time left (in one process the two take turns, ``pebbling._race``).

The child is a fresh interpreter (``python -m ioverify.search.apart``, in a session of its own,
so that it never re-runs the caller's main module and a Ctrl-C at the terminal reaches only this
process).  It reads its task (the DAG, M, the variant, ``below``, the seconds left, its state
cap, memory limit and the workers it may farm out to) pickled on its standard input, then
listens there for orders (THE HAND-OVER), builds the search without a bound, and
writes pickled reports on its standard output: its proved A* level after every REPORT_EVERY
seconds, then its result.  Nothing it sends is a premise beyond what the same search run here
would be: a schedule it finds is replayed by the caller (``pebbling._record``) and its level is
what its own search proved (a paused search's level is proved, ``ExhaustiveRun``).  Limits:

- the state cap is split evenly (each search stores at most half of it), and so is the memory
  budget (``--max-memory``, the soft address-space limit of this process, when one is set)
  beyond what this process uses already (``children.halved_memory``): it keeps that and half
  of the rest during the race, the child gets the other half (none if that is below
  ``children.CHILD_MIN_MEMORY``: then the race runs in one process); at the hand-over this
  process, whose search stops, lends the child what it does not use
  (``children.lend_memory``, Linux), and the child shares what it has with its workers as
  above;
- the child stops at the same deadline; past it the caller waits at most GRACE seconds for its
  last word, then kills it and keeps the last level it reported;
- Ctrl-C and SIGTERM are this process's to handle: whatever ends the race here (the answer, the
  deadline, an exception) kills the child before returning.

THE HAND-OVER.  Once this process has searched for PROBE of the time, the race goes on only
while its search is not forecast behind the child's (``forecast``: the level each would reach
with the time left); once it is, it stops where it paused (its level stays proved) and tells
the child, which from its next report on has its expansions made by ``processes`` workers of
its own (``ioverify.search.farm``, ``ExhaustiveRun.farm_out``): the search ahead then has both
cores (sparse_forward(causal 3,1) at M = 4 in recompute: the search with the bound stores
2,187 configurations in 200 s, the one without it 279,146 in 55 s).

THE HAND-BACK.  The other way round: once the search here is forecast at least AHEAD_BY
levels above the child's (``_ahead``), and is above it now, the child is stopped (its last
level stays proved) and the search here goes on with its expansions, and its bound's asks,
made by ``processes`` workers, each holding the same bound rebuilt with the values it
remembers (``farm``, ``AbstractionBound.recipe``), and the whole state budget.  The workers
repeat some of each other's restricted searches, so the search costs about a third more CPU
(attention_forward(2,2) at M = 4 in recompute, the DAG contracted with its inputs as roots,
below 36: 93 s alone; farmed out after 5 s, 12.5 s here and 107.6 s in two workers), on both
cores.

A child that fails or ends without its result is a bug: ``InternalError`` with what it said.
Exhausted memory is a limit, on either side: the child's search counts as stopped at its last
level; the search here, out of memory, stops at its last level, lets go of its configurations
and hands the race over as above (``stop_out_of_memory``), so the child goes on with the time
and the memory left instead of the whole race ending.
"""

from __future__ import annotations

import math
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from contextlib import ExitStack

from ioverify.errors import InternalError
from ioverify.game import engine
from ioverify.game.exhaustive import ExhaustiveRun, SearchResult
from ioverify.search import farm
from ioverify.search.children import (CHILD_MIN_MEMORY, halved_memory, lend_memory,
                                       memory_pressed, reclaim_memory, start_child)

REPORT_EVERY = 1.0  # seconds between two reports of the child's level
PROBE = 1 / 8  # of the time, searched here before the race may be handed over
SLICE = 0.5  # seconds this process searches between two looks at the child's reports
# The reason a run stopped at the hand-over gives.
HANDED_OVER = "handed over to the search without the bound, forecast ahead"
# Seconds past the deadline to wait for the child's last report (it stops at the same deadline
# and sends at once; later, the level it reported last, at most REPORT_EVERY old, stands):
# short, since --timeout bounds the whole command.
GRACE = 0.25
# Seconds the child has to end its workers once told to stop (0.03 s to 0.06 s measured); a
# child caught in a long step (a collection of a large heap) is killed after it, and its
# workers, if any, end on the end of their input.
END_WAIT = 0.5
# The reason the child's search gives when the search here, forecast ahead, stops it.
HANDED_BACK = "the search without the bound, forecast behind, stopped"
# THE HAND-BACK: levels the search here must be forecast ahead of the child's.
AHEAD_BY = 2
# The reason a search stopped by exhausted memory gives (its level stands).
OUT_OF_MEMORY = "the process ran out of memory"


def default_processes() -> int:
    """The processes a single search uses unless told otherwise (``ioverify pebble`` without
    ``--jobs``, ``ioverify bench frontier``): two when the machine has two cores, else one."""
    return min(2, os.cpu_count() or 1)


def race_apart(run: ExhaustiveRun, deadline: float, max_states: int, processes: int = 2,
               report=None, seen=None) -> tuple[SearchResult, SearchResult] | None:
    """(``run``'s result, the result of the same search without a bound in a child process),
    each searching until one finishes or ``deadline`` (a ``time.monotonic()`` value) passes,
    each storing at most half of ``max_states`` configurations, ``run`` only until it is
    forecast behind (THE HAND-OVER; ``processes``: the child's workers then, none if below
    2; ``run`` then stops and lets go of its configurations, and the child may store all of
    ``max_states``: attention_backward(2,1) at M = 4 and 5 in one-shot stopped at half of
    20,000,000 at about 230 s and 290 s of 600, level 46 and 36, 2026-11-30).  A result not
    finished is stopped at its last proved level.  None, with nothing searched, if no child
    process can be started, or only with less than CHILD_MIN_MEMORY (the caller then races
    in one process).
    ``report``: called with a line on the hand-over, for the user; ``seen``: called with
    each level either search reports proved, for the progress lines."""
    half = max(1, max_states // 2)
    with halved_memory() as child_memory:
        if child_memory is not None and child_memory < CHILD_MIN_MEMORY:
            return None
        try:
            child = _start(run, deadline - time.monotonic(), half, child_memory, processes)
        except OSError:  # no process to be had (a process limit, no memory to start one)
            return None
        listener = _Listener(child, seen)
        try:
            with ExitStack() as farmed:  # THE HAND-BACK's workers, ended with the race
                here = _search_here(run, listener, deadline, half, processes, farmed, report,
                                    child_memory)
            if listener.handed_over and report is not None:
                why = ("the search with the bound ran out of memory; the search without it"
                       if here is not None else "the search without the bound, forecast ahead,")
                report(f"{why} goes on with {processes} processes")
            _wait_for(listener, here, deadline)
        finally:
            _end(child)
            for stream in (child.stdin, child.stdout):
                try:
                    stream.close()
                except OSError:  # an order left in the buffer of a pipe no one reads
                    pass
    if here is None:  # handed over, the run stopped already: its result is kept
        here = run.stopped(HANDED_OVER if listener.handed_over else "time shared out")
    return here, listener.result()


def _end(child: subprocess.Popen) -> None:
    """End the child: SIGTERM, on which it ends its workers (if it has farmed out) and exits,
    then after END_WAIT seconds SIGKILL."""
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(timeout=END_WAIT)
        except subprocess.TimeoutExpired:
            child.kill()
    child.wait()


def _start(run: ExhaustiveRun, seconds: float, max_states: int,
           memory_limit: int | None, processes: int) -> subprocess.Popen:
    """The child process, its task written to its standard input (kept open for the
    hand-over)."""
    child = start_child("ioverify.search.apart")
    task = (run.dag, run.memory, run.variant, run.below, seconds, max_states, memory_limit,
            processes)
    try:
        pickle.dump(task, child.stdin)
        child.stdin.flush()
    except BaseException:
        child.kill()
        child.wait()
        raise
    return child


def _search_here(run: ExhaustiveRun, listener: "_Listener", deadline: float, cap: int,
                 processes: int, farmed: ExitStack, report=None,
                 child_memory: int | None = None) -> SearchResult | None:
    """Advance ``run`` a SLICE at a time until it ends, the child finishes, the deadline
    passes or (``processes`` > 1) the race is handed over or back (THE HAND-BACK: the
    workers kept in ``farmed``); its result if it ended, or if it ran out of memory (then
    stopped at its last level, and the race handed over whatever ``processes``: the child
    is all that can go on).  ``report``: as ``relieve`` takes it, and told of the
    hand-back; ``child_memory``: the child's share of the memory budget, taken back at the
    hand-back."""
    total, base = deadline - time.monotonic(), run.seconds
    history: list[tuple[float, int]] = []
    handing = processes > 1
    while time.monotonic() < deadline:
        listener.listen()
        if listener.finished:
            return None
        spent, left = run.seconds - base, deadline - time.monotonic()
        if handing and spent >= PROBE * total and listener.history and history:
            if _behind(history, spent, listener, left):
                run.stopped(HANDED_OVER)  # lets go of its configurations: the child takes on
                listener.hand_over()
                return None
            if _ahead(history, spent, listener, left):
                handing, cap = False, 2 * cap  # the child's half of the budget is free
                _hand_back(run, listener, farmed, deadline, processes, report, child_memory)
        try:
            result = run.advance(min(deadline, time.monotonic() + SLICE), cap)
        except MemoryError:
            result = stop_out_of_memory(run)
            listener.hand_over()
            return result
        if result is not None:
            return result
        relieve(run, report)
        history.append((run.seconds - base, run.level))
        listener.saw(run.level)
    return None


def _hand_back(run: ExhaustiveRun, listener: "_Listener", farmed: ExitStack,
               deadline: float, processes: int, report=None,
               child_memory: int | None = None) -> None:
    """THE HAND-BACK: stop the child (its last level stays proved) and let ``processes``
    workers, each holding ``run``'s bound with what it remembers (``farm``), make its
    expansions (``ExhaustiveRun.farm_out``; the workers are kept until ``farmed`` closes),
    with the child's share of the memory budget (``child_memory``) back to split with them.
    If none can be started, ``run`` goes on alone."""
    levels = f" (none below {listener.level} there, {run.level} here)"
    listener.stop()
    reclaim_memory(child_memory)
    recipe = run.search.bound.recipe()
    workers = farmed.enter_context(farm.workers(run.dag, run.memory, run.variant, deadline,
                                                processes, bound=recipe))
    if workers is not None:
        run.farm_out(workers)
    if report is not None:
        report(f"{HANDED_BACK}{levels}; the search with the bound goes on with "
               f"{processes if workers is not None else 1} processes")


def relieve(run: ExhaustiveRun, report=None) -> None:
    """Squeeze ``run`` (``ExhaustiveRun.squeeze``: every level expanded partially from now
    on) once this process's memory is short (``children.memory_pressed``), so that it goes
    on closing levels where it would run out of memory; ``report``: called with a line for
    the user when it does.  For every search that stores configurations in this process,
    called at each of its pauses."""
    if run.squeezed or run.result is not None or not memory_pressed():
        return
    run.squeeze()
    if report is not None:
        report("memory is short: the search now expands every level partially")


def stop_out_of_memory(run: ExhaustiveRun) -> SearchResult:
    """``run``, which just ran out of memory, stopped where it last paused, with its
    configurations let go: exhausted memory is a limit like the clock, and the level it
    proved then stands (matmul(3,3,3) at M = 10 in one-shot had proved none below 31 when it
    ran out at 403 s).  Its bound forgets what it remembered too (``forget``), where it
    can."""
    bound = getattr(run.search, "bound", None)
    result = run.stopped(OUT_OF_MEMORY)
    run.search = None
    if hasattr(bound, "forget"):
        bound.forget()
    return result


def _behind(history: list[tuple[float, int]], spent: float, listener: "_Listener",
            left: float) -> bool:
    """Whether the search here, with its ``history`` over the ``spent`` seconds it
    searched, is behind the child's: its level forecast for the end (``left`` seconds on)
    lower, and the child's level now at least its own.  The hand-over cannot be undone (the
    search here lets go of its configurations), so a forecast alone is not enough: it
    favours the search without the bound, whose first levels are cheap.  In
    attention_forward(2,2) at M = 4 in recompute the child, one or two levels below the 35
    here, was forecast ahead and took the race over at 152 s, when the search here was a few
    seconds from the end (146 s when it was not handed over; docs/performance.md).  The
    race in one process (``pebbling._race``), which can change its mind, goes by the
    forecast alone."""
    if listener.level is None or listener.level < level_at(history, spent):
        return False
    return forecast(history, spent, left) < forecast(listener.history, listener.seconds,
                                                     left)


def _ahead(history: list[tuple[float, int]], spent: float, listener: "_Listener",
           left: float) -> bool:
    """Whether the search here is so far ahead of the child's that the child is stopped
    (THE HAND-BACK): its level now above the child's, still climbing (its forecast for the
    end, ``left`` seconds on, above its level now), and forecast at least AHEAD_BY above the
    child's.  Like the hand-over it cannot be undone, and the search with the bound may
    start high and stall where the child goes on (sparse_forward(causal 3,1) at M = 4 in
    recompute: the search with the bound stored 2,187 configurations in 200 s, the one
    without it 279,146 in 55 s), hence a search that gains nothing is never handed the race."""
    now = level_at(history, spent)
    if listener.level is None or listener.level >= now:
        return False
    ahead = forecast(history, spent, left)
    return ahead > now and ahead >= forecast(listener.history, listener.seconds,
                                             left) + AHEAD_BY


def forecast(history: list[tuple[float, int]], seconds: float, left: float) -> float:
    """A run's level after ``left`` more seconds, if it keeps gaining, at every further
    doubling of its time, what it gained per doubling over the last two (from ``seconds`` / 4
    to ``seconds``): a level costs about twice the one below, and a search that stalls gains
    nothing.  Over the last doubling alone the gain is a whole number, mostly 0 or 1, so a
    search one level into a doubling that costs it a level looked stalled (attention_forward
    (2,2) at M = 4 in recompute went to the search behind; docs/performance.md).
    ``history``: (seconds searched, level proved) after each of its slices."""
    now = level_at(history, seconds)
    if seconds <= 0:
        return now
    gained = (now - level_at(history, seconds / 4)) / 2
    return now + gained * math.log2((seconds + left) / seconds)


def level_at(history: list[tuple[float, int]], seconds: float) -> int:
    """The level a run had proved after ``seconds`` of search, from its history."""
    level = history[0][1] if history else 0
    for spent, reached in history:
        if spent > seconds:
            break
        level = reached
    return level


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
    last proved level, states and seconds, then its result (``over``).  ``seen``: called with
    each level proved, the child's as they come and those ``saw`` is given (or None)."""

    def __init__(self, child: subprocess.Popen, seen=None):
        self.child = child
        self.seen = seen
        self.reports: queue.Queue = queue.Queue()
        self.level: int | None = None
        self.states, self.seconds = 0, 0.0
        self.history: list[tuple[float, int]] = []  # (its seconds, its level), as reported
        self.final: SearchResult | None = None
        self.over = self.handed_over = False
        self.why = "time shared out in the second process"  # why it stopped, if not over
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
                self.history.append((self.seconds, self.level))
                self.saw(self.level)
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

    def saw(self, level: int | None) -> None:
        """Pass a level proved (by either search) on to ``seen``."""
        if self.seen is not None and level is not None:
            self.seen(level)

    def hand_over(self) -> None:
        """Lend the child the memory this process does not use (``children.lend_memory``:
        the search here stops), then tell it to farm its expansions out (THE HAND-OVER); a
        child that has ended already is left to report its end."""
        self.handed_over = True
        lend_memory(self.child.pid)
        try:
            pickle.dump(("farm",), self.child.stdin)
            self.child.stdin.flush()
        except OSError:
            pass

    def stop(self) -> None:
        """THE HAND-BACK: take the reports waiting, then end the child; its search stands
        stopped at the last level it reported (``result``), unless it finished meanwhile."""
        self.listen()
        if not self.over:
            self.over, self.why = True, HANDED_BACK
        _end(self.child)

    def result(self) -> SearchResult:
        """The child's result, or its search stopped at the last level it reported."""
        if self.final is not None:
            return self.final
        below = "" if self.level is None else f" (no schedule below {self.level})"
        return SearchResult(None, None, False, self.states, self.seconds, self.why + below,
                            self.level)


def _child(source, sink) -> None:
    """The child: the search without a bound, its level after each REPORT_EVERY seconds, then
    its result, pickled to ``sink``; told to (an order on ``source``), from its next report
    on with its expansions farmed out (THE HAND-OVER)."""
    dag, memory, variant, below, seconds, max_states, memory_limit, processes = \
        pickle.load(source)
    deadline = time.monotonic() + seconds
    told = threading.Event()
    threading.Thread(target=_orders, args=(source, told), daemon=True,
                     name="ioverify-race-orders").start()

    def send(*message) -> None:
        pickle.dump(message, sink)
        sink.flush()

    try:
        if memory_limit is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS,
                               (memory_limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        run = engine.search().ExhaustiveRun(dag, memory, variant, below=below,
                                            max_states=max_states, deadline=deadline)
        farming, cap = False, None
        with ExitStack() as farmed:
            while (result := run.advance(time.monotonic() + REPORT_EVERY, cap)) is None:
                send("level", run.level, run.states, run.seconds)
                relieve(run)
                if told.is_set() and not farming:
                    # THE HAND-OVER: ``race_apart`` gave this search half the race's state
                    # budget; the search there has stopped and let go of its configurations,
                    # so the whole budget is this search's
                    farming, cap = True, 2 * max_states
                    _farm_out(run, farmed, deadline, processes)
            send("result", result)
    except MemoryError:
        send("out of memory")
    except Exception as error:  # noqa: BLE001 - reported to the parent, which raises it
        send("failed", f"{type(error).__name__}: {error}")


def _stopped(signum, frame) -> None:
    raise SystemExit(128 + signum)


def _orders(source, told: threading.Event) -> None:
    """The parent's orders after the task (only "farm" so far), until its end."""
    try:
        while True:
            if pickle.load(source) == ("farm",):
                told.set()
    except (EOFError, OSError, ValueError, pickle.UnpicklingError):
        pass


def _farm_out(run: ExhaustiveRun, farmed: ExitStack, deadline: float, processes: int) -> None:
    """Hand ``run`` to ``processes`` workers, kept until ``farmed`` closes (if none can be
    started, it goes on here alone)."""
    workers = farmed.enter_context(farm.workers(run.dag, run.memory, run.variant, deadline,
                                                processes))
    if workers is not None:
        run.farm_out(workers)


def _main() -> None:
    """The child process: ``_child``, ending its workers on SIGTERM (``_end``), then out at
    once: the thread listening for orders holds standard input's lock, on which the
    interpreter's own shutdown would wait (and abort)."""
    signal.signal(signal.SIGTERM, _stopped)
    code = 0
    try:
        _child(sys.stdin.buffer, sys.stdout.buffer)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    _main()
