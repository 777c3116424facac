"""P(2M) by Z3 against brute force, the partition bound against exact pebbling optima, the
matmul inequalities on exact optima, witness re-checking, verdicts and the CLI."""

import json
import re
import time

import pytest
from hypothesis import assume, given, strategies as st

from ioverify.cli import main
from ioverify.dag import DAG, DAGBuilder, binary_tree, matmul, pyramid
from ioverify.dag.jsonio import dag_to_json
from ioverify.encode.partition import PartitionEncoding, encode_partition
from ioverify.errors import DeadlineReached, InternalError, InvalidArgument
from ioverify.game.exhaustive import exhaustive_optimum
from ioverify.search import partition as partition_search
from ioverify.game.partition import check_partition
from ioverify.search.partition import core_dag, partition_bound, search_partition
from ioverify.strategies import dags, memory_sizes
from ioverify.verdict import Infeasible, Unknown, Verified, is_proof

# docs/theory.md §1: recompute optima from an independent exhaustive search.
REFERENCE = {"pyramid(3)": (pyramid(3), {3: 11, 4: 7, 5: 5}),
             "binary_tree(8)": (binary_tree(8), {3: 15, 4: 11, 5: 9}),
             "matmul(2,2,2)": (matmul(2, 2, 2), {3: 25, 4: 17, 5: 14, 6: 13})}


# --- P(S) against brute force -------------------------------------------------------------------


def set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first]] + partition
        for i in range(len(partition)):
            yield partition[:i] + [[first] + partition[i]] + partition[i + 1:]


def brute_force_parts(dag, S):
    """P(S) by trying every set partition of V (Bell(6) = 203 at most here)."""
    return min(len(p) for p in set_partitions(list(range(len(dag))))
               if check_partition(dag, S, p).ok)


@given(st.data())
def test_search_finds_the_brute_force_optimum(data):
    dag = data.draw(dags(max_vertices=6))
    S = data.draw(st.integers(1, 3))
    expected = brute_force_parts(dag, S)
    result = search_partition(dag, S)
    assert result.exact and result.upper == expected
    assert check_partition(dag, S, result.witness).ok and len(result.witness) == expected


@given(st.data())
def test_encoding_is_exact_at_the_optimum(data):
    """Z3 alone (no counting bound, no greedy): sat with P(S) parts, unsat with P(S) - 1."""
    dag = data.draw(dags(max_vertices=6))
    S = data.draw(st.integers(1, 3))
    expected = brute_force_parts(dag, S)
    encoding = encode_partition(dag, S, len(dag))
    assert encoding.check(expected) == "sat"
    assert check_partition(dag, S, encoding.decode()).ok
    assert len(encoding.decode()) <= expected
    if expected > 1:
        assert encoding.check(expected - 1) == "unsat"


# --- the partition bound never exceeds the exact recompute optimum ------------------------------


@given(st.data())
def test_partition_bound_below_exhaustive_optimum(data):
    dag = data.draw(dags(max_vertices=7))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    exact = exhaustive_optimum(dag, memory, deadline=time.monotonic() + 2.0)
    assume(exact.complete and exact.optimum is not None)
    verdict = partition_bound(dag, memory)
    assert isinstance(verdict, Verified)
    assert verdict.bound <= exact.optimum  # a failure is a bug, never a tolerance


@st.composite
def wide_dags(draw):
    """5 to 9 inputs, all used (a first layer pairs them up), plus a few random operations: wide
    enough that P(2M) >= 2 and the partition bound is positive on a good share of examples."""
    k = draw(st.integers(5, 9))
    b = DAGBuilder()
    for i in range(k):
        b.input(f"x{i}")
    for i in range(0, k, 2):
        b.op("op", f"y{i}", list(range(i, min(i + 2, k))))
    size = k + (k + 1) // 2
    for j in range(draw(st.integers(0, 3))):
        preds = draw(st.lists(st.integers(k, size - 1), min_size=1, max_size=2, unique=True))
        b.op("op", f"z{j}", preds)
        size += 1
    return b.build()


