"""Benchmark suites for ``ioverify bench SUITE``: one module per suite, each with
``run(quick: bool, out: Rows) -> int`` reporting its rows through ``out`` (and returning an exit
code).  ``Rows`` prints a table for people, or keeps one record per row for ``--json``."""

from __future__ import annotations

import platform
import sys

SUITES = {
    "replay": "ioverify.bench.replay",
    "pebble": "ioverify.bench.pebble",
    "pebble-z3": "ioverify.bench.pebble_z3",
    "exhaustive": "ioverify.bench.exhaustive",
    "partition": "ioverify.bench.partition",
    "kernels": "ioverify.bench.kernels",
    "kernels-extra": "ioverify.bench.kernels_extra",
    "families": "ioverify.bench.families",
    "proofs": "ioverify.bench.proofs",
    "curve": "ioverify.bench.curve",
    "peer": "ioverify.bench.peer",
    "frontier": "ioverify.bench.frontier",
    "maxsat": "ioverify.bench.maxsat",
}


class Rows:
    """Where a suite reports: ``note`` for headings and remarks, ``row`` for one result.

    In text mode both print at once (a long suite shows its rows as they come); with
    ``as_json`` nothing is printed and every row is kept as a record: ``table`` (which table of
    the suite), ``status`` (the row's outcome, a name of ``ioverify.errors.EXIT_CODES``:
    ``valid`` for a measurement that claims nothing), and the row's figures."""

    def __init__(self, as_json: bool = False, stream=None):
        self.as_json = as_json
        self.stream = stream
        self.records: list[dict] = []
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        if self.as_json:
            self.notes.append(text.strip("\n"))
        else:
            print(text, file=self.stream or sys.stdout, flush=True)

    def row(self, table: str, status: str, text: str, /, **figures) -> None:
        from ioverify.errors import EXIT_CODES

        if status not in EXIT_CODES:
            raise ValueError(f"row status {status!r} is not an outcome of EXIT_CODES")
        if self.as_json:
            self.records.append({"table": table, "status": status, **figures})
        else:
            print(text, file=self.stream or sys.stdout, flush=True)


def machine() -> dict:
    """The machine a suite ran on, as data, with the copy of the exhaustive search that ran
    (``ioverify.game.engine``: 'compiled' or 'python')."""
    from ioverify.game import engine

    return {"machine": platform.machine(), "python": platform.python_implementation() + " "
            + platform.python_version(), "search": engine.which()}


def machine_line(extra: str = "") -> str:
    m = machine()
    return (f"machine: {m['machine']} {m['python']}, search {m['search']}"
            + (f"; {extra}" if extra else ""))


def summary(suite: str, quick: bool, code: int, out: Rows) -> dict:
    """The one JSON object of ``ioverify bench --json``: the worst row status that gives the
    suite's exit code (as ``certificate check --json`` reports its worst file), and the rows."""
    from ioverify.errors import exit_code_of

    worst = next((r["status"] for r in out.records if exit_code_of(r["status"]) == code),
                 {0: "valid", 1: "refuted", 3: "unknown"}.get(code, "internal error"))
    return {"suite": suite, "quick": quick, **machine(), "status": worst, "exit_code": code,
            "rows": out.records, "notes": out.notes}
