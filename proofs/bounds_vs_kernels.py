"""Every shipped lower bound against every certified kernel that computes the same function.

A kernel moves at least what a lower bound on its function allows, or the bound is wrong under
the reading that attached it to the kernel.  For each pair, certified runs are swept where the
cheap cases hide: d >> n, d << n, and M from far below to far above d^2.  An explicit bound is
refuted by one run below it; an asymptotic one (Theta, Omega) is confronted along sweeps that
grow n and d, and is contradicted where the ratio bound / kernel keeps growing.  Block-sparse
attention and the backward v2 form have sweeps of their own in their claims.
"""

from ioverify.claims import Claim, Part, confront
from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import plan

ID = "lower-bounds-vs-kernels"

KERNELS = {
    "matmul": ("matmul-tiled",),
    "attention-forward": ("attention-standard", "flash-forward-v1", "flash-forward-v2",
                          "square-tiling-forward"),
    "attention-backward": ("flash-backward-v1", "flash-backward-v2", "square-tiling-backward"),
    "approximate-attention": ("polynomial-forward",),
    "alman-song-backward": ("alman-song-backward",),
}
# (bound, the function its graph computes): every lower or tight bound with a kernel family.
BOUNDS = (
    ("matmul-trivial", "matmul"), ("matmul-lean", "matmul"), ("matmul-lean-product", "matmul"),
    ("cosma", "matmul"),
    ("attention-forward-trivial", "attention-forward"),
    ("attention-forward-explicit-large", "attention-forward"),
    ("attention-forward-explicit-small", "attention-forward"),
    ("saha-ye-thm3.1", "attention-forward"), ("attention-any-matmul", "attention-forward"),
    ("attention-backward-explicit", "attention-backward"),
    ("attention-backward-v1", "attention-backward"),
    ("approximate-attention-trivial", "approximate-attention"),
    ("alman-song-backward-trivial", "alman-song-backward"),
    ("attention-backward-v2-alman-song", "alman-song-backward"),
)
ASYMPTOTIC = {"saha-ye-thm3.1", "attention-any-matmul", "attention-backward-v1",
              "attention-backward-v2-alman-song"}

# The sweeps, by function: (name, growing parameter or None, [(params, M), ...]).
ATTENTION = (
    ("d>>n", None, [({"n": 4, "d": d}, m) for d in (16, 32) for m in (16, 64, 256, 1024, 4096)]),
    ("d<<n", None, [({"n": n, "d": 4}, m) for n in (32, 64) for m in (64, 512)]),
)
ATTENTION_GROWTH = (
    ("n-grows", "n", [({"n": n, "d": 8}, 256) for n in (16, 32, 64, 128)]),
    ("d-grows", "d", [({"n": 4, "d": d}, 1024) for d in (32, 64, 128, 256, 512)]),
)
MATMUL = (
    ("square", None, [({"m": s, "k": s, "n": s}, m) for s in (4, 8) for m in (16, 64, 256)]),
    ("thin-k", None, [({"m": 16, "k": 2, "n": 16}, m) for m in (16, 64, 256)]),
    ("wide-k", None, [({"m": 2, "k": 32, "n": 2}, m) for m in (16, 64)]),
)
APPROXIMATE = (
    ("d>>n", None, [({"n": 8, "d": 8, "degree": 2}, m) for m in (512, 4096)]),
    ("d<<n", None, [({"n": 64, "d": 2, "degree": 2}, m) for m in (64, 1024)]),
)


def _fits(kernel: str, params: dict, memory: int) -> bool:
    """Whether the kernel's blocks fit in M at these sizes (a dry run of its planner)."""
    try:
        plan(kernel, memory=memory, **params)
    except InvalidArgument:
        return False
    return True


def _sweeps(bound: str, function: str):
    if function == "matmul":
        return MATMUL
    if function == "approximate-attention":
        return APPROXIMATE
    return ATTENTION_GROWTH if bound in ASYMPTOTIC else ATTENTION


def _obligations(bound: str, function: str):
    obligations = []
    for kernel in KERNELS[function]:
        for name, along, sweep in _sweeps(bound, function):
            runs = [(params, m) for params, m in sweep if _fits(kernel, params, m)]
            if len(runs) >= (3 if along else 1):
                obligations.append(confront(ID, bound, kernel, name, runs, along=along))
    return tuple(obligations)


CLAIMS = [
    Claim(
        id=ID,
        title="Every lower bound against every certified kernel of its function",
        statement="No certified kernel moves fewer words than a shipped lower bound on the "
                  "function it computes allows; an asymptotic bound's ratio to a kernel stays "
                  "bounded along sweeps in n and d.",
        source="the bound records (ioverify bounds list) and the reference kernels "
               "(ioverify kernel list)",
        firmness="derived",
        variant="kernel",
        bounds=tuple(b for b, _ in BOUNDS),
        kernels=tuple(k for ks in KERNELS.values() for k in ks),
        obligations=(),
        parts=tuple(Part(bound, f"{bound} holds for every certified kernel of {function}.",
                         _obligations(bound, function))
                    for bound, function in BOUNDS),
    ),
]
