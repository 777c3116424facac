"""The certificate schema's validation (``ioverify.schemas.validate``) decides exactly as
``jsonschema`` does with this project's rules (draft 2020-12, an integer is an int), on
certificates of every kind shipped in docs/claims/certificates, mutated: the long arrays are
checked item by item by plain Python tests (``_ITEM_CHECKS``), and each test must hold exactly
when ``jsonschema`` finds no error in the item."""

from __future__ import annotations

import copy
import json
import random
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ioverify.errors import InvalidFormat
from ioverify.schemas import SCHEMAS, _ITEM_CHECKS, _item_check, _load, json_path, validate

SHIPPED = Path(__file__).resolve().parent.parent / "docs" / "claims" / "certificates"
FORMAT = "ioverify-certificate"


def _reference(root: dict):
    """Stock ``jsonschema`` with the strict integers and the referenced schemas registered
    without "$schema" (so the rule holds in them too): the rules the validator must keep."""
    from jsonschema import Draft202012Validator, validators
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    registry = Registry().with_resources(
        (_load(name)["$id"], DRAFT202012.create_resource(
            {key: value for key, value in _load(name).items() if key != "$schema"}))
        for name in SCHEMAS)
    strict = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, instance: type(instance) is int)
    return validators.extend(Draft202012Validator, type_checker=strict)(root, registry=registry)


REFERENCE = _reference(_load(FORMAT))


def _reference_message(doc) -> str | None:
    """The one line ``validate`` must raise for ``doc`` (None: valid), from the reference."""
    from jsonschema.exceptions import best_match

    error = best_match(REFERENCE.iter_errors(doc))
    if error is None:
        return None
    message = " ".join(error.message.split())
    message = message[:160] + "..." if len(message) > 160 else message
    return f"d is not a valid {FORMAT}: at {json_path(error.absolute_path)}: {message}"


def _message(doc) -> str | None:
    try:
        validate(doc, FORMAT, "d")
    except InvalidFormat as error:
        return str(error)
    return None


def _same_decision(doc, label) -> bool:
    """Assert the validator and the reference agree on ``doc``; whether it was rejected."""
    expected, got = _reference_message(doc), _message(doc)
    assert got == expected, label
    assert got is None or ("\n" not in got and " at $" in got), got
    return got is not None


# --- certificates of every kind ----------------------------------------------------------------

def _kind(doc) -> tuple:
    evidence = doc["verdict"].get("evidence") or {}
    return doc["obligation"]["kind"], doc["verdict"]["status"], evidence.get("kind")


def _samples(per_kind: int = 2) -> list[Path]:
    """The first ``per_kind`` shipped certificates of each (obligation kind, status, evidence
    kind)."""
    chosen: dict[tuple, list[Path]] = {}
    for path in sorted(SHIPPED.glob("*.json")):
        group = chosen.setdefault(_kind(json.loads(path.read_text())), [])
        if len(group) < per_kind:
            group.append(path)
    return [path for group in chosen.values() for path in group]


SAMPLES = _samples()


