"""Imports run one way, and the trusted base stays small and solver-free.

A walk over every ``import`` in every file, function-local ones included, checks the rules of
docs/architecture.md:

- layers: a module imports only modules of its own layer or of layers below it (the list
  ``LAYERS``), with one named door upward (the kernel registry);
- never: the trusted base (docs/explanation/verified.md) reaches no solver, search, claim
  runner or CLI, even through an import hidden inside a function; nothing outside ``cli/``
  imports ``cli/``, nothing below ``report/`` imports ``report/``; kernels import only the
  trace layer, ``_check`` and ``errors``;
- function-local imports only for heavy modules (a third-party one, or an ioverify module whose
  own top-level imports load one) and for the command line's lazy subcommands, never to hide
  a cycle;
- no import cycle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Folders installed under ioverify's names (pyproject.toml's package-dir).
FOLDERS = {"ioverify": "ioverify", "kernels": "ioverify.kernels", "proofs": "ioverify.proofs"}

# In the order data flows; a module may import its own layer and those above it in this list.
LAYERS = (
    ("ioverify.errors",),
    ("ioverify._check", "ioverify._io", "ioverify.verdict", "ioverify.schemas",
     "ioverify._plugins", "ioverify._signals", "ioverify._pool"),
    ("ioverify.dag",),
    ("ioverify.game",),
    ("ioverify.solve",),
    ("ioverify.encode",),
    ("ioverify.bounds",),
    ("ioverify.trace",),
    ("ioverify.kernels",),
    ("ioverify.search",),
    ("ioverify.claims", "ioverify.proofs"),
    ("ioverify.certificate",),
    ("ioverify.report", "ioverify.strategies", "ioverify.pytest_plugin"),
    ("ioverify.cli", "ioverify.bench", "ioverify.__main__"),
)
# The doors upward, each with its reason.
DOORS = {
    ("ioverify.trace.kernel", "ioverify.kernels"):
        "the kernel registry: module names read from ioverify.kernels.KERNEL_MODULES at call time",
}

TRUSTED_BASE = (
    "ioverify.errors",
    "ioverify._plugins",
    "ioverify.verdict",
    "ioverify._io",
    "ioverify.dag.model",
    "ioverify.dag.jsonio",
    "ioverify.dag.registry",
    "ioverify.game.rules",
    "ioverify.game.replay",
    "ioverify.game.exhaustive",
    "ioverify.game.abstraction",
    "ioverify.game.lemmas",
    "ioverify.game.partition",
    "ioverify.game.flow",
    "ioverify.trace.ops",
    "ioverify.trace.memory",
    "ioverify.trace.certify",
    "ioverify.trace.lower",
    "ioverify.trace.kernel",
    "ioverify.trace.confront",
    "ioverify.kernels",
    "ioverify.bounds.kernel_counts",
    "ioverify.bounds.records",
    "ioverify.bounds.model",
    "ioverify.bounds.symbols",
    "ioverify.bounds.instance",
    "ioverify.certificate.format",
    "ioverify.certificate.recheck",
    "ioverify.certificate.reencode",
    "ioverify.certificate.lrat",
    "ioverify.certificate.closed",
    "ioverify.schemas",
)
# What the trusted base must never reach: solvers, the searches and encodings that drive them,
# the claim runner, and everything above it.
FORBIDDEN = ("z3", "pysat", "ioverify.solve", "ioverify.encode", "ioverify.search",
             "ioverify.claims", "ioverify.certificate.body", "ioverify.report", "ioverify.cli",
             "ioverify.bench")
# Edges the trusted-base walk does not follow, each with the reason it is outside the base.
OUTSIDE_THE_BASE = {
    ("ioverify.certificate.recheck", "ioverify.bounds.facts"):
        "symbolic facts are re-proved by the fact prover (SymPy and Z3), outside the base",
}
HEAVY = ("z3", "pysat", "sympy", "numpy", "matplotlib", "distributed", "jsonschema", "hypothesis",
         "networkx", "mkdocs", "pytest")
LAZY_IMPORTERS = ("ioverify.cli", "ioverify.bench", "ioverify.pytest_plugin")


def _module_files() -> dict[str, Path]:
    files = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join([package, *parts])] = path
    return files


MODULES = _module_files()


@lru_cache(maxsize=None)
def imports_of(module: str, top_level_only: bool = False) -> frozenset[str]:
    """Every module ``module`` imports (with ``top_level_only``, outside functions only)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    nodes = _top_level(tree) if top_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES)
    return frozenset(found)


