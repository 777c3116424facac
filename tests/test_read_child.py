"""A large DAG file is read in a child process, killed at the deadline, on a signal or an
error; what it sends back is the DAG ``read_dag`` makes, or its one-line error."""

from __future__ import annotations

import pytest

from ioverify.cli import common, main, read_child
from ioverify.dag.jsonio import dag_to_json, read_dag
from ioverify.dag.registry import build
from ioverify.errors import EXIT_BAD_INPUT, InvalidArgument, InvalidFormat
from ioverify.search import children


@pytest.fixture
def dag_file(tmp_path):
    path = tmp_path / "dag.json"
    path.write_text(dag_to_json(build({"family": "attention-backward",
                                       "params": {"n": 2, "d": 1}})))
    return path


@pytest.fixture
def started(monkeypatch):
    """The child processes started, to see that each has ended."""
    processes = []
    start = children.start_child

    def recording(module):
        processes.append(start(module))
        return processes[-1]

    monkeypatch.setattr(children, "start_child", recording)
    return processes


def test_the_child_sends_the_dag_read_dag_makes(dag_file, monkeypatch, started):
    monkeypatch.setattr(read_child, "CHUNK", 7)  # several messages
    dag, here = read_child.read_dag_in_child(str(dag_file), None), read_dag(dag_file)
    assert (dag.names, dag.preds, dag.ops, dag.outputs) == \
        (here.names, here.preds, here.ops, here.outputs)
    assert started and all(p.poll() is not None for p in started)


def test_past_the_deadline_nothing_is_read_and_the_child_is_killed(dag_file, started):
    import time

    assert read_child.read_dag_in_child(str(dag_file), time.monotonic() - 1) is None
    assert started and all(p.poll() is not None for p in started)


def test_a_signal_while_the_child_reads_ends_it(dag_file, monkeypatch, started):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(read_child.select, "select", interrupted)
    with pytest.raises(KeyboardInterrupt):
        read_child.read_dag_in_child(str(dag_file), None)
    assert started and all(p.poll() is not None for p in started)


def test_the_childs_error_is_the_one_line_error(tmp_path, started):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "ioverify-dag", "version": 1, "nodes": [')
    with pytest.raises(InvalidFormat, match="is not JSON"):
        read_child.read_dag_in_child(str(bad), None)


def test_files_past_the_size_go_to_the_child(dag_file, monkeypatch, started, capsys):
    monkeypatch.setattr(read_child, "CHILD_READ_BYTES", 0)
    assert len(common.read_dag_within(str(dag_file), 0.0, None)) == len(read_dag(dag_file))
    assert len(started) == 1
    (dag_file.parent / "bad.json").write_text("[")
    assert main(["pebble", str(dag_file.parent / "bad.json"), "-M", "3"]) == EXIT_BAD_INPUT
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_the_child_gets_half_the_memory_left_and_running_out_is_one_line(tmp_path, monkeypatch,
                                                                         started):
    """Regression (found by reading): the child had the whole memory budget, as this process
    did, so a full read could briefly need twice the budget.  Now it gets half of what is left
    (``children.halved_memory``), and a file it cannot read within that is one line naming
    the budget, not an internal error."""
    import contextlib

    given = []

    @contextlib.contextmanager
    def small(most=None):
        given.append(48 * 2**20)
        yield given[-1]

    monkeypatch.setattr(children, "halved_memory", small)
    big = tmp_path / "big.json"
    big.write_text('{"format": "ioverify-dag", "version": 1, "nodes": [{"name": "'
                   + "x" * (40 * 2**20) + '"}]}')
    with pytest.raises(InvalidArgument, match="needs more memory than its reader was given "
                                              r"\(48 MiB"):
        read_child.read_dag_in_child(str(big), None)
    assert given and started and all(p.poll() is not None for p in started)


def test_a_child_without_a_limit_reads_as_before(dag_file, monkeypatch, started):
    import contextlib

    monkeypatch.setattr(children, "halved_memory", contextlib.nullcontext)
    assert len(read_child.read_dag_in_child(str(dag_file), None)) == len(read_dag(dag_file))
