"""Proved facts about the bound formulas: the algebra the papers do by hand, checked.

Each fact is a small function returning a ``FactResult`` whose status is ``proved``, ``refuted``,
``vacuous`` or ``unknown`` (never a bool, and ``unknown`` is never upgraded).  A fact is proved by
a SymPy identity or solution set, or by Z3 over the WHOLE region (``ioverify.encode.arithmetic.
forall``: the negation is unsatisfiable, and a witness shows the region non-empty), never by
sampling; a refutation carries a concrete instance checked exactly.  A fact over an empty region
is ``vacuous``: true of no point, so its verdict is ``Unknown`` (it verifies no claim).  The
building blocks (``identity``, ``crossover``, ``at_most``, ``smallest_constant``,
``nonincreasing_in_M``) are public so a claim or a test can state a variant, including a wrong
one, and see it NOT proved.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Sequence

import sympy
from sympy import Eq, Min, ceiling, floor, sqrt

from ioverify.encode import arithmetic as smt
from ioverify.bounds.records import get
from ioverify.bounds.symbols import B, B_c, B_r, M, Z_QK, Z_in, a, b, d, m, n
from ioverify.errors import InternalError, InvalidArgument
from ioverify.verdict import Evidence, Proved, Refuted, Unknown, Verdict

STATUSES = ("proved", "refuted", "vacuous", "unknown")


@dataclass(frozen=True)
class FactResult:
    id: str
    statement: str
    status: str
    method: str
    detail: str
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"id": self.id, "statement": self.statement, "status": self.status,
                "method": self.method, "detail": self.detail, "data": self.data}

    def verdict(self) -> Verdict:
        """The answer in ioverify's verdict vocabulary: ``Proved``, ``Refuted`` or ``Unknown``
        (a vacuous fact proves nothing: ``Unknown``, its reason saying "vacuous")."""
        if self.status == "proved":
            return Proved(self.statement, Evidence("symbolic-proof", {"method": self.method}))
        if self.status == "refuted":
            return Refuted(None, None, None, "formula", f"refuted: {self.detail}")
        return Unknown(f"not proved: {self.detail}", variant="formula")


@dataclass(frozen=True)
class Part:
    """One step of a fact: its status, how it was checked, and what was found."""

    status: str
    method: str
    detail: str
    data: dict = field(default_factory=dict)


def combine(parts: Sequence[Part]) -> Part:
    """Any refuted: refuted; else any unknown: unknown; else any vacuous: vacuous; else (all
    proved) proved."""
    statuses = {p.status for p in parts}
    status = next((s for s in ("refuted", "unknown", "vacuous") if s in statuses), "proved")
    methods = "; ".join(dict.fromkeys(p.method for p in parts))
    data = {key: value for p in parts for key, value in p.data.items()}
    return Part(status, methods, " | ".join(p.detail for p in parts), data)


# --- building blocks ----------------------------------------------------------------------------

def forall(hypotheses, goal, *, rlimit: int = smt.DEFAULT_RLIMIT) -> Part:
    """``hypotheses -> goal`` for every positive parameter value (Z3, see ``smt.forall``);
    ``vacuous`` when no point satisfies the hypotheses."""
    outcome = smt.forall(hypotheses, goal, rlimit=rlimit)
    data = {key: value for key, value in (("counterexample", outcome.counterexample),
                                          ("witness", outcome.witness)) if value}
    return Part(outcome.status, outcome.method, f"{goal}: {outcome.detail}", data)


def identity(lhs: sympy.Expr, rhs: sympy.Expr) -> Part:
    """``lhs == rhs`` identically: SymPy simplifies the difference to 0 (proved), or a small
    integer point where it is non-zero refutes it; otherwise unknown."""
    difference = sympy.simplify(lhs - rhs)
    if difference == 0:
        return Part("proved", "sympy simplify", f"{lhs} - ({rhs}) simplifies to 0")
    point = _nonzero_point(difference)
    if point is not None:
        shown = ", ".join(f"{s}={v}" for s, v in point.items())
        return Part("refuted", "sympy exact evaluation", f"{lhs} != {rhs} at {shown}",
                    {"counterexample": {str(s): str(v) for s, v in point.items()}})
    return Part("unknown", "sympy simplify", f"difference {difference} not shown to be 0")


def _nonzero_point(expr: sympy.Expr):
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    for values in itertools.product(range(1, 5), repeat=len(syms)):
        point = dict(zip(syms, values))
        value = sympy.simplify(expr.subs(point))
        if value.is_number and value != 0:
            return point
    return None


def solutions(equation, var: sympy.Symbol, expected: Sequence[sympy.Expr]) -> Part:
    """The positive solutions of ``equation`` in ``var`` are exactly ``expected`` (SymPy)."""
    found = set(sympy.solve(equation, var))
    want = set(expected)
    if found == want:
        return Part("proved", "sympy solve", f"solutions of {equation} in {var}: {sorted(found, key=str)}")
    return Part("unknown", "sympy solve", f"solutions of {equation} in {var}: "
                f"{sorted(found, key=str)}, expected {sorted(want, key=str)}")


def crossover(first: sympy.Expr, second: sympy.Expr, at: sympy.Expr, *, var=M,
              hypotheses=()) -> Part:
    """The two branches of a min are equal exactly at ``var = at``; ``second`` is the smaller
    below, ``first`` above (SymPy for the solution set, Z3 for all four implications).  The
    point ``var = at`` must lie in the region: outside it the implications hold vacuously."""
    hyps = list(hypotheses)
    parts = [solutions(Eq(first, second), var, [at]),
             forall(hyps + [Eq(first, second)], Eq(var, at)),
             forall(hyps + [Eq(var, at)], Eq(first, second)),
             forall(hyps + [var < at], second < first),
             forall(hyps + [var > at], first < second)]
    inside = _inside(hyps, Eq(var, at))  # reported only when it fails
    return combine(parts if inside.status == "proved" else [inside] + parts)


def _inside(hypotheses, condition) -> Part:
    """The region has a point where ``condition`` holds (a witness checked exactly)."""
    region = smt.region_point(list(hypotheses) + [condition])
    if region.status == "nonempty":
        return Part("proved", region.method, f"{condition} inside the region (e.g. "
                    f"{region.detail})", {"witness": region.witness})
    if region.status == "empty":
        return Part("vacuous", region.method, f"vacuous: {condition} lies outside the region "
                    f"({region.detail})")
    return Part("unknown", region.method, f"{condition} not shown inside the region "
                f"({region.detail})")


def at_most(lhs, rhs, hypotheses, *, rlimit: int = smt.DEFAULT_RLIMIT) -> Part:
    return forall(hypotheses, lhs <= rhs, rlimit=rlimit)


# Candidate constants, smallest first: sixteenths to 1, quarters to 8, integers to 64, then
# powers of two.  The checker reports the smallest candidate it can prove.
LADDER = tuple(sorted({sympy.Rational(i, 16) for i in range(1, 17)}
                      | {sympy.Rational(i, 4) for i in range(4, 33)}
                      | {sympy.Integer(i) for i in range(8, 65)}
                      | {sympy.Integer(2**j) for j in range(7, 13)}))


def smallest_constant(lhs, theta, hypotheses, *, ladder=LADDER) -> Part:
    """The smallest C on ``ladder`` with ``lhs <= C * theta`` proved over the whole region, with
    the status of the candidate just below it (refuted with an instance, or unknown).  C is
    called the smallest only when the candidate below is refuted; over an empty region every C
    holds vacuously: ``vacuous``.

    Gallop up from 1 to the first proved candidate, then step down one candidate at a time
    until one is not proved: candidates near the true constant are refuted quickly by an
    integer counterexample, while bisection would probe points where nlsat is slow."""
    lo, hi, best = _bracket(lhs, theta, hypotheses, ladder)
    if best.status == "vacuous":
        return best
    if best.status != "proved":
        return Part(best.status if best.status == "refuted" else "unknown", best.method,
                    f"no C <= {ladder[-1]} proved: {best.detail}", best.data)
    below = None
    for i in range(hi - 1, lo, -1):
        trial = at_most(lhs, ladder[i] * theta, hypotheses)
        if trial.status != "proved":
            below = (ladder[i], trial)
            break
        hi, best = i, trial
    if below is None and lo >= 0:
        below = (ladder[lo], at_most(lhs, ladder[lo] * theta, hypotheses))
    return _constant_found(ladder[hi], best, below)


def _constant_found(c, best: Part, below) -> Part:
    """C proved; the smallest only if the candidate below (if any) is refuted."""
    data = {"C": str(c), "shown_smallest": below is None or below[1].status == "refuted"}
    detail = f"C = {c} proved ({best.detail})"
    if below is not None:
        data["below"] = {"C": str(below[0]), "status": below[1].status, **below[1].data}
        detail += f"; C = {below[0]} not proved: {below[1].status} ({below[1].detail})"
        if not data["shown_smallest"]:
            detail = f"C = {c} proved but not shown the smallest: " + detail
    return Part("proved", best.method, detail, data)


def _bracket(lhs, theta, hypotheses, ladder):
    """Gallop up the ladder from 1 (huge constants make nlsat slow): ``(lo, hi, result)`` with
    ``hi`` the first proved candidate (or the first vacuous, or the last tried) and ``lo`` the
    last one tried below it (-1 if none: when 1 is proved the descent continues below 1)."""
    start = ladder.index(sympy.Integer(1)) if sympy.Integer(1) in ladder else 0
    lo, step, i = -1, 1, start
    while True:
        trial = at_most(lhs, ladder[i] * theta, hypotheses)
        if trial.status in ("proved", "vacuous") or i == len(ladder) - 1:
            return lo, i, trial
        lo, i, step = i, min(i + step, len(ladder) - 1), step * 2


def chain(lhs, middle, rhs, hypotheses) -> Part:
    """``lhs <= middle <= rhs`` over the region, each step proved on its own (transitivity):
    a stepping stone where Z3 is slow on the direct inequality."""
    return combine([at_most(lhs, middle, hypotheses), at_most(middle, rhs, hypotheses)])


def nonincreasing_in_M(expr: sympy.Expr, hypotheses) -> Part:
    """``expr`` does not grow with M: M1 <= M2, both satisfying the hypotheses, gives
    expr(M2) <= expr(M1) (Z3 over the whole region).  An ``expr`` without the registry's M
    (say a look-alike ``Symbol("M")`` with other assumptions) is refused: substituting M would
    leave it unchanged and the goal trivially true, a "proof" of nothing."""
    if M not in expr.free_symbols:
        return Part("unknown", "sympy free symbols", f"{expr} does not contain the parameter M "
                    f"(the registry's positive integer M): nothing to check")
    m1, m2 = sympy.Symbol("M_1", positive=True, integer=True), \
        sympy.Symbol("M_2", positive=True, integer=True)
    hyps = [h.subs(M, m1) for h in hypotheses] + [h.subs(M, m2) for h in hypotheses] + [m1 <= m2]
    return forall(hyps, expr.subs(M, m2) <= expr.subs(M, m1))


# --- the facts ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fact:
    id: str
    statement: str
    check: Callable[[], Part]


def _branches(bound_id: str) -> tuple[sympy.Expr, sympy.Expr]:
    expr = get(bound_id).expr
    if not isinstance(expr, Min) or len(expr.args) != 2:
        raise InvalidArgument(f"bound {bound_id!r} is not a min of two branches")
    first, second = sorted(expr.args, key=lambda e: 0 if M**-1 in e.atoms(sympy.Pow) else 1)
    if M**-1 not in first.atoms(sympy.Pow) or M**-1 in second.atoms(sympy.Pow):
        raise InvalidArgument(f"bound {bound_id!r}: cannot tell its 1/M branch from the other")
    return first, second


def _crossover_fact(bound_id: str) -> Fact:
    def check() -> Part:
        first, second = _branches(bound_id)
        return crossover(first, second, d**2)
    return Fact(f"crossover/{bound_id}",
                f"the two branches of {bound_id} are equal exactly at M = d^2; below it the "
                f"second (small-cache) branch is the smaller, above it the first", check)


def _regime(bound_id: str) -> list:
    return list(get(bound_id).conditions)


def _constant_fact(fact_id: str, statement: str, lhs_of: Callable[[], sympy.Expr],
                   theta_of: Callable[[], sympy.Expr], hyps_of: Callable[[], list]) -> Fact:
    return Fact(fact_id, statement,
                lambda: smallest_constant(lhs_of(), theta_of(), hyps_of()))


def _saha_ye_branch(which: int) -> sympy.Expr:
    return _branches("saha-ye-thm3.1")[which]


def _fa_block() -> sympy.Expr:
    """docs/theory.md §6's block side with exact division: M / (4d)."""
    return M / (4 * d)


