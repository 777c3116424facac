"""Backward, block-sparse and approximate kernels (issue 6): certification and exact counts on a
grid with uneven sizes; backward I/O against the derived lower bound 2n^2 d^2/(M + 4d^2) - M
and the Theta forms over an M sweep, and the M where square tiling beats FlashAttention's
backward; block-sparse I/O against s (least-squares line); polynomial-method I/O against n,
its crossover with FlashAttention-2 forward, and its error.  I/O figures are traced counts
(shape-only dry runs of the kernels, ``kernels.count_only``), checked against the closed forms.
Timings are wall-clock on a shared machine."""

from __future__ import annotations

import math
import time

import numpy as np

from ioverify.bench import Rows

BACKWARD = ("flash-backward-v1", "flash-backward-v2", "square-tiling-backward")


def run(quick: bool = False, out: Rows | None = None) -> int:
    out = out or Rows()
    ok = certification_grid(quick, out)
    backward_sweep(128 if quick else 256, 32, quick, out)
    sparse_sweep(*((256, 16, 1024) if quick else (512, 32, 2048)), out)
    approximate_sweep(4, 2, 1024, quick, out)
    approximate_error(quick, out)
    return 0 if ok else 1


# --- 1. certification and closed forms ----------------------------------------------------------

def _grid(quick: bool):
    sizes = [(5, 2), (13, 3), (33, 5)] if quick else [(5, 2), (13, 3), (33, 5), (64, 8), (77, 6)]
    for n, d in sizes:
        for memory in (60, 150, 400, 1000):
            for name in BACKWARD:
                yield name, dict(n=n, d=d), memory
            for mask in ({"mask": "causal"}, {"mask": "random", "density": 0.3},
                         {"mask": "random", "density": 0.7}):  # density only where read
                for name in ("block-sparse-forward", "block-sparse-backward"):
                    yield name, dict(n=n, d=d, **mask), memory
            for g in (1, 2, 3):
                yield "polynomial-forward", dict(n=n, d=d, degree=g, entry_bound=0.5), memory


def certification_grid(quick: bool, out: Rows) -> bool:
    """Every kernel traced, certified by replay (with probe inputs) and equal to its closed
    form, on sizes that blocks do not divide."""
    from ioverify.errors import InvalidArgument
    from ioverify.trace.kernel import run_kernel

    stats: dict = {}
    failures = []
    start = time.perf_counter()
    for name, sizes, memory in _grid(quick):
        row = stats.setdefault(name, [0, 0, 0, 0, 0.0])
        try:
            report = run_kernel(name, memory=memory, **sizes)
        except InvalidArgument:
            row[3] += 1
            continue
        row[0] += 1
        row[1] += report.certified
        row[2] += report.io == report.formula
        row[4] = max(row[4], report.max_error)
        if not (report.certified and report.io == report.formula):
            failures.append((name, sizes, memory, report.reason))
    out.note(f"\n1. certification grid ({time.perf_counter() - start:.1f} s)")
    out.note(f"  {'kernel':<24} {'runs':>5} {'certified':>9} {'io=formula':>10} "
             f"{'M too small':>11} {'max error':>10}")
    for name, (runs, cert, exact, small, err) in stats.items():
        out.row("certification-grid", "certified" if cert == exact == runs else "not certified",
                f"  {name:<24} {runs:>5} {cert:>9} {exact:>10} {small:>11} {err:>10.2g}",
                kernel=name, runs=runs, certified=cert, io_equals_formula=exact,
                memory_too_small=small, max_error=err)
    for failure in failures:
        out.note(f"  FAILED: {failure}")
    return not failures


# --- 2. backward against the lower bound and Theta forms ----------------------------------------

def lower_bound(n: int, d: int, memory: int) -> float:
    """docs/theory.md §5 [derived]: Q_bwd >= 2n^2 d^2/(M + 4d^2) - M."""
    return 2 * n * n * d * d / (memory + 4 * d * d) - memory


