"""Every phase of a curve looks at its timeout (greedy schedules, carrying, searches, waiting
for searches run elsewhere), and what the timeout cut stays unknown.  A fake clock stands for
time: nothing here is timed."""

from __future__ import annotations

import concurrent.futures as futures
import json

import pytest

from ioverify.cli.curve_cmd import curve_table
from ioverify.dag.registry import build
from ioverify.errors import DeadlineReached
from ioverify.game import abstraction
from ioverify.game.greedy import best_greedy_schedule
from ioverify.game.replay import replay
from ioverify.search import curve as curve_module
from ioverify.search.curve import _Run, curve, run_cell


class Clock:
    """``time.monotonic`` as the test sets it."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def dag():
    return build({"family": "attention-forward", "params": {"n": 2, "d": 1}})


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(curve_module, "time", fake)
    monkeypatch.setattr(curve_module, "process_time", fake.monotonic)  # as on an idle core
    return fake


def slow_greedy(clock, seconds):
    """The greedy schedule, taking ``seconds`` of the fake clock each."""

    def greedy(dag, memory, deadline=None):
        clock.now += seconds
        return best_greedy_schedule(dag, memory)

    return greedy


def deadline_greedy(clock, seconds):
    """The greedy schedule, taking ``seconds`` of the fake clock each, or stopped by the
    deadline it is given (``DeadlineReached`` at the deadline)."""

    def greedy(dag, memory, deadline=None):
        if deadline is not None and clock.now + seconds > deadline:
            clock.now = max(clock.now, deadline)
            raise DeadlineReached("timeout while building the greedy schedule")
        clock.now += seconds
        return best_greedy_schedule(dag, memory)

    return greedy


def test_the_timeout_stops_the_greedy_schedules_and_the_cells_left_get_the_last_one(
        dag, clock, monkeypatch):
    """Each cell the timeout keeps from its own greedy schedule gets the last one built, at a
    smaller M (a schedule there is one at every larger M), replayed at its own M: an upper end,
    and nothing upgraded (was: no upper end at all, '?')."""
    monkeypatch.setattr(curve_module, "best_greedy_schedule", slow_greedy(clock, 10.0))
    result = curve(dag, list(range(3, 9)), ("recompute",), timeout=15.0)
    cells = {m: cell for (m, _), cell in result.cells.items()}
    assert cells[3].greedy and cells[4].greedy  # the second ends past 15 s
    assert result.timeout_reached == "building the greedy schedules"
    assert result.unbounded() == 0
    for m in range(5, 9):
        cell = cells[m]
        assert not cell.greedy and cell.upper_from == "M = 4 (recompute)"
        assert replay(dag, cell.schedule, m, "recompute").io == cell.upper <= cells[4].upper
        assert (cell.verdict.status, cell.verdict.lower_bound) == ("unknown", result.trivial)
        assert "timeout reached" in cell.verdict.reason and cell.runs == 0
    table = curve_table(result, ("recompute",))
    assert "timeout reached while building the greedy schedules" in table


def test_a_timeout_before_the_first_greedy_schedule_leaves_no_upper_end(dag, clock,
                                                                        monkeypatch):
    monkeypatch.setattr(curve_module, "best_greedy_schedule", deadline_greedy(clock, 10.0))
    result = curve(dag, list(range(3, 9)), ("recompute",), timeout=5.0)
    assert result.unbounded() == 6
    for m in range(3, 9):
        cell = result.cells[m, "recompute"]
        assert (cell.verdict.status, cell.verdict.lower_bound, cell.verdict.upper_bound) == \
            ("unknown", result.trivial, None)  # the trivial bound, nothing upgraded
        assert "timeout reached before its greedy schedule" in cell.verdict.reason
    assert f"[{result.trivial}, ?]" in curve_table(result, ("recompute",))


def test_the_timeout_stops_the_carrying(dag, clock, monkeypatch):
    monkeypatch.setattr(curve_module, "best_greedy_schedule", slow_greedy(clock, 0.0))
    run = _Run(dag, list(range(3, 9)), ["one-shot", "recompute"], 5.0, 0, None, None, 0.0,
               None, [])
    calls = []

    def carry_pair(source, target):  # the first step carried uses up the time
        calls.append((source.key, target.key))
        clock.now = 100.0
        return False

    monkeypatch.setattr(run, "carry_pair", carry_pair)
    run.start_cells()
    assert len(calls) < len(run.cells)  # the first target's sources at most, no second
    assert run.timeout_reached == "carrying results between cells"


def test_carrying_replays_only_schedules_cheaper_than_the_target_has(dag):
    run = _Run(dag, list(range(3, 12)), ["one-shot", "recompute"], None, 0, None, None, 0.0,
               None, [])
    offered = []
    offer = run.offer

    def watched(cell, schedule, source):
        if source.startswith("M = "):
            offered.append((schedule.io, cell.upper))
        return offer(cell, schedule, source)

    run.offer = watched
    run.start_cells()
    assert all(upper is None or io < upper for io, upper in offered)


class NeverDone(futures.Executor):
    """An executor whose searches never answer; submitting one takes 10 s of the clock."""

    def __init__(self, clock):
        self.clock, self.submitted = clock, 0

    def submit(self, fn, *args, **kwargs):
        self.clock.now += 10.0
        self.submitted += 1
        return futures.Future()


def test_searches_elsewhere_are_not_waited_for_past_the_timeout(dag, clock, monkeypatch):
    monkeypatch.setattr(curve_module, "best_greedy_schedule", slow_greedy(clock, 0.0))
    executor = NeverDone(clock)
    result = curve(dag, [3, 4], ("recompute",), timeout=5.0, executor=executor, workers=1)
    assert executor.submitted == 1
    assert result.abandoned == 1 and result.timeout_reached == "waiting for the searches"
    assert all(cell.verdict.status in ("unknown", "optimal") for cell in result.cells.values())


def test_a_search_whose_slice_passed_before_it_started_is_not_run(dag, monkeypatch):
    def no_search(*args, **kwargs):
        raise AssertionError("searched past its slice")

    monkeypatch.setattr(curve_module, "pebble", no_search)
    import time

    task = (dag, 4, "recompute", 5.0, 0, None, None, None, False, [], None,
            time.monotonic() - 1)
    verdict, seconds, proposals = run_cell(task)
    assert verdict.status == "unknown" and "not searched" in verdict.reason
    assert proposals == []


def test_the_abstraction_parts_stop_at_the_deadline(dag):
    import time

    with pytest.raises(DeadlineReached):
        abstraction.parts_of(dag, share_inputs=True, deadline=time.monotonic() - 1)
    assert abstraction.parts_of(dag, deadline=time.monotonic() + 60) == abstraction.parts_of(dag)


def test_the_table_does_not_build_the_json_records(dag, tmp_path, monkeypatch, capsys):
    """Every cell's schedule as JSON is built for --json only (on 43,440 vertices it took the
    second a curve ended past its timeout)."""
    from ioverify.cli import curve_cmd, main
    from ioverify.dag.jsonio import dag_to_json

    def no_records(*args):
        raise AssertionError("JSON records built for the table")

    monkeypatch.setattr(curve_cmd, "curve_records", no_records)
    path = tmp_path / "dag.json"
    path.write_text(dag_to_json(dag))
    code = main(["pebble", str(path), "-M", "3..4", "-j", "1", "--max-states", "300",
                 "--rlimit", "1000", "--no-cp-sat"])
    assert code in (0, 3) and "cells settled" in capsys.readouterr().out


def test_cells_cut_short_are_settled_by_the_trivial_bound_and_their_certificates_recheck(
        dag, clock, monkeypatch, tmp_path):
    """The carrying cut by the timeout still settles a schedule meeting the trivial bound
    (else its bracket was kept one below it, and its certificate rejected); a cell without an
    upper end writes a certificate the re-check accepts as unknown."""
    from ioverify.certificate.curve import write_curve_certificates
    from ioverify.certificate.recheck import check_file

    monkeypatch.setattr(curve_module, "best_greedy_schedule", slow_greedy(clock, 10.0))
    memories = list(range(3, 30))
    result = curve(dag, memories, ("recompute",), timeout=len(memories) * 10.0 - 15.0)
    met = [c for c in result.cells.values() if c.upper == result.trivial]
    assert met and all(c.settled for c in met)
    clock.now = 0.0
    monkeypatch.setattr(curve_module, "best_greedy_schedule", deadline_greedy(clock, 10.0))
    unbounded = curve(dag, memories[:4], ("recompute",), timeout=5.0)  # none in time
    assert unbounded.unbounded() >= 1
    statuses = set()
    for name, run in (("cut", result), ("unbounded", unbounded)):
        paths = write_curve_certificates(run, dag, tmp_path / name,
                                         {"family": "dag-file", "params": {"file": "dag.json"}})
        statuses |= {check_file(path).status for path in paths}
    assert "rejected" not in statuses and "unknown" in statuses


def test_the_time_to_report_the_schedules_is_kept_back_from_every_phase(dag, clock, monkeypatch):
    """Regression (found by trying): a 16-cell curve of attention_backward(60,1) with --json and
    --timeout 10 took 11.7 to 13.2 s, the last 1.5 to 3 s writing its schedules (1 to 1.2 us
    a move).  ``output_cost`` per move of the cells' schedules now comes off the deadline of
    every phase, the next greedy schedule's included, at most half the timeout."""
    monkeypatch.setattr(curve_module, "best_greedy_schedule", slow_greedy(clock, 10.0))
    without = curve(dag, list(range(3, 9)), ("recompute",), timeout=25.0)
    clock.now = 0.0
    moves = len(best_greedy_schedule(dag, 3))
    kept = curve(dag, list(range(3, 9)), ("recompute",), timeout=25.0, output_cost=4.0 / moves)
    built = lambda result: sorted(m for (m, _), cell in result.cells.items() if cell.greedy)
    assert built(without) == [3, 4, 5]  # ends at 30 s: past 25
    assert built(kept) == [3, 4]  # at 20 s, with 4 s kept back for each cell: past 25
    assert all(cell.upper for result in (without, kept) for cell in result.cells.values())


