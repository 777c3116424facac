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


KERNEL = '''
import numpy as np
import sympy as sp

from ioverify.trace.kernel import KernelSpec, blocks, square_plan


def run(mem, a, sizes, blk):
    n, b = sizes["n"], blk["block"]
    for r0, r in blocks(n, b):
        x = mem.load(a["X"], (r0, r0 + r), (0, 1))
        mem.exp(x, out=x)
        mem.store(x, a["Y"], r0, 0)
        mem.free(x)


SPEC = KernelSpec(
    name="elementwise-exp", summary="Y = exp(X), one block of rows at a time", sizes=("n",),
    inputs=lambda s: {"X": (s["n"], 1)}, outputs=lambda s: {"Y": (s["n"], 1)},
    scratch=lambda s: {}, run=run, reference=lambda x: {"Y": np.exp(x["X"])},
    plan=square_plan(("block",), lambda s: s["n"]),
    dry_sizes=lambda s, blk: {"n": min(s["n"], 2 * blk["block"])},
    count=2 * sp.Symbol("n"))
'''

KERNEL_CLAIMS = '''
from ioverify.claims import Claim, kernel

CLAIMS = [Claim("exp-claim", "t", "s", "tests", "user", "kernel", tuple(
    kernel("exp-claim", "elementwise-exp", {"n": n}, 4) for n in (5, 9)))]
'''


@pytest.fixture()
def kernel_plugin(tmp_path):
    """A distribution declaring a kernel as an entry point of group ioverify.kernels."""
    site = tmp_path / "site"
    (site / "exp_kernel").mkdir(parents=True)
    (site / "exp_kernel" / "__init__.py").write_text(KERNEL)
    info = site / "exp_kernel-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: exp-kernel\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ioverify.kernels]\nexp = exp_kernel:SPEC\n")
    return site


def test_an_entry_point_kernel_is_listed_and_runs_certified(kernel_plugin, tmp_path):
    listed = _ioverify(["kernel", "list"], tmp_path, kernel_plugin)
    assert listed.returncode == 0 and "elementwise-exp" in listed.stdout
    done = _ioverify(["kernel", "elementwise-exp", "--n", "10", "--memory", "4", "--json"],
                     tmp_path, kernel_plugin)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert doc["status"] == "verified" and doc["certified"] and doc["io"] == 20 == doc["formula"]


def test_an_entry_point_kernel_reaches_spawned_workers_and_certificate_check(
        kernel_plugin, tmp_path):
    (tmp_path / "claims.py").write_text(KERNEL_CLAIMS)
    done = _ioverify(["check", "claims.py", "--jobs", "2", "--certificates", "certs",
                      "--no-plots"], tmp_path, kernel_plugin)
    assert done.returncode == 0, done.stdout + done.stderr
    certs = sorted(str(p) for p in (tmp_path / "certs").glob("*.json"))
    assert len(certs) == 2
    done = _ioverify(["certificate", "check", "--json", *certs], tmp_path, kernel_plugin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(f["outcome"] == "accepted" for f in json.loads(done.stdout)["files"])
    # Without the package the kernel cannot be re-run: not re-checked (exit 3), naming it.
    done = _ioverify(["certificate", "check", "--json", *certs], tmp_path)
    files = json.loads(done.stdout)["files"]
    assert done.returncode == 3 and all(f["outcome"] == "not re-checked" for f in files)
    assert all("'elementwise-exp' is not installed here" in f["reason"] for f in files)


def test_an_entry_point_kernel_may_not_shadow_a_shipped_one(tmp_path):
    site = tmp_path / "site"
    (site / "shadow").mkdir(parents=True)
    (site / "shadow" / "__init__.py").write_text(
        "from ioverify.kernels.matmul_tiled import SPEC\n")
    info = site / "shadow-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shadow\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ioverify.kernels]\nbad = shadow:SPEC\n")
    done = _ioverify(["kernel", "list"], tmp_path, site)
    assert done.returncode == 2 and "already a kernel" in done.stderr
