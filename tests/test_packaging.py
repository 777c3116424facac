"""What an installed ioverify does without its optional extras or a clone of the repository,
and what its source distribution carries (found by installing it as a new user would)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

from ioverify.cli import main
from ioverify.dag import matmul
from ioverify.dag.jsonio import dag_to_json

ROOT = Path(__file__).resolve().parent.parent


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


@pytest.fixture
def no_matplotlib(monkeypatch):
    from ioverify.report import plots

    monkeypatch.setattr(plots, "available", lambda: False)


def test_a_curve_plot_without_matplotlib_is_refused_before_the_curve(tmp_path, capsys,
                                                                     no_matplotlib):
    """Was: the curve computed, then 'internal error: ModuleNotFoundError' and exit 4."""
    dag = tmp_path / "mm.json"
    dag.write_text(dag_to_json(matmul(2, 2, 2)))
    code = main(["pebble", str(dag), "--memory", "4..5", "--plot", str(tmp_path / "c.png")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "pip install 'ioverify[docs]'" in _one_line(err)
    assert not (tmp_path / "c.png").exists()


def test_performance_plots_without_matplotlib_are_refused(tmp_path, capsys, no_matplotlib):
    """Was: 'internal error: ModuleNotFoundError' and exit 4."""
    assert main(["docs", "--performance-plots", "--docs", str(tmp_path / "docs")]) == 2
    assert "pip install 'ioverify[docs]'" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "docs").exists()


def test_performance_plots_without_recorded_results_leave_no_folder(tmp_path, capsys,
                                                                    monkeypatch):
    """Was: docs/img made, then the missing results refused (a folder left behind)."""
    from ioverify.report import plots

    monkeypatch.setattr(plots, "available", lambda: True)  # whether or not the extra is here
    assert main(["docs", "--performance-plots", "--docs", str(tmp_path / "docs")]) == 2
    assert "cannot be read" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "docs").exists()


def test_bench_peer_without_the_cpsat_extra_says_so_on_stderr(capsys, monkeypatch):
    """Was: the line on stdout, as a note of the suite's table."""
    from ioverify.search import cpsat

    monkeypatch.setattr(cpsat, "available", lambda: False)
    assert main(["bench", "peer", "--quick"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "pip install 'ioverify[cpsat]'" in _one_line(err)


def test_docs_outside_a_clone_says_it_needs_one(tmp_path, capsys, monkeypatch):
    """Was: 'no certificate docs/claims/certificates/...: run `ioverify check --certificates
    docs/claims/certificates`', ten minutes of work that could not have helped."""
    monkeypatch.chdir(tmp_path)
    assert main(["docs", "--check"]) == 2
    assert "a clone of the repository" in _one_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


def test_strategies_without_hypothesis_name_the_extra(monkeypatch):
    """Was: ModuleNotFoundError: No module named 'hypothesis'."""
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # import hypothesis fails
    monkeypatch.delitem(sys.modules, "ioverify.strategies", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'ioverify\[test\]'"):
        importlib.import_module("ioverify.strategies")


def _manifest_files(monkeypatch) -> set[str]:
    """The files MANIFEST.in puts into the sdist besides what setuptools adds by itself."""
    from setuptools._distutils.filelist import FileList

    monkeypatch.chdir(ROOT)  # the template's paths are relative to the project's top
    files = FileList()
    files.findall()
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    return {str(Path(f)) for f in files.files}


def test_the_sdist_carries_what_the_tests_read_and_the_license(monkeypatch):
    """Was: no MANIFEST.in: the sdist had tests/test_*.py without conftest.py and the tests'
    helpers, none of docs/ the tests read, and no license text."""
    included = _manifest_files(monkeypatch)
    needed = {"LICENSE", "mkdocs.yml", ".ci/run", "docs/claims/index.md"}
    needed |= {str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("*.py")}
    assert needed <= included, sorted(needed - included)
    assert not any("__pycache__" in f or f.endswith(".pyc") for f in included)


@pytest.mark.parametrize("pure, copy", [("1", "python"), ("", None)])
def test_version_says_which_copy_of_the_search_runs(pure, copy, capsys, monkeypatch):
    """Was: 'ioverify 0.1.0' alone, while a build without a C compiler falls back to Python
    with nothing said outside pip's verbose log."""
    from ioverify.game import engine

    monkeypatch.setenv(engine.PURE_VARIABLE, pure)
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.endswith(f"(search: {copy or engine.which()})\n")


def _setup_module():
    spec = importlib.util.spec_from_file_location("ioverify_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not as __main__: setup() is not called
    return module


def test_only_a_build_translates_the_search(monkeypatch):
    """Was: mypyc translated the search each time setuptools ran setup.py, three times in a
    pip install (requirements, metadata, wheel): about 80 s instead of about 50."""
    import types

    calls = []
    fake = types.ModuleType("mypyc.build")
    fake.mypycify = lambda *args, **kwargs: calls.append(args) or []
    monkeypatch.setitem(sys.modules, "mypyc", types.ModuleType("mypyc"))
    monkeypatch.setitem(sys.modules, "mypyc.build", fake)
    monkeypatch.delenv("IOVERIFY_PURE", raising=False)
    setup = _setup_module()
    for argv in (["egg_info"], ["dist_info", "--output-dir", "x"], ["sdist"]):
        assert setup.compiled_search(argv) == [] and calls == []
    setup.compiled_search(["bdist_wheel", "--dist-dir", "x"])
    assert len(calls) == 1
    assert not (ROOT / setup.COPY).exists()


def test_to_networkx_without_networkx_names_the_extra(monkeypatch):
    """Was: ModuleNotFoundError: No module named 'networkx' (it is no dependency of ioverify)."""
    from ioverify.dag.jsonio import to_networkx

    monkeypatch.setitem(sys.modules, "networkx", None)
    with pytest.raises(ImportError, match=r"pip install 'ioverify\[test\]'"):
        to_networkx(matmul(1, 1, 1))
