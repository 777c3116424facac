"""When the command started, for ``--timeout``: the process's own start where the system says
it (Linux), so that Python's start-up and the imports count against the limit too.

``--timeout S`` promises a wall-clock limit on the whole command.  Counted from the handler,
it left out the interpreter's start-up and the imports before it (0.1 to 0.3 s for
``pebble``).  ``/proc/self/stat`` gives the process's start in clock ticks since boot
(field 22), and ``CLOCK_BOOTTIME`` the time since boot now, so their difference is the time
the process has run; it is taken off ``time.monotonic()``.  Elsewhere, or where the reading
fails or is implausible, the command starts when ``main`` does.
"""

from __future__ import annotations

import os
import time

# A process older than this when ``main`` runs was not started for this command (a caller
# that imported ioverify long ago, a test session): its start says nothing about the command.
MAX_START_UP = 10.0


def process_age() -> float | None:
    """Seconds since this process started, from ``/proc`` (None where it cannot be read)."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()  # the name may hold spaces
        ticks = int(fields[19])  # field 22 counted from 1; fields[0] is field 3
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return age


def command_started(own_process: bool) -> float:
    """The ``time.monotonic()`` value ``--timeout`` counts from: the process's start when
    ``own_process`` (``main`` called for the command line, not by a caller) and it can be read
    and is plausible (0 to MAX_START_UP seconds ago), otherwise now."""
    now = time.monotonic()
    age = process_age() if own_process else None
    if age is None or not 0.0 <= age <= MAX_START_UP:
        return now
    return now - age
