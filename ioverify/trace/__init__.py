"""Traced two-level memory for kernels, certification by replay, lowering to the pebble game."""

from ioverify.trace.certify import Certification, certify
from ioverify.trace.memory import SlowArray, Tile, Trace, TracedMemory, TraceViolation

__all__ = ["Certification", "SlowArray", "Tile", "Trace", "TraceViolation", "TracedMemory",
           "certify"]
