"""The named DAG families, with their parameters, for the CLI and the claims.

Each entry says how to call the builder; the CLI turns ``params`` into ``--name`` options.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ioverify.dag import attention, families
from ioverify._plugins import load as installed
from ioverify.errors import InvalidArgument


@dataclass(frozen=True)
class Param:
    name: str
    type: Callable[[str], Any] = int
    default: Any = None  # None: required
    help: str = ""
    choices: tuple | None = None
    # (another parameter, the values of it under which this one is used): the CLI refuses this
    # one given with any other value of that one, rather than ignore it
    only_with: tuple = ()
    minimum: int = 1  # an int parameter: 1 (positive), or 0 (zero allowed); the CLI checks it


@dataclass(frozen=True)
class Family:
    name: str
    build: Callable[..., Any]
    params: tuple[Param, ...]
    doc: str
    extra: dict = field(default_factory=dict)


SUMMATION = Param("summation", str, "chain", "per-entry summation", families.SUMMATIONS)

FAMILIES: dict[str, Family] = {}


def register(family: Family) -> Family:
    FAMILIES[family.name] = family
    return family


register(Family("matmul", families.matmul,
                (Param("m", help="rows of A"), Param("k", help="columns of A = rows of B"),
                 Param("n", help="columns of B"), SUMMATION),
                "C = A B at scalar granularity: one product per (i, l, j), per-entry sums."))
register(Family("pyramid", families.pyramid, (Param("height", help="levels above the base"),),
                "The pebbling pyramid: height + 1 inputs, one apex."))
register(Family("binary-tree", families.binary_tree,
                (Param("leaves", help="number of leaves, a power of two"),),
                "A complete binary reduction tree."))

N, D = Param("n", help="sequence length"), Param("d", help="head dimension")
MASK = (Param("mask", str, "causal", "which n-by-n mask of allowed (query, key) pairs",
              attention.MASK_KINDS),
        Param("density", float, 0.5, "random mask: probability of each off-diagonal pair",
              only_with=("mask", ("random",))),
        Param("seed", int, 0, "random mask: the seed", only_with=("mask", ("random",)),
              minimum=0))
register(Family("attention-forward", attention.attention_forward, (N, D, SUMMATION),
                "Saha-Ye attention forward: S = QK^T, A = exp(S), row sums, AV, O = AV / l."))
register(Family("attention-backward", attention.attention_backward, (N, D, SUMMATION),
                "FlashAttention backward: S, P = exp(S - L) recomputed; dV, dP, D, dS, dQ, dK."))
register(Family("alman-song-backward", attention.alman_song_backward, (N, D, SUMMATION),
                "Alman-Song gradient dL/dX: Qx = A1 X, V = A3 Y, forward, G = O - E, then "
                "dQx and dX = A1^T dQx."))
register(Family("sparse-forward", attention.sparse_forward_named, (N, D, *MASK, SUMMATION),
                "Attention forward on the allowed (query, key) pairs of a mask."))
register(Family("sparse-backward", attention.sparse_backward_named, (N, D, *MASK, SUMMATION),
                "Attention backward on the allowed (query, key) pairs of a mask."))
register(Family("approximate-attention", attention.approximate_attention,
                (N, D, Param("degree", help="total degree g of the polynomial features"),
                 SUMMATION),
                "The polynomial method: T = diag(U1 (U2^T 1))^-1 U1 (U2^T V), no n x n part."))


def build(spec: dict):
    """The DAG of a family instance ``{"family": name, "params": {...}}`` (the ``spec`` of an
    exact-search or partition obligation); an unknown family names the known ones."""
    family = FAMILIES.get(spec["family"])
    if family is None:
        raise InvalidArgument(f"unknown DAG family {spec['family']!r} (known: "
                              f"{', '.join(sorted(FAMILIES))})")
    return family.build(**spec.get("params", {}))


def _installed_families() -> None:
    """Families other packages declare (entry point group ``ioverify.families``)."""
    for family in installed("ioverify.families", Family):
        if family.name in FAMILIES:
            raise InvalidArgument(f"entry point family {family.name!r} is already a family")
        register(family)


_installed_families()
