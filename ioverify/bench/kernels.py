"""Traced kernels: tracing and certification speed, tiled matmul against its bound, attention
kernels against the explicit lower bounds of docs/theory.md §4 over an M sweep, and the
crossover where square tiling beats FlashAttention.  Timings are wall-clock on a shared machine."""

from __future__ import annotations

import math
import time

import numpy as np

from ioverify.bench import Rows, machine_line
from ioverify.errors import InternalError, InvalidArgument


def run(quick: bool = False, out: Rows | None = None) -> int:
    out = out or Rows()
    out.note(machine_line(f"numpy {np.__version__}"))
    ok = flash_speed(1024 if quick else 4096, 64, 16384, out)
    ok &= matmul_ratio(248 if quick else 496, 1024, out)
    attention_sweep(1024, 64, quick, out)
    crossover(1024, 64, out)
    rectangular_fa2(1024, 64, out)
    return 0 if ok else 1


# --- 1. tracing cost ---------------------------------------------------------------------------

def flash_speed(n: int, d: int, memory: int, out: Rows) -> bool:
    """FlashAttention-2 forward traced + certified, and the same loop nest in plain NumPy."""
    from ioverify.trace.certify import certify
    from ioverify.trace.memory import TracedMemory
    from ioverify.trace.kernel import contract_for, plan
    from ioverify.trace.kernel import declare, probe_for, random_inputs

    spec, sizes, blocks = plan("flash-forward-v2", memory=memory, n=n, d=d)
    x = random_inputs(spec, sizes, [0, 0])
    plain = min(_timed(lambda: fa2_plain(x, blocks["block_r"], blocks["block_c"]))
                for _ in range(2))
    start = time.perf_counter()
    mem = TracedMemory(memory)
    spec.run(mem, declare(mem, spec, sizes, x), sizes, blocks)
    traced = time.perf_counter() - start
    outputs = {k: mem.read(k) for k in spec.outputs(sizes)}
    start = time.perf_counter()
    cert = certify(mem.trace, contract_for(spec, sizes, memory), x, outputs, spec.reference,
                   spec.tolerance, probe_inputs=probe_for(spec, sizes, 0))
    certified = time.perf_counter() - start
    same = np.array_equal(outputs["O"], fa2_plain(x, blocks["block_r"], blocks["block_c"])[0])
    total = traced + certified
    ok = cert.certified and same
    out.row("flash-speed", "certified" if ok else "not certified",
            f"\nFlashAttention-2 forward n={n} d={d} M={memory} blocks {blocks}: "
            f"{len(mem.trace.records)} records, I/O {cert.io}, peak {cert.peak}\n"
            f"  plain NumPy {plain:.2f} s | traced {traced:.2f} s ({traced / plain:.2f}x) | "
            f"certify (2 replays + references) {certified:.2f} s | traced+certified {total:.2f} s"
            f" | certified {cert.certified} | same O as plain {same}\n"
            f"  targets: traced+certified <= 60 s: {total <= 60}; tracing <= 2x plain: "
            f"{traced <= 2 * plain}",
            kernel="flash-forward-v2", n=n, d=d, memory=memory, blocks=blocks,
            records=len(mem.trace.records), io=cert.io, peak=cert.peak,
            plain_seconds=round(plain, 3), traced_seconds=round(traced, 3),
            certify_seconds=round(certified, 3), same_as_plain=bool(same))
    return ok


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def fa2_plain(x: dict, br: int, bc: int):
    """The loop nest of kernels.flash_forward_v2, written with plain NumPy on slices."""
    q_all, k_all, v_all = x["Q"], x["K"], x["V"]
    n = q_all.shape[0]
    out, lse = np.empty_like(q_all), np.empty((n, 1))
    for r0 in range(0, n, br):
        q = q_all[r0:r0 + br]
        o = m = l = None
        for c0 in range(0, n, bc):
            s = q @ k_all[c0:c0 + bc].T
            mx = s.max(axis=1, keepdims=True)
            if m is None:
                m = mx
                s -= m
                np.exp(s, out=s)
                l = s.sum(axis=1, keepdims=True)
            else:
                np.maximum(mx, m, out=mx)
                m -= mx
                np.exp(m, out=m)
                l *= m
                o *= m
                m = mx
                s -= m
                np.exp(s, out=s)
                l += s.sum(axis=1, keepdims=True)
            if o is None:
                o = s @ v_all[c0:c0 + bc]
            else:
                o += s @ v_all[c0:c0 + bc]
        o /= l
        out[r0:r0 + br] = o
        lse[r0:r0 + br] = np.log(l) + m
    return out, lse


