"""The DAG families: vertex and edge counts against the formulas of docs/families.md, op labels,
in-degrees, outputs, masks, JSON round trips, and a numeric evaluation of every attention graph
against NumPy (attention, its finite-difference gradient, the polynomial method)."""

from __future__ import annotations

import re
from math import comb, factorial
from pathlib import Path

import numpy as np
import pytest

from ioverify.cli import main
from ioverify.dag import (approximate_attention, attention_backward, attention_forward,
                          binary_tree, dag_from_json, dag_to_json, matmul, pyramid,
                          sparse_attention_backward, sparse_attention_forward)
from ioverify.dag.attention import mask_from_kind, monomials
from ioverify.dag.registry import FAMILIES
from ioverify.errors import InvalidArgument

DOCS = Path(__file__).resolve().parent.parent / "docs" / "families.md"
SUMMATIONS = ("chain", "tree")
UNARY = re.compile(r"exp|sq(/\d+)?|\+\d+")
CAUSAL3 = [[True, False, False], [True, True, False], [True, True, True]]
# Column 2 is attended by no query: its dK/dV vertices must be absent (the gradient is zero).
HOLE3 = [[1, 0, 0], [1, 1, 0], [0, 1, 0]]


# --- a tiny evaluator: op labels to NumPy --------------------------------------------------------

def evaluate(dag, inputs: dict[str, float]) -> dict[str, float]:
    """Value of every vertex.  sub and div: the left operand is the predecessor with the larger
    index (the convention of ioverify.dag.attention); preds are stored in increasing order."""
    val = np.zeros(len(dag))
    for v, (op, ps) in enumerate(zip(dag.ops, dag.preds)):
        x = [val[p] for p in ps]
        if op == "input":
            val[v] = inputs[dag.names[v]]
        elif op in ("add", "mul"):
            val[v] = x[0] + x[1] if op == "add" else x[0] * x[1]
        elif op in ("sub", "div"):
            val[v] = x[1] - x[0] if op == "sub" else x[1] / x[0]
        elif op == "exp":
            val[v] = np.exp(x[0])
        elif m := re.fullmatch(r"(mul|sq)(?:/(\d+))?", op):
            product = x[0] * x[1] if m[1] == "mul" else x[0] * x[0]
            val[v] = product / int(m[2] or 1)
        elif m := re.fullmatch(r"\+(\d+)", op):
            val[v] = x[0] + int(m[1])
        else:
            raise AssertionError(f"unknown op {op!r} at {dag.names[v]!r}")
    return dict(zip(dag.names, val))


def named(matrices: dict[str, np.ndarray]) -> dict[str, float]:
    out = {}
    for label, M in matrices.items():
        for idx, x in np.ndenumerate(M):
            out[f"{label}[{','.join(map(str, idx))}]"] = float(x)
    return out


def matrix(values: dict[str, float], label: str, shape) -> np.ndarray:
    M = np.full(shape, np.nan)
    for idx in np.ndindex(*shape):
        M[idx] = values.get(f"{label}[{','.join(map(str, idx))}]", np.nan)
    return M


def softmax_attention(Q, K, V, mask):
    S = np.where(mask, Q @ K.T, -np.inf)
    L = np.log(np.exp(S).sum(axis=1))
    P = np.exp(S - L[:, None])
    return P @ V, L


def gradient(Q, K, V, dO, mask, h=1e-6):
    """Central finite differences of sum(dO * attention(Q, K, V)): independent of the formulas."""
    grads = []
    for X in (Q, K, V):
        G = np.zeros_like(X)
        for idx in np.ndindex(*X.shape):
            old = X[idx]
            X[idx] = old + h
            up = (dO * softmax_attention(Q, K, V, mask)[0]).sum()
            X[idx] = old - h
            down = (dO * softmax_attention(Q, K, V, mask)[0]).sum()
            X[idx] = old
            G[idx] = (up - down) / (2 * h)
        grads.append(G)
    return grads


# --- counts: the formulas of docs/families.md ----------------------------------------------------

def forward_counts(n, d, Z):
    """(vertices, inputs, unary vertices, outputs) of the forward graph with Z allowed pairs."""
    return 3 * n * d + 4 * Z * d + Z - n, 3 * n * d, Z, n * d


