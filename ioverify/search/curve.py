"""The whole I/O curve of a DAG: every M of a range, in one or both variants, in one run (issue 18).

A *cell* is one (M, variant).  The curve spends one time budget on all cells, first where the
brackets are widest, and carries answers between cells by four facts (docs/theory.md, the
red-blue pebble game):

1. **A schedule legal at M is legal at M' > M** (the capacity rule is the only one that reads M,
   and a red count <= M is <= M').  So the optimum is non-increasing in M: a schedule found at
   M is an upper bound at every larger M;
2. hence **a lower bound proved at M' holds at every M < M'**;
3. **every one-shot schedule is a recompute schedule** (the recompute rules are the one-shot
   rules without at-most-once): a one-shot schedule is a recompute upper bound;
4. hence **a recompute lower bound is a one-shot lower bound**.

From a source cell (M', v') to a target (M, v): a schedule carries when M' <= M and v' is v or
one-shot; a lower bound carries when M' >= M and v' is v or recompute (``carries_upper``,
``carries_lower``).  Every carried schedule is replayed at the target's own M and variant
before it is used; a lower bound is carried as the source's proof, and a cell it settles says
so in its evidence (kind ``carried``, naming the source cell), never as a proof of its own.
Only a *settled* source (an optimum with its evidence) can settle another cell; the lower end
of a bracket carries into brackets only (it is proved, but a bracket records no evidence for
it), and a carried bracket lower end that would meet the upper end is kept one below it.

Each cell's search is ``ioverify.search.pebbling.pebble`` with the cell's best schedule as its
incumbent; cells run in this process, on local processes or on a Dask cluster
(``concurrent.futures`` executors), and results are carried as they arrive.
"""

from __future__ import annotations

import concurrent.futures as futures
import gc
import time
from dataclasses import dataclass, field
from time import process_time  # bound here: a test's fake ``time`` leaves the CPU clock alone
from typing import Callable

from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached, InternalError, InvalidArgument
from ioverify.game.greedy import best_greedy_schedule
from ioverify.game.lemmas import carry_fact, trivial_lower_bound
from ioverify.game.replay import replay
from ioverify.game.rules import Schedule, infeasibility
from ioverify.search.pebbling import FINISH_SHARE, pebble
from ioverify.verdict import Evidence, Infeasible, Optimal, Unknown, Verdict, describe

VARIANTS = ("one-shot", "recompute")  # one-shot first: its schedules feed recompute
MIN_SLICE = 1.0  # seconds: no search gets less
MIN_SEARCH = 0.05  # seconds: a search started with less left of its slice is not run
LOAD_SAMPLE = 0.25  # CPU seconds of greedy schedules that measure the machine's load


def carries_upper(source: tuple[int, str], target: tuple[int, str]) -> bool:
    """Facts 1 and 3: a schedule of ``source`` (M', v') is legal at ``target`` (M, v)."""
    (m1, v1), (m2, v2) = source, target
    return m1 <= m2 and (v1 == v2 or v1 == "one-shot")


def carries_lower(source: tuple[int, str], target: tuple[int, str]) -> bool:
    """Facts 2 and 4: a lower bound of ``source`` (M', v') holds at ``target`` (M, v)."""
    (m1, v1), (m2, v2) = source, target
    return m1 >= m2 and (v1 == v2 or v1 == "recompute")


def cell_name(key: tuple[int, str]) -> str:
    return f"M = {key[0]} ({key[1]})"


@dataclass
class Cell:
    """What the curve knows about one (M, variant)."""

    memory: int
    variant: str
    lower: int
    upper: int | None = None
    schedule: Schedule | None = None
    verdict: Verdict | None = None  # the settled verdict (own or carried), or the last own one
    settled: bool = False
    infeasible: str | None = None
    lower_from: tuple[int, str] | None = None  # the cell the lower end was carried from
    upper_from: str = ""  # who found the schedule: greedy, the search, or a cell
    greedy: bool = False  # offered its greedy schedule: no upper end is above it
    seconds: float = 0.0
    runs: int = 0
    last_slice: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[int, str]:
        return self.memory, self.variant

    @property
    def width(self) -> int:
        """The bracket's width; 0 when settled, infeasible or without an upper end (no greedy
        schedule before the timeout: nothing to narrow, the time is spent)."""
        if self.settled or self.infeasible or self.upper is None:
            return 0
        return self.upper - self.lower


