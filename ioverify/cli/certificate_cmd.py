"""``ioverify certificate check FILE...``: re-derive certificates from their instances."""

from __future__ import annotations

import sys

DESCRIPTION = """\
Re-check certificates by re-deriving them from their instances, never by reading them back:
the structure is validated against the shipped JSON Schema, the instance rebuilt from the
obligation's spec, feasibility recomputed, witness schedules replayed, partitions re-checked,
exhaustive searches re-run, clausal proofs re-encoded and their LRAT proofs checked (the files
beside the certificate), kernels re-run and re-certified, symbolic facts re-proved, and every
field that decides anything (its status included) compared with what was derived; fields that
only record how a verdict was reached (seconds, budgets, state counts of a search re-run here,
the lemma's name, the claim's prose) are recorded, not compared, and the output says which.
Nothing in a certificate is evaluated as code. Z3 is needed
only to re-prove symbolic facts whose proof uses it. Every file is checked, whatever the others
give.

outcome per file, and the exit code (the worst over all files):
  accepted        0  everything that decides the verdict was re-derived (resting only on the
                     lemmas listed under "relies on")
  rejected        1  a stated field differs from the re-derived one, or cannot be re-derived
  malformed       2  not a readable ioverify-certificate (one line names the field)
  not re-checked  3  cannot be re-derived here (a Z3 proof without Z3, a solver's unsat
                     the capped re-search cannot reproduce)
  internal error  4  a bug in ioverify
order of severity: internal error, rejected, malformed, not re-checked, accepted."""


def register(sub) -> None:
    import argparse

    from ioverify.errors import EXIT_BAD_INPUT

    p = sub.add_parser("certificate", help="re-check certificates (no solver needed)")
    actions = p.add_subparsers(dest="action", metavar="check", parser_class=type(p))
    c = actions.add_parser("check", help="re-check certificate files", description=DESCRIPTION,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("files", nargs="+", help="certificate JSON files")
    c.add_argument("--json", action="store_true",
                   help="print one JSON object with a record per file")
    c.set_defaults(handler=_check)
    p.set_defaults(handler=lambda args: (p.print_help(), EXIT_BAD_INPUT)[1])


def _check(args) -> int:
    from ioverify.errors import exit_code_of, worst_exit
    from ioverify.certificate.recheck import check_file

    outcomes = [check_file(path, debug=args.debug) for path in args.files]
    code = worst_exit(o.exit_code for o in outcomes)
    if args.json:
        from ioverify.cli.common import print_json

        worst = next((o.outcome for o in outcomes if exit_code_of(o.outcome) == code),
                     "accepted")
        print_json({"status": worst, "outcome": worst, "exit_code": code,
                    "files": [o.to_json() for o in outcomes]})
        return code
    for outcome in outcomes:
        _print(outcome)
    return code


def _print(o) -> None:
    if o.outcome == "accepted":
        print(f"{o.path}: accepted ({o.status})")
        for label, lines in (("re-checked", o.rechecked), ("relies on", o.relies_on),
                             ("not re-derived", o.not_rederived)):
            for line in lines:
                print(f"    {label}: {line}")
    elif o.outcome in ("malformed", "internal error"):
        print(f"{o.path}: {o.outcome}: {o.reason}", file=sys.stderr)
    else:
        print(f"{o.path}: {o.outcome}: {o.reason}")
