"""Traced two-level memory for kernels, certification by replay against the caller's contract,
lowering to the pebble game."""

from ioverify.trace.certify import Certification, KernelContract, certify
from ioverify.trace.memory import SlowArray, Tile, Trace, TracedMemory, TraceViolation

__all__ = ["Certification", "KernelContract", "SlowArray", "Tile", "Trace", "TraceViolation",
           "TracedMemory", "certify"]
