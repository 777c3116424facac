"""The independent replayer, branch by branch: every rule in RULES, incompleteness, one-shot,
capacity counting the pebble being placed, the peak, and the schedule format."""

import json

import pytest

from ioverify.dag import DAG
from ioverify.errors import InvalidArgument, InvalidFormat, InvalidSchedule
from ioverify.game import Schedule, replay, schedule_from_json
from ioverify.game.replay import RULES

# a, b inputs; c = f(a, b); d = g(c), the only output.
DAG4 = DAG.from_edges(["a", "b", "c", "d"], [("a", "c"), ("b", "c"), ("c", "d")])
GOOD = [("load", "a"), ("load", "b"), ("compute", "c"), ("delete", "a"), ("delete", "b"),
        ("compute", "d"), ("store", "d")]


def sched(moves, dag=DAG4):
    return Schedule.from_moves((kind, dag.index[name]) for kind, name in moves)


def run(moves, memory=3, variant="recompute", dag=DAG4):
    return replay(dag, sched(moves, dag), memory, variant)


def test_good_schedule():
    r = run(GOOD)
    assert r.ok and r.legal and not r.missing_outputs
    assert (r.loads, r.stores, r.io, r.peak, r.moves) == (2, 1, 3, 3, 7)
    assert r.describe() == ("legal and complete: 2 loads + 1 stores = 3 I/O, peak 3 red of "
                            "M = 3 (recompute)")
    assert r.to_json() == {"status": "verified", "legal": True, "complete": True, "ok": True, "variant": "recompute",
                           "memory": 3, "moves": 7, "loads": 2, "stores": 1, "io": 3, "peak": 3,
                           "error": None, "missing_outputs": []}


# (rule, moves whose LAST move breaks the rule, memory)
BROKEN = [
    ("load-needs-blue", [("load", "c")], 3),
    ("load-already-red", [("load", "a"), ("load", "a")], 3),
    ("store-needs-red", [("store", "a")], 3),
    ("store-already-blue", [("load", "a"), ("store", "a")], 3),
    ("compute-input", [("compute", "a")], 3),
    ("compute-already-red", GOOD[:3] + [("compute", "c")], 3),
    ("compute-needs-predecessors", [("load", "a"), ("compute", "c")], 3),
    ("capacity", [("load", "a"), ("load", "b"), ("compute", "c")], 2),
    ("capacity", [("load", "a"), ("load", "b")], 1),
    ("delete-needs-red", [("delete", "a")], 3),
    ("delete-needs-red", [("load", "a"), ("delete", "a"), ("delete", "a")], 3),
]


@pytest.mark.parametrize("rule, moves, memory", BROKEN)
def test_each_rule(rule, moves, memory):
    r = run(moves, memory)
    assert not r.legal and not r.ok
    assert r.error_rule == rule
    assert r.error_index == len(moves) - 1
    assert r.error_move == moves[-1]
    text = r.describe()
    assert text.startswith(f"illegal move #{len(moves) - 1} [{moves[-1][0]!r}, {moves[-1][1]!r}]")
    assert RULES[rule] in text
    error = r.to_json()["error"]
    assert error["rule"] == rule and error["index"] == len(moves) - 1
    assert error["move"] == list(moves[-1]) and error["message"] == text


def test_missing_predecessor_is_named():
    r = run([("load", "a"), ("compute", "c")])
    assert r.error_detail == "predecessor 'b' is not red"
    assert r.describe().endswith("(predecessor 'b' is not red)")


def test_every_rule_is_exercised():
    exercised = {rule for rule, _, _ in BROKEN} | {"one-shot-recompute"}
    assert exercised == set(RULES)


def test_one_shot_recompute_rejected_but_allowed_in_recompute():
    moves = GOOD[:3] + [("delete", "c"), ("compute", "c")]
    r = run(moves, variant="one-shot")
    assert r.error_rule == "one-shot-recompute" and r.error_index == 4
    assert run(moves + [("compute", "d"), ("store", "d")], memory=4).ok
    assert run(GOOD, variant="one-shot").ok
    assert run(GOOD, variant="one-shot").describe().endswith("(one-shot)")


