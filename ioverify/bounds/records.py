"""Every result of the theory page (docs/theory.md) as a ``Bound`` record, in the order of its
sections.

Firmness is copied from the theory page.  Expressions with explicit constants can be evaluated;
Theta/Omega/O statements are recorded as shapes (``asymptotic=True``).  Results known only
without a formula are listed in ``UNRECORDED`` with the reason, so the docs say what is missing.
The exact kernel counts of ``ioverify.bounds.kernel_counts`` (when present) are added by
``ioverify.bounds.kernel_records``.
"""

from __future__ import annotations

import difflib

import sympy
from sympy import And, Eq, Min, Mod, Piecewise, binomial, floor, sqrt

from ioverify.bounds.model import Bound
from ioverify.bounds.symbols import (B, B_c, B_r, M, P, U, V, Z_QK, Z_in, a, b, d, g, k, m, n,
                                     r, s)
from ioverify._plugins import load as installed
from ioverify.errors import InvalidArgument

HK = "Hong & Kung, 'I/O complexity: the red-blue pebble game', STOC 1981"
LEAN = "machine-checked Lean 4 development of Hong-Kung (geoconuk/lean-misc-math)"
SAHA_YE = "Saha & Ye, 'The I/O complexity of attention', ICML 2024, arXiv 2402.07443"
LI_ET_AL = ("Li, Liang, Shi, Song et al., 'On Fine-Grained I/O Complexity of Attention "
            "Backward Passes', arXiv 2410.09397")
FA1 = "Dao et al., 'FlashAttention', arXiv 2205.14135"
FA2 = "Dao, 'FlashAttention-2', arXiv 2307.08691"
COSMA = "Kwasniewski et al., 'Red-blue pebbling revisited: near optimal parallel matrix-matrix " \
        "multiplication' (COSMA), SC 2019"
SUMMATIONS = ("chain", "tree")
ATTN_GRAPH = ("Saha-Ye attention graph: products q_il k_jl with a summation per S_ij, exp, "
              "row-sum trees, products A_ij v_jl with their sums, the final division")
MIN_FEASIBLE = 3  # every vertex of the scalar families has in-degree <= 2: M >= 3 is feasible


def _divides(x, y):
    """``x`` divides ``y`` (a regime condition; Z3 facts treat it as a relaxation)."""
    return Eq(Mod(y, x), 0)


# --- §1-2: the game, trivial and Hong-Kung bounds ------------------------------------------------

GAME = [
    Bound("hong-kung-partition", "Hong-Kung partition bound",
          "Any complete calculation with M red pebbles does at least M (P(2M) - 1) I/O, where "
          "P(2M) is the least number of parts of a 2M-partition; valid with recomputation and "
          "without any horizon.",
          f"{HK}, Thm 3.1 / Lemma 3.1; {LEAN}", "paper", "lower", "recompute",
          "any DAG (corrected rules: inputs are exactly the sources and are never computed)",
          (M, P), sympy.true, M * (P - 1), section="§2", family=None,
          notes="P is P(2M) of the DAG at hand; see ioverify.search.partition."),
    Bound("hong-kung-dominated-size", "Hong-Kung, dominated-size form",
          "If every set dominated by at most 2M vertices has at most U vertices, then "
          "q >= M |V| / U - M.",
          f"{HK}; {LEAN}", "paper", "lower", "recompute", "any DAG with |V| = V vertices",
          (M, V, U), sympy.true, M * V / U - M, section="§2"),
]

# --- §3: matrix multiplication -------------------------------------------------------------------

