"""Sparse attention: block-sparse FlashAttention (Dao et al., Prop. 4) and the sparse lower bounds
recalled from Li, Liang, Shi, Song et al. (arXiv 2410.09397)."""

from ioverify.claims import Claim, kernel, symbolic

ID = "block-sparse-attention"

CLAIMS = [
    Claim(
        id=ID,
        title="Block-sparse FlashAttention: only allowed blocks are moved",
        statement="Block-sparse FlashAttention moves Theta(nd + n^2 d^2 s / M) words, s the "
                  "fraction of allowed blocks; the sparse lower bound "
                  "Omega(min{Z_in^2/M, Z_in sqrt(Z_QK)/sqrt(M)}) recovers the dense one.",
        source="Dao et al., arXiv 2205.14135, Prop. 4 [paper]; sparse lower bound recalled from "
               "arXiv 2410.09397",
        firmness="recalled",
        variant="kernel",
        bounds=("flash-block-sparse", "sparse-attention"),
        kernels=("block-sparse-forward", "block-sparse-backward"),
        obligations=tuple(
            kernel(ID, name, {"n": n, "d": 8, "mask": mask, "density": density}, memory)
            for name in ("block-sparse-forward", "block-sparse-backward")
            for n in (48, 53) for memory in (128, 512)
            for mask, density in (("causal", 0.5), ("random", 0.3)))
        + (symbolic(ID, "sparse-recovers-dense"), symbolic(ID, "monotone/flash-block-sparse")),
    ),
]
