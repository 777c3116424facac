"""The pytest plugin, tested with pytester: claim files become items with readable ids."""

from __future__ import annotations

import subprocess
import sys

pytest_plugins = ["pytester"]

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


def test_shipped_claims_are_collected_by_package_name_from_anywhere(pytester):
    """Was: ``pytest --pyargs ioverify.proofs`` outside a clone collected no tests (the shipped
    claims are installed as ioverify.proofs, outside any folder of ``ioverify_claims``)."""
    result = pytester.runpytest("--pyargs", "ioverify.proofs", "--collect-only", "-q",
                                "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*hong_kung_calibration.py::reference-optima?*"])
