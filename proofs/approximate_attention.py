"""Approximate attention by the polynomial method (Alman and Song, arXiv 2302.13214); the blocked
I/O form is derived for this project (THEORY.md section 7)."""

from ioverify.claims import Claim, kernel

ID = "polynomial-attention-linear-io"

CLAIMS = [
    Claim(
        id=ID,
        title="Polynomial-method attention: I/O linear in n when r d words fit",
        statement="Streaming K and V once to build U2^T V and U2^T 1, then streaming Q, moves "
                  "O(nd) words when r d fits in fast memory and behaves like an (n x r)(r x d) "
                  "product otherwise; the kernel is certified against the polynomial reference.",
        source="Alman and Song, arXiv 2302.13214 (method); blocking derived (THEORY.md section 7)",
        firmness="derived",
        variant="kernel",
        bounds=("approximate-attention-blocked", "approximate-attention-trivial"),
        kernels=("polynomial-forward",),
        obligations=tuple(
            kernel(ID, "polynomial-forward",
                   {"n": n, "d": d, "degree": g, "entry_bound": 0.5}, memory,
                   lower_bounds=("approximate-attention-trivial",))
            for n in (64, 100) for d, g in ((4, 2), (4, 3)) for memory in (128, 1024)),
    ),
]
