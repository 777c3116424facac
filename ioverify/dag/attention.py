"""Attention DAG families at scalar granularity (docs/theory.md §4, §5 and §7).

Every vertex carries its operation: ``mul``, ``add``, ``exp``, ``sub``, ``div``, and for the
polynomial method ``sq`` (the square of its one operand), ``mul/k`` and ``sq/k`` (the same divided
by the integer k) and ``+c`` (its one operand plus the constant c).  The DAG model keeps no
operand order, so the two non-commutative operations follow one convention, checked when a vertex
is built: **for ``sub`` and ``div`` the left operand is the predecessor with the larger index**
(``S-L[i,j] = S[i,j] - L[i]``, ``O[i,l] = AV[i,l] / l[i]``).

Names are stable and readable: inputs ``Q[i,l]``, ``K[j,l]``, ``V[j,l]``; an entry of a product
``X = Y Z`` is ``X[a,b]`` and its scalar products are ``X*[a,c,b]`` (the contracted index in the
middle, as in ``families.matmul``); partial sums are ``X[a,b]~1``, ``X[a,b]~2``, ... (``add_sum``).
A sum of one term is that term: no addition vertex, and a lone product takes the entry's name.
``docs/families.md`` gives the vertex counts.
"""

from __future__ import annotations

import math
import random
from itertools import combinations_with_replacement
from typing import Sequence

from ioverify.dag.families import add_matmul, add_sum, check_summation, matrix_inputs, positive
from ioverify.dag.model import DAG, MAX_BUILT_VERTICES, DAGBuilder
from ioverify.errors import InternalError, InvalidArgument

MASK_KINDS = ("causal", "full", "random")


# --- shared pieces ------------------------------------------------------------------------------

def _noncommutative(b: DAGBuilder, op: str, name: str, left: int, right: int) -> int:
    """``left op right`` for ``sub``/``div``; the convention of this module: left has the larger
    index.  A construction order that breaks it is a bug here, never the caller's."""
    if not left > right:
        raise InternalError(f"{name!r}: the left operand of {op!r} must come after the right one")
    return b.op(op, name, [left, right])


def _dot(b: DAGBuilder, label: str, index: str, terms: Sequence[tuple[str, int, int]],
         summation: str, lead: Sequence[int] = ()) -> int:
    """``label[index] = sum(lead) + sum_t x_t * y_t``: one ``mul`` vertex ``label*[key_t]`` per
    term ``(key_t, x_t, y_t)``, then ``add_sum``.  A lone product is named ``label[index]``."""
    name = f"{label}[{index}]"
    single = len(terms) + len(lead) == 1
    products = [b.op("mul", name if single else f"{label}*[{key}]", [x, y])
                for key, x, y in terms]
    return add_sum(b, [*lead, *products], name, summation)


def _full_mask(n: int) -> list[list[bool]]:
    _mask_side(n)
    return [[True] * n for _ in range(n)]


def _mask_side(n: int) -> int:
    """``n``, if an n-by-n mask is small enough to build: every allowed pair gets vertices of
    its own and the mask alone has n^2 entries, so past 4 MAX_BUILT_VERTICES entries the DAG
    could not be built (``DAGBuilder``) and the mask would fill the memory first
    (attention_forward(100000, 100000): killed for memory before its first vertex)."""
    if n * n > 4 * MAX_BUILT_VERTICES:
        most = 4 * MAX_BUILT_VERTICES
        raise InvalidArgument(f"n = {n:,} asks for an n-by-n mask of {n * n:,} entries; at most "
                              f"{most:,} (n <= {math.isqrt(most):,}): the DAG would pass "
                              f"{MAX_BUILT_VERTICES:,} vertices")
    return n


