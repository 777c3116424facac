"""``ioverify check [PATHS] [--json] [--jobs N] [--budget S] [--seed S]``: the main job."""

from __future__ import annotations

import sys
from pathlib import Path

from ioverify.cli.common import (add_memory_argument, apply_memory_budget, default_jobs,
                                 positive_float, positive_int, print_json, solver_seed)


USER_PAGES = "ioverify-pages"


def register(sub) -> None:
    p = sub.add_parser("check", help="check claims, write certificates and the docs pages",
                       description="Run every obligation of the claims in PATHS (default: the "
                                   "shipped claims), merge verdicts per claim (worst wins), write "
                                   "one certificate per obligation and regenerate the claim "
                                   "pages. Exit 0 all verified, 1 something refuted, 3 something "
                                   "unknown, bounded or infeasible, 2 bad input.")
    p.add_argument("paths", nargs="*", help="claim files or folders (default: shipped proofs)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--jobs", "-j", type=positive_int, default=default_jobs(),
                   help="local processes (default: the cores, at most 4); a wide obligation "
                        "runs alone first, on all of them")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask cluster (needs the 'distributed' extra)")
    p.add_argument("--budget", type=positive_float, default=120.0, metavar="SECONDS",
                   help="time limit per search obligation (default 120; an obligation "
                        "with a time factor gets that many times it)")
    p.add_argument("--seed", type=solver_seed, default=0,
                   help="solver seed, 0 to 2^32 - 1 (default 0)")
    p.add_argument("--rlimit", type=positive_int, default=None, metavar="N",
                   help="work budget per solver call (Z3 resource units; Glucose propagations), "
                        "so that verdicts do not depend on machine speed; hitting it is unknown")
    p.add_argument("--max-states", type=positive_int, default=None, metavar="N",
                   help="cap on the exhaustive pebbling search's stored configurations")
    p.add_argument("--certificates", default="certificates", metavar="DIR",
                   help="where to write certificates (default ./certificates)")
    p.add_argument("--docs", default=None, metavar="DIR",
                   help="where to write the claim pages (default: ./docs/claims for the shipped "
                        f"claims; ./{USER_PAGES} for claim files given as PATHS, so that a user's "
                        "claims never replace the shipped pages)")
    p.add_argument("--no-plots", action="store_true",
                   help="do not regenerate the plots (they are drawn for the shipped claims "
                        "when matplotlib is installed)")
    p.add_argument("--quiet", "-q", action="store_true", help="no per-obligation progress")
    add_memory_argument(p)
    p.set_defaults(handler=_check)


def shipped_proofs() -> Path:
    from ioverify import proofs

    return Path(proofs.__file__).parent


class _Stderr:
    """Whatever ``sys.stderr`` is when a line is written (it may be replaced meanwhile)."""

    def write(self, text: str) -> None:
        sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _show_progress():
    """Route the ``ioverify`` logger's INFO lines (one per finished obligation, with the count
    and an estimate of the time left) to stderr; the handler is removed when ``check`` ends."""
    import logging

    handler = logging.StreamHandler(_Stderr())
    handler.setFormatter(logging.Formatter("  %(message)s"))
    logger = logging.getLogger("ioverify")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return handler


def _check(args) -> int:
    apply_memory_budget(args.max_memory)
    from ioverify._io import writable_folder
    from ioverify.certificate.body import CertificateWriter
    from ioverify.claims.check import check_claims
    from ioverify.claims.claim import load
    from ioverify.claims.run import Budget
    from ioverify.report.claims import results_from_certificates, write_pages
    from ioverify.verdict import exit_code, merge

    claims = load(args.paths or [shipped_proofs()])
    if not claims:
        return _no_claims(args)
    docs = args.docs or ("docs/claims" if not args.paths else USER_PAGES)
    writable_folder(args.certificates, "certificates")  # before the obligations run
    writable_folder(docs, "the claim pages")
    budget = Budget(timeout=args.budget, seed=args.seed, rlimit=args.rlimit,
                    max_states=args.max_states)
    writer = CertificateWriter(claims, Path(args.certificates), budget)
    show = not (args.quiet or args.json)

    def progress(result) -> None:  # each certificate is written as its result arrives
        writer(result)

    handler = _show_progress() if show else None
    try:
        results = check_claims(claims, budget, args.jobs, args.scheduler, progress)
    finally:
        if handler is not None:
            import logging

            logging.getLogger("ioverify").removeHandler(handler)
    certs = writer.finish(results)
    recorded = results_from_certificates(claims, Path(args.certificates))  # pages from these
    pages = write_pages(recorded, Path(docs), plots=not args.paths and not args.no_plots)
    overall = merge(cr.verdict for cr in results)
    _print(results, certs, pages, overall, args.json)
    return exit_code(overall)


def _no_claims(args) -> int:
    """No claims in PATHS (a filter that kept nothing, a folder without claim files): nothing
    is checked (exit 3, as pytest's item says), and nothing is written, no empty folder."""
    from ioverify.errors import EXIT_UNKNOWN

    where = ", ".join(map(repr, args.paths))
    if args.json:
        print_json({"status": "unknown", "claims": [], "certificates": [], "pages": [],
                    "reason": f"no claims in {where}: nothing was checked"})
    else:
        print(f"overall: unknown; no claims in {where}: nothing was checked, nothing written")
    return EXIT_UNKNOWN


def _print(results, certs, pages, overall, as_json) -> None:
    from ioverify.verdict import describe

    if as_json:
        print_json({"status": overall.status, "claims": [
            {"id": cr.claim.id, "status": cr.verdict.status,
             "obligations": [{"id": r.obligation.id, "status": r.verdict.status,
                              "message": describe(r.verdict), "seconds": r.seconds}
                             for r in cr.results]}
            for cr in results], "certificates": [str(c) for c in certs],
            "pages": [str(p) for p in pages]})
        return
    for cr in results:
        print(f"{cr.verdict.status:<10} {cr.claim.id}: {cr.claim.title}")
        for r in cr.results:
            if r.verdict.status not in ("optimal", "verified", "supported"):
                print(f"    {r.verdict.status:<10} {r.obligation.id}: {describe(r.verdict)}")
    print(f"overall: {overall.status}; {len(certs)} certificate(s) written"
          + (f", {len(pages)} page(s) regenerated" if pages else ""))
