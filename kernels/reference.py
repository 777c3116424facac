"""Float64 references for the backward, block-sparse and approximate kernels (docs/theory.md
§4, §5 and §7), written independently of the kernels: plain NumPy on whole arrays, no tiling.

- ``attention_exp`` (Saha-Ye form: exp(QK^T) without max subtraction) and ``attention_softmax``
  (max-subtracted softmax, with the logsumexp L); both accept an element mask.
- ``attention_gradient``: the closed-form gradient of O = softmax(QK^T) V for the loss
  <dO, O> (Alman and Song, arXiv 2402.04497, in FlashAttention terms): dP = dO V^T,
  D = rowsum(dO * O), dS = P * (dP - D), dQ = dS K, dK = dS^T Q, dV = P^T dO.
- ``finite_difference_gradient``: central differences of <dO, O(Q, K, V)>, for tiny sizes.
- ``block_mask`` (causal, random with density s, every block-row and block-column with at least
  one allowed block), ``element_mask`` (a block mask expanded to entries).
- ``monomials``, ``feature_map`` (phi of degree g, r = C(d+g, g) features, phi(q).phi(k) =
  sum_{t<=g} (q.k)^t / t!), ``polynomial_attention`` (T = diag(U1 (U2^T 1))^-1 U1 (U2^T V)) and
  ``polynomial_denominator`` (U1 (U2^T 1)), both approximating exp(s q.k) for a score scale s
  (Q and K multiplied by sqrt(s) before the feature map).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ioverify.errors import InvalidArgument

MASKS = ("causal", "random", "block-diagonal", "permutation", "banded")


# --- exact attention -----------------------------------------------------------------------------

def attention_exp(q, k, v, mask=None) -> np.ndarray:
    """Saha-Ye's model: A = exp(QK^T) (masked entries 0), O = diag(A 1)^-1 A V."""
    a = np.exp(q @ k.T)
    if mask is not None:
        a = np.where(mask, a, 0.0)
    return (a / a.sum(axis=1, keepdims=True)) @ v


def attention_softmax(q, k, v, mask=None, scale: float = 1.0) -> dict:
    """O = softmax(s QK^T) V (s = ``scale``) with max subtraction, masked entries excluded; also
    P and the logsumexp L = m + log(rowsum exp(S - m)), m the row max over allowed entries."""
    s = scale * (q @ k.T)
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    m = s.max(axis=1, keepdims=True)
    e = np.exp(s - m)
    l = e.sum(axis=1, keepdims=True)
    p = e / l
    return {"O": p @ v, "P": p, "L": m + np.log(l), "m": m, "l": l}


def attention_gradient(q, k, v, d_out, mask=None) -> dict:
    """dQ, dK, dV of O = softmax(QK^T) V against the upstream gradient dO (closed form)."""
    fwd = attention_softmax(q, k, v, mask)
    p = fwd["P"]
    dp = d_out @ v.T
    # D_i = sum_l dO_il O_il = sum_j P_ij dP_ij (O = P V).  The second form makes dS exactly 0 on
    # a row with one allowed key (P one-hot), where the gradient is 0; the first leaves rounding
    # noise there, which a relative error check would read as a wrong kernel.
    dd = np.sum(p * dp, axis=1, keepdims=True)
    ds = p * (dp - dd)
    return {"dQ": ds @ k, "dK": ds.T @ q, "dV": p.T @ d_out}


def finite_difference_gradient(q, k, v, d_out, mask=None, h: float = 1e-6) -> dict:
    """Central differences of f(Q, K, V) = <dO, softmax(QK^T) V>: 2 evaluations per entry,
    so only for tiny sizes.  Error O(h^2) plus rounding O(eps/h)."""
    args = {"dQ": q, "dK": k, "dV": v}

    def loss(qq, kk, vv) -> float:
        return float(np.sum(d_out * attention_softmax(qq, kk, vv, mask)["O"]))

    grads = {}
    for name, x in args.items():
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            plus = {key: a.copy() for key, a in args.items()}
            minus = {key: a.copy() for key, a in args.items()}
            plus[name][idx] += h
            minus[name][idx] -= h
            g[idx] = (loss(plus["dQ"], plus["dK"], plus["dV"])
                      - loss(minus["dQ"], minus["dK"], minus["dV"])) / (2 * h)
        grads[name] = g
    return grads


# --- block masks ---------------------------------------------------------------------------------

def block_mask(kind: str, blocks: int, density: float = 1.0, seed: int = 0) -> np.ndarray:
    """A ``blocks`` x ``blocks`` boolean block mask.  ``causal``: block (i, j) allowed iff
    j <= i.  ``block-diagonal``: iff j = i.  ``banded``: iff |i - j| <= 1.  ``permutation``: the
    blocks of a random permutation, one per block-row and block-column.  ``random``: a random
    permutation's blocks plus uniformly chosen others up to round(density * blocks^2) in all
    (never fewer than ``blocks``).  Only ``random`` reads ``density``."""
    if blocks < 1:
        raise InvalidArgument(f"a block mask needs at least one block, got {blocks}")
    i, j = np.indices((blocks, blocks))
    fixed = {"causal": j <= i, "block-diagonal": i == j, "banded": abs(i - j) <= 1}
    if kind in fixed:
        return fixed[kind]
    if kind == "permutation":
        mask = np.zeros((blocks, blocks), dtype=bool)
        mask[np.arange(blocks), np.random.default_rng([seed, blocks]).permutation(blocks)] = True
        return mask
    if kind != "random":
        raise InvalidArgument(f"mask must be one of {', '.join(MASKS)}, got {kind!r}")
    if not 0.0 < density <= 1.0:
        raise InvalidArgument(f"density s must be in (0, 1], got {density!r}")
    rng = np.random.default_rng([seed, blocks])
    mask = np.zeros((blocks, blocks), dtype=bool)
    mask[np.arange(blocks), rng.permutation(blocks)] = True
    want = max(blocks, int(round(density * blocks * blocks)))
    free = np.flatnonzero(~mask.ravel())
    extra = rng.choice(free, size=want - blocks, replace=False)
    mask.ravel()[extra] = True
    return mask


