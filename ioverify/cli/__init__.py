"""The ``ioverify`` command line: a thin dispatcher over one module per subcommand.

Each module in ``COMMANDS`` defines ``register(subparsers)``, which adds its parser and sets
``handler`` (a function ``(args) -> int`` returning the exit code).  Modules are imported only to
register their parsers; heavy work is imported inside the handlers.  A run registers in full
only the command it names (``ioverify --version`` and ``--help`` none): the others are listed by
their one-line ``SUMMARIES``, so that startup does not read the registries or the installed
entry points (a test checks the summaries against the commands' own).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from contextlib import contextmanager

from ioverify import _signals
from ioverify.errors import (EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK,
                             EXIT_TERMINATED, IOVerifyError)

# One module per subcommand, in the order data flows through the package.
COMMANDS = (
    "ioverify.cli.dag_cmd",
    "ioverify.cli.replay_cmd",
    "ioverify.cli.pebble_cmd",
    "ioverify.cli.partition_cmd",
    "ioverify.cli.bounds_cmd",
    "ioverify.cli.check_cmd",
    "ioverify.cli.certificate_cmd",
    "ioverify.cli.kernel_cmd",
    "ioverify.cli.bench_cmd",
    "ioverify.cli.docs_cmd",
)

# The help line of each command, as its ``register`` gives it (checked by a test).
SUMMARIES = {
    "dag": "build a DAG family as JSON, or describe a DAG file",
    "replay": "check a schedule against the pebble game and count its I/O",
    "pebble": "exact red-blue pebbling search (optimum or a claim)",
    "partition": "least 2M-partition and the Hong-Kung lower bound",
    "bounds": "the bound library: list, show, evaluate, prove facts",
    "check": "check claims, write certificates and the docs pages",
    "certificate": "re-check certificates (no solver needed)",
    "kernel": "run a traced kernel, certify its trace and count its I/O",
    "bench": "run a benchmark suite and print a table",
    "docs": "regenerate the generated documentation pages",
}

EPILOG = """exit codes:
  0  proved, optimal, verified, valid or certified
  1  refuted, illegal or certification failed
  2  bad input or usage
  3  unknown, bounded, infeasible (nothing was checked) or inconclusive
  4  internal error (a bug in ioverify: please report it)
  130, 143  interrupted (SIGINT), terminated (SIGTERM)
"""


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors on one line with exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


class _Version(argparse.Action):
    """``--version``: the version, and the copy of the search that runs (the build compiles it
    where it can and falls back to Python quietly, so this is where an install says which)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from ioverify import __version__
        from ioverify.game.engine import which

        print(f"ioverify {__version__} (search: {which()})")
        parser.exit()


def command_name(module: str) -> str:
    return module.rpartition(".")[2].removesuffix("_cmd")


def build_parser(only: str | None = None, *, full: bool = True) -> argparse.ArgumentParser:
    """The parser with every command registered (``full``), or only the command ``only`` (None:
    none), the others listed by their summaries."""
    parser = _Parser(
        prog="ioverify",
        description="Machine-check claims about the I/O complexity of attention.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the version and which copy of the exhaustive search runs "
                             "(compiled or python), and exit")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an internal error (exit 4)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        if full or command_name(name) == only:
            importlib.import_module(name).register(sub)
        else:
            sub.add_parser(command_name(name), help=SUMMARIES[command_name(name)])
    return parser


def _named_command(argv: list[str]) -> tuple[str | None, bool]:
    """(the command ``argv`` names, whether the full parser is needed): none named (``--help``,
    ``--version``) needs no command registered; an unknown word needs them all (for the
    error's list of choices)."""
    word = next((a for a in argv if not a.startswith("-")), None)
    if word is None:
        return None, False
    return (word, False) if word in SUMMARIES else (None, True)


def main(argv: list[str] | None = None) -> int:
    from ioverify.cli._clock import command_started

    started = command_started(own_process=argv is None)  # what --timeout counts from
    _stdout_if_closed()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        only, full = _named_command(argv)
        parser = build_parser(only, full=full)  # a command's registries, entry points included
    except IOVerifyError as error:
        print(f"ioverify: error: {error}", file=sys.stderr)
        return error.exit_code
    args = parser.parse_args(argv)
    args.started = started
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    with _terminate_as_interrupt(), _signals.watch():
        return _dispatch(handler, args)


def _dispatch(handler, args) -> int:
    """Run one subcommand; every way it can end becomes one line and a code of the table."""
    try:
        return handler(args)
    except IOVerifyError as error:
        print(f"ioverify: error: {error}", file=sys.stderr)
        return error.exit_code
    except _Terminated:
        print("ioverify: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("ioverify: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (``| head``): nothing more to say
        return EXIT_OK
    except Exception as error:  # noqa: BLE001 - the last line of defence: a bug, said in one line
        if args.debug:
            raise
        what = f"{type(error).__name__}: {error}"
        print(f"ioverify {args.command}: internal error: {what[:300]} (a bug in ioverify; "
              f"rerun with --debug for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that every ``finally`` runs (workers stopped)."""


@contextmanager
def _terminate_as_interrupt():
    def on_term(signum, frame):
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread (a test runner's worker): leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stdout_if_closed() -> None:
    """Started with stdout closed (``>&-``): what a command prints goes nowhere, as after a
    reader went away, and the exit code still says the verdict (``sys.stdout`` is None then,
    which ``print`` ignores but a DAG written to stdout met as an internal error)."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stdout, for the process's life


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at devnull so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run() -> None:
    """Console-script entry point.  A DAG reader abandoned at the deadline
    (``common.read_dag_within``) would hold the interpreter's shutdown for as long as it still
    reads: once everything is printed, the process ends at once."""
    code = main()
    if any(t.name == "ioverify-read-dag" and t.is_alive() for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
