"""The pebbling suite of ``ioverify.bench.pebble`` with the Z3 encodings alone (method z3): what
the SAT side proves without the exhaustive configuration search."""

from __future__ import annotations

from ioverify.bench import Rows, pebble


def run(quick: bool = False, out: Rows | None = None) -> int:
    return pebble.run(quick, method="z3", out=out)
