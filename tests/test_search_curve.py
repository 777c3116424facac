"""The whole I/O curve (issue 18): the recompute answer is never worse than the one-shot one,
answers carry between cells only in the direction the monotonicity facts give, every schedule
replays at its cell's own M and variant, and the certificate of a carried bound is re-checked
together with the certificate it names."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ioverify.certificate.curve import write_curve_certificates
from ioverify.certificate.format import seal
from ioverify.certificate.recheck import check, check_file
from ioverify.certificate.format import NotRechecked
from ioverify.cli import main
from ioverify.dag.jsonio import dag_to_dict
from ioverify.dag.registry import FAMILIES, build
from ioverify.errors import EXIT_BAD_INPUT, InvalidArgument
from ioverify.game.replay import replay
from ioverify.game.rules import infeasibility
from ioverify.proofs.attention_forward import ONE_SHOT_OPTIMA, RECOMPUTE_OPTIMA, TINY
from ioverify.search.curve import (Curve, _Run, carries_lower, carries_upper, curve,
                                   evidence_lines, parse_memory_range, run_cell)
from ioverify.search.pebbling import pebble

# A small instance of every shipped family (the test fails when a family is added without one).
SMALL = {"matmul": {"m": 2, "k": 2, "n": 1}, "pyramid": {"height": 3},
         "binary-tree": {"leaves": 4}, "attention-forward": {"n": 2, "d": 1},
         "attention-backward": {"n": 1, "d": 1}, "sparse-forward": {"n": 2, "d": 1},
         "sparse-backward": {"n": 1, "d": 1},
         "approximate-attention": {"n": 2, "d": 1, "degree": 1},
         "alman-song-backward": {"n": 1, "d": 1}}
BUDGET = {"max_states": 300, "rlimit": 1000}  # a work budget: the same answers on any machine


def upper_end(verdict) -> int:
    return verdict.io if verdict.status == "optimal" else verdict.upper_bound


def test_every_shipped_family_has_a_small_instance():
    assert set(SMALL) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(SMALL))
def test_recompute_upper_end_is_never_above_one_shot_at_the_same_budget(family):
    dag = build({"family": family, "params": SMALL[family]})
    smallest = next(m for m in range(1, 20) if infeasibility(dag, m) is None)
    for memory in range(smallest, smallest + 2):
        one_shot = pebble(dag, memory, variant="one-shot", **BUDGET)
        recompute = pebble(dag, memory, variant="recompute", **BUDGET)
        assert upper_end(recompute) <= upper_end(one_shot), (family, memory)


@pytest.mark.parametrize("source, target, upper, lower", [
    ((3, "one-shot"), (4, "one-shot"), True, False),
    ((4, "one-shot"), (3, "one-shot"), False, True),
    ((3, "one-shot"), (3, "recompute"), True, False),
    ((3, "recompute"), (3, "one-shot"), False, True),
    ((3, "recompute"), (4, "one-shot"), False, False),
    ((4, "one-shot"), (3, "recompute"), False, False),
    ((5, "recompute"), (3, "one-shot"), False, True),
])
def test_bounds_carry_only_in_the_direction_of_the_facts(source, target, upper, lower):
    assert carries_upper(source, target) is upper
    assert carries_lower(source, target) is lower


def test_memory_range_parses_and_bad_ranges_are_refused():
    assert parse_memory_range("3..5") == [3, 4, 5] and parse_memory_range("4") == [4]
    for bad in ("5..3", "0..2", "a..b", "3..", "3-5"):
        with pytest.raises(InvalidArgument):
            parse_memory_range(bad)


@pytest.fixture(scope="module")
def tiny_curve():
    dag = build({"family": "attention-forward", "params": TINY[0]})
    return dag, curve(dag, list(TINY[1]), **BUDGET)


def test_curve_cells_replay_and_bracket_the_known_optima(tiny_curve):
    dag, result = tiny_curve
    known = {"one-shot": ONE_SHOT_OPTIMA, "recompute": RECOMPUTE_OPTIMA}
    for (memory, variant), cell in result.cells.items():
        assert replay(dag, cell.schedule, memory, variant).io == cell.upper
        low = cell.upper if cell.settled else cell.verdict.lower_bound
        assert low <= known[variant][memory] <= cell.upper, (memory, variant)
        assert cell.upper <= result.cells[memory, "one-shot"].upper


def test_curve_upper_ends_never_rise_with_memory(tiny_curve):
    _, result = tiny_curve
    for variant in ("one-shot", "recompute"):
        uppers = [result.cells[m, variant].upper for m in TINY[1]]
        assert uppers == sorted(uppers, reverse=True)


def test_each_cell_names_where_its_ends_came_from(tiny_curve):
    _, result = tiny_curve
    lines = [line for cell in result.cells.values() for line in evidence_lines(result, cell)]
    assert all(line.startswith(("upper end", "lower end")) for line in lines)


def carried_run(memories=(3, 4, 5)) -> tuple:
    """A curve on attention_backward(1, 1) where only the recompute cells are searched: the
    one-shot cells are settled by the recompute lower bounds carried to them (fact 4)."""
    dag = build({"family": "attention-backward", "params": {"n": 1, "d": 1}})
    run = _Run(dag, list(memories), ["one-shot", "recompute"], None, 0, None, 2000,
               time.monotonic(), None, [])
    run.start_cells()
    for m in memories:
        cell = run.cells[m, "recompute"]
        run.absorb(cell, run_cell(run.task(cell)))
    run.finish()
    return dag, Curve(run.cells, run.trivial, 0.0, run.improvements)


def test_a_recompute_optimum_settles_the_one_shot_cell_it_meets():
    _, result = carried_run()
    cell = result.cells[5, "one-shot"]
    assert cell.settled and cell.lower_from == (5, "recompute")
    assert cell.verdict.evidence.kind == "carried"
    assert cell.verdict.evidence.detail["memory"] == 5


@pytest.fixture(scope="module")
def carried_certs(tmp_path_factory):
    dag, result = carried_run()
    folder = tmp_path_factory.mktemp("curve")
    spec = {"family": "attention-backward", "params": {"n": 1, "d": 1}}
    paths = write_curve_certificates(result, dag, folder, spec)
    carried = [p for p in paths if json.loads(p.read_text())["verdict"].get("evidence", {})
               and json.loads(p.read_text())["verdict"]["evidence"]["kind"] == "carried"]
    assert carried
    # The cell of largest M: editing its source's M down to 3 must then be a real change.
    return folder, paths, max(carried, key=lambda p: json.loads(p.read_text())["obligation"]
                              ["spec"]["memory"])


def test_every_curve_certificate_is_accepted(carried_certs):
    _, paths, _ = carried_certs
    for path in paths:
        outcome = check_file(path)
        assert outcome.outcome == "accepted", (path.name, outcome.reason)


def test_a_carried_bound_is_rechecked_with_its_source(carried_certs):
    _, _, path = carried_certs
    outcome = check_file(path)
    source = json.loads(path.read_text())["verdict"]["evidence"]["certificate"]
    assert any(line.startswith(f"{source}: witness schedule replayed")
               for line in outcome.rechecked)


def resealed(doc: dict, **evidence) -> dict:
    doc = json.loads(json.dumps(doc))
    doc["verdict"]["evidence"].update(evidence)
    return seal({k: v for k, v in doc.items() if k not in ("format", "version", "digest")})


def test_carried_bound_without_its_folder_is_not_rechecked(carried_certs):
    _, _, path = carried_certs
    with pytest.raises(NotRechecked):
        check(json.loads(path.read_text()))


@pytest.mark.parametrize("edit, phrase", [
    ({"memory": 3}, "carries only to a smaller or equal M"),
    ({"variant": "one-shot"}, "evidence fact"),
    ({"digest": "0" * 64}, "digest of"),
    ({"certificate": "../elsewhere.json"}, "must be a file name"),
    ({"bound": 99}, "evidence bound"),
])
def test_tampered_carried_evidence_is_rejected(carried_certs, tmp_path, edit, phrase):
    folder, _, path = carried_certs
    doc = resealed(json.loads(path.read_text()), **edit)
    bad = folder / "tampered.json"
    bad.write_text(json.dumps(doc))
    try:
        outcome = check_file(bad)
    finally:
        bad.unlink()
    assert outcome.outcome == "rejected" and phrase in outcome.reason, outcome.reason


def test_a_source_that_proves_less_is_rejected(carried_certs, tmp_path):
    folder, _, path = carried_certs
    doc = json.loads(path.read_text())
    source = json.loads((folder / doc["verdict"]["evidence"]["certificate"]).read_text())
    weaker = json.loads(json.dumps(source))  # the source turned into an unknown bracket
    lower = weaker["verdict"]["io"] - 1
    weaker["verdict"] = {"status": "unknown", "reason": "edited", "lower_bound": lower,
                         "upper_bound": weaker["verdict"]["io"],
                         "variant": weaker["verdict"]["variant"]}
    weaker["relies_on"] = []
    if "curve" in weaker["detail"]:  # its curve lines as the curve gives an unsettled cell's
        weaker["detail"]["curve"][1:] = ["lower end proved by the cell's own search"]
    weaker = seal({k: v for k, v in weaker.items() if k not in ("format", "version", "digest")})
    (tmp_path / "source.json").write_text(json.dumps(weaker))
    doc = resealed(doc, certificate="source.json", digest=weaker["digest"])
    (tmp_path / "cell.json").write_text(json.dumps(doc))
    outcome = check_file(tmp_path / "cell.json")
    assert outcome.outcome == "rejected" and "proves no lower bound" in outcome.reason


# --- the command line ---------------------------------------------------------------------------

@pytest.fixture()
def dag_file(tmp_path) -> Path:
    path = tmp_path / "ab11.json"
    dag = build({"family": "attention-backward", "params": {"n": 1, "d": 1}})
    path.write_text(json.dumps(dag_to_dict(dag)))
    return path


def test_cli_curve_json_has_one_record_per_cell(dag_file, capsys):
    code = main(["pebble", str(dag_file), "--memory", "3..5", "--variant", "both", "--json",
                 "--max-states", "2000"])
    records = json.loads(capsys.readouterr().out)
    assert code == 0 and len(records) == 6
    assert {(r["memory"], r["variant"]) for r in records} == {
        (m, v) for m in (3, 4, 5) for v in ("one-shot", "recompute")}
    assert all(r["status"] == "optimal" and r["evidence"] for r in records)


def test_cli_curve_table_plot_and_certificates(dag_file, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    plot, certs = tmp_path / "curve.png", tmp_path / "certs"
    code = main(["pebble", str(dag_file), "--memory", "3..4", "--max-states", "2000",
                 "--plot", str(plot), "--certificates", str(certs)])
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines()[0].split() == ["M", "recompute", "trivial", "seconds"]
    assert plot.stat().st_size > 0
    assert all(check_file(p).outcome == "accepted" for p in certs.glob("*.json"))


@pytest.mark.parametrize("argv, phrase", [
    (["--memory", "5..3"], "LO <= HI"),
    (["--memory", "3..4", "--claim-lower-bound", "3"], "single M"),
    (["--memory", "3", "--plot", "x.png"], "curve only"),
])
def test_cli_curve_bad_arguments_are_one_line_exit_2(dag_file, capsys, argv, phrase):
    assert main(["pebble", str(dag_file), *argv]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert phrase in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("option, name, phrase", [
    ("--plot", "curve.txt", "its suffix must be .png, .svg, .pdf"),
    ("--plot", "missing/curve.png", "does not exist"),
    ("--plot", ".", "it is a folder"),
    ("--certificates", "file.json", "it is a file, not a folder"),
])
def test_cli_curve_output_paths_are_checked_before_the_search(dag_file, tmp_path, monkeypatch,
                                                              capsys, option, name, phrase):
    """Before, a bad --plot ended a finished curve with an internal error (a suffix matplotlib
    does not know, a missing folder), or drew into another file than named ('.' gave
    '..png'); certificates into a file ended in FileExistsError."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file.json").write_text("{}")
    searched = []
    monkeypatch.setattr("ioverify.search.curve.curve", lambda *a, **k: searched.append(a))
    assert main(["pebble", str(dag_file), "--memory", "3..4", option, name]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert phrase in err and len(err.strip().splitlines()) == 1
    assert not searched and sorted(p.name for p in tmp_path.iterdir()) == ["ab11.json", "file.json"]


# --- the CP-SAT upper-bound worker (optional extra) ---------------------------------------------

def test_cpsat_schedule_replays_and_is_no_worse_than_its_warm_start():
    pytest.importorskip("ortools")
    from ioverify.game.greedy import greedy_schedule
    from ioverify.search.cpsat import solve

    dag = build({"family": "pyramid", "params": {"height": 3}})
    for memory, variant in ((3, "one-shot"), (4, "recompute")):
        start = greedy_schedule(dag, memory)
        result = solve(dag, memory, variant, start, 5.0)
        assert result.horizon == len([m for m in start if m[0] != "delete"]) + 3
        assert replay(dag, result.schedule, memory, variant).io == result.io <= start.io


def test_cpsat_builds_no_model_past_its_size_or_its_time(monkeypatch):
    """A model past MAX_BOOLEANS is not built (a curve on 43,440 vertices ran out of memory
    building one); one whose slice passes while it is built stops there."""
    pytest.importorskip("ortools")
    from ioverify.game.greedy import greedy_schedule
    from ioverify.search import cpsat

    dag = build({"family": "pyramid", "params": {"height": 3}})
    start = greedy_schedule(dag, 3)
    monkeypatch.setattr(cpsat, "MAX_BOOLEANS", 5 * len(dag) * 4)
    result = cpsat.solve(dag, 3, "one-shot", start, 5.0)
    assert result.schedule is None and result.status.startswith("NOT_BUILT (")
    assert "Booleans, past 200)" in result.status and result.seconds < 1.0
    monkeypatch.undo()
    result = cpsat.solve(dag, 3, "one-shot", start, 0.0)
    assert result.schedule is None and "time ran out" in result.status


def test_a_worker_out_of_memory_proposes_nothing():
    from ioverify.search.curve import _proposal

    class Greedy:
        def propose(self, *args):
            raise MemoryError("std::bad_alloc")

    assert _proposal(Greedy(), None, 3, "one-shot", None, 1.0) is None


def test_curve_with_the_cpsat_worker_replays_what_it_keeps():
    pytest.importorskip("ortools")
    from ioverify.search.cpsat import CpSatWorker

    dag = build({"family": "attention-forward", "params": TINY[0]})
    result = curve(dag, [4, 5], ("one-shot",), timeout=6, upper_workers=[CpSatWorker(0)])
    for (memory, variant), cell in result.cells.items():
        assert replay(dag, cell.schedule, memory, variant).io == cell.upper


def test_curve_on_a_dask_cluster_gives_the_serial_answers():
    distributed = pytest.importorskip("distributed")
    dag = build({"family": "attention-backward", "params": {"n": 1, "d": 1}})
    serial = curve(dag, [3, 4, 5], max_states=2000)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster.scheduler_address) as client:
        remote = curve(dag, [3, 4, 5], max_states=2000,
                       executor=client.get_executor(pure=False), workers=2)
    assert ({k: (c.lower, c.upper, c.settled) for k, c in serial.cells.items()}
            == {k: (c.lower, c.upper, c.settled) for k, c in remote.cells.items()})


