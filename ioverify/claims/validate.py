"""Every id a claim names is checked when the claims are loaded, before any obligation runs:
a typo in a bound id must not surface after minutes of solver work.

Checked: DAG families and their parameter names, M, game variants, claimed lower bounds (a
number, or a bound id the instance can evaluate), kernels and their sizes and options, lower- and
upper-bound ids of kernel obligations, fact ids, and the claim-level ``bounds`` and ``kernels``.
An unknown id is an ``InvalidArgument`` naming the claim, the obligation, the field and the id,
with the closest known ids.
"""

from __future__ import annotations

import difflib

from ioverify._check import integer, positive
from ioverify.dag.registry import FAMILIES
from ioverify.errors import InvalidArgument
from ioverify.game.rules import VARIANTS


def validate(claims) -> None:
    """Raise ``InvalidArgument`` at the first unknown id of any claim (see the module doc)."""
    for claim in claims:
        where = f"{claim.origin + ': ' if claim.origin else ''}claim {claim.id!r}"
        for bound_id in claim.bounds:
            _known(f"{where}: bounds", bound_id, _bound_ids())
        for kernel in claim.kernels:
            _known(f"{where}: kernels", kernel, _kernel_specs())
        for ob in claim.obligations:
            CHECKS[ob.kind](f"{where}, obligation {ob.id}", ob.spec)