@given(st.data())
def test_partition_bound_below_exhaustive_optimum_on_wide_dags(data):
    dag = data.draw(wide_dags())
    memory = data.draw(st.integers(dag.min_memory, dag.min_memory + 1))
    exact = exhaustive_optimum(dag, memory, deadline=time.monotonic() + 2.0)
    assume(exact.complete and exact.optimum is not None)
    verdict = partition_bound(dag, memory)
    assert isinstance(verdict, Verified)
    assert verdict.bound <= exact.optimum


def test_unused_vertices_are_left_out_of_the_lemma():
    # x feeds 12 sinks but only y0 is an output: the optimum is 2 (load x, compute y0, store y0),
    # while P(4) of the whole DAG is >= 3 (12 sinks, minimum sets of <= 4): 2 * (3 - 1) = 4 > 2.
    sinks = [f"y{i}" for i in range(12)]
    dag = DAG.from_edges(["x"] + sinks, [("x", y) for y in sinks], ["y0"])
    assert search_partition(dag, 4).lower >= 3
    assert exhaustive_optimum(dag, 2).optimum == 2
    assert core_dag(dag).names == ("x", "y0")
    assert partition_bound(dag, 2).bound <= 2


@pytest.mark.parametrize("family, memory", [(f, m) for f, (_, table) in REFERENCE.items()
                                            for m in table])
def test_partition_bound_below_reference_optima(family, memory):
    dag, table = REFERENCE[family]
    verdict = partition_bound(dag, memory, timeout=20)
    assert isinstance(verdict, (Verified, Unknown))
    bound = verdict.bound if isinstance(verdict, Verified) else verdict.lower_bound
    assert bound <= table[memory]


@pytest.mark.parametrize("family, memory", [("pyramid(3)", 3), ("pyramid(3)", 4),
                                            ("pyramid(3)", 5), ("binary_tree(8)", 3),
                                            ("binary_tree(8)", 4), ("binary_tree(8)", 5),
                                            ("matmul(2,2,2)", 5), ("matmul(2,2,2)", 6)])
def test_reference_optima_recomputed(family, memory):
    """The table used above is what the exhaustive search finds (the fast cases)."""
    dag, table = REFERENCE[family]
    assert exhaustive_optimum(dag, memory).optimum == table[memory]


@pytest.mark.slow
@pytest.mark.parametrize("memory", [3, 4])
def test_reference_optima_recomputed_slow(memory):
    dag, table = REFERENCE["matmul(2,2,2)"]
    assert exhaustive_optimum(dag, memory).optimum == table[memory]


# --- the matmul inequalities on exact optima ----------------------------------------------------


def matmul_inequalities_hold(m, k, n, memory, q):
    """q >= mk + kn + mn and mkn <= 2 q sqrt(M), the latter as (mkn)^2 <= 4 q^2 M (exact)."""
    return q >= m * k + k * n + m * n and (m * k * n) ** 2 <= 4 * q * q * memory


SMALL_MATMULS = [(1, 1, 1), (1, 2, 1), (2, 1, 1), (1, 1, 2), (2, 1, 2), (1, 2, 2), (2, 2, 1)]


@pytest.mark.parametrize("m, k, n", SMALL_MATMULS)
def test_matmul_inequalities_on_exact_optima(m, k, n):
    dag = matmul(m, k, n)
    for memory in range(dag.min_memory, dag.min_memory + 3):
        result = exhaustive_optimum(dag, memory)
        assert result.complete and result.optimum is not None
        assert matmul_inequalities_hold(m, k, n, memory, result.optimum), (memory, result)


@pytest.mark.parametrize("memory", [5, 6])
def test_matmul_inequalities_on_2x2x2(memory):
    q = exhaustive_optimum(matmul(2, 2, 2), memory).optimum
    assert matmul_inequalities_hold(2, 2, 2, memory, q)


