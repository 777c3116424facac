"""Plots for the documentation (matplotlib, from the ``docs`` or ``test`` extra).

- kernel I/O against M on log-log axes, with the bound curves and the crossover M = d^2: every
  point is a traced, certified run whose I/O equals its closed form;
- exact optima on small instances against the lower bounds evaluated there.
"""

from __future__ import annotations

from pathlib import Path
from ioverify.errors import IOVerifyError
from ioverify.verdict import Verified

FORWARD = ("attention-standard", "flash-forward-v1", "flash-forward-v2", "square-tiling-forward")
BACKWARD = ("flash-backward-v1", "flash-backward-v2", "square-tiling-backward")
SIZES = {"n": 128, "d": 16}
# file -> (title, kernels, explicit lower bounds, Theta record drawn as a shape)
KERNEL_PLOTS = {
    "forward-io.png": ("Attention forward kernels", FORWARD,
                       ("attention-forward-explicit-large", "attention-forward-explicit-small"),
                       "saha-ye-thm3.1"),
    "backward-io.png": ("Attention backward kernels", BACKWARD, ("attention-backward-explicit",),
                        "attention-backward-v2"),
}
OPTIMA_PLOT = "optima.png"


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def require(feature: str) -> None:
    """Refuse ``feature`` (one line, exit 2) where matplotlib, of the 'docs' extra, is missing:
    checked before any work, so that nothing is computed only to fail at the drawing."""
    from ioverify.errors import missing_extra

    if not available():
        raise missing_extra(f"{feature} (matplotlib)", "docs")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def memory_sweep(d: int, n: int) -> list[int]:
    """M from 2d to n d, about four points per octave."""
    sweep, m = [], 2 * d
    while m <= n * d:
        sweep.append(int(m))
        m *= 2 ** 0.25
    return sorted(set(sweep))


def _kernel_series(names, sizes, sweep):
    """Traced I/O by a shape-only run of each kernel (the counts do not depend on the data; the
    shipped claims certify the same kernels with data, and their counts equal the closed forms)."""
    from ioverify.trace.kernel import count_only

    series = {}
    for name in names:
        points = []
        for memory in sweep:
            try:
                loads, stores, _, _ = count_only(name, memory=memory, **sizes)
            except IOVerifyError:  # M too small for this kernel's blocks
                continue
            points.append((memory, loads + stores))
        series[name] = points
    return series


def _bound_series(bound_ids, sizes, sweep):
    from ioverify.bounds import get

    series = {}
    for bound_id in bound_ids:
        bound = get(bound_id)
        points = []
        for memory in sweep:
            try:
                value = float(bound.evaluate(**sizes, M=memory))
            except Exception:  # noqa: BLE001 - outside the bound's regime
                continue
            if value > 0:
                points.append((memory, value))
        series[bound_id] = points
    return series


def _shape_series(theta_id, sizes, sweep):
    from ioverify.bounds import get

    bound = get(theta_id)
    return [(memory, float(bound.shape(**sizes, M=memory))) for memory in sweep]


def kernel_plot(path: Path, kernels, lower_bounds, title: str, theta: str | None = None,
                sizes=SIZES) -> Path:
    plt = _pyplot()
    n, d = sizes["n"], sizes["d"]
    sweep = memory_sweep(d, n)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for name, points in _kernel_series(kernels, sizes, sweep).items():
        if points:
            ax.plot(*zip(*points), marker="o", markersize=3, label=f"{name} (traced)")
    for bound_id, points in _bound_series(lower_bounds, sizes, sweep).items():
        if points:
            ax.plot(*zip(*points), linestyle="--", label=f"lower bound {bound_id}")
    if theta:
        ax.plot(*zip(*_shape_series(theta, sizes, sweep)), color="black", linestyle=":",
                label=f"{theta}: Θ shape, constant 1 (asymptotic only)")
    ax.axvline(d * d, color="grey", linestyle=":", label="crossover M = d²")
    ax.set(xscale="log", yscale="log", xlabel="fast memory M (words)",
           ylabel="words moved (loads + stores)", title=f"{title}, n = {n}, d = {d}")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})  # no version: same bytes everywhere
    plt.close(fig)
    return path


