"""Running one obligation: the bridge from claims to the searches, checkers and kernels.

Each runner returns an ``ObligationResult`` whose verdict follows the rules of
``ioverify.verdict``: a witness is replayed before it is reported (the searches do that), a proof
names its argument, and anything short of a proof stays ``Unknown`` or ``Bounded``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from ioverify.claims.claim import Obligation
from ioverify.verdict import Optimal, Refuted, Unknown, Verdict, Verified, merge, to_json
from ioverify.dag.registry import build
from ioverify.search.partition import partition_bound
from ioverify.search.curve import curve, evidence_lines
from ioverify.search.pebbling import pebble, upper_end
from ioverify.trace.confront import certified_run, judge_sweep, row


@dataclass(frozen=True)
class Budget:
    """Per-obligation limits: seconds for each search, the seed every solver uses, and a work
    budget that stops a search at the same point on every machine: ``rlimit`` per solver call
    (Z3 resource units; Glucose propagations, see ``ioverify.solve.query``) and ``max_states`` for
    the exhaustive pebbling search (None: the search's own defaults).  ``processes``: how many
    processes an exact search may use (``pebble``'s ``processes``); ``check`` gives a WIDE
    obligation every core it has and runs it alone (``ioverify.claims.check.run_all``).  The
    verdict does not depend on it, only how soon it comes."""

    timeout: float = 120.0
    seed: int = 0
    rlimit: int | None = None
    max_states: int | None = None
    processes: int = 1

    def to_json(self) -> dict[str, Any]:
        doc = {"timeout": self.timeout, "seed": self.seed, "rlimit": self.rlimit,
               "max_states": self.max_states}
        if self.processes > 1:
            doc["processes"] = self.processes
        return doc


@dataclass(frozen=True)
class ObligationResult:
    obligation: Obligation
    verdict: Verdict
    seconds: float
    detail: dict[str, Any] = field(default_factory=dict)


def budget_for(obligation: Obligation, budget: Budget, cores: int = 1) -> Budget:
    """The budget ``obligation`` runs with: ``budget``'s seconds times its ``time_factor``
    and, if it is wide (``Obligation.wide``) and runs alone on ``cores`` cores, that many
    processes."""
    processes = max(budget.processes, cores) if obligation.wide else budget.processes
    if obligation.time_factor == 1 and processes == budget.processes:
        return budget
    return replace(budget, timeout=budget.timeout * obligation.time_factor, processes=processes)


def run(obligation: Obligation, budget: Budget = Budget()) -> ObligationResult:
    start = time.monotonic()
    verdict, detail = RUNNERS[obligation.kind](obligation.spec, budget)
    return ObligationResult(obligation, verdict, round(time.monotonic() - start, 3), detail)


# --- instances and bounds -----------------------------------------------------------------------

def build_family(spec: dict):
    """The family instance a spec names: ``ioverify.dag.registry.build``."""
    return build(spec)


def bound_value(bound_id: str, params: dict, memory: int, blocks: dict | None = None):
    """``ioverify.bounds.instance.bound_value`` (SymPy: loaded when a bound is named)."""
    from ioverify.bounds.instance import bound_value as value_on

    return value_on(bound_id, params, memory, blocks)


def resolve_lower_bound(spec: dict) -> tuple[int | None, dict]:
    """``ioverify.bounds.instance.resolve_lower_bound``."""
    from ioverify.bounds.instance import resolve_lower_bound as resolve

    return resolve(spec)


# --- runners -------------------------------------------------------------------------------------

def run_exact_search(spec: dict, budget: Budget) -> tuple[Verdict, dict]:
    dag = build_family(spec)
    memory, variant = spec["memory"], spec.get("variant", "recompute")
    claim, detail = resolve_lower_bound(spec)
    detail.update(vertices=len(dag), claimed_lower_bound=claim, budget=budget.to_json())
    limits = dict(timeout=budget.timeout, seed=budget.seed, rlimit=budget.rlimit,
                  max_states=budget.max_states, processes=budget.processes)
    if "at_most" in spec:
        detail["claimed_upper_end"] = spec["at_most"]
        return upper_end(dag, memory, spec["at_most"], variant=variant, **limits), detail
    if "optimum" not in spec:
        verdict = pebble(dag, memory, variant=variant, claim_lower_bound=claim, **limits)
        return verdict, detail
    verdict = pebble(dag, memory, variant=variant, **limits)
    detail["expected_optimum"] = spec["optimum"]
    if not isinstance(verdict, Optimal):
        return verdict, detail
    return _compare_optimum(verdict, spec["optimum"], claim, variant), detail


def _compare_optimum(found: Optimal, expected: int, claim: int | None, variant: str) -> Verdict:
    """An exact optimum settles both an expected optimum and a claimed lower bound."""
    if claim is not None and found.io < claim:
        return Refuted(found.schedule, found.io, claim, variant,
                       f"a schedule with {found.io} I/O beats the claimed lower bound {claim}")
    if found.io != expected:
        # The schedule is kept either way: with it the certificate states the optimum (its
        # upper end replayed); without it, above the expected one, only "at least found.io".
        return Refuted(found.schedule, found.io, expected, variant,
                       f"the optimum is {found.io}, not {expected} ({found.evidence.kind})"
                       if found.schedule is not None or found.io < expected else
                       f"the optimum is at least {found.io}, not {expected} "
                       f"({found.evidence.kind})", found.evidence)
    return found


def run_io_curve(spec: dict, budget: Budget) -> tuple[Verdict, dict]:
    """The curve (``ioverify.search.curve``) under the budget's timeout for the whole of it;
    each cell with an expected optimum compared with it as an exact search is; the verdict is
    the worst cell's.  ``detail["cells"]``: every cell's verdict (schedule included), in
    (M, variant) order, with where its ends came from; the certificate writer turns them into
    one exact-search certificate per cell."""
    dag = build_family(spec)
    lo, hi = spec["memory_range"]
    result = curve(dag, list(range(lo, hi + 1)), spec["variants"], timeout=budget.timeout,
                   seed=budget.seed, rlimit=budget.rlimit, max_states=budget.max_states)
    verdicts, cells = [], []
    for (memory, variant), cell in result.cells.items():
        verdict = cell.verdict
        expected = spec.get("optima", {}).get(variant, {}).get(str(memory))
        if expected is not None and isinstance(verdict, Optimal):
            verdict = _compare_optimum(verdict, expected, None, variant)
        verdicts.append(verdict)
        cells.append({"memory": memory, "variant": variant, "verdict": to_json(verdict, dag),
                      "evidence": evidence_lines(result, cell),
                      "seconds": round(cell.seconds, 3)})
    detail = {"vertices": len(dag), "trivial_bound": result.trivial, "cells": cells,
              "budget": budget.to_json()}
    return merge(verdicts), detail


def run_partition(spec: dict, budget: Budget) -> tuple[Verdict, dict]:
    dag = build_family(spec)
    verdict = partition_bound(dag, spec["memory"], timeout=budget.timeout, seed=budget.seed,
                              rlimit=budget.rlimit)
    detail = {"vertices": len(dag), "budget": budget.to_json()}
    at_most = spec.get("at_most")
    if at_most is not None and isinstance(verdict, Verified) and verdict.bound > at_most:
        # The bound is proved; the figure it contradicts is the claim's, so the claim is refuted.
        return Refuted(None, None, at_most, "partition",
                       f"the proved partition bound {verdict.bound} exceeds the claimed optimum "
                       f"{at_most}: no schedule can cost {at_most}", verdict.evidence), detail
    return verdict, detail


def run_kernel(spec: dict, budget: Budget) -> tuple[Verdict, dict]:
    from ioverify.trace.kernel import judge, run_kernel as run_traced

    report = run_traced(spec["kernel"], memory=spec["memory"], seed=budget.seed,
                        literal_blocks=spec.get("literal_blocks", False), **spec["params"])
    detail = {"loads": report.loads, "stores": report.stores, "io": report.io,
              "peak": report.peak, "formula": report.formula, "max_error": report.max_error,
              "certified": report.certified, "reason": report.reason, **report.extra}
    expect = spec.get("expect_certified", True)
    lower = upper = ()
    if expect and report.certified and report.io == report.formula:
        lower = _bounds_on(spec, "lower_bounds", detail, report.blocks)
        upper = _bounds_on(spec, "upper_bounds", detail, report.blocks)
    return judge(report, expect_certified=expect, lower_bounds=lower, upper_bounds=upper), detail


def _bounds_on(spec: dict, key: str, detail: dict, blocks: dict) -> list[tuple[str, Any]]:
    """Each bound the spec names under ``key``, evaluated on its instance and the run's own
    block sizes (recorded in ``detail``, as the certificate shows it)."""
    values = []
    for bound_id in spec.get(key, ()):
        value = bound_value(bound_id, spec["params"], spec["memory"], blocks)
        detail.setdefault(key, {})[bound_id] = str(value)
        values.append((bound_id, value))
    return values


def run_symbolic(spec: dict, budget: Budget) -> tuple[Verdict, dict]:
    from ioverify.bounds.facts import prove

    result = prove(spec["fact"])
    detail = {"statement": result.statement, "method": result.method, "detail": result.detail}
    return result.verdict(), detail


def run_confront(spec: dict, budget: Budget) -> tuple[Verdict, dict]:
    """Certified runs of the kernel over the sweep, each with the bound read off it, judged by
    ``ioverify.trace.confront.judge_sweep``; a run that is not certified leaves the
    confrontation unknown (an uncertified count is no evidence)."""
    rows, explicit = [], not _bound_record(spec["bound"]).asymptotic
    for point in spec["sweep"]:
        run = certified_run(spec["kernel"], point["params"], point["memory"], budget.seed)
        if not run["certified"]:
            return Unknown(f"{spec['kernel']} at {point['params']}, M={point['memory']} was not "
                           f"certified ({run['reason']}): nothing to confront",
                           variant="kernel"), {"explicit": explicit, "runs": len(rows)}
        value = bound_on_run(spec["bound"], spec["reading"], point["params"], point["memory"],
                             run["blocks"], regime=spec["regime"])
        rows.append(row(point["params"], point["memory"], run["io"], value,
                        run["trace_digest"]))
    verdict = judge_sweep(spec["bound"], spec["kernel"], rows, explicit=explicit,
                          along=spec["along"])
    return verdict, {"explicit": explicit, "runs": len(rows)}


def _bound_record(bound_id: str):
    from ioverify.bounds.records import get

    return get(bound_id)


def bound_on_run(*args, **kwargs):
    """``ioverify.bounds.instance.bound_on_run`` (SymPy: loaded when a bound is named)."""
    from ioverify.bounds.instance import bound_on_run as on_run

    return on_run(*args, **kwargs)


RUNNERS = {
    "exact-search": run_exact_search,
    "partition": run_partition,
    "kernel": run_kernel,
    "symbolic": run_symbolic,
    "confront": run_confront,
    "io-curve": run_io_curve,
}
