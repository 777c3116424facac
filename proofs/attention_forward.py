"""Attention forward: Saha and Ye (arXiv 2402.07443), large and small cache.

Thm 3.1: Q = Theta(min{n^2 d^2 / M, n^2 d / sqrt(M)}), crossover at M = d^2.  The explicit forms
used here are derived for this project (docs/theory.md §4) and are conjectures until checked:
Q >= n^2 d^2 / (M + 4 d^2) - M (large cache) and Q >= n^2 d / (2 sqrt(M)) - n^2 (small cache).
"""

from ioverify.claims import Claim, Part, exact_search, io_curve, kernel, symbolic

LARGE, SMALL = "attention-forward-large-cache", "attention-forward-small-cache"
TINY_OPTIMA = "attention-forward-tiny-optima"
TINY_RECOMPUTE = "attention-forward-tiny-optima-recompute"
# Optima of attention_forward(2, 1), found by `ioverify bench pebble` and re-checked here.
ONE_SHOT_OPTIMA = {3: 24, 4: 15, 5: 11, 6: 10, 7: 9, 8: 8}
RECOMPUTE_OPTIMA = {3: 24, 4: 15, 5: 11, 6: 10, 7: 9, 8: 8}
TINY = ({"n": 2, "d": 1}, range(3, 9))  # attention_forward(2, 1) at every M up to the trivial one

CLAIMS = [
    Claim(
        id=TINY_OPTIMA,
        title="Exact optima of the smallest attention graph (one-shot)",
        statement="attention_forward(2, 1) (24 vertices) in the one-shot variant: M=3: 24, "
                  "M=4: 15, M=5: 11, M=6: 10, M=7: 9, M=8: 8 (inputs plus outputs).",
        source="found by ioverify's exact search (the exact level of the toolkit)",
        firmness="derived",
        variant="one-shot",
        notes="The explicit lower bounds of this file are at most 0 on this instance: they say "
              "nothing this small. These optima are what any sharper bound must not exceed.",
        obligations=(io_curve(TINY_OPTIMA, "attention-forward", TINY[0], TINY[1],
                              variants=("one-shot",), optima={"one-shot": ONE_SHOT_OPTIMA}),),
    ),
    Claim(
        id=TINY_RECOMPUTE,
        title="Recomputation does not pay on the smallest attention graph",
        statement="attention_forward(2, 1) in Hong and Kung's recompute variant has the same "
                  "optima as in the one-shot variant: M=3: 24, M=4: 15, M=5: 11, M=6: 10, "
                  "M=7: 9, M=8: 8 (the curve of both variants).",
        source="found by ioverify's exact search (the exact level of the toolkit)",
        firmness="derived",
        variant="recompute",
        notes="Each exp(S_ij) has two uses (the row sum and the product with V), so "
              "recomputing it could save a store and a load; the exhaustive configuration "
              "search, horizon-free, shows it never does here.",
        obligations=(io_curve(TINY_RECOMPUTE, "attention-forward", TINY[0], TINY[1],
                              optima={"one-shot": ONE_SHOT_OPTIMA,
                                      "recompute": RECOMPUTE_OPTIMA}),),
    ),
    Claim(
        id=LARGE,
        title="Attention forward, large cache (M >= d^2): FlashAttention meets the lower bound",
        statement="Q >= n^2 d^2 / (M + 4 d^2) - M for any schedule of the attention graph; "
                  "FlashAttention's forward kernels reach Theta(n^2 d^2 / M).",
        source="Saha and Ye, arXiv 2402.07443, Thm 3.1 and Lemma 3.3; explicit form derived",
        firmness="derived",
        variant="one-shot",
        bounds=("saha-ye-thm3.1", "attention-forward-explicit-large", "flash-forward-thm2"),
        kernels=("flash-forward-v1", "flash-forward-v2"),
        obligations=(),
        parts=(
            Part("instances", "No schedule checked beats Q >= n^2 d^2 / (M + 4 d^2) - M: exact "
                              "search on the smallest attention graph (vacuous there: the "
                              "bound is <= 0) and certified FlashAttention kernels on a grid "
                              "(the sweeps of every kernel are in lower-bounds-vs-kernels).",
                 tuple(exact_search(LARGE, "attention-forward", TINY[0], memory,
                                    variant="one-shot",
                                    lower_bound="attention-forward-explicit-large", heavy=True)
                       for memory in TINY[1])
                 + tuple(kernel(LARGE, name, {"n": n, "d": 8}, memory,
                                lower_bounds=("attention-forward-explicit-large",
                                              "attention-forward-trivial"))
                         for name in ("flash-forward-v1", "flash-forward-v2")
                         for n in (48, 50) for memory in (64, 128, 256))),
            Part("any-schedule", "The explicit bound holds for every schedule of every "
                                 "instance: derived by hand from Lemma 3.3 and Hong-Kung, not "
                                 "machine-checked."),
            Part("tight", "It never exceeds the Theta (at most C times it; that it is not far "
                          "below it is not claimed: at M = n d it is <= 0), the Theta crosses "
                          "over at M = d^2, and FlashAttention's counts are O(n^2 d^2 / M) on "
                          "its regime.",
                 (symbolic(LARGE, "crossover/saha-ye-thm3.1"),
                  symbolic(LARGE, "explicit-vs-theta-min/attention-forward-explicit-large"),
                  symbolic(LARGE, "count-vs-theta/flash-forward-count"),
                  symbolic(LARGE, "count-vs-theta/flash2-forward-count"))),
        ),
    ),
    Claim(
        id=SMALL,
        title="Attention forward, small cache (M < d^2): square tiling meets the lower bound",
        statement="Q >= n^2 d / (2 sqrt(M)) - n^2 for any schedule of the attention graph; Saha "
                  "and Ye's square-tiling Algorithm 1 reaches Theta(n^2 d / sqrt(M)).",
        source="Saha and Ye, arXiv 2402.07443, Thm 3.1 and Algorithm 1; explicit form derived",
        firmness="derived",
        variant="one-shot",
        bounds=("saha-ye-thm3.1", "attention-forward-explicit-small", "saha-ye-algorithm1"),
        kernels=("square-tiling-forward",),
        obligations=(),
        parts=(
            Part("instances", "No schedule checked beats Q >= n^2 d / (2 sqrt(M)) - n^2: exact "
                              "search on the smallest attention graph (vacuous there) and the "
                              "certified square-tiling kernel on a grid.",
                 tuple(exact_search(SMALL, "attention-forward", TINY[0], memory,
                                    variant="one-shot",
                                    lower_bound="attention-forward-explicit-small", heavy=True)
                       for memory in TINY[1])
                 + tuple(kernel(SMALL, "square-tiling-forward", {"n": n, "d": 32}, memory,
                                lower_bounds=("attention-forward-explicit-small",
                                              "attention-forward-trivial"))
                         for n in (32, 45) for memory in (16, 64, 256, 1000))),
            Part("any-schedule", "The explicit bound holds for every schedule of every "
                                 "instance: derived by hand, not machine-checked."),
            Part("tight", "It never exceeds the Theta (at most C times it; that it is not far "
                          "below it is not claimed: it is <= 0 for d^2 / 4 <= M < d^2), and "
                          "Algorithm 1's count is O(n^2 d / sqrt(M)) for M < d^2.",
                 (symbolic(SMALL, "explicit-vs-theta-min/attention-forward-explicit-small"),
                  symbolic(SMALL, "count-vs-theta/saha-ye-algorithm1"),
                  symbolic(SMALL, "kernel-count-vs-theory/square-tiling-forward"))),
        ),
    ),
]