MATMUL = [
    Bound("matmul-trivial", "Matmul: inputs read, outputs written",
          "Every input of A (m x k) and B (k x n) is loaded and every entry of C stored: "
          "q >= mk + kn + mn.",
          f"{LEAN}", "paper", "lower", "recompute",
          "scalar matmul DAG, any per-entry summation", (m, k, n, M), M >= MIN_FEASIBLE,
          m * k + k * n + m * n, section="§3", options=(("summation", SUMMATIONS),),
          family="matmul"),
    Bound("matmul-lean", "Matmul lower bound (Lean)",
          "For any DAG with one product vertex per (i, l, j) and arbitrary per-entry summation, "
          "q >= mkn / sqrt(2M) - M; feasible iff M >= 3.",
          f"{LEAN}", "paper", "lower", "recompute",
          "one product vertex per (i, l, j), arbitrary per-entry summation", (m, k, n, M),
          M >= MIN_FEASIBLE, m * k * n / sqrt(2 * M) - M, section="§3",
          options=(("summation", SUMMATIONS),), monotone_in_M=True, family="matmul"),
    Bound("matmul-lean-product", "Matmul: mkn <= 2 q sqrt(M) (Lean)",
          "For the same DAGs, mkn <= 2 q sqrt(M), i.e. q >= mkn / (2 sqrt(M)).",
          f"{LEAN}", "paper", "lower", "recompute",
          "one product vertex per (i, l, j), arbitrary per-entry summation", (m, k, n, M),
          M >= MIN_FEASIBLE, m * k * n / (2 * sqrt(M)), section="§3",
          options=(("summation", SUMMATIONS),), monotone_in_M=True, family="matmul"),
    Bound("cosma", "COSMA sequential lower bound",
          "For the FMA-chain matmul DAG without recomputation, q >= 2mnk / sqrt(M) + mn.",
          f"{COSMA}, Thm 1", "paper", "lower", "one-shot",
          "FMA chain per entry of C (c += a b as one vertex)", (m, k, n, M), sympy.true,
          2 * m * n * k / sqrt(M) + m * n, section="§3", options=(("summation", ("chain",)),),
          monotone_in_M=True, family="matmul",
          notes="ioverify's matmul family has separate product and addition vertices, not FMA "
                "vertices: a confrontation on it is on a neighbouring graph."),
    Bound("cosma-tiling", "COSMA tiled schedule",
          "Holding a tile of a x b outputs in fast memory (ab + a + b <= M) costs "
          "mnk (1/a + 1/b) + mn, within sqrt(M)/(sqrt(M+1) - 1) of the lower bound.",
          f"{COSMA}", "paper", "upper", "one-shot", "FMA chain per entry of C",
          (m, k, n, M, a, b), And(a * b + a + b <= M, a <= m, b <= n, _divides(a, m),
                                  _divides(b, n)),
          m * n * k * (1 / a + 1 / b) + m * n, section="§3", family="matmul",
          notes="The count holds when a divides m and b divides n (whole tiles); with partial "
                "tiles a schedule moves more (ceilings), so the record's regime requires "
                "exact division."),
]

# --- §4: attention forward (Saha & Ye) -----------------------------------------------------------