def test_the_reserve_for_reporting_counts_every_cell_s_moves_and_stops_at_half(dag, clock,
                                                                               monkeypatch):
    monkeypatch.setattr(curve_module, "best_greedy_schedule", slow_greedy(clock, 0.0))
    run = _Run(dag, [3, 4], ["one-shot", "recompute"], 10.0, 0, None, None, 0.0, None, [],
               output_cost=0.01)
    run.start_cells()
    moves = sum(len(cell.schedule) for cell in run.cells.values())
    assert run.output_reserve() == min(0.01 * moves, 5.0)
    assert run.deadline == 10.0 - run.output_reserve()
    run.output_cost = 1e-6
    assert run.output_reserve() == pytest.approx(1e-6 * moves)


def test_a_larger_m_s_greedy_schedule_is_not_carried_down(dag, clock, monkeypatch):
    """Memories given in decreasing order: the schedule of M = 8 would not replay at M = 3."""
    monkeypatch.setattr(curve_module, "best_greedy_schedule", slow_greedy(clock, 10.0))
    result = curve(dag, [8, 3], ("recompute",), timeout=5.0)
    assert result.cells[8, "recompute"].greedy and result.cells[3, "recompute"].upper is None


# --- the certificates, under the same --timeout -------------------------------------------------

def cert_clock(monkeypatch, seal_seconds: float):
    """A fake clock for the certificate writer, ``seal_seconds`` of it spent sealing each
    certificate (a slow writer: a loaded machine)."""
    from ioverify.certificate import curve as cert_curve

    fake = Clock()
    monkeypatch.setattr(cert_curve, "time", fake)
    seal = cert_curve.seal

    def slow_seal(body):
        fake.now += seal_seconds
        return seal(body)

    monkeypatch.setattr(cert_curve, "seal", slow_seal)
    return fake


