"""Upper-bound workers for the curve (issue 18), behind one interface, and the time-indexed 0-1
model in the style of OneStopParallel solved by OR-Tools CP-SAT (the optional ``cpsat`` extra).

Nothing here is trusted.  A worker proposes a schedule; the caller replays it at its cell's M
and variant (``ioverify.game.replay``) and drops it if it fails.  No worker produces a lower
bound or a proof: CP-SAT's "optimal" is optimal only within the model's horizon (and its
normal form), so it is reported as ``proved_within_horizon``, never as a verdict.

The model (one processor of OneStopParallel's pebbling ILP): for each vertex v and step
t < T, Booleans ``compute``, ``load``, ``store`` (the action at step t, at most one per step) and
``red``, ``blue`` (the pebbles after step t - 1, t = 0..T).  Deletion is free: a red pebble may
disappear between any two steps.  The horizon T is the warm start's number of actions plus 3, as
OneStopParallel sets it; the warm start (the best schedule so far) is given as a hint.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ioverify import _signals
from ioverify.dag.model import DAG
from ioverify.game.greedy import best_greedy_schedule
from ioverify.game.rules import Schedule

HORIZON_SLACK = 3  # steps beyond the warm start's actions (OneStopParallel's choice)
MIN_VERTICES = 40  # the curve runs the CP-SAT worker on DAGs at least this large
# Models past this many Booleans (five per vertex and step) are not built: building one takes
# longer than any slice and its memory grows with it (attention_backward(4,2), 384 vertices,
# 654 steps, 1,255,680 Booleans: 2.1 GB and no solution in 23 s for a 5 s slice;
# attention_backward(6,2), 6,363,000 Booleans: 10 GB in 150 s; a curve on
# attention_backward(60,1), 43,440 vertices, ran out of memory building it).  The largest model
# of the frontier's instances has 75,768 (sparse_backward(causal 3,1) at M = 3).  Below it, the
# model stops being built once the slice has passed (``_OutOfTime``), and the solver has what
# is left of the slice.
MAX_BOOLEANS = 500_000


def available() -> bool:
    try:
        from ortools.sat.python import cp_model  # noqa: F401
    except ImportError:
        return False
    return True


# --- the workers --------------------------------------------------------------------------------

class GreedyWorker:
    """The cheapest greedy schedule (Belady eviction, a few compute orders),
    ``ioverify.game.greedy.best_greedy_schedule``."""

    name = "greedy"

    def applies(self, dag: DAG) -> bool:
        return True

    def propose(self, dag: DAG, memory: int, variant: str, best: Schedule | None,
                seconds: float) -> Schedule | None:
        return best_greedy_schedule(dag, memory)


class CpSatWorker:
    """The time-indexed model, warm-started from ``best``; its best schedule, or None."""

    name = "cp-sat"

    def __init__(self, min_vertices: int = MIN_VERTICES, seed: int = 0):
        self.min_vertices, self.seed = min_vertices, seed

    def applies(self, dag: DAG) -> bool:
        return len(dag) >= self.min_vertices and available()

    def propose(self, dag: DAG, memory: int, variant: str, best: Schedule | None,
                seconds: float) -> Schedule | None:
        start = best if best is not None else best_greedy_schedule(dag, memory)
        return solve(dag, memory, variant, start, seconds, seed=self.seed).schedule


def portfolio(cpsat: bool = True) -> list:
    """The extra upper-bound workers the curve runs after each search (the search itself, the
    exhaustive search's and Z3's incumbents, is the first worker).  Whether OR-Tools is
    installed is looked up, not imported: its model module imports pandas, 0.4 s of every
    curve's start, and a worker imports it only on a cell it applies to (``applies``)."""
    return [CpSatWorker()] if cpsat and installed() else []


def installed() -> bool:
    """Whether OR-Tools' CP-SAT is installed (``available`` imports it)."""
    from importlib.util import find_spec

    try:
        return find_spec("ortools.sat.python.cp_model") is not None
    except ImportError:  # a parent package missing or broken
        return False


