"""The one error root of ioverify and its subclasses (a leaf module: imports nothing).

Every error a user can cause is an ``IOVerifyError``; each subclass also inherits the builtin it
resembles, so ``except ValueError`` keeps working for callers who do not know ioverify.  The CLI
prints ``str(error)`` on one line and exits with ``error.exit_code``.

Exit codes (documented in ``ioverify --help``):
    0 proved / optimal / valid / certified
    1 refuted / illegal / certification failed
    2 bad input or usage
    3 unknown, bounded or inconclusive
    4 internal error: a bug in ioverify (for example a solver schedule that fails replay)
"""

EXIT_OK = 0
EXIT_REFUTED = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3
EXIT_INTERNAL = 4


class IOVerifyError(Exception):
    """Root of every error ioverify raises on purpose."""

    exit_code = EXIT_BAD_INPUT


class InvalidArgument(IOVerifyError, ValueError):
    """An argument is out of range or of the wrong shape; the message names it."""


class InvalidDAG(IOVerifyError, ValueError):
    """A DAG description is malformed; the message names the offending node, edge or field."""


class InvalidSchedule(IOVerifyError, ValueError):
    """A schedule file is malformed (not an illegal move: that is a replay verdict)."""


class InvalidFormat(IOVerifyError, ValueError):
    """A JSON document is not the format or version it must be."""


class InternalError(IOVerifyError, AssertionError):
    """A soundness check inside ioverify failed: this is a bug, never a result."""

    exit_code = EXIT_INTERNAL
