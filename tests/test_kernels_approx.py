"""The polynomial method: the feature map (r = C(d+g, g), phi(q).phi(k) = the Taylor
polynomial of exp(q.k)), the float64 reference against exact attention, and the kernel:
certified, exact closed form (the table resident or streamed), I/O linear in n."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ioverify.errors import InvalidArgument
from ioverify.trace.kernel import count_only, run_kernel
from ioverify.kernels.reference import (attention_exp, feature_map, monomials, polynomial_attention,
                               rank, taylor_exp)


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
    assert report.certified and report.extra["approx_error"] < 1e-4
    rough = run_kernel("polynomial-forward", memory=300, n=30, d=3, degree=1, entry_bound=1.0)
    assert rough.extra["approx_error"] > report.extra["approx_error"]


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
                                     dict(entry_bound="x"), dict(mask="causal")])
def test_bad_options_are_refused(options):
    with pytest.raises(InvalidArgument):
        run_kernel("polynomial-forward", memory=100, n=4, d=2, **options)


@pytest.mark.slow
def test_polynomial_kernel_at_larger_sizes():
    for n, d, g, M in [(2000, 4, 2, 512), (500, 6, 3, 400)]:
        report = run_kernel("polynomial-forward", memory=M, n=n, d=d, degree=g)
        assert report.certified and report.io == report.formula, (n, d, g, M, report.reason)
