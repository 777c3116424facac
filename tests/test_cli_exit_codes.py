"""One table, command x outcome -> exit code, for every command (``ioverify.errors.EXIT_CODES``).

0 proved, 1 refuted or rejected, 2 bad input, 3 unknown / bounded / infeasible (nothing was
checked), 4 a bug in ioverify; 130 and 143 for SIGINT and SIGTERM.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import textwrap

import pytest

from ioverify.cli import main
from ioverify.dag import attention_forward, matmul, pyramid
from ioverify.dag.jsonio import dag_to_json
from ioverify.errors import EXIT_CODES, exit_code_of, worst_exit


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("exit-codes")
    paths = {"pyramid": folder / "pyramid.json", "matmul": folder / "mm.json",
             "attention": folder / "attention.json",
             "not-json": folder / "bad.json", "schedule": folder / "s.json",
             "claims-refuted": folder / "refuted_claims.py",
             "claims-infeasible": folder / "infeasible_claims.py",
             "claims-verified": folder / "verified_claims.py",
             "claims-at-most": folder / "at_most_claims.py", "out": folder}
    paths["pyramid"].write_text(dag_to_json(pyramid(2)))
    paths["matmul"].write_text(dag_to_json(matmul(2, 2, 2)))
    paths["attention"].write_text(dag_to_json(attention_forward(2, 2)))
    paths["not-json"].write_text("{ not json")
    assert main(["pebble", str(paths["pyramid"]), "-M", "3", "--schedule-out",
                 str(paths["schedule"])]) == 0
    for name, memory, bound in (("refuted", 3, 99), ("infeasible", 1, None),
                                ("verified", 3, 1)):
        paths[f"claims-{name}"].write_text(_claim_file(memory, bound))
    paths["claims-at-most"].write_text(textwrap.dedent("""
        from ioverify.claims.claim import Claim, partition
        CLAIMS = [Claim("optimum-2", "matmul(2,2,2) costs 2 at M = 3", "a wrong figure", "tests",
                        "user", "recompute", (partition("optimum-2", "matmul",
                        {"m": 2, "k": 2, "n": 2}, 3, at_most=2),))]
        """))
    return paths


def _claim_file(memory: int, bound: int | None) -> str:
    return textwrap.dedent(f"""
        from ioverify.claims.claim import Claim, exact_search
        CLAIMS = [Claim("tiny", "a tiny claim", "pyramid(2) needs I/O", "tests", "user",
                        "recompute", (exact_search("tiny", "pyramid", {{"height": 2}}, {memory},
                                                   lower_bound={bound!r}),))]
        """)


def _check(files, name):
    out = files["out"] / name
    return ["check", str(files[f"claims-{name}"]), "--jobs", "1", "--certificates",
            str(out / "certs"), "--docs", str(out / "pages")]


# (command, outcome, argv built from the fixture's files, expected exit code)
TABLE = [
    ("pebble", "optimal", lambda f: ["pebble", f["pyramid"], "-M", "3"], 0),
    ("pebble", "verified", lambda f: ["pebble", f["pyramid"], "-M", "3",
                                      "--claim-lower-bound", "3"], 0),
    ("pebble", "refuted", lambda f: ["pebble", f["pyramid"], "-M", "3",
                                     "--claim-lower-bound", "99"], 1),
    ("pebble", "verified", lambda f: ["pebble", f["pyramid"], "-M", "3",
                                                "--claim-upper-end", "99"], 0),
    ("pebble", "refuted", lambda f: ["pebble", f["pyramid"], "-M", "3",
                                               "--claim-upper-end", "0"], 1),
    ("pebble", "usage", lambda f: [
        "pebble", f["pyramid"], "-M", "3", "--claim-upper-end", "9", "--claim-lower-bound", "3"],
     2),
    ("pebble", "usage", lambda f: ["pebble", f["pyramid"], "-M", "3..4",
                                                  "--claim-upper-end", "9"], 2),
    ("pebble", "infeasible", lambda f: ["pebble", f["pyramid"], "-M", "1"], 3),
    ("pebble", "unknown", lambda f: ["pebble", f["attention"], "-M", "3", "--timeout", "0.2"],
     3),
    ("pebble", "malformed", lambda f: ["pebble", f["not-json"], "-M", "3"], 2),
    ("pebble", "usage", lambda f: ["pebble", f["pyramid"]], 2),
    ("replay", "legal", lambda f: ["replay", f["pyramid"], f["schedule"], "-M", "3"], 0),
    ("replay", "illegal", lambda f: ["replay", f["pyramid"], f["schedule"], "-M", "2"], 1),
    ("replay", "malformed", lambda f: ["replay", f["pyramid"], f["not-json"], "-M", "3"], 2),
    ("partition", "verified", lambda f: ["partition", f["pyramid"], "-M", "3"], 0),
    ("partition", "infeasible", lambda f: ["partition", f["pyramid"], "-M", "1"], 3),
    ("kernel", "certified", lambda f: ["kernel", "matmul-tiled", "--m", "4", "--k", "4",
                                       "--n", "4", "-M", "16"], 0),
    ("kernel", "not certified", lambda f: ["kernel", "flash-forward-v1", "--n", "64",
                                           "--d", "8", "-M", "64", "--literal-blocks"], 1),
    ("kernel", "malformed", lambda f: ["kernel", "no-such-kernel", "-M", "16"], 2),
    ("bounds facts", "proved", lambda f: ["bounds", "facts", "--only",
                                          "crossover/saha-ye-thm3.1"], 0),
    ("bounds facts", "malformed", lambda f: ["bounds", "facts", "--only", "no-such-fact"], 2),
    ("dag info", "valid", lambda f: ["dag", "info", f["pyramid"]], 0),
    ("dag info", "malformed", lambda f: ["dag", "info", f["not-json"]], 2),
    ("check", "verified", lambda f: _check(f, "verified"), 0),
    ("check", "refuted", lambda f: _check(f, "refuted"), 1),
    ("check", "infeasible", lambda f: _check(f, "infeasible"), 3),
    # the proved partition bound 3 exceeds the user's figure 2: the user's claim is refuted
    ("check", "refuted", lambda f: _check(f, "at-most"), 1),
    ("certificate check", "malformed", lambda f: ["certificate", "check", f["not-json"]], 2),
]


def _exit_of(argv: list[str]) -> int:
    """The code ``ioverify ARGV`` exits with (argparse's usage errors exit by SystemExit)."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code


@pytest.mark.parametrize("command, outcome, argv, code", TABLE,
                         ids=[f"{c}-{o}" for c, o, _, _ in TABLE])
def test_exit_code_table(files, capsys, command, outcome, argv, code):
    assert _exit_of([str(a) for a in argv(files)]) == code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("command, outcome, argv, code",
                         [row for row in TABLE if row[3] != 2 and row[0] != "dag info"],
                         ids=[f"{c}-{o}" for c, o, _, k in TABLE if k != 2 and c != "dag info"])
def test_every_json_answer_carries_its_status(files, capsys, command, outcome, argv, code):
    """Issue 13: one verdict vocabulary; every ``--json`` result says ``status``, and the
    status's exit code is the command's."""
    assert _exit_of([str(a) for a in argv(files)] + ["--json"]) == code
    doc = json.loads(capsys.readouterr().out)
    assert exit_code_of(doc["status"]) == code


def test_table_outcomes_agree_with_the_one_table():
    """Every outcome the table above exercises is named in EXIT_CODES with the same code
    (usage errors are argparse's, exit 2 too)."""
    for _, outcome, _, code in TABLE:
        if outcome != "usage":
            assert exit_code_of(outcome) == code, outcome


def test_infeasible_is_nothing_checked_everywhere():
    assert EXIT_CODES["infeasible"] == EXIT_CODES["unknown"] == 3


def test_worst_exit_orders_bug_refuted_bad_input_unknown_ok():
    assert worst_exit([0, 3, 2, 1]) == 1
    assert worst_exit([0, 3, 2]) == 2
    assert worst_exit([0, 3]) == 3
    assert worst_exit([4, 1]) == 4
    assert worst_exit([]) == 0


def test_unexpected_exception_is_one_line_exit_4(files, capsys, monkeypatch):
    """A bug is exit 4 with one line naming the command, never a traceback and never exit 1
    (which would read as "refuted"); --debug shows the traceback."""
    replay_module = importlib.import_module("ioverify.game.replay")

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(replay_module, "replay", broken)
    argv = ["replay", str(files["pyramid"]), str(files["schedule"]), "-M", "3"]
    assert main(argv) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "ioverify replay: internal error: ZeroDivisionError: a bug" in err
    with pytest.raises(ZeroDivisionError):
        main(["--debug", *argv])


@pytest.mark.parametrize("argv", [["bounds"], ["dag", "binary-tree", "--leaves", "4096"]],
                         ids=["bounds-list", "big-dag"])
def test_closed_pipe_ends_quietly(argv):
    """``ioverify bounds | head -1``: the reader goes away; no BrokenPipeError, exit 0."""
    proc = subprocess.Popen([sys.executable, "-m", "ioverify", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert err == ""


@pytest.mark.parametrize("argv, code", [(["dag", "matmul", "--m", "2", "--k", "2", "--n", "2"], 0),
                                        (["bounds", "eval", "saha-ye-thm3.1", "--n", "4"], 2)],
                         ids=["dag-to-stdout", "bad-input"])
def test_closed_stdout_keeps_the_exit_code(argv, code):
    """``ioverify dag matmul ... >&-``: stdout closed from the start; the output goes nowhere
    and the exit code is the command's, not an internal error (4)."""
    import os

    proc = subprocess.run([sys.executable, "-m", "ioverify", *argv], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1), timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == code, err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("content", [None, "CLAIMS = []\n"], ids=["empty-folder", "no-claims"])
def test_check_with_no_claims_writes_nothing(tmp_path, monkeypatch, capsys, content):
    """``ioverify check FOLDER`` on a folder without claims: nothing checked (exit 3), and
    nothing written; it used to leave an empty certificates folder and claim pages behind."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims").mkdir()
    if content is not None:
        (tmp_path / "claims" / "mine.py").write_text(content)
    assert main(["check", "claims"]) == 3
    assert "no claims in 'claims': nothing was checked" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims"]
    assert main(["check", "claims", "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["status"] == "unknown"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims"]


def test_wrong_at_most_is_a_refutation_with_its_certificate(files, capsys):
    """A partition claim whose ``at_most`` is below the proved bound is the user's error: a
    refutation (exit 1) with its certificate, not an internal error (exit 4)."""
    assert _exit_of(_check(files, "at-most")) == 1
    docs = [json.loads(p.read_text())
            for p in (files["out"] / "at-most" / "certs").glob("*.json")]
    assert [d["verdict"]["status"] for d in docs] == ["refuted"]
    assert "exceeds the claimed optimum 2" in docs[0]["verdict"]["reason"]


def test_certificate_written_for_infeasible_claim_says_so(files):
    folder = files["out"] / "infeasible" / "certs"
    docs = [json.loads(p.read_text()) for p in folder.glob("*.json")]
    assert docs and all(d["verdict"]["status"] == "infeasible" for d in docs)


def test_the_parser_knows_every_bound_parameter_without_sympy():
    from ioverify.bounds.symbols import BY_NAME
    from ioverify.cli.bounds_cmd import PARAMETER_NAMES

    assert list(PARAMETER_NAMES) == list(BY_NAME)


@pytest.mark.parametrize("argv", [["--version"], ["--help"], []])
def test_version_and_help_run_without_solvers_sympy_or_registries(argv):
    """``ioverify --version`` and ``--help`` as a user runs them: no SymPy, Z3, PySAT or NumPy,
    and not the installed entry points (startup is measured in docs/performance.md)."""
    code = ("import sys\nfrom ioverify.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('sympy', 'z3', 'pysat', 'numpy', 'ioverify.dag.registry',"
            " 'importlib.metadata') if m in sys.modules]\nassert not heavy, heavy\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "ioverify" in run.stdout


def test_the_summaries_listed_at_startup_are_the_commands_own_help():
    from ioverify.cli import SUMMARIES, build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {c.dest: c.help for c in sub._choices_actions} == SUMMARIES


def test_a_command_registers_only_itself_and_a_typo_lists_every_command(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["pebbel", "x"])
    assert stop.value.code == 2 and "invalid choice: 'pebbel'" in capsys.readouterr().err


def test_version_and_help_load_no_solver_or_sympy():
    code = ("import sys\nfrom ioverify.cli import build_parser\nbuild_parser()\n"
            "heavy = [m for m in ('sympy', 'z3', 'pysat', 'numpy') if m in sys.modules]\n"
            "assert not heavy, heavy\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_bounds_list_is_the_listing(capsys):
    assert main(["bounds", "list"]) == 0
    listed = capsys.readouterr().out
    assert main(["bounds"]) == 0
    assert capsys.readouterr().out == listed and "saha-ye-thm3.1" in listed


def test_a_vacuous_verification_says_so(files, capsys):
    assert main(["pebble", str(files["pyramid"]), "-M", "3", "--claim-lower-bound", "0"]) == 0
    assert "vacuous" in capsys.readouterr().out
    assert main(["pebble", str(files["pyramid"]), "-M", "3", "--claim-lower-bound", "5"]) == 0
    assert "vacuous" not in capsys.readouterr().out


def test_schedule_out_writes_the_best_schedule_of_an_open_verdict(files, tmp_path, capsys):
    """Issue 19: an unknown verdict with an upper end found a schedule: --schedule-out writes it
    (after the verdict), and it replays at that upper end."""
    out = tmp_path / "best.json"
    # attention_forward(2,2) at M = 3 in recompute takes a minute: open after 0.2 s on any
    # machine (matmul(2,2,2), used before, is settled within 0.05 s on a fast one).
    argv = ["pebble", str(files["attention"]), "-M", "3", "--timeout", "0.2", "--json",
            "--schedule-out", str(out)]
    assert _exit_of(argv) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "unknown" and doc["schedule"] is not None and out.is_file()
    assert main(["replay", str(files["attention"]), str(out), "-M", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["io"] == doc["upper_bound"]


def test_running_out_of_memory_is_unknown_with_the_bracket_reached(files, capsys,
                                                                   monkeypatch):
    """Issue 19: exhausting the memory budget is a limit like the clock: unknown (exit 3) with
    the bounds found so far, never a crash; partition likewise."""
    import ioverify.search.pebbling as pebbling
    import ioverify.search.partition as partition

    def exhausted(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(pebbling, "_recompute_route", exhausted)
    monkeypatch.setattr(pebbling, "_one_shot_route", exhausted)
    assert _exit_of(["pebble", str(files["matmul"]), "-M", "3", "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "unknown" and "memory" in doc["reason"]
    assert doc["upper_bound"] is not None and doc["schedule"] is not None
    monkeypatch.setattr(partition, "search_partition", exhausted)
    monkeypatch.setattr("ioverify.search.partition.search_partition", exhausted)
    assert _exit_of(["partition", str(files["matmul"]), "-M", "3"]) == 3
    assert "ran out of memory" in capsys.readouterr().out


def test_max_memory_caps_the_process_and_tells_z3(monkeypatch):
    import os
    import resource

    from ioverify.cli.common import apply_memory_budget

    before = resource.getrlimit(resource.RLIMIT_AS)
    monkeypatch.delenv("IOVERIFY_MAX_MEMORY_MB", raising=False)
    try:
        assert apply_memory_budget(20_000) == 20_000
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == 20_000 * 2**20
        assert os.environ["IOVERIFY_MAX_MEMORY_MB"] == "20000"
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


@pytest.mark.parametrize("command", ["pebble", "partition", "check"])
def test_a_memory_budget_too_small_to_load_the_solvers_is_bad_input(command, capsys):
    """Below about 300 MiB the command failed while importing its solvers: an internal error
    instead of the 'unknown' the budget promises."""
    argv = [command] + (["missing.json", "-M", "3"] if command != "check" else [])
    assert _exit_of(argv + ["--max-memory", "200"]) == 2
    err = capsys.readouterr().err
    assert "--max-memory: 200 MiB is too little: at least 512" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["pebble", "partition", "check"])
def test_a_memory_budget_past_any_address_space_is_bad_input(command, capsys):
    """Regression (found by trying): 10^17 MiB ended in an internal error, setrlimit's
    OverflowError."""
    argv = [command] + (["missing.json", "-M", "3"] if command != "check" else [])
    assert _exit_of(argv + ["--max-memory", "99999999999999999"]) == 2
    err = capsys.readouterr().err
    assert "99999999999999999 MiB is more than any address space: at most 8796093022207" in err
    assert len(err.strip().splitlines()) == 1


def test_the_largest_memory_budget_leaves_z3_working():
    """Regression: the largest budget gave Z3 a memory_max_size it crashed on (a segmentation
    fault at 2^32 - 1 MiB); it is capped at 2^31 - 1."""
    import os
    import subprocess
    import sys

    code = ("from ioverify.solve.query import z3; z3 = z3(); x = z3.Int('x'); "
            "s = z3.Solver(); s.add(x * x == 4); print(s.check())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "IOVERIFY_MAX_MEMORY_MB": "8796093022207"},
                          timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "sat"), done.stderr
    assert "invalid value" not in done.stderr


@pytest.mark.parametrize("option, what", [("--certificates", "certificates"),
                                          ("--docs", "the claim pages")])
def test_check_refuses_a_file_for_its_output_folders_before_it_works(tmp_path, monkeypatch,
                                                                     capsys, option, what):
    """Before: FileExistsError (exit 4) for --certificates; for --docs the same after every
    obligation had run."""
    import ioverify.claims.check as check

    ran = []
    monkeypatch.setattr(check, "check_claims", lambda *a, **k: ran.append(a))
    (tmp_path / "file").write_text("")
    assert _exit_of(["check", option, str(tmp_path / "file"), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {what} into" in err and "it is a file, not a folder" in err
    assert not ran and len(err.strip().splitlines()) == 1


# --- found by trying as a new user (2026-12-01) -------------------------------------------------

def _mm_dag(tmp_path):
    path = tmp_path / "mm.json"
    assert main(["dag", "matmul", "--m", "2", "--k", "2", "--n", "2", "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("argv, phrase", [
    (["kernel", "polynomial-forward", "--n", "16", "--d", "64", "--memory", "200", "--degree",
      "20"], "features per row, more than the 100,000 the traced kernel lists"),
    (["bounds", "eval", "saha-ye-thm3.1", "--n", "1e5000", "--d", "2", "--memory", "4"],
     "is not a number of at most 1000 digits"),
    (["pebble", "{dag}", "-M", "3..5000", "--timeout", "5"],
     "has 4998 values of M, more than the 256 a curve takes"),
    (["pebble", "{dag}", "-M", "3..4", "--proof", "pr"],
     "--proof applies to a single M and variant only"),
    (["pebble", "{dag}", "-M", "3..4", "--certificates", "{dag}/c"], "is a file, not a folder"),
    (["pebble", "{dag}", "-M", "4", "--proof", "{dag}/p"], "is a file, not a folder"),
    (["docs", "--docs", "{dag}/d", "--only", "bounds.md"], "is a file, not a folder"),
])
def test_odd_input_a_new_user_tried_is_one_line(tmp_path, monkeypatch, capsys, argv, phrase):
    """Regression (found by trying): each of these was a runaway (12 GB for the kernel's
    features, minutes past --timeout for the range), an internal error (1e5000; folders under
    a file), or an option silently ignored (--proof on a curve)."""
    monkeypatch.chdir(tmp_path)
    dag = str(_mm_dag(tmp_path))
    assert _exit_of([a.replace("{dag}", dag) for a in argv]) == 2
    err = capsys.readouterr().err
    assert phrase in err and len(err.strip().splitlines()) == 1


def test_a_timeout_past_what_a_thread_waits_is_not_an_internal_error(tmp_path, capsys):
    """Regression (found by trying): --timeout 1e10 ended in OverflowError (a thread's join)."""
    dag = str(_mm_dag(tmp_path))
    assert main(["pebble", dag, "-M", "4", "--timeout", "1e10"]) == 0
    assert capsys.readouterr().out.startswith("optimal")


def test_bounds_eval_json_of_a_lower_bound(capsys):
    """Regression (found by trying): --json failed on a SymPy boolean (exit 4)."""
    assert main(["bounds", "eval", "attention-forward-explicit-large", "--n", "1024", "--d",
                 "64", "--memory", "16384", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["vacuous"] is False


def test_a_claim_file_that_exits_while_loading_is_bad_input(tmp_path, capsys):
    """Regression (found by trying): raise SystemExit(0) in a claim file made `check` exit 0,
    which reads "all verified", with nothing checked."""
    claims = tmp_path / "exits.py"
    claims.write_text("raise SystemExit(0)\n")
    assert main(["check", str(claims), "--certificates", str(tmp_path / "c"), "--docs",
                 str(tmp_path / "p"), "-q"]) == 2
    assert "the file exits while it is loaded" in capsys.readouterr().err


def test_a_scheduler_without_a_port_is_bad_input(tmp_path, capsys):
    """Regression (found by trying): Dask's ValueError ("missing port number") was exit 4."""
    pytest.importorskip("distributed")
    dag = str(_mm_dag(tmp_path))
    assert main(["pebble", dag, "-M", "3..4", "--scheduler", "nonsense"]) == 2
    assert "is not a scheduler address (tcp://HOST:PORT)" in capsys.readouterr().err


# --- found by trying as a new user, second round (2026-12-01) ------------------------------------

@pytest.mark.parametrize("argv", [
    ["bounds", "--json", "list"],
    ["bounds", "--json", "show", "hong-kung-partition"],
    ["bounds", "--json", "eval", "hong-kung-partition", "--memory", "3", "--P", "4"],
])
def test_bounds_json_before_the_action_is_json(capsys, argv):
    """Regression (found by trying): ``bounds --json show ID`` printed text, the action's own
    --json default overwriting the group's; only ``bounds show ID --json`` printed JSON."""
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("argv", [["certificate", "--json", "check", "c.json"],
                                  ["dag", "--json", "info", "d.json"]])
def test_json_before_an_action_of_a_group_without_it_is_refused(capsys, argv):
    """A group that has no --json of its own refuses it before the action, in one line."""
    assert _exit_of(argv) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --json" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, phrase", [
    (["dag", "sparse-forward", "--n", "3", "--d", "1", "--mask", "causal", "--density", "0.2"],
     "dag sparse-forward: --density applies only with --mask random, not --mask causal"),
    (["dag", "sparse-backward", "--n", "3", "--d", "1", "--seed", "4"],
     "--seed applies only with --mask random, not --mask causal (the default)"),
    (["dag", "sparse-forward", "--n", "3", "--d", "1", "--mask", "full", "--seed", "4"],
     "--seed applies only with --mask random, not --mask full"),
    (["kernel", "block-sparse-forward", "--n", "8", "--d", "2", "-M", "200", "--density", "0.3"],
     "--density applies only with --mask random, not --mask causal (the default)"),
    (["kernel", "block-sparse-backward", "--n", "8", "--d", "2", "-M", "200", "--mask",
      "banded", "--density", "1"], "--density applies only with --mask random, not --mask banded"),
    (["kernel", "list", "--n", "8"], "kernel list runs no kernel: --n applies to a run"),
    (["kernel", "list", "--seed", "3"], "kernel list runs no kernel: --seed applies to a run"),
    (["kernel", "list", "--literal-blocks"], "--literal-blocks applies to a run"),
])
def test_an_option_another_option_leaves_unused_is_refused(capsys, argv, phrase):
    """Regression (found by trying): --density (and --seed) with a mask that does not read
    them, and any option of a run with ``kernel list``, were ignored without a word."""
    assert _exit_of(argv) == 2
    err = capsys.readouterr().err
    assert phrase in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv", [
    ["dag", "sparse-forward", "--n", "3", "--d", "1", "--mask", "random", "--density", "0.2",
     "--seed", "4"],
    ["kernel", "block-sparse-forward", "--n", "8", "--d", "2", "-M", "200", "--mask", "random",
     "--density", "0.3"],
])
def test_an_option_its_mask_reads_is_taken(capsys, argv):
    assert main(argv) == 0


@pytest.mark.parametrize("command", ["partition", "check"])
@pytest.mark.parametrize("seed", ["-1", "4294967296"])
def test_a_seed_z3_would_wrap_is_refused(tmp_path, capsys, command, seed):
    """Regression (found by trying): Z3's seed is 32-bit, so --seed 4294967296 ran as 0 and
    --seed -1 as 4294967295, while the answer recorded the seed as given."""
    dag = str(_mm_dag(tmp_path))
    argv = {"partition": ["partition", dag, "-M", "4"], "check": ["check", str(tmp_path)]}
    assert _exit_of([*argv[command], "--seed", seed]) == 2
    err = capsys.readouterr().err
    assert "expected an integer from 0 to 4294967295" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("seed", [-1, 2**32, True])
def test_a_query_refuses_a_seed_z3_would_wrap(seed):
    from ioverify.errors import InvalidArgument
    from ioverify.solve.query import Query

    with pytest.raises(InvalidArgument, match="seed must be an integer from 0 to 4294967295"):
        Query(seed=seed)


def test_a_certificate_folder_the_system_refuses_after_the_check_is_one_line(
        tmp_path, capsys, monkeypatch):
    """Regression (found by trying, as root: ``--certificates /proc/nope`` passes the check
    before the work, and making the folder fails after it): an internal error before, now one
    line and exit 2."""
    import errno
    import pathlib

    dag, target = str(_mm_dag(tmp_path)), tmp_path / "certs"
    real = pathlib.Path.mkdir

    def refused(self, *args, **kwargs):
        if self == target:
            raise OSError(errno.ENOENT, "No such file or directory")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "mkdir", refused)
    capsys.readouterr()
    assert main(["pebble", dag, "-M", "4..5", "-j", "1", "--certificates", str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot write certificates into" in err and "No such file or directory" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("argv, message", [
    (["dag", "matmul", "--m", "1", "--k", "1", "--n", "1", "-o", ""],
     "cannot write to an empty path"),  # before: "cannot write '': it is a folder"
    (["dag", "sparse-forward", "--n", "3", "--d", "1", "--mask", "random", "--density", "0.5",
      "--seed", "-1"], "--seed: expected an integer >= 0, got -1"),  # "invalid non_negative_int"
])
def test_a_bad_value_is_named_plainly(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err
