"""Z3 behind one door.

Every Z3 query in ioverify goes through here: Z3 is imported lazily, each query gets a fresh
context, a fixed seed and a work budget (Z3's ``rlimit``, which reproduces, unlike wall-clock
timeouts; an optional timeout is a safety net only).  The answer is a string, never a bool:
``"sat"``, ``"unsat"`` or ``"unknown"`` — and ``"unknown"`` is never treated as either of the others.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SEED = 0


def z3():
    """Import and return the z3 module (the only place ioverify imports it)."""
    import z3 as module

    return module


@dataclass
class Query:
    """A fresh Z3 context and solver with a fixed seed and budget."""

    seed: int = DEFAULT_SEED
    rlimit: int | None = None
    timeout_ms: int | None = None
    logic: str | None = None

    def __post_init__(self):
        z = z3()
        self.ctx = z.Context()
        self.solver = z.SolverFor(self.logic, ctx=self.ctx) if self.logic else z.Solver(ctx=self.ctx)
        self.solver.set("random_seed", self.seed)
        if self.rlimit is not None:
            self.solver.set("rlimit", self.rlimit)
        if self.timeout_ms is not None:
            self.solver.set("timeout", self.timeout_ms)

    def check(self, *assumptions) -> str:
        """``"sat"``, ``"unsat"`` or ``"unknown"``."""
        return str(self.solver.check(*assumptions))

    def reason_unknown(self) -> str:
        return self.solver.reason_unknown()

    def model(self):
        return self.solver.model()
