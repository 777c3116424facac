"""Game variants as records: lookup, refusal by every component that does not implement a variant
(a registered but untaught record included), dispatch on the record, and the CLI's --variant."""

from __future__ import annotations

import json

import pytest

from ioverify.search import pebbling as search
from ioverify.cli import main
from ioverify.dag import pyramid
from ioverify.dag.jsonio import dag_to_json
from ioverify.encode import pebbling
from ioverify.errors import EXIT_BAD_INPUT, InvalidArgument, IOVerifyError, UnsupportedVariant
from ioverify.game import exhaustive, rules
from ioverify.game.exhaustive import exhaustive_optimum
from ioverify.game.replay import IMPLEMENTED as REPLAY_IMPLEMENTED
from ioverify.game.replay import replay
from ioverify.game.rules import ONE_SHOT, RECOMPUTE, VARIANTS, Variant, check_variant, variant
from ioverify.verdict import Optimal, verdict_to_json

# A partial-computation (PRBP) record as it might one day be registered: no component knows it.
PRBP = Variant("prbp", at_most_once=False, summary="partial computation, one operand at a time")

COMPONENTS = {
    "the replayer": lambda dag, v: replay(dag, search.greedy_schedule(dag, 3), 3, v),
    "the exhaustive search": lambda dag, v: exhaustive_optimum(dag, 3, v),
    "the Z3 pebbling encoding": lambda dag, v: pebbling.encode(dag, 3, v, 6),
    "the pebbling search": lambda dag, v: search.pebble(dag, 3, variant=v),
    "this component": lambda dag, v: check_variant(v),  # for callers of the two Hong-Kung rules
}

IMPLEMENTED_SETS = [REPLAY_IMPLEMENTED, exhaustive.IMPLEMENTED, pebbling.IMPLEMENTED,
                    search.IMPLEMENTED]


@pytest.fixture
def prbp_registered(monkeypatch):
    monkeypatch.setitem(VARIANTS, PRBP.name, PRBP)
    return PRBP


def test_the_registry():
    assert list(VARIANTS) == ["recompute", "one-shot"]
    assert (RECOMPUTE.at_most_once, ONE_SHOT.at_most_once) == (False, True)
    assert variant("one-shot") is ONE_SHOT and variant(RECOMPUTE) is RECOMPUTE
    for implemented in IMPLEMENTED_SETS:
        assert implemented <= set(VARIANTS)


def test_unsupported_variant_is_bad_input():
    assert issubclass(UnsupportedVariant, IOVerifyError) and issubclass(UnsupportedVariant,
                                                                         ValueError)
    assert issubclass(UnsupportedVariant, InvalidArgument)  # callers catching that still do
    assert UnsupportedVariant.exit_code == EXIT_BAD_INPUT == 2


@pytest.mark.parametrize("name", ["sliding", "One-Shot", "", None, 1])
def test_an_unknown_name_is_refused_naming_it_and_the_known_ones(name):
    with pytest.raises(UnsupportedVariant, match=f"unknown game variant {name!r}.*"
                                                 r"known: recompute, one-shot"):
        variant(name)


def test_a_record_that_is_not_the_registered_one_is_refused():
    impostor = Variant("one-shot", at_most_once=False, summary="not the rules of one-shot")
    with pytest.raises(UnsupportedVariant, match="unregistered game variant record"):
        variant(impostor)
    with pytest.raises(UnsupportedVariant):
        replay(pyramid(2), search.greedy_schedule(pyramid(2), 3), 3, impostor)


@pytest.mark.parametrize("component", sorted(COMPONENTS))
@pytest.mark.parametrize("given", ["name", "record"])
def test_every_component_refuses_a_registered_variant_it_was_not_taught(
        prbp_registered, component, given):
    """A new record in VARIANTS is refused everywhere until taught, never played by the recompute
    rules: each component names itself, the variant and what it implements."""
    assert variant("prbp") is prbp_registered
    with pytest.raises(UnsupportedVariant, match=f"{component} does not implement the game "
                                                 f"variant 'prbp'.*implements: one-shot, "
                                                 f"recompute"):
        COMPONENTS[component](pyramid(2), "prbp" if given == "name" else prbp_registered)


