"""Shared by the certificate tests: change a certificate and seal it again, so that only the
re-check's own derivation can reject it; the reason it gives; a re-check with no solver."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from ioverify.certificate.format import seal
from ioverify.certificate.recheck import check_file
from ioverify.errors import EXIT_OK


def reseal(folder: Path, change) -> Path:
    """Apply ``change`` to the certificate document in ``folder`` and seal it anew."""
    path = folder / "certificate.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(seal({k: v for k, v in doc.items()
                                     if k not in ("format", "version", "digest")})))
    return path


def drop_last_store(moves: list) -> None:
    """Take the last store out of a schedule's moves (named, as certificates write them): an
    output then ends without blue, whatever the moves after it (a schedule may end with
    deletes)."""
    last = max(i for i, (kind, _) in enumerate(moves) if kind == "store")
    del moves[last]


def rejection(path: Path) -> str:
    """The reason the re-check rejects ``path`` (it must reject it)."""
    outcome = check_file(path)
    assert outcome.outcome == "rejected", outcome
    return outcome.reason


def check_without_solvers(path: Path, cwd: Path) -> str:
    """``ioverify certificate check path`` in a process where z3 and pysat cannot be imported;
    it must accept. Its output."""
    code = textwrap.dedent(f"""
        import sys
        sys.modules["z3"] = None  # any import of z3 or pysat now fails
        sys.modules["pysat"] = None
        from ioverify.cli import main
        code = main(["certificate", "check", {str(path)!r}])
        assert sys.modules["z3"] is None and sys.modules["pysat"] is None
        sys.exit(code)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    return done.stdout
