"""Sparse attention: block-sparse FlashAttention (Dao et al., Prop. 4) and the sparse lower bound
recalled from Li, Liang, Shi, Song et al. (arXiv 2410.09397), in two claims: the kernel's count
(checked) and the lower bound (confronted with the certified kernel, and contradicted on masked
dense inputs)."""

from ioverify.claims import Claim, Part, confront, kernel, symbolic

KERNEL, LOWER = "block-sparse-attention", "sparse-attention-lower-bound"
MASKS = ("causal", "random", "block-diagonal", "permutation", "banded")
# On ioverify's sparse model a mask selects entries of S = QK^T over dense Q, K, V.
READING = {"Z_in": "n*d", "Z_QK": "Z_QK"}
READING_TEXT = ("a block mask over dense Q, K, V: Z_in = nd (the non-zeros of one input), "
                "Z_QK = the allowed entries of QK^T")


def _mask(mask: str, density: float) -> dict:
    """The mask's params: the density only where the mask reads it (a random mask)."""
    return {"mask": mask, "density": density} if mask == "random" else {"mask": mask}


def _kernel_grid(claim: str):
    return tuple(kernel(claim, name, {"n": n, "d": 8, **_mask(mask, 0.3)}, memory)
                 for name in ("block-sparse-forward", "block-sparse-backward")
                 for n in (48, 53) for memory in (128, 512) for mask in MASKS)


def _sweep(mask: str):
    """n from 64 to 512 at d = 4, M = 128: the kernel's blocks stay the same size."""
    return confront(LOWER, "sparse-attention", "block-sparse-forward", f"{mask}-mask-n-grows",
                    [({"n": n, "d": 4, **_mask(mask, 0.25)}, 128)
                     for n in (64, 128, 256, 512)], along="n", reading=READING)


CLAIMS = [
    Claim(
        id=KERNEL,
        title="Block-sparse FlashAttention: only allowed blocks are moved",
        statement="Block-sparse FlashAttention moves Theta(nd + n^2 d^2 s / M) words, s the "
                  "fraction of allowed blocks.",
        source="Dao et al., arXiv 2205.14135, Prop. 4 [paper]; counts derived for ioverify",
        firmness="paper",
        variant="kernel",
        bounds=("flash-block-sparse",),
        kernels=("block-sparse-forward", "block-sparse-backward"),
        obligations=(),
        parts=(
            Part("count", "The forward and backward kernels, certified on masks of every shape "
                          "(causal, random, block-diagonal, permutation, banded), move exactly "
                          "their closed forms, which only allowed blocks enter.",
                 _kernel_grid(KERNEL)),
            Part("theta", "The count is nonincreasing in M over Prop. 4's regime, as "
                          "Theta(nd + n^2 d^2 s / M) is.",
                 (symbolic(KERNEL, "monotone/flash-block-sparse"),)),
        ),
    ),
    Claim(
        id=LOWER,
        title="Sparse attention lower bound: contradicted on masked dense inputs",
        statement="Sparse attention (forward and backward, both cache regimes) needs "
                  "Omega(min{Z_in^2/M, Z_in sqrt(Z_QK)/sqrt(M)}) I/O, Z_in the non-zeros of the "
                  "inputs and Z_QK of QK^T; it recovers the dense bound.",
        source="recalled from Li, Liang, Shi, Song et al., arXiv 2410.09397 (no readable "
               "statement available)",
        firmness="recalled",
        variant="kernel",
        bounds=("sparse-attention",),
        kernels=("block-sparse-forward",),
        obligations=(),
        parts=(
            Part("masked-dense", "Omega(min{Z_in^2/M, Z_in sqrt(Z_QK)/sqrt(M)}) holds for "
                                 "every mask over dense inputs.",
                 tuple(_sweep(mask) for mask in MASKS), reading=READING_TEXT),
            Part("recovers-dense", "With Z_in = nd and Z_QK = n^2 it is the dense bound "
                                   "Theta(min{n^2 d^2/M, n^2 d/sqrt(M)}).",
                 (symbolic(LOWER, "sparse-recovers-dense"),)),
            Part("sparse-inputs", "It may hold where the inputs themselves are sparse matrices "
                                  "(Z_in the non-zeros of sparse Q, K, V): ioverify has no "
                                  "sparse-input kernel or graph to confront it with."),
        ),
        notes="A block-diagonal, permutation or banded mask keeps O(n) allowed entries per "
              "block size, so the bound's Z_in sqrt(Z_QK)/sqrt(M) = nd sqrt(Z_QK/M) grows like "
              "n^1.5 while the certified kernel moves 4nd + n words (a permutation mask): the "
              "ratio grows like sqrt(n) and no constant saves the bound under this reading.",
    ),
]