def theta(n: int, d: int, memory: int) -> float:
    """min{(n^2 d^2 + n d^3)/M, (n^2 d + n d^2)/sqrt(M)} (constants dropped)."""
    return min((n * n * d * d + n * d ** 3) / memory, (n * n * d + n * d * d) / math.sqrt(memory))


def _traced_io(name: str, memory: int, **sizes) -> tuple:
    """(I/O, blocks) from a shape-only traced run, checked against the closed form."""
    from ioverify.bounds.kernel_counts import evaluate
    from ioverify.trace.kernel import count_only

    loads, stores, peak, blocks = count_only(name, memory=memory, **sizes)
    numeric = {k: v for k, v in sizes.items() if k in ("n", "d")}
    if loads + stores != evaluate(name, numeric, blocks) or peak > memory:
        from ioverify.errors import InternalError

        raise InternalError(f"{name} at {sizes}, M={memory}: traced {loads + stores} != "
                             f"closed form or peak {peak} > M")
    return loads + stores, blocks


def backward_sweep(n: int, d: int, quick: bool, out: Rows) -> None:
    memories = sorted({256, 512, 1024, 2048, 4096, n * d} if quick else
                      {256, 384, 512, 768, 1024, 2048, 4096, 8192, n * d})
    out.note(f"\n2. backward, n={n} d={d} (d^2 = {d * d}): traced I/O, ratio to the lower bound "
             f"2n^2d^2/(M+4d^2) - M and to the Theta form")
    out.note(f"  {'M':>6} {'lower bound':>12} {'Theta':>10} " + " ".join(
             f"{name + ' I/O':>29} {'/LB':>6} {'/Th':>5}" for name in BACKWARD))
    start = time.perf_counter()
    for memory in memories:
        lb, th = lower_bound(n, d, memory), theta(n, d, memory)
        cells, ios = [], {}
        for name in BACKWARD:
            io, _ = _traced_io(name, memory, n=n, d=d)
            ios[name] = io
            ratio = f"{io / lb:>6.2f}" if lb > 0 else f"{'-':>6}"
            cells.append(f"{io:>29} {ratio} {io / th:>5.2f}")
        out.row("backward-sweep", "valid",
                f"  {memory:>6} {lb:>12.0f} {th:>10.0f} " + " ".join(cells),
                memory=memory, n=n, d=d, lower_bound=lb, theta=th, io=ios)
    out.note(f"  ({time.perf_counter() - start:.1f} s)")
    for fa in ("flash-backward-v1", "flash-backward-v2"):
        cross = backward_crossover(n, d, fa, 16 if quick else 8)
        out.row("backward-crossover", "valid",
                f"  square-tiling-backward vs {fa}: fewer words at every M <= {cross[0]}, more "
                f"at every M >= {cross[1]} (closed forms at planned blocks, M step "
                f"{16 if quick else 8}; d^2 = {d * d})",
                kernel=fa, n=n, d=d, fewer_up_to=cross[0], more_from=cross[1])


def backward_crossover(n: int, d: int, fa: str, step: int = 8) -> tuple:
    """(last M where square tiling moves fewer words, first M where it moves more), scanning
    M in steps of ``step`` from where both kernels fit up to 4d^2."""
    from ioverify.bounds.kernel_counts import evaluate
    from ioverify.errors import InvalidArgument
    from ioverify.trace.kernel import plan

    def io(name, memory):
        _, sizes, blocks = plan(name, memory=memory, n=n, d=d)
        return evaluate(name, sizes, blocks)

    outcome = []
    for memory in range(step, 4 * d * d + 1, step):
        try:
            outcome.append((memory, io("square-tiling-backward", memory) < io(fa, memory)))
        except InvalidArgument:  # M too small for one of them
            continue
    first_loss = next((m for m, win in outcome if not win), None)
    last_win = next((m for m, win in reversed(outcome) if win), None)
    wins_below = max((m for m, _ in outcome if first_loss is None or m < first_loss),
                     default=None)
    losses_above = min((m for m, _ in outcome if last_win is None or m > last_win),
                       default=None)
    return wins_below, losses_above


