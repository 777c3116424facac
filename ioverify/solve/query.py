"""Z3 behind one door.

Every Z3 query in ioverify goes through here: Z3 is imported lazily, each query gets a fresh
context, a fixed seed and a work budget (Z3's ``rlimit``, which reproduces, unlike wall-clock
timeouts; an optional timeout is a safety net only).  The answer is a string, never a bool:
``"sat"``, ``"unsat"`` or ``"unknown"`` — and ``"unknown"`` is never treated as either of the others.

The work budget ``rlimit`` counts Z3's resource units and applies to each ``check`` call on its
own (Z3 sets the limit relative to the count when the call starts), so the same query with the
same seed and rlimit gives the same answer on any machine.  A call that exhausts it answers
``"unknown"`` and ``reason_unknown`` says so.  The SAT back end of the pebbling search
(``ioverify.encode.cnf``: Glucose, which has no resource units) takes the same number as a cap on
unit propagations per call, its nearest deterministic measure of work (on the pebbling encodings
the two counts are of the same order: matmul(2,2,2), M = 4, one-shot, the final unsat costs Z3
5.8M units and Glucose 7.6M propagations).  Verdicts record the back end beside the budget.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ioverify import _signals
from ioverify._check import seed as check_seed

DEFAULT_SEED = 0


MEMORY_ENV = "IOVERIFY_MAX_MEMORY_MB"  # the --max-memory budget, seen by spawned workers too
_configured = False


def z3():
    """Import and return the z3 module (the only place ioverify imports it).  Under a memory
    budget (``IOVERIFY_MAX_MEMORY_MB``) Z3 is told to stop at 80% of it, so that it answers
    "unknown" (max. memory exceeded) before the process limit is reached."""
    global _configured
    import z3 as module

    if not _configured:
        _configured = True
        budget = os.environ.get(MEMORY_ENV, "")
        if budget.isdigit():
            # (a count of MiB; Z3 crashed at 2^32 - 1, the most it accepts)
            module.set_param("memory_max_size", min(max(64, int(budget) * 4 // 5), 2**31 - 1))
    return module


@dataclass
class Query:
    """A fresh Z3 context and solver with a fixed seed and budget."""

    seed: int = DEFAULT_SEED
    rlimit: int | None = None
    timeout_ms: int | None = None
    logic: str | None = None

    def __post_init__(self):
        check_seed("seed", self.seed)  # Z3 would wrap one outside 32 bits, silently
        z = z3()
        self.ctx = z.Context()
        self.solver = z.SolverFor(self.logic, ctx=self.ctx) if self.logic else z.Solver(ctx=self.ctx)
        self.solver.set("random_seed", self.seed)
        # Z3's own Ctrl-C handler would turn Ctrl-C into an "unknown" and let the command go
        # on; Python's handler is kept instead, and ``_signals`` interrupts the check.
        self.solver.set("ctrl_c", False)
        if self.rlimit is not None:
            self.solver.set("rlimit", self.rlimit)
        if self.timeout_ms is not None:
            self.solver.set("timeout", self.timeout_ms)

    def check(self, *assumptions) -> str:
        """``"sat"``, ``"unsat"`` or ``"unknown"``."""
        before = self.work_done()
        with _signals.interrupting(self.ctx.interrupt):  # Ctrl-C and SIGTERM reach Z3
            answer = str(self.solver.check(*assumptions))
        self.last_work = self.work_done() - before
        return answer

    def work_done(self) -> int:
        """Z3's resource units spent by this query's solver so far (its ``rlimit count``)."""
        stats = self.solver.statistics()
        return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0

    def reason_unknown(self) -> str:
        if self.rlimit is not None and getattr(self, "last_work", 0) >= self.rlimit:
            return f"work budget reached (rlimit {self.rlimit} per solver call)"
        return self.solver.reason_unknown()

    def model(self):
        return self.solver.model()
