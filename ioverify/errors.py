"""The one error root of ioverify and its subclasses (a leaf module: imports nothing).

Every error a user can cause is an ``IOVerifyError``; each subclass also inherits the builtin it
resembles, so ``except ValueError`` keeps working for callers who do not know ioverify.  The CLI
prints ``str(error)`` on one line and exits with ``error.exit_code``.

Exit codes (documented in ``ioverify --help``):
    0 proved / optimal / valid / certified
    1 refuted / illegal / certification failed
    2 bad input or usage
    3 unknown, bounded, infeasible (nothing was checked) or inconclusive
    4 internal error: a bug in ioverify (for example a solver schedule that fails replay)
  130, 143 interrupted by SIGINT or SIGTERM
The table from outcome names to codes is ``EXIT_CODES`` below, used by every command.
"""

EXIT_OK = 0
EXIT_REFUTED = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3
EXIT_INTERNAL = 4
EXIT_INTERRUPTED = 130  # SIGINT, as shells report it
EXIT_TERMINATED = 143  # SIGTERM

# The one exit-code table: every command's outcome, by name, to its code.  A verdict's status, a
# kernel certification, a replay, a proved fact and a certificate re-check all end here, so that
# "infeasible" (nothing was checked) is 3 in every command, and "4" only ever means a bug.
EXIT_CODES = {
    # proved: exit 0
    "optimal": EXIT_OK, "verified": EXIT_OK, "certified": EXIT_OK, "legal": EXIT_OK,
    "proved": EXIT_OK, "accepted": EXIT_OK, "valid": EXIT_OK,
    # a confrontation that found nothing against a bound: evidence, not a proof, but no finding
    "supported": EXIT_OK,
    # refuted or rejected: exit 1
    "refuted": EXIT_REFUTED, "not certified": EXIT_REFUTED, "illegal": EXIT_REFUTED,
    "rejected": EXIT_REFUTED,
    # a finding against an asymptotic bound along a sweep: someone must act on it
    "contradicted": EXIT_REFUTED,
    # bad input: exit 2
    "malformed": EXIT_BAD_INPUT,
    # nothing proved either way: exit 3
    "bounded": EXIT_UNKNOWN, "unknown": EXIT_UNKNOWN, "infeasible": EXIT_UNKNOWN,
    "not re-checked": EXIT_UNKNOWN,
    # asked for, but not written by --timeout (a curve's certificate): nothing checkable there
    "not written": EXIT_UNKNOWN,
    # a bug in ioverify
    "internal error": EXIT_INTERNAL,
}

# Several outcomes in one command (a grid of claims, several certificate files): the worst one
# sets the exit code.  A refutation outranks bad input (it is a result someone must act on), bad
# input outranks an inconclusive answer, and a bug outranks everything.
_WORST_FIRST = (EXIT_INTERNAL, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_OK)


def exit_code_of(outcome: str) -> int:
    """The exit code of an outcome named in ``EXIT_CODES``; an unknown name is a bug."""
    try:
        return EXIT_CODES[outcome]
    except KeyError:
        raise InternalError(f"no exit code for outcome {outcome!r}") from None


def worst_exit(codes) -> int:
    """The exit code of several outcomes: the worst one (``EXIT_OK`` when there are none)."""
    codes = set(codes)
    return next((code for code in _WORST_FIRST if code in codes), EXIT_OK)


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


class DeadlineReached(IOVerifyError, TimeoutError):
    """A deadline passed while a search built something it needs (a symmetry group, an
    encoding, its CNF): nothing was decided.  The searches catch it and answer unknown with the
    bounds reached; a command that lets it through exits 3 like any unknown answer."""

    exit_code = EXIT_UNKNOWN


def missing_extra(feature: str, extra: str) -> InvalidArgument:
    """The one-line error of a feature whose optional extra is not installed (exit 2)."""
    return InvalidArgument(f"{feature} needs the optional '{extra}' extra: pip install "
                           f"'ioverify[{extra}]'")


class UnsupportedVariant(InvalidArgument):
    """A game variant that is not registered, or that the component asked does not implement
    (each component names the variants it implements and refuses the others rather than play
    them by another variant's rules); the message names the variant and the ones available."""


class CertificateRejected(IOVerifyError):
    """A certificate failed its re-check: what it states differs from what the re-check derives
    from its instance (tampered, inconsistent, or not re-derivable)."""

    exit_code = EXIT_REFUTED


class TraceViolation(IOVerifyError, RuntimeError):
    """A kernel broke a rule of the traced memory (dead tile, unwritten data, bad range)."""

    exit_code = EXIT_REFUTED


class LoweringError(IOVerifyError, ValueError):
    """The trace has no faithful pebble-game counterpart, or is too large to lower."""