@pytest.mark.slow
@pytest.mark.parametrize("memory", [3, 4])
def test_matmul_inequalities_on_2x2x2_slow(memory):
    q = exhaustive_optimum(matmul(2, 2, 2), memory).optimum
    assert matmul_inequalities_hold(2, 2, 2, memory, q)


def test_matmul_inequalities_can_fail():
    assert not matmul_inequalities_hold(2, 2, 2, 3, 11)  # below mk + kn + mn = 12
    assert not matmul_inequalities_hold(4, 4, 4, 3, 18)  # 64^2 > 4 * 18^2 * 3


# --- every witness is re-checked ----------------------------------------------------------------


def test_a_bad_solver_witness_raises(monkeypatch):
    dag = pyramid(3)  # counting gives P(2) >= 2; singletons force the Z3 search
    monkeypatch.setattr(partition_search, "greedy_partition",
                        lambda dag, S, deadline=None: [[v] for v in range(len(dag))])
    monkeypatch.setattr(PartitionEncoding, "decode", lambda self: [list(range(len(dag)))])
    with pytest.raises(InternalError, match="fails the checker"):
        search_partition(dag, 2)


def test_a_bad_greedy_witness_raises(monkeypatch):
    monkeypatch.setattr(partition_search, "greedy_partition", lambda dag, S, deadline=None: [[0]])
    with pytest.raises(InternalError, match="cover"):
        search_partition(pyramid(2), 2)


# --- verdicts -----------------------------------------------------------------------------------


def test_verified_verdict_carries_the_witness():
    verdict = partition_bound(matmul(2, 2, 2), 3)
    assert isinstance(verdict, Verified) and verdict.bound == 3
    detail = verdict.evidence.detail
    assert verdict.evidence.kind == "partition-lemma"
    assert (detail["S"], detail["parts"], detail["parts_lower"], detail["parts_upper"]) == (6, 2, 2, 2)
    assert sorted(n for part in detail["partition"] for n in part) == sorted(matmul(2, 2, 2).names)


def test_infeasible_memory():
    assert isinstance(partition_bound(matmul(1, 2, 1), 2), Infeasible)


def test_work_limit_gives_unknown_with_the_proven_lower_end():
    verdict = partition_bound(matmul(3, 3, 3), 3, rlimit=1000)  # deterministic, unlike a timeout
    assert isinstance(verdict, Unknown) and not is_proof(verdict)
    assert verdict.lower_bound == 3 * (3 - 1)  # 18 inputs need >= 3 parts of dominator <= 6
    assert "proves Q >= 3 * (3 - 1) = 6" in verdict.reason
    assert "work budget reached (rlimit 1000" in verdict.reason
    assert partition_bound(matmul(3, 3, 3), 3, rlimit=1000) == verdict  # the same, every time


def test_a_passed_deadline_gives_unknown_with_a_checked_witness():
    """A pyramid of 1,081 vertices answered after 78 s under a timeout of 10 s: the greedy
    partition and the encoding had no deadline.  Past the deadline the greedy witness is one
    vertex per part (re-checked: parts of at most S vertices are their own dominators) and the
    encoding is not built."""
    dag = pyramid(45)
    past = time.monotonic() - 1.0
    singletons = partition_search.greedy_partition(dag, 8, past)
    assert singletons == [[v] for v in range(len(dag))]
    assert check_partition(dag, 8, singletons).ok
    with pytest.raises(DeadlineReached, match="partition encoding"):
        encode_partition(dag, 8, 131, deadline=past)
    result = search_partition(dag, 8, timeout=1e-6)
    assert not result.exact and result.upper == len(dag) and "time limit" in result.stopped
    verdict = partition_bound(dag, 4, timeout=1e-6)
    assert isinstance(verdict, Unknown) and verdict.lower_bound == 4 * (result.lower - 1)
    used_up = search_partition(dag, 8, timeout=5.0, started=time.monotonic() - 10.0)
    assert not used_up.exact and "time limit" in used_up.stopped  # the CLI counts from its start