def test_an_incumbent_that_fails_replay_is_a_bug_not_an_upper_bound():
    from ioverify.errors import InternalError
    from ioverify.game.rules import Schedule

    dag = build({"family": "pyramid", "params": {"height": 3}})
    with pytest.raises(InternalError, match="incumbent"):
        pebble(dag, 3, incumbent=Schedule.from_moves([("compute", len(dag) - 1)]))


def test_a_recompute_incumbent_starts_the_recompute_search():
    dag = build({"family": "attention-forward", "params": TINY[0]})
    best = pebble(dag, 4, variant="one-shot", method="exhaustive")
    verdict = pebble(dag, 4, variant="recompute", incumbent=best.schedule, **BUDGET)
    assert upper_end(verdict) <= best.io


# --- the io-curve obligation --------------------------------------------------------------------

CURVE_CLAIM = '''
from ioverify.claims import Claim, io_curve

CLAIMS = [Claim("ab11-curve", "curve", "optima 15/12/11 at M = 3..5", "tests", "derived",
                "recompute",
                (io_curve("ab11-curve", "attention-backward", {"n": 1, "d": 1}, range(3, 6),
                          optima={"one-shot": {3: 15, 4: 12, 5: OPTIMUM_AT_5},
                                  "recompute": {3: 15}}),))]
'''