@dataclass
class Curve:
    """The cells of a curve, in (M, variant) order, and how the run went."""

    cells: dict[tuple[int, str], Cell]
    trivial: int
    seconds: float
    improvements: dict[str, int]  # per upper-bound worker: how often it lowered an upper end
    timeout_reached: str | None = None  # the phase the timeout stopped, if it stopped one
    abandoned: int = 0  # searches not waited for past the timeout: their workers are to end
    slowdown: float = 1.0  # wall seconds per CPU second of this process (``_Run.slowdown``)

    def settled(self) -> int:
        return sum(c.settled for c in self.cells.values())

    def unbounded(self) -> int:
        """The feasible cells without an upper end (the timeout came before their greedy
        schedule)."""
        return sum(c.upper is None and not c.infeasible for c in self.cells.values())

    def total_width(self) -> int:
        return sum(c.width for c in self.cells.values())


def parse_memory_range(text: str) -> list[int]:
    """``"M"`` or ``"LO..HI"`` as the list of memories; InvalidArgument names what is wrong."""
    lo, sep, hi = text.partition("..")
    try:
        first, last = int(lo), int(hi) if sep else int(lo)
    except ValueError:
        raise InvalidArgument(f"--memory must be M or LO..HI (positive integers), "
                              f"got {text!r}") from None
    if first < 1 or last < first:
        raise InvalidArgument(f"--memory range {text!r} must have 1 <= LO <= HI")
    if last - first + 1 > MAX_MEMORIES:
        raise InvalidArgument(f"--memory range {text!r} has {last - first + 1} values of M, more "
                              f"than the {MAX_MEMORIES} a curve takes (each gets a greedy "
                              f"schedule before any search)")
    return list(range(first, last + 1))


# The values of M a curve takes at most: each cell gets a greedy schedule and the carrying
# compares cells pairwise (3..5000 on matmul(2,2,2) ran for minutes past --timeout 5, when
# neither looked at the time limit).
MAX_MEMORIES = 256


# --- the run ------------------------------------------------------------------------------------

def curve(dag: DAG, memories: list[int], variants=VARIANTS, *, timeout: float | None = None,
          seed: int = 0, rlimit: int | None = None, max_states: int | None = None,
          executor: futures.Executor | None = None, workers: int = 1,
          progress: Callable[[str], None] | None = None, upper_workers=(),
          started: float | None = None, output_cost: float = 0.0) -> Curve:
    """Every cell of ``memories`` x ``variants``: greedy and trivial bounds first, carried;
    then the searches, widest bracket first, each with a slice of the one ``timeout`` (a first
    pass sharing it evenly among the open cells, what a settled cell leaves going to the
    others, then doubled slices for the cells still open), results carried as they arrive.  Without a timeout every open cell is searched once under the
    work budget (``rlimit``, ``max_states``).  ``executor``: where the searches run (None: in
    this process), ``workers`` of them at once.  ``upper_workers``: extra upper-bound workers
    (``ioverify.search.cpsat``), run on a cell after its search, their schedules replayed.
    ``started``: the ``time.monotonic()`` value the timeout counts from (default: now; the CLI
    passes its own start, so that reading the DAG counts too).  ``output_cost``: the seconds per
    move of the cells' schedules the caller spends reporting them after the curve (the CLI's
    JSON and certificates) on an idle machine, times the load measured on the greedy schedules
    (``Curve.slowdown``), kept back from every phase, at most half the timeout
    (``_Run.output_reserve``).

    Every phase looks at the timeout (TIME): the greedy schedules, the carrying, the searches.
    A cell the timeout keeps from its greedy schedule has no upper end; whatever it was not
    given stays unknown, and ``Curve.timeout_reached`` names the phase that was stopped."""
    if not memories or not variants:
        raise InvalidArgument("a curve needs at least one M and one variant")
    start = time.monotonic() if started is None else started
    run = _Run(dag, memories, list(variants), timeout, seed, rlimit, max_states, start,
               progress, list(upper_workers), workers if executor is not None else 1,
               local=executor is None or isinstance(executor, futures.ProcessPoolExecutor),
               output_cost=output_cost)
    run.start_cells()
    if executor is None:
        run.serial()
    else:
        run.parallel(executor, workers)
    run.finish()
    return Curve(run.cells, run.trivial, time.monotonic() - start, run.improvements,
                 run.timeout_reached, len(run.abandoned), run.slowdown())


