"""Proving "for all parameters in a region, a relation holds" with Z3, from SymPy formulas.

``forall(hypotheses, goal)`` asks Z3 for a point satisfying the hypotheses and violating the goal:

1. over the integers for the integer parameters (the encoding is exact); ``unsat`` proves the
   claim on the integer region; ``sat`` gives a counterexample that is re-checked EXACTLY with
   SymPy before it is reported as a refutation (a disagreement is a bug: ``InternalError``);
2. if that is ``unknown``: over the reals (integrality relaxed: a superset of the integer
   region), with ``QF_NRA`` (nlsat, a decision procedure for nonlinear real arithmetic);
   ``unsat`` proves the claim; a point of the relaxed problem that SymPy's exact re-check does
   not confirm is no counterexample: ``unknown``;
3. anything else is ``unknown``, never upgraded.

Before "proved" is reported the region itself (hypotheses and parameter domains) is shown
non-empty by a witness point that SymPy checks exactly; an empty region makes the claim
``vacuous`` (true of no point: nothing is proved), and a region not shown non-empty leaves it
``unknown``.  A goal SymPy already evaluated to True or False is reported as trivially true or
false, never as a solver's "negation unsat".

Parameters are SymPy symbols declared positive (and possibly integer) and nothing else, since
Z3 encodes exactly that domain (an integer >= 1, or a real > 0); any other symbol, or two
distinct symbols with one name, is refused (``Untranslatable``: the claim is then unknown).

Translation (a short table, one rule per SymPy construct): sums, products and integer powers
map to Z3 arithmetic; ``x**(p/2)`` introduces ``t >= 0, t*t == x``; ``floor``/``ceiling`` an
auxiliary with ``f <= x < f + 1`` (an integer in step 1, any real in step 2: a relaxation);
``Min``/``Max``/``Piecewise`` become ``If``.  A divisibility condition ``Eq(Mod(y, x), 0)`` is
encoded as ``y == x*q`` with an integer ``q`` in step 1 and dropped from the hypotheses in step
2 (a relaxation: sound for proofs); it is refused in a goal.  Z3 is reached only through
``ioverify.solve.query``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
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
    """``status`` is proved, refuted, vacuous (the region is empty) or unknown;
    ``counterexample`` and ``witness`` (a point of the region, with every proof) map names to
    values.  Region queries use the statuses nonempty, empty and unknown."""

    status: str
    method: str
    detail: str
    counterexample: dict[str, str] = field(default_factory=dict)
    witness: dict[str, str] = field(default_factory=dict)


class _Translator:
    """SymPy -> Z3 in one ``solve.Query``; ``integer`` picks step 1's domain (else step 2's).

    Z3 constants are named ``p:<name>`` for a parameter and ``aux:<k>`` for an auxiliary, so an
    auxiliary never shares a name (hence a constant) with a parameter."""

    def __init__(self, query: solve.Query, integer: bool):
        self.z = solve.z3()
        self.ctx = query.ctx
        self.integer = integer
        self.vars: dict[sympy.Symbol, object] = {}
        self.names: dict[str, sympy.Symbol] = {}
        self.side: list = []  # definitions of auxiliaries and parameter domains
        self.relaxed: list[str] = []
        self._cache: dict[sympy.Basic, object] = {}
        self._fresh = 0

    def var(self, sym: sympy.Symbol):
        """A parameter: positive (>= 1 if an integer), and an Int in step 1 when SymPy says so.
        Z3 identifies constants by name, so a second symbol with a taken name is refused."""
        if sym not in self.vars:
            _check_domain(sym)
            if self.names.setdefault(sym.name, sym) is not sym:
                raise Untranslatable(f"two distinct symbols named {sym.name} (assumptions "
                                     f"{_assumed(self.names[sym.name])} and {_assumed(sym)})")
            z, name = self.z, f"p:{sym.name}"
            if self.integer and sym.is_integer:
                base = z.Int(name, self.ctx)
                self.side.append(base >= 1)
                self.vars[sym] = z.ToReal(base)
            else:
                self.vars[sym] = z.Real(name, self.ctx)
                # a positive integer is >= 1: still a superset of the integer points
                self.side.append(self.vars[sym] >= 1 if sym.is_integer else self.vars[sym] > 0)
        return self.vars[sym]

    def aux(self, integer: bool):
        self._fresh += 1
        z = self.z
        if integer and self.integer:
            return z.ToReal(z.Int(f"aux:{self._fresh}", self.ctx))
        return z.Real(f"aux:{self._fresh}", self.ctx)

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
        """floor(x): f <= x < f + 1; ceiling(x): f - 1 < x <= f (f an integer in step 1)."""
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
        """``x divides y``: y == x*q, q an integer (step 1); dropped in step 2 (hypotheses)."""
        if not hypothesis:
            raise Untranslatable(f"divisibility {c} in a goal")
        y, x = c.lhs.args
        if not self.integer:
            self.relaxed.append(f"dropped {x} | {y}")
            return self.z.BoolVal(True, self.ctx)
        return self.expr(y) == self.expr(x) * self.aux(True)


_POSITIVE = {True: sympy.Symbol("x", positive=True, integer=True).assumptions0,
             False: sympy.Symbol("x", positive=True).assumptions0}


def _check_domain(sym: sympy.Symbol) -> None:
    """Z3 gives a parameter the domain {integer >= 1} or {real > 0}: a symbol whose SymPy
    assumptions say anything else (negative, nonnegative, even, ...) would be checked on the
    wrong set (``y**2 + y > 0`` "proved" for a negative y), so it is refused."""
    if sym.assumptions0 != _POSITIVE[bool(sym.is_integer)]:
        raise Untranslatable(f"symbol {sym.name} is not a plain positive (integer or real) "
                             f"parameter: assumptions {_assumed(sym)}")


def _assumed(sym: sympy.Symbol) -> str:
    """The assumptions the symbol was declared with (all of them if SymPy keeps no record)."""
    given = getattr(sym, "_assumptions_orig", None) or sym.assumptions0
    return f"{type(sym).__name__}(" + ", ".join(f"{k}={v}" for k, v in sorted(given.items())) + ")"


def _is_divisibility(c) -> bool:
    return isinstance(c, sympy.Eq) and isinstance(c.lhs, sympy.Mod) and c.rhs == 0


def forall(hypotheses, goal, *, rlimit: int = DEFAULT_RLIMIT, seed: int = solve.DEFAULT_SEED,
           integer_step: bool = True) -> Outcome:
    """Prove ``hypotheses -> goal`` for all positive parameter values (see the module doc).

    "proved" needs both: the negation is unsat (over the integers, exactly, or over the reals,
    a superset), so no point of the region violates the goal; and a witness SymPy checks
    exactly, so the region has a point and the claim is not vacuous.  An unsat region is
    "vacuous"; a region not shown non-empty leaves "unknown".

    The integer query runs first when there is one: on these formulas it answers in
    milliseconds either way (a proof, or a counterexample to re-check), while nlsat over the
    reals is erratic (from milliseconds to minutes on neighbouring constants)."""
    hyps, domains = list(hypotheses), (True, False) if integer_step else (False,)
    goal = sympy.sympify(goal)
    if goal is sympy.true or goal is sympy.false:
        return _trivial(goal is sympy.true, region_point(
            hyps, rlimit=rlimit, seed=seed, integer_step=integer_step))
    proof = _steps(lambda integer: _query(hyps, goal, integer=integer, rlimit=rlimit,
                                          seed=seed), domains)
    if proof.status != "proved":
        return proof
    region = region_point(hyps, rlimit=rlimit, seed=seed, integer_step=integer_step)
    if region.status == "nonempty":
        return replace(proof, witness=region.witness)
    if region.status == "empty":
        return Outcome("vacuous", proof.method, f"vacuous: {proof.detail}, but {region.detail}: "
                       f"the claim holds of no point, nothing is proved")
    return Outcome("unknown", proof.method, f"{proof.detail}, but the region was not shown "
                   f"non-empty ({region.detail})")


def region_point(hypotheses, *, rlimit: int = DEFAULT_RLIMIT, seed: int = solve.DEFAULT_SEED,
                 integer_step: bool = True) -> Outcome:
    """A point of the region (the hypotheses over positive parameters), checked exactly by
    SymPy: status nonempty (``witness``), empty, or unknown.  "empty" is sound: step 1's
    encoding is exact and step 2's region is a superset, so unsat in either means no point."""
    hyps, domains = list(hypotheses), (True, False) if integer_step else (False,)
    return _steps(lambda integer: _region(hyps, integer=integer, rlimit=rlimit, seed=seed),
                  domains)


