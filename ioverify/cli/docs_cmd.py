"""``ioverify docs [--check] [--docs DIR] [--only PAGE ...] [--no-search] [--seconds S]``:
regenerate every page that is generated from the code or the committed certificates rather than
written by hand; ``ioverify docs --performance-plots`` draws the performance page's plots from
the recorded benchmark results instead."""

from __future__ import annotations

import sys
from pathlib import Path

from ioverify.cli.common import positive_float

# page (relative to the docs folder) -> what it is generated from
PAGES = {
    "reference/cli.md": "the argument parsers",
    "reference/api.md": "the public modules (the site build renders their signatures and "
                        "docstrings)",
    "bounds.md": "the bound records (ioverify.bounds.REGISTRY)",
    "bounds-confrontation.md": "the explicit lower bounds against exact optima (the shipped "
                               "claims' among them, from their committed certificates), and "
                               "the facts",
    "claims": "the shipped claims and their committed certificates (claims/certificates)",
}


def register(sub) -> None:
    p = sub.add_parser("docs", help="regenerate the generated documentation pages",
                       description="Regenerate the pages generated from the code: "
                                   + "; ".join(f"{page} from {what}"
                                               for page, what in PAGES.items())
                                   + ". Record new certificates with `ioverify check "
                                     "--certificates docs/claims/certificates`. Exit 0: written "
                                     "(or, with --check, current); 1 with --check: some page is "
                                     "stale (listed); 2: a committed certificate is missing, "
                                     "malformed or for another obligation.")
    p.add_argument("--docs", default="docs", metavar="DIR", help="the docs folder (default docs)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; list the stale pages and exit 1 if there are any")
    p.add_argument("--only", nargs="+", choices=sorted(PAGES), metavar="PAGE",
                   help=f"only these pages ({', '.join(PAGES)})")
    p.add_argument("--no-search", action="store_true",
                   help="confrontation page: reference optima only, no exhaustive searches")
    p.add_argument("--performance-plots", action="store_true",
                   help="draw the plots of performance.md (img/performance-*.png) from the "
                        "benchmark results recorded in performance/SUITE.json (the output of "
                        "`ioverify bench SUITE --json`), and nothing else; needs matplotlib")
    p.add_argument("--seconds", type=positive_float, default=None, metavar="S",
                   help="confrontation page: a wall-clock limit per instance besides the state "
                        "cap (default none: the page is the same on every machine)")
    p.set_defaults(handler=_docs)


def render(page: str, *, docs: Path = Path("docs"), search: bool = True,
           seconds: float | None = None) -> dict[str, str]:
    """The text of the generated page(s) of one entry of PAGES, by path under ``docs``."""
    if page in ("reference/cli.md", "reference/api.md"):
        from ioverify.cli.reference import PAGES as REFERENCE

        return {page: REFERENCE[page]()}
    if page == "bounds.md":
        from ioverify.report.bounds import render as bounds_page

        return {page: bounds_page()}
    if page == "claims":
        return {f"claims/{name}": text for name, text in _claim_pages(docs / "claims").items()}
    from ioverify.report.confrontation import render as confrontation_page

    return {page: confrontation_page(search=search, seconds=seconds,
                                     claims=_claim_results(docs / "claims"))}


def _claim_results(folder: Path):
    """The shipped claims' results as the certificates committed in ``folder`` record them."""
    from ioverify.cli.check_cmd import shipped_proofs
    from ioverify.claims.claim import load
    from ioverify.report.claims import COMMITTED, results_from_certificates

    return results_from_certificates(load([shipped_proofs()]), folder / COMMITTED)


def _claim_pages(folder: Path) -> dict[str, str]:
    """The shipped claims' pages rendered from the certificates committed in ``folder``."""
    from ioverify.report.claims import render_pages

    images = sorted(p.name for p in (folder / "img").glob("*.png"))
    return render_pages(_claim_results(folder), images)


def _require_certificates(folder: Path, pages) -> None:
    """The claim and confrontation pages are rendered from the certificates committed in a
    clone of the repository: outside one, one line that says so (exit 2)."""
    from ioverify.errors import InvalidArgument
    from ioverify.report.claims import COMMITTED

    certificates = folder / "claims" / COMMITTED
    if {"claims", "bounds-confrontation.md"} & set(pages) and not certificates.is_dir():
        raise InvalidArgument(f"no folder {str(certificates)!r}: `ioverify docs` regenerates "
                              f"the docs of a clone of the repository (run it at the clone's "
                              f"top, or give --docs DIR)")


def _docs(args) -> int:
    from ioverify._io import writable_folder, write_files
    from ioverify.errors import exit_code_of

    if args.performance_plots:
        from ioverify.report.plots import require

        require("--performance-plots")
    folder = writable_folder(args.docs, "the pages")
    if args.performance_plots:
        from ioverify.report.performance import draw_all

        for path in draw_all(folder):
            print(f"written: {path}")
        return 0
    _require_certificates(folder, args.only or PAGES)
    rendered = {}
    for page in args.only or PAGES:  # everything rendered before anything is written
        rendered.update(render(page, docs=folder, search=not args.no_search,
                               seconds=args.seconds))
    stale = [page for page, text in rendered.items()
             if ((folder / page).read_text() if (folder / page).is_file() else None) != text]
    if not args.check:  # every page checked before any is written, folders made only then
        write_files({folder / page: rendered[page] for page in stale}, "the pages")
    verb = "stale" if args.check else "written"
    for page in stale:
        print(f"{verb}: {folder / page}")
    if not stale:
        print("every generated page is current", file=sys.stderr)
    return exit_code_of("refuted" if args.check and stale else "proved")