@dataclass
class _Run:
    dag: DAG
    memories: list[int]
    variants: list[str]
    timeout: float | None
    seed: int
    rlimit: int | None
    max_states: int | None
    start: float
    progress: Callable[[str], None] | None
    upper_workers: list
    workers: int = 1  # searches at once
    local: bool = True  # the searches run on this machine: they may read its clock (TIME)
    cells: dict = field(default_factory=dict)
    trivial: int = 0
    improvements: dict = field(default_factory=dict)
    timeout_reached: str | None = None  # the phase the timeout stopped (TIME)
    abandoned: list = field(default_factory=list)  # cells whose search was not waited for
    reserve: float = 0.0  # seconds kept back from the searches for carrying (TIME)
    output_cost: float = 0.0  # seconds per move of the schedules, to report them after (TIME)
    last_greedy: int = 0  # moves of the last greedy schedule (TIME)
    greedy_wall: float = 0.0  # seconds the greedy schedules took, and of CPU (``slowdown``)
    greedy_cpu: float = 0.0

    def start_cells(self) -> None:
        """Each M's greedy schedule, offered to its cells in every variant; once the timeout
        stops them, the last one built (a schedule at a smaller M is one at every larger M),
        replayed at each cell left; then carried."""
        self.trivial = trivial_lower_bound(self.dag)
        variants = sorted(self.variants, key=VARIANTS.index)
        last = None  # the last greedy schedule built, and the cell it was built for
        for i, m in enumerate(self.memories):
            infeasible = infeasibility(self.dag, m)
            left = (len(self.memories) - i) * len(self.variants)  # cells to report, these on
            greedy = None if infeasible else self.greedy(m, left)
            for v in variants:
                cell = Cell(m, v, self.trivial, infeasible=infeasible)
                if cell.infeasible:
                    cell.verdict = Infeasible(cell.infeasible, v)
                elif greedy is not None:
                    self.offer(cell, greedy, "greedy")
                    cell.greedy = True
                elif last is not None and last[1][0] < m:  # memories given in any order
                    self.offer(cell, last[0], cell_name(last[1]))
                self.cells[cell.key] = cell
            if greedy is not None:
                last = greedy, (m, variants[0])
        self.carry()
        self.reserve = self.reserve_for_carrying()

    def greedy(self, memory: int, cells: int) -> Schedule | None:
        """The greedy schedule at ``memory``, or None if the timeout comes first (reporting it,
        or the last one, in the ``cells`` left is reckoned in, at the length of the last one)."""
        if self.out_of_time("building the greedy schedules"):
            return None
        deadline = self.deadline
        if deadline is not None:
            deadline -= self.output_rate() * self.last_greedy * cells
        wall, cpu = time.monotonic(), process_time()
        try:
            schedule = best_greedy_schedule(self.dag, memory, deadline)
        except DeadlineReached:
            self.timeout_reached = self.timeout_reached or "building the greedy schedules"
            return None
        finally:
            self.greedy_wall += time.monotonic() - wall
            self.greedy_cpu += process_time() - cpu
        self.last_greedy = len(schedule)
        return schedule

    # --- time ---

    @property
    def deadline(self) -> float | None:
        """When every phase stops: the timeout less what reporting the schedules will take."""
        if self.timeout is None:
            return None
        return self.start + self.timeout - self.output_reserve()

    def output_reserve(self) -> float:
        """The seconds the caller needs to report the cells' schedules (``output_rate`` per
        move), at most half the timeout."""
        if self.timeout is None or not self.output_cost:
            return 0.0
        moves = sum(len(c.schedule) for c in self.cells.values() if c.schedule is not None)
        return min(self.output_rate() * moves, self.timeout / 2)

    def output_rate(self) -> float:
        """Seconds per move of reporting the schedules on this machine now: ``output_cost``
        (measured on an idle machine) times the ``slowdown`` measured in this run."""
        return self.output_cost * self.slowdown()

    def slowdown(self) -> float:
        """How much slower than on an idle core this process runs: the wall seconds of the
        greedy schedules per CPU second they took (2.5 where four busy processes share the two
        cores with it), at least 1; 1 until LOAD_SAMPLE CPU seconds were measured (a short
        sample is mostly noise; a DAG that small reports its schedules quickly anyway)."""
        if self.greedy_cpu < LOAD_SAMPLE:
            return 1.0
        return max(1.0, self.greedy_wall / self.greedy_cpu)

    def left(self) -> float | None:
        """The seconds the searches may still start in: the timeout less the reserves."""
        if self.timeout is None:
            return None
        return (self.timeout - self.reserve - self.output_reserve()
                - (time.monotonic() - self.start))

    def out_of_time(self, phase: str) -> bool:
        """Whether the timeout has passed; the first phase it stops is recorded."""
        if self.deadline is None or time.monotonic() < self.deadline:
            return False
        if self.timeout_reached is None:
            self.timeout_reached = phase
        return True

    def reserve_for_carrying(self) -> float:
        """The seconds kept back from the searches, for replaying and carrying the last
        results: what the greedy schedules and their carrying took (a measure of the DAG's
        size), at most FINISH_SHARE of the timeout."""
        if self.timeout is None:
            return 0.0
        return min(time.monotonic() - self.start, FINISH_SHARE * self.timeout)

    def slice_for(self, cell: Cell) -> float | None:
        """The seconds ``cell``'s next search gets: in the first pass an even share of what is
        left among the open cells not searched yet (``workers`` of them at a time), so that
        what a cell settled early leaves goes to the others; then twice its last slice; never
        more than what is left."""
        left = self.left()
        if left is None:
            return None
        if cell.runs == 0:
            waiting = sum(1 for c in self.cells.values() if c.width and c.runs == 0)
            share = left * self.workers / max(1, waiting)
        else:
            share = 2 * cell.last_slice
        return max(MIN_SLICE, min(share, left))

    def next_cell(self, busy=()) -> Cell | None:
        """The open cell with the widest bracket (then the smaller M, one-shot first), None if
        none is open or the time is spent."""
        left = self.left()
        if left is not None and left < MIN_SLICE:
            if any(c.width > 0 for c in self.cells.values()):
                self.timeout_reached = self.timeout_reached or "searching other cells"
            return None
        open_cells = [c for c in self.cells.values() if c.width > 0 and c.key not in busy
                      and (self.timeout is not None or c.runs == 0)]
        if not open_cells:
            return None
        return max(open_cells, key=lambda c: (c.runs == 0, c.width, -c.memory,
                                              c.variant == "one-shot"))

    # --- running cells ---

    def task(self, cell: Cell) -> tuple:
        seconds = self.slice_for(cell)
        cell.runs += 1
        cell.last_slice = seconds or 0.0
        self.report(f"searching {cell_name(cell.key)}, bracket [{cell.lower}, {cell.upper}]"
                    + (f", {seconds:.1f} s" if seconds else ""))
        workers = [w for w in self.upper_workers if w.applies(self.dag)]
        ends = None if seconds is None or not self.local else time.monotonic() + seconds
        return (self.dag, cell.memory, cell.variant, seconds, self.seed, self.rlimit,
                self.max_states, cell.schedule, cell.greedy, workers, self.enough(cell), ends)

    def enough(self, cell: Cell) -> int | None:
        """The best lower bound a settled cell carries to ``cell``: a schedule that cheap
        settles it, so its search may stop there (``pebble(enough=...)``)."""
        bounds = [s.lower for s in self.cells.values() if s.settled and s is not cell
                  and not s.infeasible and carries_lower(s.key, cell.key)]
        return max(bounds, default=None)

    def serial(self) -> None:
        while (cell := self.next_cell()) is not None:
            self.absorb(cell, run_cell(self.task(cell)))

    def parallel(self, executor: futures.Executor, workers: int) -> None:
        """The searches on ``executor``, ``workers`` at once; past the timeout and GRACE no
        search is waited for (its cell keeps what it had; the caller ends the workers)."""
        pending: dict = {}
        while True:
            while len(pending) < workers:
                cell = self.next_cell(busy=set(pending.values()))
                if cell is None:
                    break
                pending[executor.submit(run_cell, self.task(cell))] = cell.key
            if not pending:
                return
            wait = None if self.deadline is None else max(
                0.0, self.deadline + GRACE - time.monotonic())
            done, _ = futures.wait(pending, timeout=wait, return_when=futures.FIRST_COMPLETED)
            if not done:
                self.out_of_time("waiting for the searches")
                self.abandoned = [self.cells[key] for key in pending.values()]
                return
            for future in done:
                self.absorb(self.cells[pending.pop(future)], future.result())

    def absorb(self, cell: Cell, result: tuple) -> None:
        """A cell's search result: its schedules offered (replayed), its verdict kept, then
        everything carried again."""
        verdict, seconds, proposals = result
        cell.seconds += seconds
        schedule = getattr(verdict, "schedule", None)
        if schedule is not None:
            self.offer(cell, schedule, "search")
        if isinstance(verdict, Optimal) and not cell.settled:
            cell.verdict, cell.settled, cell.lower, cell.lower_from = verdict, True, verdict.io, None
            self.offer(cell, verdict.schedule, "search")
        elif not cell.settled:
            cell.verdict = verdict
            lower = getattr(verdict, "lower_bound", None)
            if lower is not None and lower > cell.lower:
                cell.lower, cell.lower_from = lower, None
        for name, schedule in proposals:
            if not cell.settled:
                self.offer(cell, schedule, name)
        self.carry()
        self.report(f"{cell_name(cell.key)}: {self.describe(cell)}")

    # --- carrying ---

    def offer(self, cell: Cell, schedule: Schedule | None, source: str) -> bool:
        """Replay ``schedule`` at the cell's own M and variant; keep it if it is cheaper."""
        if schedule is None or cell.infeasible:
            return False
        result = replay(self.dag, schedule, cell.memory, cell.variant)
        if not result.ok:
            if source in ("greedy", "search") or source.startswith("M = "):
                raise InternalError(f"{source} gave {cell_name(cell.key)} a schedule that "
                                    f"fails replay: {result.describe()}")
            return False  # an untrusted worker's proposal that fails is dropped
        if cell.upper is not None and result.io >= cell.upper:
            return False
        if cell.upper is not None and not source.startswith("M = "):
            self.improvements[source] = self.improvements.get(source, 0) + 1
        cell.upper, cell.schedule, cell.upper_from = result.io, schedule, source
        return True

    def carry(self) -> None:
        """Carry schedules and lower bounds until nothing changes (fixpoint of the facts), or
        the timeout passes (each step carried is sound alone: what is not carried is not
        known)."""
        changed = True
        while changed:
            changed = False
            for target in self.cells.values():
                if self.out_of_time("carrying results between cells"):
                    return
                if target.infeasible:
                    continue
                changed |= self.settle_trivially(target)
                for source in self.cells.values():
                    if source is target or source.infeasible:
                        continue
                    changed |= self.carry_pair(source, target)
                self.check_consistent(target)

    def settle_trivially(self, cell: Cell) -> bool:
        """A schedule meeting the trivial bound is optimal (evidence ``trivial-bound``)."""
        if cell.settled or cell.upper is None or cell.upper > self.trivial:
            return False
        cell.settled, cell.lower, cell.lower_from = True, self.trivial, None
        cell.verdict = Optimal(cell.upper, cell.schedule,
                               Evidence("trivial-bound", {"bound": self.trivial}), cell.variant)
        return True

    def carry_pair(self, source: Cell, target: Cell) -> bool:
        changed = False
        if source.schedule is not None and carries_upper(source.key, target.key) \
                and (target.upper is None or source.upper < target.upper):
            # A schedule's I/O does not depend on M or the variant: one no cheaper than the
            # target's would be replayed for nothing (af(4,4), M = 3..150: 21,904 replays).
            changed |= self.offer(target, source.schedule, cell_name(source.key))
        if not carries_lower(source.key, target.key) or target.settled:
            return changed
        if target.upper is None:  # no schedule: nothing to settle, nothing to stay below
            if source.lower > target.lower:
                target.lower, target.lower_from = source.lower, source.key
                return True
            return changed
        if source.settled and source.lower >= target.upper:
            target.settled, target.lower, target.lower_from = True, source.lower, source.key
            target.verdict = None  # made in finish(), from the carried proof
            return True
        bound = min(source.lower, target.upper - 1)
        if bound > target.lower:
            target.lower, target.lower_from = bound, source.key
            changed = True
        return changed

    def check_consistent(self, cell: Cell) -> None:
        if cell.upper is not None and cell.lower > cell.upper:
            raise InternalError(f"the curve contradicts itself at {cell_name(cell.key)}: lower "
                                f"end {cell.lower} above a replayed schedule of I/O {cell.upper}")

    # --- the verdicts ---

    def finish(self) -> None:
        for cell in self.cells.values():
            if not cell.infeasible:
                self.settle_trivially(cell)  # at once, where the timeout cut the carrying
                cell.verdict = self.verdict_of(cell)

    def verdict_of(self, cell: Cell) -> Verdict:
        """The cell's verdict: its own optimum, an optimum by a carried proof (evidence
        ``carried``, naming the source), or the bracket."""
        if cell.settled and cell.lower_from is None:
            own = cell.verdict
            return Optimal(own.io, cell.schedule, own.evidence, cell.variant)
        if cell.settled:
            source = self.cells[cell.lower_from]
            return Optimal(cell.upper, cell.schedule, carried_evidence(source, cell.lower),
                           cell.variant)
        if cell.verdict is None:
            why = self.why_not_searched(cell)
        else:
            why = getattr(cell.verdict, "reason", None) or describe(cell.verdict)
        if cell.upper is None:
            return Unknown(why, cell.lower, None, cell.variant, None)
        # A bracket's lower end carries no evidence, so bounds it meets are kept one apart.
        lower = min(cell.lower, cell.upper - 1)
        return Unknown(why, lower, cell.upper, cell.variant, cell.schedule)

    def why_not_searched(self, cell: Cell) -> str:
        if self.timeout_reached is None:
            return "not searched: the time was spent"
        before = " before its greedy schedule" if cell.upper is None else ""
        return f"not searched: timeout reached{before} (while {self.timeout_reached})"

    def describe(self, cell: Cell) -> str:
        if cell.settled:
            return f"optimal {cell.upper}"
        return f"[{cell.lower}, {'?' if cell.upper is None else cell.upper}]"

    def report(self, message: str) -> None:
        if self.progress is not None:
            self.progress(f"{message}; {time.monotonic() - self.start:.1f} s")


