"""Bounds evaluated on one instance, as an obligation states it: shared by the claim runner
(``ioverify.claims.run``) and the certificate re-check (``ioverify.certificate.recheck``), so
that both read a claimed bound the same way."""

from __future__ import annotations

import ast
import math
from fractions import Fraction

from ioverify.bounds.records import get
from ioverify.errors import InvalidArgument


def bound_value(bound_id: str, params: dict, memory: int,
                blocks: dict | None = None) -> Fraction | float:
    """Bound ``bound_id`` evaluated exactly on an instance (its parameters plus M); parameters
    the bound does not take (a kernel's mask, say) are not passed.  ``blocks``, a kernel run's
    own block sizes, give an exact count record its block parameters (``block_c`` is B_c, ``a``
    is a, as ``ioverify.bounds.kernel_counts.BLOCK_SYMBOLS`` names them)."""
    from ioverify.bounds.kernel_counts import BLOCK_SYMBOLS

    bound = get(bound_id)
    given = {k: v for k, v in params.items() if k in bound.param_names}
    for key, value in given.items():  # from an obligation: numbers only, never text
        if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
            raise InvalidArgument(f"bound {bound_id!r}: parameter {key} = {_show(value)} is "
                                  f"not a number")
    for key, value in (blocks or {}).items():
        name = BLOCK_SYMBOLS[key].name if key in BLOCK_SYMBOLS else None
        if name in bound.param_names and name not in given and name != "M":
            given[name] = value
    value = bound.evaluate(**given, M=memory)
    try:
        return Fraction(str(value)) if not isinstance(value, Fraction) else value
    except ValueError:
        return float(value)


def resolve_lower_bound(spec: dict) -> tuple[int | None, dict]:
    """An obligation's claimed lower bound as the least integer I/O it forbids going under: a
    number as it is, or a bound id evaluated on the instance and rounded up; with its source."""
    claim = spec.get("lower_bound")
    if claim is None:
        return None, {}
    if not isinstance(claim, str):  # JSON Schema lets 13.0 pass as an integer
        if isinstance(claim, bool) or not isinstance(claim, int) or claim < 0:
            raise InvalidArgument(f"lower_bound must be an integer >= 0 or a bound id, got "
                                  f"{_show(claim)}")
        return claim, {"lower_bound_source": "number"}
    value = bound_value(claim, spec.get("params", {}), spec["memory"])
    return max(0, math.ceil(value)), {"lower_bound_source": claim,
                                       "lower_bound_exact": str(value)}


def bound_on_run(bound_id: str, reading: dict, sizes: dict, memory: int, blocks: dict, *,
                 regime: bool = True) -> float:
    """Bound ``bound_id`` on one kernel run, its parameters read off the run: each parameter the
    bound takes is ``reading[name]`` (an arithmetic expression over the kernel's sizes, its
    blocks and M), else the size of the same name.  An asymptotic bound gives its shape's
    value (constant 1).  ``regime=False`` evaluates the formula outside its stated regime: the
    reading under which a paper's bound is attached to every instance."""
    bound = get(bound_id)
    names = {k: v for k, v in {**blocks, **sizes, "M": memory}.items()
             if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)}
    given = {}
    for name in bound.param_names:
        text = reading.get(name, name)
        given[name] = read_expression(text, names, f"bound {bound_id!r}: reading {name}")
    if not regime:
        value = bound.expr.subs({bound.params[bound.param_names.index(k)]: v
                                 for k, v in given.items()})
        return float(value)
    given.pop("M", None)
    value = bound.shape(**given, M=memory) if bound.asymptotic else bound.evaluate(**given,
                                                                                     M=memory)
    return float(value)


# A reading is text from an obligation, so from a certificate anyone can write: it is parsed
# here (never handed to ``sympy.sympify``, which evaluates Python) into numbers, the run's
# names and + - * / ** with unary signs, and nothing else.
READING_MAX_CHARS = 200
READING_MAX_BITS = 4096  # numerator and denominator of every intermediate value
_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
              ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def read_expression(text, names: dict, what: str = "reading"):
    """The value (a SymPy number) of the arithmetic expression ``text`` over ``names`` (name
    to int or float): integer and decimal literals, the names, ``+ - * / **`` and unary
    ``+ -``; anything else (a call, an attribute, a name not in ``names``, a power whose
    result would pass ``READING_MAX_BITS`` bits, a division by zero) is an InvalidArgument."""
    import sympy

    known = ", ".join(sorted(names))
    if not isinstance(text, str) or len(text) > READING_MAX_CHARS:
        raise InvalidArgument(f"{what}: {_show(text)} is not an arithmetic expression of at "
                              f"most {READING_MAX_CHARS} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        raise InvalidArgument(f"{what} = {text!r} is not an arithmetic expression") from None

    def refuse(node, why: str):
        raise InvalidArgument(f"{what} = {text!r} is not a number on this run: {why} "
                              f"(known: {known})")

    def size_ok(value):
        if value.is_Rational and max(abs(value.p).bit_length(),
                                     value.q.bit_length()) > READING_MAX_BITS:
            refuse(None, f"a value past {READING_MAX_BITS} bits")
        return value

    def value_of(node):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                refuse(node, f"{node.value!r} is not a number")
            if isinstance(node.value, float):
                if not math.isfinite(node.value):
                    refuse(node, f"{node.value!r} is not a finite number")
                return sympy.Float(node.value)
            return size_ok(sympy.Integer(node.value))
        if isinstance(node, ast.Name):
            if node.id not in names:
                refuse(node, f"{node.id!r} is not a size, a block or M of the run")
            value = names[node.id]
            return sympy.Float(value) if isinstance(value, float) else sympy.Integer(value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            value = value_of(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and type(node.op) in (*_OPERATORS, ast.Pow):
            left, right = value_of(node.left), value_of(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                refuse(node, "a division by zero")
            if isinstance(node.op, ast.Pow):
                if left == 0 and right.is_negative:
                    refuse(node, "a division by zero")
                if left.is_Rational and right.is_Rational:
                    bits = max(abs(left.p).bit_length(), left.q.bit_length(), 1)
                    if bits * abs(right) > READING_MAX_BITS:
                        refuse(node, f"a power past {READING_MAX_BITS} bits")
                elif abs(left) > 2 ** 64 or abs(right) > 64:
                    refuse(node, "a power too large to evaluate")
                value = left ** right
            else:
                value = _OPERATORS[type(node.op)](left, right)
            if not value.is_number or value.has(sympy.zoo, sympy.nan, sympy.oo):
                refuse(node, "not a finite number")
            return size_ok(value)
        refuse(node, f"{type(node).__name__} is not arithmetic (numbers, names, + - * / **)")

    return value_of(tree.body)


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
