"""The pebbling suite of ``ioverify.bench.pebble`` with the Z3 encodings alone (method z3): what
the SAT side proves without the exhaustive configuration search."""

from __future__ import annotations

from ioverify.bench import pebble


def run(quick: bool = False) -> int:
    return pebble.run(quick, method="z3")
