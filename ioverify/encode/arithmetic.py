"""Proving "for all parameters in a region, a relation holds" with Z3, from SymPy formulas.

``forall(hypotheses, goal)`` asks Z3 for a point satisfying the hypotheses and violating the goal:

1. over the integers for the integer parameters; ``unsat`` proves the claim on the integer
   region; ``sat`` gives a counterexample that is re-checked EXACTLY with SymPy before it is
   reported as a refutation (a disagreement is a bug: ``InternalError``);
2. if that is ``unknown``: over the reals (integrality relaxed: a superset of the integer
   region), with ``QF_NRA`` (nlsat, a decision procedure for nonlinear real arithmetic);
   ``unsat`` proves the claim;
3. anything else is ``unknown``, never upgraded.

Translation (a short table, one rule per SymPy construct): sums, products and integer powers
map to Z3 arithmetic; ``x**(p/2)`` introduces ``t >= 0, t*t == x``; ``floor``/``ceiling`` an
auxiliary with ``f <= x < f + 1`` (an integer in step 2); ``Min``/``Max``/``Piecewise`` become
``If``.  A divisibility condition ``Eq(Mod(y, x), 0)`` is dropped from the hypotheses in step 1
(a relaxation: sound for proofs) and encoded as ``y == x*q`` with an integer ``q`` in step 2; it
is refused in a goal.  Z3 is reached only through ``ioverify.solve.query``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from ioverify.solve import query as solve
from ioverify.errors import InternalError

DEFAULT_RLIMIT = 4_000_000
# A safety net only: nlsat checks its resource limit rarely in some phases (seen: 20 s over a
# 100k rlimit), so a wall-clock cap keeps a query bounded; hitting it answers "unknown".
SAFETY_TIMEOUT_MS = 30_000


class Untranslatable(Exception):
    """A SymPy construct outside the translation table (the fact is then 'unknown')."""


@dataclass(frozen=True)
class Outcome:
    """``status`` is proved, refuted or unknown; ``counterexample`` maps names to values."""

    status: str
    method: str
    detail: str
    counterexample: dict[str, str] = field(default_factory=dict)


class _Translator:
    """SymPy -> Z3 in one ``solve.Query``; ``integer`` picks step 2's domain."""

    def __init__(self, query: solve.Query, integer: bool):
        self.z = solve.z3()
        self.ctx = query.ctx
        self.integer = integer
        self.vars: dict[sympy.Symbol, object] = {}
        self.side: list = []  # definitions of auxiliaries and parameter domains
        self.relaxed: list[str] = []
        self._cache: dict[sympy.Basic, object] = {}
        self._fresh = 0

    def var(self, sym: sympy.Symbol):
        """A parameter: positive (>= 1 if an integer), and an Int in step 2 when SymPy says so."""
        if sym not in self.vars:
            z = self.z
            if self.integer and sym.is_integer:
                base = z.Int(sym.name, self.ctx)
                self.side.append(base >= 1)
                self.vars[sym] = z.ToReal(base)
            else:
                self.vars[sym] = z.Real(sym.name, self.ctx)
                # a positive integer is >= 1: still a superset of the integer points
                self.side.append(self.vars[sym] >= 1 if sym.is_integer else self.vars[sym] > 0)
        return self.vars[sym]

    def aux(self, integer: bool):
        self._fresh += 1
        z = self.z
        if integer and self.integer:
            return z.ToReal(z.Int(f"_aux{self._fresh}", self.ctx))
        return z.Real(f"_aux{self._fresh}", self.ctx)

    def num(self, value: sympy.Rational):
        return self.z.RealVal(f"{value.p}/{value.q}", self.ctx)

    # --- arithmetic ----------------------------------------------------------------------------

    def expr(self, e: sympy.Basic):
        if e in self._cache:
            return self._cache[e]
        out = self._expr(e)
        self._cache[e] = out
        return out

    def _expr(self, e: sympy.Basic):
        z = self.z
        if isinstance(e, sympy.Symbol):
            return self.var(e)
        if e.is_Rational:
            return self.num(sympy.Rational(e))
        if isinstance(e, sympy.Add):
            return z.Sum([self.expr(t) for t in e.args])
        if isinstance(e, sympy.Mul):
            return z.Product([self.expr(t) for t in e.args])
        if isinstance(e, sympy.Pow):
            return self._pow(e)
        if isinstance(e, (sympy.Min, sympy.Max)):
            return self._extremum(e)
        if isinstance(e, (sympy.floor, sympy.ceiling)):
            return self._rounding(e)
        if isinstance(e, sympy.Piecewise):
            return self._piecewise(e)
        raise Untranslatable(f"no Z3 rule for {type(e).__name__} in {e}")

    def _pow(self, e: sympy.Pow):
        """Integer powers by products; half-integer powers via t >= 0, t*t == base (rule:
        sqrt is defined on the non-negative reals only)."""
        base, exp = e.args
        if not exp.is_Rational or exp.q not in (1, 2):
            raise Untranslatable(f"exponent {exp} in {e}")
        if exp.q == 2:
            if base.is_nonnegative is not True:
                raise Untranslatable(f"sqrt of {base}, not known to be non-negative")
            root = self.aux(False)
            self.side += [root >= 0, root * root == self.expr(base)]
            unit, power = root, exp.p
        else:
            unit, power = self.expr(base), exp.p
        value = self.z.Product([unit] * abs(power)) if power else self.num(sympy.Integer(1))
        return value if power > 0 else self.num(sympy.Integer(1)) / value

    def _extremum(self, e):
        z, args = self.z, [self.expr(t) for t in e.args]
        pick = (lambda x, y: x <= y) if isinstance(e, sympy.Min) else (lambda x, y: x >= y)
        out = args[0]
        for other in args[1:]:
            out = z.If(pick(out, other), out, other)
        return out

    def _rounding(self, e):
        """floor(x): f <= x < f + 1; ceiling(x): f - 1 < x <= f (f an integer in step 2)."""
        inner = self.expr(e.args[0])
        f = self.aux(True)
        if not self.integer:
            self.relaxed.append(f"{e} taken as any real in its unit interval")
        if isinstance(e, sympy.floor):
            self.side += [f <= inner, inner < f + 1]
        else:
            self.side += [f - 1 < inner, inner <= f]
        return f

    def _piecewise(self, e):
        """The last branch must be the default (condition True); earlier ones nest as If."""
        *branches, (default, last) = e.args
        if last is not sympy.true:
            raise Untranslatable(f"Piecewise without a default branch in {e}")
        out = self.expr(default)
        for value, cond in reversed(branches):
            out = self.z.If(self.boolean(cond), self.expr(value), out)
        return out

    # --- logic ---------------------------------------------------------------------------------

    def boolean(self, c, hypothesis: bool = False):
        z = self.z
        if c is sympy.true or c is True:
            return z.BoolVal(True, self.ctx)
        if c is sympy.false or c is False:
            return z.BoolVal(False, self.ctx)
        if _is_divisibility(c):
            return self._divides(c, hypothesis)
        if isinstance(c, sympy.And):
            return z.And([self.boolean(x, hypothesis) for x in c.args])
        if isinstance(c, sympy.Or):
            return z.Or([self.boolean(x) for x in c.args])
        if isinstance(c, sympy.Not):
            return z.Not(self.boolean(c.args[0]))
        ops = {sympy.StrictLessThan: lambda x, y: x < y, sympy.LessThan: lambda x, y: x <= y,
               sympy.StrictGreaterThan: lambda x, y: x > y,
               sympy.GreaterThan: lambda x, y: x >= y, sympy.Eq: lambda x, y: x == y,
               sympy.Ne: lambda x, y: x != y}
        for kind, op in ops.items():
            if isinstance(c, kind):
                return op(self.expr(c.lhs), self.expr(c.rhs))
        raise Untranslatable(f"no Z3 rule for the condition {c}")

    def _divides(self, c, hypothesis: bool):
        """``x divides y``: y == x*q, q an integer (step 2); dropped in step 1 (hypotheses)."""
        if not hypothesis:
            raise Untranslatable(f"divisibility {c} in a goal")
        y, x = c.lhs.args
        if not self.integer:
            self.relaxed.append(f"dropped {x} | {y}")
            return self.z.BoolVal(True, self.ctx)
        return self.expr(y) == self.expr(x) * self.aux(True)