def certificate_files(folder) -> list[str]:
    """Every file in ``folder``, temporary ones (``.NAME.tmp``) included."""
    return sorted(p.name for p in folder.iterdir())


FILE_SPEC = {"family": "dag-file", "params": {"file": "dag.json"}}


def test_a_certificate_that_would_end_past_the_deadline_is_not_started(dag, monkeypatch,
                                                                       tmp_path):
    """Regression (found by measuring): a curve of attention_backward(60,1) with --timeout 6
    and --certificates took 18 to 21 s on a loaded machine: the certificates were written
    whatever the time.  Now each one is started only if the rate measured on those written
    says it ends by the deadline; the others are named, and nothing of them is on disk."""
    from ioverify.certificate.curve import TIMEOUT_BEFORE, write_curve_certificates_within

    result = curve(dag, [3, 4, 5], ("recompute",), max_states=300, rlimit=1000)
    clock = cert_clock(monkeypatch, 10.0)
    written = write_curve_certificates_within(result, dag, tmp_path, FILE_SPEC, deadline=25.0)
    assert list(written.paths) == [(3, "recompute"), (4, "recompute")]  # at 10 s and 20 s
    assert written.missing == {(5, "recompute"): TIMEOUT_BEFORE}  # 10 s more: past 25
    assert clock.now == 20.0
    assert certificate_files(tmp_path) == [p.name for p in written.paths.values()]