def _monotone_fact(bound_id: str) -> Fact:
    return Fact(f"monotone/{bound_id}", f"{bound_id} is nonincreasing in M over its regime",
                lambda: nonincreasing_in_M(get(bound_id).expr, _regime(bound_id)))


def _explicit_facts() -> list[Fact]:
    theta = lambda: get("saha-ye-thm3.1").expr  # noqa: E731
    return [
        _constant_fact("explicit-vs-theta/attention-forward-explicit-large",
                       "n^2 d^2/(M + 4d^2) - M <= C n^2 d^2 / M for every M >= 3 (the "
                       "large-cache branch), smallest C",
                       lambda: get("attention-forward-explicit-large").expr,
                       lambda: _saha_ye_branch(0), lambda: _regime("attention-forward-explicit-large")),
        _constant_fact("explicit-vs-theta-min/attention-forward-explicit-large",
                       "n^2 d^2/(M + 4d^2) - M <= C min{n^2 d^2/M, n^2 d/sqrt(M)} for every "
                       "M >= 3, smallest C",
                       lambda: get("attention-forward-explicit-large").expr, theta,
                       lambda: _regime("attention-forward-explicit-large")),
        _constant_fact("explicit-vs-theta/attention-forward-explicit-small",
                       "n^2 d/(2 sqrt(M)) - n^2 <= C n^2 d / sqrt(M) for every M >= 3 (the "
                       "small-cache branch), smallest C",
                       lambda: get("attention-forward-explicit-small").expr,
                       lambda: _saha_ye_branch(1), lambda: _regime("attention-forward-explicit-small")),
        _constant_fact("explicit-vs-theta-min/attention-forward-explicit-small",
                       "n^2 d/(2 sqrt(M)) - n^2 <= C min{n^2 d^2/M, n^2 d/sqrt(M)} for every "
                       "M >= 3, smallest C",
                       lambda: get("attention-forward-explicit-small").expr, theta,
                       lambda: _regime("attention-forward-explicit-small")),
        _constant_fact("explicit-vs-theta/attention-backward-explicit",
                       "2n^2 d^2/(M + 4d^2) - M <= C (n^2 d^2 + n d^3) / M for every M >= 3 "
                       "(v2's large-cache branch), smallest C",
                       lambda: get("attention-backward-explicit").expr,
                       lambda: _branches("attention-backward-v2")[0],
                       lambda: _regime("attention-backward-explicit")),
        _constant_fact("explicit-vs-theta-min/attention-backward-explicit",
                       "2n^2 d^2/(M + 4d^2) - M <= C min-form of v2 for every M >= 3, "
                       "smallest C",
                       lambda: get("attention-backward-explicit").expr,
                       lambda: get("attention-backward-v2").expr,
                       lambda: _regime("attention-backward-explicit")),
    ]