def backward_counts(n, d, Z, c):
    """c: the keys some query attends (n when dense)."""
    return 6 * n * d + 10 * Z * d + 2 * Z - 2 * c * d, 5 * n * d + n, Z, n * d + 2 * c * d


def approximate_counts(n, d, g):
    r = comb(d + g, g)
    h = r - 1 - d  # features of degree >= 2
    vertices = (3 * n * d + 2 * n * h + (r - 1) * d * (2 * n - 1) + d * (n - 1) + (r - 1) * (n - 1)
                + 2 * n * d * (r - 1) + n * (2 * r - 3) + n + n * d)
    unary = n + (2 * n * d if g >= 2 else 0)
    return vertices, 3 * n * d, unary, n * d


def check_counts(dag, vertices, inputs, unary, outputs):
    assert (len(dag), len(dag.inputs), len(dag.outputs)) == (vertices, inputs, outputs)
    assert sum(1 for op in dag.ops if UNARY.fullmatch(op)) == unary
    assert dag.num_edges == 2 * (vertices - inputs) - unary
    for v, op in enumerate(dag.ops):  # in-degree follows from the op label
        assert len(dag.preds[v]) == (0 if op == "input" else 1 if UNARY.fullmatch(op) else 2)


@pytest.mark.parametrize("summation", SUMMATIONS)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (2, 2, 2), (2, 3, 4), (3, 1, 2)])
def test_matmul_counts(m, k, n, summation):
    dag = matmul(m, k, n, summation)
    check_counts(dag, m * k + k * n + m * n * (2 * k - 1), m * k + k * n, 0, m * n)