def _top_level(tree: ast.Module):
    """Statements run when the module is imported: the module body, into if/try blocks."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(getattr(node, field, []))
        elif isinstance(node, ast.ExceptHandler):
            stack.extend(node.body)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def _with_parents(module: str) -> list[str]:
    """Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` too."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _internal(imported: str) -> str | None:
    """The module of this repository an import names (``from pkg import module`` included)."""
    while imported and imported not in MODULES:
        imported = imported.rpartition(".")[0]
    return imported or None


def layer(module: str) -> int:
    best, rank = -1, None
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    if rank is None and module == "ioverify":
        return 0
    assert rank is not None, f"{module} has no layer in LAYERS"
    return rank


def _edges(top_level_only: bool = False):
    for module in MODULES:
        for imported in imports_of(module, top_level_only):
            target = _internal(imported)
            if target and target != module:
                yield module, target


# --- layers -------------------------------------------------------------------------------------

def test_every_module_has_a_layer():
    for module in MODULES:
        layer(module)


def test_imports_run_one_way():
    upward = [f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})"
              for a, b in _edges() if layer(b) > layer(a) and (a, b) not in DOORS]
    assert not upward, "\n".join(upward)


def test_doors_are_real():
    edges = set(_edges())
    assert set(DOORS) <= edges, set(DOORS) - edges


def test_no_import_cycle():
    """No cycle among all imports (function-local ones included), the doors left out."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for a, b in _edges():
        if (a, b) not in DOORS and not a.startswith(b + "."):  # a package's own modules
            graph[a].add(b)
    cycle = _find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Iterative depth-first search; a cycle as a list of modules, or None."""
    colour = {m: 0 for m in graph}
    for root in sorted(graph):
        if colour[root]:
            continue
        stack = [(root, iter(sorted(graph[root])))]
        colour[root], path = 1, [root]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = 2
                stack.pop()
                path.pop()
            elif colour.get(child) == 1:
                return path[path.index(child):] + [child]
            elif colour.get(child) == 0:
                colour[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def test_nothing_below_the_cli_imports_it_nor_below_report_imports_report():
    bad = [f"{a} imports {b}" for a, b in _edges()
           if (b.startswith("ioverify.cli") and layer(a) < layer("ioverify.cli"))
           or (b.startswith("ioverify.report") and layer(a) < layer("ioverify.report"))]
    assert not bad, "\n".join(bad)


def test_kernels_import_only_the_trace_layer_check_and_errors():
    allowed = ("ioverify.trace", "ioverify.kernels", "ioverify._check", "ioverify.errors")
    bad = [f"{a} imports {b}" for a, b in _edges() if a.startswith("ioverify.kernels")
           and b != "ioverify" and not any(b == p or b.startswith(p + ".") for p in allowed)]
    assert not bad, "\n".join(bad)


# --- function-local imports ---------------------------------------------------------------------

@lru_cache(maxsize=None)
def is_heavy(module: str) -> bool:
    """A heavy third-party module, or an ioverify module whose import (top level, transitively)
    loads one: importing it lazily keeps the importer cheap."""
    if module.split(".")[0] in HEAVY:
        return True
    if module not in MODULES:
        return False
    seen, stack = set(), [module]
    while stack:
        current = stack.pop()
        for imported in imports_of(current, top_level_only=True):
            if imported.split(".")[0] in HEAVY:
                return True
            for target in _with_parents(imported):
                if target in MODULES and target not in seen:
                    seen.add(target)
                    stack.append(target)
    return False


def test_function_local_imports_only_for_heavy_modules_and_lazy_subcommands():
    bad = []
    for module in MODULES:
        if module.startswith(LAZY_IMPORTERS):
            continue
        local = imports_of(module) - imports_of(module, top_level_only=True)
        for imported in sorted(local):
            target = _internal(imported) or imported
            if (module, target) in DOORS or (module, target) in OUTSIDE_THE_BASE:
                continue
            if target.split(".")[0] in ("ioverify",) and not is_heavy(target):
                bad.append(f"{module} imports {target} inside a function")
    assert not bad, "\n".join(bad)


# --- the trusted base ---------------------------------------------------------------------------

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
        assert imported in imports_of(importer), (importer, imported)
        assert imported not in imports_of(importer, top_level_only=True), \
            f"{importer} imports {imported} at the top level"


def test_the_walk_sees_function_local_imports():
    """The walker must catch an import hidden in a function (the solver door imports z3 so)."""
    assert "z3" in reach("ioverify.solve.query")
    assert "z3" not in imports_of("ioverify.solve.query", top_level_only=True)


def test_trusted_base_imports_with_solvers_unimportable():
    """The whole base loads when z3 and pysat cannot be imported at all."""
    code = ("import sys\nsys.modules['z3'] = None\nsys.modules['pysat'] = None\n"
            + "".join(f"import {m}\n" for m in TRUSTED_BASE)
            + "from ioverify.trace.kernel import KERNELS\nassert len(KERNELS) > 0\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr


def test_every_package_is_installed():
    """Every folder with an ``__init__.py`` is listed in pyproject.toml's packages."""
    text = (ROOT / "pyproject.toml").read_text()
    packages = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    missing = sorted(p for p in packages if f'"{p}"' not in text)
    assert not missing, missing


def test_the_architecture_page_names_every_floor():
    page = (ROOT / "docs" / "architecture.md").read_text()
    for prefixes in LAYERS:
        for prefix in prefixes:
            short = prefix.removeprefix("ioverify.")
            assert f"`{prefix}" in page or f"`{short}" in page or f"{short}/" in page, prefix


def test_the_package_says_it_is_typed_and_has_one_version():
    """PEP 561's marker ships with the package; the version is written once (ioverify.__version__)."""
    import ioverify

    text = (ROOT / "pyproject.toml").read_text()
    assert (ROOT / "ioverify" / "py.typed").is_file() and '"ioverify" = ["py.typed"]' in text
    assert 'dynamic = ["version"]' in text and 'attr = "ioverify.__version__"' in text
    assert '\nversion = "' not in text and ioverify.__version__
