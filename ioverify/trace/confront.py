"""Confronting a bound with certified kernel runs: the judgment, shared by the claim runner and
the certificate re-check (which re-runs the kernels and judges again).

A kernel that computes the same function as a lower bound's graph may never move fewer words
than the bound allows.  One certified run below an explicit bound refutes it (under the reading
that attached the bound to the run); an asymptotic bound has no constant, so a single run says
nothing, but a ratio bound / kernel that grows at every step of a sweep contradicts it there.
Everything here is arithmetic on numbers the caller measured: no solver, no search.
"""

from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache

from ioverify.verdict import Contradicted, Evidence, Refuted, Supported, Verdict

# A sweep contradicts an asymptotic lower bound when the ratio bound / kernel rises at every
# step like the swept parameter to at least EXPONENT (so a ratio that rises across a crossover
# and then levels off does not), by at least GROWTH overall.  A ratio that levels off (a
# constant would absorb it) supports the bound.
GROWTH = 2.0
EXPONENT = 0.25
MIN_POINTS = 3


def trace_digest(trace) -> str:
    """SHA-256 of a trace's arrays and records, in order: names the exact certified run."""
    h = hashlib.sha256(repr(sorted(trace.arrays.items())).encode())
    for record in trace.records:
        h.update(repr(record).encode())
    return h.hexdigest()


def certified_run(kernel: str, params: dict, memory: int, seed: int) -> dict:
    """One certified run's figures (``ioverify.trace.kernel.run_kernel``): io, blocks,
    certified, reason and the trace digest.  Kept per process, since every bound confronted
    with a kernel sweeps the same runs; the run is deterministic in its arguments."""
    return dict(_run(kernel, json.dumps(params, sort_keys=True), memory, seed))


@lru_cache(maxsize=1024)
def _run(kernel: str, params: str, memory: int, seed: int) -> tuple:
    from ioverify.trace.kernel import run_kernel

    report = run_kernel(kernel, memory=memory, seed=seed, **json.loads(params))
    return (("io", report.io), ("blocks", report.blocks), ("certified", report.certified),
            ("reason", report.reason), ("trace_digest", trace_digest(report.trace)))


def row(params: dict, memory: int, io: int, bound: float, digest: str) -> dict:
    """One run of a sweep, as verdicts and certificates carry it."""
    return {"params": params, "memory": memory, "io": io, "bound": bound,
            "ratio": bound / io if io else math.inf, "trace_digest": digest}


def judge_sweep(bound_id: str, kernel: str, rows: list[dict], *, explicit: bool,
                along: str | None) -> Verdict:
    """The verdict on ``rows`` (certified runs of ``kernel``, in sweep order) against bound
    ``bound_id``: an explicit bound is refuted by the first run below it; an asymptotic one is
    contradicted when the ratio grows along ``along`` (see GROWTH, EXPONENT); otherwise the
    sweep supports the bound."""
    evidence = Evidence("kernel-sweep", {"points": len(rows)})
    if explicit:
        for r in rows:
            if r["io"] < r["bound"]:
                return _refuted(bound_id, kernel, r)
        return Supported(bound_id, kernel, rows, None, evidence)
    exponent = growth_exponent(rows, along) if along else None
    if along and exponent is not None and _grows(rows, along):
        return Contradicted(bound_id, kernel, along, rows, exponent, evidence)
    return Supported(bound_id, kernel, rows, exponent, evidence)


def _refuted(bound_id: str, kernel: str, r: dict) -> Refuted:
    sizes = ", ".join(f"{k}={v}" for k, v in r["params"].items())
    return Refuted(None, r["io"], math.ceil(r["bound"]), "kernel",
                   f"certified {kernel} ({sizes}, M={r['memory']}) moves {r['io']} words, below "
                   f"the explicit lower bound {bound_id} = {r['bound']:.6g}",
                   Evidence("kernel-certification", {"kernel": kernel, "params": r["params"],
                                                     "memory": r["memory"],
                                                     "trace_digest": r["trace_digest"]}))


def coordinate(row: dict, along: str):
    """The value of the growing parameter ``along`` at a run: a kernel size, or ``"M"``."""
    return row["memory"] if along == "M" else row["params"].get(along, 0)


def _grows(rows: list[dict], along: str) -> bool:
    """The ratio rises at every step at a rate of at least EXPONENT in ``along``."""
    ratios = [r["ratio"] for r in rows]
    if len(ratios) < MIN_POINTS or min(ratios) <= 0 or ratios[-1] < GROWTH * ratios[0]:
        return False
    for a, b in zip(rows, rows[1:]):
        x, y = coordinate(a, along), coordinate(b, along)
        if not 0 < x < y or math.log(b["ratio"] / a["ratio"]) < EXPONENT * math.log(y / x):
            return False
    return True


def growth_exponent(rows: list[dict], along: str) -> float | None:
    """Least-squares slope of log(ratio) against log(``along``); None when it cannot be fitted
    (fewer than two distinct values, or a ratio that is not positive)."""
    points = [(math.log(coordinate(r, along)), math.log(r["ratio"])) for r in rows
              if r["ratio"] > 0 and coordinate(r, along) > 0]
    xs = {x for x, _ in points}
    if len(xs) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    num = sum((x - mx) * (y - my) for x, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return round(num / den, 6)
