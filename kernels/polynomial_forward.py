"""Approximate attention by the polynomial method (Alman and Song, arXiv 2302.13214;
docs/theory.md §7): exp(s q.k) ~ phi_s(q).phi_s(k) = sum_{t<=g} (s q.k)^t / t!, with phi_s the
r = C(d+g, g) monomials of degree <= g scaled by s^(|alpha|/2)/sqrt(alpha!)
(``kernels.reference.feature_map`` of sqrt(s) x), and T = diag(U1 (U2^T 1))^-1 U1 (U2^T V),
U1 = phi_s(Q), U2 = phi_s(K), never forming n x n.  The score scale s is the option ``scale``:
``sqrt-d`` (default, s = 1/sqrt(d): softmax(QK^T/sqrt(d)), the model of Saha and Ye and of
Alman and Song), ``d`` (s = 1/d) or ``none`` (s = 1, exp(q.k) unscaled).

Inputs Q, K, V (n x d, entries in [-B, B]) and the coefficient table ``coef`` (1 x r, the
s^(|alpha|/2)/sqrt(alpha!) of the monomials: constants of the method, loaded like data).  The
scale lives only in that table, applied once on each side, so the loads (and the closed form)
are the same for every scale; the float64 reference scales Q and K by sqrt(s) instead and never
reads the table, so a wrong table is caught by certification.  Features are
built on columns: a row block of K is loaded as d column tiles (b x 1), a feature column is the
product of its monomial's columns (``ones`` for the constant monomial).
Phase 1 (stream K and V): the features are taken in groups of f; for each group, for each row
block of b rows, U2^T V (1 x d per feature) and U2^T 1 (1 x 1) are accumulated in fast memory,
then stored to slow memory (``KV``, ``Z``).  Phase 2 (stream Q): for each row block, the
numerator U1 (U2^T V) (b x d) and denominator U1 (U2^T 1) (b x 1) are accumulated over the
features and divided.  With f = r the table (r(d+2) words with the coefficients) stays in fast
memory for all of phase 2; otherwise every row block of Q reads it again, like an
(n x r)(r x d) product with a b x d output tile.  I/O with G = ceil(r/f), T = ceil(n/b):
    2nd G + 2nd + r(d + 2) + r(d + 2) (1 if f = r else T)
"""

from __future__ import annotations

import math
import sys
from typing import NamedTuple

from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import (KernelOption, KernelSpec, blocks, closed_form, dry_peak,
                                   largest_fitting)
from ioverify.kernels.reference import (attention_softmax, coefficient, monomials,
                                        polynomial_attention, polynomial_denominator, rank)


def run(mem, a: dict, sizes: dict, blk: dict) -> None:
    n, d, b, f = sizes["n"], sizes["d"], blk["block"], blk["group"]
    feats = monomials(d, sizes["degree"])
    groups = [list(range(g0, min(g0 + f, len(feats)))) for g0 in range(0, len(feats), f)]
    for group in groups:
        _key_side(mem, a, n, d, b, feats, group)
    table = _load_table(mem, a, d, feats, groups[0]) if len(groups) == 1 else None
    for r0, r in blocks(n, b):
        _query_block(mem, a, d, feats, groups, table, r0, r)
    if table is not None:
        _free_table(mem, table)


def _columns(mem, x, r0, r, d) -> list:
    """A row block of x as d column tiles (r x 1)."""
    return [mem.load(x, (r0, r0 + r), (i, i + 1)) for i in range(d)]


def _monomial(mem, cols, alpha):
    """The product of the columns of alpha as a new tile (ones for the constant monomial)."""
    if not alpha:
        return mem.ones(cols[0])
    if len(alpha) == 1:
        return mem.copy(cols[alpha[0]])
    p = mem.mul(cols[alpha[0]], cols[alpha[1]])
    for i in alpha[2:]:
        mem.mul(p, cols[i], out=p)
    return p