@pytest.mark.parametrize("height", [1, 2, 3, 6])
def test_pyramid_counts(height):
    check_counts(pyramid(height), (height + 1) * (height + 2) // 2, height + 1, 0, 1)


@pytest.mark.parametrize("leaves", [2, 4, 8, 32])
def test_binary_tree_counts(leaves):
    check_counts(binary_tree(leaves), 2 * leaves - 1, leaves, 0, 1)


@pytest.mark.parametrize("summation", SUMMATIONS)
@pytest.mark.parametrize("n,d", [(1, 1), (1, 3), (2, 1), (3, 2), (4, 3), (5, 4)])
def test_dense_attention_counts(n, d, summation):
    check_counts(attention_forward(n, d, summation), *forward_counts(n, d, n * n))
    check_counts(attention_backward(n, d, summation), *backward_counts(n, d, n * n, n))


@pytest.mark.parametrize("mask", [CAUSAL3, HOLE3, np.eye(4, dtype=bool),
                                  mask_from_kind("random", 6, density=0.3, seed=4)])
@pytest.mark.parametrize("d", [1, 2])
def test_sparse_attention_counts(mask, d):
    M = np.asarray(mask, dtype=bool)
    n, Z, c = len(M), int(M.sum()), int(M.any(axis=0).sum())
    check_counts(sparse_attention_forward(mask, d), *forward_counts(n, d, Z))
    check_counts(sparse_attention_backward(mask, d), *backward_counts(n, d, Z, c))


@pytest.mark.parametrize("summation", SUMMATIONS)
@pytest.mark.parametrize("n,d,g", [(1, 1, 1), (2, 1, 3), (2, 2, 2), (3, 2, 1), (3, 3, 3),
                                   (4, 2, 4)])
def test_approximate_counts(n, d, g, summation):
    check_counts(approximate_attention(n, d, g, summation), *approximate_counts(n, d, g))


def test_approximate_has_no_quadratic_part():
    """The vertex count is affine in n: no n x n vertex set."""
    sizes = [len(approximate_attention(n, 3, 2)) for n in (2, 4, 6, 8)]
    assert len({b - a for a, b in zip(sizes, sizes[1:])}) == 1
    assert not any(name.startswith(("S", "A[")) for name in approximate_attention(3, 2, 2).names)


def test_monomials_count_and_order():
    for d, g in [(1, 1), (2, 3), (4, 2), (3, 4)]:
        ms = monomials(d, g)
        assert len(ms) == len(set(ms)) == comb(d + g, g)
        assert ms[0] == () and [len(m) for m in ms] == sorted(len(m) for m in ms)


# --- labels, names, outputs ----------------------------------------------------------------------

def test_forward_labels_and_outputs():
    dag = attention_forward(3, 2)
    op = {name: dag.ops[v] for name, v in dag.index.items()}
    assert (op["S[1,2]"], op["A[1,2]"], op["l[1]"], op["AV[2,1]"], op["O[2,1]"]) == \
        ("add", "exp", "add", "add", "div")
    assert op["S*[1,0,2]"] == op["AV*[2,0,1]"] == "mul"
    assert {dag.names[v] for v in dag.outputs} == {f"O[{i},{l}]" for i in range(3) for l in (0, 1)}
    assert dag.preds[dag.vertex("O[2,1]")] == (dag.vertex("l[2]"), dag.vertex("AV[2,1]"))
    assert dag.max_in_degree == 2 and dag.min_memory == 3


def test_backward_labels_and_outputs():
    dag = attention_backward(2, 2)
    op = {name: dag.ops[v] for name, v in dag.index.items()}
    assert (op["S-L[0,1]"], op["P[0,1]"], op["dP-D[1,0]"], op["dS[1,0]"], op["D[1]"]) == \
        ("sub", "exp", "sub", "mul", "add")
    assert {dag.names[v] for v in dag.outputs} == {f"{g}[{a},{l}]" for g in ("dQ", "dK", "dV")
                                                   for a in (0, 1) for l in (0, 1)}
    assert all(dag.ops[v] == "input" for v in map(dag.vertex, ("L[0]", "O[1,1]", "dO[0,1]")))


def test_single_term_sums_have_no_add_vertex():
    dag = attention_forward(1, 1)
    assert dag.ops[dag.vertex("S[0,0]")] == "mul" and "l[0]" not in dag.index
    assert dag.preds[dag.vertex("O[0,0]")] == (dag.vertex("A[0,0]"), dag.vertex("AV[0,0]"))


@pytest.mark.parametrize("summation", SUMMATIONS)
@pytest.mark.parametrize("n,d", [(1, 2), (3, 2), (4, 1)])
def test_full_mask_is_the_dense_family(n, d, summation):
    full = [[True] * n for _ in range(n)]
    assert sparse_attention_forward(full, d, summation) == attention_forward(n, d, summation)
    assert sparse_attention_backward(np.ones((n, n), dtype=bool), d, summation) == \
        attention_backward(n, d, summation)
    assert sparse_attention_forward(mask_from_kind("full", n), d, summation).names == \
        attention_forward(n, d, summation).names


def test_sparse_omits_disallowed_pairs_and_idle_keys():
    fwd, bwd = sparse_attention_forward(CAUSAL3, 2), sparse_attention_backward(HOLE3, 1)
    assert "S[0,1]" not in fwd.index and "A[2,1]" in fwd.index
    assert "dK[2,0]" not in bwd.index and "dV[2,0]" not in bwd.index and "dK[1,0]" in bwd.index
    assert not bwd.succs[bwd.vertex("K[2,0]")]  # an idle key is an isolated input


@pytest.mark.parametrize("family", [attention_forward, attention_backward])
def test_json_round_trip(family):
    dag = family(3, 2)
    assert dag_from_json(dag_to_json(dag)) == dag


def test_json_round_trip_sparse_and_approximate():
    for dag in (sparse_attention_backward(HOLE3, 2), approximate_attention(3, 2, 3, "tree")):
        assert dag_from_json(dag_to_json(dag)) == dag


# --- bad arguments -------------------------------------------------------------------------------

@pytest.mark.parametrize("mask,message", [
    ([[True, False], [False, False]], "mask row 1 allows no key"),
    ([[True, True], [True]], "mask row 1 must have 2 entries"),
    ([[True, "yes"], [True, True]], r"mask\[0\]\[1\] must be a boolean"),
    ([[1, 2], [1, 1]], r"mask\[0\]\[1\] must be a boolean"),
    ([], "mask must be a non-empty"),
    (np.ones(3, dtype=bool), "mask row 0 must have 3 entries"),
    (np.zeros((2, 2), dtype=bool), "mask row 0 allows no key"),
    ("causal", "mask must be a non-empty"),
])
@pytest.mark.parametrize("family", [sparse_attention_forward, sparse_attention_backward])
def test_bad_masks(family, mask, message):
    with pytest.raises(InvalidArgument, match=message):
        family(mask, 2)


@pytest.mark.parametrize("call,message", [
    (lambda: attention_forward(0, 2), "n must be"),
    (lambda: attention_backward(2, 0), "d must be"),
    (lambda: attention_forward(2, 2, "zigzag"), "summation must be"),
    (lambda: approximate_attention(2, 2, 0), "degree must be"),
    (lambda: approximate_attention(2, True, 1), "d must be"),
    (lambda: mask_from_kind("diagonal", 3), "mask must be one of"),
    (lambda: mask_from_kind("random", 3, density=1.5), "density must be"),
    (lambda: mask_from_kind("random", 3, seed=-1), "seed must be"),
])
def test_bad_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()


def test_named_masks():
    assert mask_from_kind("causal", 3) == CAUSAL3
    assert mask_from_kind("random", 5, density=0.0, seed=1) == np.eye(5, dtype=bool).tolist()
    a, b = (mask_from_kind("random", 8, density=0.4, seed=s) for s in (3, 3))
    assert a == b and all(a[i][i] for i in range(8)) and 8 < sum(map(sum, a)) < 64


# --- numeric evaluation: the graphs compute what they claim ---------------------------------------

@pytest.mark.parametrize("summation", SUMMATIONS)
@pytest.mark.parametrize("mask", [np.ones((3, 3), dtype=bool), CAUSAL3, HOLE3,
                                  mask_from_kind("random", 4, density=0.4, seed=2)])
def test_forward_evaluates_to_attention(mask, summation):
    rng = np.random.default_rng(0)
    M = np.asarray(mask, dtype=bool)
    n, d = len(M), 2
    Q, K, V = (rng.normal(size=(n, d)) for _ in range(3))
    values = evaluate(sparse_attention_forward(mask, d, summation), named({"Q": Q, "K": K, "V": V}))
    np.testing.assert_allclose(matrix(values, "O", (n, d)), softmax_attention(Q, K, V, M)[0],
                               rtol=1e-12)


@pytest.mark.parametrize("summation", SUMMATIONS)
@pytest.mark.parametrize("mask", [np.ones((3, 3), dtype=bool), CAUSAL3, HOLE3])
def test_backward_evaluates_to_the_gradient(mask, summation):
    rng = np.random.default_rng(1)
    M = np.asarray(mask, dtype=bool)
    n, d = len(M), 2
    Q, K, V, dO = (rng.normal(size=(n, d)) for _ in range(4))
    O, L = softmax_attention(Q, K, V, M)
    dag = sparse_attention_backward(mask, d, summation)
    values = evaluate(dag, named({"Q": Q, "K": K, "V": V, "O": O, "dO": dO, "L": L}))
    for label, expected in zip(("dQ", "dK", "dV"), gradient(Q, K, V, dO, M)):
        got = matrix(values, label, (n, d))
        idle = ~M.any(axis=0) if label != "dQ" else np.zeros(n, dtype=bool)
        assert np.isnan(got[idle]).all()  # no vertex for a key nobody attends ...
        np.testing.assert_allclose(expected[idle], 0.0, atol=1e-8)  # ... whose gradient is 0
        np.testing.assert_allclose(got[~idle], expected[~idle], atol=1e-7)


def test_backward_matches_the_closed_form():
    """dV = P^T dO, dS = P * (dP - D), dQ = dS K, dK = dS^T Q, on a dense 4 x 3 instance."""
    rng = np.random.default_rng(2)
    n, d = 4, 3
    Q, K, V, dO = (rng.normal(size=(n, d)) for _ in range(4))
    O, L = softmax_attention(Q, K, V, np.ones((n, n), dtype=bool))
    P = np.exp(Q @ K.T - L[:, None])
    dS = P * (dO @ V.T - (dO * O).sum(axis=1)[:, None])
    values = evaluate(attention_backward(n, d, "tree"),
                      named({"Q": Q, "K": K, "V": V, "O": O, "dO": dO, "L": L}))
    for label, expected in (("dQ", dS @ K), ("dK", dS.T @ Q), ("dV", P.T @ dO)):
        np.testing.assert_allclose(matrix(values, label, (n, d)), expected, rtol=1e-10)


@pytest.mark.parametrize("summation", SUMMATIONS)
@pytest.mark.parametrize("n,d,g", [(1, 1, 1), (3, 2, 1), (3, 2, 3), (4, 3, 2), (2, 1, 4)])
def test_approximate_evaluates_to_the_polynomial_method(n, d, g, summation):
    rng = np.random.default_rng(3)
    Q, K, V = (rng.normal(scale=0.5, size=(n, d)) for _ in range(3))
    values = evaluate(approximate_attention(n, d, g, summation), named({"Q": Q, "K": K, "V": V}))
    S = Q @ K.T
    A = sum(S ** k / factorial(k) for k in range(g + 1))  # P(QK^T), the n x n matrix
    np.testing.assert_allclose(matrix(values, "T", (n, d)), (A @ V) / A.sum(axis=1)[:, None],
                               rtol=1e-10)


def test_approximate_tends_to_attention():
    rng = np.random.default_rng(4)
    Q, K, V = (rng.normal(scale=0.3, size=(3, 2)) for _ in range(3))
    values = evaluate(approximate_attention(3, 2, 6), named({"Q": Q, "K": K, "V": V}))
    np.testing.assert_allclose(matrix(values, "T", (3, 2)),
                               softmax_attention(Q, K, V, np.ones((3, 3), dtype=bool))[0],
                               atol=1e-6)


# --- performance, CLI and docs -------------------------------------------------------------------

def test_attention_forward_64_8_builds():
    # Its build time is a benchmark (`ioverify bench families`), not a timed test.
    dag = attention_forward(64, 8)
    assert len(dag) == forward_counts(64, 8, 64 * 64)[0]


@pytest.mark.parametrize("argv,family,kwargs", [
    (["attention-forward", "--n", "2", "--d", "1"], attention_forward, (2, 1)),
    (["attention-backward", "--n", "2", "--d", "2", "--summation", "tree"], attention_backward,
     (2, 2, "tree")),
    (["approximate-attention", "--n", "3", "--d", "2", "--degree", "2"], approximate_attention,
     (3, 2, 2)),
    (["sparse-forward", "--n", "4", "--d", "2", "--mask", "causal"], sparse_attention_forward,
     (mask_from_kind("causal", 4), 2)),
    (["sparse-backward", "--n", "5", "--d", "1", "--mask", "random", "--density", "0.3",
      "--seed", "0"], sparse_attention_backward,
     (mask_from_kind("random", 5, density=0.3, seed=0), 1)),
])
def test_cli_builds_the_family(argv, family, kwargs, capsys):
    assert main(["dag", *argv]) == 0
    assert dag_from_json(capsys.readouterr().out) == family(*kwargs)


@pytest.mark.parametrize("argv", [
    ["--mask", "diagonal"], ["--mask", "random", "--density", "1.5"],
    ["--mask", "random", "--seed", "-1"], ["--density", "x"],
])
def test_cli_bad_mask_exits_2_with_one_line(argv, capsys):
    try:
        code = main(["dag", "sparse-forward", "--n", "4", "--d", "2", *argv])
    except SystemExit as exit_:
        code = exit_.code
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    assert len(out.err.strip().splitlines()) == 1 and "error:" in out.err


def test_every_family_is_documented():
    text = DOCS.read_text()
    for name in FAMILIES:
        assert f"ioverify dag {name}" in text, name


def test_a_family_past_the_vertex_cap_is_refused_in_one_line(monkeypatch):
    """Before, asking for a family far too large ran until the machine's memory was gone."""
    from ioverify.dag import model
    from ioverify.dag.families import pyramid as build_pyramid
    from ioverify.errors import InvalidDAG

    monkeypatch.setattr(model, "MAX_BUILT_VERTICES", 50)
    with pytest.raises(InvalidDAG, match="more than 50 vertices"):
        build_pyramid(10)  # 66 vertices
    assert len(build_pyramid(8)) == 45


@pytest.mark.parametrize("argv, phrase", [
    (["attention-forward", "--n", "100000", "--d", "100000"], "n-by-n mask of 10,000,000,000"),
    (["sparse-backward", "--n", "5000", "--d", "1"], "(n <= 4,472)"),
    (["approximate-attention", "--n", "10", "--d", "100", "--degree", "5"],
     "96,560,646 features per row"),
])
def test_families_too_large_to_build_are_refused_before_building(argv, phrase, capsys):
    assert main(["dag", *argv]) == 2
    err = capsys.readouterr().err
    assert phrase in err and len(err.strip().splitlines()) == 1