def test_one_shot_counts_computes_after_reload():
    # c computed, stored, deleted and loaded back: loading is not computing.
    moves = GOOD[:5] + [("store", "c"), ("delete", "c"), ("load", "c"), ("compute", "d"),
                        ("store", "d")]
    r = run(moves, variant="one-shot")
    assert r.ok and r.io == 5


def test_capacity_counts_the_pebble_being_placed():
    # Two predecessors red and c placed: 3 pebbles; M = 3 passes, M = 2 fails at the compute.
    assert run(GOOD, memory=3).ok
    r = run(GOOD, memory=2)
    assert r.error_rule == "capacity" and r.error_index == 2 and "3 > M = 2" in r.describe()


def test_costs_before_the_error_are_reported():
    r = run(GOOD[:3] + [("store", "c"), ("store", "c")])
    assert r.error_rule == "store-already-blue"
    assert (r.loads, r.stores, r.peak) == (2, 1, 3)


def test_peak_is_the_maximum_not_the_final_count():
    r = run(GOOD + [("delete", "c"), ("delete", "d")])
    assert r.ok and r.peak == 3
    r = run([("load", "a"), ("delete", "a"), ("load", "b"), ("load", "a"), ("compute", "c"),
             ("delete", "a"), ("delete", "b"), ("compute", "d"), ("store", "d")], memory=4)
    assert r.ok and r.peak == 3 and r.io == 4


def test_incomplete_outputs():
    r = run(GOOD[:-1])
    assert r.legal and not r.ok and r.missing_outputs == ("d",)
    assert r.describe() == "incomplete: 1 output(s) without a blue pebble: 'd'"
    assert r.to_json()["complete"] is False and r.to_json()["missing_outputs"] == ["d"]
    assert r.to_json()["status"] == "refuted" and r.verdict().reason == r.describe()


def test_incomplete_lists_at_most_five():
    names = ["i"] + [f"o{j}" for j in range(7)]
    dag = DAG.from_edges(names, [("i", f"o{j}") for j in range(7)])
    r = replay(dag, Schedule(), 2)
    assert len(r.missing_outputs) == 7 and r.describe().endswith("and 2 more")


def test_empty_schedule_on_dag_without_outputs_is_complete():
    dag = DAG.from_edges(["a"], [])
    assert dag.outputs == () and replay(dag, Schedule(), 1).ok


def test_stored_non_output_does_not_complete():
    r = run(GOOD[:3] + [("store", "c")])
    assert r.legal and r.missing_outputs == ("d",)


def test_bad_arguments():
    with pytest.raises(InvalidArgument, match="memory"):
        replay(DAG4, sched(GOOD), 0)
    with pytest.raises(InvalidArgument, match="memory"):
        replay(DAG4, sched(GOOD), True)
    with pytest.raises(InvalidArgument, match="variant"):
        replay(DAG4, sched(GOOD), 3, "sliding")
    with pytest.raises(InvalidSchedule, match="move #1 names vertex index 9"):
        replay(DAG4, Schedule(b"\x00\x00", [0, 9]), 3)
    with pytest.raises(InvalidSchedule, match="move #0 names vertex index -1"):
        replay(DAG4, Schedule(b"\x00", [-1]), 3)
    with pytest.raises(InvalidSchedule, match="move kind 7 is none of 0 \\(load\\)"):
        Schedule(b"\x07", [0])
    with pytest.raises(InvalidSchedule, match="unknown move 'fly'"):
        Schedule.from_moves([("fly", 0)])
    mutated = Schedule(b"\x00", [0])
    mutated.kinds = b"\x07"  # past the constructor's check: the replayer has its own
    with pytest.raises(InvalidSchedule, match="unknown kind code 7"):
        replay(DAG4, mutated, 3)
    with pytest.raises(InvalidSchedule):
        Schedule(b"\x00\x00", [0])


def test_schedule_object():
    s = sched(GOOD)
    assert len(s) == 7 and s.io == 3 and list(s)[0] == ("load", 0)
    assert s == sched(GOOD) and s != sched(GOOD[:-1])
    doc = s.to_dict(DAG4)
    assert doc == {"format": "ioverify-schedule", "version": 1,
                   "moves": [list(m) for m in GOOD]}
    assert schedule_from_json(json.dumps(doc), DAG4) == s


