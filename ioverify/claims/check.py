"""``ioverify check``: run every obligation of a set of claims, merge per claim (worst wins),
write one certificate per obligation.

Results are identical however they ran (one process, a local pool, or a Dask cluster): each
obligation is a pure function of its data, the budget and the seed, and results are put back in
the order the obligations were listed.  One exception, in what is recorded only: a WIDE
obligation (``Obligation.wide``) on a local pool runs with every core, and its certificate
records the processes it had and its search's configuration count, which varies a little from
run to run when its expansions are made on several processes (``ioverify.search.farm``).
"""

from __future__ import annotations

import logging
import time

from dataclasses import dataclass
from typing import Callable, Iterable

from ioverify._pool import worker_pool
from ioverify.claims.claim import Claim, Obligation
from ioverify.claims.run import Budget, ObligationResult, budget_for, run
from ioverify.verdict import Verdict, merge
from ioverify.claims.validate import validate
from ioverify.errors import InvalidArgument


LOG = logging.getLogger("ioverify.check")

@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    results: tuple[ObligationResult, ...]

    @property
    def verdict(self) -> Verdict:
        return merge(r.verdict for r in self.results)


def _run_packed(item):
    obligation_json, budget = item
    return run(Obligation.from_json(obligation_json), budget)


def run_all(obligations: list[Obligation], budget: Budget, jobs: int = 1,
            scheduler: str | None = None,
            progress: Callable[[ObligationResult], None] | None = None) -> list[ObligationResult]:
    """Run obligations serially, on ``jobs`` local processes, or on a Dask cluster; the result
    list is in the order of ``obligations`` whichever way they ran, each with its own budget
    (``budget_for``).  On a local pool the WIDE ones (``Obligation.wide``) run first, one at a
    time, each with ``jobs`` processes (``Budget.processes``), then the others, the heavy ones
    first, one process each.  Each finished obligation is logged (logger ``ioverify.check``,
    INFO) with the count done and an estimate of the time left."""
    pooled = not scheduler and jobs > 1
    order = sorted(range(len(obligations)),
                   key=lambda i: (not (pooled and obligations[i].wide), not obligations[i].heavy))
    items = [(obligations[i].to_json(), budget_for(obligations[i], budget, jobs if pooled else 1))
             for i in order]
    alone = sum(1 for i in order if pooled and obligations[i].wide)
    progress = _logged(len(items), progress, alone)
    if scheduler:
        results = _run_dask(items, scheduler)
    elif pooled:
        results = _run_pool(items, jobs, progress, alone)
    else:
        results = []
        for item in items:
            results.append(_run_packed(item))
            if progress:
                progress(results[-1])
    by_index = dict(zip(order, results))
    return [by_index[i] for i in range(len(obligations))]


def _logged(total: int, progress, alone: int = 0):
    """``progress`` with a log line per result: done of total, and the time left estimated
    from the mean wall time per result so far; the first ``alone`` results (the wide
    obligations, run one at a time) say so instead, and the estimate counts from the end of
    them (each takes a minute where most of the others take a second)."""
    start, done = [time.monotonic()], [0]

    def report(result: ObligationResult) -> None:
        done[0] += 1
        if done[0] <= alone:
            start[0] = time.monotonic()
            LOG.info("[%d/%d] %-10s %s (%.1f s; alone on every core)", done[0], total,
                     result.verdict.status, result.obligation.id, result.seconds)
        else:
            elapsed = time.monotonic() - start[0]
            left = elapsed / (done[0] - alone) * (total - done[0])
            LOG.info("[%d/%d] %-10s %s (%.1f s; about %.0f s left)", done[0], total,
                     result.verdict.status, result.obligation.id, result.seconds, left)
        if progress:
            progress(result)
    return report


def _run_pool(items, jobs, progress, alone: int = 0):
    """On ``jobs`` spawned workers (``ioverify._pool.worker_pool``: terminated at once on Ctrl-C
    or SIGTERM instead of waiting for their searches).  The first ``alone`` items run one at a
    time (the rest of the pool idle: their searches' own processes use those cores), the others
    ``jobs`` at a time."""
    results = []
    with worker_pool(jobs) as pool:
        for item in items[:alone]:
            results.append(pool.apply(_run_packed, (item,)))
            if progress:
                progress(results[-1])
        for result in pool.imap(_run_packed, items[alone:]):
            results.append(result)
            if progress:
                progress(result)
    return results


def _run_dask(items, address: str):
    with dask_client(address) as client:
        futures = client.map(_run_packed, items, pure=False)
        return client.gather(futures)


def dask_client(address: str):
    """A Dask client connected to the scheduler at ``address``; InvalidArgument (one line) if
    the 'distributed' extra is missing or the scheduler cannot be reached."""
    try:
        from distributed import Client
    except ImportError:
        raise InvalidArgument("--scheduler needs the optional 'distributed' extra: "
                              "pip install 'ioverify[distributed]'") from None
    try:
        return Client(address, timeout="10s")
    except OSError as error:
        raise InvalidArgument(f"cannot reach the Dask scheduler at {address!r}: {error}") from None
    except ValueError as error:  # e.g. "missing port number": not an address at all
        raise InvalidArgument(f"--scheduler {address!r} is not a scheduler address "
                              f"(tcp://HOST:PORT): {error}") from None


def check_claims(claims: Iterable[Claim], budget: Budget = Budget(), jobs: int = 1,
                 scheduler: str | None = None, progress=None) -> list[ClaimResult]:
    claims = list(claims)
    validate(claims)  # a typo in an id fails here, not after the solver work
    obligations = [ob for c in claims for ob in c.obligations]
    results = iter(run_all(obligations, budget, jobs, scheduler, progress))
    return [ClaimResult(c, tuple(next(results) for _ in c.obligations)) for c in claims]
