"""Citations of the theory page as links on the generated pages.

The code, the bound records and the claims cite the theory page as ``docs/theory.md §N`` (plain
text: it is printed by the command line too).  On a generated Markdown page each such citation
becomes a link to that section of the page, so a reader can follow it.
"""

from __future__ import annotations

import re

CITATION = re.compile(r"docs/theory\.md(?: §(\d+))?")


def theory_links(text: str, base: str = "") -> str:
    """``text`` with every ``docs/theory.md §N`` a Markdown link to section N of the theory page
    (and a bare ``docs/theory.md`` a link to the page); ``base`` is the way from the page being
    written to the docs folder, such as ``"../"``."""
    def link(match: re.Match) -> str:
        section = match.group(1)
        if section is None:
            return f"[the theory page]({base}theory.md)"
        return f"[theory §{section}]({base}theory.md#section-{section})"

    return CITATION.sub(link, text)