def _square_backward_count() -> sympy.Expr:
    """``square-tiling-backward``'s closed form (ioverify.bounds.kernel_counts) with B | n, d."""
    return 5 * n * d + 3 * n + 2 * n**2 + 10 * n**2 * d / B


def _square_backward_hyps() -> list:
    """The kernel's planner: the largest B whose peak 4B^2 + 2B + 1 fits in M; small cache."""
    return [B >= 1, 4 * B**2 + 2 * B + 1 <= M, M < 4 * B**2 + 10 * B + 7, M <= d**2,
            n >= 1, d >= 1]


def _kernel_theta_facts() -> list[Fact]:
    fa_hyps = lambda: [4 * d <= M, M <= n * d]  # noqa: E731  B_c = M/(4d) >= 1; Thm 2: M <= nd
    fa2_hyps = lambda: [4 * d <= M, M <= n * d, M <= 4 * d**2]  # noqa: E731  B_r = M/(4d) <= d
    sy_hyps = lambda: _regime("saha-ye-algorithm1") + [Eq(B, floor(sqrt(M / 4))), M < d**2]  # noqa
    return [
        _constant_fact("count-vs-theta/flash-forward-count",
                       "FlashAttention forward count 2nd + T_c(3nd + 4n) with B_c = M/(4d) is "
                       "<= C n^2 d^2 / M for 4d <= M <= nd, smallest C",
                       lambda: get("flash-forward-count").expr.subs(B_c, _fa_block()),
                       lambda: _saha_ye_branch(0), fa_hyps),
        _constant_fact("count-vs-theta/flash-backward-count",
                       "FlashAttention backward count 4nd + T_c(5nd + 2n) with B_c = M/(4d) is "
                       "<= C n^2 d^2 / M for 4d <= M <= nd, smallest C",
                       lambda: get("flash-backward-count").expr.subs(B_c, _fa_block()),
                       lambda: get("flash-backward-thm5").expr, fa_hyps),
        _constant_fact("count-vs-theta/flash2-forward-count",
                       "FlashAttention-2 forward count 2nd + 2nd T_r + n with B_r = M/(4d) is "
                       "<= C n^2 d^2 / M for 4d <= M <= min(nd, 4d^2), smallest C",
                       lambda: get("flash2-forward-count").expr.subs(B_r, _fa_block()),
                       lambda: _saha_ye_branch(0), fa2_hyps),
        _constant_fact("count-vs-theta/square-tiling-backward",
                       "the small-cache backward kernel's count 5nd + 3n + 2n^2 + 10 n^2 d / B "
                       "(exact division; B the largest side with 4B^2 + 2B + 1 <= M, its peak) "
                       "is <= C (n^2 d + n d^2) / sqrt(M) for M <= d^2, smallest C",
                       _square_backward_count, lambda: get("attention-backward-small-cache").expr,
                       _square_backward_hyps),
        _constant_fact("count-vs-theta/saha-ye-algorithm1",
                       "Saha-Ye Algorithm 1's count 4n^2 d/B + n^2 + nd + 2n with "
                       "B = floor(sqrt(M/4)) is <= C n^2 d / sqrt(M) in the small-cache regime "
                       "M < d^2, smallest C",
                       lambda: get("saha-ye-algorithm1").expr, lambda: _saha_ye_branch(1),
                       sy_hyps),
    ]


