"""Helpers shared by the subcommands: JSON printing and argument types (files are ``ioverify._io``)."""

from __future__ import annotations

import argparse
import json
from itertools import chain

from ioverify._io import finite
from ioverify.errors import InvalidArgument


def print_json(obj) -> None:
    """``obj`` as indented JSON on stdout (``json_text``)."""
    print(json_text(obj))


def json_text(obj) -> str:
    """``obj`` as JSON: objects indented by two, one member per line; an array of scalars, or
    of arrays of scalars (a schedule's moves), on one line; NaN and infinities as null.
    ``json.dumps(indent=2)`` gives the same value, but indenting makes it fall back on its
    pure-Python encoder and put every move on four lines: 4.4 s for the 160 MB a 16-cell curve
    of attention_backward(60,1) printed, past the ``--timeout`` the command was given; here the
    C encoder writes every array."""
    return "".join(_json_chunks(obj, "\n"))


def _json_chunks(obj, pad: str):
    inner = pad + "  "
    if isinstance(obj, dict) and obj:
        yield "{"
        for i, (key, value) in enumerate(obj.items()):
            yield ("," if i else "") + inner + _json_key(key) + ": "
            yield from _json_chunks(value, inner)
        yield pad + "}"
    elif isinstance(obj, (list, tuple)) and not _one_line(obj):
        yield "["
        for i, item in enumerate(obj):
            yield ("," if i else "") + inner
            yield from _json_chunks(item, inner)
        yield pad + "]"
    else:
        yield _dumps(obj)


def _dumps(obj) -> str:
    """``json.dumps``, a non-finite float as null (``ioverify._io.finite``)."""
    try:
        return json.dumps(obj, allow_nan=False)
    except ValueError:
        return json.dumps(finite(obj), allow_nan=False)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _one_line(items) -> bool:
    """An array of scalars or of arrays of scalars: printed on one line (types compared at C
    speed: a schedule has hundreds of thousands of moves)."""
    kinds = set(map(type, items))
    if kinds <= _SCALARS:
        return True
    return kinds <= {list, tuple} and set(map(type, chain.from_iterable(items))) <= _SCALARS


def _json_key(key) -> str:
    """A key as ``json.dumps`` writes it: a non-string key (a number, a boolean, None) as the
    string of its JSON."""
    return json.dumps(key if isinstance(key, str) else json.dumps(key))


def command_start(args) -> float:
    """The ``time.monotonic()`` value the command's ``--timeout`` counts from: the start ``main``
    recorded (the process's own, ``ioverify.cli._clock``), or now for a handler called without
    it."""
    import time

    started = getattr(args, "started", None)
    return time.monotonic() if started is None else started


def default_jobs() -> int:
    """Local processes when --jobs is not given: the cores, at most 4."""
    import os

    return min(4, os.cpu_count() or 1)


def flag(name: str) -> str:
    """The command-line flag of a parameter name (``entry_bound`` -> ``--entry-bound``)."""
    return "--" + name.replace("_", "-")


def refuse_unused(what: str, only_with: dict, given, value_of) -> None:
    """``ioverify._check.refuse_unused`` with the names spelled as flags (``--density``)."""
    from ioverify._check import refuse_unused as refuse

    refuse(what, only_with, given, value_of, spell=flag)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def solver_seed(text: str) -> int:
    """A solver seed: 0 to ``ioverify._check.MAX_SEED``, what Z3 takes without wrapping."""
    from ioverify._check import MAX_SEED

    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected an integer from 0 to {MAX_SEED} (Z3's seeds "
                                         f"are 32-bit), got {text!r}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


# The least --max-memory: loading the solvers and NumPy takes about 180 MiB of address space,
# and below about 300 MiB a command failed while importing them (an internal error, not the
# 'unknown' the budget promises).
MIN_MEMORY_MB = 512
# The most: a limit of address space is a C long of bytes (setrlimit), below 2^63.
MAX_MEMORY_MB = (1 << 63) // 2**20 - 1


def memory_megabytes(text: str) -> int:
    value = positive_int(text)
    if value < MIN_MEMORY_MB:
        raise argparse.ArgumentTypeError(
            f"{value} MiB is too little: at least {MIN_MEMORY_MB} (loading the solvers alone "
            f"takes about 180 MiB of address space)")
    if value > MAX_MEMORY_MB:
        raise argparse.ArgumentTypeError(
            f"{value} MiB is more than any address space: at most {MAX_MEMORY_MB} (2^63 bytes)")
    return value


def add_memory_argument(parser, running_out: str = "answers 'unknown' with the bounds "
                                                   "reached") -> None:
    parser.add_argument("--max-memory", type=memory_megabytes, default=None, metavar="MB",
                        help=f"memory budget in MiB, at least {MIN_MEMORY_MB} (default: half of "
                             f"the machine's memory); running out of it {running_out}, never a "
                             f"crash")


def apply_memory_budget(megabytes: int | None) -> int | None:
    """Cap this process (and the workers it starts) at ``megabytes`` MiB of address space, and
    tell Z3 through the environment; None: half of the physical memory.  Returns the budget,
    or None where the platform has no such limit."""
    import os

    from ioverify._check import physical_memory

    try:
        import resource
    except ImportError:  # not on this platform: no budget, said by returning None
        return None
    if megabytes is None:
        machine = physical_memory()
        if machine is None:
            return None
        megabytes = machine // 2**21
    limit = megabytes * 2**20
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    os.environ["IOVERIFY_MAX_MEMORY_MB"] = str(limit // 2**20)
    return limit // 2**20


ABANDONED_READER = "ioverify-read-dag"  # the thread's name: the console script ends at once


def read_dag_within(path: str, start: float, timeout: float | None):
    """Read a DAG file for a command whose ``--timeout`` counts from ``start`` (a
    ``time.monotonic()`` value): the DAG, or None if the time runs out first.  The reading runs
    on a daemon thread that is abandoned at the deadline (it changes nothing outside itself, and
    ends with the process), so no exception has to be thrown into running code.  A file past
    ``read_child.CHILD_READ_BYTES`` is read in a child process instead, ended at the deadline or
    on a signal (the parse holds this interpreter, its signals and its clock)."""
    import threading
    import time

    from ioverify.cli.read_child import CHILD_READ_BYTES, read_dag_in_child
    from ioverify.dag.jsonio import read_dag

    if _size(path) > CHILD_READ_BYTES:  # a parse of seconds: in a child that can be killed
        return read_dag_in_child(path, None if timeout is None else start + timeout)
    if timeout is None:
        return read_dag(path)
    result: dict = {}

    def read() -> None:
        try:
            result["dag"] = read_dag(path)
        except BaseException as error:  # handed to the caller's thread, raised there
            result["error"] = error

    reader = threading.Thread(target=read, name=ABANDONED_READER, daemon=True)
    reader.start()
    reader.join(min(threading.TIMEOUT_MAX, max(0.0, start + timeout - time.monotonic())))
    if reader.is_alive():
        return None
    if "error" in result:
        raise result["error"]
    return result["dag"]


def _size(path: str) -> int:
    """The file's size in bytes, 0 if it cannot be read (``read_dag`` then says why)."""
    import os

    try:
        return os.path.getsize(path)
    except OSError:
        return 0
