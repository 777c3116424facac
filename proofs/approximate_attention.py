"""Approximate attention by the polynomial method (Alman and Song, arXiv 2302.13214); the blocked
I/O form is derived for this project (docs/theory.md §7).  Scores are scaled by
1/sqrt(d), as in the seed's model and Alman and Song's; the claim page shows the error against
exact softmax attention beside the I/O."""

from ioverify.claims import Claim, Part, kernel

ID = "polynomial-attention-linear-io"
# (entry bound B, degree g) at n = 64, d = 4: every pair whose feature-map denominators stay
# positive on the sampled inputs (B = 4 with g = 1 or 3 is refused by the kernel).
ERROR_GRID = [(b, g) for b in (0.5, 1.0, 2.0, 4.0) for g in (1, 2, 3)
              if not (b == 4.0 and g in (1, 3))]

CLAIMS = [
    Claim(
        id=ID,
        title="Polynomial-method attention: I/O linear in n when r d words fit",
        statement="Streaming K and V once to build U2^T V and U2^T 1, then streaming Q, moves "
                  "O(nd) words when r d fits in fast memory and behaves like an (n x r)(r x d) "
                  "product otherwise; the method approximates softmax attention.",
        source="Alman and Song, arXiv 2302.13214 (method); blocking derived (docs/theory.md §7)",
        firmness="derived",
        variant="kernel",
        bounds=("approximate-attention-blocked", "approximate-attention-trivial"),
        kernels=("polynomial-forward",),
        obligations=(),
        parts=(
            Part("io", "The blocked kernel is certified against the polynomial method's own "
                       "output, moves exactly its closed form and at least 4nd words.",
                 tuple(kernel(ID, "polynomial-forward",
                              {"n": n, "d": d, "degree": g, "entry_bound": 0.5}, memory,
                              lower_bounds=("approximate-attention-trivial",))
                       for n in (64, 100) for d, g in ((4, 2), (4, 3))
                       for memory in (128, 1024))),
            Part("error", "Its error against exact softmax attention (scores scaled by "
                          "1/sqrt(d)) is measured on certified runs: the value column gives "
                          "it for entries in [-B, B] and degree g; runs whose feature-map "
                          "denominators are not positive are refused.",
                 tuple(kernel(ID, "polynomial-forward",
                              {"n": 64, "d": 4, "degree": g, "entry_bound": b}, 2048)
                       for b, g in ERROR_GRID)),
            Part("accuracy", "The approximation is accurate whenever entries are "
                             "o(sqrt(log n)) (Alman and Song's regime): nothing here proves an "
                             "error bound; the table shows the error growing with B."),
        ),
        notes="Measured error against softmax (n = 64, d = 4, scale 1/sqrt(d)): about 1e-3 "
              "to 5e-6 at B = 0.5 (degrees 1 to 3), 0.3 to 0.6 at B = 2, and above 3 at B = 4, "
              "where degrees 1 and 3 make a denominator negative and are refused.",
    ),
]