def _key_side(mem, a, n, d, b, feats, group) -> None:
    """Phase 1 for one group: (U2^T V)_alpha and (U2^T 1)_alpha by streaming K and V."""
    coef = {al: mem.load(a["coef"], (0, 1), (al, al + 1)) for al in group}
    kv, z = {}, {}
    for r0, r in blocks(n, b):
        cols = _columns(mem, a["K"], r0, r, d)
        v = mem.load(a["V"], (r0, r0 + r), (0, d))
        for al in group:
            p = _monomial(mem, cols, feats[al])
            row = mem.matmul(coef[al], p, trans_b=True)  # c_alpha phi_alpha(K_block)^T, 1 x r
            mem.free(p)
            if al in kv:
                mem.matmul(row, v, out=kv[al], accumulate=True)
                mem.rowsum(row, out=z[al], accumulate=True)
            else:
                kv[al], z[al] = mem.matmul(row, v), mem.rowsum(row)
            mem.free(row)
        for t in (*cols, v):
            mem.free(t)
    for al in group:
        mem.store(kv[al], a["KV"], al, 0)
        mem.store(z[al], a["Z"], al, 0)
        for t in (kv[al], z[al], coef[al]):
            mem.free(t)


def _load_table(mem, a, d, feats, group) -> dict:
    """(coefficient, (U2^T V)_alpha, (U2^T 1)_alpha) tiles of a group of features."""
    return {al: (mem.load(a["coef"], (0, 1), (al, al + 1)), mem.load(a["KV"], (al, al + 1),
                                                                      (0, d)),
                 mem.load(a["Z"], (al, al + 1), (0, 1))) for al in group}


def _free_table(mem, table) -> None:
    for tiles in table.values():
        for t in tiles:
            mem.free(t)


def _query_block(mem, a, d, feats, groups, table, r0, r) -> None:
    """Phase 2 for one row block: O_i = (U1_i (U2^T V)) / (U1_i (U2^T 1))."""
    cols = _columns(mem, a["Q"], r0, r, d)
    acc = {"num": None, "den": None}
    for group in groups:
        tiles = table if table is not None else _load_table(mem, a, d, feats, group)
        for al in group:
            c, kv, z = tiles[al]
            p = _monomial(mem, cols, feats[al])
            mem.mul(p, c, out=p)
            _accumulate(mem, acc, "num", p, kv)
            _accumulate(mem, acc, "den", p, z)
            mem.free(p)
        if table is None:
            _free_table(mem, tiles)
    for t in cols:
        mem.free(t)
    mem.div(acc["num"], acc["den"], out=acc["num"])
    mem.free(acc["den"])
    mem.store(acc["num"], a["O"], r0, 0)
    mem.free(acc["num"])


def _accumulate(mem, acc, key, p, y) -> None:
    if acc[key] is None:
        acc[key] = mem.matmul(p, y)
    else:
        mem.matmul(p, y, out=acc[key], accumulate=True)


# --- parameters, planning, inputs, references -------------------------------------------------

def parse_degree(value) -> int:
    try:
        g = int(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"--degree must be a non-negative integer, got {value!r}") from None
    if g < 0 or g != float(value):
        raise InvalidArgument(f"--degree must be a non-negative integer, got {value!r}")
    return g


def parse_bound(value) -> float:
    try:
        bound = float(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"--entry-bound must be a positive number, got {value!r}") from None
    if not 0.0 < bound <= sys.float_info.max / 2:  # [-B, B] must have a finite width
        raise InvalidArgument(f"--entry-bound must be a positive number at most "
                              f"{sys.float_info.max / 2:.3g}, got {value!r}")
    return bound


SCALES = ("sqrt-d", "d", "none")


def parse_scale(value) -> str:
    if value not in SCALES:
        raise InvalidArgument(f"--scale must be one of {', '.join(SCALES)}, got {value!r}")
    return value


def score_scale(scale: str, d: int) -> float:
    """The factor s of the scores s q.k: 1/sqrt(d), 1/d or 1."""
    return {"sqrt-d": 1.0 / math.sqrt(d), "d": 1.0 / d, "none": 1.0}[parse_scale(scale)]


OPTIONS = (
    KernelOption("degree", parse_degree, 2, "degree g of the polynomial approximating exp"),
    KernelOption("entry_bound", parse_bound, 0.5,
                 "entries of Q, K, V drawn uniformly from [-B, B]"),
    KernelOption("scale", parse_scale, "sqrt-d",
                 "scores s q.k approximated: s = 1/sqrt(d) (sqrt-d), 1/d (d) or 1 (none)"),
)


