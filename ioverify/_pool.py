"""Local worker processes that end with the command: spawned, deaf to Ctrl-C, terminated at once.

``ioverify check`` runs its obligations and ``ioverify certificate check`` its files on such a
pool.  The workers are spawned (no solver state, no signal handler and no wake-up socket
inherited from the parent) and ignore SIGINT: the parent alone decides.  On Ctrl-C, SIGTERM
(which the command line raises as an interrupt) or any error in the parent, the pool is
terminated at once instead of waiting for its workers' searches; otherwise it is closed and
joined.  Standard library only.
"""

from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def worker_pool(jobs: int):
    """A ``multiprocessing`` pool of ``jobs`` spawned workers for the block (see the module)."""
    import multiprocessing

    pool = multiprocessing.get_context("spawn").Pool(jobs, initializer=ignore_interrupts)
    try:
        yield pool
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def ignore_interrupts() -> None:
    """In a worker: SIGINT is the parent's to handle."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
