"""Lowering traces to the pebble game: the replayer accepts every kernel's schedule with the same
M, the same I/O and the same peak, on tiny sizes (uneven ones included)."""

import numpy as np
import pytest

from ioverify.game import replay
from ioverify.trace import TracedMemory
from ioverify.trace.lower import LoweringError, lower
from ioverify.trace.kernel import run_kernel

CASES = [
    ("attention-standard", dict(n=5, d=3), 30),
    ("attention-standard", dict(n=4, d=2), 60),
    ("flash-forward-v1", dict(n=5, d=3), 40),
    ("flash-forward-v1", dict(n=3, d=1), 12),
    ("flash-forward-v2", dict(n=5, d=3), 30),
    ("flash-forward-v2", dict(n=6, d=2), 45),
    ("square-tiling-forward", dict(n=5, d=3), 30),
    ("square-tiling-forward", dict(n=4, d=5), 20),
    ("matmul-tiled", dict(m=4, k=3, n=5), 12),
    ("matmul-tiled", dict(m=3, k=1, n=3), 7),
]


@pytest.mark.parametrize("name,sizes,M", CASES)
def test_lowered_schedule_replays_with_same_io_and_peak(name, sizes, M):
    report = run_kernel(name, memory=M, **sizes)
    assert report.certified
    dag, schedule = lower(report.trace)
    for variant in ("recompute", "one-shot"):
        result = replay(dag, schedule, M, variant)
        assert result.ok, result.describe()
        assert (result.loads, result.stores) == (report.loads, report.stores)
        assert result.peak == report.peak


def test_lowered_schedule_fails_with_one_pebble_less():
    report = run_kernel("flash-forward-v2", memory=30, n=5, d=3)
    dag, schedule = lower(report.trace)
    result = replay(dag, schedule, report.peak - 1)
    assert not result.ok and result.error_rule == "capacity"


def test_loading_live_data_twice_has_no_pebble_counterpart():
    mem = TracedMemory(10)
    A = mem.input("A", np.ones((1, 2)))
    mem.load(A, (0, 1), (0, 2))
    mem.load(A, (0, 1), (0, 1))
    with pytest.raises(LoweringError, match="already red"):
        lower(mem.trace)