def check_curve_claim(folder: Path, optimum_at_5: int) -> tuple[int, Path]:
    path = folder / "curve_claims.py"
    path.write_text(CURVE_CLAIM.replace("OPTIMUM_AT_5", str(optimum_at_5)))
    code = main(["check", str(path), "--jobs", "1", "--max-states", "2000",
                 "--certificates", str(folder / "c"), "--docs", str(folder / "d")])
    return code, folder / "c" / "ab11-curve--000.json"


@pytest.fixture(scope="module")
def curve_claim(tmp_path_factory):
    return check_curve_claim(tmp_path_factory.mktemp("io-curve"), 11)


def test_io_curve_claim_is_optimal_and_its_certificate_rechecks_every_cell(curve_claim):
    code, path = curve_claim
    assert code == 0
    outcome = check_file(path)
    assert outcome.outcome == "accepted", outcome.reason
    assert sum(line.endswith("equals the embedded DAG (16 vertices)")
               for line in outcome.rechecked) >= 6
    assert len(list(path.parent.glob("ab11-curve--000--M*.json"))) == 6


def test_io_curve_page_shows_the_plot_and_the_table(curve_claim):
    _, path = curve_claim
    page = (path.parent.parent / "d" / "ab11-curve.md").read_text()
    assert "img/curve/ab11-curve--000.png" in page
    assert "| M | one-shot | recompute | trivial bound |" in page and "| 3 | **15** |" in page


