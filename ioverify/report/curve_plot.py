"""The plot of an I/O curve (``ioverify.search.curve``): per variant a line through the upper
ends, a band from each cell's lower to its upper end, filled markers where the cell is settled,
and the trivial bound as a dotted line."""

from __future__ import annotations

from pathlib import Path

from ioverify.report.plots import _pyplot

COLOURS = {"one-shot": "tab:blue", "recompute": "tab:orange"}


def curve_alt_text(result, title: str) -> str:
    """What the curve plot shows, for readers who cannot see it (the image's alt text), in the
    convention of ``ioverify.report.plots.alt_text``."""
    memories = sorted({k[0] for k in result.cells})
    variants = sorted({k[1] for k in result.cells})
    return (f"Line plot of words moved (loads plus stores) against fast memory M from "
            f"{memories[0]} to {memories[-1]} for {title}: one line per variant "
            f"({', '.join(variants)}) through the best schedule found at each M, a shaded band "
            f"from the proved lower end to it where the optimum is not settled, filled markers "
            f"where it is ({result.settled()} of {len(result.cells)} cells), and a dotted line "
            f"at the trivial bound {result.trivial}")


def curve_plot(path: Path, result, title: str) -> Path:
    """Draw the curve into ``path`` (PNG, SVG or PDF, by its suffix), its alt text
    (``curve_alt_text``) stored in the image's description."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for variant in sorted({k[1] for k in result.cells}):
        cells = sorted((c for c in result.cells.values()
                        if c.variant == variant and not c.infeasible), key=lambda c: c.memory)
        if not cells:
            continue
        colour = COLOURS.get(variant, "tab:green")
        ms = [c.memory for c in cells]
        lows = [c.upper if c.settled else c.verdict.lower_bound for c in cells]
        ax.plot(ms, [c.upper for c in cells], color=colour, label=f"{variant}: best schedule")
        ax.fill_between(ms, lows, [c.upper for c in cells], color=colour, alpha=0.2,
                        label=f"{variant}: proved bracket")
        settled = [c for c in cells if c.settled]
        ax.scatter([c.memory for c in settled], [c.upper for c in settled], color=colour,
                   zorder=3, label=f"{variant}: optimum proved")
    ax.axhline(result.trivial, color="grey", linestyle=":", label="trivial bound")
    ax.set(xlabel="fast memory M (words)", ylabel="words moved", title=f"I/O curve of {title}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    # the alt text travels with the image (PNG text chunk, SVG description)
    metadata = {"Title": f"I/O curve of {title}", "Description": curve_alt_text(result, title)}
    fig.savefig(path, dpi=110, metadata=metadata if path.suffix.lower() in (".png", ".svg")
                else None)
    plt.close(fig)
    return path
