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
    return validators.extend(Draft202012Validator, type_checker=strict)(_load(fmt),
                                                                        registry=registry)


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
