"""Attention backward: Li, Liang, Shi, Song et al. (arXiv 2410.09397, ICLR 2026 version),
large and small cache.

v2: Q_bwd = Theta(min{(n^2 d^2 + n d^3) / M, (n^2 d + n d^2) / sqrt(M)}), crossover M = Theta(d^2);
FlashAttention's backward is optimal for M = Omega(d^2).  Known only from the abstract [summary];
the explicit form Q_bwd >= 2 n^2 d^2 / (M + 4 d^2) - M is derived for this project.  On ioverify's
FlashAttention-form backward graph the v2 form is contradicted for d >> n (the graph has no d x d
weight products, which the nd^2 and nd^3 terms would need), so its record holds d <= n only.  On
the Alman-Song form (the gradient with respect to the weights X, with the weight products) the
same formula is confronted with a certified kernel for every shape.
"""

from ioverify.claims import Claim, Part, confront, exact_search, kernel, symbolic

LARGE, SMALL = "attention-backward-large-cache", "attention-backward-small-cache"
TINY_OPTIMA = "attention-backward-tiny-optima"
TINY_RECOMPUTE = "attention-backward-tiny-optima-recompute"
# Optima of attention_backward(1, 1) (16 vertices), found by `ioverify bench frontier`, equal in
# both variants, from the smallest feasible M to the one where they reach inputs plus outputs.
TINY_OPTIMA_BY_M = {3: 15, 4: 12, 5: 11, 6: 10, 7: 9}
TINY = {"n": 1, "d": 1}
LOWER = ("attention-backward-explicit",)
KERNELS = ("flash-backward-v1", "flash-backward-v2", "square-tiling-backward")
# The Alman-Song form: gradient with respect to the weights, with the (n x d)(d x d) products.
AS_KERNEL, AS_LOWER = "alman-song-backward", ("alman-song-backward-trivial",)
AS_RUNS = (({"n": 4, "d": 32}, 256), ({"n": 4, "d": 32}, 2048), ({"n": 40, "d": 4}, 128),
           ({"n": 13, "d": 7}, 100), ({"n": 16, "d": 16}, 512))
AS_SWEEPS = (
    ("d-grows-past-n", "d", [({"n": 16, "d": d}, 2048) for d in (32, 64, 128, 256)]),
    ("n-grows", "n", [({"n": n, "d": 8}, 256) for n in (16, 32, 64, 128)]),
    ("M-from-below-to-above-d^2", "M", [({"n": 16, "d": 64}, m)
                                        for m in (512, 1024, 4096, 16384)]),
)


