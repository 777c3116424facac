"""The ``ioverify`` command line: a thin dispatcher over one module per subcommand.

Each module in ``COMMANDS`` defines ``register(subparsers)``, which adds its parser and sets
``handler`` (a function ``(args) -> int`` returning the exit code).  Modules are imported only to
register their parsers; heavy work is imported inside the handlers.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ioverify.errors import EXIT_BAD_INPUT, IOVerifyError

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
)

EPILOG = """exit codes:
  0  proved, optimal, verified, valid or certified
  1  refuted, illegal or certification failed
  2  bad input or usage
  3  unknown, bounded or inconclusive
  4  internal error (a bug in ioverify: please report it)
"""


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors on one line with exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ioverify",
        description="Machine-check claims about the I/O complexity of attention.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from ioverify import __version__

    parser.add_argument("--version", action="version", version=f"ioverify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return handler(args)
    except IOVerifyError as error:
        print(f"ioverify: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("ioverify: interrupted", file=sys.stderr)
        return 130


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