def _steps(run, domains) -> Outcome:
    """Step 1 (``run(True)``) then, if it is unknown, step 2 (``run(False)``)."""
    first = run(domains[0])
    if first.status != "unknown" or len(domains) == 1:
        return first
    real = run(False)
    if real.status != "unknown":
        return real
    return Outcome("unknown", first.method, f"{first.detail}; over the reals: {real.detail}",
                   real.counterexample)


def _trivial(true: bool, region: Outcome) -> Outcome:
    """A goal SymPy evaluated to True or False: no solver proof, so say so; a False goal is
    refuted by any point of the region (the witness, checked exactly)."""
    word, method = "true" if true else "false", "sympy evaluation"
    if region.status == "empty":
        return Outcome("vacuous", method, f"vacuous: the goal is trivially {word} (SymPy "
                       f"evaluates it), but {region.detail}: nothing is proved")
    if region.status != "nonempty":
        return Outcome("unknown", method, f"the goal is trivially {word} (SymPy evaluates it), "
                       f"but the region was not shown non-empty ({region.detail})")
    if true:
        return Outcome("proved", method, "trivially true: SymPy evaluates the goal to True "
                       "(nothing for Z3 to check)", witness=region.witness)
    return Outcome("refuted", method, f"trivially false: SymPy evaluates the goal to False, "
                   f"and the hypotheses hold at {region.detail}", region.witness)


