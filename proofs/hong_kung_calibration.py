"""Calibration: the reference pebbling optima, Hong-Kung's partition lemma, and the matmul bounds.

docs/theory.md §1-§3.  These instances are small enough to be settled exactly; they calibrate
the searches against numbers found independently, and the partition bound against the optima.
"""

from ioverify.claims import Claim, Part, exact_search, kernel, partition, symbolic

PYRAMID, TREE, MATMUL = {"height": 3}, {"leaves": 8}, {"m": 2, "k": 2, "n": 2}

# Reference optima, recompute variant (docs/theory.md §1, from an independent exhaustive search).
REFERENCE = (
    ("pyramid", PYRAMID, {3: 11, 4: 7, 5: 5}),
    ("binary-tree", TREE, {3: 15, 4: 11, 5: 9}),
    ("matmul", MATMUL, {3: 25, 4: 17, 5: 14, 6: 13}),
)

OPTIMA = "reference-optima"
PARTITION = "hong-kung-partition-lemma"
LEAN = "matmul-lean-bounds"
COSMA = "cosma-tiling"

CLAIMS = [
    Claim(
        id=OPTIMA,
        title="Reference pebbling optima (recompute variant)",
        statement="Pyramid of height 3: M=3: 11, M=4: 7, M=5: 5. Complete binary tree with 8 "
                  "leaves: M=3: 15, M=4: 11, M=5: 9. 2x2x2 matmul with chain sums: M=3: 25, "
                  "M=4: 17, M=5: 14, M=6: 13.",
        source="docs/theory.md §1 (independent exhaustive search)",
        firmness="derived",
        variant="recompute",
        obligations=tuple(
            exact_search(OPTIMA, family, params, memory, optimum=q, heavy=family == "matmul")
            for family, params, optima in REFERENCE for memory, q in optima.items()),
    ),
    Claim(
        id=PARTITION,
        title="Hong-Kung: Q >= M (P(2M) - 1)",
        statement="Any complete calculation with M red pebbles moves at least M (P(2M) - 1) "
                  "words, with recomputation and without any horizon; so the partition bound "
                  "never exceeds the exact optimum.",
        source="Hong and Kung, STOC 1981, Theorem 3.1 / Lemma 3.1 (machine-checked in Lean)",
        firmness="paper",
        variant="recompute",
        bounds=("hong-kung-partition",),
        obligations=(),
        parts=(
            Part("instances", "On every reference instance the least 2M-partition is found, "
                              "and M (P(2M) - 1) does not exceed the known optimum.",
                 tuple(partition(PARTITION, family, params, memory, at_most=q)
                       for family, params, optima in REFERENCE[:2]
                       for memory, q in optima.items())
                 + (partition(PARTITION, "matmul", MATMUL, 3, at_most=25),)),
            Part("theorem", "For every DAG and every complete calculation, Q >= M (P(2M) - 1) "
                            "(Hong and Kung's Lemma 3.1; machine-checked in Lean outside "
                            "ioverify, which relies on it and does not re-prove it)."),
        ),
    ),
    Claim(
        id=LEAN,
        title="Matrix multiplication: q >= mk + kn + mn and mkn <= 2 q sqrt(M)",
        statement="For any DAG with one product vertex per (i, l, j), every schedule reads the "
                  "inputs and writes the outputs, and mkn <= 2 q sqrt(M).",
        source="Lean development of Hong-Kung (docs/theory.md §3)",
        firmness="paper",
        variant="recompute",
        bounds=("matmul-trivial", "matmul-lean-product", "matmul-lean"),
        obligations=(),
        parts=(
            Part("instances", "No schedule of the 2x2x2 matmul beats either bound at M = 3 to 6 "
                              "(exact search), and both bounds are nonincreasing in M.",
                 tuple(exact_search(LEAN, "matmul", MATMUL, memory, lower_bound=bound)
                       for memory in (3, 4, 5, 6)
                       for bound in ("matmul-trivial", "matmul-lean-product", "matmul-lean"))
                 + (symbolic(LEAN, "monotone/matmul-lean"),
                    symbolic(LEAN, "monotone/matmul-lean-product"))),
            Part("theorem", "Both hold for every DAG with one product vertex per (i, l, j) "
                            "(proved in Lean outside ioverify; not re-proved here)."),
        ),
    ),
    Claim(
        id=COSMA,
        title="COSMA: tiled matmul within the FMA-chain lower bound",
        statement="q >= 2mnk/sqrt(M) + mn for the FMA-chain DAG without recomputation; a tile "
                  "of a x b outputs (ab + a + b <= M) costs mnk (1/a + 1/b) + mn.",
        source="Kwasniewski et al., COSMA, SC 2019, Theorem 1",
        firmness="paper",
        variant="kernel",
        bounds=("cosma", "cosma-tiling", "matmul-lean"),
        kernels=("matmul-tiled",),
        obligations=(),
        parts=(
            Part("tiling", "The tiled kernel is certified, moves at most COSMA's published "
                           "tile count mnk (1/a + 1/b) + mn for its own tile a x b where the "
                           "tiles are whole, and stays "
                           "above the FMA-chain and Lean bounds; the tile count is never below "
                           "the lower bound.",
                 tuple(kernel(COSMA, "matmul-tiled", sizes, memory,
                              lower_bounds=("cosma", "matmul-lean"))
                       for sizes in ({"m": 32, "k": 32, "n": 32}, {"m": 30, "k": 17, "n": 41})
                       for memory in (16, 64, 256))
                 # whole tiles (the kernel's a x b divides m x n): the published count applies
                 + tuple(kernel(COSMA, "matmul-tiled", sizes, memory,
                                lower_bounds=("cosma", "matmul-lean"),
                                upper_bounds=("cosma-tiling",))
                         for sizes, memory in (({"m": 27, "k": 8, "n": 27}, 16),
                                               ({"m": 28, "k": 16, "n": 28}, 64),
                                               ({"m": 30, "k": 12, "n": 30}, 256)))
                 + (symbolic(COSMA, "below/cosma/cosma-tiling"),
                    symbolic(COSMA, "kernel-count-vs-theory/matmul-tiled"))),
            Part("theorem", "q >= 2mnk/sqrt(M) + mn for every schedule of the FMA-chain DAG "
                            "without recomputation (COSMA, Theorem 1; not re-proved here)."),
        ),
    ),
]