# --- 2. tiled matmul ---------------------------------------------------------------------------

def matmul_ratio(side: int, memory: int, out: Rows) -> bool:
    """Traced I/O of the tiled matmul against the COSMA bound 2mnk/sqrt(M) + mn."""
    from ioverify.trace.kernel import KERNELS, run_kernel
    from ioverify.kernels.matmul_tiled import count, plan

    report = run_kernel("matmul-tiled", memory=memory, m=side, k=side, n=side)
    bound = 2 * side**3 / math.sqrt(memory) + side**2
    ok = report.certified and report.io / bound <= 1.05
    out.row("matmul-ratio", "certified" if ok else "not certified",
            f"\nTiled matmul m=n=k={side}, M={memory}: tile {report.blocks}, traced I/O "
            f"{report.io} (closed form {report.formula}), certified {report.certified}, "
            f"{report.seconds:.1f} s\n"
            f"  bound 2mnk/sqrt(M)+mn = {bound:.0f}; ratio {report.io / bound:.4f} "
            f"(target <= 1.05: {report.io / bound <= 1.05})",
            side=side, memory=memory, blocks=report.blocks, io=report.io, traced=True,
            bound=round(bound), ratio=round(report.io / bound, 4),
            seconds=round(report.seconds, 3))
    big = plan(KERNELS["matmul-tiled"], {"m": 1024, "k": 1024, "n": 1024}, memory, False)
    io = count(1024, 1024, 1024, big["a"], big["b"])
    big_bound = 2 * 1024**3 / math.sqrt(memory) + 1024**2
    out.row("matmul-ratio", "valid",
            f"  closed form at m=n=k=1024 (not traced): tile {big}, I/O {io}, ratio "
            f"{io / big_bound:.4f}", side=1024, memory=memory, blocks=big, io=io,
            traced=False, bound=round(big_bound), ratio=round(io / big_bound, 4))
    return ok


# --- 3. attention kernels against the explicit lower bounds ------------------------------------

ATTENTION = ("attention-standard", "flash-forward-v1", "flash-forward-v2",
             "square-tiling-forward")


def lower_bounds(n: int, d: int, memory: int) -> tuple:
    """docs/theory.md §4 [derived]: n^2 d^2/(M + 4d^2) - M and n^2 d/(2 sqrt M) - n^2."""
    return (n * n * d * d / (memory + 4 * d * d) - memory,
            n * n * d / (2 * math.sqrt(memory)) - n * n)


def attention_io(name: str, n: int, d: int, memory: int, trace_limit: int) -> tuple:
    """(I/O, how): traced by a dry run when the loop nest is small enough, else the closed form
    (equal to the trace on every tested size)."""
    from ioverify.bounds.kernel_counts import evaluate
    from ioverify.trace.kernel import count_only, plan

    spec, sizes, blocks = plan(name, memory=memory, n=n, d=d)
    steps = math.prod(math.ceil(n / b) for b in blocks.values())
    if name == "square-tiling-forward":
        steps *= math.ceil(d / blocks["block"]) * math.ceil(n / blocks["block"])
    if name == "attention-standard":
        steps *= math.ceil(n / blocks["block"])
    formula = evaluate(spec.count, sizes, blocks)
    if steps > trace_limit:
        return formula, "formula", blocks
    loads, stores, _, _ = count_only(name, memory=memory, n=n, d=d)
    if loads + stores != formula:
        raise InternalError(f"{name} at n={n}, d={d}, M={memory}: traced I/O {loads + stores} "
                            f"differs from the closed form {formula}")
    return formula, "traced", blocks


