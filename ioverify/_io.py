"""Reading and writing files, shared by every format and command (a leaf: imports only errors).

``write_text`` writes atomically (a temporary file renamed into place); ``load_json_document``
and ``check_header`` read the DAG, schedule and certificate formats, turning every way a JSON
text can be unreadable into one ``InvalidFormat`` line.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from contextlib import contextmanager, suppress
from pathlib import Path

from ioverify.errors import InvalidArgument, InvalidFormat


def write_text(text: str, path: str | None) -> None:
    """Write to ``path`` atomically (a temporary file renamed into place), or to stdout if None,
    so a failure never leaves a half-written file.  The file gets the mode an ordinary write
    would give it: an existing file keeps its mode, a new one gets 0666 less the umask."""
    if path is None or path == "-":
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
        return

    write_atomically(path, _writer(text if text.endswith("\n") else text + "\n"), "w")


def _writer(content):
    def write(handle) -> None:
        handle.write(content)

    return write


def writable(path: str) -> Path:
    """``path`` as a Path, if a file can be written there: InvalidArgument (one line) if it is a
    folder or its folder does not exist.  Commands check their output paths with it before
    they work, so that a long search is not lost to a typo."""
    if not path:  # Path("") is the current folder
        raise InvalidArgument("cannot write to an empty path: name a file")
    target = Path(path)
    if target.is_dir():
        raise InvalidArgument(f"cannot write {path!r}: it is a folder")
    if not target.parent.is_dir():
        raise InvalidArgument(f"cannot write {path!r}: folder {str(target.parent)!r} does not exist")
    return target


def writable_folder(path: str, what: str) -> Path:
    """``path`` as a Path, if ``what`` (certificates, pages) can be written into it: it is a
    folder or does not exist yet (it is made then); InvalidArgument (one line) if it or the
    nearest existing folder above it is a file, or that folder is not writable.  Checked before a command works, like ``writable``."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InvalidArgument(f"cannot write {what} into {path!r}: it is a file, not a folder")
    above = folder.absolute()
    while not above.exists():  # the nearest existing folder above, where it would be made
        above = above.parent
    if not above.is_dir():
        raise InvalidArgument(f"cannot write {what} into {path!r}: {str(above)!r} is a file, "
                              f"not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise InvalidArgument(f"cannot write {what} into {path!r}: {str(above)!r} is not "
                              f"writable")
    return folder


def write_files(files: dict, what: str) -> list[Path]:
    """Write several files (path -> text or bytes) whose folders may not exist yet, so that a
    failure leaves nothing half-done: every target is checked before anything is written, the
    folders are made only then, each file is written atomically (``write_text``,
    ``write_atomically``), and if a write fails the folders made for them are removed again
    (those still empty)."""
    targets = {_writable_anew(str(path), what): content for path, content in files.items()}
    with _folders_made({target.parent for target in targets}):
        for target, content in targets.items():
            if isinstance(content, bytes):
                write_atomically(str(target), _writer(content))
            else:
                write_text(content, str(target))
    return list(targets)


def make_folder(folder: Path, what: str) -> Path:
    """Make ``folder`` (and its missing parents) for ``what``; InvalidArgument (one line) if the
    system refuses, where ``writable_folder``'s check before the work could not tell (a
    superuser's write into /proc, a full disk)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InvalidArgument(f"cannot write {what} into {str(folder)!r}: "
                              f"{error.strerror or error}") from None
    return folder


def _writable_anew(path: str, what: str) -> Path:
    """``writable`` for a file whose folder may not exist yet: refused if it is a folder, or if
    its folder cannot be made (``writable_folder``)."""
    target = Path(path)
    if target.is_dir():
        raise InvalidArgument(f"cannot write {path!r}: it is a folder")
    writable_folder(str(target.parent), what)
    return target


@contextmanager
def _folders_made(folders):
    """Make ``folders`` (their missing parents too) for the block; if the block fails, remove
    those made here that are still empty."""
    made: list[Path] = []
    try:
        for folder in sorted(folders):
            missing = []
            above = folder.absolute()
            while not above.exists():
                missing.append(above)
                above = above.parent
            for new in reversed(missing):
                new.mkdir()
                made.append(new)
        yield
    except BaseException:
        for folder in reversed(made):  # the deepest first
            with suppress(OSError):
                folder.rmdir()
        raise


def write_atomically(path: str, write, mode: str = "wb") -> None:
    """Call ``write`` with a handle open in ``mode`` on a temporary file beside ``path``, then
    rename it into place: a failure leaves no half-written file (``write_text``)."""
    target = writable(path)
    permissions = _mode_for(target)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise InvalidArgument(f"cannot write {path!r}: {error.strerror}") from None
    try:
        with os.fdopen(fd, mode) as handle:
            write(handle)
        os.chmod(tmp, permissions)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class _DuplicateKey(Exception):
    """A JSON object names a key twice."""


def _no_duplicate_keys(pairs: list) -> dict:
    doc = dict(pairs)
    if len(doc) != len(pairs):
        seen: set = set()
        raise _DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return doc


def load_json_document(text: str, what: str) -> object:
    """Parse JSON text, turning a syntax error into a one-line message naming ``what``; so are
    a key given twice in one object,
    nesting deeper than the parser can follow and an integer literal longer than Python converts
    (``sys.get_int_max_str_digits``), which would otherwise escape as RecursionError and
    ValueError."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys,
                          parse_constant=_no_constant)
    except _NotANumber as error:
        raise InvalidFormat(f"{what} is not JSON: {error.args[0]} is no JSON value (ioverify "
                            f"writes null where a number is not finite)") from None
    except _DuplicateKey as error:
        raise InvalidFormat(f"{what} has the key {error.args[0]!r} twice in one object (JSON "
                            f"readers differ on which one counts)") from None
    except json.JSONDecodeError as error:
        raise InvalidFormat(f"{what} is not JSON: {error.msg} at line {error.lineno} "
                            f"column {error.colno}") from None
    except RecursionError:
        raise InvalidFormat(f"{what} is nested too deeply to read") from None
    except ValueError as error:  # e.g. "Exceeds the limit (4300 digits) for integer string ..."
        raise InvalidFormat(f"{what} is not readable JSON: {str(error).split(':')[0]}") from None


class _NotANumber(Exception):
    pass


def _no_constant(name: str):
    """``json.loads`` reads NaN, Infinity and -Infinity, which JSON does not have and strict
    readers (jq, browsers) refuse: a file that holds one is refused here too."""
    raise _NotANumber(name)


def finite(value):
    """JSON data with every non-finite float (NaN, an infinity) as None, which JSON writes as
    null: ``json.dumps`` would write NaN or Infinity, no JSON value (a kernel whose trace
    overflowed fast memory has no checked output, and its max error is NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


def check_header(doc: object, fmt: str, version: int, what: str) -> dict:
    if not isinstance(doc, dict):
        raise InvalidFormat(f"{what} must be a JSON object with \"format\": {fmt!r}")
    if doc.get("format") != fmt:
        raise InvalidFormat(f"{what} has format {doc.get('format')!r}, expected {fmt!r}")
    if type(doc.get("version")) is not int or doc["version"] != version:  # true == 1 in Python
        raise InvalidFormat(f"{what} has version {doc.get('version')!r}; this ioverify reads "
                            f"{fmt} version {version}")
    return doc
