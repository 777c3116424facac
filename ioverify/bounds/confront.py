"""Small-instance confrontation: every explicit-constant lower bound against exact optima.

For each lower bound with explicit constants and a matching DAG family, and each small instance
of that family whose exact optimum is known, the optimum must be at least the bound.  Optima come
from two places, always labelled:

- ``reference``: THEORY.md section 1's reference optima (an independent exhaustive search), used
  as data;
- ``search``: ``ioverify.game.exhaustive.exhaustive_optimum`` run here (complete runs only), its
  schedule replayed by ``ioverify.game.replay`` before the optimum is used.

A recompute optimum at least a one-shot bound supports it (one-shot optimum >= recompute
optimum); below it, nothing follows (``inconclusive``).  A failing derived bound is a finding:
``render_markdown`` writes it into ``docs/bounds-confrontation.md`` with the instance.

    python -m ioverify.bounds.confront --write docs/bounds-confrontation.md
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import sympy

from ioverify.bounds.records import REGISTRY, Bound
from ioverify.errors import InternalError, InvalidArgument
from ioverify._io import write_text
from ioverify.dag.registry import FAMILIES
from ioverify.game.exhaustive import exhaustive_optimum
from ioverify.game.replay import replay

REFERENCE = "reference optimum (THEORY.md §1, independent exhaustive search, recompute)"
SEARCH = "exhaustive_optimum, complete run, schedule replayed (recompute)"

# THEORY.md §1: 2x2x2 matmul with products and one addition per entry.
REFERENCE_OPTIMA = (("matmul", {"m": 2, "k": 2, "n": 2}, 3, 25),
                    ("matmul", {"m": 2, "k": 2, "n": 2}, 4, 17),
                    ("matmul", {"m": 2, "k": 2, "n": 2}, 5, 14),
                    ("matmul", {"m": 2, "k": 2, "n": 2}, 6, 13))

# Small instances searched exactly (a few seconds each at most, except where noted).
SEARCH_INSTANCES = (
    ("matmul", {"m": 1, "k": 1, "n": 1}, (3, 4)),
    ("matmul", {"m": 1, "k": 2, "n": 1}, (3, 4, 5)),
    ("matmul", {"m": 2, "k": 1, "n": 2}, (3, 4, 5)),
    ("matmul", {"m": 1, "k": 2, "n": 2}, (3, 4, 5)),
    ("attention-forward", {"n": 1, "d": 1}, (3, 4)),
    ("attention-forward", {"n": 1, "d": 2}, (3, 4)),
    ("attention-forward", {"n": 2, "d": 1}, (5, 6)),  # ~15 s each
    ("attention-backward", {"n": 1, "d": 1}, (3, 4)),
    ("approximate-attention", {"n": 1, "d": 1, "degree": 1}, (3, 4, 5)),
    ("approximate-attention", {"n": 2, "d": 1, "degree": 1}, (4, 5)),  # ~10 s
)


@dataclass(frozen=True)
class Optimum:
    family: str
    params: dict
    memory: int
    io: int
    provenance: str

    @property
    def instance(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.family}({args}), M={self.memory}"


@dataclass(frozen=True)
class Row:
    bound: str
    firmness: str
    optimum: Optimum
    value: str  # the bound's exact value on the instance
    status: str  # held | failed | inconclusive
    note: str


def explicit_lower_bounds() -> list[Bound]:
    """Lower bounds with explicit constants and a matching DAG family."""
    return [b for b in REGISTRY.values()
            if b.kind == "lower" and not b.asymptotic and b.family is not None]


def reference_optima() -> list[Optimum]:
    return [Optimum(f, p, m, q, REFERENCE) for f, p, m, q in REFERENCE_OPTIMA]


def searched_optima(*, seconds: float = 30.0, instances=SEARCH_INSTANCES) -> list[Optimum]:
    """Exact optima by exhaustive search (complete runs only, schedules replayed)."""
    found = []
    for family, params, memories in instances:
        dag = FAMILIES[family].build(**params)
        for memory in memories:
            result = exhaustive_optimum(dag, memory, deadline=time.monotonic() + seconds)
            if not result.complete or result.optimum is None:
                continue
            check = replay(dag, result.schedule, memory, "recompute")
            if not check.ok or check.io != result.optimum:
                raise InternalError(f"{family}{params} M={memory}: the search's schedule does "
                                    f"not replay to its optimum {result.optimum}")
            found.append(Optimum(family, params, memory, result.optimum, SEARCH))
    return found


def confront(optima: list[Optimum]) -> list[Row]:
    rows = []
    for bound in explicit_lower_bounds():
        for opt in optima:
            if opt.family == bound.family:
                row = _confront_one(bound, opt)
                if row is not None:
                    rows.append(row)
    return rows


def _confront_one(bound: Bound, opt: Optimum) -> Row | None:
    try:
        value = bound.exact(**opt.params, M=opt.memory)
    except InvalidArgument:
        return None  # outside the bound's regime: nothing is claimed there
    held = bool(sympy.Integer(opt.io) >= value)
    notes = []
    if value <= 0:
        notes.append("vacuous (bound <= 0)")
    if bound.variant == "one-shot":
        notes.append("one-shot bound vs recompute optimum")
    if bound.id == "cosma":
        notes.append("family has mul + add vertices, not FMA vertices")
    if held:
        status = "held"
    elif bound.variant == "one-shot":
        status = "inconclusive"
    else:
        status = "failed"
    if held and value == opt.io:
        notes.append("tight")
    elif held and sympy.ceiling(value) == opt.io:
        notes.append("tight after rounding up")
    return Row(bound.id, bound.firmness, opt, _show(value), status, "; ".join(notes))


def _show(value: sympy.Expr) -> str:
    if value.is_Rational:
        return str(value)
    return f"{sympy.sstr(value)} ≈ {float(value):.3f}"


def render_markdown(rows: list[Row]) -> str:
    lines = ["# Bounds against exact optima on small instances", "",
             "Generated by `python -m ioverify.bounds.confront --write "
             "docs/bounds-confrontation.md`; do not edit by hand.", "",
             "Every explicit-constant lower bound of `ioverify.bounds` with a matching DAG "
             "family, evaluated exactly on small instances whose exact optimum is known. "
             "*held*: optimum >= bound. *failed*: the optimum is below the bound, so the bound "
             "is false on that instance (a finding). *inconclusive*: a one-shot bound above a "
             "recompute optimum (nothing follows). A bound that holds only vacuously "
             "(value <= 0) tests nothing; a derived bound has been confronted only where it is "
             "positive.", ""]
    lines += _summary(rows) + [""] + _thresholds() + ["", "## All comparisons", "",
                               "| bound | firmness | instance | optimum | bound value | status "
                               "| note | optimum from |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        o = row.optimum
        lines.append(f"| `{row.bound}` | {row.firmness} | {o.instance} | {o.io} | {row.value} "
                     f"| {row.status} | {row.note} | {o.provenance} |")
    return "\n".join(lines) + "\n"


def _summary(rows: list[Row]) -> list[str]:
    lines = ["## Summary", "", "| bound | firmness | held | failed | inconclusive | "
             "non-vacuous checks |", "|---|---|---|---|---|---|"]
    for bound in explicit_lower_bounds():
        mine = [r for r in rows if r.bound == bound.id]
        count = {s: sum(r.status == s for r in mine) for s in ("held", "failed", "inconclusive")}
        real = sum("vacuous" not in r.note for r in mine)
        lines.append(f"| `{bound.id}` | {bound.firmness} | {count['held']} | {count['failed']} "
                     f"| {count['inconclusive']} | {real} |")
    failed = [r for r in rows if r.status == "failed"]
    lines += ["", "Failed: " + (", ".join(f"`{r.bound}` on {r.optimum.instance}"
                                          for r in failed) if failed else "none.")]
    return lines


def render_facts(results) -> str:
    """The proved facts with their status and, for constant searches, the constant found and
    the instance refuting the next smaller candidate."""
    lines = ["## Facts about the formulas (`ioverify bounds facts`)", "",
             "Proved over the whole region (Z3 or SymPy), never sampled. For `*-vs-theta` facts, "
             "C is the smallest constant on the checker's ladder that is proved, and the next "
             "smaller candidate is refuted by the exact instance shown.", "",
             "| fact | status | C | next smaller C fails at | method |", "|---|---|---|---|---|"]
    for r in results:
        below = r.data.get("below", {})
        where = ", ".join(f"{k}={v}" for k, v in below.get("counterexample", {}).items())
        fails = f"{below['C']}: {where or below.get('status')}" if below else ""
        extra = f" (THEORY form - kernel = {r.data['difference']})" if "difference" in r.data \
            else ""
        lines.append(f"| `{r.id}`{extra} | {r.status} | {r.data.get('C', '')} | {fails} | "
                     f"{r.method} |")
    return "\n".join(lines) + "\n"


def _thresholds() -> list[str]:
    """Where the derived attention bounds stop being vacuous: the least n (d fixed, M = 3, the
    least feasible memory) at which each exceeds 0 and exceeds the trivial 4nd."""
    lines = ["## Where the derived attention bounds say something", "",
             "The least n at which each bound is positive, and at which it beats the trivial "
             "bound 4nd (M = 3, the least feasible memory; the bounds decrease in M, so larger M "
             "only moves these thresholds up). For example attention_forward(2, 1) and (2, 2) "
             "lie below every threshold: there the derived bounds are <= 0 at every feasible M, "
             "whatever the optimum. Instances past the thresholds are out of reach of exact "
             "search, so on searchable instances these bounds hold vacuously.",
             "", "| bound | d | least n with bound > 0 | least n with bound > 4nd |",
             "|---|---|---|---|"]
    for bound in explicit_lower_bounds():
        if bound.firmness != "derived" or bound.id.endswith("-trivial"):
            continue
        for d in (1, 2, 4, 8):
            first = _least_n(bound, d, 0)
            beat = _least_n(bound, d, 4)
            lines.append(f"| `{bound.id}` | {d} | {first} | {beat} |")
    return lines


def _least_n(bound: Bound, d: int, per_nd: int, limit: int = 10**6) -> str:
    """Least n with bound(n, d, M=3) > per_nd * n * d (exact; doubling then bisection)."""
    def above(n: int) -> bool:
        return bool(bound.exact(n=n, d=d, M=3) > per_nd * n * d)
    hi = 1
    while not above(hi):
        hi *= 2
        if hi > limit:
            return f"> {limit}"
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if above(mid) else (mid, hi)
    return str(hi)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ioverify.bounds.confront")
    parser.add_argument("--write", metavar="FILE", help="write the Markdown here")
    parser.add_argument("--no-search", action="store_true", help="reference optima only")
    parser.add_argument("--seconds", type=float, default=30.0, help="search budget per case")
    args = parser.parse_args(argv)
    optima = reference_optima()
    if not args.no_search:
        optima += searched_optima(seconds=args.seconds)
    rows = confront(optima)
    from ioverify.bounds.facts import prove_all

    write_text(render_markdown(rows) + "\n" + render_facts(prove_all()), args.write)
    return 1 if any(r.status == "failed" for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