# The features per row the traced kernel lists at most (its planner's dry runs walk them all, in
# calls that cannot stop for a signal: d = 64 at degree 20 filled 12 GB before any answer).
MAX_FEATURES = 100_000


def plan(spec, sizes: dict, memory: int, literal: bool) -> dict:
    """Rows per block b and features per pass f: for each b in 1, 2, 4, ... <= n the largest f
    that fits (f = r when the whole table fits), keeping the pair of least I/O."""
    if literal:
        raise InvalidArgument(f"kernel {spec.name!r} has no literal block sizes")
    r = rank(sizes["d"], sizes["degree"])
    if r > MAX_FEATURES:
        raise InvalidArgument(f"kernel {spec.name!r}: d = {sizes['d']} and degree "
                              f"{sizes['degree']} give {r:,} features per row, more than the "
                              f"{MAX_FEATURES:,} the traced kernel lists")
    best = None
    b = 1
    while True:
        f = largest_fitting(lambda ff: dry_peak(spec, sizes, memory, _blk(b, ff, r)) <= memory,
                            r)
        if f is not None:
            blk = _blk(b, f, r)
            cost = closed_form(spec, sizes, blk)
            if best is None or cost <= best[0]:  # ties: the wider block (fewer records)
                best = (cost, blk)
        if b >= sizes["n"]:
            break
        b = min(2 * b, sizes["n"])
    if best is None:
        need = dry_peak(spec, sizes, memory, _blk(1, 1, r))
        raise InvalidArgument(f"memory M = {memory} is too small for kernel {spec.name!r}: "
                              f"even one feature and one row need {need} words")
    return best[1]


def _blk(b: int, f: int, r: int) -> dict:
    return {"block": b, "group": f, "rank": r}


def _dry_sizes(sizes: dict, blk: dict) -> dict:
    return {**sizes, "n": min(sizes["n"], 2 * blk["block"])}


def _draw(sizes: dict, rng) -> dict:
    """Q, K, V uniform in [-B, B] and the coefficient table of the degree and scale."""
    n, d, bound = sizes["n"], sizes["d"], sizes["entry_bound"]
    x = {name: rng.uniform(-bound, bound, (n, d)) for name in ("Q", "K", "V")}
    x["coef"] = coef_table(d, sizes["degree"], score_scale(sizes["scale"], d))
    return x


def _sample(sizes: dict, blk, rng) -> dict:
    """The inputs of a run (and of its probe replay), refused when a denominator is <= 0.

    The refusal sits here, before the kernel runs, not after the reference: the denominators
    U1 (U2^T 1) depend only on the inputs (fixed by the seed), not on the kernel, so nothing
    is gained by tracing first; no trace exists for a refused run, so it can never be certified;
    and it is bad input (InvalidArgument, exit 2), not a failed certification (exit 1).  The
    planner cannot do it: it sees sizes, never data.  Probe inputs are checked too, since
    certification compares them with the same reference, which divides by the denominator."""
    x = _draw(sizes, rng)
    check_denominator(x, sizes)
    return x


def coef_table(d: int, g: int, scale: float = 1.0):
    """1 x r: s^(|alpha|/2)/sqrt(alpha!) for every monomial alpha (s = 1: the unscaled table)."""
    import numpy as np

    return np.array([[coefficient(al) * scale ** (len(al) / 2) for al in monomials(d, g)]])


def _scale(sizes: dict) -> float:
    return score_scale(sizes["scale"], sizes["d"])


def _reference(inputs: dict, sizes: dict, blk: dict) -> dict:
    """The method's own output in float64 (whole arrays, no tiling), at the same score scale:
    Q and K scaled by sqrt(s), the coefficient table not read."""
    return {"O": polynomial_attention(inputs["Q"], inputs["K"], inputs["V"], sizes["degree"],
                                      _scale(sizes))}


def min_denominator(inputs: dict, sizes: dict) -> float:
    """The least entry of U1 (U2^T 1) in float64 (the reference's denominators; NaN where
    they overflow float64)."""
    import numpy as np

    with np.errstate(over="ignore", invalid="ignore"):
        return float(polynomial_denominator(inputs["Q"], inputs["K"], sizes["degree"],
                                            _scale(sizes)).min())