def _known(where: str, value, known) -> None:
    if value in known:
        return
    close = difflib.get_close_matches(str(value), list(map(str, known)), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else \
        (f" (known: {', '.join(sorted(map(str, known)))})" if len(known) <= 12 else "")
    raise InvalidArgument(f"{where}: unknown id {value!r}{hint}")


def _instance(where: str, spec: dict) -> None:
    _known(f"{where}: family", spec.get("family"), FAMILIES)
    family = FAMILIES[spec["family"]]
    names = {p.name for p in family.params}
    for name in spec.get("params", {}):
        _known(f"{where}: parameter of family {family.name!r}", name, names)
    for param in family.params:
        if param.default is None and param.name not in spec.get("params", {}):
            raise InvalidArgument(f"{where}: family {family.name!r} needs parameter "
                                  f"{param.name!r}")
    try:
        positive("memory M", spec.get("memory"))
    except InvalidArgument as error:
        raise InvalidArgument(f"{where}: {error}") from None


def _exact_search(where: str, spec: dict) -> None:
    _instance(where, spec)
    _known(f"{where}: variant", spec.get("variant", "recompute"), VARIANTS)
    claim = spec.get("lower_bound")
    if isinstance(claim, str):
        _bound_on_instance(f"{where}: lower_bound", claim, spec)
    elif claim is not None:
        try:
            integer("lower_bound", claim, 0)
        except InvalidArgument as error:
            raise InvalidArgument(f"{where}: {error}") from None
    if "at_most" in spec:
        try:
            integer("at_most", spec["at_most"], 0)
        except InvalidArgument as error:
            raise InvalidArgument(f"{where}: {error}") from None
        others = [name for name in ("lower_bound", "optimum") if name in spec]
        if others:
            raise InvalidArgument(f"{where}: at_most is checked alone, not with "
                                  f"{' and '.join(others)}: make it an obligation of its own")


def _io_curve(where: str, spec: dict) -> None:
    bounds = spec.get("memory_range")
    if not (isinstance(bounds, list) and len(bounds) == 2):
        raise InvalidArgument(f"{where}: memory_range must be [LO, HI], got {bounds!r}")
    lo, hi = bounds
    _instance(where, {**spec, "memory": lo})
    if not (isinstance(hi, int) and not isinstance(hi, bool) and hi >= lo):
        raise InvalidArgument(f"{where}: memory_range must be [LO, HI] with LO <= HI, got "
                              f"{spec.get('memory_range')!r}")
    variants = spec.get("variants") or []
    if not variants or len(set(variants)) != len(variants):
        raise InvalidArgument(f"{where}: variants must name one or both variants, once each")
    for variant in variants:
        _known(f"{where}: variant", variant, ("one-shot", "recompute"))
    for variant, cells in spec.get("optima", {}).items():
        _known(f"{where}: optima variant", variant, variants)
        for memory, optimum in cells.items():
            if not (memory.isdigit() and lo <= int(memory) <= hi):
                raise InvalidArgument(f"{where}: optima of {variant}: M = {memory!r} is not in "
                                      f"the range {lo}..{hi}")
            try:
                integer("optimum", optimum, 0)
            except InvalidArgument as error:
                raise InvalidArgument(f"{where}: {error}") from None


def _partition(where: str, spec: dict) -> None:
    _instance(where, spec)


def _kernel(where: str, spec: dict) -> None:
    from ioverify.trace.kernel import check_sizes  # NumPy: loaded for kernel claims only

    specs = _kernel_specs()
    _known(f"{where}: kernel", spec.get("kernel"), specs)
    try:
        check_sizes(specs[spec["kernel"]], dict(spec.get("params", {})))
        positive("memory M", spec.get("memory"))
    except InvalidArgument as error:
        raise InvalidArgument(f"{where}: {error}") from None
    for field in ("lower_bounds", "upper_bounds"):
        for bound_id in spec.get(field, ()):
            _known(f"{where}: {field}", bound_id, _bound_ids())
            _explicit(f"{where}: {field}", bound_id)


def _explicit(where: str, bound_id: str) -> None:
    """A kernel's I/O is compared with a number: an asymptotic record has none."""
    from ioverify.bounds.records import get  # SymPy: loaded when a bound is named

    if get(bound_id).asymptotic:
        raise InvalidArgument(f"{where}: {bound_id!r} is asymptotic (no constant), so no I/O "
                              f"can be compared with it; confront it with the kernel instead "
                              f"(ioverify.claims.confront)")


def _symbolic(where: str, spec: dict) -> None:
    from ioverify.bounds.facts import FACTS  # SymPy: loaded for symbolic claims only

    _known(f"{where}: fact", spec.get("fact"), FACTS)


def _bound_on_instance(where: str, bound_id: str, spec: dict) -> None:
    """A bound id the instance can evaluate: known, and its parameters given (M aside)."""
    from ioverify.bounds import get  # SymPy: loaded when a claim names a bound

    _known(where, bound_id, _bound_ids())
    missing = [p for p in get(bound_id).param_names
               if p != "M" and p not in spec.get("params", {})]
    if missing:
        raise InvalidArgument(f"{where}: bound {bound_id!r} needs {', '.join(missing)}, which "
                              f"the instance {spec['family']}{spec.get('params', {})} does not "
                              f"give")


def _bound_ids():
    from ioverify.bounds import REGISTRY  # SymPy

    return REGISTRY


def _kernel_specs():
    from ioverify.trace.kernel import KERNELS  # NumPy

    return KERNELS


def _confront(where: str, spec: dict) -> None:
    """Known bound and kernel, a sweep of at least one run with the kernel's sizes, and an
    ``along`` parameter every run gives."""
    _known(f"{where}: bound", spec.get("bound"), _bound_ids())
    sweep = spec.get("sweep")
    if not isinstance(sweep, list) or not sweep:
        raise InvalidArgument(f"{where}: a confrontation needs a sweep of at least one run")
    for run in sweep:
        _kernel(where, {"kernel": spec.get("kernel"), **run})
        along = spec.get("along")
        if along not in (None, "M") and along not in run["params"]:
            raise InvalidArgument(f"{where}: the sweep grows {along!r}, which run "
                                  f"{run['params']} does not give")


CHECKS = {"exact-search": _exact_search, "partition": _partition, "kernel": _kernel,
          "symbolic": _symbolic, "confront": _confront, "io-curve": _io_curve}