def test_a_proof_records_the_budget_it_ran_under():
    verdict = partition_bound(matmul(2, 2, 2), 3, rlimit=10**6, seed=1)
    assert isinstance(verdict, Verified)
    assert verdict.evidence.detail["budget"] == {"rlimit": 10**6, "timeout": None, "seed": 1}


# --- CLI ----------------------------------------------------------------------------------------


@pytest.fixture
def dag_file(tmp_path):
    def write(dag):
        path = tmp_path / "dag.json"
        path.write_text(dag_to_json(dag))
        return str(path)
    return write


def test_cli_json(dag_file, capsys):
    assert main(["partition", dag_file(matmul(2, 2, 2)), "--memory", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["status"], doc["parts"], doc["lower_bound"]) == ("verified", 2, 3)
    assert len(doc["partition"]) == 2 and isinstance(doc["seconds"], float)


def test_cli_text(dag_file, capsys):
    assert main(["partition", dag_file(pyramid(2)), "-M", "3"]) == 0
    out = capsys.readouterr().out
    assert "P(6) = 1" in out and "Q >= 3 * (1 - 1) = 0" in out and "verdict: verified" in out


def test_cli_unknown_and_bad_input(dag_file, capsys):
    # P(6) >= 5 needs more than 0.3 s on any machine (unsat at 4 parts takes seconds).
    assert main(["partition", dag_file(matmul(3, 3, 3)), "-M", "3", "--timeout", "0.3"]) == 3
    assert re.search(r"[34] <= P\(6\) <= [5-8]\n", capsys.readouterr().out)
    assert main(["partition", dag_file(matmul(3, 3, 3)), "-M", "3", "--rlimit", "1000"]) == 3
    assert "3 <= P(6) <= 8" in capsys.readouterr().out
    assert main(["partition", dag_file(matmul(3, 3, 3)), "-M", "3", "--rlimit", "1000",
                 "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "unknown" and doc["budget"]["rlimit"] == 1000
    assert main(["partition", dag_file(matmul(1, 1, 1)), "-M", "2", "--json"]) == 3  # infeasible
    assert json.loads(capsys.readouterr().out)["status"] == "infeasible"
    assert main(["partition", "no-such-file.json", "-M", "3"]) == 2


def test_cyclic_dependence_is_what_forces_the_fifth_part():
    # Found by dropping the acyclicity constraint from the encoding: four parts satisfy the cover,
    # dominator and minimum-set conditions only with a cycle between parts 0 and 3.
    preds = [(), (), (), (), (), (0, 1, 4), (1, 4, 5), (1, 2, 4), (4, 6)]
    names = [f"v{v}" for v in range(len(preds))]
    dag = DAG.from_edges(names, [(names[p], names[v]) for v, ps in enumerate(preds) for p in ps])
    cyclic = [[4, 6, 8], [0, 7], [1, 2], [3, 5]]
    assert check_partition(dag, 2, cyclic).condition == "acyclic"
    assert encode_partition(dag, 2, 4).check(4) == "unsat"
    result = search_partition(dag, 2)
    assert result.exact and result.upper == 5


def test_cli_reports_left_out_vertices(dag_file, capsys):
    sinks = [f"y{i}" for i in range(12)]
    dag = DAG.from_edges(["x"] + sinks, [("x", y) for y in sinks], ["y0"])
    assert main(["partition", dag_file(dag), "-M", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["left_out"] == sorted(sinks[1:]) and doc["partition"] == [["x", "y0"]]
    assert doc["lower_bound"] == 0


def test_a_dag_without_outputs_is_refused(dag_file, capsys):
    dag = DAG.from_edges(["a", "b"], [])
    with pytest.raises(InvalidArgument, match="no outputs"):
        partition_bound(dag, 2)
    assert main(["partition", dag_file(dag), "-M", "2"]) == 2
    assert "outputs" in capsys.readouterr().err  # the reader refuses it first