def test_a_certificate_the_deadline_passes_while_it_is_written_is_removed(dag, monkeypatch,
                                                                          tmp_path):
    """A certificate started in time whose writing passes the deadline is abandoned between
    two pieces of its JSON: its temporary file is removed, and it is named as not written."""
    from ioverify.certificate import curve as cert_curve
    from ioverify.certificate.curve import write_curve_certificates_within

    result = curve(dag, [3], ("recompute",), max_states=300, rlimit=1000)
    clock = cert_clock(monkeypatch, 0.0)
    batches = []
    islice = cert_curve.islice

    def slow_islice(pieces, count):  # each batch of the JSON written takes a second
        batches.append(count)
        clock.now += 1.0
        return islice(pieces, count)

    monkeypatch.setattr(cert_curve, "CHUNKS", 50)
    monkeypatch.setattr(cert_curve, "islice", slow_islice)
    written = write_curve_certificates_within(result, dag, tmp_path, FILE_SPEC, deadline=3.0)
    assert len(batches) == 3  # two written, the deadline seen before the third
    assert written.paths == {}
    assert written.missing == {(3, "recompute"): "--timeout reached while it was being written"}
    assert certificate_files(tmp_path) == []


def test_a_cell_carried_from_a_certificate_not_written_is_not_written(monkeypatch, tmp_path):
    """A carried certificate names its source's file and digest: when the source is not
    written, neither is the cell carried from it (it would name a file that is not there)."""
    from ioverify.certificate.curve import write_curve_certificates_within
    from ioverify.search.curve import Curve

    dag = build({"family": "attention-backward", "params": {"n": 1, "d": 1}})
    run = _Run(dag, [3, 4], ["one-shot", "recompute"], None, 0, None, 2000, 0.0, None, [])
    run.start_cells()
    for m in (3, 4):
        run.absorb(run.cells[m, "recompute"], run_cell(run.task(run.cells[m, "recompute"])))
    run.finish()
    result = Curve(run.cells, run.trivial, 0.0, run.improvements)
    carried = {key: cell.lower_from for key, cell in result.cells.items()
               if cell.verdict.status == "optimal" and cell.verdict.evidence.kind == "carried"}
    assert carried
    cert_clock(monkeypatch, 10.0)  # the first certificate passes the deadline while sealed
    written = write_curve_certificates_within(result, dag, tmp_path, FILE_SPEC, deadline=5.0)
    assert written.paths == {} and certificate_files(tmp_path) == []
    for key, source in carried.items():
        assert written.missing[key] == (f"carried from M = {source[0]} ({source[1]}), whose "
                                        f"certificate was not written")


