"""The ``Bound`` record: one published (or derived) result as data.

A record says what is claimed (a SymPy expression), where it comes from and how firmly it is
known (the firmness of docs/theory.md), which game variant and graph it assumes, and where it is
claimed to hold (its regime: a conjunction of SymPy relations).  ``evaluate`` refuses parameters
outside the regime, naming the violated condition, and refuses to give a number for an
asymptotic-only result (a Theta shape has no constants: its value is not a number of transfers);
``shape`` gives that value and says so by its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from numbers import Number

import sympy

from ioverify.bounds import symbols
from ioverify.errors import InternalError, InvalidArgument

FIRMNESS = ("paper", "summary", "recalled", "derived")
# lower / upper: Q >= expr / Q <= expr (an algorithm's cost); exact: the exact I/O count of one
# algorithm (so also an upper bound on the optimum); tight: a Theta statement, both at once.
KINDS = ("lower", "upper", "exact", "tight")
# Other names callers use for a parameter: the kernels' block names, and ``memory`` for M.
ALIASES = {"memory": "M", "block": "B", "block_r": "B_r", "block_c": "B_c"}


@dataclass(frozen=True)
class Bound:
    """One result.  ``params`` are the free symbols in the order the CLI asks for them."""

    id: str
    title: str
    statement: str
    source: str
    firmness: str
    kind: str
    variant: str
    graph: str
    params: tuple[sympy.Symbol, ...]
    regime: sympy.Basic
    expr: sympy.Expr
    asymptotic: bool = False
    section: str = ""
    defaults: tuple[tuple[sympy.Symbol, sympy.Expr], ...] = ()
    options: tuple[tuple[str, tuple | None], ...] = ()  # graph options; None: any value
    monotone_in_M: bool = False
    family: str | None = None
    notes: str = ""
    quantity: str = "Q"  # what the expression measures: Q (I/O words), or r for a rank

    def __post_init__(self):
        if self.firmness not in FIRMNESS:
            raise InternalError(f"bound {self.id!r}: firmness {self.firmness!r} not in {FIRMNESS}")
        if self.kind not in KINDS:
            raise InternalError(f"bound {self.id!r}: kind {self.kind!r} not in {KINDS}")
        free = self.expr.free_symbols | self.regime.free_symbols
        stray = free - set(self.params)
        if stray:
            raise InternalError(f"bound {self.id!r}: symbols {sorted(map(str, stray))} are not "
                                f"among its parameters")
        self._check_registry_symbols()

    def _check_registry_symbols(self) -> None:
        """A parameter named like a registry symbol must BE that symbol: a look-alike (say
        ``Symbol("M", positive=True)``, a real) is another variable to SymPy, so a fact
        substituting the registry's M would leave the bound unchanged and prove nothing."""
        for p in self.params:
            if p.name in symbols.BY_NAME and p != symbols.BY_NAME[p.name]:
                raise InvalidArgument(f"bound {self.id!r}: parameter {p.name} is not the registry "
                                      f"symbol ioverify.bounds.symbols.{p.name} (same name, other "
                                      f"assumptions or another class): use that symbol")

    # --- reading -------------------------------------------------------------------------------

    @property
    def conditions(self) -> tuple[sympy.Basic, ...]:
        """The regime's conjuncts, each checked (and reported) on its own."""
        if self.regime is sympy.true:
            return ()
        return tuple(sorted(sympy.And.make_args(self.regime), key=str))  # stable order

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def latex(self) -> str:
        """The claim as LaTeX: ``Q \\ge ...`` (lower), ``Q = \\Theta(...)`` (tight), ..."""
        body = sympy.latex(self.expr)
        if self.asymptotic:
            wrap = {"lower": r"\Omega", "upper": "O", "tight": r"\Theta", "exact": r"\Theta"}
            return rf"{self.quantity} = {wrap[self.kind]}\left({body}\right)"
        relation = {"lower": r"\ge", "upper": r"\le", "exact": "=", "tight": "="}[self.kind]
        return rf"{self.quantity} {relation} {body}"

    def regime_latex(self) -> str:
        return sympy.latex(self.regime) if self.conditions else r"\text{all parameters}"

    # --- evaluating ----------------------------------------------------------------------------

    def evaluate(self, **params):
        """The bound's value (an exact ``sympy.Rational``, or a float when irrational) on
        parameters inside the regime.  Refuses asymptotic-only results: use ``shape``."""
        if self.asymptotic:
            raise InvalidArgument(f"bound {self.id!r} is asymptotic only (a shape without "
                                  f"constants): its value is not a number of transfers; use "
                                  f"shape() for the shape's value")
        return _as_number(self.exact(**params))

    def shape(self, **params):
        """The value of an asymptotic result's shape (no constants: not a number of transfers)."""
        return _as_number(self._value(params))

    def exact(self, **params) -> sympy.Expr:
        """The exact SymPy value (for example ``8*sqrt(6)/6 - 3``)."""
        if self.asymptotic:
            raise InvalidArgument(f"bound {self.id!r} is asymptotic only: it has no exact value")
        return self._value(params)

    def least_integer(self, **params) -> int:
        """For a lower bound: the least integer I/O it allows (the exact ceiling)."""
        if self.kind != "lower":
            raise InvalidArgument(f"bound {self.id!r} is {self.kind}, not a lower bound")
        return int(sympy.ceiling(self.exact(**params)))

    def bind(self, **params) -> dict[sympy.Symbol, sympy.Expr]:
        """Check names, types, defaults and the regime; return the substitution."""
        values = self._bind_names(params)
        for sym, default in self.defaults:
            if sym not in values:
                values[sym] = sympy.simplify(default.subs(values))
                _check_default(self.id, sym, default, values)
        missing = [p.name for p in self.params if p not in values]
        if missing:
            raise InvalidArgument(f"bound {self.id!r} needs parameter(s) {', '.join(missing)} "
                                  f"(it takes {', '.join(self.param_names)})")
        for sym, value in values.items():
            _check_type(self.id, sym, value)
        self._check_regime(values)
        return values

    def _value(self, params: dict) -> sympy.Expr:
        values = self.bind(**params)
        value = sympy.simplify(self.expr.subs(values))
        if not value.is_number or value.has(sympy.zoo, sympy.nan, sympy.oo):
            raise InternalError(f"bound {self.id!r} did not evaluate to a number: {value}")
        return value

    def _bind_names(self, params: dict) -> dict[sympy.Symbol, sympy.Expr]:
        known = dict(zip(self.param_names, self.params))
        options = dict(self.options)
        values: dict[sympy.Symbol, sympy.Expr] = {}
        for name, value in params.items():
            name = ALIASES.get(name, name) if name not in known else name
            if name in options:
                _check_option(self.id, name, value, options[name])
            elif name in known:
                if known[name] in values:
                    raise InvalidArgument(f"bound {self.id!r}: parameter {name} given twice")
                values[known[name]] = _to_sympy(self.id, name, value)
            else:
                accepted = ", ".join(list(self.param_names) + list(options))
                raise InvalidArgument(f"bound {self.id!r} has no parameter {name!r} "
                                      f"(it takes {accepted})")
        return values

    def _check_regime(self, values: dict) -> None:
        shown = ", ".join(f"{sym.name}={values[sym]}" for sym in self.params)
        for condition in self.conditions:
            truth = condition.subs(values)
            if truth is sympy.true:
                continue
            if truth is sympy.false:
                raise InvalidArgument(f"bound {self.id!r}: parameters outside its regime: "
                                      f"{describe(condition)} fails at {shown}")
            raise InternalError(f"bound {self.id!r}: could not decide {condition} at {shown}")