def _instance(ob, memory: int | None = None) -> str:
    params = ",".join(f"{k}={v}" for k, v in ob.spec.get("params", {}).items())
    return f"{ob.spec['family']}({params}) M={ob.spec['memory'] if memory is None else memory}"


def _optima_and_bounds(claim_results):
    """Per instance: the exact optimum, and every lower bound verified on it (labelled)."""
    optima, bounds = {}, {}
    for cr in claim_results:
        for r in cr.results:
            ob, v = r.obligation, r.verdict
            if ob.kind == "io-curve":
                for cell in r.detail.get("cells", ()):
                    if cell["status"] == "optimal":
                        optima[_instance(ob, cell["memory"])] = cell["upper_bound"]
            elif ob.kind == "exact-search" and v.status == "optimal":
                optima[_instance(ob)] = v.io
            elif ob.kind == "exact-search" and isinstance(v, Verified):  # not an upper end
                label = str(r.detail.get("lower_bound_source", "claimed bound"))
                bounds.setdefault(_instance(ob), {})[label] = v.bound
            elif ob.kind == "partition" and v.status == "verified":
                bounds.setdefault(_instance(ob), {})["Hong-Kung partition"] = v.bound
    return optima, bounds


def optima_plot(path: Path, claim_results) -> Path | None:
    """Exact optima found by the searches against the lower bounds verified on the same
    instances (Hong-Kung's partition bound, the Lean and trivial matmul bounds, ...)."""
    optima, bounds = _optima_and_bounds(claim_results)
    if not optima:
        return None
    plt = _pyplot()
    names = sorted(optima)
    fig, ax = plt.subplots(figsize=(7.5, 0.3 * len(names) + 1.8))
    ax.barh(range(len(names)), [optima[n] for n in names], color="tab:blue", alpha=0.5,
            label="exact optimum (proved)")
    labels = sorted({label for n in names for label in bounds.get(n, {})})
    markers = "|x+1^v<>"
    for i, label in enumerate(labels):
        points = [(bounds[n][label], y) for y, n in enumerate(names) if label in bounds.get(n, {})]
        ax.scatter(*zip(*points), marker=markers[i % len(markers)], s=90, label=label, zorder=3)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set(xlabel="words moved", title="Exact optima against the lower bounds verified on them")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})  # no version: same bytes everywhere
    plt.close(fig)
    return path


def write_all(folder: Path, claim_results) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = [kernel_plot(folder / name, kernels, bounds, title, theta=theta)
               for name, (title, kernels, bounds, theta) in KERNEL_PLOTS.items()]
    optima = optima_plot(folder / OPTIMA_PLOT, claim_results)
    return written + ([optima] if optima else [])


def alt_text(name: str) -> str | None:
    """What the plot ``name`` shows, for readers who cannot see it (the image's alt text);
    None for a file this module does not draw."""
    if name == OPTIMA_PLOT:
        return ("Horizontal bar chart with one bar per small instance (pyramid, binary tree, "
                "2x2x2 matmul and tiny attention DAGs at several M): each bar's length is the "
                "proved exact optimum in words moved, and markers on the bar are the lower "
                "bounds verified on that instance (Hong-Kung partition bound, matmul and "
                "attention bounds); every marker lies within its bar, since each bound holds")
    if name not in KERNEL_PLOTS:
        return None
    title, kernels, bounds, theta = KERNEL_PLOTS[name]
    return (f"Log-log line plot of words moved (loads plus stores) against fast memory M from "
            f"2d to nd words, {title.lower()} at n = {SIZES['n']}, d = {SIZES['d']}: a solid "
            f"line of points per traced kernel ({', '.join(kernels)}), a dashed line per "
            f"explicit lower bound ({', '.join(bounds)}), a dotted line for the Theta shape of "
            f"{theta} with constant 1, and a vertical dotted line at the crossover M = d²")