def _setup(integer: bool, rlimit: int, seed: int):
    query = solve.Query(seed=seed, rlimit=rlimit, timeout_ms=SAFETY_TIMEOUT_MS,
                        logic=None if integer else "QF_NRA")
    return query, _Translator(query, integer)


def _method(tr: _Translator) -> str:
    """The label says what was done: step 1 is integer arithmetic only when some parameter
    is an integer."""
    if not tr.integer:
        return "z3 QF_NRA arithmetic over the reals"
    if not tr.vars or any(sym.is_integer for sym in tr.vars):
        return "z3 nonlinear integer arithmetic over the integers"
    return "z3 nonlinear arithmetic over the reals (no integer parameter)"


def _region(hyps, *, integer: bool, rlimit: int, seed: int) -> Outcome:
    query, tr = _setup(integer, rlimit, seed)
    domain = "integers" if integer else "reals"
    try:
        query.solver.add(*[tr.boolean(h, hypothesis=True) for h in hyps])
    except Untranslatable as error:
        return Outcome("unknown", _method(tr), f"region not translatable: {error}")
    query.solver.add(*tr.side)
    answer, method, point, why = _solved(query, tr)
    if answer == "unsat":
        return Outcome("empty", method, f"no point satisfies the hypotheses over the {domain}")
    if answer == "unknown":
        return Outcome("unknown", method, f"z3 unknown on the region: {why}")
    if point is None:
        return Outcome("unknown", method, f"a point of the region, not readable exactly: {why}")
    if not _holds_exactly(hyps, point):
        return Outcome("unknown", method, f"Z3's point {_show(point)} of the region (over the "
                       f"{domain}) does not check with SymPy")
    return Outcome("nonempty", method, _show(point) or "any point", witness=_named(point))