def _is_divisibility(c) -> bool:
    return isinstance(c, sympy.Eq) and isinstance(c.lhs, sympy.Mod) and c.rhs == 0


def forall(hypotheses, goal, *, rlimit: int = DEFAULT_RLIMIT, seed: int = solve.DEFAULT_SEED,
           integer_step: bool = True) -> Outcome:
    """Prove ``hypotheses -> goal`` for all positive parameter values (see the module doc).

    The integer query runs first when there is one: on these formulas it answers in
    milliseconds either way (a proof, or a counterexample to re-check), while nlsat over the
    reals is erratic (from milliseconds to minutes on neighbouring constants)."""
    hyps = list(hypotheses)
    if not integer_step:
        return _query(hyps, goal, integer=False, rlimit=rlimit, seed=seed)
    whole = _query(hyps, goal, integer=True, rlimit=rlimit, seed=seed)
    if whole.status != "unknown":
        return whole
    real = _query(hyps, goal, integer=False, rlimit=rlimit, seed=seed)
    if real.status != "unknown":
        return real
    return Outcome("unknown", whole.method, f"{whole.detail}; over the reals: {real.detail}",
                   real.counterexample)


def _query(hyps, goal, *, integer: bool, rlimit: int, seed: int) -> Outcome:
    domain = "integers" if integer else "reals"
    method = f"z3 {'nonlinear integer' if integer else 'QF_NRA'} arithmetic over the {domain}"
    query = solve.Query(seed=seed, rlimit=rlimit, timeout_ms=SAFETY_TIMEOUT_MS,
                        logic=None if integer else "QF_NRA")
    tr = _Translator(query, integer)
    try:
        hyp_terms = [tr.boolean(h, hypothesis=True) for h in hyps]
        negated = tr.z.Not(tr.boolean(goal))
    except Untranslatable as error:
        return Outcome("unknown", method, f"not translatable: {error}")
    query.solver.add(*tr.side, *hyp_terms, negated)
    answer = query.check()
    relaxed = f" (relaxations: {'; '.join(sorted(set(tr.relaxed)))})" if tr.relaxed else ""
    if answer == "unsat":
        return Outcome("proved", method, f"negation unsat over the {domain}{relaxed}")
    if answer == "unknown":
        return Outcome("unknown", method, f"z3 unknown: {query.reason_unknown()}")
    try:
        point = _model_point(tr, query.model())
    except Untranslatable as error:
        return Outcome("unknown", method, f"a point violates it, not readable exactly: {error}")
    if not integer and not _integral(point):
        return Outcome("unknown", method, f"a real point violates it{relaxed}: "
                       f"{_show(point)}", {k.name: str(v) for k, v in point.items()})
    return _confirm(hyps, goal, point, method)


