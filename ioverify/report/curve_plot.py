"""The plot of an I/O curve (``ioverify.search.curve``, or an ``io-curve`` obligation's cells as
its certificate records them): per variant a line through the upper ends, a band from each
cell's lower to its upper end, filled markers where the cell is settled, and the trivial bound
as a dotted line."""

from __future__ import annotations

from pathlib import Path

from ioverify._io import write_atomically
from ioverify.errors import InvalidArgument
from ioverify.report.plots import _pyplot

COLOURS = {"one-shot": "tab:blue", "recompute": "tab:orange"}


def curve_records(result) -> list[dict]:
    """A computed curve's cells as the records the plot reads (M, variant, status, ends)."""
    return [{"memory": c.memory, "variant": c.variant,
             "status": "infeasible" if c.infeasible else c.verdict.status,
             "lower_bound": None if c.infeasible else (
                 c.upper if c.settled else c.verdict.lower_bound),
             "upper_bound": c.upper} for c in result.cells.values()]


def curve_alt_text(cells: list[dict], trivial: int, title: str) -> str:
    """What the curve plot shows, for readers who cannot see it (the image's alt text), in the
    convention of ``ioverify.report.plots.alt_text``."""
    memories = sorted({c["memory"] for c in cells})
    variants = sorted({c["variant"] for c in cells})
    settled = sum(c["status"] == "optimal" for c in cells)
    return (f"Line plot of words moved (loads plus stores) against fast memory M from "
            f"{memories[0]} to {memories[-1]} for {title}: one line per variant "
            f"({', '.join(variants)}) through the best schedule found at each M, a shaded band "
            f"from the proved lower end to it where the optimum is not settled, filled markers "
            f"where it is ({settled} of {len(cells)} cells), and a dotted line at the trivial "
            f"bound {trivial}")


def curve_plot(path: Path, result, title: str) -> Path:
    """Draw a computed curve into ``path`` (``plot_cells``)."""
    return plot_cells(path, curve_records(result), result.trivial, title)


def plot_cells(path: Path, cells: list[dict], trivial: int, title: str) -> Path:
    """Draw the cells into ``path`` (PNG, SVG or PDF, by its suffix), the alt text
    (``curve_alt_text``) stored in the image's description."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for variant in sorted({c["variant"] for c in cells}):
        row = sorted((c for c in cells if c["variant"] == variant
                      and c["upper_bound"] is not None), key=lambda c: c["memory"])
        if not row:
            continue
        colour = COLOURS.get(variant, "tab:green")
        ms, uppers = [c["memory"] for c in row], [c["upper_bound"] for c in row]
        lows = [c["lower_bound"] if c["lower_bound"] is not None else c["upper_bound"]
                for c in row]
        ax.plot(ms, uppers, color=colour, label=f"{variant}: best schedule")
        ax.fill_between(ms, lows, uppers, color=colour, alpha=0.2,
                        label=f"{variant}: proved bracket")
        settled = [c for c in row if c["status"] == "optimal"]
        ax.scatter([c["memory"] for c in settled], [c["upper_bound"] for c in settled],
                   color=colour, zorder=3, label=f"{variant}: optimum proved")
    ax.axhline(trivial, color="grey", linestyle=":", label="trivial bound")
    ax.set(xlabel="fast memory M (words)", ylabel="words moved", title=f"I/O curve of {title}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    # the alt text travels with the image (PNG text chunk, SVG description)
    metadata = {"Title": f"I/O curve of {title}",
                "Description": curve_alt_text(cells, trivial, title)}
    kind = plot_format(path)
    write_atomically(str(path), lambda handle: fig.savefig(
        handle, format=kind, dpi=110, metadata=metadata if kind in ("png", "svg") else None))
    plt.close(fig)
    return path


FORMATS = ("png", "svg", "pdf")


def plot_format(path: Path) -> str:
    """The image format ``path`` asks for by its suffix; InvalidArgument (one line) if it is
    none of FORMATS."""
    kind = path.suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise InvalidArgument(f"cannot draw into {str(path)!r}: its suffix must be "
                              f"{', '.join('.' + f for f in FORMATS)}")
    return kind
