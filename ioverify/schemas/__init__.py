"""JSON Schemas of ioverify's file formats, shipped in the package (draft 2020-12).

One schema per format: ``ioverify-dag``, ``ioverify-schedule`` and ``ioverify-certificate``
(``SCHEMAS``).  A schema fixes the structure: types, required fields, no unknown field where the
format allows none, and the enumerations (kinds, statuses, evidence kinds, variants).  What a
schema cannot say (a DAG without cycles, a legal schedule, a certificate that tells the truth)
is the reader's, the replayer's and the re-checker's job.

``validate(doc, fmt, what)`` raises ``InvalidFormat`` with one line naming the path of the first
offending field (``$.verdict.io``), so that nothing reads a document before its structure is
known.  The validator is the ``jsonschema`` package; it never imports a solver.  It is stricter
than draft 2020-12 on one point: an ``integer`` is a JSON number written as an integer, so
``36.0`` (a float once read) is no integer here, in a certificate's embedded DAG and schedule
too.  The readers behind the schema take integers as Python ints (a seed, a claimed lower
bound), and a float where one is meant ended in an internal error.

Long arrays are checked item by item without ``jsonschema``'s machinery (``_ITEM_CHECKS``): a
certificate of attention_backward(60,1) (43,440 vertices, a schedule of 163,725 moves) has 1.65
million schema nodes, and ``jsonschema`` took 3.4 s to validate it.  The validator is
``jsonschema``'s with two keywords, ``items`` and ``additionalProperties``, wrapped: where the
subschema an item must satisfy is one of a few literal ones, a plain Python test of the item
decides whether ``jsonschema`` needs to look at it at all, and only an item that fails it is
handed to ``jsonschema``, which reports it.  Each test holds exactly when ``jsonschema`` finds
no error in the item, so the errors found, and with them every accept and reject, are
``jsonschema``'s own (0.04 s for that certificate).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from ioverify.errors import InvalidFormat

# Format name -> schema file in this package.
SCHEMAS = {
    "ioverify-dag": "dag.schema.json",
    "ioverify-schedule": "schedule.schema.json",
    "ioverify-certificate": "certificate.schema.json",
}

_MESSAGE_MAX = 160  # characters of the validator's message kept (it may quote a whole value)


def schema(fmt: str) -> dict:
    """The JSON Schema of format ``fmt`` (a key of ``SCHEMAS``), as a dict."""
    return json.loads(json.dumps(_load(fmt)))  # a copy: callers may not edit the cached one


@lru_cache(maxsize=None)
def _load(fmt: str) -> dict:
    if fmt not in SCHEMAS:
        raise InvalidFormat(f"no schema for format {fmt!r} (known: {', '.join(SCHEMAS)})")
    return json.loads(resources.files(__package__).joinpath(SCHEMAS[fmt]).read_text())


@lru_cache(maxsize=None)
def _validator(fmt: str):
    from jsonschema import Draft202012Validator, validators
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    # The schemas a certificate refers to (its DAG, its schedule) are registered without their
    # "$schema": jsonschema validates a referenced schema that names its draft with that
    # draft's stock validator, and so without the strict integers below (a certificate's
    # instance.dag.version 1.0 passed the schema and was refused by the DAG reader only).
    registry = Registry().with_resources(
        (_load(name)["$id"], DRAFT202012.create_resource(
            {key: value for key, value in _load(name).items() if key != "$schema"}))
        for name in SCHEMAS)
    # An integer is an int (not a bool, not a float with no fractional part: module docstring).
    strict = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, instance: type(instance) is int)
    keywords = Draft202012Validator.VALIDATORS
    fast = {"items": _fast_items(keywords["items"]),
            "additionalProperties": _fast_members(keywords["additionalProperties"])}
    return validators.extend(Draft202012Validator, validators=fast,
                             type_checker=strict)(_load(fmt), registry=registry)


# --- long arrays --------------------------------------------------------------------------------
#
# Why not a compiled validator: fastjsonschema (draft 7 at most) ignores prefixItems, so it
# accepted the move ["jump", "a"] and the edge ["a", 7], and it takes 11.0 for an integer;
# jsonschema-rs takes 11.0 for an integer too (no type checker of one's own) and matches a
# pattern with Rust's regular expressions, whose "$" is not Python's (a digest ending in a
# newline).  Either would decide differently from the schema as this module reads it.

# Draft 2020-12 with this module's type checker: "string" is ``isinstance(x, str)``, "array"
# ``isinstance(x, list)``; an "enum" of strings holds for a value equal to one of them (compared
# with ``==``: a tuple, not a set, as a list or an object is no key of a set); "minLength" counts
# the characters of a string; "prefixItems" holds the first items to their subschemas and
# "minItems"/"maxItems" the length, both of an array only.  Each test below is the conjunction
# of its schema's keywords so read, nothing else; the key is the schema as canonical JSON.
_MOVE_KINDS = ("load", "store", "compute", "delete")


def _is_pair(x, first) -> bool:
    return isinstance(x, list) and len(x) == 2 and first(x[0]) and isinstance(x[1], str)


def _is_str(x) -> bool:
    return isinstance(x, str)


_ITEM_CHECKS = {
    '{"type": "string"}': _is_str,
    '{"minLength": 1, "type": "string"}': lambda x: isinstance(x, str) and len(x) >= 1,
    '{"items": {"type": "string"}, "type": "array"}':
        lambda x: isinstance(x, list) and all(isinstance(y, str) for y in x),
    '{"maxItems": 2, "minItems": 2, "prefixItems": [{"type": "string"}, {"type": "string"}], '
    '"type": "array"}': lambda x: _is_pair(x, _is_str),
    '{"maxItems": 2, "minItems": 2, "prefixItems": [{"enum": ["load", "store", "compute", '
    '"delete"]}, {"type": "string"}], "type": "array"}':
        lambda x: _is_pair(x, lambda kind: kind in _MOVE_KINDS),
}


def _item_check(subschema):
    """The test of ``_ITEM_CHECKS`` for ``subschema``, or None (then jsonschema's own keyword
    runs unchanged)."""
    if not isinstance(subschema, dict):
        return None
    return _ITEM_CHECKS.get(json.dumps(subschema, sort_keys=True))


def _fast_items(items_keyword):
    """``items`` as jsonschema's ``items_keyword`` (draft 2020-12): it descends into each item
    past ``prefixItems``, and an item in which it finds no error yields nothing; the item test,
    which holds exactly when jsonschema finds no error in the item, lets it descend only into
    the others, in the same order: the same errors."""
    def items(validator, subschema, instance, schema):
        check = _item_check(subschema)
        if check is None or not validator.is_type(instance, "array"):
            yield from items_keyword(validator, subschema, instance, schema)
            return
        for index in range(len(schema.get("prefixItems", [])), len(instance)):
            if not check(instance[index]):
                yield from validator.descend(instance[index], subschema, path=index)
    return items


def _fast_members(members_keyword):
    """``additionalProperties`` as jsonschema's ``members_keyword``: in a schema without
    ``properties`` and ``patternProperties`` every member is additional, and it descends into
    each (in the order of a set: which of several errors is reported first was never fixed);
    the item test lets it descend only into the members that fail it: the same errors."""
    def additional(validator, subschema, instance, schema):
        check = _item_check(subschema)
        if (check is None or not validator.is_type(instance, "object")
                or "properties" in schema or "patternProperties" in schema):
            yield from members_keyword(validator, subschema, instance, schema)
            return
        for key, value in instance.items():
            if not check(value):
                yield from validator.descend(value, subschema, path=key)
    return additional


def validate(doc: object, fmt: str, what: str) -> None:
    """Raise ``InvalidFormat`` (one line: ``what``, the path of the offending field, and what is
    wrong with it) unless ``doc`` has the structure of format ``fmt``."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(fmt).iter_errors(doc))
    if error is None:
        return
    message = " ".join(error.message.split())
    if len(message) > _MESSAGE_MAX:
        message = message[:_MESSAGE_MAX] + "..."
    raise InvalidFormat(f"{what} is not a valid {fmt}: at {json_path(error.absolute_path)}: "
                        f"{message}")


def json_path(parts) -> str:
    """``["verdict", "io"]`` -> ``$.verdict.io``; list indices in brackets."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)
