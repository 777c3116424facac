"""Entry points (issue 19): a package declares a DAG family in its metadata; spawned ``check``
workers see it, and ``certificate check`` re-checks its certificates without it (on the embedded
DAG, said so)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

FAMILY = '''
from ioverify.dag.model import DAGBuilder
from ioverify.dag.registry import Family, Param


def ladder(rungs: int):
    b = DAGBuilder()
    a, c = b.input("a0"), b.input("b0")
    for i in range(1, rungs + 1):
        a, c = b.op("add", f"a{i}", [a, c]), b.op("mul", f"b{i}", [a, c])
    return b.build()


LADDER = Family("ladder", ladder, (Param("rungs", help="rungs"),), "a ladder of rungs")
'''

CLAIMS = '''
from ioverify.claims import Claim, exact_search

CLAIMS = [Claim("ladder-claim", "t", "s", "tests", "user", "recompute", tuple(
    exact_search("ladder-claim", "ladder", {"rungs": r}, 3) for r in (1, 2)))]
'''


@pytest.fixture()
def plugin(tmp_path):
    """A distribution on a folder of its own, declaring the entry point in its metadata."""
    site = tmp_path / "site"
    (site / "ladder_family").mkdir(parents=True)
    (site / "ladder_family" / "__init__.py").write_text(FAMILY)
    info = site / "ladder_family-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ladder-family\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ioverify.families]\nladder = "
                                           "ladder_family:LADDER\n")
    return site


def _ioverify(args, cwd, site=None):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run([sys.executable, "-m", "ioverify", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_an_entry_point_family_reaches_spawned_workers_and_needs_no_install_to_recheck(
        plugin, tmp_path):
    (tmp_path / "claims.py").write_text(textwrap.dedent(CLAIMS))
    done = _ioverify(["check", "claims.py", "--jobs", "2", "--certificates", "certs",
                      "--no-plots"], tmp_path, plugin)
    assert done.returncode == 0, done.stdout + done.stderr
    certs = sorted(str(p) for p in (tmp_path / "certs").glob("*.json"))
    assert len(certs) == 2
    done = _ioverify(["certificate", "check", "--json", *certs], tmp_path)  # no plugin here
    assert done.returncode == 0, done.stdout + done.stderr
    files = json.loads(done.stdout)["files"]
    assert all(f["outcome"] == "accepted" for f in files)
    assert all(any("not installed here" in n for n in f["not_rederived"]) for f in files)


def test_a_broken_entry_point_is_one_line_naming_it(tmp_path):
    site = tmp_path / "site"
    info = site / "broken-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ioverify.families]\nbad = no_such_module:X\n")
    done = _ioverify(["dag", "pyramid", "--height", "2"], tmp_path, site)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "entry point 'bad'" in done.stderr