FORWARD = [
    Bound("saha-ye-thm3.1", "Attention forward: Theta(min{n^2 d^2 / M, n^2 d / sqrt(M)})",
          "The I/O complexity of attention (forward, standard matrix multiplication for Q K^T) "
          "is Theta(min{n^2 d^2 / M, n^2 d / sqrt(M)}); the crossover is at M = d^2.",
          f"{SAHA_YE}, Thm 3.1", "paper", "tight", "recompute", ATTN_GRAPH, (n, d, M),
          sympy.true, Min(n**2 * d**2 / M, n**2 * d / sqrt(M)), asymptotic=True, section="§4",
          monotone_in_M=True, family="attention-forward",
          notes="The lower bound uses only the Q K^T part, so it holds for any algorithm forming "
                "Q K^T by standard products, FlashAttention's online softmax included."),
    Bound("saha-ye-algorithm1", "Saha-Ye Algorithm 1 (small cache), exact count",
          "Square tiling with block side B = floor(sqrt(M/4)): phase 1 forms exp(Q K^T) tile by "
          "tile and writes it and the row sums, phase 2 multiplies by V and divides; cache use "
          "<= 3B^2 + B; when B divides n and d it moves 4n^2 d / B + n^2 + nd + 2n words.",
          f"{SAHA_YE}, Algorithm 1 (count derived for this project)", "derived", "exact",
          "recompute", ATTN_GRAPH, (n, d, M, B),
          And(3 * B**2 + B <= M, B <= n, B <= d, _divides(B, n), _divides(B, d)),
          4 * n**2 * d / B + n**2 + n * d + 2 * n, section="§4",
          defaults=((B, floor(sqrt(M / 4))),), family="attention-forward",
          notes="B defaults to floor(sqrt(M/4)); give B to evaluate another block side."),
    Bound("attention-any-matmul", "Attention forward, any matrix-multiplication algorithm",
          "Over a finite field, for any matrix-multiplication algorithm (fast ones too), "
          "attention needs Omega(min{n^2 d^2 / M, n^2}) I/O.",
          f"{SAHA_YE}", "paper", "lower", "any matmul algorithm, finite field",
          "attention with Q K^T by any matrix-multiplication algorithm", (n, d, M), sympy.true,
          Min(n**2 * d**2 / M, n**2), asymptotic=True, section="§4", monotone_in_M=True),
    Bound("attention-forward-explicit-large", "Attention forward, explicit (large-cache form)",
          "Q >= n^2 d^2 / (M + 4 d^2) - M; matches the n^2 d^2 / M branch for M >= d^2.",
          f"derived for ioverify from {SAHA_YE}, Lemma 3.3 and {HK}", "derived", "lower",
          "recompute", ATTN_GRAPH + "; any algorithm forming Q K^T by standard products",
          (n, d, M), M >= MIN_FEASIBLE, n**2 * d**2 / (M + 4 * d**2) - M, section="§4",
          options=(("summation", SUMMATIONS),), monotone_in_M=True, family="attention-forward"),
    Bound("attention-forward-explicit-small", "Attention forward, explicit (small-cache form)",
          "Q >= n^2 d / (2 sqrt(M)) - n^2; matches the n^2 d / sqrt(M) branch for M < d^2.",
          f"derived for ioverify from {SAHA_YE} and {HK}", "derived", "lower", "recompute",
          ATTN_GRAPH + "; any algorithm forming Q K^T by standard products", (n, d, M),
          M >= MIN_FEASIBLE, n**2 * d / (2 * sqrt(M)) - n**2, section="§4",
          options=(("summation", SUMMATIONS),), monotone_in_M=True, family="attention-forward"),
    Bound("attention-forward-trivial", "Attention forward: inputs read, outputs written",
          "Every entry of Q, K, V is loaded and every entry of O stored: Q >= 4nd.",
          "derived for ioverify (every input has a successor, every output is computed)",
          "derived", "lower", "recompute", ATTN_GRAPH, (n, d, M), M >= MIN_FEASIBLE,
          4 * n * d, section="§4", options=(("summation", SUMMATIONS),),
          family="attention-forward"),
]

# --- §5: attention backward (Li et al.) and sparse attention -------------------------------------

