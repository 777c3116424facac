"""The fixed set of recorded tile operations, shared by the traced memory, the certifier and the
lowering to the pebble game.

An operation reads tiles and writes one tile.  No operation takes a value from outside the fast
memory (there is no constant, fill or scalar argument): the only way data enters fast memory is
``load``.  The one constant, ``ones(x)`` (a tile of ones shaped like x), carries no data.
Each operation has, per output element, a *chain* of scalar vertices in the pebble game (one
vertex for an elementwise op, k for a length-k dot product, q - 1 for a sum of q terms);
``scratch`` is the number of words the pebble game needs on top of the live tiles while the op
runs ("counting the pebble being placed", docs/theory.md §1):

- 1 if the op consumes the old value of its output in place (``accumulate`` or an output that
  aliases an input): the new value is placed while the old one is still red;
- 1 if a chain has two or more vertices (the running partial sum and the next vertex);
- 0 otherwise.
"""

from __future__ import annotations

import numpy as np


def _ones(x, out=None):
    """A tile of ones shaped like ``x``: a constant, so it carries no data into fast memory
    (the polynomial method's constant feature and U2^T 1 need it)."""
    if out is None:
        return np.ones_like(x)
    out.fill(1.0)
    return out


MAP1 = {"exp": np.exp, "log": np.log, "copy": None, "ones": _ones}
MAP2 = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
        "maximum": np.maximum}
# reductions along rows (the ufunc that reduces and accumulates is REDUCE_UFUNC below)
REDUCE = {"rowsum": "sum", "rowmax": "max"}
REDUCE_UFUNC = {"rowsum": np.add, "rowmax": np.maximum}
OPS = frozenset(MAP1) | frozenset(MAP2) | frozenset(REDUCE) | {"matmul"}


class OpError(ValueError):
    """An operation's operands do not fit its rule (shapes, aliasing, arity)."""


def result_shape(name: str, shapes: tuple, ta: bool = False, tb: bool = False) -> tuple:
    """The shape of ``name`` applied to tiles of ``shapes``; raises OpError if it is not defined."""
    if name not in OPS:
        raise OpError(f"unknown operation {name!r}")
    if name in MAP1:
        _arity(name, shapes, 1)
        return shapes[0]
    if name in REDUCE:
        _arity(name, shapes, 1)
        return (shapes[0][0], 1)
    _arity(name, shapes, 2)
    a, b = shapes
    if name == "matmul":
        p, k = (a[1], a[0]) if ta else a
        k2, q = (b[1], b[0]) if tb else b
        if k != k2:
            raise OpError(f"matmul of {a}{'^T' if ta else ''} by {b}{'^T' if tb else ''}: "
                          f"inner sizes {k} and {k2} differ")
        return (p, q)
    if b != a and b != (a[0], 1) and b != (1, a[1]):
        raise OpError(f"{name} of {a} and {b}: the second operand must have the same shape, "
                      f"or be a column (rows, 1) or a row (1, cols) broadcast over it")
    return a


def _arity(name, shapes, k):
    if len(shapes) != k:
        raise OpError(f"{name} takes {k} tile(s), got {len(shapes)}")


def chain_length(name: str, shapes: tuple, ta: bool, tb: bool, accumulate: bool) -> int:
    """Scalar vertices computed per output element (see the module docstring)."""
    if name == "matmul":
        return shapes[0][0] if ta else shapes[0][1]
    if name in REDUCE:
        q = shapes[0][1]
        return q if accumulate else max(1, q - 1)
    return 1


def scratch(name: str, shapes: tuple, ta: bool, tb: bool, accumulate: bool,
            consumes_out: bool) -> int:
    """Extra words the op needs while it runs, over the live tiles (pebble being placed)."""
    if consumes_out or accumulate:
        return 1
    return 1 if chain_length(name, shapes, ta, tb, accumulate) >= 2 else 0


def check_out(name: str, out_shape, in_ids: tuple, out_id, shape: tuple, accumulate: bool) -> bool:
    """Check the output rule; return True if the op consumes the old value of ``out``."""
    if accumulate and name not in REDUCE and name != "matmul":
        raise OpError(f"{name} cannot accumulate (only matmul, rowsum and rowmax can)")
    if out_id is None:
        if accumulate:
            raise OpError(f"{name} with accumulate needs an existing output tile")
        return False
    if out_shape != shape:
        raise OpError(f"{name} writes a {shape} result into a tile of shape {out_shape}")
    aliased = out_id in in_ids
    if aliased and (name == "matmul" or name in REDUCE):
        raise OpError(f"{name} cannot write into one of its own operands")
    return aliased or accumulate


def _chain(first: np.ndarray, rest, ufunc, out, accumulate: bool) -> np.ndarray:
    """``ufunc`` folded left to right over the terms, one rounding per step, as the lowered
    chain computes them: ``(((first op t_1) op t_2) ...)``, from ``out op first`` with
    ``accumulate``.  A fixed order (never BLAS's or NumPy's pairwise one, which vary with the
    library build) makes a value that is exactly zero in the DAG's arithmetic zero here too, e.g.
    dP_ij - D_i of attention with one key per row, where D_i and dP_ij are the same sum."""
    acc = ufunc(out, first) if accumulate else first
    for term in rest:
        ufunc(acc, term, out=acc)
    if out is None:
        return acc
    np.copyto(out, acc)
    return out


def apply(name: str, arrays: tuple, ta: bool, tb: bool, out: np.ndarray | None = None,
          accumulate: bool = False) -> np.ndarray:
    """Compute the op with NumPy (float64), into ``out`` when given (in place, as a plain NumPy
    loop nest would); with ``accumulate``, add (or, for rowmax, take the max) into ``out``.
    The tracer and the certifier both call this, so their results agree bit for bit."""
    if name in MAP2:
        return MAP2[name](arrays[0], arrays[1], out=out)
    if name == "matmul":
        a, b = arrays
        a, b = (a.T if ta else a), (b.T if tb else b)
        return _chain(np.multiply(a[:, :1], b[:1, :]),
                      (np.multiply(a[:, l:l + 1], b[l:l + 1, :]) for l in range(1, a.shape[1])),
                      np.add, out, accumulate)
    if name in REDUCE:
        x, ufunc = arrays[0], REDUCE_UFUNC[name]
        return _chain(x[:, :1].copy(), (x[:, l:l + 1] for l in range(1, x.shape[1])), ufunc, out,
                      accumulate)
    if name == "copy":
        if out is None:
            return arrays[0].copy()
        np.copyto(out, arrays[0])
        return out
    return MAP1[name](arrays[0], out=out)
