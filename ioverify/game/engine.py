"""Which copy of the exhaustive search runs: the compiled one, when it matches the source.

``ioverify.game.exhaustive`` is the search, in Python.  When the package is installed where a
C compiler is at hand, the build also compiles a copy of that very file with mypyc
(``setup.py``) into the extension module ``ioverify.game._exhaustive_native``, stamped with the
SHA-256 of the source it was made from.  It is the same program (mypyc compiles Python's
semantics, checking the declared types at run time), 1.3 to 2.3 times as fast on the search's
inner loop (docs/performance.md).

``search()`` returns the compiled copy only if its stamp is the SHA-256 of
``exhaustive.py`` as it is now, so an edited source never runs a stale build (an editable
install keeps the extension beside the sources); else, or with the environment variable
``IOVERIFY_PURE`` set to anything but an empty string, the Python module.  The searches of
``pebble``, the beam and abstraction bounds and the benchmarks go through it; the checkers of
the trusted base never do (the re-check calls the Python module itself).  ``which()`` names the copy
in use, for the benchmarks' records.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from ioverify.game import exhaustive

PURE_VARIABLE = "IOVERIFY_PURE"


def search() -> ModuleType:
    """The module to search with: ``ioverify.game._exhaustive_native`` if it was built from the
    current ``exhaustive.py`` and ``IOVERIFY_PURE`` is unset or empty, else
    ``ioverify.game.exhaustive``.  Read at each call, so a test can switch it."""
    if os.environ.get(PURE_VARIABLE):
        return exhaustive
    native = _native()
    return exhaustive if native is None else native


def which() -> str:
    """'compiled' or 'python': the copy ``search()`` returns now."""
    return "python" if search() is exhaustive else "compiled"


@lru_cache(maxsize=1)
def _native() -> ModuleType | None:
    try:
        from ioverify.game import _exhaustive_native as native  # type: ignore[attr-defined]
    except ImportError:  # not built here (no compiler, or a source checkout)
        return None
    stamp = getattr(native, "SOURCE_SHA256", None)
    return native if stamp == source_digest() else None


def source_digest() -> str:
    """The SHA-256 of ``exhaustive.py``'s bytes, as the build stamps its compiled copy."""
    return hashlib.sha256(Path(exhaustive.__file__).read_bytes()).hexdigest()