# --- 3. block-sparse against s --------------------------------------------------------------------

def sparse_sweep(n: int, d: int, memory: int, out: Rows) -> None:
    densities = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
    out.note(f"\n3. block-sparse, n={n} d={d} M={memory}, random masks: traced I/O against the "
             f"measured density s")
    for name in ("block-sparse-forward", "block-sparse-backward"):
        rows = []
        for s in densities:
            io, blocks = _traced_io(name, memory, n=n, d=d, mask="random", density=s)
            rows.append((blocks["s"], io, blocks["block"]))
        causal, cblocks = _traced_io(name, memory, n=n, d=d, mask="causal")
        xs = np.array([r[0] for r in rows])
        ys = np.array([r[1] for r in rows], dtype=float)
        slope, intercept = np.polyfit(xs, ys, 1)
        fit = slope * xs + intercept
        r2 = 1 - float(np.sum((ys - fit) ** 2) / np.sum((ys - ys.mean()) ** 2))
        b = rows[0][2]
        nd_term = 2 * n * d + n if name.endswith("forward") else 5 * n * d + n
        per_s = (2 * d if name.endswith("forward") else 4 * d + 2) * n * math.ceil(n / b)
        out.row("sparse-sweep", "valid",
                f"  {name} (block B = {b}): " + ", ".join(f"s={s:.3f}: {io}" for s, io, _ in rows)
                + f"\n    least squares: I/O = {intercept:.0f} + {slope:.0f} s  (R^2 = {r2:.6f}); "
                f"model: {nd_term} + {per_s} s (nd term + (coefficient) n ceil(n/B) s); "
                f"causal mask (s = {cblocks['s']}): {causal}",
                kernel=name, n=n, d=d, memory=memory, block=b,
                points=[{"s": s, "io": io} for s, io, _ in rows], intercept=float(intercept),
                slope=float(slope), r2=r2, causal_s=cblocks["s"], causal_io=causal)


# --- 4. approximate attention ---------------------------------------------------------------------

def approximate_sweep(d: int, g: int, memory: int, quick: bool,
                      out: Rows) -> None:
    ns = [256, 512, 1024, 2048, 4096] if quick else [256, 512, 1024, 2048, 4096, 8192, 16384]
    out.note(f"\n4. polynomial method, d={d} g={g} M={memory} (r = {math.comb(d + g, g)}): traced "
             f"I/O against n, and FlashAttention-2 forward")
    out.note(f"  {'n':>6} {'polynomial':>11} {'blocks':>36} {'flash-forward-v2':>17} "
             f"{'ratio':>7}")
    poly = []
    for n in ns:
        io, blocks = _traced_io("polynomial-forward", memory, n=n, d=d, degree=g)
        fa, _ = _flash_forward_io(n, d, memory)
        poly.append(io)
        out.row("approximate-sweep", "valid",
                f"  {n:>6} {io:>11} {str(blocks):>36} {fa:>17} {io / fa:>7.3f}",
                n=n, d=d, degree=g, memory=memory, io=io, blocks=blocks, flash_forward_v2=fa)
    slope, intercept = np.polyfit(np.array(ns, dtype=float), np.array(poly, dtype=float), 1)
    out.note(f"  least squares: polynomial I/O = {intercept:.0f} + {slope:.2f} n "
             f"(max residual {max(abs(slope * n + intercept - y) for n, y in zip(ns, poly)):.1f})")
    out.note("  crossover: the least n from which polynomial-forward moves fewer words than "
             "flash-forward-v2 "
             "(closed forms at planned blocks; bisection on n after a doubling search)")
    for dd, gg in ((d, g), (4, 4), (8, 2), (8, 3), (16, 2)):
        from ioverify.trace.kernel import plan

        cross = approximate_crossover(dd, gg, memory)
        blocks = plan("polynomial-forward", memory=memory, n=cross, d=dd, degree=gg)[2]
        where = "resident" if blocks["group"] == blocks["rank"] else "streamed"
        out.row("approximate-crossover", "valid",
                f"    d={dd:<3} g={gg} r={blocks['rank']:<4} table {blocks['rank'] * (dd + 2):>5} "
                f"words ({where}, blocks {blocks}): n = {cross}",
                d=dd, degree=gg, rank=blocks["rank"], placement=where, memory=memory,
                n=cross)


