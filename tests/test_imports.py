"""The trusted base stays small and solver-free: a walk over every ``import`` in every file
(function-local ones included) shows what a "verified" can depend on.

The trusted base is the code a certified answer relies on (docs/explanation/verified.md): the DAG
model and its reader, the game rules and the replayer, the exhaustive search the re-checker
re-runs, the S-partition checker, the trace certifier, the kernels it runs, and the certificate
re-checker.  None of it may reach a solver, a search, the claim runner or the CLI, even through
an import hidden inside a function.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ioverify", "kernels")

TRUSTED_BASE = (
    "ioverify.dag.model",
    "ioverify.dag.jsonio",
    "ioverify.dag.registry",
    "ioverify.game.rules",
    "ioverify.game.replay",
    "ioverify.game.exhaustive",
    "ioverify.game.partition",
    "ioverify.trace.ops",
    "ioverify.trace.memory",
    "ioverify.trace.certify",
    "ioverify.trace.lower",
    "kernels",
    "ioverify.certificate.format",
    "ioverify.certificate.recheck",
)

# What the trusted base must never reach: solvers, the searches and encodings that drive them,
# the claim runner, and everything above it.
FORBIDDEN = ("z3", "pysat", "ioverify.solve.query", "ioverify.encode", "ioverify.search.pebbling",
             "ioverify.search.partition", "ioverify.claims.run", "ioverify.claims.claim",
             "ioverify.claims.check", "ioverify.report.claims", "ioverify.report.plots", "ioverify.cli",
             "ioverify.bench", "ioverify.encode.arithmetic")

# Edges the walk does not follow, each with the reason it is not part of the trusted base.
# A symbolic certificate is re-proved by the fact prover, which may use Z3's arithmetic: such a
# re-check relies on Z3 and says so (it is "not re-checked" when Z3 is missing).
OUTSIDE_THE_BASE = {
    ("ioverify.certificate.recheck", "ioverify.bounds.facts"):
        "symbolic facts are re-proved by the fact prover (SymPy and Z3), outside the base",
}


def _module_files() -> dict[str, Path]:
    files = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


MODULES = _module_files()


@lru_cache(maxsize=None)
def imports_of(module: str) -> frozenset[str]:
    """Every module ``module`` imports anywhere in its file (top level or inside a function)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES)
    return frozenset(found)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def _with_parents(module: str) -> list[str]:
    """Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` too."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def reach(start: str) -> dict[str, str]:
    """Every module reachable from ``start``, mapped to the module that imported it."""
    parent = {start: ""}
    stack = [start]
    while stack:
        module = stack.pop()
        if module not in MODULES:
            continue
        for imported in imports_of(module):
            for target in _with_parents(imported):
                if target not in parent and (module, target) not in OUTSIDE_THE_BASE:
                    parent[target] = module
                    stack.append(target)
    return parent


def _path(parent: dict[str, str], module: str) -> str:
    chain = [module]
    while parent.get(chain[-1]):
        chain.append(parent[chain[-1]])
    return " <- ".join(chain)


def _forbidden(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FORBIDDEN)


def test_every_trusted_module_exists():
    assert set(TRUSTED_BASE) <= set(MODULES), set(TRUSTED_BASE) - set(MODULES)


@pytest.mark.parametrize("module", TRUSTED_BASE)
def test_trusted_base_reaches_no_solver_search_runner_or_cli(module):
    parent = reach(module)
    bad = sorted(m for m in parent if _forbidden(m))
    assert not bad, "\n".join(_path(parent, m) for m in bad)


def test_exempt_edges_are_real_and_function_local():
    """An exemption that no longer exists, or that became a top-level import, must go."""
    for importer, imported in OUTSIDE_THE_BASE:
        tree = ast.parse(MODULES[importer].read_text())
        top = {n for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
               for n in ([node.module] if isinstance(node, ast.ImportFrom)
                         else [a.name for a in node.names])}
        assert imported in imports_of(importer), (importer, imported)
        assert imported not in top, f"{importer} imports {imported} at the top level"


def test_the_walk_sees_function_local_imports():
    """The walker must catch an import hidden in a function (the search imports z3 that way)."""
    assert "z3" in reach("ioverify.solve.query")


def test_trusted_base_imports_with_solvers_unimportable():
    """The whole base loads when z3 and pysat cannot be imported at all."""
    code = ("import sys\nsys.modules['z3'] = None\nsys.modules['pysat'] = None\n"
            + "".join(f"import {m}\n" for m in TRUSTED_BASE)
            + "assert 'z3' not in sys.modules or sys.modules['z3'] is None\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