def _consistency_facts() -> list[Fact]:
    """A lower bound above an achievable count would be a contradiction in the theory."""
    sy = lambda: get("saha-ye-algorithm1")  # noqa: E731
    tiling = lambda: get("cosma-tiling")  # noqa: E731

    def below(lower_id: str, upper, via=None) -> Callable[[], Part]:
        def check() -> Part:
            hyps = _regime(lower_id) + list(upper().conditions)
            if via is not None:
                return chain(get(lower_id).expr, via, upper().expr, hyps)
            return at_most(get(lower_id).expr, upper().expr, hyps)
        return check

    # via n^2/4: d^2/(M + 4d^2) < 1/4, and n^2 is a term of the count (direct: ~30 s in nlsat)
    facts = [Fact(f"below/{lid}/saha-ye-algorithm1",
                  f"{lid} <= Saha-Ye Algorithm 1's exact count for every block side B with "
                  f"3B^2 + B <= M (no contradiction between the derived bound and the paper's "
                  f"algorithm)", below(lid, sy, via))
             for lid, via in (("attention-forward-explicit-large", n**2 / 4),
                              ("attention-forward-explicit-small", None))]
    facts += [Fact(f"below/{lid}/cosma-tiling",
                   f"{lid} <= the COSMA tiled schedule's cost mnk(1/a + 1/b) + mn for every "
                   f"tile with ab + a + b <= M", below(lid, tiling))
              for lid in ("cosma", "matmul-lean", "matmul-lean-product")]
    return facts