def check_denominator(inputs: dict, sizes: dict) -> None:
    """Refuse inputs on which a denominator of the method is <= 0, or overflows float64 (in
    one line)."""
    import math

    low = min_denominator(inputs, sizes)
    if not math.isfinite(low):
        raise InvalidArgument(
            f"polynomial-forward: the feature-map denominator U1 (U2^T 1) overflows float64 "
            f"(B = {sizes['entry_bound']:g}, g = {sizes['degree']}, d = {sizes['d']}): use a "
            f"smaller entry bound")
    if not low > 0:
        raise InvalidArgument(
            f"polynomial-forward: the feature-map denominator U1 (U2^T 1) reaches {low:.3g} <= 0 "
            f"(B = {sizes['entry_bound']:g}, g = {sizes['degree']}, d = {sizes['d']}, "
            f"scale {sizes['scale']}): the degree-{sizes['degree']} Taylor polynomial of exp "
            f"is negative there; use a higher (even) degree or a smaller entry bound")


def error_vs_softmax(inputs: dict, outputs: dict, sizes: dict) -> float:
    """max |T - O| over entries, O = softmax(s QK^T) V exact in float64 (same scale s)."""
    import numpy as np

    exact = attention_softmax(inputs["Q"], inputs["K"], inputs["V"], scale=_scale(sizes))["O"]
    return float(np.max(np.abs(outputs["O"] - exact)))


def _extra(inputs: dict, outputs: dict, sizes: dict, blk: dict) -> dict:
    """The rank r, the measured error against exact softmax attention at the same scale, and
    the least denominator of the reference."""
    return {"rank": blk["rank"], "error_vs_softmax": error_vs_softmax(inputs, outputs, sizes),
            "min_denominator": min_denominator(inputs, sizes)}


class ErrorRow(NamedTuple):
    """One (B, g) of ``error_table``."""

    entry_bound: float
    degree: int
    n: int
    d: int
    rank: int
    error_vs_softmax: float
    min_denominator: float
    refused: bool


def error_table(entry_bounds, degrees, n: int, d: int, scale: str = "sqrt-d",
                seed: int = 0) -> list[ErrorRow]:
    """One row per (B, g): the float64 method's error against exact softmax attention and its
    least denominator, on the inputs ``run_kernel(..., seed=seed)`` samples (seed [seed, 0]),
    and whether that run is refused (a denominator <= 0 on them or on its probe inputs,
    seed [seed, 1]).  No traced run: a certified kernel equals this reference to 1e-9."""
    return [_error_row(bound, g, n, d, scale, seed) for bound in entry_bounds for g in degrees]


def _error_row(bound, g, n: int, d: int, scale: str, seed: int) -> ErrorRow:
    import numpy as np

    sizes = {"n": n, "d": d, "degree": parse_degree(g), "entry_bound": parse_bound(bound),
             "scale": parse_scale(scale)}
    x = _draw(sizes, np.random.default_rng([seed, 0]))
    probe = _draw(sizes, np.random.default_rng([seed, 1]))
    low = min_denominator(x, sizes)
    err = error_vs_softmax(x, _reference(x, sizes, {}), sizes)
    refused = not (low > 0 and min_denominator(probe, sizes) > 0)
    return ErrorRow(sizes["entry_bound"], sizes["degree"], n, d, rank(d, sizes["degree"]), err,
                    low, refused)


SPEC = KernelSpec(
    name="polynomial-forward",
    summary="approximate attention, polynomial method: U2^T V by streaming K, V, then Q",
    sizes=("n", "d"),
    inputs=lambda s: {"Q": (s["n"], s["d"]), "K": (s["n"], s["d"]), "V": (s["n"], s["d"]),
                      "coef": (1, rank(s["d"], s["degree"]))},
    outputs=lambda s: {"O": (s["n"], s["d"])},
    scratch=lambda s: {"KV": (rank(s["d"], s["degree"]), s["d"]),
                       "Z": (rank(s["d"], s["degree"]), 1)},
    run=run,
    reference=_reference,
    plan=plan,
    dry_sizes=_dry_sizes,
    count="polynomial-forward",
    options=OPTIONS,
    sample=_sample,
    sized_reference=True,
    extra=_extra,
)
