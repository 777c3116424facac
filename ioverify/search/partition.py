"""P(2M) by search, and the horizon-free lower bound Q >= M * (P(2M) - 1) (Hong-Kung Lemma 3.1).

The least number of parts P(S) of an S-partition is bracketed by

- a lower end: the counting bound below, then "unsat at h" answers of the Z3 query
  (``ioverify.encode.partition``), each proving P(S) >= h + 1;
- an upper end: a witness partition, first a greedy one, then the models of "sat at h" answers.

Every witness is re-checked by the independent checker ``ioverify.game.partition.check_partition``
before it is used; a failure raises ``InternalError``.  The bracket is narrowed from below, one
part at a time, until it closes (P(S) exact) or the time or work budget runs out.  Whatever
lower end was proved gives a valid I/O lower bound M * (lower - 1) even when P(S) is not exact.
The work budget is Z3's ``rlimit`` per query (``ioverify.solve.query``): unlike the timeout it stops at
the same point on every machine; the evidence records it (``"budget"``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ioverify.dag.model import DAG
from ioverify.errors import DeadlineReached, InternalError, InvalidArgument
from ioverify.game.lemmas import counting_lower_bound
from ioverify.game.partition import (check_partition, core_dag, dominator_size, minimum_set,
                                parts_to_names, partition_lower_bound)
from ioverify.verdict import Evidence, Infeasible, Unknown, Verdict, Verified
from ioverify.encode.partition import encode_partition
from ioverify.game.rules import check_memory, infeasibility


@dataclass
class PartitionSearch:
    """The bracket ``lower <= P(S) <= upper`` reached, the witness attaining ``upper`` (vertex ids),
    how each end was established, and the solver calls made."""

    S: int
    lower: int
    upper: int
    witness: list[list[int]]
    lower_by: str
    seconds: float = 0.0
    queries: list[tuple[int, str, float]] = field(default_factory=list)
    stopped: str = ""
    budget: dict = field(default_factory=dict)  # rlimit, timeout and seed it ran under

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


def greedy_partition(dag: DAG, S: int, deadline: float | None = None) -> list[list[int]]:
    """Cut the topological order into maximal consecutive segments that each have a dominator and a
    minimum set of size <= S.  Consecutive segments make every edge go forward, and a single
    vertex always qualifies (S >= 1), so this is an S-partition.  Once ``deadline`` (a
    ``time.monotonic()`` value) has passed, each vertex left is a part of its own: still an
    S-partition, with more parts."""
    parts: list[list[int]] = []
    current: list[int] = []
    for v in range(len(dag)):
        if deadline is not None and time.monotonic() >= deadline:
            return parts + ([current] if current else []) + [[u] for u in range(v, len(dag))]
        candidate = current + [v]
        if current and not _part_fits(dag, S, candidate):
            parts.append(current)
            candidate = [v]
        current = candidate
    parts.append(current)
    return parts


def _part_fits(dag: DAG, S: int, part: list[int]) -> bool:
    return (len(minimum_set(dag, part)) <= S
            and dominator_size(dag, part, limit=S + 1) <= S)


def search_partition(dag: DAG, S: int, *, timeout: float | None = None, seed: int = 0,
                     rlimit: int | None = None, started: float | None = None) -> PartitionSearch:
    """Bracket P(S) as tightly as the budget allows (see the module docstring).  ``started``:
    the ``time.monotonic()`` value the timeout counts from (default: now)."""
    start = time.monotonic() if started is None else started
    deadline = None if timeout is None else start + timeout
    witness = recheck(dag, S, greedy_partition(dag, S, deadline))
    lower = counting_lower_bound(dag, S)
    result = PartitionSearch(S, lower, len(witness), witness, "counting inputs and sinks",
                             budget={"rlimit": rlimit, "timeout": timeout, "seed": seed})
    if not result.exact:
        _ascend(dag, result, deadline, seed, rlimit)
    result.seconds = time.monotonic() - start
    return result


def _ascend(dag: DAG, result: PartitionSearch, deadline: float | None, seed: int,
            rlimit: int | None) -> None:
    """Ask "at most k parts?" for k = lower, lower + 1, ...: each unsat raises the proven lower end
    (the end that bounds the I/O), the first sat closes the bracket.  Queries far below P(S) are
    cheap (matmul(3,3,3), S = 6: unsat at 3 parts in 0.4 s, at 4 in 9 s), which bisection, whose
    first query sits mid-bracket, cannot exploit.  The encoding is built under the deadline."""
    if deadline is not None and time.monotonic() >= deadline:
        result.stopped = "the time limit was reached"
        return
    try:
        encoding = encode_partition(dag, result.S, result.upper - 1, seed=seed, rlimit=rlimit,
                                    deadline=deadline)
    except DeadlineReached:
        result.stopped = "the time limit was reached while building the encoding"
        return
    while result.lower < result.upper:
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            result.stopped = "the time limit was reached"
            return
        k = result.lower
        began = time.monotonic()
        answer = encoding.check(k, None if remaining is None else remaining * 1000)
        result.queries.append((k, answer, time.monotonic() - began))
        if answer == "sat":
            result.witness = recheck(dag, result.S, encoding.decode(), at_most=k)
            result.upper = len(result.witness)
        elif answer == "unsat":
            result.lower, result.lower_by = k + 1, f"Z3: no {result.S}-partition with {k} parts"
        else:
            result.stopped = f"Z3 answered unknown at {k} parts ({encoding.query.reason_unknown()})"
            return


def recheck(dag: DAG, S: int, parts: list[list[int]], at_most: int | None = None) -> list[list[int]]:
    """The independent checker must accept every witness; anything else is a bug in ioverify."""
    verdict = check_partition(dag, S, parts)
    if not verdict.ok:
        raise InternalError(f"witness {S}-partition fails the checker, condition "
                            f"{verdict.condition}: {verdict.message}")
    if at_most is not None and len(parts) > at_most:
        raise InternalError(f"witness has {len(parts)} parts, the query allowed {at_most}")
    return parts


def partition_bound(dag: DAG, memory: int, *, timeout: float | None = None, seed: int = 0,
                    rlimit: int | None = None) -> Verdict:
    """The partition lower bound Q >= M * (P(2M) - 1) on the recompute optimum, as a verdict:
    Verified when P(2M) is exact, Unknown with the lower bound still proven otherwise,
    Infeasible when no calculation with M red pebbles exists."""
    check_memory(memory)
    if timeout is not None and not timeout > 0:
        raise InvalidArgument(f"timeout must be positive, got {timeout!r}")
    why = infeasibility(dag, memory)
    if why is not None:
        return Infeasible(why)
    core = core_dag(dag)
    left_out = sorted(set(dag.names) - set(core.names))
    return verdict_of(core, memory, search_partition(core, 2 * memory, timeout=timeout,
                                                     seed=seed, rlimit=rlimit), left_out)


def verdict_of(dag: DAG, memory: int, result: PartitionSearch,
               left_out: list[str] | tuple = ()) -> Verdict:
    """Turn a bracket on P(2M) of ``dag`` (a core, see ``core_dag``; ``left_out`` names the
    vertices it dropped) into a verdict on the I/O: only the lower end proves anything."""
    bound = partition_lower_bound(memory, result.lower)
    if result.exact:
        return Verified(bound=bound, evidence=Evidence("partition-lemma", evidence_detail(
            dag, memory, result, left_out)))
    return Unknown(f"P({result.S}) is between {result.lower} and {result.upper} "
                   f"({result.stopped or 'search stopped'}); the lower end alone proves "
                   f"Q >= {memory} * ({result.lower} - 1) = {bound}", lower_bound=bound)


def evidence_detail(dag: DAG, memory: int, result: PartitionSearch,
                    left_out: list[str] | tuple = ()) -> dict:
    """The evidence: the witness partition covers the core only; ``left_out`` lists the vertices
    with no output downstream (empty for the families, whose outputs are all sinks)."""
    return {"S": result.S, "memory": memory, "parts": result.upper if result.exact else None,
            "parts_lower": result.lower, "parts_upper": result.upper,
            "lower_by": result.lower_by,
            "partition": parts_to_names(dag, result.witness), "left_out": list(left_out),
            "budget": result.budget}
