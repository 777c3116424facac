"""Bounds evaluated on one instance, as an obligation states it: shared by the claim runner
(``ioverify.claims.run``) and the certificate re-check (``ioverify.certificate.recheck``), so
that both read a claimed bound the same way."""

from __future__ import annotations

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
    if isinstance(claim, int):
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
    import sympy

    bound = get(bound_id)
    names = {**blocks, **sizes, "M": memory}
    given = {}
    for name in bound.param_names:
        text = reading.get(name, name)
        given[name] = sympy.sympify(str(text), locals={k: sympy.Integer(v) if isinstance(v, int)
                                                       else v for k, v in names.items()
                                                       if isinstance(v, (int, float))})
        if not given[name].is_number:
            raise InvalidArgument(f"bound {bound_id!r}: reading {name} = {text!r} is not a "
                                  f"number on this run (known: {', '.join(sorted(names))})")
    if not regime:
        value = bound.expr.subs({bound.params[bound.param_names.index(k)]: v
                                 for k, v in given.items()})
        return float(value)
    given.pop("M", None)
    value = bound.shape(**given, M=memory) if bound.asymptotic else bound.evaluate(**given,
                                                                                     M=memory)
    return float(value)
