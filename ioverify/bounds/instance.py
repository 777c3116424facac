"""Bounds evaluated on one instance, as an obligation states it: shared by the claim runner
(``ioverify.claims.run``) and the certificate re-check (``ioverify.certificate.recheck``), so
that both read a claimed bound the same way."""

from __future__ import annotations

import math
from fractions import Fraction

from ioverify.bounds.records import get


def bound_value(bound_id: str, params: dict, memory: int) -> Fraction | float:
    """Bound ``bound_id`` evaluated exactly on an instance (its parameters plus M); parameters
    the bound does not take (a kernel's mask, say) are not passed."""
    bound = get(bound_id)
    given = {k: v for k, v in params.items() if k in bound.param_names}
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