SCHEDULE_REJECTIONS = [
    ("not-json", "[[", InvalidFormat, "not JSON"),
    ("wrong-format", json.dumps({"format": "ioverify-dag", "version": 1, "moves": []}),
     InvalidFormat, "'ioverify-dag'"),
    ("wrong-version", json.dumps({"format": "ioverify-schedule", "version": 9, "moves": []}),
     InvalidFormat, "version 9"),
    ("unknown-field", json.dumps({"format": "ioverify-schedule", "version": 1, "moves": [],
                                  "x": 1}), InvalidSchedule, "'x'"),
    ("moves-not-list", json.dumps({"format": "ioverify-schedule", "version": 1, "moves": {}}),
     InvalidSchedule, "'moves'"),
    ("move-shape", json.dumps({"format": "ioverify-schedule", "version": 1,
                               "moves": [["load", "a"], ["load"]]}), InvalidSchedule, "move #1"),
    ("unknown-kind", json.dumps({"format": "ioverify-schedule", "version": 1,
                                 "moves": [["slide", "a"]]}), InvalidSchedule, "'slide'"),
    ("unknown-node", json.dumps({"format": "ioverify-schedule", "version": 1,
                                 "moves": [["load", "zz"]]}), InvalidSchedule, "'zz'"),
]


@pytest.mark.parametrize("text, error, fragment", [r[1:] for r in SCHEDULE_REJECTIONS],
                         ids=[r[0] for r in SCHEDULE_REJECTIONS])
def test_schedule_format_rejections(text, error, fragment):
    with pytest.raises(error) as info:
        schedule_from_json(text, DAG4)
    assert fragment in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("call, phrase", [
    (lambda dag: replay("dag.json", Schedule.from_moves([]), 3),
     "dag must be an ioverify DAG, got str"),
    (lambda dag: replay(dag, [("load", 0)], 3), "schedule must be a Schedule"),
    (lambda dag: replay(dag, None, 3), "got NoneType"),
])
def test_a_library_caller_passing_the_wrong_kind_of_object_gets_one_line(call, phrase):
    """Before: AttributeError from deep inside the replayer."""
    dag = DAG.from_edges(["a", "b", "c"], [("a", "c"), ("b", "c")], ["c"])
    with pytest.raises(InvalidArgument, match=phrase):
        call(dag)


def test_greedy_and_pebble_refuse_a_wrong_dag_or_an_infeasible_memory():
    from ioverify.game.greedy import best_greedy_schedule
    from ioverify.search.pebbling import pebble

    dag = DAG.from_edges(["a", "b", "c"], [("a", "c"), ("b", "c")], ["c"])
    with pytest.raises(InvalidArgument, match="no schedule exists: vertex 'c' has in-degree 2"):
        best_greedy_schedule(dag, 2)  # was IndexError
    with pytest.raises(InvalidArgument, match="dag must be an ioverify DAG, got list"):
        pebble([], 3)  # was AttributeError


def test_a_vertex_no_output_needs_makes_no_m_infeasible(tmp_path, capsys):
    """Regression (found by trying): d = f(a, c), which no output needs, made M = 2 "infeasible"
    ("vertex 'd' has in-degree 2 and needs M >= 3") while load a, compute b, store b wins the
    game there at 2 I/O; only the vertices some output needs count."""
    from ioverify.cli import main
    from ioverify.game.rules import infeasibility

    dag = DAG.from_edges(["a", "c", "b", "d"], [("a", "b"), ("a", "d"), ("c", "d")], ["b"])
    assert dag.min_memory == 2 and infeasibility(dag, 2) is None
    assert "vertex 'b' has in-degree 1" in infeasibility(dag, 1)
    at = dag.index
    win = Schedule.from_moves([("load", at["a"]), ("compute", at["b"]), ("store", at["b"])])
    assert replay(dag, win, 2).ok
    path = tmp_path / "unneeded.json"
    path.write_text(json.dumps({"format": "ioverify-dag", "version": 1,
                                "nodes": ["a", "c", "b", "d"],
                                "edges": [["a", "b"], ["a", "d"], ["c", "d"]],
                                "outputs": ["b"]}))
    for variant in ("one-shot", "recompute"):
        assert main(["pebble", str(path), "-M", "2", "--variant", variant]) == 0
        assert capsys.readouterr().out.startswith("optimal: optimum 2")
