"""The build's one step beyond pyproject.toml: the compiled copy of the exhaustive search.

mypyc compiles ``ioverify/game/exhaustive.py``, as it is, into the extension module
``ioverify.game._exhaustive_native``, stamped with the SHA-256 of the source it was made from;
``ioverify.game.engine`` runs it only while that stamp matches.  The extension is optional:
without mypyc or a C compiler, or with ``IOVERIFY_PURE`` set at build time, the package is
pure Python and the search runs as Python, the same program, slower.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
SOURCE = Path("ioverify", "game", "exhaustive.py")
COPY = Path("ioverify", "game", "_exhaustive_native.py")


# The commands that build extension modules.  A pip install runs this file three times (the
# requirements, the metadata, the wheel) and an sdist once: only a build translates the search
# (mypyc's type check and C output take most of the install's time), the others need no C.
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def compiled_search(argv: list[str]) -> list:
    """The extension modules of the compiled copy, or none where it cannot be built or the
    command ``argv`` builds nothing."""
    if os.environ.get("IOVERIFY_PURE") or not BUILDS & set(argv):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    text = (HERE / SOURCE).read_bytes()
    stamp = hashlib.sha256(text).hexdigest()
    copy = HERE / COPY
    copy.write_bytes(text + f"\nSOURCE_SHA256 = {stamp!r}\n".encode())
    try:  # mypyc type-checks the copy only (imports silently) and writes its C here
        modules = mypycify(["--follow-imports=silent",
                            "--disable-error-code=annotation-unchecked", str(COPY)],
                           opt_level="3")
    except (Exception, SystemExit) as error:  # mypyc exits on a type error
        print(f"ioverify: the search is not compiled ({error}); it runs as Python")
        return []
    finally:
        copy.unlink()  # never importable as Python under the compiled copy's name
    for module in modules:
        module.optional = True  # a compiler error leaves the Python search, not a failed install
    return modules


if __name__ == "__main__":  # as setuptools runs it (a test imports it to call the above)
    import sys

    setup(ext_modules=compiled_search(sys.argv[1:]))
