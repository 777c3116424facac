"""Ctrl-C and SIGTERM for solvers working in C.

Python runs a signal handler only in the main thread, between two bytecodes: while the main
thread is inside a solver's C code (Glucose's ``solve_limited`` can run for minutes), SIGINT and
SIGTERM wait for it to return.  ``watch()`` closes that gap: the interpreter's own C-level
handler writes each signal's number to a socket at once (``signal.set_wakeup_fd``), a daemon
thread reading that socket sets ``STOP``, and a solver's interrupter thread, which polls
``STOP``, interrupts the solver.  The solve call then returns, and the Python handler runs as
usual (KeyboardInterrupt, or the CLI's SIGTERM handler).

Standard library only, and nothing happens unless ``watch()`` was called (the CLI calls it for
the duration of a command): a library user's own signal handling is left alone.
"""

from __future__ import annotations

import signal
import socket
import threading
from contextlib import contextmanager
from typing import Callable

STOP = threading.Event()  # SIGINT or SIGTERM has arrived: solvers stop
_STOPPING = frozenset({signal.SIGINT, signal.SIGTERM})
POLL = 0.05  # seconds between two looks at STOP


@contextmanager
def watch():
    """Route SIGINT and SIGTERM to ``STOP`` as they arrive, inside the block.  Outside the main
    thread (where wake-up sockets cannot be set) it does nothing."""
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    try:
        previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:  # not the main thread
        reader.close()
        writer.close()
        yield
        return
    relay = threading.Thread(target=_relay, args=(reader,), name="ioverify-signals",
                             daemon=True)
    STOP.clear()  # a signal of an earlier block, handled there, stops nothing here
    relay.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        writer.close()  # the relay reads end-of-file and stops
        relay.join(timeout=1)
        reader.close()
        STOP.clear()


def forget() -> None:
    """In a forked child: stop writing signals to the parent's wake-up socket (the child's
    signals are its own; the parent must not take them for its Ctrl-C)."""
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:  # not the main thread
        pass


def _relay(reader: socket.socket) -> None:
    while True:
        try:
            data = reader.recv(64)
        except OSError:
            return
        if not data:
            return
        if any(number in _STOPPING for number in data):
            STOP.set()


@contextmanager
def periodically(seconds: float, action: Callable[[], None]):
    """While the block runs (typically one solver call in C), call ``action()`` on a daemon
    thread every ``seconds``."""
    done = threading.Event()

    def tick() -> None:
        while not done.wait(seconds):
            action()

    thread = threading.Thread(target=tick, name="ioverify-periodic", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def interrupting(interrupt: Callable[[], None]):
    """While the block runs, call ``interrupt()`` every POLL seconds once ``STOP`` is set."""
    return periodically(POLL, lambda: STOP.is_set() and interrupt())
