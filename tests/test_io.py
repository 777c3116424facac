"""``ioverify._io.write_text``: atomic, with the mode an ordinary write gives, one line on a bad
path."""

from __future__ import annotations

import os

import pytest

from ioverify._io import write_text
from ioverify.cli import main
from ioverify.errors import InvalidArgument


def test_new_file_gets_the_umask_and_an_existing_one_keeps_its_mode(tmp_path):
    old = os.umask(0o022)
    try:
        new = tmp_path / "new.json"
        write_text("{}", str(new))
        assert new.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.json"
        kept.write_text("old")
        kept.chmod(0o640)
        write_text("{}", str(kept))
        assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_text() == "{}\n"
    finally:
        os.umask(old)


def test_a_folder_or_a_missing_folder_is_one_line(tmp_path):
    with pytest.raises(InvalidArgument, match="it is a folder"):
        write_text("{}", str(tmp_path))
    with pytest.raises(InvalidArgument, match="does not exist"):
        write_text("{}", str(tmp_path / "no" / "file.json"))


def test_dag_output_naming_a_folder_exits_2(tmp_path, capsys):
    assert main(["dag", "pyramid", "--height", "2", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "it is a folder" in err


def test_dag_output_is_checked_before_the_family_is_built(tmp_path, capsys, monkeypatch):
    """-o into a missing folder: one line, exit 2, before the family is built (matmul(60, 60,
    60) took 5.7 s to build and was then refused)."""
    from ioverify.dag import registry

    def refuse(**kwargs):
        raise AssertionError("built before its output path was checked")

    from dataclasses import replace

    monkeypatch.setitem(registry.FAMILIES, "pyramid",
                        replace(registry.FAMILIES["pyramid"], build=refuse))
    out_path = str(tmp_path / "no" / "p.json")
    assert main(["dag", "pyramid", "--height", "2", "-o", out_path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err


@pytest.mark.parametrize("where, message", [("", "it is a folder"),
                                            ("no/s.json", "does not exist")],
                         ids=["folder", "missing-folder"])
def test_schedule_out_is_checked_before_the_search(tmp_path, capsys, where, message):
    """--schedule-out naming a folder, or a file in a missing folder: one line, exit 2, before
    any search (``ioverify._io.writable``); it used to be found only after the whole search,
    whose schedule was then lost."""
    from ioverify.dag import pyramid
    from ioverify.dag.jsonio import dag_to_json

    dag = tmp_path / "p.json"
    dag.write_text(dag_to_json(pyramid(2)))
    out_path = str(tmp_path / where) if where else str(tmp_path)
    assert main(["pebble", str(dag), "-M", "3", "--schedule-out", out_path]) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and err.count("\n") == 1


@pytest.mark.parametrize("ops", [False, 0, [], {"a": "input"}], ids=["false", "zero", "list",
                                                                  "input-label-on-a-non-input"])
def test_bad_ops_in_a_dag_file_are_refused(ops):
    import json

    from ioverify.dag.jsonio import dag_from_json
    from ioverify.errors import InvalidDAG

    doc = {"format": "ioverify-dag", "version": 1, "nodes": ["x", "a"], "edges": [["x", "a"]],
           "ops": ops}
    with pytest.raises(InvalidDAG, match="ops|op label"):
        dag_from_json(json.dumps(doc))


def test_a_key_given_twice_is_refused(tmp_path, capsys):
    """Regression (found by trying): the last of two equal keys won, silently; JSON readers
    differ on which one counts, so a file could say one thing here and another elsewhere."""
    path = tmp_path / "twice.json"
    path.write_text('{"format": "ioverify-dag", "version": 1, "version": 1, "nodes": []}')
    assert main(["replay", str(path), str(path), "-M", "3"]) == 2
    err = capsys.readouterr().err
    assert "has the key 'version' twice in one object" in err
    assert len(err.strip().splitlines()) == 1



def test_write_files_removes_the_folders_it_made_when_a_write_fails(tmp_path, monkeypatch):
    """A write that fails after the folders were made (a full disk, here simulated) leaves
    none of the folders it made behind, and no file half-written."""
    import ioverify._io as io_module

    def fail(path, write, mode="wb"):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(io_module, "write_atomically", fail)
    with pytest.raises(OSError, match="No space left"):
        io_module.write_files({tmp_path / "a" / "b" / "x.png": b"png",
                               tmp_path / "a" / "c" / "y.md": "text"}, "the files")
    assert list(tmp_path.iterdir()) == []
