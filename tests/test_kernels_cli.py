"""``ioverify kernel``: output, JSON fields and exit codes."""

import json

import pytest

from ioverify.cli import main


def test_list_names_every_kernel(capsys):
    from ioverify.trace.kernel import KERNELS

    assert main(["kernel", "list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in KERNELS)


def test_certified_run_prints_counts_and_exits_0(capsys):
    assert main(["kernel", "flash-forward-v2", "--n", "9", "--d", "3", "--memory", "80"]) == 0
    out = capsys.readouterr().out
    for word in ("loads", "stores", "total I/O", "peak", "closed form", "max error",
                 "verdict     verified: certified"):
        assert word in out


def test_json_fields(capsys):
    assert main(["kernel", "matmul-tiled", "--m", "5", "--k", "4", "--n", "6", "--memory", "20",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for key in ("loads", "stores", "io", "peak", "formula", "max_error", "certified"):
        assert key in doc
    assert doc["certified"] is True and doc["io"] == doc["formula"] == doc["loads"] + doc["stores"]
    assert doc["status"] == doc["verdict"]["status"] == "verified"
    assert doc["verdict"]["io"] == doc["io"] and "bound" not in doc["verdict"]


def test_literal_blocks_that_do_not_fit_exit_1(capsys):
    code = main(["kernel", "flash-forward-v2", "--n", "32", "--d", "16", "--memory", "1024",
                 "--literal-blocks", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["certified"] is False and "capacity exceeded" in doc["reason"]
    assert doc["status"] == "refuted" and "capacity exceeded" in doc["verdict"]["reason"]


def test_bad_input_exits_2(capsys):
    assert main(["kernel", "flash-forward-v2", "--n", "9", "--d", "3", "--memory", "5"]) == 2
    assert "too small" in capsys.readouterr().err
    assert main(["kernel", "flash-forward-v2", "--n", "9", "--memory", "50"]) == 2
    assert main(["kernel", "matmul-tiled", "--m", "2", "--k", "2", "--n", "2", "--d", "2",
                 "--memory", "50"]) == 2
    assert main(["kernel", "no-such", "--memory", "50"]) == 2
    assert main(["kernel", "matmul-tiled", "--m", "2", "--k", "2", "--n", "2",
                 "--literal-blocks", "--memory", "50"]) == 2
    try:
        main(["kernel", "flash-forward-v2", "--n", "0", "--d", "3", "--memory", "50"])
    except SystemExit as exit_:
        assert exit_.code == 2


def test_an_instance_too_large_for_the_machine_is_one_line_exit_2(monkeypatch, capsys):
    """Before, NumPy's MemoryError ended the command as an internal error (exit 4)."""
    import ioverify.trace.kernel as kernel

    def out_of_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 74.5 GiB for an array with shape (100000, 100000)")

    monkeypatch.setattr(kernel, "random_inputs", out_of_memory)
    assert main(["kernel", "matmul-tiled", "--m", "3", "--k", "3", "--n", "3",
                 "--memory", "50"]) == 2
    err = capsys.readouterr().err
    assert "kernel 'matmul-tiled' at m=3, k=3, n=3 does not fit in this machine's memory" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, phrase", [
    # m = k = 10^11 ended in NumPy's ValueError ("array is too big"), exit 4
    (["matmul-tiled", "--m", "99999999999", "--k", "99999999999", "--n", "2", "--memory", "8"],
     "does not fit in this machine's memory: its inputs alone are"),
    # B = 1e200 printed four NumPy warnings, then blamed a negative Taylor polynomial
    # ("reaches nan <= 0") for what is an overflow
    (["polynomial-forward", "--n", "4", "--d", "2", "--memory", "40", "--entry-bound", "1e200"],
     "the feature-map denominator U1 (U2^T 1) overflows float64"),
])
def test_an_instance_past_float64_or_the_machine_is_one_line(capsys, argv, phrase):
    """Regression (found by trying): each case was an internal error or a wrong reason."""
    assert main(["kernel", *argv]) == 2
    err = capsys.readouterr().err
    assert phrase in err and len(err.strip().splitlines()) == 1


def test_an_entry_bound_whose_range_overflows_is_bad_input(capsys):
    """[-B, B] must have a finite width: 1e308 ended in NumPy's OverflowError (exit 4)."""
    assert main(["kernel", "polynomial-forward", "--n", "4", "--d", "2", "--memory", "100",
                 "--entry-bound", "1e308"]) == 2
    assert "--entry-bound must be a positive number at most 8.99e+307" in capsys.readouterr().err