BACKWARD = [
    Bound("attention-backward-v2", "Attention backward (v2, 2026)",
          "Q_bwd = Theta(min{(n^2 d^2 + n d^3) / M, (n^2 d + n d^2) / sqrt(M)}), crossover "
          "M = Theta(d^2); FlashAttention's backward is optimal for M = Omega(d^2), their "
          "Algorithm 6 for M = o(d^2); lower bounds assume standard matrix multiplication. "
          "Recorded for d <= n only: on ioverify's FlashAttention-form backward graph (no d x d "
          "weight products) a certified kernel contradicts it for d >> n (claim "
          "attention-backward-large-cache).",
          f"{LI_ET_AL}, ICLR 2026 version: Theorem 1.1 (main), Theorems 4.1/4.2 (large cache, "
          f"upper/lower), Theorem 4.3 (small-cache upper, Algorithm 6), Theorem 4.4 "
          f"(small-cache lower)", "summary", "tight", "recompute",
          "attention backward (Alman-Song algebra), standard matrix multiplication", (n, d, M),
          d <= n, Min((n**2 * d**2 + n * d**3) / M, (n**2 * d + n * d**2) / sqrt(M)),
          asymptotic=True, section="§5", monotone_in_M=True, family="attention-backward"),
    Bound("attention-backward-v2-alman-song", "Attention backward (v2, 2026), Alman-Song form",
          "The v2 bound read on the computation of Alman and Song that the paper follows: the "
          "gradient dL/dX of L(X) = 1/2 ||softmax(A1 X A2^T) A3 Y - E||_F^2 (X, Y d x d "
          "weights), whose weight products (n x d)(d x d) can force the n d^2 and n d^3 terms: "
          "Q_bwd = Theta(min{(n^2 d^2 + n d^3) / M, (n^2 d + n d^2) / sqrt(M)}) for every n, d "
          "and M.",
          f"{LI_ET_AL}, ICLR 2026 version, Theorem 1.1; Alman & Song, arXiv 2402.04497, "
          f"Definition 1.5 (the loss and its gradient)", "summary", "tight", "recompute",
          "Alman-Song gradient graph dL/dX (weight products included), standard matrix "
          "multiplication", (n, d, M), sympy.true,
          Min((n**2 * d**2 + n * d**3) / M, (n**2 * d + n * d**2) / sqrt(M)),
          asymptotic=True, section="§5", monotone_in_M=True, family="alman-song-backward"),
    Bound("alman-song-backward-trivial", "Alman-Song gradient: inputs read, output written",
          "Every entry of A1, A2, A3, E, X, Y is loaded and every entry of dX stored: "
          "Q >= 4nd + 3d^2.",
          "derived for ioverify (every input has a successor, every output is computed)",
          "derived", "lower", "recompute", "Alman-Song gradient graph dL/dX", (n, d, M),
          M >= MIN_FEASIBLE, 4 * n * d + 3 * d**2, section="§5",
          options=(("summation", SUMMATIONS),), family="alman-song-backward"),
    Bound("attention-backward-v1", "Attention backward (v1, 2024)",
          "Q_bwd = Theta(min{n^2 d^2 / M, n^2 d / sqrt(M)}).",
          f"{LI_ET_AL} (v1, 2024: 'Fine-grained Attention I/O Complexity: Comprehensive "
          f"Analysis for Backward Passes'; no readable statement available)", "recalled",
          "tight", "recompute",
          "attention backward, standard matrix multiplication", (n, d, M), sympy.true,
          Min(n**2 * d**2 / M, n**2 * d / sqrt(M)), asymptotic=True, section="§5",
          monotone_in_M=True, family="attention-backward"),
    Bound("attention-backward-explicit", "Attention backward, explicit",
          "A FlashAttention-style backward graph (S and dP recomputed by standard products, P "
          "not an input) contains two disjoint (n x d)(d x n) products, so "
          "Q_bwd >= 2 n^2 d^2 / (M + 4 d^2) - M.",
          "derived for ioverify from the forward explicit bound", "derived", "lower",
          "recompute", "FlashAttention-style backward graph, S and dP by standard products",
          (n, d, M), M >= MIN_FEASIBLE, 2 * n**2 * d**2 / (M + 4 * d**2) - M, section="§5",
          options=(("summation", SUMMATIONS),), monotone_in_M=True, family="attention-backward"),
    Bound("attention-backward-small-cache", "Attention backward, reconstructed small-cache "
          "algorithm",
          "Square-tile every product with side Theta(sqrt(M)), materialising n x n intermediates "
          "in slow memory: O((n^2 d + n d^2) / sqrt(M)) for M <= d^2.",
          f"reconstructed for ioverify ({LI_ET_AL}'s pseudo-code was not available)",
          "derived", "upper", "recompute", "attention backward", (n, d, M), M <= d**2,
          (n**2 * d + n * d**2) / sqrt(M), asymptotic=True, section="§5", monotone_in_M=True),
    Bound("sparse-attention", "Sparse attention lower bound",
          "Forward and backward, both cache regimes: Omega(min{Z_in^2 / M, Z_in sqrt(Z_QK) / "
          "sqrt(M)}), Z_in the non-zeros of the inputs and Z_QK of Q K^T; dense: Z_in = nd, "
          "Z_QK = n^2. No matching upper bound is claimed.",
          f"{LI_ET_AL}", "recalled", "lower", "recompute", "sparse attention graph",
          (Z_in, Z_QK, M), sympy.true, Min(Z_in**2 / M, Z_in * sqrt(Z_QK) / sqrt(M)),
          asymptotic=True, section="§5", monotone_in_M=True),
]

