"""Bounds as data: every result of the theory page (docs/theory.md) as a SymPy formula with its
source, firmness, game variant, graph and regime (``records``), and proved facts about them
(``facts``).

    >>> from ioverify.bounds import get
    >>> get("matmul-trivial").evaluate(m=2, k=2, n=2, M=3)
    12
"""

from ioverify.bounds.model import FIRMNESS, KINDS, Bound
from ioverify.bounds.records import REGISTRY, UNRECORDED, get

__all__ = ["Bound", "FIRMNESS", "KINDS", "REGISTRY", "UNRECORDED", "get"]
