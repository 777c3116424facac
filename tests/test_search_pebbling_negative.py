"""Negative space and differential checks of the pebbling search: no "verified" may come out of
an unknown answer, a corrupted model, or a bounded recompute search; Z3 agrees with the
exhaustive search on random DAGs; the demand-count lemma agrees with the exhaustive search."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from ioverify.search import pebbling as search
from ioverify.cli import main
from ioverify.dag import attention_forward, matmul, pyramid
from ioverify.dag.jsonio import dag_to_json
from ioverify.encode import pebbling
from ioverify.solve import backends
from ioverify.errors import InternalError, InvalidArgument
from ioverify.game.exhaustive import exhaustive_optimum
from ioverify.game.replay import replay
from ioverify.game.rules import Schedule
from ioverify.strategies import dags
from ioverify.verdict import Bounded, Optimal, Refuted, Unknown, Verified, is_proof

# pyramid(3) at M = 3: greedy is not optimal and the trivial bound (5) is not tight (11), so the
# answer needs the solver.
HARD = (pyramid(3), 3)


def _unknown(self, *args, **kwargs):
    self.reason = "mocked unknown"
    return "unknown"


@pytest.fixture
def solver_says_unknown(monkeypatch):
    monkeypatch.setattr(backends.SatQuery, "check", _unknown)
    monkeypatch.setattr(backends.Z3Backend, "check", _unknown)


@pytest.mark.parametrize("variant", ["one-shot", "recompute"])
def test_mocked_unknown_yields_unknown(solver_says_unknown, z3_only, variant):
    verdict = search.pebble(*HARD, variant=variant)
    assert isinstance(verdict, Unknown) and not is_proof(verdict)
    assert "mocked" in verdict.reason
    assert verdict.lower_bound == 5 and verdict.upper_bound >= 11


def test_mocked_unknown_cli_exit_3(solver_says_unknown, z3_only, tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(dag_to_json(HARD[0]))
    assert main(["pebble", str(path), "--memory", "3", "--one-shot", "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "unknown" and doc["upper_bound"] >= 11 and doc["lower_bound"] == 5


def _corrupt(enc, value):
    """A decoded schedule with its first compute dropped: illegal (a successor lacks a pebble)."""
    good = pebbling_decode(enc, value)
    moves = list(good)
    first = next(i for i, (kind, _) in enumerate(moves) if kind == "compute")
    del moves[first]
    return Schedule.from_moves(moves)


pebbling_decode = pebbling.decode


@pytest.mark.parametrize("variant", ["one-shot", "recompute"])
def test_corrupted_model_is_caught_by_replay(monkeypatch, z3_only, variant):
    monkeypatch.setattr(pebbling, "decode", _corrupt)
    with pytest.raises(InternalError, match="fails replay"):
        search.pebble(*HARD, variant=variant)


def test_corrupted_model_cli_exit_4(monkeypatch, z3_only, tmp_path, capsys):
    monkeypatch.setattr(pebbling, "decode", _corrupt)
    path = tmp_path / "p.json"
    path.write_text(dag_to_json(HARD[0]))
    assert main(["pebble", str(path), "--memory", "3"]) == 4
    assert "fails replay" in capsys.readouterr().err


def test_schedule_over_budget_is_an_internal_error(monkeypatch, z3_only):
    """A model whose schedule costs more than the budget asked for is a bug, not a result."""
    dag, memory = HARD
    heavy = search.greedy_schedule(dag, memory)
    monkeypatch.setattr(pebbling, "decode", lambda enc, value: heavy)
    with pytest.raises(InternalError, match="above its budget"):
        search.pebble(dag, memory, variant="one-shot")


def test_bounded_recompute_search_is_never_verified(monkeypatch, z3_only):
    """No demand-count horizon and no exhaustive search: the recompute answer can only be
    Bounded or Unknown, even with a claim at the true optimum."""
    monkeypatch.setattr(search, "HORIZON_CAP", 0)
    dag, memory = HARD
    for claim in (None, 11):
        verdict = search.pebble(dag, memory, claim_lower_bound=claim)
        assert isinstance(verdict, (Bounded, Unknown)) and not is_proof(verdict)
        if isinstance(verdict, Bounded):
            assert verdict.horizon == 2 * 6 and verdict.upper_bound == 11


def test_timeout_gives_unknown_or_bounds_never_a_guess():
    # attention_forward(2,2) at M = 3 in recompute takes a minute (docs/performance.md), so
    # half a second proves nothing on any machine; attention_forward(2,1), used before, is
    # settled within it on a fast one.
    dag = attention_forward(2, 2)
    verdict = search.pebble(dag, 3, variant="recompute", timeout=0.5)
    assert not isinstance(verdict, (Optimal, Verified))
    if isinstance(verdict, Refuted):
        assert replay(dag, verdict.schedule, 3).ok


def test_cli_schedule_out_replays(tmp_path, capsys):
    dag, memory = pyramid(3), 4
    dag_path, out = tmp_path / "p.json", tmp_path / "s.json"
    dag_path.write_text(dag_to_json(dag))
    assert main(["pebble", str(dag_path), "-M", "4", "--schedule-out", str(out)]) == 0
    assert "optimal: optimum 7 (exhaustive-search); recompute" in capsys.readouterr().out
    assert main(["replay", str(dag_path), str(out), "-M", str(memory)]) == 0
    assert main(["pebble", str(dag_path), "-M", "4", "--claim-lower-bound", "8"]) == 1
    assert main(["pebble", str(dag_path), "-M", "2"]) == 3  # infeasible: nothing was checked
    with pytest.raises(SystemExit) as usage:
        main(["pebble", str(dag_path), "-M", "4", "--claim-lower-bound", "-3"])
    assert usage.value.code == 2


def _optima(dag, memory):
    """The Z3 route's optima (method z3: no exhaustive search inside ``pebble``, so the
    comparison with it below is not circular)."""
    verdicts = {variant: search.pebble(dag, memory, variant=variant, method="z3")
                for variant in ("one-shot", "recompute")}
    for verdict in verdicts.values():
        if isinstance(verdict, Optimal):
            assert verdict.evidence.kind != "exhaustive-search"
    return verdicts


def _check_against_exhaustive(dag):
    top = search.trivial_lower_bound(dag)
    for memory in range(dag.min_memory, len(dag) + 2):
        for variant, verdict in _optima(dag, memory).items():
            reference = exhaustive_optimum(dag, memory, variant)
            assert reference.complete
            if isinstance(verdict, Bounded):
                # Recompute, the demand-count horizon past HORIZON_CAP times the one-shot one:
                # Z3 searched a shorter horizon, which proves nothing, and says so.
                assert variant == "recompute" and not is_proof(verdict)
                assert verdict.lower_bound <= reference.optimum <= verdict.upper_bound
                continue
            assert isinstance(verdict, Optimal), verdict
            assert verdict.io == reference.optimum, (variant, memory)
        if reference.optimum == top:
            break


@settings(max_examples=25)
@given(dags(max_vertices=8))
def test_differential_against_exhaustive(dag):
    _check_against_exhaustive(dag)


@pytest.mark.slow
@settings(max_examples=100)
@given(dags(max_vertices=10))
def test_differential_against_exhaustive_ten_vertices(dag):
    _check_against_exhaustive(dag)


@pytest.mark.parametrize("variant", ["one-shot", "recompute"])
def test_exhaustive_search_out_of_states_hands_over_to_z3(monkeypatch, variant):
    monkeypatch.setattr(search, "EXHAUSTIVE_MAX_STATES", 5)
    verdict = search.pebble(*HARD, variant=variant)
    assert isinstance(verdict, Optimal) and verdict.io == 11
    assert verdict.evidence.kind in ("one-shot-exact-horizon", "proved-horizon")


@pytest.mark.parametrize("contract, cap", [(False, 30_000), (True, 1_000)])
def test_a_stopped_exhaustive_search_still_raises_the_lower_bound(monkeypatch, contract, cap):
    """Out of states, the exhaustive search has still proved the A* level it reached: an
    honest bracket, and a claim up to that level is verified on it (no upgrade beyond), on
    the DAG itself or on the DAG with its chains contracted (the evidence then says so)."""
    monkeypatch.setattr(search, "EXHAUSTIVE_ONLY_MAX_STATES", cap)
    dag = attention_forward(2, 1)
    # Without the abstraction bound: with it (the rows sharing the keys' and values' cost)
    # this recompute search finishes in about 550 configurations.
    verdict = search.pebble(dag, 3, method="exhaustive", abstraction=False, contract=contract)
    assert isinstance(verdict, Unknown) and 8 < verdict.lower_bound < verdict.upper_bound
    assert ("on the contracted DAG" in verdict.reason) == contract
    level = verdict.lower_bound
    verified = search.pebble(dag, 3, method="exhaustive", claim_lower_bound=level,
                             abstraction=False, contract=contract)
    assert isinstance(verified, Verified) and verified.evidence.kind == "exhaustive-search"
    assert ("contracted" in verified.evidence.detail) == contract
    # Asked below a claim, the search need not find a goal: it may prove more, never too much
    # (the recompute optimum is 24).
    for claim in (level + 1, 24, 25):
        answer = search.pebble(dag, 3, method="exhaustive", claim_lower_bound=claim)
        assert claim <= 24 if isinstance(answer, Verified) else not is_proof(answer)


def test_recompute_route_proves_by_the_exhaustive_search():
    verdict = search.pebble(*HARD)
    assert isinstance(verdict, Optimal) and verdict.io == 11
    assert verdict.evidence.kind == "exhaustive-search"
    assert replay(HARD[0], verdict.schedule, HARD[1]).io == 11


@pytest.mark.slow
@pytest.mark.parametrize("memory, optimum", [(3, 24), (4, 15)])
def test_attention_forward_21_recompute_small_memory(memory, optimum):
    """The two cases only the exhaustive search settles within a minute (docs/performance.md)."""
    dag = attention_forward(2, 1)
    verdict = search.pebble(dag, memory, timeout=120)
    assert isinstance(verdict, Optimal) and verdict.io == optimum
    assert verdict.evidence.kind == "exhaustive-search"
    assert replay(dag, verdict.schedule, memory).io == optimum


@st.composite
def single_use_dags(draw, max_vertices: int = 10):
    """Random DAGs where every non-input vertex has at most one successor (an in-forest over
    shared inputs) and the outputs are the sinks: every needed non-input vertex has one use."""
    from ioverify.dag.model import DAGBuilder

    n = draw(st.integers(3, max_vertices))
    inputs = draw(st.integers(1, n - 2))
    b, free = DAGBuilder(), []  # free: non-input vertices with no successor yet
    for v in range(inputs):
        b.input(f"v{v}")
    for v in range(inputs, n):
        preds = draw(st.lists(st.sampled_from(list(range(inputs)) + free), min_size=1,
                              max_size=3, unique=True))
        free = [u for u in free if u not in preds] + [v]
        b.op("op", f"v{v}", preds)
    return b.build()


@settings(max_examples=1000, deadline=None)
@given(single_use_dags(), st.integers(0, 3))
def test_single_use_lemma_against_exhaustive(dag, extra):
    """Where every needed vertex has one use, the recompute optimum is the one-shot one: the
    premise of a recompute bound proved by the one-shot search (``pebbling._equal_optima``)."""
    assert search.single_use_lemma(dag)
    memory = dag.min_memory + extra
    one_shot = exhaustive_optimum(dag, memory, "one-shot")
    recompute = exhaustive_optimum(dag, memory, "recompute")
    assert one_shot.optimum == recompute.optimum


@settings(max_examples=200, deadline=None)
@given(single_use_dags(max_vertices=9), st.integers(0, 2),
       st.sampled_from([None, 0, 1, 2]))
def test_a_recompute_verdict_on_a_single_use_dag_is_proved_in_one_shot(dag, extra, under):
    """The verdict's optimum is the recompute one, its evidence names the one-shot search and
    the lemma, and a claim above the optimum is refuted by a schedule replayed in recompute."""
    memory = dag.min_memory + extra
    optimum = exhaustive_optimum(dag, memory, "recompute").optimum
    claim = None if under is None else optimum + under
    verdict = search.pebble(dag, memory, claim_lower_bound=claim)
    if claim is not None and claim > optimum:
        assert verdict.status == "refuted" and replay(dag, verdict.schedule, memory).io < claim
        return
    assert verdict.status == ("optimal" if claim is None else "verified")
    if verdict.evidence.kind == "exhaustive-search":
        assert verdict.evidence.detail["searched"] == "one-shot"
        assert "single-use" in verdict.evidence.detail["lemma"]


@pytest.mark.parametrize("method, kinds", [
    ("z3", {"proved-horizon"}), ("exhaustive", {"exhaustive-search"}),
    ("auto", {"exhaustive-search"})])
def test_cli_method(tmp_path, capsys, method, kinds):
    path = tmp_path / "p.json"
    path.write_text(dag_to_json(HARD[0]))
    assert main(["pebble", str(path), "-M", "3", "--method", method, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "optimal" and doc["io"] == 11 and doc["method"] in kinds


def test_cli_unknown_method_is_bad_input(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(dag_to_json(HARD[0]))
    with pytest.raises(SystemExit) as usage:
        main(["pebble", str(path), "-M", "3", "--method", "ilp"])
    assert usage.value.code == 2 and "invalid choice" in capsys.readouterr().err
    with pytest.raises(InvalidArgument, match="method"):
        search.pebble(*HARD, method="ilp")


NEEDS_SEARCH = (matmul(2, 2, 2), 4)


@pytest.fixture(params=["glucose", "z3"])
def backend(request, monkeypatch):
    """Both back ends of the Z3 route: Glucose on the CNF (when PySAT is installed), Z3 alone."""
    if request.param == "z3":
        monkeypatch.setattr(backends, "available", lambda: False)
    elif not backends.available():
        pytest.skip("PySAT is not installed")
    return request.param


def test_a_tiny_rlimit_gives_unknown_and_the_same_verdict_twice(backend):
    first, second = (search.pebble(*NEEDS_SEARCH, variant="one-shot", method="z3", rlimit=1000)
                     for _ in range(2))
    assert isinstance(first, Unknown) and not is_proof(first)
    assert "work budget reached" in first.reason
    assert (first.lower_bound, first.upper_bound) == (12, 18)  # trivial bound, greedy schedule
    assert first == second


def test_a_tiny_work_budget_stops_the_exhaustive_search_too():
    """method auto: the state cap stops the exhaustive search, the rlimit the Z3 route."""
    verdicts = [search.pebble(*NEEDS_SEARCH, variant="one-shot", rlimit=1, max_states=1)
                for _ in range(2)]
    assert isinstance(verdicts[0], Unknown) and verdicts[0] == verdicts[1]
    assert "state budget of 1 states exhausted" in verdicts[0].reason


def test_a_state_cap_gives_unknown_with_the_level_reached_then_a_proof_that_records_it():
    # (the beam search before it finds the optimum, 17; the greedy schedule costs 18)
    capped = search.pebble(*NEEDS_SEARCH, variant="one-shot", method="exhaustive",
                           max_states=25)
    assert isinstance(capped, Unknown) and capped.lower_bound == 16 and capped.upper_bound == 17
    enough = search.pebble(*NEEDS_SEARCH, variant="one-shot", method="exhaustive",
                           max_states=100)
    assert isinstance(enough, Optimal) and enough.io == 17
    assert enough.evidence.detail["budget"] == {"rlimit": None, "max_states": 100,
                                                "timeout": None, "seed": 0}


def test_a_sufficient_rlimit_proves_and_the_evidence_records_it(backend):
    verdict = search.pebble(*HARD, variant="one-shot", method="z3", rlimit=10**7)
    assert isinstance(verdict, Optimal) and verdict.io == 11
    detail = verdict.evidence.detail
    assert detail["budget"]["rlimit"] == 10**7 and detail["budget"]["max_states"] is None
    assert detail["backend"] == ("z3" if backend == "z3" else backends.SOLVER)


@pytest.mark.parametrize("kwargs", [{"rlimit": 0}, {"rlimit": 1.5}, {"max_states": 0},
                                    {"max_states": True}])
def test_bad_work_budgets_are_refused(kwargs):
    with pytest.raises(InvalidArgument, match=next(iter(kwargs))):
        search.pebble(*HARD, **kwargs)


def test_cli_rlimit_unknown_exit_3_with_the_budget(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(dag_to_json(NEEDS_SEARCH[0]))
    argv = ["pebble", str(path), "-M", "4", "--one-shot", "--method", "z3", "--rlimit", "1000",
            "--json"]
    assert main(argv) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "unknown" and "work budget reached" in doc["reason"]
    assert doc["budget"] == {"rlimit": 1000, "max_states": None, "timeout": None, "seed": 0}
    with pytest.raises(SystemExit) as usage:
        main(["pebble", str(path), "-M", "4", "--rlimit", "0"])
    assert usage.value.code == 2


def test_obligation_budget_is_threaded_and_recorded():
    from ioverify.claims.claim import Obligation
    from ioverify.claims.run import Budget, run

    budget = Budget(timeout=60.0, rlimit=1000, max_states=1)
    assert budget.to_json() == {"timeout": 60.0, "seed": 0, "rlimit": 1000, "max_states": 1}
    spec = {"family": "matmul", "params": {"m": 2, "k": 2, "n": 2}, "memory": 4,
            "variant": "one-shot", "optimum": 17}
    result = run(Obligation("test-claim", "exact-search", spec), budget)
    assert isinstance(result.verdict, Unknown) and not is_proof(result.verdict)
    assert result.detail["budget"] == budget.to_json()


def test_a_timeout_spent_before_the_greedy_schedule_is_unknown_with_no_upper_bound():
    import time

    dag = matmul(3, 3, 3)
    verdict = search.pebble(dag, 4, timeout=1.0, started=time.monotonic() - 2.0)
    assert verdict.status == "unknown" and "greedy schedule" in verdict.reason
    assert verdict.upper_bound is None and verdict.schedule is None
    assert verdict.lower_bound == search.trivial_lower_bound(dag)


def test_the_one_shot_sub_search_names_its_bracket_one_shot():
    """The recompute answer's reason quotes the one-shot sub-search, whose bracket bounds the
    one-shot optimum only: it is named so, and only the answer's own is "bounds so far"."""
    verdict = search.pebble(attention_forward(2, 2), 4, timeout=1.0)
    assert verdict.status == "unknown" and "one-shot sub-search: " in verdict.reason
    assert "(one-shot bounds so far: lower " in verdict.reason
    assert "(bounds so far" not in verdict.reason