def test_io_curve_with_a_wrong_expected_optimum_is_refuted(tmp_path):
    code, path = check_curve_claim(tmp_path, 12)
    doc = json.loads(path.read_text())
    assert code == 1 and doc["verdict"]["status"] == "refuted"
    assert check_file(path).outcome == "accepted"


@pytest.mark.parametrize("edit, phrase", [
    (lambda d: d["detail"]["cells"][0].update(digest="0" * 64), "digest of"),
    (lambda d: d["detail"]["cells"][1].update(upper_bound=14), "upper_bound"),
    (lambda d: d["detail"]["cells"].pop(), "the curve's cells are"),
    (lambda d: d["verdict"].update(io=14), "the worst cell's"),
])
def test_tampered_io_curve_certificate_is_rejected(curve_claim, edit, phrase):
    _, path = curve_claim
    doc = json.loads(path.read_text())
    edit(doc)
    doc = seal({k: v for k, v in doc.items() if k not in ("format", "version", "digest")})
    bad = path.parent / "tampered.json"
    bad.write_text(json.dumps(doc))
    try:
        outcome = check_file(bad)
    finally:
        bad.unlink()
    assert outcome.outcome == "rejected" and phrase in outcome.reason, outcome.reason


def test_io_curve_certificate_without_its_folder_is_not_rechecked(curve_claim):
    _, path = curve_claim
    with pytest.raises(NotRechecked):
        check(json.loads(path.read_text()))


