"""Attention backward: Li, Liang, Shi, Song et al. (arXiv 2410.09397), large and small cache.

v2: Q_bwd = Theta(min{(n^2 d^2 + n d^3) / M, (n^2 d + n d^2) / sqrt(M)}), crossover M = Theta(d^2);
FlashAttention's backward is optimal for M = Omega(d^2).  Known only from the abstract [summary];
the explicit form Q_bwd >= 2 n^2 d^2 / (M + 4 d^2) - M is derived for this project.
"""

from ioverify.claims import Claim, exact_search, kernel, symbolic

LARGE, SMALL = "attention-backward-large-cache", "attention-backward-small-cache"
LOWER = ("attention-backward-explicit",)

CLAIMS = [
    Claim(
        id=LARGE,
        title="Attention backward, large cache: FlashAttention's backward within the bounds",
        statement="Q_bwd >= 2 n^2 d^2 / (M + 4 d^2) - M for the FlashAttention-form backward "
                  "graph; FlashAttention's backward (both loop orders) reaches "
                  "Theta(n^2 d^2 / M) for M = Omega(d^2).",
        source="Li, Liang, Shi, Song et al., arXiv 2410.09397 (main theorem, v2); Dao et al., "
               "arXiv 2205.14135, Thm 5; explicit form derived",
        firmness="summary",
        variant="kernel",
        bounds=("attention-backward-v2", "attention-backward-v1", "attention-backward-explicit",
                "flash-backward-thm5"),
        kernels=("flash-backward-v1", "flash-backward-v2"),
        obligations=(exact_search(LARGE, "attention-backward", {"n": 1, "d": 1}, 3,
                                  variant="one-shot", lower_bound="attention-backward-explicit",
                                  heavy=True),)
        + tuple(kernel(LARGE, name, {"n": n, "d": 8}, memory, lower_bounds=LOWER)
                for name in ("flash-backward-v1", "flash-backward-v2")
                for n in (40, 45) for memory in (128, 256, 512))
        + (symbolic(LARGE, "crossover/attention-backward-v2"),
           symbolic(LARGE, "crossover/attention-backward-v1"),
           symbolic(LARGE, "explicit-vs-theta-min/attention-backward-explicit"),
           symbolic(LARGE, "count-vs-theta/flash-backward-count"),
           symbolic(LARGE, "kernel-count-vs-theory/flash-backward-v1")),
    ),
    Claim(
        id=SMALL,
        title="Attention backward, small cache: square tiling within the bounds",
        statement="For M < d^2 a backward pass that square-tiles every product with side "
                  "Theta(sqrt(M)) and materialises the n x n intermediates moves "
                  "O((n^2 d + n d^2) / sqrt(M)) words, above the explicit lower bound.",
        source="Li, Liang, Shi, Song et al., arXiv 2410.09397 (Algorithm 6, pseudo-code not "
               "available); the tiling is a reconstruction (docs: kernels-backward)",
        firmness="derived",
        variant="kernel",
        bounds=("attention-backward-small-cache", "attention-backward-explicit"),
        kernels=("square-tiling-backward",),
        obligations=tuple(kernel(SMALL, "square-tiling-backward", {"n": n, "d": 16}, memory,
                                 lower_bounds=LOWER)
                          for n in (32, 37) for memory in (16, 64, 200)),
    ),
]
