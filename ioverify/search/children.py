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


# A child given less address space than this is not started: the searches' children need
# about 90 MB at their start and grow with their memos (farm workers of
# attention_forward(2,2) at M = 4: 0.6 GB after 135 s); the caller goes on without it.
CHILD_MIN_MEMORY = 256 * 2**20


@contextmanager
def halved_memory(most: int | None = None):
    """Within the block this process keeps the address space it uses already and half of
    the rest of its soft limit (``split``); yields the other half for the children, or None
    when no limit is set or the platform has none.  ``most``: the children get at most
    this much, and this process keeps the rest.  Splitting what is left, not the limit
    itself, matters when a process holding a large search starts children: the race's child
    at the hand-over (``ioverify.search.apart``), its search at about 2.2 GB of a 6 GB
    budget, was left 3 GB by halving the limit and stopped 22 s later, most likely out of
    memory (attention_forward(2,2) at M = 4, recompute); where its search held more than the
    half, no thread could start for its workers and the command crashed
    (docs/performance.md)."""
    try:
        import resource
    except ImportError:
        yield None
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        yield None
        return
    keep, give = split(soft, address_space(), most)
    resource.setrlimit(resource.RLIMIT_AS, (keep, hard))
    try:
        yield give
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def split(limit: int, used: int | None, most: int | None = None) -> tuple[int, int]:
    """(what this process keeps, what its children get) of an address-space ``limit`` of
    which it uses ``used`` bytes already: its use and half of the rest, and the other half;
    half the limit each when ``used`` is unknown.  ``most``: the children get no more than
    this, and this process keeps the rest."""
    if used is None:
        give = limit - limit // 2
    else:
        used = min(max(0, used), limit)
        give = (limit - used) // 2
    if most is not None:
        give = min(give, max(0, most))
    return limit - give, give


def address_space() -> int | None:
    """This process's address space in bytes, what RLIMIT_AS limits (``/proc/self/statm``),
    or None where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as status:
            pages = int(status.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


# A search expands every level partially (``ExhaustiveRun.squeeze``) once its process's
# address space passes this share of its soft limit (``memory_pressed``): what is left then
# holds the configurations of the levels it closes, where a search that stores every level
# up to its limit runs out (matmul(3,3,3) at M = 10, one-shot, below 35: out of a 12 GiB
# budget at 403 s, level 31).
PRESSURE = 0.6


def memory_pressed(share: float = PRESSURE) -> bool:
    """Whether this process's address space is past ``share`` of its soft limit (False
    where no limit is set, or the platform tells neither)."""
    try:
        import resource
    except ImportError:
        return False
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    used = address_space()
    return soft != resource.RLIM_INFINITY and used is not None and used >= share * soft


def reclaim_memory(share: int | None) -> int:
    """Raise this process's soft address-space limit by ``share``, the bytes
    ``halved_memory`` gave a child that has ended (up to the hard limit): the race's
    HAND-BACK (``ioverify.search.apart``), whose search here then shares the whole budget with
    its workers.  The caller's ``halved_memory`` gives this process its limit back at its end
    (its limit less the share plus the share).  The bytes taken back, 0 where none were (no
    limit set, or no share)."""
    try:
        import resource
    except ImportError:
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if share is None or share <= 0 or soft == resource.RLIM_INFINITY:
        return 0
    raised = soft + share if hard == resource.RLIM_INFINITY else min(hard, soft + share)
    resource.setrlimit(resource.RLIMIT_AS, (raised, hard))
    return raised - soft


# What this process keeps beyond its use when it lends the rest (``lend_memory``): enough to
# read the child's reports and results while it only waits for them.
LEND_RESERVE = 256 * 2**20


def lend_memory(pid: int) -> int:
    """Lend the child ``pid`` the address space this process does not use: lower this
    process's soft limit to its use plus LEND_RESERVE, then raise the child's soft limit by
    what that freed (up to its hard limit), so that the two together never hold more than
    before; the bytes lent, 0 where nothing could be (no limit set, this process's use or
    the child's limit unknown: ``resource.prlimit`` is Linux only).  For the race's hand-over
    (``ioverify.search.apart``): the search here stops, the child's goes on with both cores
    and its workers.  The caller's ``halved_memory`` gives this process its limit back at its
    end, after the child has ended."""
    try:
        import resource

        prlimit = resource.prlimit
    except (ImportError, AttributeError):
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    used = address_space()
    if soft == resource.RLIM_INFINITY or used is None or used + LEND_RESERVE >= soft:
        return 0
    try:
        child_soft, child_hard = prlimit(pid, resource.RLIMIT_AS)
    except (OSError, ValueError):  # the child has ended, or may not be asked
        return 0
    if child_soft == resource.RLIM_INFINITY:
        return 0
    lent = soft - used - LEND_RESERVE
    if child_hard != resource.RLIM_INFINITY:
        lent = min(lent, child_hard - child_soft)
    if lent <= 0:
        return 0
    resource.setrlimit(resource.RLIMIT_AS, (soft - lent, hard))  # this one first
    try:
        prlimit(pid, resource.RLIMIT_AS, (child_soft + lent, child_hard))
    except (OSError, ValueError):
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        return 0
    return lent