def test_every_component_is_tested_for_refusal():
    """Each module that dispatches on a variant has an IMPLEMENTED set and a row above."""
    assert len(COMPONENTS) == len(IMPLEMENTED_SETS) + 1


@pytest.mark.parametrize("record", [RECOMPUTE, ONE_SHOT])
def test_records_and_names_give_the_same_results(record):
    dag = pyramid(3)
    by_name = exhaustive_optimum(dag, 3, record.name)
    by_record = exhaustive_optimum(dag, 3, record)
    assert by_name.optimum == by_record.optimum and by_name.schedule == by_record.schedule
    checked = replay(dag, by_record.schedule, 3, record)
    assert checked.ok and checked.variant == record.name  # results carry the name
    verdict = search.pebble(dag, 3, variant=record)
    assert isinstance(verdict, Optimal) and verdict.variant == record.name
    assert verdict_to_json(verdict, dag)["variant"] == record.name
    assert pebbling.encode(dag, 3, record.name, 6).variant is record


def test_replay_dispatches_on_at_most_once():
    dag = pyramid(2)
    a, b = dag.inputs[:2]
    c = dag.succs[a][0]
    twice = rules.Schedule.from_moves([("load", a), ("load", b), ("compute", c),
                                       ("delete", c), ("compute", c), ("store", c)])
    assert replay(dag, twice, 3, RECOMPUTE).legal
    result = replay(dag, twice, 3, ONE_SHOT)
    assert result.error_rule == "one-shot-recompute" and result.error_index == 4


# --- the CLI ---------------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    dag = pyramid(3)
    dag_path, schedule_path = tmp_path / "p.json", tmp_path / "s.json"
    dag_path.write_text(dag_to_json(dag))
    schedule_path.write_text(json.dumps(search.greedy_schedule(dag, 3).to_dict(dag)))
    return str(dag_path), str(schedule_path)


@pytest.mark.parametrize("name", ["sliding", "prbp"])
def test_cli_unknown_or_unsupported_variant_is_one_line_exit_2(files, capsys, monkeypatch,
                                                               name):
    monkeypatch.setitem(VARIANTS, PRBP.name, PRBP)
    dag_path, schedule_path = files
    for argv in (["pebble", dag_path, "-M", "3", "--variant", name],
                 ["replay", dag_path, schedule_path, "-M", "3", "--variant", name]):
        assert main(argv) == 2
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and repr(name) in lines[0] and captured.out == ""
        assert "recompute" in lines[0] and "one-shot" in lines[0]


def test_cli_variant_name_and_one_shot_alias_agree(files, capsys):
    dag_path, schedule_path = files
    docs = []
    for flags in (["--one-shot"], ["--variant", "one-shot"]):
        assert main(["pebble", dag_path, "-M", "3", "--json", *flags]) == 0
        docs.append(json.loads(capsys.readouterr().out))
        assert main(["replay", dag_path, schedule_path, "-M", "3", "--json", *flags]) == 0
        assert json.loads(capsys.readouterr().out)["variant"] == "one-shot"
    assert docs[0]["variant"] == docs[1]["variant"] == "one-shot"
    assert docs[0]["io"] == docs[1]["io"] == 11
    assert main(["pebble", dag_path, "-M", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["variant"] == "recompute"


def test_cli_variant_and_alias_together_is_a_usage_error(files, capsys):
    with pytest.raises(SystemExit) as usage:
        main(["pebble", files[0], "-M", "3", "--variant", "recompute", "--one-shot"])
    assert usage.value.code == 2 and "not allowed with" in capsys.readouterr().err