def _integral(point) -> bool:
    """Whether a real model happens to give every integer parameter an integer value."""
    return all(value.is_integer for sym, value in point.items() if sym.is_integer)


def _model_point(tr: _Translator, model) -> dict[sympy.Symbol, sympy.Expr]:
    point = {}
    for sym, var in tr.vars.items():
        value = model.eval(var, model_completion=True)
        if not tr.z.is_rational_value(value):
            value = tr.z.simplify(value)
        if not tr.z.is_rational_value(value):
            raise Untranslatable(f"irrational model value for {sym}")
        frac = Fraction(value.numerator_as_long(), value.denominator_as_long())
        point[sym] = sympy.Rational(frac.numerator, frac.denominator)
    return point


def _confirm(hyps, goal, point, method) -> Outcome:
    """Re-check Z3's counterexample with exact SymPy arithmetic before calling it a refutation.
    A point SymPy cannot decide (e.g. a division by zero) is no refutation: unknown."""
    shown = _show(point)
    try:
        holds = [sympy.simplify(h.subs(point)) for h in hyps]
        verdict = sympy.simplify(goal.subs(point))
    except (TypeError, ZeroDivisionError) as error:  # e.g. a comparison with zoo
        return Outcome("unknown", method, f"Z3 proposes {shown}, where the formula is "
                       f"undefined ({error})")
    if all(h is sympy.true for h in holds) and verdict is sympy.false:
        return Outcome("refuted", method + ", counterexample re-checked exactly with SymPy",
                       f"fails at {shown}", {k.name: str(v) for k, v in point.items()})
    if any(h is sympy.false for h in holds) or verdict is sympy.true:
        raise InternalError(f"Z3 counterexample {shown} does not check with SymPy (hypotheses "
                            f"{holds}, goal {verdict}): a translation bug")
    return Outcome("unknown", method, f"Z3 proposes {shown}, which SymPy cannot decide "
                   f"(hypotheses {holds}, goal {verdict})")


def _show(point) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(point.items(), key=lambda kv: kv[0].name))