@pytest.mark.parametrize("spent, held_back", [(2.0, 2.0), (30.0, 10.0)])
def test_the_search_deadline_keeps_back_what_the_start_took(monkeypatch, spent, held_back):
    """The steps that cannot stop midway cost about a pass over the DAG each: the route runs
    under a deadline held back by the time spent before it (reading the DAG, the greedy
    schedules), at most FINISH_SHARE of the timeout."""
    import time

    seen = {}

    def route(st, claim):
        seen["deadline"] = st.deadline
        return Unknown("stopped here", st.lower, st.upper, st.variant.name, st.best)

    monkeypatch.setattr(search, "_recompute_route", route)
    started = time.monotonic() - spent
    verdict = search.pebble(pyramid(3), 3, timeout=100.0, started=started)
    assert verdict.status == "unknown" and "stopped here" in verdict.reason
    end = started + 100.0
    assert end - held_back - 1.0 < seen["deadline"] <= end - held_back
    assert search.FINISH_SHARE * 100.0 == 10.0


@pytest.mark.parametrize("command", ["pebble", "partition"])
def test_a_timeout_spent_while_reading_the_dag_is_unknown(command, tmp_path, capsys):
    from ioverify.cli import main
    from ioverify.dag import attention_forward
    from ioverify.dag.jsonio import dag_to_json

    big = tmp_path / "big.json"
    big.write_text(dag_to_json(attention_forward(16, 8)))  # ~35,000 vertices: not read in 1 ms
    assert main([command, str(big), "-M", "40", "--timeout", "0.001", "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "unknown" and "reading the DAG" in doc["reason"]