# --- §6: FlashAttention --------------------------------------------------------------------------

FLASH = [
    Bound("flash-forward-thm2", "FlashAttention forward (Thm 2)",
          "FlashAttention's forward pass makes Theta(n^2 d^2 / M) HBM accesses for "
          "d <= M <= nd.", f"{FA1}, Thm 2", "paper", "upper", "recompute", ATTN_GRAPH,
          (n, d, M), And(d <= M, M <= n * d), n**2 * d**2 / M, asymptotic=True, section="§6",
          monotone_in_M=True),
    Bound("standard-attention", "Standard attention (Thm 2)",
          "Standard attention (materialising S and P in HBM) makes Theta(nd + n^2) accesses.",
          f"{FA1}, Thm 2", "paper", "upper", "recompute", ATTN_GRAPH, (n, d, M), sympy.true,
          n * d + n**2, asymptotic=True, section="§6"),
    Bound("flash-backward-thm5", "FlashAttention backward (Thm 5)",
          "FlashAttention's backward pass (outer loop over K/V blocks, P recomputed from the row "
          "statistics) makes Theta(n^2 d^2 / M) accesses for d <= M <= nd.",
          f"{FA1}, Algorithm 4, Thm 5", "paper", "upper", "recompute", "attention backward",
          (n, d, M), And(d <= M, M <= n * d), n**2 * d**2 / M, asymptotic=True, section="§6",
          monotone_in_M=True),
    Bound("flash-block-sparse", "Block-sparse FlashAttention (Prop. 4)",
          "Block-sparse FlashAttention makes Theta(nd + n^2 d^2 s / M) accesses, s the fraction "
          "of non-zero blocks.", f"{FA1}, Prop. 4", "paper", "upper", "recompute",
          "block-sparse attention graph", (n, d, M, s), And(d <= M, M <= n * d, s <= 1),
          n * d + n**2 * d**2 * s / M, asymptotic=True, section="§6", monotone_in_M=True),
    Bound("flash-forward-count", "FlashAttention forward (Algorithm 1), exact count",
          "With exact divisions (T_c = n / B_c), FlashAttention's forward loop structure moves "
          "2nd + T_c (3nd + 4n) words.", f"{FA1}, Algorithm 1 (count derived for ioverify)",
          "derived", "exact", "recompute", ATTN_GRAPH, (n, d, M, B_c), _divides(B_c, n),
          2 * n * d + (n / B_c) * (3 * n * d + 4 * n), section="§6",
          family="attention-forward",
          notes="The block sizes carry the memory; whether they fit in M is the kernel's "
                "concern (see the facts flash-literal-blocks-*). M is accepted for uniformity."),
    Bound("flash-backward-count", "FlashAttention backward (Algorithm 4), exact count",
          "With exact divisions (T_c = n / B_c), the backward loop structure moves "
          "4nd + T_c (5nd + 2n) words.", f"{FA1}, Algorithm 4 (count derived for ioverify)",
          "derived", "exact", "recompute", "attention backward", (n, d, M, B_c),
          _divides(B_c, n), 4 * n * d + (n / B_c) * (5 * n * d + 2 * n), section="§6",
          family="attention-backward", notes="M is accepted for uniformity."),
    Bound("flash2-forward-count", "FlashAttention-2 forward, exact count",
          "With exact divisions (T_r = n / B_r), FlashAttention-2's forward (outer loop over Q "
          "blocks) moves 2nd + 2nd T_r + n words.",
          f"{FA2} (count derived for ioverify)", "derived", "exact", "recompute", ATTN_GRAPH,
          (n, d, M, B_r), _divides(B_r, n), 2 * n * d + 2 * n * d * (n / B_r) + n,
          section="§6", family="attention-forward", notes="M is accepted for uniformity."),
]