def _solved(query, tr: _Translator) -> tuple[str, str, dict | None, str]:
    """Z3's answer (sat, unsat or unknown), the method label, and on sat its point as exact
    SymPy values; the last field says why when the answer is unknown or the point cannot be
    read exactly (then the point is None)."""
    answer, method = query.check(), _method(tr)
    if answer == "unknown":
        return answer, method, None, query.reason_unknown()
    if answer != "sat":
        return answer, method, None, ""
    try:
        return answer, method, _model_point(tr, query.model()), ""
    except Untranslatable as error:
        return answer, method, None, str(error)


def _named(point) -> dict[str, str]:
    return {k.name: str(v) for k, v in point.items()}


def _holds_exactly(hyps, point) -> bool:
    """Every parameter positive (an integer where SymPy says so) and every hypothesis True."""
    if not all(v > 0 and (v.is_integer or not k.is_integer) for k, v in point.items()):
        return False
    try:
        return all(sympy.simplify(sympy.sympify(h).subs(point)) is sympy.true for h in hyps)
    except (TypeError, ZeroDivisionError):
        return False


def _query(hyps, goal, *, integer: bool, rlimit: int, seed: int) -> Outcome:
    domain = "integers" if integer else "reals"
    query, tr = _setup(integer, rlimit, seed)
    try:
        hyp_terms = [tr.boolean(h, hypothesis=True) for h in hyps]
        negated = tr.z.Not(tr.boolean(goal))
    except Untranslatable as error:
        return Outcome("unknown", _method(tr), f"not translatable: {error}")
    query.solver.add(*tr.side, *hyp_terms, negated)
    answer, method, point, why = _solved(query, tr)
    relaxed = f" (relaxations: {'; '.join(sorted(set(tr.relaxed)))})" if tr.relaxed else ""
    if answer == "unsat":
        return Outcome("proved", method, f"negation unsat over the {domain}{relaxed}")
    if answer == "unknown":
        return Outcome("unknown", method, f"z3 unknown: {why}")
    if point is None:
        return Outcome("unknown", method, f"a point violates it, not readable exactly: {why}")
    if not integer and not _integral(point):
        return Outcome("unknown", method, f"a real point violates it{relaxed}: "
                       f"{_show(point)}", _named(point))
    return _confirm(hyps, goal, point, method, relaxed)


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


def _confirm(hyps, goal, point, method, relaxed: str = "") -> Outcome:
    """Re-check Z3's counterexample with exact SymPy arithmetic before calling it a refutation.
    A point SymPy cannot decide (e.g. a division by zero) is no refutation: unknown.  With
    relaxations (a floor taken as any real, a divisibility dropped) Z3 solved a larger problem,
    whose point may fail the hypotheses or satisfy the goal: unknown, not a translation bug."""
    shown = _show(point)
    try:
        holds = [sympy.simplify(h.subs(point)) for h in hyps]
        verdict = sympy.simplify(goal.subs(point))
    except (TypeError, ZeroDivisionError) as error:  # e.g. a comparison with zoo
        return Outcome("unknown", method, f"Z3 proposes {shown}, where the formula is "
                       f"undefined ({error})")
    if all(h is sympy.true for h in holds) and verdict is sympy.false:
        return Outcome("refuted", method + ", counterexample re-checked exactly with SymPy",
                       f"fails at {shown}", _named(point))
    if relaxed and (any(h is sympy.false for h in holds) or verdict is sympy.true):
        return Outcome("unknown", method, f"the relaxed problem's point {shown} is no "
                       f"counterexample{relaxed}")
    if any(h is sympy.false for h in holds) or verdict is sympy.true:
        raise InternalError(f"Z3 counterexample {shown} does not check with SymPy (hypotheses "
                            f"{holds}, goal {verdict}): a translation bug")
    return Outcome("unknown", method, f"Z3 proposes {shown}, which SymPy cannot decide "
                   f"(hypotheses {holds}, goal {verdict})")


def _show(point) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(point.items(), key=lambda kv: kv[0].name))