def carried_evidence(source: Cell, bound: int) -> Evidence:
    """The evidence of a lower bound carried from the settled ``source``: the source cell and
    the fact that carries it."""
    return Evidence("carried", {"memory": source.memory, "variant": source.variant,
                                "bound": bound, "fact": carry_fact(source.variant)})


WORKER_SHARE = 0.25  # of a cell's slice, for the extra upper-bound workers when any applies
# Seconds past the timeout the curve waits for a search running elsewhere (its slice ends
# before the timeout; a process slow to start, or a search slow to stop, is not waited for).
GRACE = 0.25


def run_cell(task: tuple) -> tuple[Verdict, float, list]:
    """One cell's search, then the extra upper-bound workers warm-started from the best
    schedule so far (a top-level function, so that processes and Dask can run it).  Returns
    the verdict, the seconds and the workers' proposals, unchecked: ``absorb`` replays them.
    The task's last item: where the slice ends on this machine's ``time.monotonic()`` clock
    (a search on this machine: the time it waited to start is taken off its slice), or None
    (elsewhere, the slice counts from its start)."""
    (dag, memory, variant, seconds, seed, rlimit, max_states, incumbent, has_greedy, workers,
     enough, ends) = task
    start = time.monotonic()
    if ends is not None:  # on the caller's machine: what starting here took is off the slice
        seconds = ends - start
        if seconds < MIN_SEARCH:
            return Unknown("not searched: its slice had passed when it started",
                           variant=variant), 0.0, []
    workers = workers if seconds is not None else []  # a work budget alone stays deterministic
    search_seconds = None if seconds is None else seconds * (1 - WORKER_SHARE * bool(workers))
    verdict = pebble(dag, memory, variant=variant, timeout=search_seconds, seed=seed,
                     rlimit=rlimit, max_states=max_states, incumbent=incumbent, enough=enough,
                     greedy=not has_greedy)  # the cell's schedule is no worse than greedy's
    proposals = []
    met = enough is not None and upper_of(verdict) is not None and upper_of(verdict) <= enough
    if workers and verdict.status != "optimal" and not met:
        best = getattr(verdict, "schedule", None) or incumbent
        share = seconds * WORKER_SHARE / len(workers)
        for worker in workers:
            proposals.append((worker.name, _proposal(worker, dag, memory, variant, best,
                                                     share)))
    return verdict, time.monotonic() - start, proposals


