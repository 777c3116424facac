"""The foundation commands: ``ioverify dag``, ``ioverify dag info`` and ``ioverify replay``.
Bad input exits 2 with one line and no traceback; replay exits 0 / 1 / 2."""

import json
import subprocess
import sys

import pytest

from ioverify.cli import main
from ioverify.dag import dag_from_json, matmul, pyramid
from ioverify.game.exhaustive import exhaustive_optimum
from test_dag_model import REJECTIONS
from resealing import drop_last_store


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, out, err, *fragments):
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ioverify: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize("text, fragments", [(r[1], r[3]) for r in REJECTIONS],
                         ids=[r[0] for r in REJECTIONS])
def test_dag_info_rejects_bad_json(tmp_path, capsys, text, fragments):
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert_one_line_error(*run_cli(capsys, "dag", "info", path), *fragments)


@pytest.mark.parametrize("text, fragments", [(r[1], r[3]) for r in REJECTIONS[:6]],
                         ids=[r[0] for r in REJECTIONS[:6]])
def test_replay_rejects_bad_dag(tmp_path, capsys, text, fragments):
    dag, schedule = tmp_path / "bad.json", tmp_path / "s.json"
    dag.write_text(text)
    schedule.write_text('{"format": "ioverify-schedule", "version": 1, "moves": []}')
    assert_one_line_error(*run_cli(capsys, "replay", dag, schedule, "--memory", 3), *fragments)


def test_subprocess_bad_input_exits_2_without_traceback(tmp_path):
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps({"format": "ioverify-dag", "version": 1, "nodes": ["i", "a", "b"],
                                "edges": [["i", "a"], ["a", "b"], ["b", "a"]]}))
    proc = subprocess.run([sys.executable, "-m", "ioverify", "dag", "info", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "cycle" in proc.stderr and "'a'" in proc.stderr and "'b'" in proc.stderr


def test_missing_file_exits_2(tmp_path, capsys):
    assert_one_line_error(*run_cli(capsys, "dag", "info", tmp_path / "nope.json"), "nope.json")


def test_dag_family_to_stdout_and_file(tmp_path, capsys):
    code, out, err = run_cli(capsys, "dag", "matmul", "--m", 2, "--k", 2, "--n", 2)
    assert code == 0 and err == ""
    assert dag_from_json(out) == matmul(2, 2, 2)
    target = tmp_path / "p.json"
    code, out, _ = run_cli(capsys, "dag", "pyramid", "--height", 3, "-o", target)
    assert code == 0 and out == ""
    assert dag_from_json(target.read_text()) == pyramid(3)


def test_dag_family_bad_parameter_exits_2(capsys):
    code, out, err = run_cli(capsys, "dag", "binary-tree", "--leaves", 6)
    assert_one_line_error(code, out, err, "power of two")


def test_dag_info(tmp_path, capsys):
    path = tmp_path / "m.json"
    run_cli(capsys, "dag", "matmul", "--m", 2, "--k", 2, "--n", 2, "-o", path)
    code, out, _ = run_cli(capsys, "dag", "info", path, "--json")
    assert code == 0
    assert json.loads(out) == {"vertices": 20, "edges": 24, "inputs": 8, "outputs": 4,
                               "max_in_degree": 2, "min_memory": 3}
    code, out, _ = run_cli(capsys, "dag", "info", path)
    assert code == 0 and "min memory" in out and "20" in out


@pytest.fixture
def pyramid_files(tmp_path):
    dag = pyramid(3)
    schedule = exhaustive_optimum(dag, 3).schedule
    dag_path, schedule_path = tmp_path / "dag.json", tmp_path / "schedule.json"
    from ioverify.dag import dag_to_json

    dag_path.write_text(dag_to_json(dag))
    schedule_path.write_text(json.dumps(schedule.to_dict(dag)))
    return dag, schedule, dag_path, schedule_path


def test_replay_exit_0_and_json_fields(pyramid_files, capsys):
    dag, schedule, dag_path, schedule_path = pyramid_files
    code, out, _ = run_cli(capsys, "replay", dag_path, schedule_path, "--memory", 3)
    assert code == 0 and out.startswith("legal and complete") and "= 11 I/O" in out
    code, out, _ = run_cli(capsys, "replay", dag_path, schedule_path, "-M", 3, "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["ok"] and doc["legal"] and doc["complete"] and doc["error"] is None
    assert doc["io"] == 11 == doc["loads"] + doc["stores"]
    assert doc["peak"] == 3 and doc["memory"] == 3 and doc["variant"] == "recompute"
    assert doc["moves"] == len(schedule) and doc["missing_outputs"] == []
    code, out, _ = run_cli(capsys, "replay", dag_path, schedule_path, "-M", 3, "--one-shot",
                           "--json")
    assert json.loads(out)["variant"] == "one-shot"


def test_replay_exit_1_illegal_and_incomplete(pyramid_files, tmp_path, capsys):
    dag, schedule, dag_path, schedule_path = pyramid_files
    code, out, _ = run_cli(capsys, "replay", dag_path, schedule_path, "--memory", 2)
    assert code == 1 and out.startswith("illegal move #") and "more than M red pebbles" in out
    code, out, _ = run_cli(capsys, "replay", dag_path, schedule_path, "-M", 2, "--json")
    doc = json.loads(out)
    assert code == 1 and not doc["ok"] and doc["error"]["rule"] == "capacity"
    assert isinstance(doc["error"]["index"], int) and len(doc["error"]["move"]) == 2
    partial = tmp_path / "partial.json"
    moves = schedule.to_dict(dag)["moves"]
    drop_last_store(moves)
    partial.write_text(json.dumps({"format": "ioverify-schedule", "version": 1, "moves": moves}))
    code, out, _ = run_cli(capsys, "replay", dag_path, partial, "-M", 3)
    assert code == 1 and out.startswith("incomplete: 1 output(s)") and "'x[3,0]'" in out
    code, out, _ = run_cli(capsys, "replay", dag_path, partial, "-M", 3, "--json")
    assert json.loads(out)["missing_outputs"] == ["x[3,0]"]


def test_replay_exit_2_bad_schedule_and_usage(pyramid_files, tmp_path, capsys):
    _, _, dag_path, _ = pyramid_files
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "ioverify-schedule", "version": 1, "moves": [["hop", "x"]]}')
    assert_one_line_error(*run_cli(capsys, "replay", dag_path, bad, "-M", 3), "'hop'", "move #0")
    bad.write_text('{"format": "ioverify-schedule", "version": 1, "moves": [["load", "q"]]}')
    assert_one_line_error(*run_cli(capsys, "replay", dag_path, bad, "-M", 3), "'q'")
    with pytest.raises(SystemExit) as info:
        main(["replay", str(dag_path), str(bad), "--memory", "0"])
    assert info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_replay_missing_schedule_file_exits_2(pyramid_files, tmp_path, capsys):
    _, _, dag_path, _ = pyramid_files
    assert_one_line_error(*run_cli(capsys, "replay", dag_path, tmp_path / "none.json", "-M", 3),
                          "none.json")