def _locations(value, path=()):
    """Every (path, value) of a JSON document, the root included."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _locations(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _locations(item, path + (index,))


def _replaced(value):
    """Values of other types (and an int's float and bool), strict JSON all (no NaN)."""
    others = [11.0, True, None, "x", "", [], {}, 7, -1, [value], {"v": value}]
    if isinstance(value, str):
        others.append(value + "-x")  # out of an enumeration
    if type(value) is int:
        others += [float(value), bool(value), value + 0.5]
    return others


def _mutants(doc, rng: random.Random, count: int):
    """``count`` single mutations of ``doc`` at random locations: a value replaced, a member or
    an item dropped, a member added."""
    places = [(path, value) for path, value in _locations(doc) if path]
    for _ in range(count):
        path, value = rng.choice(places)
        mutant = copy.deepcopy(doc)
        parent = mutant
        for key in path[:-1]:
            parent = parent[key]
        how = rng.choice(["replace", "replace", "drop", "add"])
        if how == "replace":
            parent[path[-1]] = rng.choice(_replaced(value))
        elif how == "drop":
            del parent[path[-1]]
        elif isinstance(value, dict):
            value = parent[path[-1]]
            value["extra"] = rng.choice([1, "x", None])
        elif isinstance(value, list):
            parent[path[-1]].append(rng.choice(_replaced(value[0] if value else 0)))
        else:
            parent[path[-1]] = {"v": value}
        yield f"{how} at {json_path(path)}", mutant


@pytest.mark.parametrize("path", SAMPLES, ids=lambda path: path.name)
def test_mutated_certificates_are_rejected_exactly_when_jsonschema_rejects(path):
    doc = json.loads(path.read_text())
    assert not _same_decision(doc, "as shipped")
    rng = random.Random(path.name)
    rejected = [_same_decision(mutant, label) for label, mutant in _mutants(doc, rng, 40)]
    assert any(rejected), "no mutation was rejected: the test says nothing"


def test_every_kind_shipped_is_sampled():
    kinds = {_kind(json.loads(path.read_text())) for path in SHIPPED.glob("*.json")}
    assert {_kind(json.loads(path.read_text())) for path in SAMPLES} == kinds
    assert {kind for kind, _, _ in kinds} == {"exact-search", "partition", "kernel", "symbolic",
                                             "confront", "io-curve"}


# --- the long arrays, deep inside --------------------------------------------------------------

def _long(length: int = 1500) -> dict:
    """A shipped certificate with a DAG and a schedule, its arrays grown past ``length`` items
    with items of the right structure (the schema does not look at what they name)."""
    name = "reference-optima--000.json"
    doc = json.loads((SHIPPED / name).read_text())
    dag, moves = doc["instance"]["dag"], doc["witness"]["schedule"]["moves"]
    extra = [f"x{i}" for i in range(length)]
    dag["nodes"] += extra
    dag["edges"] += [[a, b] for a, b in zip(extra, extra[1:])]
    dag["outputs"] = dag.get("outputs", []) + extra
    dag["ops"] = {**dag.get("ops", {}), **{node: "add" for node in extra}}
    moves += [[kind, node] for node in extra for kind in ("load", "compute", "store", "delete")]
    return doc


LONG = _long()

BAD_MOVES = [["load", 7], ["jump", "a"], ["load"], ["load", "a", "b"], "load a",
             {"load": "a"}, [True, "a"], [None, "a"], ["Load", "a"], ["load", None],
             [["load"], "a"], ["load", ["a"]], 7, None, []]
BAD_NAMES = [7, 7.0, True, None, ["a"], {"a": "b"}]


def _deep(change) -> dict:
    doc = copy.deepcopy(LONG)
    change(doc)
    return doc


def _set(path, value):
    def change(doc):
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value
    return change


DEEP = ([(f"move {bad!r}", _set(("witness", "schedule", "moves", 4321), bad))
         for bad in BAD_MOVES]
        + [(f"node {bad!r}", _set(("instance", "dag", "nodes", 1234), bad))
           for bad in BAD_NAMES + [""]]
        + [(f"edge {bad!r}", _set(("instance", "dag", "edges", 1111), bad))
           for bad in [["a", 7], ["a"], ["a", "b", "c"], "a b", [7, "a"], None, {"a": "b"}]]
        + [(f"output {bad!r}", _set(("instance", "dag", "outputs", 1222), bad))
           for bad in BAD_NAMES]
        + [(f"op {bad!r}", _set(("instance", "dag", "ops", "x1200"), bad)) for bad in BAD_NAMES]
        + [("the moves an object", _set(("witness", "schedule", "moves"), {"0": ["load", "a"]})),
           ("no nodes", _set(("instance", "dag", "nodes"), [])),
           ("the ops a list", _set(("instance", "dag", "ops"), [["x1", "add"]]))])


@pytest.mark.parametrize("label, change", DEEP, ids=[label for label, _ in DEEP])
def test_a_malformed_item_deep_in_a_long_array_is_rejected_as_jsonschema_rejects_it(label,
                                                                                   change):
    assert not _same_decision(LONG, "grown")
    assert _same_decision(_deep(change), label)


def test_mutations_of_a_partition_are_rejected_exactly_when_jsonschema_rejects():
    path = next(path for path in SAMPLES if _kind(json.loads(path.read_text()))[0] == "partition")
    doc = json.loads(path.read_text())
    for where in (("witness", "partition"), ("verdict", "evidence", "partition")):
        for bad in ["a", 7, 7.0, True, None, {"a": "b"}, ["a", 7], [None], [["a"]], [{"a": "b"}]]:
            mutant = copy.deepcopy(doc)
            _set(where + (0,), bad)(mutant)
            assert _same_decision(mutant, f"{json_path(where)}[0] = {bad!r}")
            _set(where + (0,), ["a", "b"])(mutant)
            assert not _same_decision(mutant, "mended")


# --- each item test is its schema --------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) |
    st.sampled_from(["load", "store", "compute", "delete", "", "a", "Load"]) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner,
                                                                 max_size=3),
    max_leaves=8)