def check_mask(mask) -> list[list[bool]]:
    """An n-by-n boolean mask (nested lists or a numpy array) as lists of bools; every row must
    allow at least one key (a query with no key has no softmax)."""
    if hasattr(mask, "tolist"):
        mask = mask.tolist()
    if not isinstance(mask, (list, tuple)) or not mask:
        raise InvalidArgument(f"mask must be a non-empty n-by-n boolean matrix, got {mask!r:.60}")
    n = len(mask)
    rows = []
    for i, row in enumerate(mask):
        if not isinstance(row, (list, tuple)) or len(row) != n:
            raise InvalidArgument(f"mask row {i} must have {n} entries (the mask is n-by-n), "
                                  f"got {row!r:.60}")
        rows.append([_mask_entry(x, i, j) for j, x in enumerate(row)])
        if not any(rows[-1]):
            raise InvalidArgument(f"mask row {i} allows no key: every query needs at least one")
    return rows


def _mask_entry(x, i: int, j: int) -> bool:
    if isinstance(x, bool):
        return x
    if isinstance(x, int) and x in (0, 1):
        return bool(x)
    raise InvalidArgument(f"mask[{i}][{j}] must be a boolean (or 0/1), got {x!r}")


def mask_from_kind(kind: str, n: int, *, density: float = 0.5, seed: int = 0) -> list[list[bool]]:
    """A named n-by-n mask for the CLI: ``causal`` (key j <= query i), ``full``, or ``random``
    (each pair allowed with probability ``density``, the diagonal always, so no row is empty)."""
    positive("n", n)
    if kind not in MASK_KINDS:
        raise InvalidArgument(f"mask must be one of {', '.join(MASK_KINDS)}, got {kind!r}")
    _mask_side(n)
    if kind == "full":
        return [[True] * n for _ in range(n)]
    if kind == "causal":
        return [[j <= i for j in range(n)] for i in range(n)]
    if isinstance(density, bool) or not isinstance(density, (int, float)) \
            or not 0.0 <= density <= 1.0:
        raise InvalidArgument(f"density must be a number in [0, 1], got {density!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidArgument(f"seed must be an integer >= 0, got {seed!r}")
    rng = random.Random(seed)
    return [[i == j or rng.random() < density for j in range(n)] for i in range(n)]


def _allowed(mask: list[list[bool]]) -> list[list[int]]:
    return [[j for j, ok in enumerate(row) if ok] for row in mask]


def _add_scores(b, Q, K, keys, summation) -> dict[tuple[int, int], int]:
    """S[i,j] = sum_l Q[i,l] K[j,l] for the allowed pairs (Saha-Ye: products, then a sum)."""
    d = len(Q[0])
    return {(i, j): _dot(b, "S", f"{i},{j}", [(f"{i},{l},{j}", Q[i][l], K[j][l])
                                              for l in range(d)], summation)
            for i, row in enumerate(keys) for j in row}


# --- forward: Saha and Ye ---------------------------------------------------------------------

def sparse_attention_forward(mask, d: int, summation: str = "chain") -> DAG:
    """O = diag(A 1)^-1 A V with A = exp(Q K^T) on the allowed pairs only (Saha-Ye's graph, no
    1/sqrt(d), no max-subtraction): S, A = exp(S), row sums l, AV = A V, O = AV / l."""
    mask = check_mask(mask)
    positive("d", d), check_summation(summation)
    n, keys = len(mask), _allowed(mask)
    b = DAGBuilder()
    Q, K, V = (matrix_inputs(b, x, n, d) for x in "QKV")
    S = _add_scores(b, Q, K, keys, summation)
    A = {ij: b.op("exp", f"A[{ij[0]},{ij[1]}]", [s]) for ij, s in S.items()}
    rowsum = [add_sum(b, [A[i, j] for j in keys[i]], f"l[{i}]", summation) for i in range(n)]
    AV = [[_dot(b, "AV", f"{i},{l}", [(f"{i},{j},{l}", A[i, j], V[j][l]) for j in keys[i]],
                summation) for l in range(d)] for i in range(n)]
    O = [_noncommutative(b, "div", f"O[{i},{l}]", AV[i][l], rowsum[i])
         for i in range(n) for l in range(d)]
    return b.build(O)


def attention_forward(n: int, d: int, summation: str = "chain") -> DAG:
    """Dense attention forward (the sparse family with every pair allowed)."""
    positive("n", n)
    return sparse_attention_forward(_full_mask(n), d, summation)


# --- backward: FlashAttention form ---------------------------------------------------------------

def sparse_attention_backward(mask, d: int, summation: str = "chain") -> DAG:
    """The FlashAttention(-2) backward pass on the allowed pairs.  Inputs Q, K, V, O, dO (n x d)
    and L[i], the row logsumexp; S = Q K^T and P = exp(S - L) recomputed; D = rowsum(dO * O)
    first, then dV = P^T dO, dP = dO V^T, dS = P * (dP - D), dQ = dS K, dK = dS^T Q.  A key no
    query attends gets no dK/dV vertices (its gradient is identically zero)."""
    mask = check_mask(mask)
    positive("d", d), check_summation(summation)
    n, keys = len(mask), _allowed(mask)
    queries = [[i for i in range(n) if mask[i][j]] for j in range(n)]
    b = DAGBuilder()
    Q, K, V, O, dO = (matrix_inputs(b, x, n, d) for x in ("Q", "K", "V", "O", "dO"))
    L = [b.input(f"L[{i}]") for i in range(n)]
    D = [_dot(b, "D", f"{i}", [(f"{i},{l}", dO[i][l], O[i][l]) for l in range(d)], summation)
         for i in range(n)]
    S = _add_scores(b, Q, K, keys, summation)
    P = {(i, j): b.op("exp", f"P[{i},{j}]",
                      [_noncommutative(b, "sub", f"S-L[{i},{j}]", s, L[i])])
         for (i, j), s in S.items()}
    dV = [_dot(b, "dV", f"{j},{l}", [(f"{j},{i},{l}", P[i, j], dO[i][l]) for i in queries[j]],
               summation) for j in range(n) if queries[j] for l in range(d)]
    dP = {(i, j): _dot(b, "dP", f"{i},{j}", [(f"{i},{l},{j}", dO[i][l], V[j][l])
                                             for l in range(d)], summation) for i, j in S}
    dS = {(i, j): b.op("mul", f"dS[{i},{j}]",
                       [P[i, j], _noncommutative(b, "sub", f"dP-D[{i},{j}]", dp, D[i])])
          for (i, j), dp in dP.items()}
    dQ = [_dot(b, "dQ", f"{i},{l}", [(f"{i},{j},{l}", dS[i, j], K[j][l]) for j in keys[i]],
               summation) for i in range(n) for l in range(d)]
    dK = [_dot(b, "dK", f"{j},{l}", [(f"{j},{i},{l}", dS[i, j], Q[i][l]) for i in queries[j]],
               summation) for j in range(n) if queries[j] for l in range(d)]
    return b.build(dQ + dK + dV)


def attention_backward(n: int, d: int, summation: str = "chain") -> DAG:
    """Dense attention backward (the sparse family with every pair allowed)."""
    positive("n", n)
    return sparse_attention_backward(_full_mask(n), d, summation)


# --- backward: Alman-Song form (gradient with respect to the weights X) -------------------------

def _transpose(x: list[list[int]]) -> list[list[int]]:
    return [list(col) for col in zip(*x)]


def alman_song_backward(n: int, d: int, summation: str = "chain") -> DAG:
    """The gradient dL/dX of Alman and Song's attention loss (arXiv 2402.04497, Definition 1.5,
    without the 1/d scale): L(X) = 1/2 ||D^-1 exp(A1 X A2^T) A3 Y - E||_F^2 with A1, A2, A3, E
    (n x d) and X, Y (d x d) inputs.  Forward: Qx = A1 X, S = Qx A2^T, A = exp(S), l = rowsum A,
    V = A3 Y, AV = A V, O = AV / l, G = O - E (the upstream gradient dO).  Backward as in
    FlashAttention: D = rowsum(G * O), dP = G V^T, dS = A * (dP - D) / l (P = A / l, folded
    so that every ``div`` has its larger-index operand on the left), dQx = dS A2 and the one
    output dX = A1^T dQx (d x d).  Three of the products are (n x d)(d x d): the weight
    products that the n d^2 and n d^3 terms of the v2 bound count."""
    positive("n", n), positive("d", d), check_summation(summation)
    b = DAGBuilder()
    A1, A2, A3, E = (matrix_inputs(b, x, n, d) for x in ("A1", "A2", "A3", "E"))
    X, Y = (matrix_inputs(b, x, d, d) for x in ("X", "Y"))
    Qx = add_matmul(b, A1, X, "Qx", summation)
    V = add_matmul(b, A3, Y, "V", summation)
    S = add_matmul(b, Qx, _transpose(A2), "S", summation)
    A = [[b.op("exp", f"A[{i},{j}]", [S[i][j]]) for j in range(n)] for i in range(n)]
    rowsum = [add_sum(b, A[i], f"l[{i}]", summation) for i in range(n)]
    AV = add_matmul(b, A, V, "AV", summation)
    O = [[_noncommutative(b, "div", f"O[{i},{l}]", AV[i][l], rowsum[i]) for l in range(d)]
         for i in range(n)]
    G = [[_noncommutative(b, "sub", f"G[{i},{l}]", O[i][l], E[i][l]) for l in range(d)]
         for i in range(n)]
    D = [_dot(b, "D", f"{i}", [(f"{i},{l}", G[i][l], O[i][l]) for l in range(d)], summation)
         for i in range(n)]
    dP = add_matmul(b, G, _transpose(V), "dP", summation)
    dS = [[_noncommutative(b, "div", f"dS[{i},{j}]",
                           b.op("mul", f"AdP[{i},{j}]",
                                [A[i][j], _noncommutative(b, "sub", f"dP-D[{i},{j}]",
                                                          dP[i][j], D[i])]),
                           rowsum[i]) for j in range(n)] for i in range(n)]
    dQx = add_matmul(b, dS, A2, "dQx", summation)
    dX = add_matmul(b, _transpose(A1), dQx, "dX", summation)
    return b.build([v for row in dX for v in row])


# --- approximate attention: the polynomial method ------------------------------------------------

def monomials(d: int, degree: int) -> list[tuple[int, ...]]:
    """The monomials of total degree <= ``degree`` in d variables, as sorted tuples of variable
    indices, by degree then lexicographically; ``()`` is the constant 1.  There are C(d+g, g)."""
    return [m for k in range(degree + 1) for m in combinations_with_replacement(range(d), k)]


def _monomial_name(m: tuple[int, ...]) -> str:
    return "*".join(f"x{l}" for l in m) or "1"


def _features(b: DAGBuilder, X: list[list[int]], label: str, monos, scaled: bool) -> list[dict]:
    """phi(x) for each row: x^m is x^m' times x_l, with l the last variable of m and m' = m
    without it (``sq`` for x_l * x_l: the DAG has no double edges).  With ``scaled`` the feature
    is x^m / m!: op ``mul/k`` with k the exponent of x_l in m turns 1/m'! into 1/m!, so that
    sum_m x^m y^m / m! = sum_k <x, y>^k / k!.  Degree 1 features are the inputs themselves; the
    constant feature 1 is no vertex (see ``approximate_attention``)."""
    rows = []
    for i, x in enumerate(X):
        phi: dict[tuple[int, ...], int] = {}
        for m in monos:
            if len(m) == 1:
                phi[m] = x[m[0]]
            elif len(m) > 1:
                k = m.count(m[-1])
                preds = {phi[m[:-1]], x[m[-1]]}  # one vertex twice when m = (l, l)
                op = ("mul" if len(preds) == 2 else "sq") + (f"/{k}" if scaled and k > 1 else "")
                phi[m] = b.op(op, f"{label}[{i},{_monomial_name(m)}]", sorted(preds))
        rows.append(phi)
    return rows


def _key_sums(b, U2, V, terms, summation) -> tuple[dict, dict]:
    """W = U2^T V (W[1,l] = sum_j V[j,l] for the constant feature) and w = U2^T 1 (w[1] = n is a
    constant, so no vertex): the only pass over K and V."""
    n, d = len(V), len(V[0])
    W = {(m, l): _dot(b, "W", f"{_monomial_name(m)},{l}",
                      [(f"{_monomial_name(m)},{j},{l}", U2[j][m], V[j][l]) for j in range(n)],
                      summation) for m in terms for l in range(d)}
    W.update({((), l): add_sum(b, [V[j][l] for j in range(n)], f"W[1,{l}]", summation)
              for l in range(d)})
    w = {m: add_sum(b, [U2[j][m] for j in range(n)], f"w[{_monomial_name(m)}]", summation)
         for m in terms}
    return W, w


def _row_outputs(b, i, phi, W, w, n, d, terms, summation) -> list[int]:
    """Row i: den = U1[i] w + n (op ``+n``), num[l] = W[1,l] + U1[i] W[:,l], T[i,l] = num / den."""
    s = _dot(b, "s", f"{i}", [(f"{i},{_monomial_name(m)}", phi[m], w[m]) for m in terms],
             summation)
    den = b.op(f"+{n}", f"den[{i}]", [s])
    out = []
    for l in range(d):
        num = _dot(b, "num", f"{i},{l}",
                   [(f"{i},{_monomial_name(m)},{l}", phi[m], W[m, l]) for m in terms],
                   summation, lead=[W[(), l]])
        out.append(_noncommutative(b, "div", f"T[{i},{l}]", num, den))
    return out


def approximate_attention(n: int, d: int, degree: int, summation: str = "chain") -> DAG:
    """T = diag(U1 (U2^T 1))^-1 U1 (U2^T V) with U1 = phi(Q), U2 = phi(K) the monomial features
    of total degree <= g (Alman-Song's polynomial method; P(s) = sum_{k<=g} s^k/k!, the Taylor
    polynomial of exp, so U1 U2^T = P(Q K^T)).  No n x n vertex set.  The constant feature 1 is
    folded in: W[1,l] = sum_j V[j,l] enters the numerator sums directly, and its contribution n to
    the denominator is the op ``+n`` of den[i] = s[i] + n."""
    positive("n", n), positive("d", d), positive("degree", degree), check_summation(summation)
    features = math.comb(d + degree, degree)  # each a vertex of every query row
    if features > MAX_BUILT_VERTICES:  # listing them alone would fill the memory
        raise InvalidArgument(f"d = {d} and degree {degree} give {features:,} features per row: "
                              f"the DAG would pass {MAX_BUILT_VERTICES:,} vertices")
    monos = monomials(d, degree)
    terms = monos[1:]  # the non-constant features
    b = DAGBuilder()
    Q, K, V = (matrix_inputs(b, x, n, d) for x in "QKV")
    U1 = _features(b, Q, "U1", monos, scaled=True)
    U2 = _features(b, K, "U2", monos, scaled=False)
    W, w = _key_sums(b, U2, V, terms, summation)
    T = [t for i in range(n) for t in _row_outputs(b, i, U1[i], W, w, n, d, terms, summation)]
    return b.build(T)


# --- CLI entry points (the registry turns --mask/--density/--seed into a mask) ------------------

def sparse_forward_named(n: int, d: int, mask: str = "causal", density: float = 0.5,
                         seed: int = 0, summation: str = "chain") -> DAG:
    """``sparse_attention_forward`` on the named mask ``mask_from_kind(mask, n, ...)``."""
    return sparse_attention_forward(mask_from_kind(mask, n, density=density, seed=seed), d,
                                    summation)


def sparse_backward_named(n: int, d: int, mask: str = "causal", density: float = 0.5,
                          seed: int = 0, summation: str = "chain") -> DAG:
    """``sparse_attention_backward`` on the named mask ``mask_from_kind(mask, n, ...)``."""
    return sparse_attention_backward(mask_from_kind(mask, n, density=density, seed=seed), d,
                                     summation)