def describe(condition: sympy.Basic) -> str:
    """A regime condition in words a user reads: ``B divides n`` for ``Eq(Mod(n, B), 0)``."""
    if isinstance(condition, sympy.Eq) and isinstance(condition.lhs, sympy.Mod) \
            and condition.rhs == 0:
        return f"{condition.lhs.args[1]} divides {condition.lhs.args[0]}"
    return str(condition).replace("**", "^")


def _to_sympy(bound_id: str, name: str, value) -> sympy.Expr:
    """A parameter value as SymPy: a number (int, Fraction, float) or a SymPy number built by
    the caller, never text (``sympy.sympify`` of text evaluates Python, and parameters come
    from obligations, so from files anyone can write)."""
    if isinstance(value, bool) or not isinstance(value, (Number, sympy.Basic)):
        raise InvalidArgument(f"bound {bound_id!r}: parameter {name} must be a number, "
                              f"got {value!r}")
    try:
        if isinstance(value, sympy.Basic):
            return value
        if isinstance(value, Fraction):
            return sympy.Rational(value.numerator, value.denominator)
        if isinstance(value, float):
            return sympy.Rational(str(value))
        if isinstance(value, int):
            return sympy.Integer(value)
        return sympy.Rational(str(value))
    except (TypeError, ValueError):
        raise InvalidArgument(f"bound {bound_id!r}: parameter {name} must be a number, "
                              f"got {value!r}") from None