# --- the model ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class PeerResult:
    """What CP-SAT reached: its best schedule (unchecked: replay it), its I/O, whether it proved
    it optimal within the horizon, the horizon and the seconds."""

    schedule: Schedule | None
    io: int | None
    proved_within_horizon: bool
    horizon: int
    seconds: float
    status: str


def actions(schedule: Schedule) -> list[tuple[str, int]]:
    """The schedule's moves without deletes (deletion is free in the model)."""
    return [(kind, v) for kind, v in schedule if kind != "delete"]


def solve(dag: DAG, memory: int, variant: str, start: Schedule, seconds: float, *,
          seed: int = 0, slack: int = HORIZON_SLACK, workers: int = 1) -> PeerResult:
    """Build the model with horizon len(actions(start)) + ``slack``, hint ``start``, solve
    for at most ``seconds`` on ``workers`` threads (CP-SAT's portfolio past one) with
    ``seed``."""
    from ortools.sat.python import cp_model

    began = time.monotonic()
    horizon = len(actions(start)) + slack
    booleans = 5 * len(dag) * horizon + 2 * len(dag)
    if booleans > MAX_BOOLEANS:
        return PeerResult(None, None, False, horizon, time.monotonic() - began,
                          f"NOT_BUILT ({booleans:,} Booleans, past {MAX_BOOLEANS:,})")
    model = cp_model.CpModel()
    clock = _Clock(began + seconds)
    try:
        x = _variables(model, dag, horizon, clock)
        _rules(model, dag, memory, variant, horizon, x, clock)
        model.minimize(sum(x["load"][v][t] + x["store"][v][t]
                           for v in range(len(dag)) for t in range(horizon)))
        _hint(model, dag, start, horizon, x, clock)
    except _OutOfTime:
        return PeerResult(None, None, False, horizon, time.monotonic() - began,
                          "NOT_BUILT (the time ran out building the model)")
    seconds = max(0.0, began + seconds - time.monotonic())
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.1, seconds)
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    # Without presolve the hint survives: with it, CP-SAT's presolve of these models takes
    # longer than a cell's slice and the warm start is lost (measured on
    # attention_backward(2, 1), M = 4: no solution in 15 s with presolve, the hint without).
    solver.parameters.cp_model_presolve = False
    # CP-SAT's own SIGINT handler would end the search and let the command go on as if the
    # time limit had passed: Ctrl-C and SIGTERM instead stop it through ``_signals``, and the
    # Python handler then runs as soon as the solve call returns.
    solver.parameters.catch_sigint_signal = False
    with _signals.interrupting(solver.stop_search):
        status = solver.solve(model)
    name = solver.status_name(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return PeerResult(None, None, False, horizon, time.monotonic() - began, name)
    schedule = _decode(dag, solver, x, horizon)
    return PeerResult(schedule, schedule.io, status == cp_model.OPTIMAL, horizon,
                      time.monotonic() - began, name)


class _OutOfTime(Exception):
    """The slice passed while the model was being built."""


class _Clock:
    def __init__(self, deadline: float):
        self.deadline = deadline

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise _OutOfTime


def _variables(model, dag: DAG, horizon: int, clock: _Clock) -> dict:
    x: dict = {kind: [] for kind in ("compute", "load", "store", "red", "blue")}
    for v in range(len(dag)):
        clock.check()
        for kind in x:
            steps = horizon + 1 if kind in ("red", "blue") else horizon
            x[kind].append([model.new_bool_var(f"{kind}[{v},{t}]") for t in range(steps)])
    return x


def _rules(model, dag: DAG, memory: int, variant: str, horizon: int, x: dict,
           clock: _Clock) -> None:
    """One function call per game rule, each commented with the rule."""
    n = len(dag)
    for v in range(n):
        clock.check()
        # start: inputs blue, nothing red; end: every output blue
        model.add(x["red"][v][0] == 0)
        model.add(x["blue"][v][0] == (1 if dag.is_input[v] else 0))
        if v in dag.outputs:
            model.add(x["blue"][v][horizon] == 1)
        if dag.is_input[v]:  # inputs are never computed
            model.add(sum(x["compute"][v]) == 0)
        if variant == "one-shot":  # at most one compute per vertex
            model.add(sum(x["compute"][v]) <= 1)
        for t in range(horizon):
            _step_rules(model, dag, v, t, x)
    for t in range(horizon):
        # one action per step; the red pebbles before it (after the free deletes) and the one
        # it places are at most M
        model.add_at_most_one(x[kind][v][t] for v in range(n)
                              for kind in ("compute", "load", "store"))
        model.add(sum(x["red"][v][t] + x["compute"][v][t] + x["load"][v][t]
                      for v in range(n)) <= memory)


def _step_rules(model, dag: DAG, v: int, t: int, x: dict) -> None:
    c, ld, st = x["compute"][v][t], x["load"][v][t], x["store"][v][t]
    red, blue = x["red"][v], x["blue"][v]
    # a red pebble appears only by a compute or a load (deletion is free)
    model.add(red[t + 1] <= red[t] + c + ld)
    # a blue pebble appears only by a store (blue pebbles are never removed)
    model.add(blue[t + 1] <= blue[t] + st)
    model.add(blue[t + 1] >= blue[t])
    # load needs blue; the loaded vertex is red after the step
    model.add_implication(ld, blue[t])
    model.add_implication(ld, red[t + 1])
    # store needs red
    model.add_implication(st, red[t])
    # compute needs every predecessor red, and makes the vertex red
    model.add_implication(c, red[t + 1])
    for u in dag.preds[v]:
        model.add_implication(c, x["red"][u][t])


def _hint(model, dag: DAG, start: Schedule, horizon: int, x: dict, clock: _Clock) -> None:
    """The warm start: ``start`` played on the step grid, one action per step, then idle."""
    red, blue = set(), {v for v in range(len(dag)) if dag.is_input[v]}
    states, acts = [], []  # states[t]: the pebbles before action t, after the deletes
    for kind, v in start:
        if kind == "delete":
            red.discard(v)
            continue
        states.append((set(red), set(blue)))
        acts.append((kind, v))
        (blue if kind == "store" else red).add(v)
    states.append((set(red), set(blue)))
    while len(acts) < horizon:
        acts.append(None)
        states.append(states[-1])
    for t in range(horizon):
        clock.check()
        for v in range(len(dag)):
            for kind in ("compute", "load", "store"):
                model.add_hint(x[kind][v][t], acts[t] == (kind, v))
    for t in range(horizon + 1):
        clock.check()
        r, b = states[t]
        for v in range(len(dag)):
            model.add_hint(x["red"][v][t], v in r)
            model.add_hint(x["blue"][v][t], v in b)


def _decode(dag: DAG, solver, x: dict, horizon: int) -> Schedule:
    """The solver's steps as moves: before each step's action the deletes of the red pebbles
    the model no longer has; loads of red vertices, computes of red vertices and stores of blue ones are
    dropped (they change nothing).  The result is replayed by the caller."""
    n, moves = len(dag), []
    red = set()
    blue = {v for v in range(n) if dag.is_input[v]}
    for t in range(horizon):
        before = {v for v in range(n) if solver.boolean_value(x["red"][v][t])}
        for v in sorted(red - before):
            moves.append(("delete", v))
            red.discard(v)
        for v in range(n):
            for kind in ("compute", "load", "store"):
                if solver.boolean_value(x[kind][v][t]):
                    if kind == "store" and v not in blue:
                        moves.append((kind, v))
                        blue.add(v)
                    elif kind != "store" and v not in red:
                        moves.append((kind, v))
                        red.add(v)
    return Schedule.from_moves(moves)
