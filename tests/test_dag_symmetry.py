"""The automorphism search of ``ioverify.dag.symmetry``: the same groups as an independent
implementation (networkx's VF2++), no recursion whose depth grows with the DAG, and no group
(so no symmetry, which is always sound) past its size limit or its deadline."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ioverify.dag import symmetry
from ioverify.dag.attention import attention_forward
from ioverify.dag.families import binary_tree, matmul, pyramid
from ioverify.dag.model import DAG, DAGBuilder


def networkx_group(dag: DAG) -> set[tuple[int, ...]]:
    """Every automorphism by networkx's VF2++ (outputs as a node label), for comparison."""
    nx = pytest.importorskip("networkx")
    graph = nx.DiGraph()
    graph.add_nodes_from((v, {"output": dag.is_output[v]}) for v in range(len(dag)))
    graph.add_edges_from(dag.edges())
    return {tuple(f[v] for v in range(len(dag)))
            for f in nx.vf2pp_all_isomorphisms(graph, graph, node_label="output")}


@pytest.mark.parametrize("dag, size", [(matmul(2, 2, 2), 16), (matmul(3, 3, 3), 144)],
                         ids=["matmul(2,2,2)", "matmul(3,3,3)"])
def test_matmul_groups_equal_networkx(dag, size):
    """16 for matmul(2,2,2), as the recursive search this one replaced found (that one did not
    finish matmul(3,3,3) in 300 s; VF2++ lists its 144 in under a second)."""
    group = symmetry.checked_automorphisms(dag)
    assert len(group) == size
    assert set(group) == networkx_group(dag)


@st.composite
def small_dags(draw) -> DAG:
    """A DAG of up to 9 vertices, often with symmetry (few distinct shapes of few vertices)."""
    b = DAGBuilder()
    inputs = draw(st.integers(1, 3))
    vertices = [b.input(f"i{k}") for k in range(inputs)]
    for k in range(draw(st.integers(1, 6))):
        preds = draw(st.sets(st.sampled_from(vertices), min_size=1, max_size=2))
        vertices.append(b.op("f", f"v{k}", sorted(preds)))
    return b.build()


@settings(max_examples=150, deadline=None)
@given(small_dags())
def test_groups_equal_networkx_on_small_dags(dag):
    assert set(symmetry.checked_automorphisms(dag)) == networkx_group(dag)


def test_a_long_chain_and_a_thousand_vertex_pyramid_need_no_deep_recursion():
    """The search replaced recursed once per vertex: pyramid height 43 (990 vertices) raised
    RecursionError.  A chain of 5,000 vertices has only the identity."""
    b = DAGBuilder()
    last = b.input("x0")
    for k in range(1, 5000):
        last = b.op("f", f"x{k}", [last])
    assert symmetry.automorphisms(b.build()) == [tuple(range(5000))]
    big = pyramid(44)
    group = symmetry.checked_automorphisms(big)
    assert len(big) == 1035 and len(group) == 2  # the identity and the mirror image


def test_past_the_limit_no_group():
    assert symmetry.automorphisms(binary_tree(16)) is None  # 2^15 automorphisms > 4096
    assert symmetry.checked_automorphisms(binary_tree(16)) == []
    assert symmetry.automorphisms(binary_tree(8), limit=127) is None
    assert len(symmetry.automorphisms(binary_tree(8), limit=128)) == 128


def test_a_passed_deadline_gives_no_group():
    past = time.monotonic() - 1.0
    for dag in (matmul(2, 2, 2), attention_forward(2, 1), pyramid(3)):
        assert symmetry.automorphisms(dag, deadline=past) is None
        assert symmetry.checked_automorphisms(dag, deadline=past) == []
    later = time.monotonic() + 3600.0
    assert len(symmetry.checked_automorphisms(matmul(2, 2, 2), deadline=later)) == 16


def test_past_the_work_budget_no_group():
    """The work budget gives the same answer on every machine: matmul(3,3,3) needs about
    20,000 steps."""
    assert symmetry.automorphisms(matmul(3, 3, 3), max_steps=1_000) is None
    assert len(symmetry.automorphisms(matmul(3, 3, 3), max_steps=100_000)) == 144
