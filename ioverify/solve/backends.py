"""The back ends that decide a pebbling query, behind one protocol (``Backend``): Z3 itself
(``Z3Backend``), or a SAT back end: Z3 bit-blasts the constraints to CNF, Glucose 4 (from
PySAT; interrupted at its time, its process killed if that is not enough: below) decides them,
and the I/O budget is an incremental totalizer whose bound is lowered with assumptions as the
budget descends.

Why: on the 2x2x2 matmul instances the CNF solver proves the final "unsat" several times faster
than Z3's own SAT core on the same constraints (docs/performance.md).  Nothing here is trusted
more than Z3: the clauses come from Z3's own tactics (``card2bv``, ``bit-blast``,
``tseitin-cnf``, no simplification that could eliminate a variable), the totalizer is PySAT's,
and every schedule decoded from a model is replayed by the caller.  If PySAT is not installed,
``available()`` is False and the caller keeps the plain Z3 query.

Work budget: Glucose has no resource units like Z3's ``rlimit``; the deterministic budget it has
is a cap on conflicts or on unit propagations per call.  ``SatQuery`` takes the caller's rlimit as
a propagation cap (``prop_budget``), the closer of the two to what Z3 counts (``ioverify.solve.query``).
A call that reaches it answers "unknown", like an interrupted one.  Glucose checks the cap between
restarts, so a call runs on to its next restart (one that finishes before any restart is never
stopped); where it stops is still the same on every machine.

Wall-clock limits: Glucose sees an interrupt only between conflicts too, and one conflict can
take minutes (sparse_backward(causal 3,1), 84 vertices, M = 10, the recompute encoding of 129
steps: its first call, interrupted after 3 s, returned after 90.8 s, minimising learnt clauses
over a huge trail).  So a call with a timeout runs in a forked child process, interrupted as
before, and killed if it has not answered GRACE seconds after its time (or after Ctrl-C or
SIGTERM, which the parent sees); the model comes back through a pipe.  The parent's solver then
keeps nothing the child learnt: the next call starts from the clauses alone.  Calls without a
timeout (the deterministic, budget-limited ones) run in process as before.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from typing import Callable, Protocol

from ioverify import _signals
from ioverify.errors import DeadlineReached, InternalError

SOLVER = "glucose4"
GRACE = 2.0  # seconds a timed call may run past its time before its child process is killed


class Backend(Protocol):
    """One door to a solver: ``check(budget, timeout)`` asks whether a schedule of at most
    ``budget`` I/O exists and answers "sat", "unsat" or "unknown" (``reason`` says why);
    ``value(var)`` reads a Boolean of the model after "sat"; ``close()`` frees the solver."""

    name: str
    reason: str

    def check(self, budget: int, timeout: float | None) -> str: ...

    def value(self, var) -> bool: ...

    def close(self) -> None: ...


class Z3Backend:
    """The query decided by Z3 itself (used when PySAT is not installed); the query carries the
    rlimit.  ``at_most(budget)`` is the constraint "I/O <= budget" and ``read(model)`` turns a
    model into a function from variables to Booleans: both come from the encoder, so this door
    imports no encoding."""

    name = "z3"

    def __init__(self, query, at_most: Callable, read: Callable):
        self.query, self.at_most, self.read = query, at_most, read
        self.reason, self.values = "", None

    def check(self, budget: int, timeout: float | None) -> str:
        solver = self.query.solver
        if timeout is not None:
            solver.set("timeout", max(1, int(1000 * timeout)))
        solver.add(self.at_most(budget))
        answer = self.query.check()
        if answer == "sat":
            self.values = self.read(self.query.model())
        elif answer != "unsat":
            self.reason = self.query.reason_unknown()
        return answer

    def value(self, var) -> bool:
        return self.values(var)

    def close(self) -> None:
        pass


def name_here() -> str:
    """The SAT back end if PySAT is installed, else Z3: it fixes the unit of the rlimit."""
    return SOLVER if available() else Z3Backend.name


def available() -> bool:
    try:
        import pysat.card  # noqa: F401
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


class SatQuery:
    """One CNF with a descending cardinality bound on ``cost`` (names of Z3 Booleans).
    ``ubound``: the largest budget that will be asked; the totalizer counts only that far
    (its size grows with n times the bound, so a full count of thousands of load literals would
    cost seconds to build).  ``propagations``: the work budget of each ``check`` call (see the
    module docstring); None for none."""

    def __init__(self, clauses, nvars: int, names: dict[str, int], cost: list[str],
                 ubound: int | None = None, propagations: int | None = None,
                 deadline: float | None = None):
        from pysat.solvers import Solver

        self.names = names
        self.solver = Solver(name=SOLVER)
        try:
            self._append(clauses, deadline)
            lits = [names[c] for c in cost if c in names]
            bound = len(lits) if ubound is None else max(0, min(len(lits), ubound))
            self.totalizer = self._totalizer(lits, bound, nvars, deadline) if lits else None
        except DeadlineReached:
            self.solver.delete()
            raise
        self.model: set[int] = set()
        self.reason = ""
        self.propagations = propagations
        self.interrupted = ""

    CHUNK = 10_000  # clauses added between two looks at the clock
    TOTALIZER_CHUNK = 20_000  # about as many totalizer clauses built between two looks

    def _totalizer(self, lits: list[int], bound: int, nvars: int, deadline: float | None):
        """PySAT's incremental totalizer counting ``lits`` up to ``bound``, built in steps of
        the bound (each about TOTALIZER_CHUNK clauses: its size grows with len(lits) times the
        bound) with a look at the clock between two, so that ``deadline`` stops it too."""
        from pysat.card import ITotalizer

        step = max(1, self.TOTALIZER_CHUNK // len(lits))
        totalizer = ITotalizer(lits=lits, ubound=min(bound, step), top_id=nvars)
        try:
            self._append(totalizer.cnf.clauses, deadline)
            while totalizer.ubound < bound:
                if deadline is not None and time.monotonic() >= deadline:
                    raise DeadlineReached("timeout while building the cardinality constraint")
                totalizer.increase(ubound=min(bound, totalizer.ubound + step))
                if totalizer.nof_new:
                    self._append(totalizer.cnf.clauses[-totalizer.nof_new:], deadline)
        except DeadlineReached:
            totalizer.delete()
            raise
        return totalizer

    def _append(self, clauses, deadline: float | None) -> None:
        """Add ``clauses`` to the solver, in chunks; ``DeadlineReached`` once ``deadline`` (a
        ``time.monotonic()`` value) has passed: millions of clauses take seconds to add."""
        for i in range(0, len(clauses), self.CHUNK):
            if deadline is not None and time.monotonic() >= deadline:
                raise DeadlineReached("timeout while loading the CNF into the SAT solver")
            self.solver.append_formula(clauses[i:i + self.CHUNK])

    def check(self, budget: int, timeout: float | None = None) -> str:
        """Is there a model with at most ``budget`` cost literals true?  "sat", "unsat" or
        "unknown" (interrupted by the timeout)."""
        if budget < 0:
            return "unsat"
        assume = []
        if self.totalizer is not None and budget < len(self.totalizer.rhs):
            assume = [-self.totalizer.rhs[budget]]
        elif self.totalizer is not None and budget < len(self.totalizer.lits):
            raise InternalError(f"budget {budget} above the totalizer's bound "
                                f"{len(self.totalizer.rhs) - 1}")
        self.interrupted = ""
        if self.propagations is not None:
            self.solver.prop_budget(self.propagations)  # counted from now: per call
        if timeout is None or not hasattr(os, "fork"):
            end = None if timeout is None else time.monotonic() + timeout
            answer, model = self._solve(assume, end)
        else:
            answer, model = self._solve_in_child(assume, time.monotonic() + timeout)
        if answer is None:
            self.reason = self.interrupted or (
                f"work budget reached ({self.propagations} propagations per solver call, "
                f"the SAT back end's rlimit)")
            return "unknown"
        if answer:
            self.model = model
            return "sat"
        return "unsat"

    def _solve(self, assume: list[int], end: float | None):
        """(Glucose's answer, the model's true variables if sat), interrupted once ``end``
        has passed."""
        # Always polled: Ctrl-C and SIGTERM reach the solver this way (``ioverify._signals``).
        try:
            with _signals.periodically(_signals.POLL, lambda: self._interrupt_if_due(end)):
                answer = self.solver.solve_limited(assumptions=assume, expect_interrupt=True)
        finally:
            self.solver.clear_interrupt()
        model = {lit for lit in self.solver.get_model() if lit > 0} if answer else None
        return answer, model

    def _solve_in_child(self, assume: list[int], end: float):
        """``_solve`` in a forked child, which is killed if it has not answered GRACE seconds
        after ``end`` or once Ctrl-C or SIGTERM has arrived (module docstring)."""
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no process to spare (memory): the call runs here, interrupted only
            os.close(read)
            os.close(write)
            return self._solve(assume, end)
        if pid == 0:  # the child: answer through the pipe, then leave at once
            code = 1
            try:
                os.close(read)
                payload = pickle.dumps(self._solve(assume, end) + (self.interrupted,))
                with os.fdopen(write, "wb") as out:
                    out.write(payload)
                code = 0
            finally:
                os._exit(code)
        payload = None  # also if Ctrl-C raises KeyboardInterrupt while waiting
        try:
            os.close(write)
            payload = _read_until(read, end + GRACE)
        finally:
            os.close(read)
            if payload is None:
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        if payload is None or not payload:
            self.interrupted = ("interrupted by a signal" if _signals.STOP.is_set() else
                                "timeout" if payload is None else "the solver's process failed")
            return None, None
        answer, model, self.interrupted = pickle.loads(payload)  # our own child's bytes
        return answer, model

    def _interrupt_if_due(self, end: float | None) -> None:
        """Interrupt the solver once ``end`` has passed or SIGINT or SIGTERM has arrived; it is
        called again until the solve call returns (an interrupt sent before the call starts
        would otherwise be lost)."""
        if _signals.STOP.is_set():
            self.interrupted = "interrupted by a signal"
        elif end is not None and time.monotonic() >= end:
            self.interrupted = "timeout"
        if self.interrupted:
            self.solver.interrupt()

    def value(self, var) -> bool:
        """The model's value of a Z3 Boolean (False if the CNF does not mention it)."""
        number = self.names.get(str(var))
        return number is not None and number in self.model

    def close(self) -> None:
        self.solver.delete()


def _read_until(fd: int, end: float) -> bytes | None:
    """Everything written to the pipe ``fd`` until its writer closes it, or None if that has
    not happened by ``end`` (``time.monotonic()``) or Ctrl-C or SIGTERM arrives first."""
    chunks = []
    while True:
        left = end - time.monotonic()
        if left <= 0 or _signals.STOP.is_set():
            return None
        ready, _, _ = select.select([fd], [], [], min(left, _signals.POLL))
        if ready:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