def test_certificates_not_written_by_the_timeout_are_named_and_exit_3(dag, tmp_path,
                                                                      monkeypatch, capsys):
    """The command names every cell whose certificate the timeout kept from being written,
    and exits 3 (a certificate asked for is missing), not 0, though every cell is optimal."""
    import time as real_time

    from ioverify.certificate import curve as cert_curve
    from ioverify.cli import main
    from ioverify.dag.jsonio import dag_to_json

    class Late:  # the writer's clock: the deadline has passed when it starts
        @staticmethod
        def monotonic():
            return real_time.monotonic() + 1e6

    path = tmp_path / "dag.json"
    path.write_text(dag_to_json(dag))
    args = ["pebble", str(path), "-M", "3..4", "-j", "1", "--no-cp-sat", "--timeout", "60",
            "--certificates", str(tmp_path / "c")]
    monkeypatch.setattr(cert_curve, "time", Late, raising=False)  # old code: no clock there
    assert main(args) == 3
    out = capsys.readouterr().out
    assert "2 of 2 cells settled" in out and "certificates: 0 of 2 written" in out
    for m in (3, 4):
        assert (f"certificate not written: M = {m} (recompute): --timeout reached before it "
                f"was started") in out
    assert list((tmp_path / "c").iterdir()) == []
    assert main([*args, "--json"]) == 3
    records = json.loads(capsys.readouterr().out)
    assert [r["certificate"]["written"] for r in records] == [False, False]
    monkeypatch.undo()
    assert main(args) == 0 and "certificates: 2 of 2 written" in capsys.readouterr().out


def test_the_reserve_for_reporting_grows_with_the_measured_load(dag, clock, monkeypatch):
    """The cost per move was measured on an idle machine; the curve measures how much slower
    this process runs (wall per CPU second of its greedy schedules) and scales the reserve:
    with half a core, twice the reserve."""
    monkeypatch.setattr(curve_module, "best_greedy_schedule", slow_greedy(clock, 1.0))
    cpu = Clock()
    monkeypatch.setattr(curve_module, "process_time", cpu.monotonic)
    run = _Run(dag, [3, 4], ["one-shot", "recompute"], 100.0, 0, None, None, 0.0, None, [],
               output_cost=0.01)
    real_greedy = curve_module.best_greedy_schedule

    def half_a_core(*args, **kwargs):
        cpu.now += 0.5
        return real_greedy(*args, **kwargs)

    monkeypatch.setattr(curve_module, "best_greedy_schedule", half_a_core)
    run.start_cells()
    moves = sum(len(cell.schedule) for cell in run.cells.values())
    assert run.slowdown() == 2.0
    assert run.output_reserve() == pytest.approx(min(2 * 0.01 * moves, 50.0))


def test_a_certificate_written_in_pieces_is_the_text_json_dumps_gives(dag, tmp_path,
                                                                      monkeypatch):
    """The writer encodes a certificate in pieces, to look at the deadline between them; the
    file is the one ``json.dumps(doc, indent=1)`` wrote before, byte for byte."""
    from ioverify.certificate import curve as cert_curve
    from ioverify.certificate.curve import write_curve_certificates

    monkeypatch.setattr(cert_curve, "CHUNKS", 7, raising=False)
    result = curve(dag, [3, 4], ("one-shot", "recompute"), max_states=300, rlimit=1000)
    for path in write_curve_certificates(result, dag, tmp_path, FILE_SPEC):
        text = path.read_text()
        assert text == json.dumps(json.loads(text), indent=1) + "\n"
