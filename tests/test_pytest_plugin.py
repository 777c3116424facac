"""The pytest plugin, tested with pytester: claim files become items with readable ids."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ioverify.game import engine
from ioverify.verdict import Bounded, Refuted, Unknown

pytest_plugins = ["pytester"]

# pytester's in-process runs drop the modules they imported when they end.  The compiled search
# is an extension module, which Python never loads twice: dropped and imported again it keeps
# the DAG class of its first import while ``ioverify.dag`` comes back with a new one, and the
# next run's search refuses its own DAG ("dag must be an ioverify DAG, got DAG").  Loading the
# search here, before any run, keeps it and the modules it holds out of every run's snapshot.
engine.search()

CLAIMS = '''
from ioverify.claims.claim import Claim, exact_search

CLAIMS = [
    Claim(id="pyramid-true", title="t", statement="s", source="user", firmness="user",
          variant="recompute",
          obligations=(exact_search("pyramid-true", "pyramid", {"height": 3}, 4, lower_bound=7),)),
    Claim(id="pyramid-false", title="t", statement="s", source="user", firmness="user",
          variant="recompute",
          obligations=(exact_search("pyramid-false", "pyramid", {"height": 3}, 4, lower_bound=8),)),
]
'''


SEEDS = "--ioverify-seed must be an integer from 0 to 4294967295 (Z3's seeds are 32-bit), got"


@pytest.mark.parametrize("option, message", [
    ("--ioverify-budget=0", "--ioverify-budget must be a positive number of seconds, got 0.0"),
    ("--ioverify-budget=-1", "--ioverify-budget must be a positive number of seconds, got -1.0"),
    ("--ioverify-budget=nan", "--ioverify-budget must be a positive number of seconds, got nan"),
    ("--ioverify-budget=inf", "--ioverify-budget must be a positive number of seconds, got inf"),
    ("--ioverify-seed=-1", f"{SEEDS} -1"),
    ("--ioverify-seed=4294967296", f"{SEEDS} 4294967296"),
])
def test_a_bad_option_is_refused_once_at_start_up(pytester, option, message):
    """Regression (found by trying): --ioverify-budget 0 (or negative, or nan) failed every
    item, and --ioverify-seed -1 ran Z3 with 4294967295; now one usage error, nothing run."""
    pytester.makepyfile(my_claims=CLAIMS)
    result = pytester.runpytest("my_claims.py", "-p", "no:cacheprovider", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.errlines if line.strip()] == [f"ERROR: {message}"]
    assert not any(word in line for line in result.outlines for word in ("passed", "failed"))


def test_collects_obligations_with_readable_ids(pytester):
    pytester.makepyfile(my_claims=CLAIMS)
    result = pytester.runpytest("my_claims.py", "--collect-only", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([
        "*my_claims.py::pyramid-true?pyramid(height=3)/M=4/recompute/exact-search?",
        "*my_claims.py::pyramid-false?pyramid(height=3)/M=4/recompute/exact-search?",
    ])


def test_true_passes_false_fails_with_pasteable_counterexample(pytester):
    pytester.makepyfile(my_claims=CLAIMS)
    result = pytester.runpytest("my_claims.py", "-p", "no:cacheprovider", "--ioverify-seed", "1")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*REFUTED: pyramid-false*",
        "*ioverify dag pyramid --height 3 -o dag.json",
        "*cat > schedule.json <<'EOF'",
        "*ioverify replay dag.json schedule.json --memory 4",
    ])


def test_pasted_counterexample_replays(pytester, tmp_path):
    pytester.makepyfile(my_claims=CLAIMS)
    lines = pytester.runpytest("my_claims.py", "-p", "no:cacheprovider").outlines
    start = lines.index("Replay the counterexample:") + 1
    script = "\n".join(lines[start:start + 5]) + "\n"
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "legal and complete" in done.stdout and "= 7 I/O" in done.stdout


def test_solver_marker_selects_items(pytester):
    pytester.makepyfile(my_claims=CLAIMS)
    result = pytester.runpytest("my_claims.py", "-p", "no:cacheprovider", "-m",
                                "not ioverify_solver")
    result.assert_outcomes(deselected=2)


def test_claim_files_are_collected_only_where_configured(pytester):
    """Issue 19: a module defining CLAIMS is collected when named, or inside a folder of the
    ``ioverify_claims`` ini option (default ``proofs``), never just because it exists."""
    pytester.makepyfile(my_claims=CLAIMS)
    assert pytester.runpytest("-p", "no:cacheprovider").ret == 5  # not named, not configured
    pytester.mkdir("proofs")
    (pytester.path / "proofs" / "shipped.py").write_text(CLAIMS)
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*proofs/shipped.py::pyramid-true*"])
    assert "my_claims.py" not in result.stdout.str()
    pytester.makeini("[pytest]\nioverify_claims = elsewhere\n")
    assert pytester.runpytest("-p", "no:cacheprovider").ret == 5


def test_claim_files_in_testpaths_or_an_args_file_are_collected(pytester):
    """A claim file in the ini option ``testpaths`` or in an ``@file`` of arguments is named as
    surely as on the command line; it used to be left out, and ``pytest`` passed with the
    refuted claim never run."""
    pytester.makepyfile(my_claims=CLAIMS)
    pytester.makeini("[pytest]\ntestpaths = my_claims.py\n")
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*my_claims.py::pyramid-false*"])
    pytester.makeini("[pytest]\n")
    (pytester.path / "args.txt").write_text("my_claims.py\n")
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider", "@args.txt")
    result.stdout.fnmatch_lines(["*my_claims.py::pyramid-false*"])


HELPER = '''
from ioverify.claims.claim import Claim, exact_search


def pyramid_claim(claim_id, lower_bound):
    ob = exact_search(claim_id, "pyramid", {"height": 3}, 4, lower_bound=lower_bound)
    return Claim(id=claim_id, title="t", statement="s", source="user", firmness="user",
                 variant="recompute", obligations=(ob,))
'''


def test_claims_built_by_a_helper_or_bound_indented_are_collected(pytester):
    """``ioverify check proofs`` checks a claim file whatever way it binds CLAIMS; pytest used
    to need the text ``ioverify`` and ``CLAIMS =`` at the start of a line, and passed with
    these two refuted claims never run."""
    pytester.makepyfile(claim_helpers=HELPER)
    pytester.syspathinsert()
    pytester.mkdir("proofs")
    (pytester.path / "proofs" / "built.py").write_text(
        "from claim_helpers import pyramid_claim\n\nCLAIMS = [pyramid_claim('built', 8)]\n")
    (pytester.path / "proofs" / "indented.py").write_text(
        "import ioverify.claims\n\nif True:\n"
        "    from claim_helpers import pyramid_claim\n"
        "    CLAIMS = [pyramid_claim('indented', 8)]\n")
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*proofs/built.py::built?pyramid*",
                                 "*proofs/indented.py::indented?pyramid*"])


def test_obligations_with_one_id_are_items_of_their_own(pytester):
    """Two lower bounds on one instance have one obligation id (it does not show a number):
    they used to be two items with one node id, a PASSED and a FAILED line that read alike and
    could only be selected or deselected together."""
    pytester.makepyfile(my_claims=CLAIMS.replace(
        "4, lower_bound=8),)", "4, lower_bound=8),\n"
        "          exact_search('pyramid-false', 'pyramid', {'height': 3}, 4, lower_bound=7))"))
    result = pytester.runpytest("my_claims.py", "--collect-only", "-q", "-p", "no:cacheprovider")
    ids = [line for line in result.outlines if line.startswith("my_claims.py::pyramid-false")]
    assert ids == ["my_claims.py::pyramid-false[pyramid(height=3)/M=4/recompute/exact-search]",
                   "my_claims.py::pyramid-false[pyramid(height=3)/M=4/recompute/exact-search#2]"]
    result = pytester.runpytest(ids[1], "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_claim_file_without_claims_is_unknown(pytester):
    """``CLAIMS = []`` (a filter that kept nothing, say) checks nothing: ``ioverify check``
    says unknown (exit 3); pytest used to collect no item, so ``pytest tests my_claims.py``
    passed.  Now one item fails, or is skipped under ``--ioverify-unknown=skip``."""
    pytester.makepyfile(my_claims="from ioverify.claims import Claim\n\nCLAIMS = []\n",
                        test_other="def test_other():\n    pass\n")
    result = pytester.runpytest("test_other.py", "my_claims.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["UNKNOWN: my_claims.py defines no claims: nothing was checked"])
    result = pytester.runpytest("my_claims.py", "-p", "no:cacheprovider",
                                "--ioverify-unknown=skip")
    result.assert_outcomes(skipped=1)


def test_ordinary_python_files_are_not_claims(pytester):
    pytester.makepyfile(helper="CLAIMS_LIST = []\n", other="x = 1\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == 5  # nothing collected


def test_importing_the_plugin_imports_no_solver():
    code = ("import sys, ioverify.pytest_plugin; "
            "heavy = [m for m in ('z3', 'sympy', 'numpy') if m in sys.modules]; "
            "sys.exit(', '.join(heavy) if heavy else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("budget", ["0", "-1", "nan", "inf"])
def test_a_budget_that_limits_nothing_is_one_usage_error(pytester, budget):
    """``--ioverify-budget 0`` used to fail every search item with a page of pytest's
    traceback each (the search refusing the timeout); now one line before anything runs."""
    pytester.makepyfile(my_claims=CLAIMS)
    result = pytester.runpytest("my_claims.py", "-p", "no:cacheprovider",
                                f"--ioverify-budget={budget}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --ioverify-budget must be a positive number of "
                                 f"seconds, got {float(budget)!r}"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def _pyramid_one_schedule():
    from ioverify.dag import pyramid
    from ioverify.game import Schedule

    dag = pyramid(1)
    (a, b), top = dag.inputs, dag.outputs[0]
    return Schedule.from_moves([("load", a), ("load", b), ("compute", top), ("store", top)])


@pytest.mark.parametrize("make, heading", [
    (lambda s: Refuted(s, s.io, s.io + 1), "Replay the counterexample:"),
    # an optimum above the claimed one: the search's proof refutes, the schedule does not
    (lambda s: Refuted(s, s.io, s.io - 1, reason="the optimum is 3, not 2"),
     "Replay the best schedule found (3 I/O; not a counterexample):"),
    (lambda s: Unknown("timeout", 2, s.io, schedule=s),
     "Replay the best schedule found (3 I/O; not a counterexample):"),
    (lambda s: Bounded(10, 2, s.io, schedule=s),
     "Replay the best schedule found (3 I/O; not a counterexample):"),
], ids=["beats-the-claim", "optimum-above-the-claim", "unknown", "bounded"])
def test_only_a_schedule_that_beats_the_claim_is_called_a_counterexample(make, heading):
    """An unknown's best schedule used to be printed under "Replay the counterexample:", and
    so was the optimal schedule of an optimum refuted for being above the claimed one."""
    from ioverify.claims.claim import exact_search
    from ioverify.pytest_plugin import failure_text

    obligation = exact_search("c", "pyramid", {"height": 1}, 3, lower_bound=4)
    lines = failure_text(obligation, make(_pyramid_one_schedule())).splitlines()
    assert heading in lines
    assert ("Replay the counterexample:" in lines) == heading.startswith("Replay the counterexample")


def test_shipped_claims_are_collected_by_package_name_from_anywhere(pytester):
    """Was: ``pytest --pyargs ioverify.proofs`` outside a clone collected no tests (the shipped
    claims are installed as ioverify.proofs, outside any folder of ``ioverify_claims``).  In a
    subprocess: collecting the shipped claims imports NumPy, which cannot be imported twice in
    one process, and an in-process run drops what it imported when it ends."""
    result = pytester.runpytest_subprocess("--pyargs", "ioverify.proofs", "--collect-only", "-q",
                                "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*hong_kung_calibration.py::reference-optima?*"])
