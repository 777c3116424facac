"""Traced two-level memory for kernels, certification by replay against the caller's contract,
lowering to the pebble game.

The names below are loaded on first use (PEP 562), so that importing a light module of this
package (``ioverify.trace.confront``, say) does not load NumPy.  The certifier itself is
``ioverify.trace.certify.certify`` (the name ``certify`` here is its module).
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Certification": "ioverify.trace.certify", "KernelContract": "ioverify.trace.certify",
    "SlowArray": "ioverify.trace.memory",
    "Tile": "ioverify.trace.memory", "Trace": "ioverify.trace.memory",
    "TracedMemory": "ioverify.trace.memory", "TraceViolation": "ioverify.trace.memory",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'ioverify.trace' has no attribute {name!r}")