# --- §7: approximate attention -------------------------------------------------------------------

APPROXIMATE = [
    Bound("approximate-attention-rank", "Polynomial-method rank (monomial count)",
          "The degree-g polynomial method factors P(Q K^T) = U1 U2^T with r = C(d + g, g) "
          "columns (a direct count of the monomials of degree <= g in d variables).",
          "Alman & Song, arXiv 2302.13214 (count derived for ioverify)", "derived", "exact",
          "any", "monomial features of the rows of Q and K", (d, g), sympy.true,
          binomial(d + g, g), section="§7", quantity="r",
          notes="The paper states a bound of the form C(2(g + d), 2g) [recalled]; an 'exact' "
                "here is a count of columns, not of I/O."),
    Bound("approximate-attention-blocked", "Approximate attention, natural blocking",
          "Stream K and V once to build U2^T V (r x d) and U2^T 1, then stream Q: O(nd) if "
          "r d words fit in fast memory, otherwise like an (n x r)(r x d) product, "
          "O(n r d / sqrt(M)).",
          "derived for ioverify (Papp, Sobczyk, Zouzias, arXiv 2605.23751: exact regimes not "
          "available)", "derived", "upper", "recompute", "polynomial-method attention",
          (n, d, M, r), sympy.true,
          Piecewise((n * d, r * d <= M), (n * r * d / sqrt(M), True)), asymptotic=True,
          section="§7", family="approximate-attention"),
    Bound("approximate-attention-trivial", "Approximate attention: inputs read, outputs written",
          "Every entry of Q, K, V is loaded and every entry of the output stored: Q >= 4nd "
          "(the trivial Omega(nd) the approximate-attention results are measured against).",
          "derived for ioverify", "derived", "lower", "recompute",
          "polynomial-method attention graph, degree >= 1", (n, d, M), M >= MIN_FEASIBLE,
          4 * n * d, section="§7", family="approximate-attention",
          options=(("degree", None), ("summation", SUMMATIONS))),
]

# Results the theory knows only without a formula: listed in the docs, never evaluated.
UNRECORDED = (
    ("Alman & Song, arXiv 2302.13214 / 2402.04497",
     "n^{1+o(1)} time for d = O(log n), B = o(sqrt(log n)); impossible under SETH at "
     "B = Theta(sqrt(log n)). A time bound with an o(1) exponent, not an I/O formula."),
    ("Papp, Sobczyk, Zouzias, arXiv 2605.23751 [summary]",
     "I/O almost linear in n in most regimes, with close lower bounds: the exact regimes and "
     "formulas were not available."),
    ("Papp, Sobczyk, Yzelman, arXiv 2506.10854 [summary]",
     "Partial computation (PRBP) game: a game variant, not a formula."),
)


def _collect() -> dict[str, Bound]:
    records = GAME + MATMUL + FORWARD + BACKWARD + FLASH + APPROXIMATE
    from ioverify.bounds.kernel_records import kernel_bounds

    records = [*records, *kernel_bounds(), *installed("ioverify.bounds", Bound)]
    registry: dict[str, Bound] = {}
    for bound in records:
        if bound.id in registry:
            raise InvalidArgument(f"duplicate bound id {bound.id!r}")
        registry[bound.id] = bound
    return registry


REGISTRY: dict[str, Bound] = _collect()


def get(bound_id: str) -> Bound:
    """The record ``bound_id``; an unknown id names the closest known ids."""
    try:
        return REGISTRY[bound_id]
    except KeyError:
        close = difflib.get_close_matches(bound_id, REGISTRY, n=4, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise InvalidArgument(f"unknown bound {bound_id!r}{hint} ({len(REGISTRY)} known: "
                              f"'ioverify bounds' lists them)") from None