@pytest.mark.parametrize("spec, phrase", [
    ({"memory_range": [5, 3]}, "LO <= HI"),
    ({"variants": ["one-shot", "one-shot"]}, "once each"),
    ({"optima": {"one-shot": {"9": 3}}}, "not in the range"),
])
def test_io_curve_specs_are_validated(spec, phrase):
    from ioverify.claims.claim import Obligation
    from ioverify.claims.validate import CHECKS

    base = {"family": "pyramid", "params": {"height": 2}, "memory_range": [3, 4],
            "variants": ["one-shot"]}
    with pytest.raises(InvalidArgument, match=phrase):
        CHECKS["io-curve"]("here", {**base, **spec})


def test_a_search_told_a_bound_proved_elsewhere_stops_when_it_is_met():
    dag = build({"family": "attention-forward", "params": TINY[0]})
    verdict = pebble(dag, 4, variant="recompute", enough=RECOMPUTE_OPTIMA[4])
    assert verdict.status == "unknown" and "proved elsewhere" in verdict.reason
    assert verdict.upper_bound == RECOMPUTE_OPTIMA[4] and verdict.lower_bound < verdict.upper_bound
    assert replay(dag, verdict.schedule, 4, "recompute").io == RECOMPUTE_OPTIMA[4]


def test_enough_must_be_an_integer():
    dag = build({"family": "pyramid", "params": {"height": 2}})
    with pytest.raises(InvalidArgument, match="enough"):
        pebble(dag, 3, enough=2.5)


