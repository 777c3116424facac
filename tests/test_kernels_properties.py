"""Property tests over random small sizes: every kernel certifies and equals its closed form,
its lowered schedule replays, and no traced count falls below the explicit lower bounds of
docs/theory.md (a count below them would refute a bound: the kernels form QK^T by standard
products)."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ioverify.errors import InvalidArgument
from ioverify.game import replay
from ioverify.trace.lower import lower
from ioverify.trace.kernel import KERNELS, run_kernel

ATTENTION = sorted(name for name, spec in KERNELS.items() if spec.sizes == ("n", "d"))


@settings(max_examples=25)
@given(name=st.sampled_from(ATTENTION), n=st.integers(1, 9), d=st.integers(1, 6),
       memory=st.integers(8, 400), seed=st.integers(0, 3))
def test_attention_kernels_on_random_sizes(name, n, d, memory, seed):
    try:
        report = run_kernel(name, memory=memory, n=n, d=d, seed=seed)
    except InvalidArgument:
        return
    assert report.certified, report.reason
    assert report.io == report.formula and report.peak <= memory


@settings(max_examples=15)
@given(m=st.integers(1, 6), k=st.integers(1, 5), n=st.integers(1, 6), memory=st.integers(3, 50))
def test_matmul_on_random_sizes(m, k, n, memory):
    try:
        report = run_kernel("matmul-tiled", memory=memory, m=m, k=k, n=n)
    except InvalidArgument:
        assert memory < 3 + (k >= 2)
        return
    assert report.certified and report.io == report.formula
    assert report.io >= m * k + k * n + m * n  # docs/theory.md §3, trivial bound


@settings(max_examples=10)
@given(name=st.sampled_from(ATTENTION), n=st.integers(1, 4), d=st.integers(1, 3),
       memory=st.integers(10, 60))
def test_lowering_on_random_sizes(name, n, d, memory):
    try:
        report = run_kernel(name, memory=memory, n=n, d=d)
    except InvalidArgument:
        return
    dag, schedule = lower(report.trace)
    result = replay(dag, schedule, memory)
    assert result.ok, result.describe()
    assert (result.io, result.peak) == (report.io, report.peak)


def test_no_traced_count_below_the_explicit_lower_bounds():
    n, d = 24, 8
    for memory in (40, 64, 100, 200, 400, 800):
        lb = max(n * n * d * d / (memory + 4 * d * d) - memory,
                 n * n * d / (2 * math.sqrt(memory)) - n * n, 3 * n * d + n * d)
        for name in ATTENTION:
            try:
                report = run_kernel(name, memory=memory, n=n, d=d)
            except InvalidArgument:
                continue
            assert report.certified and report.io >= lb, (name, memory, report.io, lb)