def _check_type(bound_id: str, sym: sympy.Symbol, value: sympy.Expr) -> None:
    if not value.is_number or not value.is_real:
        raise InvalidArgument(f"bound {bound_id!r}: parameter {sym.name} must be a real "
                              f"number, got {value}")
    if symbols.is_integer(sym) and not value.is_integer:
        raise InvalidArgument(f"bound {bound_id!r}: parameter {sym.name} must be an integer, "
                              f"got {value}")
    if not value.is_positive:
        raise InvalidArgument(f"bound {bound_id!r}: parameter {sym.name} must be positive, "
                              f"got {value}")


def _check_default(bound_id: str, sym: sympy.Symbol, default: sympy.Expr, values) -> None:
    """A default the user never gave that comes out as no valid value is named as the default
    (with, for an integer, the parameter range it needs), not as the user's bad input."""
    value = values[sym]
    if not value.is_number or value.is_positive and (value.is_integer or not sym.is_integer):
        return
    needs = _default_needs(default) if sym.is_integer else None
    kind = "integer" if sym.is_integer else "number"
    raise InvalidArgument(f"bound {bound_id!r}: the default {sym.name} = {describe(default)} is "
                          f"{value} here, not a positive {kind}"
                          + (f": it needs {needs}" if needs else "") + f"; or give {sym.name}")


def _default_needs(default: sympy.Expr) -> str | None:
    """Where an integer default in one parameter is >= 1, e.g. ``M >= 4`` for
    ``floor(sqrt(M/4))`` (floor(x) >= 1 iff x >= 1), or None when SymPy cannot say."""
    inner = default.args[0] if isinstance(default, sympy.floor) else default
    if len(inner.free_symbols) != 1:
        return None
    (x,) = inner.free_symbols
    try:
        cond = sympy.solve_univariate_inequality(inner >= 1, x, relational=False)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if not isinstance(cond, sympy.Interval) or cond.end is not sympy.oo or cond.start.is_infinite:
        return None
    if not x.is_integer:
        return f"{x.name} {'>' if cond.left_open else '>='} {cond.start}"
    least = sympy.floor(cond.start) + 1 if cond.left_open else sympy.ceiling(cond.start)
    return f"{x.name} >= {least}"


def _check_option(bound_id: str, name: str, value, allowed: tuple | None) -> None:
    """A graph option (e.g. the per-entry summation) the bound's graph assumption restricts."""
    if allowed is not None and value not in allowed:
        raise InvalidArgument(f"bound {bound_id!r} assumes {name} in {{{', '.join(allowed)}}}, "
                              f"got {value!r}")


def _as_number(value: sympy.Expr):
    """An exact Rational when the value is rational, else a float."""
    if value.is_Rational:
        return sympy.Rational(value)
    return float(value)
