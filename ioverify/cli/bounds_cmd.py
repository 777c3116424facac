"""``ioverify bounds``: list the bound records, show one, evaluate one, prove the facts.

    ioverify bounds [list] [--json]
    ioverify bounds show ID
    ioverify bounds eval ID --n 64 --d 16 --memory 256 [--m --k --B ...] [--json]
    ioverify bounds facts [--json] [--only ID ...]

``eval`` refuses parameters outside the bound's regime (exit 2, one line); an asymptotic-only
bound prints its shape's value, labelled as such (it is not a number of transfers).
``facts`` exits 0 when every fact is proved, 1 when one is refuted, 3 when one is unknown.
"""

from __future__ import annotations

import argparse

from ioverify.cli.common import print_json
from ioverify.errors import EXIT_OK, InvalidArgument

# --name on the command line -> parameter of the formulas (--memory is M)
ALIASES = {"memory": "M"}


def register(sub) -> None:
    parser = sub.add_parser("bounds", help="the bound library: list, show, evaluate, prove facts",
                            description="The published and derived bounds as formulas with "
                                        "sources and regimes, and proved facts about them.")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=_list)
    actions = parser.add_subparsers(dest="action", metavar="list|show|eval|facts",
                                    parser_class=type(parser))
    listing = actions.add_parser("list", help="every bound record, one a line (the default)")
    _json_argument(listing)
    listing.set_defaults(handler=_list)
    show = actions.add_parser("show", help="one bound with its LaTeX form")
    show.add_argument("id")
    _json_argument(show)
    show.set_defaults(handler=_show)
    ev = actions.add_parser("eval", help="evaluate a bound (refuses parameters outside its "
                                         "regime)")
    ev.add_argument("id")
    for name in _parameter_names():
        flag = "memory" if name == "M" else name
        ev.add_argument(f"--{flag}", dest=f"p_{name}", metavar="X", help=f"parameter {name}")
    _json_argument(ev)
    ev.set_defaults(handler=_eval)
    facts = actions.add_parser("facts", help="prove the facts (exit 0 all proved, 1 a fact "
                                             "refuted, 3 one unknown)")
    _json_argument(facts)
    facts.add_argument("--only", nargs="+", metavar="ID", help="only these facts")
    facts.set_defaults(handler=_facts)


def _json_argument(action) -> None:
    """``--json`` of an action, which ``bounds --json ACTION`` gives too: the action's own
    default would overwrite the group's (argparse copies an action's namespace over it)."""
    action.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print JSON")


# The parameter names of ``ioverify.bounds.symbols.BY_NAME``, written out so that building the
# parser (``ioverify --help``, ``--version``) does not import SymPy; a test keeps them equal.
PARAMETER_NAMES = ("n", "d", "M", "m", "k", "a", "b", "P", "V", "U", "B", "B_c", "B_r", "r", "g",
                   "Z_in", "Z_QK", "s", "Z_r", "Z_c", "f")


def _parameter_names() -> list[str]:
    return list(PARAMETER_NAMES)


def bound_summary(bound) -> dict:
    return {"id": bound.id, "title": bound.title, "kind": bound.kind,
            "firmness": bound.firmness, "asymptotic": bound.asymptotic,
            "variant": bound.variant, "graph": bound.graph, "source": bound.source,
            "section": bound.section, "params": list(bound.param_names),
            "regime": [str(c) for c in bound.conditions], "expression": str(bound.expr),
            "latex": bound.latex(), "statement": bound.statement, "family": bound.family,
            "notes": bound.notes}


def _list(args) -> int:
    from ioverify.bounds import REGISTRY

    if args.json:
        print_json([bound_summary(b) for b in REGISTRY.values()])
        return EXIT_OK
    width = max(len(b) for b in REGISTRY)
    for bound in REGISTRY.values():
        shape = " (asymptotic)" if bound.asymptotic else ""
        print(f"{bound.id:<{width}}  {bound.kind:<5}  {bound.firmness:<8}  "
              f"{bound.title}{shape}")
    return EXIT_OK


def _show(args) -> int:
    from ioverify.bounds import get
    from ioverify.bounds.model import describe

    bound = get(args.id)
    if args.json:
        print_json(bound_summary(bound))
        return EXIT_OK
    rows = [("id", bound.id), ("title", bound.title), ("statement", bound.statement),
            ("source", bound.source), ("firmness", bound.firmness), ("kind", bound.kind),
            ("asymptotic", "yes: a shape without constants" if bound.asymptotic else "no"),
            ("variant", bound.variant), ("graph", bound.graph),
            ("parameters", ", ".join(bound.param_names)),
            ("regime", "; ".join(describe(c) for c in bound.conditions) or "all parameters"),
            ("expression", str(bound.expr)), ("latex", bound.latex())]
    rows += [("notes", bound.notes)] if bound.notes else []
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return EXIT_OK


def _eval(args) -> int:
    from ioverify.bounds import get

    bound = get(args.id)
    params = {name: _number(getattr(args, f"p_{name}")) for name in _parameter_names()
              if getattr(args, f"p_{name}") is not None}
    if bound.asymptotic:
        value = bound.shape(**params)
        label = "shape value (asymptotic only: no constants, not a number of transfers)"
    else:
        value = bound.evaluate(**params)
        label = {"lower": "lower bound", "upper": "upper bound", "exact": "exact count",
                 "tight": "value"}[bound.kind]
    vacuous = bool(bound.kind == "lower" and not bound.asymptotic and value <= 0)
    if args.json:
        print_json({"id": bound.id, "params": {k: str(v) for k, v in params.items()},
                    "value": str(value), "asymptotic": bound.asymptotic, "kind": bound.kind,
                    "vacuous": vacuous})
    else:
        print(f"{bound.id}: {label} = {value}"
              + ("  (vacuous: a lower bound <= 0 holds for every schedule)" if vacuous else ""))
    return EXIT_OK


MAX_DIGITS = 1000  # of a parameter value: 1e5000 ended in an internal error (a 4,300-digit cap)


def _number(text: str):
    """An integer when the text is one, else an exact fraction (``1/2``, ``0.5``): the text is
    never evaluated as an expression."""
    from fractions import Fraction

    if len(text) > MAX_DIGITS:
        raise InvalidArgument(f"parameter value {text[:20]}... has more than {MAX_DIGITS} "
                              f"characters")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = Fraction(text.strip())
        if max(abs(value.numerator), value.denominator).bit_length() > 4 * MAX_DIGITS:
            raise ValueError
        return value
    except (ValueError, ZeroDivisionError):
        raise InvalidArgument(f"parameter value {text!r} is not a number of at most "
                              f"{MAX_DIGITS} digits (an integer, a decimal or a fraction "
                              f"p/q)") from None


def _facts(args) -> int:
    from ioverify.bounds.facts import FACTS, prove
    from ioverify.verdict import describe, exit_code, merge, to_json

    ids = args.only or list(FACTS)
    results = [prove(fact_id) for fact_id in ids]
    verdicts = [r.verdict() for r in results]
    overall = merge(verdicts)
    if args.json:
        print_json({"status": overall.status, "facts": [
            {**r.to_json(), "status": v.status, "fact_status": r.status, "verdict": to_json(v)}
            for r, v in zip(results, verdicts)]})
    else:
        for r, v in zip(results, verdicts):
            extra = f"  C = {r.data['C']}" if "C" in r.data else ""
            if not r.data.get("shown_smallest", True):
                extra += " (proved, not shown the smallest)"
            print(f"{r.status:<8}  {r.id}{extra}")
            print(f"          {describe(v) if r.status == 'proved' else r.detail}")
    return exit_code(overall)
