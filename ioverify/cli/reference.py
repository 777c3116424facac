"""Reference pages generated from the code itself: the CLI (from argparse) and the Python API
(from signatures and docstrings).  A test fails when the committed pages differ from these, so the
reference cannot drift.  Regenerate with ``ioverify docs``.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
from pathlib import Path

API_MODULES = (  # in the order data flows through the package
    "ioverify.dag", "ioverify.game", "ioverify.game.exhaustive", "ioverify.game.partition",
    "ioverify.verdict", "ioverify.bounds", "ioverify.trace", "ioverify.trace.kernel",
    "ioverify.kernels", "ioverify.search.pebbling", "ioverify.search.partition",
    "ioverify.claims.claim", "ioverify.claims.run", "ioverify.claims.check",
    "ioverify.certificate.format", "ioverify.certificate.recheck", "ioverify.strategies",
)


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def _walk(parser, prefix):
    yield prefix, parser
    for name, sub in _subparsers(parser):
        yield from _walk(sub, f"{prefix} {name}")


def cli_page() -> str:
    from ioverify.cli import build_parser

    parser = build_parser()
    lines = ["# Command line", "", "Generated from the argument parsers; every command's `--help` "
             "says the same.", ""]
    for prefix, sub in _walk(parser, "ioverify"):
        sub.prog = prefix
        sub.formatter_class = lambda prog: argparse.RawDescriptionHelpFormatter(prog, width=96)
        lines += [f"## `{prefix}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def _doc(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


def _public(module):
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        obj = getattr(module, name, None)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and \
                getattr(obj, "__module__", "").startswith(module.__name__.split(".")[0]):
            yield name, obj


def _no_addresses(text: str) -> str:
    """A default that is a function shows as its name, not as ``<function f at 0x...>`` (an
    address differs on every run, and the page must be reproducible)."""
    return re.sub(r"<function (\S+) at 0x[0-9a-f]+>", r"\1", text)


def api_page() -> str:
    lines = ["# Python API", "", "Generated from signatures and docstrings "
             "(`ioverify docs`).", ""]
    for name in API_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        lines += [f"## `{name}`", "", _doc(module), ""]
        for attr, obj in _public(module):
            try:
                signature = _no_addresses(str(inspect.signature(obj)))
            except (TypeError, ValueError):
                signature = "(...)"
            kind = "class" if inspect.isclass(obj) else "def"
            lines += [f"- `{kind} {attr}{signature}`" + (f": {_doc(obj)}" if _doc(obj) else "")]
        lines.append("")
    return "\n".join(lines)


PAGES = {"reference/cli.md": cli_page, "reference/api.md": api_page}


def write(docs: Path = Path("docs")) -> list[Path]:
    written = []
    for rel, render in PAGES.items():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render())
        written.append(path)
    return written