def attention_sweep(n: int, d: int, quick: bool, out: Rows) -> None:
    out.note(f"\nAttention I/O / lower bounds, n={n}, d={d} (LB1 = n^2d^2/(M+4d^2) - M, "
          f"LB2 = n^2d/(2sqrt M) - n^2; '-' where a bound is not positive)")
    out.note(f"{'M':>6} {'kernel':<22} {'blocks':<28} {'I/O':>12} {'/LB1':>8} {'/LB2':>8} how")
    memory = 4 * d
    while memory <= n * d:
        lb1, lb2 = lower_bounds(n, d, memory)
        for name in ATTENTION:
            try:
                io, how, blocks = attention_io(name, n, d, memory, 3_000 if quick else 60_000)
            except InvalidArgument as error:
                out.row("attention-sweep", "infeasible", f"{memory:>6} {name:<22} does not fit: "
                        f"{error}", memory=memory, kernel=name, n=n, d=d, io=None)
                continue
            r1 = f"{io / lb1:8.2f}" if lb1 > 0 else f"{'-':>8}"
            r2 = f"{io / lb2:8.2f}" if lb2 > 0 else f"{'-':>8}"
            shown = ",".join(f"{k}={v}" for k, v in blocks.items())
            out.row("attention-sweep", "valid",
                    f"{memory:>6} {name:<22} {shown:<28} {io:>12} {r1} {r2} {how}",
                    memory=memory, kernel=name, n=n, d=d, blocks=blocks, io=io,
                    lb1=lb1, lb2=lb2, how=how)
        memory *= 2


def crossover(n: int, d: int, out: Rows) -> None:
    """Where square tiling (largest fitting B) has less I/O than FlashAttention (both versions,
    largest fitting blocks), scanning every M = 4d .. 4d^2 in steps of d (closed forms with
    planned blocks)."""
    from ioverify.bounds.kernel_counts import evaluate
    from ioverify.trace.kernel import plan

    def io(name, memory):
        try:
            spec, sizes, blocks = plan(name, memory=memory, n=n, d=d)
        except InvalidArgument:
            return math.inf
        return evaluate(spec.count, sizes, blocks)

    wins = {"flash-forward-v1": [], "flash-forward-v2": []}
    for memory in range(4 * d, 4 * d * d + 1, d):
        sq = io("square-tiling-forward", memory)
        for fa in wins:
            if sq < io(fa, memory):
                wins[fa].append(memory)
    out.note(f"\nCrossover, n={n}, d={d}, M = {4 * d}..{4 * d * d} step {d}:")
    for fa, ms in wins.items():
        text = (f"  square tiling beats {fa} at {len(ms)} of the M scanned, from M={ms[0]} to "
                f"M={ms[-1]} (d^2 = {d * d}; M/d^2 = {ms[-1] / (d * d):.2f})" if ms else
                f"  square tiling never beats {fa} in this range")
        out.row("crossover", "valid", text, kernel=fa, n=n, d=d, wins=len(ms),
                first=ms[0] if ms else None, last=ms[-1] if ms else None)


def rectangular_fa2(n: int, d: int, out: Rows) -> None:
    """FA2's I/O depends on B_r only, so B_c = 1 with the largest fitting B_r is the I/O-least
    choice for its loop nest (far more records to trace); closed forms with planned blocks."""
    from ioverify.bounds.kernel_counts import evaluate
    from ioverify.trace.kernel import KERNELS, plan
    from ioverify.trace.kernel import dry_peak, largest_fitting

    spec = KERNELS["flash-forward-v2"]
    sizes = {"n": n, "d": d}
    out.note(f"\nFlashAttention-2, n={n}, d={d}: square blocks (default) vs B_c = 1 "
             f"(I/O-least):")
    out.note(f"{'M':>6} {'B (square)':>10} {'I/O':>10} {'B_r (B_c=1)':>12} {'I/O':>10} "
             f"{'ratio':>6}")
    for memory in (1024, 4096, 16384, 65536):
        _, _, square = plan("flash-forward-v2", memory=memory, **sizes)
        io_sq = evaluate(spec.count, sizes, square)
        br = largest_fitting(lambda b: dry_peak(spec, sizes, memory,
                                                {"block_r": b, "block_c": 1}) <= memory, n)
        io_rect = evaluate(spec.count, sizes, {"block_r": br, "block_c": 1})
        out.row("rectangular-fa2", "valid",
                f"{memory:>6} {square['block_r']:>10} {io_sq:>10} {br:>12} {io_rect:>10} "
                f"{io_sq / io_rect:>6.2f}", memory=memory, n=n, d=d,
                square_block=square["block_r"], square_io=io_sq, block_r=br, io=io_rect)
