"""The S-partition checker: each condition rejected with the right reason, dominators exact."""

import itertools
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from ioverify.dag import DAG, binary_tree, matmul, pyramid
from ioverify.errors import InvalidArgument
from ioverify.game.partition import (CONDITIONS, check_partition, dominates, dominator_size,
                                min_dominator, minimum_set, partition_lower_bound,
                                parts_from_names, parts_to_names)
from ioverify.strategies import dags


def graph(edges, outputs=None):
    nodes = sorted({n for e in edges for n in e})
    return DAG.from_edges(nodes, edges, outputs)


def ids(dag, *parts):
    return parts_from_names(dag, [p.split() for p in parts])


# --- valid partitions ---------------------------------------------------------------------------


def test_singletons_and_whole_are_partitions():
    dag = pyramid(3)
    assert check_partition(dag, 1, [[v] for v in range(len(dag))]).ok
    assert check_partition(dag, 4, [list(range(len(dag)))]).ok


def test_a_valid_partition_of_matmul():
    dag = matmul(1, 2, 1)
    parts = ids(dag, "A[0,0] B[0,0] C*[0,0,0]", "A[0,1] B[1,0] C*[0,1,0] C[0,0]")
    result = check_partition(dag, 3, parts)
    assert result.ok and result.part is None and result.condition is None


# --- each condition rejected with its reason ----------------------------------------------------


def test_empty_part_is_a_cover_failure():
    dag = pyramid(1)
    result = check_partition(dag, 3, [[0, 1, 2], []])
    assert (result.ok, result.part, result.condition) == (False, 1, "cover")
    assert "empty" in result.message


def test_vertex_in_two_parts_is_a_cover_failure():
    dag = pyramid(1)
    result = check_partition(dag, 3, [[0, 1], [1, 2]])
    assert (result.ok, result.part, result.condition) == (False, 1, "cover")
    assert repr(dag.names[1]) in result.message


def test_missing_vertex_is_a_cover_failure():
    dag = pyramid(1)
    result = check_partition(dag, 3, [[0, 1]])
    assert (result.ok, result.part, result.condition) == (False, None, "cover")
    assert repr(dag.names[2]) in result.message


def test_dominator_too_large():
    # The pyramid's apex part {x[1,*], x[2,0]} is dominated by the 3 inputs, by nothing smaller.
    dag = pyramid(2)
    inputs = [v for v in range(len(dag)) if dag.is_input[v]]
    rest = [v for v in range(len(dag)) if not dag.is_input[v]]
    assert check_partition(dag, 3, [inputs, rest]).ok
    result = check_partition(dag, 2, [inputs, rest])
    assert (result.ok, result.part, result.condition) == (False, 0, "dominator")


def test_inputs_inside_a_part_count_in_its_dominator():
    # {a, b, x}: the paths of length 0 force a and b into D, though {x} blocks every path to x.
    dag = graph([("a", "x"), ("b", "x")])
    part = ids(dag, "a b x")[0]
    assert min_dominator(dag, part) == set(ids(dag, "a b")[0])
    assert len(min_dominator(dag, ids(dag, "x")[0])) == 1
    result = check_partition(dag, 1, [part])
    assert (result.part, result.condition) == (0, "dominator")
    assert check_partition(dag, 1, ids(dag, "a", "b", "x")).ok


def test_minimum_set_too_large():
    dag = graph([("a", "x"), ("a", "y"), ("a", "z")])
    result = check_partition(dag, 2, ids(dag, "a x y z"))
    assert (result.ok, result.part, result.condition) == (False, 0, "minimum-set")
    assert check_partition(dag, 3, ids(dag, "a x y z")).ok


def test_cyclic_dependence_between_parts():
    dag = graph([("a", "x"), ("x", "y"), ("b", "y")])
    result = check_partition(dag, 4, ids(dag, "a b y", "x"))
    assert (result.ok, result.part, result.condition) == (False, 0, "acyclic")
    assert "0 -> 1 -> 0" in result.message
    assert check_partition(dag, 4, ids(dag, "a b", "x y")).ok


def test_conditions_are_checked_in_order():
    # Fails both the cover and the cyclic-dependence condition: the cover is reported.
    dag = graph([("a", "x"), ("x", "y"), ("b", "y")])
    result = check_partition(dag, 4, ids(dag, "a y", "x"))
    assert result.condition == "cover"
    assert CONDITIONS == ("cover", "dominator", "minimum-set", "acyclic")


@pytest.mark.parametrize("S, parts", [(0, [[0]]), (1, [[0, 99]]), (1, [["a"]]), (1, "ab"),
                                      (True, [[0]]), (1, [[-1]])])
def test_malformed_arguments_raise(S, parts):
    with pytest.raises(InvalidArgument):
        check_partition(pyramid(1), S, parts)


# --- dominators ---------------------------------------------------------------------------------


def test_min_dominator_examples():
    dag = pyramid(3)
    apex = len(dag) - 1
    assert min_dominator(dag, [apex]) == {apex}
    assert min_dominator(dag, range(len(dag))) == set(dag.inputs)
    tree = binary_tree(8)
    assert dominator_size(tree, [len(tree) - 1]) == 1
    assert dominator_size(tree, tree.inputs) == 8
    assert dominator_size(tree, tree.inputs, limit=3) == 3


def brute_force_dominator_size(dag, part):
    for size in range(len(dag) + 1):
        for D in itertools.combinations(range(len(dag)), size):
            if dominates(dag, D, part):
                return size
    raise AssertionError("V dominates every part")


@given(st.data())
def test_min_dominator_is_a_least_dominator(data):
    dag = data.draw(dags(max_vertices=7))
    part = data.draw(st.sets(st.integers(0, len(dag) - 1), min_size=1))
    cut = min_dominator(dag, part)
    assert dominates(dag, cut, part)
    assert len(cut) == brute_force_dominator_size(dag, part) == dominator_size(dag, part)


@given(st.data())
def test_checker_agrees_with_the_definition(data):
    """An independent, definition-level re-statement on random partitions of random DAGs."""
    dag = data.draw(dags(max_vertices=6))
    S = data.draw(st.integers(1, 3))
    labels = data.draw(st.lists(st.integers(0, 2), min_size=len(dag), max_size=len(dag)))
    parts = [[v for v in range(len(dag)) if labels[v] == j] for j in sorted(set(labels))]
    expected = (all(brute_force_dominator_size(dag, p) <= S for p in parts)
                and all(len(minimum_set(dag, p)) <= S for p in parts)
                and quotient_is_acyclic(dag, labels))
    assert check_partition(dag, S, parts).ok == expected


def quotient_is_acyclic(dag, labels):
    """Acyclic iff some order of the labels makes every edge go forward (at most 3! orders)."""
    used = sorted(set(labels))
    return any(all(rank.index(labels[u]) <= rank.index(labels[v]) for u, v in dag.edges())
               for rank in itertools.permutations(used))


# --- the lemma's arithmetic and the trusted-base rule -------------------------------------------


def test_partition_lower_bound():
    assert partition_lower_bound(3, 1) == 0
    assert partition_lower_bound(3, 5) == 12
    for bad in [(0, 2), (3, 0), (True, 2), (3, 1.5)]:
        with pytest.raises(InvalidArgument):
            partition_lower_bound(*bad)


def test_names_round_trip():
    dag = matmul(1, 1, 2)
    parts = [[0, 1], [2, 3, 4]]
    assert parts_from_names(dag, parts_to_names(dag, parts)) == parts


def test_checker_does_not_import_z3():
    code = "import sys, ioverify.game.partition; assert 'z3' not in sys.modules, 'z3 imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