CLAIMS = [
    Claim(
        id=TINY_OPTIMA,
        title="Exact optima of the smallest attention backward graph (one-shot)",
        statement="attention_backward(1, 1) (16 vertices) in the one-shot variant: M=3: 15, "
                  "M=4: 12, M=5: 11, M=6: 10, M=7: 9 (inputs plus outputs).",
        source="found by ioverify's exact search (the exact level of the toolkit)",
        firmness="derived",
        variant="one-shot",
        notes="What any sharper lower bound for the backward pass must not exceed on this "
              "instance.",
        obligations=tuple(
            exact_search(TINY_OPTIMA, "attention-backward", TINY, memory, variant="one-shot",
                         optimum=q)
            for memory, q in TINY_OPTIMA_BY_M.items()),
    ),
    Claim(
        id=TINY_RECOMPUTE,
        title="Recomputation does not pay on the smallest attention backward graph",
        statement="attention_backward(1, 1) in Hong and Kung's recompute variant has the same "
                  "optima as in the one-shot variant: M=3: 15, M=4: 12, M=5: 11, M=6: 10, "
                  "M=7: 9.",
        source="found by ioverify's exact search (the exact level of the toolkit)",
        firmness="derived",
        variant="recompute",
        notes="The backward graph recomputes S and P from Q, K and L by construction; the "
              "exhaustive configuration search, horizon-free, shows that recomputing any vertex "
              "again never saves I/O here.",
        obligations=tuple(
            exact_search(TINY_RECOMPUTE, "attention-backward", TINY, memory,
                         variant="recompute", optimum=q)
            for memory, q in TINY_OPTIMA_BY_M.items()),
    ),
    Claim(
        id=LARGE,
        title="Attention backward, large cache: FlashAttention's backward within the bounds",
        statement="Q_bwd >= 2 n^2 d^2 / (M + 4 d^2) - M for the FlashAttention-form backward "
                  "graph; Q_bwd = Theta(min{(n^2 d^2 + n d^3)/M, (n^2 d + n d^2)/sqrt(M)}); "
                  "FlashAttention's backward (both loop orders) reaches Theta(n^2 d^2 / M) for "
                  "M = Omega(d^2).",
        source="Li, Liang, Shi, Song et al., arXiv 2410.09397, ICLR 2026 version, Theorem 1.1 "
               "(main) and Theorems 4.1/4.2 (large cache); Dao et al., arXiv 2205.14135, Thm 5; "
               "explicit form derived",
        firmness="summary",
        variant="kernel",
        bounds=("attention-backward-v2", "attention-backward-v1", "attention-backward-explicit",
                "flash-backward-thm5"),
        kernels=KERNELS,
        obligations=(),
        parts=(
            Part("instances", "No schedule checked beats Q_bwd >= 2 n^2 d^2 / (M + 4 d^2) - M "
                              "on the FlashAttention-form backward graph: exact search on "
                              "the smallest backward graph (vacuous there: the bound is <= 0) "
                              "and certified FlashAttention backward kernels, both loop "
                              "orders, on a grid.",
                 (exact_search(LARGE, "attention-backward", {"n": 1, "d": 1}, 3,
                               variant="one-shot", lower_bound="attention-backward-explicit",
                               heavy=True),)
                 + tuple(kernel(LARGE, name, {"n": n, "d": 8}, memory, lower_bounds=LOWER)
                         for name in ("flash-backward-v1", "flash-backward-v2")
                         for n in (40, 45) for memory in (128, 256, 512))),
            Part("any-schedule", "The explicit bound holds for every schedule of every "
                                 "instance: derived by hand, not machine-checked."),
            Part("below-theta", "The explicit bound never exceeds the Theta: it is at most C "
                                "times min{n^2 d^2 / M, n^2 d / sqrt(M)} (that it is not far "
                                "below it is not claimed: at M = 2 n d it is <= 0).",
                 (symbolic(LARGE, "explicit-vs-theta-min/attention-backward-explicit"),)),
            Part("theta-n>=d", "Q_bwd = Theta(min{(n^2 d^2 + n d^3)/M, (n^2 d + n d^2)/sqrt(M)}) "
                               "for d <= n, crossover M = Theta(d^2).",
                 tuple(confront(LARGE, "attention-backward-v2", name, "n-grows",
                                [({"n": n, "d": 8}, 256) for n in (16, 32, 64, 128)], along="n")
                       for name in KERNELS)
                 + (symbolic(LARGE, "crossover/attention-backward-v2"),),
                 reading="the v2 record, restricted to d <= n"),
            Part("theta-all-shapes", "The same Theta holds for every n, d and M, d >> n "
                                     "included.",
                 (confront(LARGE, "attention-backward-v2", "square-tiling-backward",
                           "d-grows-past-n", [({"n": 4, "d": d}, 64) for d in (64, 128, 256, 512)],
                           along="d", regime=False),),
                 reading="the formula attached to ioverify's FlashAttention-form backward graph "
                         "for all n, d, M (outside the record's regime d <= n); the graph has "
                         "no d x d weight products, so the n d^2 and n d^3 terms cannot be "
                         "forced"),
            Part("flash-optimal", "FlashAttention's backward in Algorithm 4's loop order "
                                  "(flash-backward-v1) moves O(n^2 d^2 / M) for M = Omega(d^2). "
                                  "The other loop order (flash-backward-v2) is certified on a "
                                  "grid (instances), but no fact bounds its count.",
                 (symbolic(LARGE, "count-vs-theta/flash-backward-count"),
                  symbolic(LARGE, "kernel-count-vs-theory/flash-backward-v1"),
                  symbolic(LARGE, "crossover/attention-backward-v1"))),
            Part("alman-song-kernel", "The Alman-Song gradient dL/dX (weight products "
                                      "included) is computed by a certified kernel that moves "
                                      "its closed form, above the trivial bound 4nd + 3d^2, "
                                      "for d >> n, d << n and M below and above d^2.",
                 tuple(kernel(LARGE, AS_KERNEL, sizes, memory, lower_bounds=AS_LOWER)
                       for sizes, memory in AS_RUNS)),
            Part("theta-alman-song", "On the Alman-Song graph the v2 Theta holds for every n, d "
                                     "and M: its ratio to the certified kernel stays bounded "
                                     "as d grows past n, as n grows, and as M crosses d^2.",
                 tuple(confront(LARGE, "attention-backward-v2-alman-song", AS_KERNEL, name, runs,
                                along=along) for name, along, runs in AS_SWEEPS),
                 reading="the v2 formula on the computation the paper follows (Alman and Song's "
                         "loss, gradient with respect to the weights X), every n, d and M"),
        ),
    ),
    Claim(
        id=SMALL,
        title="Attention backward, small cache: square tiling within the bounds",
        statement="For M < d^2 a backward pass that square-tiles every product with side "
                  "Theta(sqrt(M)) and materialises the n x n intermediates moves "
                  "O((n^2 d + n d^2) / sqrt(M)) words, above the explicit lower bound.",
        source="Li, Liang, Shi, Song et al., arXiv 2410.09397, ICLR 2026 version, Theorem 4.3 "
               "(small-cache upper bound via Algorithm 6; pseudo-code not available); the "
               "tiling is a reconstruction (docs: kernels-backward)",
        firmness="derived",
        variant="kernel",
        bounds=("attention-backward-small-cache", "attention-backward-explicit"),
        kernels=("square-tiling-backward",),
        obligations=(),
        parts=(
            Part("certified", "The square-tiling backward kernel is certified, moves its closed "
                              "form, and stays above the explicit lower bound.",
                 tuple(kernel(SMALL, "square-tiling-backward", {"n": n, "d": 16}, memory,
                              lower_bounds=LOWER)
                       for n in (32, 37) for memory in (16, 64, 200))),
            Part("O-bound", "Its count is <= C (n^2 d + n d^2) / sqrt(M) for every M <= d^2, with "
                            "C = 47 the smallest constant proved.",
                 (symbolic(SMALL, "count-vs-theta/square-tiling-backward"),)),
        ),
    ),
]