def _proposal(worker, dag, memory: int, variant: str, best, seconds: float):
    """``worker``'s schedule, or None if it ran out of memory (--max-memory): an upper-bound
    worker only proposes, so the cell keeps what its search found."""
    try:
        return worker.propose(dag, memory, variant, best, seconds)
    except MemoryError:
        gc.collect()
        return None


def upper_of(verdict: Verdict) -> int | None:
    return verdict.io if verdict.status == "optimal" else getattr(verdict, "upper_bound", None)


# --- reading a cell -----------------------------------------------------------------------------

def evidence_lines(curve: Curve, cell: Cell) -> list[str]:
    """Where a cell's answer came from, in words ("upper end from the schedule at M = 7")."""
    lines = []
    if cell.infeasible:
        return [cell.infeasible]
    if cell.upper is None:
        lines.append("no upper end: the timeout came before the cell's greedy schedule")
    elif cell.upper_from.startswith("M = "):
        lines.append(f"upper end from the schedule at {cell.upper_from}, replayed at "
                     f"M = {cell.memory} ({cell.variant})")
    else:
        lines.append(f"upper end from the {cell.upper_from} schedule")
    if cell.lower_from is not None:
        lines.append(f"lower end from {cell_name(cell.lower_from)} "
                     f"({carry_fact(cell.lower_from[1])})")
    elif cell.settled:
        lines.append(f"lower end by {cell.verdict.evidence.kind}")
    elif cell.lower == curve.trivial:
        lines.append("lower end: the trivial bound")
    else:
        lines.append("lower end proved by the cell's own search")
    return lines
