"""The FlashAttention block-size finding (docs/theory.md §6, derived).

FlashAttention's Algorithm 1 takes B_c = ceil(M / 4d), B_r = min(ceil(M / 4d), d).  The theory
page (docs/theory.md §6) derives that the fast-memory working set, about
2 B_c d + 2 B_r d + B_r B_c, then exceeds M, so a checker that enforces |R| <= M exactly must
reject the literal sizes.  Certification with the literal sizes says where that holds.
"""

from ioverify.claims import Claim, kernel, symbolic

ID = "flash-literal-block-sizes-overflow"
D = 8
GRID = tuple(multiple * D * D for multiple in (1, 2, 4, 8, 16))  # M from d^2 to 16 d^2

CLAIMS = [
    Claim(
        id=ID,
        title="FlashAttention's literal block sizes overflow fast memory",
        statement="With B_c = ceil(M/4d) and B_r = min(B_c, d) the working set exceeds M, so "
                  "certification with |R| <= M enforced exactly rejects the literal sizes.",
        source="Dao et al., arXiv 2205.14135, Algorithm 1 (block sizes); the overflow is derived "
               "for this project (docs/theory.md §6)",
        firmness="derived",
        variant="kernel",
        kernels=("flash-forward-v1", "flash-forward-v2"),
        notes="The checker rejects the literal sizes only for part of the range: see the grid "
              "below and the [block-size finding](../flash-block-sizes.md).",
        obligations=tuple(
            kernel(ID, name, {"n": 64, "d": D}, memory, literal_blocks=True,
                   expect_certified=False)
            for name in ("flash-forward-v1", "flash-forward-v2") for memory in GRID)
        + (symbolic(ID, "flash-literal-blocks-overflow"),),
    ),
]
