"""Argument validators shared by every layer (a leaf: imports only errors).

Each returns the value it checked, so a caller writes ``m = integer("m", m, minimum=1)``; each
raises ``InvalidArgument`` naming the argument and the value it got.  ``bool`` is refused where
an integer is asked for (``True == 1`` in Python, but a flag is not a size).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

from ioverify.errors import InvalidArgument


def integer(name: str, value, minimum: int | None = None, *, optional: bool = False) -> int:
    """An integer (NumPy integers included) of at least ``minimum``; ``None`` if ``optional``."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) \
            or (minimum is not None and value < minimum):
        shape = "an integer" if minimum is None else f"an integer >= {minimum}"
        raise InvalidArgument(f"{name} must be {shape}{' or None' if optional else ''}, "
                              f"got {value!r}")
    return int(value)


def positive(name: str, value, *, optional: bool = False) -> int:
    """A positive integer; the message says so in words (``memory M must be a positive
    integer``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise InvalidArgument(f"{name} must be a positive integer{' or None' if optional else ''}"
                              f", got {value!r}")
    return int(value)


# Z3's random_seed is an unsigned 32-bit integer: a larger seed, or a negative one, wrapped
# (2^32 ran as 0, -1 as 2^32 - 1) while the run recorded the seed as given.
MAX_SEED = 2**32 - 1


def seed(name: str, value) -> int:
    """A solver seed: an integer in [0, MAX_SEED], the seeds Z3 takes as they are."""
    if isinstance(value, bool) or not isinstance(value, Integral) or not 0 <= value <= MAX_SEED:
        raise InvalidArgument(f"{name} must be an integer from 0 to {MAX_SEED} (Z3's seeds are "
                              f"32-bit), got {value!r}")
    return int(value)


def seconds(name: str, value) -> float:
    """A time limit: a positive, finite number of seconds (nan and inf limit nothing)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < math.inf:
        raise InvalidArgument(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def choice(name: str, value, options) -> object:
    """One of ``options``."""
    if value not in options:
        raise InvalidArgument(f"{name} must be one of {', '.join(map(str, options))}, "
                              f"got {value!r}")
    return value


def refuse_unused(what: str, only_with: dict, given, value_of, spell=str) -> None:
    """Refuse an option given that another option's value leaves unused (``density`` with
    ``mask causal``), in the kernel layer (sizes as a dict) and on the command line (spelled
    as flags by ``cli.common``).  ``only_with`` maps an option's name to (the other option's name, the
    values of it that use the option); ``given``: the names given; ``value_of(name)``: an
    option's value, given or default; ``spell(name)``: how the message writes a name."""
    for name in given:
        if name not in only_with:
            continue
        other, values = only_with[name]
        value = value_of(other)
        if value not in values:
            default = "" if other in given else " (the default)"
            raise InvalidArgument(f"{what}: {spell(name)} applies only with {spell(other)} "
                                  f"{'|'.join(values)}, not {spell(other)} {value}{default}")


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or None where the platform does not say."""
    import os

    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