def element_mask(mask: np.ndarray, n: int, block: int) -> np.ndarray:
    """The n x n element mask of a block mask with square blocks of side ``block`` (the last
    block may be shorter): entry (x, y) is allowed iff its block is."""
    idx = np.arange(n) // block
    return mask[np.ix_(idx, idx)]


# --- the polynomial method -----------------------------------------------------------------------

def monomials(d: int, g: int) -> list[tuple]:
    """Every monomial of total degree <= g in d variables, as a sorted tuple of variable
    indices with repetition (the empty tuple is the constant); r = C(d+g, g) of them."""
    out = []
    for t in range(g + 1):
        out.extend(itertools.combinations_with_replacement(range(d), t))
    return out


def coefficient(alpha: tuple) -> float:
    """1/sqrt(alpha!) with alpha! = prod of the factorials of the exponents: then
    sum over |alpha| = t of (q^alpha/sqrt(alpha!)) (k^alpha/sqrt(alpha!)) = (q.k)^t / t!
    by the multinomial theorem."""
    fact = 1
    for _, group in itertools.groupby(alpha):
        fact *= math.factorial(len(list(group)))
    return 1.0 / math.sqrt(fact)


def feature_map(x: np.ndarray, g: int) -> np.ndarray:
    """phi(x) row by row: an n x r matrix, column alpha = x^alpha / sqrt(alpha!)."""
    n, d = x.shape
    cols = [coefficient(a) * np.prod(x[:, list(a)], axis=1) if a else np.ones(n)
            for a in monomials(d, g)]
    return np.stack(cols, axis=1)


def _scaled_features(q, k, g: int, scale: float) -> tuple:
    """U1 = phi(sqrt(s) Q), U2 = phi(sqrt(s) K): then U1 U2^T = sum_{t<=g} (s QK^T)^t / t!."""
    root = math.sqrt(scale)
    return feature_map(q * root, g), feature_map(k * root, g)


def polynomial_attention(q, k, v, g: int, scale: float = 1.0) -> np.ndarray:
    """T = diag(U1 (U2^T 1))^-1 U1 (U2^T V), U1 = phi(sqrt(s) Q), U2 = phi(sqrt(s) K), s =
    ``scale``: the degree-g approximation of softmax(s QK^T) V, never forming n x n."""
    u1, u2 = _scaled_features(q, k, g, scale)
    num = u1 @ (u2.T @ v)
    den = u1 @ u2.sum(axis=0)
    return num / den[:, None]


def polynomial_denominator(q, k, g: int, scale: float = 1.0) -> np.ndarray:
    """U1 (U2^T 1), the row sums of the approximated exp(s QK^T) (n entries).  An entry <= 0
    (an odd-degree Taylor polynomial goes negative for scores below about -1) makes T
    meaningless: it is no longer a weighted mean of the rows of V."""
    u1, u2 = _scaled_features(q, k, g, scale)
    return u1 @ u2.sum(axis=0)


def taylor_exp(x, g: int):
    """sum_{t<=g} x^t / t!: what phi(q).phi(k) computes at x = q.k."""
    return sum(np.asarray(x, dtype=np.float64) ** t / math.factorial(t) for t in range(g + 1))


def rank(d: int, g: int) -> int:
    """r = C(d+g, g), the number of monomials of degree <= g in d variables."""
    return math.comb(d + g, g)


# --- harness helpers: consistent backward inputs, references keyed by output name ---------------

def backward_sample(stats: tuple, mask_of=None):
    """An input sampler ``sample(sizes, blocks, rng)`` for a backward kernel: Q, K, V, dO standard
    normal scaled by d^(-1/4), and the forward results the backward pass takes as inputs
    (O and the statistics named in ``stats``: "L", or "l" and "m") computed in float64 from
    them, so that fresh probe inputs are consistent too.  ``mask_of(sizes, blocks)`` gives an
    element mask (block-sparse)."""

    def sample(sizes: dict, blk: dict, rng) -> dict:
        n, d = sizes["n"], sizes["d"]
        scale = float(d) ** -0.25
        x = {name: rng.standard_normal((n, d)) * scale for name in ("Q", "K", "V", "dO")}
        mask = None if mask_of is None else mask_of(sizes, blk)
        fwd = attention_softmax(x["Q"], x["K"], x["V"], mask)
        x["O"] = fwd["O"]
        for name in stats:
            x[name] = fwd[name]
        return x

    return sample


def gradient_reference(inputs: dict, mask=None) -> dict:
    """dQ, dK, dV of the inputs' Q, K, V, dO (the closed form above)."""
    return attention_gradient(inputs["Q"], inputs["K"], inputs["V"], inputs["dO"], mask)