def test_each_memory_gets_one_greedy_schedule(monkeypatch):
    """Was: the greedy schedule of each M was built once per variant at the start and again
    by every cell's search (2 to 4 s of each slice on attention_backward(60,1)).  Now once per
    M: the cells start their searches from it (``pebble(greedy=False)``), and the answers are
    those of searches that build their own."""
    import ioverify.search.curve as curve_module
    import ioverify.search.pebbling as pebbling_module

    dag = build({"family": "attention-forward", "params": {"n": 2, "d": 1}})
    memories = [3, 4, 5, 6]
    before = curve(dag, memories, **BUDGET)
    built = []
    for module in (curve_module, pebbling_module):
        real = module.best_greedy_schedule
        monkeypatch.setattr(module, "best_greedy_schedule",
                            lambda d, m, *a, _real=real: built.append(m) or _real(d, m, *a))
    after = curve(dag, memories, **BUDGET)
    assert sorted(built) == memories
    for key, cell in after.cells.items():
        assert (cell.lower, cell.upper, cell.settled) == (
            before.cells[key].lower, before.cells[key].upper, before.cells[key].settled)


def test_a_search_told_to_build_no_greedy_schedule_needs_the_incumbent():
    with pytest.raises(InvalidArgument, match="greedy=False needs the incumbent"):
        pebble(build({"family": "pyramid", "params": {"height": 2}}), 3, greedy=False)


def test_the_curve_s_workers_are_listed_without_importing_cp_sat(monkeypatch):
    """Was: ``portfolio`` imported OR-Tools' model module (and pandas with it) to see if it
    was installed: 0.46 to 0.60 s of every curve's start where the extra is installed, 0.19
    to 0.24 s now.  A worker imports it on a cell it applies to."""
    from ioverify.search import cpsat

    def imported():
        raise AssertionError("cp_model imported to list the workers")

    monkeypatch.setattr(cpsat, "available", imported)
    monkeypatch.setattr(cpsat, "installed", lambda: True)
    assert [w.name for w in cpsat.portfolio()] == ["cp-sat"] and cpsat.portfolio(False) == []
    monkeypatch.setattr(cpsat, "installed", lambda: False)
    assert cpsat.portfolio() == []
