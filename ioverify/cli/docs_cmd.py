"""``ioverify docs [--check] [--docs DIR] [--only PAGE ...] [--no-search] [--seconds S]``:
regenerate every page that is generated from the code rather than written by hand."""

from __future__ import annotations

import sys
from pathlib import Path

from ioverify.cli.common import positive_float

# page (relative to the docs folder) -> what it is generated from
PAGES = {
    "reference/cli.md": "the argument parsers",
    "reference/api.md": "the signatures and docstrings",
    "bounds.md": "the bound records (ioverify.bounds.REGISTRY)",
    "bounds-confrontation.md": "the explicit lower bounds against exact optima, and the facts",
}


def register(sub) -> None:
    p = sub.add_parser("docs", help="regenerate the generated documentation pages",
                       description="Regenerate the pages generated from the code: "
                                   + "; ".join(f"{page} from {what}"
                                               for page, what in PAGES.items())
                                   + ". The claim pages are written by `ioverify check`. "
                                     "Exit 0: written (or, with --check, current); 1 with "
                                     "--check: some page is stale (listed).")
    p.add_argument("--docs", default="docs", metavar="DIR", help="the docs folder (default docs)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; list the stale pages and exit 1 if there are any")
    p.add_argument("--only", nargs="+", choices=sorted(PAGES), metavar="PAGE",
                   help=f"only these pages ({', '.join(PAGES)})")
    p.add_argument("--no-search", action="store_true",
                   help="confrontation page: reference optima only, no exhaustive searches")
    p.add_argument("--seconds", type=positive_float, default=None, metavar="S",
                   help="confrontation page: a wall-clock limit per instance besides the state "
                        "cap (default none: the page is the same on every machine)")
    p.set_defaults(handler=_docs)


def render(page: str, *, search: bool = True, seconds: float | None = None) -> str:
    """The text of one generated page."""
    if page in ("reference/cli.md", "reference/api.md"):
        from ioverify.cli.reference import PAGES as REFERENCE

        return REFERENCE[page]()
    if page == "bounds.md":
        from ioverify.report.bounds import render as bounds_page

        return bounds_page()
    from ioverify.report.confrontation import render as confrontation_page

    return confrontation_page(search=search, seconds=seconds)


def _docs(args) -> int:
    from ioverify._io import write_text
    from ioverify.errors import exit_code_of

    folder = Path(args.docs)
    stale = []
    for page in args.only or PAGES:
        text = render(page, search=not args.no_search, seconds=args.seconds)
        path = folder / page
        current = path.read_text() if path.is_file() else None
        if current == text:
            continue
        stale.append(page)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(text, str(path))
    verb = "stale" if args.check else "written"
    for page in stale:
        print(f"{verb}: {folder / page}")
    if not stale:
        print("every generated page is current", file=sys.stderr)
    return exit_code_of("refuted" if args.check and stale else "proved")
