"""The polynomial method: the feature map (r = C(d+g, g), phi(q).phi(k) = the Taylor
polynomial of exp(q.k)), the float64 reference against exact attention, and the kernel:
certified, exact closed form (the table resident or streamed), I/O linear in n; the score scale
(exp(q.k/sqrt(d)) by default), the error against exact softmax attention at the same scale, and
the refusal of inputs on which a denominator U1 (U2^T 1) is <= 0."""

import dataclasses
import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import KERNELS, count_only, run_kernel, run_spec
from ioverify.kernels.polynomial_forward import coef_table, error_table, score_scale
from ioverify.kernels.reference import (attention_exp, attention_softmax, feature_map, monomials,
                                        polynomial_attention, polynomial_denominator, rank,
                                        taylor_exp)


@pytest.mark.parametrize("d,g", [(1, 0), (1, 3), (2, 2), (3, 3), (5, 2), (4, 4)])
def test_rank_is_the_monomial_count(d, g):
    feats = monomials(d, g)
    assert len(feats) == len(set(feats)) == rank(d, g) == math.comb(d + g, g)


@given(st.integers(1, 4), st.integers(0, 4), st.integers(0, 2**32 - 1))
def test_features_reproduce_the_taylor_polynomial(d, g, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.uniform(-1, 1, (3, d)), rng.uniform(-1, 1, (4, d))
    assert np.allclose(feature_map(q, g) @ feature_map(k, g).T, taylor_exp(q @ k.T, g),
                       rtol=1e-12, atol=1e-12)


def test_polynomial_reference_is_attention_with_the_taylor_matrix():
    rng = np.random.default_rng(1)
    q, k, v = (rng.uniform(-0.5, 0.5, (7, 3)) for _ in range(3))
    a = taylor_exp(q @ k.T, 2)
    explicit = (a / a.sum(axis=1, keepdims=True)) @ v
    assert np.allclose(polynomial_attention(q, k, v, 2), explicit, rtol=1e-12, atol=1e-13)


def test_error_against_exact_attention_falls_with_the_degree_and_grows_with_b():
    rng = np.random.default_rng(2)
    errors = {}
    for bound in (0.25, 0.5, 1.0):
        q, k, v = (rng.uniform(-bound, bound, (40, 4)) for _ in range(3))
        exact = attention_exp(q, k, v)
        errors[bound] = [float(np.max(np.abs(polynomial_attention(q, k, v, g) - exact)))
                         for g in (1, 2, 3, 4)]
    for bound, errs in errors.items():
        assert all(a > b for a, b in zip(errs, errs[1:])), (bound, errs)
    assert errors[0.25][2] < errors[1.0][2]
    assert errors[0.25][3] < 1e-5


GRID = [(n, d, g, M) for n in (1, 5, 12) for d in (1, 2, 3) for g in (0, 1, 3)
        for M in (30, 80, 400)]


def test_polynomial_kernel_certifies_and_matches_closed_form_on_grid():
    ran, streamed = 0, 0
    for n, d, g, M in GRID:
        try:
            report = run_kernel("polynomial-forward", memory=M, n=n, d=d, degree=g,
                                entry_bound=0.5, seed=n + d + g)
        except InvalidArgument as error:
            assert "too small" in str(error)
            continue
        ran += 1
        streamed += report.blocks["group"] < report.blocks["rank"]
        assert report.certified, (n, d, g, M, report.reason)
        assert report.io == report.formula, (n, d, g, M)
        assert report.peak <= M
        assert report.max_error < 1e-12
        assert report.extra["rank"] == rank(d, g)
    assert ran >= 60 and streamed >= 5


def test_error_is_reported_and_small_for_small_entries():
    report = run_kernel("polynomial-forward", memory=300, n=30, d=3, degree=3,
                        entry_bound=0.25)
    assert report.certified and report.extra["error_vs_softmax"] < 1e-4
    rough = run_kernel("polynomial-forward", memory=300, n=30, d=3, degree=1, entry_bound=1.0)
    assert rough.extra["error_vs_softmax"] > report.extra["error_vs_softmax"]
    assert rough.extra["min_denominator"] > 0


def test_io_grows_linearly_in_n():
    """At fixed d, g, M the I/O is affine in n once the table stays resident (f = r)."""
    ios = [sum(count_only("polynomial-forward", memory=400, n=n, d=4, degree=2)[:2])
           for n in (64, 128, 256, 512)]
    steps = [b - a for a, b in zip(ios, ios[1:])]
    assert steps[1] == 2 * steps[0] and steps[2] == 2 * steps[1]


def test_streamed_table_costs_per_row_block():
    """When r(d + 2) words do not fit, the table is re-read by every row block of Q."""
    loads, stores, _, blk = count_only("polynomial-forward", memory=80, n=40, d=3, degree=3)
    assert blk["group"] < blk["rank"] == 20
    from ioverify.bounds.kernel_counts import evaluate

    assert loads + stores == evaluate("polynomial-forward", {"n": 40, "d": 3}, blk)
    groups, row_blocks = -(-20 // blk["group"]), -(-40 // blk["block"])
    assert loads + stores == 2 * 40 * 3 * (groups + 1) + 20 * 5 * (1 + row_blocks)


def test_lowered_polynomial_schedule_replays():
    from ioverify.game import replay
    from ioverify.trace.lower import lower

    report = run_kernel("polynomial-forward", memory=40, n=4, d=2, degree=2)
    dag, schedule = lower(report.trace)
    result = replay(dag, schedule, 40, "recompute")
    assert result.ok, result.describe()
    assert (result.loads, result.stores, result.peak) == (report.loads, report.stores,
                                                          report.peak)


@pytest.mark.parametrize("options", [dict(degree=-1), dict(degree=1.5), dict(entry_bound=0),
                                     dict(entry_bound="x"), dict(mask="causal"),
                                     dict(scale="sqrt"), dict(scale=None), dict(scale=2)])
def test_bad_options_are_refused(options):
    with pytest.raises(InvalidArgument):
        run_kernel("polynomial-forward", memory=100, n=4, d=2, **options)


# --- the score scale, the error against softmax, the refusal of non-positive denominators ------

@pytest.mark.parametrize("scale,s", [("sqrt-d", 0.5), ("d", 0.25), ("none", 1.0)])
def test_scaled_features_give_the_taylor_polynomial_of_the_scaled_scores(scale, s):
    rng = np.random.default_rng(3)
    q, k, v = (rng.uniform(-1, 1, (5, 4)) for _ in range(3))
    assert score_scale(scale, 4) == s
    c = coef_table(4, 3, s)[0]  # the kernel's table: c_alpha on each side
    u1 = np.stack([c[i] * np.prod(q[:, list(al)], axis=1) for i, al in
                   enumerate(monomials(4, 3))], axis=1)
    u2 = np.stack([c[i] * np.prod(k[:, list(al)], axis=1) for i, al in
                   enumerate(monomials(4, 3))], axis=1)
    taylor = taylor_exp(s * (q @ k.T), 3)
    assert np.allclose(u1 @ u2.T, taylor, rtol=1e-12, atol=1e-12)
    explicit = (taylor / taylor.sum(axis=1, keepdims=True)) @ v
    assert np.allclose(polynomial_attention(q, k, v, 3, s), explicit, rtol=1e-12, atol=1e-13)
    assert np.allclose(polynomial_denominator(q, k, 3, s), taylor.sum(axis=1), rtol=1e-12)


def test_scale_defaults_to_sqrt_d():
    default = run_kernel("polynomial-forward", memory=400, n=20, d=4, degree=2)
    scaled = run_kernel("polynomial-forward", memory=400, n=20, d=4, degree=2, scale="sqrt-d")
    none = run_kernel("polynomial-forward", memory=400, n=20, d=4, degree=2, scale="none")
    assert default.sizes["scale"] == "sqrt-d" and default.certified
    assert default.extra == scaled.extra != none.extra
    row, = error_table([0.5], [2], 20, 4)
    assert row.error_vs_softmax == pytest.approx(default.extra["error_vs_softmax"], rel=1e-6)


# approx_error of the kernel before the scale existed (exp(q.k) unscaled), and its I/O.
OLD = [(dict(memory=300, n=30, d=3, degree=3, entry_bound=0.25), 1.0454190841995004e-07, 560),
       (dict(memory=300, n=30, d=3, degree=1, entry_bound=1.0), 0.0864942491151206, 400),
       (dict(memory=1024, n=64, d=4, degree=3, entry_bound=0.5), 7.508629642194453e-05, 1444)]


@pytest.mark.parametrize("params,old_error,old_io", OLD)
def test_scale_none_reproduces_the_old_numbers(params, old_error, old_io):
    report = run_kernel("polynomial-forward", scale="none", **params)
    assert report.certified and report.io == old_io
    assert report.extra["error_vs_softmax"] == pytest.approx(old_error, rel=1e-9)


def test_softmax_and_the_saha_ye_form_agree():
    """Unscaled, the old reference (exp without max subtraction) is softmax: error_vs_softmax
    with scale none is the old approx_error."""
    rng = np.random.default_rng(4)
    q, k, v = (rng.uniform(-2, 2, (9, 4)) for _ in range(3))
    assert np.allclose(attention_softmax(q, k, v, scale=1.0)["O"], attention_exp(q, k, v),
                       rtol=1e-13, atol=1e-14)
    assert np.allclose(attention_softmax(q, k, v, scale=0.5)["O"],
                       attention_exp(q * 0.5, k, v), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("scale", ["sqrt-d", "d", "none"])
def test_error_vs_softmax_falls_with_the_degree_at_half(scale):
    rows = error_table([0.5], [1, 2, 3, 4], 64, 4, scale=scale)
    errors = [row.error_vs_softmax for row in rows]
    assert all(a > b for a, b in zip(errors, errors[1:])), errors
    assert not any(row.refused for row in rows)
    assert [row.rank for row in rows] == [rank(4, g) for g in (1, 2, 3, 4)]


def test_scaling_shrinks_the_error():
    errors = [error_table([1.0], [2], 64, 4, scale=scale)[0].error_vs_softmax
              for scale in ("none", "sqrt-d", "d")]
    assert errors[0] > errors[1] > errors[2]


REFUSED = dict(memory=1024, n=64, d=4, degree=3, entry_bound=4)


def test_non_positive_denominator_is_refused():
    row, = error_table([4], [3], 64, 4)
    assert row.refused and row.min_denominator < 0
    with pytest.raises(InvalidArgument) as caught:
        run_kernel("polynomial-forward", **REFUSED)
    message = str(caught.value)
    assert "\n" not in message
    assert f"reaches {row.min_denominator:.3g} <= 0" in message
    for part in ("B = 4,", "g = 3,", "d = 4,", "scale sqrt-d", "higher (even) degree",
                 "smaller entry bound"):
        assert part in message, part


def test_the_old_uncapped_case_is_refused_too():
    """Unscaled, B = 4, g = 3 was certified with an error of 579 against softmax."""
    row, = error_table([4], [3], 64, 4, scale="none")
    assert row.refused and row.error_vs_softmax == pytest.approx(579.4540692740593, rel=1e-9)
    with pytest.raises(InvalidArgument, match="reaches .* <= 0"):
        run_kernel("polynomial-forward", scale="none", **REFUSED)


def test_refusal_exits_2_on_the_command_line(capsys):
    from ioverify.cli import main

    code = main(["kernel", "polynomial-forward", "--n", "64", "--d", "4", "--memory", "1024",
                 "--degree", "3", "--entry-bound", "4"])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "denominator U1 (U2^T 1) reaches -65.4 <= 0" in err


def test_scale_flag_on_the_command_line(capsys):
    from ioverify.cli import main

    args = ["kernel", "polynomial-forward", "--n", "16", "--d", "4", "--memory", "400", "--json"]
    reports = {}
    for scale in ("sqrt-d", "d", "none"):
        assert main([*args, "--scale", scale]) == 0
        reports[scale] = json.loads(capsys.readouterr().out)
        assert reports[scale]["sizes"]["scale"] == scale
    assert len({r["error_vs_softmax"] for r in reports.values()}) == 3
    assert main([*args, "--scale", "sqrt"]) == 2


def test_error_table_says_which_runs_are_refused():
    rows = error_table([0.5, 4], [1, 2, 3], 64, 4)
    for row in rows:
        params = dict(memory=1024, n=64, d=4, degree=row.degree, entry_bound=row.entry_bound)
        if row.refused:
            with pytest.raises(InvalidArgument, match="denominator"):
                run_kernel("polynomial-forward", **params)
            continue
        report = run_kernel("polynomial-forward", **params)
        assert report.certified
        assert report.extra["min_denominator"] == pytest.approx(row.min_denominator, rel=1e-12)
        assert report.extra["error_vs_softmax"] == pytest.approx(row.error_vs_softmax, rel=1e-6,
                                                                 abs=1e-13)
    assert [row.refused for row in rows] == [False, False, False, True, False, True]


@pytest.mark.parametrize("scale", ["sqrt-d", "d", "none"])
def test_certified_io_equals_the_closed_form_for_every_scale(scale):
    from ioverify.bounds.kernel_counts import evaluate

    for n, d, g, M in [(12, 3, 2, 80), (40, 3, 3, 80), (33, 4, 2, 400), (5, 2, 3, 30)]:
        report = run_kernel("polynomial-forward", memory=M, n=n, d=d, degree=g, scale=scale)
        assert report.certified, (n, d, g, M, report.reason)
        assert report.io == report.formula == evaluate("polynomial-forward", {"n": n, "d": d},
                                                       report.blocks)
        loads, stores, _, _ = count_only("polynomial-forward", memory=M, n=n, d=d, degree=g,
                                         scale=scale)
        assert loads + stores == report.io


def test_a_kernel_given_the_unscaled_table_is_not_certified():
    """The reference scales Q and K itself and never reads the table: a table without the
    scale gives the unscaled method, which certification rejects."""
    spec = KERNELS["polynomial-forward"]

    def unscaled(sizes, blk, rng):
        x = spec.sample(sizes, blk, rng)
        x["coef"] = coef_table(sizes["d"], sizes["degree"])
        return x

    report = run_spec(dataclasses.replace(spec, sample=unscaled), memory=400, n=16, d=4,
                      degree=2, entry_bound=1.0)
    assert not report.certified
    assert report.reason.startswith("output 'O' differs from the float64 reference")


@pytest.mark.slow
def test_polynomial_kernel_at_larger_sizes():
    for n, d, g, M in [(2000, 4, 2, 512), (500, 6, 3, 400)]:
        report = run_kernel("polynomial-forward", memory=M, n=n, d=d, degree=g)
        assert report.certified and report.io == report.formula, (n, d, g, M, report.reason)