def _literal_block_facts() -> list[Fact]:
    bc = ceiling(M / (4 * d))
    working = lambda br: 2 * bc * d + 2 * br * d + br * bc  # noqa: E731
    return [
        Fact("flash-literal-blocks-overflow",
             "with FlashAttention's literal blocks B_c = ceil(M/(4d)), B_r = min(B_c, d), the "
             "working set 2 B_c d + 2 B_r d + B_r B_c exceeds M whenever d <= M <= 4d^2",
             lambda: forall([d <= M, M <= 4 * d**2], working(Min(bc, d)) > M)),
        Fact("flash-literal-blocks-fit-large-M",
             "the same literal blocks FIT (working set <= M) whenever M >= 8d^2 + 12d: "
             "the unconditional 'working set > M' of docs/theory.md §6 is too strong",
             lambda: forall([M >= 8 * d**2 + 12 * d], working(Min(bc, d)) <= M)),
    ]


def _shape_facts() -> list[Fact]:
    v1, v2 = (lambda: get("attention-backward-v1").expr), (lambda: get("attention-backward-v2").expr)
    return [
        Fact("sparse-recovers-dense",
             "the sparse-attention form with Z_in = nd and Z_QK = n^2 is Saha-Ye's dense form",
             lambda: identity(get("sparse-attention").expr.subs({Z_in: n * d, Z_QK: n**2}),
                              get("saha-ye-thm3.1").expr)),
        Fact("backward-v2-is-v1-scaled",
             "v2's form is (1 + d/n) times v1's, so the versions agree within a factor 2 when "
             "d <= n",
             lambda: forall([], Eq(v2(), (1 + d / n) * v1()))),
        Fact("backward-v1-is-forward-form",
             "v1's backward form is the forward form of Saha-Ye Thm 3.1",
             lambda: identity(v1(), get("saha-ye-thm3.1").expr)),
    ]


