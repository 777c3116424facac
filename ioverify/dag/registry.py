"""The named DAG families, with their parameters, for the CLI and the claims.

Each entry says how to call the builder; the CLI turns ``params`` into ``--name`` options.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ioverify.dag import families


@dataclass(frozen=True)
class Param:
    name: str
    type: Callable[[str], Any] = int
    default: Any = None  # None: required
    help: str = ""
    choices: tuple | None = None


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
