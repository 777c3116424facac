"""``ioverify certificate check FILE...``: re-check certificates without Z3."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("certificate", help="re-check certificates (no solver needed)")
    actions = p.add_subparsers(dest="action", metavar="check", parser_class=type(p))
    c = actions.add_parser("check", help="re-check certificate files",
                           description="Re-check certificates without Z3: replay schedules, "
                                       "re-check partitions, re-run kernels, recompute counts. "
                                       "Exit 0 all accepted, 1 one rejected, 2 malformed.")
    c.add_argument("files", nargs="+", help="certificate JSON files")
    c.set_defaults(handler=_check)
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])


def _check(args) -> int:
    from ioverify.certificate import CertificateRejected, check, read

    worst = 0
    for path in args.files:
        try:
            result = check(read(path))
        except CertificateRejected as error:
            print(f"{path}: rejected: {error}")
            worst = max(worst, 1)
            continue
        print(f"{path}: accepted ({result.status})")
        for fact in result.rechecked:
            print(f"    re-checked: {fact}")
        for trust in result.relies_on:
            print(f"    relies on: {trust}")
    return worst
