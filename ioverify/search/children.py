"""The child processes of one search (the race's second search, ``ioverify.search.apart``;
the expansion workers, ``ioverify.search.farm``): how they start, and the memory budget they
share with this process."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager


def start_child(module: str) -> subprocess.Popen:
    """A fresh interpreter running ``python -m module`` with this process's ioverify, its
    standard input and output piped, in a session of its own (a Ctrl-C at the terminal
    reaches only this process, which ends it)."""
    path = os.pathsep.join(p for p in sys.path if p)  # this process's ioverify, wherever it is
    return subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": path})


@contextmanager
def halved_memory():
    """Within the block this process has half its soft address-space limit; yields the other
    half for the child (None when no limit is set or the platform has none)."""
    try:
        import resource
    except ImportError:
        yield None
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        yield None
        return
    resource.setrlimit(resource.RLIMIT_AS, (soft // 2, hard))
    try:
        yield soft - soft // 2
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