@pytest.mark.parametrize("key", sorted(_ITEM_CHECKS), ids=range(len(_ITEM_CHECKS)))
@settings(max_examples=300, deadline=None)
@given(value=JSON)
@example(value=["load", "a"]).via("an item of each")
@example(value=["a", "b"]).via("an item of each")
@example(value=["store", ""]).via("an item of each")
@example(value=["a"]).via("an item of each")
@example(value="a").via("an item of each")
def test_each_item_test_holds_exactly_when_jsonschema_accepts_the_item(key, value):
    assert _item_check(json.loads(key)) is _ITEM_CHECKS[key]
    assert _ITEM_CHECKS[key](value) == _item_reference(key).is_valid(value), value


@lru_cache(maxsize=None)
def _item_reference(key: str):
    return _reference(json.loads(key))


@pytest.mark.parametrize("fmt, path", [
    ("ioverify-dag", ("properties", "nodes", "items")),
    ("ioverify-dag", ("properties", "edges", "items")),
    ("ioverify-dag", ("properties", "outputs", "items")),
    ("ioverify-dag", ("properties", "ops", "additionalProperties")),
    ("ioverify-schedule", ("properties", "moves", "items")),
    ("ioverify-certificate", ("properties", "witness", "properties", "partition", "items")),
    ("ioverify-certificate", ("$defs", "evidence", "properties", "partition", "items")),
])
def test_the_long_arrays_are_checked_item_by_item(fmt, path):
    """The arrays that grow with the DAG have an item test (else jsonschema descends into each
    item: 3.4 s for 43,440 vertices and 163,725 moves)."""
    subschema = _load(fmt)
    for key in path:
        subschema = subschema[key]
    assert _item_check(subschema) is not None, subschema


SYNTHETIC = [  # (schema, instances): where the wrapped keywords must step aside or skip
    ({"prefixItems": [{"type": "integer"}], "items": {"type": "string"}},
     [[1, "a"], [1], ["a", "b"], [1, 2], [], "a", {"0": 1}]),
    ({"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
     [{"a": 1}, {"a": 1, "b": "c"}, {"a": "x"}, {"b": 2}, {}, []]),
    ({"patternProperties": {"^n": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
     [{"n1": 1}, {"n1": "x"}, {"m": "x"}, {"m": 1}]),
    ({"additionalProperties": {"type": "string"}}, [{"a": "b"}, {"a": 1}, {"a": True}, ["a"]]),
    ({"items": False}, [[], [1]]),
]


@pytest.mark.parametrize("schema, instances", SYNTHETIC, ids=range(len(SYNTHETIC)))
def test_the_wrapped_keywords_decide_as_jsonschema_s_on_other_schemas(schema, instances):
    from jsonschema import Draft202012Validator, validators

    from ioverify.schemas import _fast_items, _fast_members

    stock = Draft202012Validator.VALIDATORS
    wrapped = validators.extend(Draft202012Validator, validators={
        "items": _fast_items(stock["items"]),
        "additionalProperties": _fast_members(stock["additionalProperties"])})(schema)
    for instance in instances:
        expected = sorted(error.message for error in Draft202012Validator(schema).iter_errors(
            instance))
        assert sorted(error.message for error in wrapped.iter_errors(instance)) == expected, \
            instance