def _flash_forward_io(n, d, memory):
    from ioverify.bounds.kernel_counts import evaluate
    from ioverify.trace.kernel import plan

    _, sizes, blocks = plan("flash-forward-v2", memory=memory, n=n, d=d)
    return evaluate("flash-forward-v2", sizes, blocks), blocks


def _poly_io(n, d, g, memory):
    from ioverify.bounds.kernel_counts import evaluate
    from ioverify.trace.kernel import plan

    _, sizes, blocks = plan("polynomial-forward", memory=memory, n=n, d=d, degree=g)
    return evaluate("polynomial-forward", sizes, blocks)


def approximate_crossover(d: int, g: int, memory: int) -> int:
    """The least n from which the polynomial kernel moves fewer words (checked monotone on the
    doubling grid, then bisected)."""
    n = 1
    while _poly_io(n, d, g, memory) >= _flash_forward_io(n, d, memory)[0]:
        n *= 2
    lo, hi = n // 2, n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _poly_io(mid, d, g, memory) < _flash_forward_io(mid, d, memory)[0]:
            hi = mid
        else:
            lo = mid
    return hi


def approximate_error(quick: bool, out: Rows) -> None:
    """Max |T - O| against exact softmax attention at the kernel's default scale
    (exp(q.k/sqrt(d))), from certified runs; a run whose inputs give a denominator
    U1 (U2^T 1) <= 0 is refused by the kernel and shown as such, with that denominator."""
    n, d = (256, 4) if quick else (1024, 4)
    out.note(f"\n5. polynomial method error against exact softmax attention, scale sqrt-d, n={n} "
             f"d={d} (uniform entries in [-B, B]; certified runs, M=2048)")
    out.note(f"  {'B':>5} " + " ".join(f"{'g=' + str(g):>16}" for g in (1, 2, 3, 4)) +
             "   (max |T - O|; r = " + ", ".join(str(math.comb(d + g, g)) for g in (1, 2, 3, 4))
          + ")")
    for bound in (0.25, 0.5, 1.0, 2.0, 4.0):
        cells = [_error_cell(n, d, g, bound) for g in (1, 2, 3, 4)]
        out.row("approximate-error", "certified" if all(c[1] is not False for c in cells)
                else "not certified", f"  {bound:>5} " + " ".join(c[0] for c in cells),
                n=n, d=d, entry_bound=bound,
                errors={f"g={g}": c[2] for g, c in zip((1, 2, 3, 4), cells)})


def _error_cell(n: int, d: int, g: int, bound: float) -> tuple:
    """(text, certified or None if refused, the error or None if refused)."""
    from ioverify.errors import InvalidArgument
    from ioverify.kernels.polynomial_forward import error_table
    from ioverify.trace.kernel import run_kernel

    try:
        report = run_kernel("polynomial-forward", memory=2048, n=n, d=d, degree=g,
                            entry_bound=bound)
    except InvalidArgument:
        row, = error_table([bound], [g], n, d)
        return f"{'refused (' + format(row.min_denominator, '.2g') + ')':>16}", None, None
    ok = report.certified and report.io == report.formula
    error = report.extra["error_vs_softmax"]
    return f"{error:>15.2e}{' ' if ok else '!'}", ok, float(error)
