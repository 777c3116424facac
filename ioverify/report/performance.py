"""The plots of the performance page (docs/performance.md), drawn from recorded benchmark results.

A suite's results are the JSON document ``ioverify bench SUITE --json`` prints, kept in
``docs/performance/SUITE.json``; ``ioverify docs --performance-plots`` draws every plot of
``PLOTS`` from them into ``docs/img/``.  Each plot's data is a function of the document alone
(``series``), so a test can hold the page's tables against exactly what the plot shows.
"""

from __future__ import annotations

import json
from pathlib import Path

from ioverify.errors import InvalidArgument
from ioverify.report.plots import _pyplot

RESULTS = Path("performance")  # under the docs folder: SUITE.json per recorded suite
IMAGES = Path("img")  # under the docs folder

EXHAUSTIVE_INSTANCE = "attention_forward(2,1)"
BACKWARD = ("flash-backward-v1", "flash-backward-v2", "square-tiling-backward")

# plot file -> the suite whose recorded results it draws
PLOTS = {
    "performance-exhaustive-states.png": "exhaustive",
    "performance-backward-io.png": "kernels-extra",
}


def load_results(docs: Path, suite: str) -> dict:
    """The recorded ``bench --json`` document of ``suite``."""
    path = docs / RESULTS / f"{suite}.json"
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise InvalidArgument(f"recorded results {str(path)!r} cannot be read: {error}") from None
    if doc.get("suite") != suite or not isinstance(doc.get("rows"), list):
        raise InvalidArgument(f"{str(path)!r} is not the --json output of `ioverify bench "
                              f"{suite}`")
    return doc


def series(name: str, doc: dict) -> dict[str, list[tuple[int, int]]]:
    """What plot ``name`` draws: label -> (x, y) points, from the results document alone."""
    if name == "performance-exhaustive-states.png":
        return {variant: sorted((r["memory"], r["states"]) for r in doc["rows"]
                                if r["table"] == "exhaustive"
                                and r["instance"] == EXHAUSTIVE_INSTANCE
                                and r["variant"] == variant)
                for variant in ("one-shot", "recompute")}
    if name == "performance-backward-io.png":
        rows = [r for r in doc["rows"] if r["table"] == "backward-sweep"]
        found = {kernel: sorted((r["memory"], r["io"][kernel]) for r in rows)
                 for kernel in BACKWARD}
        found["lower bound 2n²d²/(M + 4d²) − M"] = sorted(
            (r["memory"], round(r["lower_bound"])) for r in rows if r["lower_bound"] > 0)
        return found
    raise InvalidArgument(f"no performance plot {name!r} (known: {', '.join(PLOTS)})")


def sizes(doc: dict) -> dict:
    """n and d of the backward sweep (one per recorded run)."""
    row = next(r for r in doc["rows"] if r["table"] == "backward-sweep")
    return {"n": row["n"], "d": row["d"]}


def alt_text(name: str) -> str:
    """What plot ``name`` shows, for readers who cannot see it."""
    if name == "performance-exhaustive-states.png":
        return (f"Line plot, logarithmic vertical axis: configurations the exhaustive search "
                f"stores to find the exact optimum of {EXHAUSTIVE_INSTANCE} against the number "
                f"of red pebbles M from 3 to 8, one line for the one-shot variant and one for "
                f"the recompute variant; the recompute search stores tens of times more "
                f"configurations at every M below 8, and both drop sharply at M = 8, where "
                f"the trivial bound is reached")
    if name == "performance-backward-io.png":
        return ("Log-log line plot of words moved (traced loads plus stores) against fast "
                "memory M for the three attention backward kernels (flash-backward-v1, "
                "flash-backward-v2, square-tiling-backward) at n = 256, d = 32, with a dashed "
                "line for the derived lower bound 2n²d²/(M + 4d²) − M; square tiling moves "
                "the fewest words for M below about 0.7 d² and the most above d², where both "
                "FlashAttention kernels fall steeply")
    raise InvalidArgument(f"no performance plot {name!r} (known: {', '.join(PLOTS)})")


def draw(name: str, doc: dict, path: Path) -> Path:
    """Draw plot ``name`` from the results ``doc`` into ``path`` (PNG; matplotlib)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    data = series(name, doc)
    if name == "performance-exhaustive-states.png":
        for label, points in data.items():
            ax.plot(*zip(*points), marker="o", label=f"{label} variant")
        ax.set(yscale="log", xlabel="red pebbles M", ylabel="configurations stored",
               title=f"Exhaustive search to the optimum, {EXHAUSTIVE_INSTANCE}")
    else:
        for label, points in data.items():
            style = {"linestyle": "--"} if label.startswith("lower bound") else {"marker": "o"}
            ax.plot(*zip(*points), label=label, **style)
        n, d = sizes(doc)["n"], sizes(doc)["d"]
        ax.axvline(d * d, color="grey", linestyle=":", label="M = d²")
        ax.set(xscale="log", yscale="log", xlabel="fast memory M (words)",
               ylabel="words moved (loads + stores)",
               title=f"Attention backward kernels, n = {n}, d = {d}")
        memories = sorted({m for points in data.values() for m, _ in points})
        ax.set_xticks(memories, [str(m) for m in memories], minor=False)
        ax.set_xticks([], minor=True)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def draw_all(docs: Path) -> list[Path]:
    """Every plot of PLOTS from the results recorded under ``docs``, into ``docs``/img."""
    results = {name: load_results(docs, suite) for name, suite in PLOTS.items()}  # read first:
    (docs / IMAGES).mkdir(parents=True, exist_ok=True)  # a missing one leaves no empty folder
    return [draw(name, doc, docs / IMAGES / name) for name, doc in results.items()]