def _kernel_count_facts() -> list[Fact]:
    """The traced kernels' closed forms against the forms docs/theory.md states, when blocks
    divide the sizes:
    a kernel never moves more than the paper's accounting (the difference is reported)."""
    from ioverify.bounds.kernel_records import kernel_counts, theory_counts

    t, u = sympy.symbols("t u", positive=True, integer=True)
    divide = {"flash-forward-v1": {n: B_c * t}, "flash-forward-v2": {n: B_r * t},
              "flash-backward-v1": {n: B_c * t}, "square-tiling-forward": {n: B * t, d: B * u},
              "matmul-tiled": {m: a * t, n: b * u}}
    kernels, theory = kernel_counts(), theory_counts()

    def check(name: str) -> Part:
        mine, paper = kernels[name].subs(divide[name]), theory[name].subs(divide[name])
        part = forall([], mine <= paper)
        back = {new: sympy.solve(Eq(old, expr), new)[0] for old, expr in divide[name].items()
                for new in expr.free_symbols & {t, u}}
        difference = sympy.factor(sympy.simplify((paper - mine).subs(back)))
        return Part(part.status, part.method, f"{part.detail}; theory form - kernel = "
                    f"{difference}", {**part.data, "difference": str(difference)})

    return [Fact(f"kernel-count-vs-theory/{name}",
                 f"kernel {name}'s closed form is at most the form stated in docs/theory.md when "
                 f"the blocks divide the sizes", lambda name=name: check(name))
            for name in sorted(set(kernels) & set(theory) & set(divide))]


def _all_facts() -> list[Fact]:
    facts = [_crossover_fact(bid) for bid in ("saha-ye-thm3.1", "attention-backward-v1",
                                              "attention-backward-v2", "attention-any-matmul")]
    facts += _shape_facts() + _explicit_facts() + _kernel_theta_facts() + _consistency_facts()
    facts += _literal_block_facts() + _kernel_count_facts()
    from ioverify.bounds.records import REGISTRY

    facts += [_monotone_fact(bid) for bid, bound in REGISTRY.items() if bound.monotone_in_M]
    return facts


FACTS: dict[str, Fact] = {f.id: f for f in _all_facts()}


def prove(fact_id: str) -> FactResult:
    """Check one fact; an unknown id names the close ones."""
    fact = FACTS.get(fact_id)
    if fact is None:
        import difflib

        close = difflib.get_close_matches(fact_id, FACTS, n=4, cutoff=0.4)
        raise InvalidArgument(f"unknown fact {fact_id!r}"
                              + (f"; did you mean {', '.join(close)}?" if close else ""))
    part = fact.check()
    if part.status not in STATUSES:
        raise InternalError(f"fact {fact_id!r} returned status {part.status!r}")
    return FactResult(fact.id, fact.statement, part.status, part.method, part.detail, part.data)


def prove_all() -> list[FactResult]:
    return [prove(fact_id) for fact_id in FACTS]
