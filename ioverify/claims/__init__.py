"""Claims: what a paper or a user asserts (``claim``), running one obligation (``run``), and
checking a set of claims (``check``).

Claim files import their builders from here: ``from ioverify.claims import Claim, exact_search``.
"""

from ioverify.claims.claim import (Claim, Obligation, Part, confront, exact_search, io_curve,
                                   kernel, load, partition, symbolic)

__all__ = ["Claim", "Obligation", "Part", "confront", "exact_search", "io_curve", "kernel",
           "load", "partition", "symbolic"]
