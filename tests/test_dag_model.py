"""The DAG model and the ioverify-dag JSON format: every rejection names the offending item."""

import json

import pytest
from hypothesis import given, settings

from ioverify.dag import (DAG, DAGBuilder, binary_tree, dag_from_dict, dag_from_json, dag_to_json,
                          dag_to_dict, from_networkx, to_networkx,
                          matmul, pyramid, read_dag)
from ioverify.errors import InvalidDAG, InvalidFormat, IOVerifyError
from ioverify.strategies import dags

HEAD = {"format": "ioverify-dag", "version": 1}


def doc(**fields):
    return json.dumps({**HEAD, **fields})


# (case id, JSON text, the exception class, fragments the one-line message must contain)
REJECTIONS = [
    ("not-json", "{nodes: [", InvalidFormat, ["not JSON"]),
    ("not-object", "[1, 2]", InvalidFormat, ["JSON object", "ioverify-dag"]),
    ("wrong-format", json.dumps({"format": "ioverify-schedule", "version": 1, "nodes": ["a"]}),
     InvalidFormat, ["format", "'ioverify-schedule'"]),
    ("missing-format", json.dumps({"version": 1, "nodes": ["a"]}), InvalidFormat, ["format"]),
    ("wrong-version", json.dumps({"format": "ioverify-dag", "version": 2, "nodes": ["a"]}),
     InvalidFormat, ["version 2"]),
    ("version-true", json.dumps({"format": "ioverify-dag", "version": True, "nodes": ["a"]}),
     InvalidFormat, ["version True"]),
    ("version-float", json.dumps({"format": "ioverify-dag", "version": 1.0, "nodes": ["a"]}),
     InvalidFormat, ["version 1.0"]),
    ("duplicate-node", doc(nodes=["a", "b", "a"], edges=[]), InvalidDAG,
     ["duplicate node", "'a'"]),
    ("duplicate-edge", doc(nodes=["a", "b"], edges=[["a", "b"], ["a", "b"]]), InvalidDAG,
     ["duplicate edge", "'a'", "'b'"]),
    ("self-loop", doc(nodes=["a", "b"], edges=[["a", "b"], ["b", "b"]]), InvalidDAG,
     ["self-loop", "'b'"]),
    ("edge-unknown-source", doc(nodes=["a", "b"], edges=[["x", "b"]]), InvalidDAG,
     ["unknown node", "'x'"]),
    ("edge-unknown-target", doc(nodes=["a", "b"], edges=[["a", "zz"]]), InvalidDAG,
     ["unknown node", "'zz'"]),
    ("output-unknown", doc(nodes=["a", "b"], edges=[["a", "b"]], outputs=["q"]), InvalidDAG,
     ["output", "'q'"]),
    ("output-is-input", doc(nodes=["a", "b"], edges=[["a", "b"]], outputs=["a"]), InvalidDAG,
     ["output", "'a'", "input"]),
    ("cycle", doc(nodes=["i", "p", "q", "r"],
                  edges=[["i", "p"], ["p", "q"], ["q", "r"], ["r", "p"]]), InvalidDAG,
     ["cycle", "'p'", "'q'", "'r'"]),
    ("empty", doc(nodes=[], edges=[]), InvalidDAG, ["empty"]),
    ("unknown-field", doc(nodes=["a"], edges=[], extra=1), InvalidDAG, ["'extra'"]),
    ("ops-unknown-node", doc(nodes=["a", "b"], edges=[["a", "b"]], ops={"z": "mul"}), InvalidDAG,
     ["'z'"]),
    ("bad-edge-shape", doc(nodes=["a", "b"], edges=[["a", "b", "c"]]), InvalidDAG, ["edge #0"]),
]


@pytest.mark.parametrize("text, error, fragments", [r[1:] for r in REJECTIONS],
                         ids=[r[0] for r in REJECTIONS])
def test_rejections_name_the_item(text, error, fragments):
    with pytest.raises(error) as info:
        dag_from_json(text)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message
    assert isinstance(info.value, IOVerifyError) and isinstance(info.value, ValueError)


def test_cycle_message_lists_a_real_cycle():
    edges = [["i", "p"], ["p", "q"], ["q", "r"], ["r", "p"], ["i", "s"]]
    with pytest.raises(InvalidDAG) as info:
        dag_from_json(doc(nodes=["i", "p", "q", "r", "s"], edges=edges))
    names = [part.strip().strip("'") for part in str(info.value).split("nodes ", 1)[1].split("->")]
    assert names[0] == names[-1] and len(names) >= 3
    for a, b in zip(names, names[1:]):
        assert [a, b] in edges


def test_read_dag_reports_missing_file(tmp_path):
    with pytest.raises(InvalidDAG, match="cannot read DAG file"):
        read_dag(tmp_path / "nope.json")


def test_topological_order_and_default_outputs():
    dag = dag_from_json(doc(nodes=["c", "b", "a"], edges=[["a", "b"], ["b", "c"]]))
    assert dag.names == ("a", "b", "c")
    assert dag.preds == ((), (0,), (1,))
    assert dag.inputs == (0,) and dag.outputs == (2,)
    assert dag.ops == ("input", "op", "op")


def test_explicit_outputs_and_ops():
    dag = dag_from_json(doc(nodes=["a", "b", "c"], edges=[["a", "b"], ["b", "c"]],
                            outputs=["b", "c"], ops={"b": "exp"}))
    assert dag.outputs == (1, 2) and dag.ops[1] == "exp"
    assert dag.is_output == bytes([0, 1, 1]) and dag.is_input == bytes([1, 0, 0])


def test_isolated_input_is_not_an_output():
    dag = dag_from_json(doc(nodes=["a", "b", "lonely"], edges=[["a", "b"]]))
    assert [dag.names[v] for v in dag.outputs] == ["b"]


def test_min_memory_and_in_degree():
    dag = matmul(2, 2, 2)
    assert len(dag) == 20 and dag.max_in_degree == 2 and dag.min_memory == 3
    assert len(pyramid(3)) == 10 and len(pyramid(3).inputs) == 4
    assert len(binary_tree(8)) == 15 and binary_tree(8).outputs == (14,)


def test_builder_rejects_duplicates_and_input_outputs():
    b = DAGBuilder()
    a = b.input("a")
    with pytest.raises(InvalidDAG, match="duplicate node 'a'"):
        b.input("a")
    with pytest.raises(InvalidDAG, match="duplicate edge"):
        b.op("add", "c", [a, a])
    with pytest.raises(InvalidDAG, match="'d'"):
        b.op("add", "d", [])
    b.op("neg", "e", [a])
    with pytest.raises(InvalidDAG, match="output 'a' is an input"):
        b.build([a])
    with pytest.raises(InvalidDAG, match="empty"):
        DAGBuilder().build()


@given(dags(max_vertices=10))
def test_json_round_trip(dag):
    again = dag_from_json(dag_to_json(dag))
    assert again == dag
    for v, ps in enumerate(again.preds):
        assert all(p < v for p in ps)


def test_dag_from_dict_matches_from_edges():
    dag = dag_from_dict({**HEAD, "nodes": ["x", "y"], "edges": [["x", "y"]]})
    assert dag == DAG.from_edges(["x", "y"], [("x", "y")])


@given(dags(max_vertices=10))
@settings(max_examples=30)
def test_networkx_round_trip(dag):
    """Issue 19: ``to_networkx`` and ``from_networkx`` are inverse, checked against networkx:
    the graph is a DAG with the same nodes, edges and outputs."""
    nx = pytest.importorskip("networkx")
    graph = to_networkx(dag)
    assert nx.is_directed_acyclic_graph(graph) and graph.number_of_nodes() == len(dag)
    assert set(graph.edges) == {(dag.names[p], dag.names[v]) for v in range(len(dag))
                                for p in dag.preds[v]}
    back = from_networkx(graph)
    assert back.names == dag.names or set(back.names) == set(dag.names)
    assert {back.names[o] for o in back.outputs} == {dag.names[o] for o in dag.outputs}
    assert dag_to_dict(from_networkx(to_networkx(back))) == dag_to_dict(back)


@pytest.mark.parametrize("build", [
    lambda b: b.op("f", "y", [1]),              # itself: a self-loop
    lambda b: b.op("f", "y", [0, 2]),           # a vertex not added yet: a cycle later
    lambda b: b.op("f", "y", [-1]),             # wraps around to the last vertex
    lambda b: b.op("f", "y", [True]),           # a bool is not an index
    lambda b: b.op("f", "y", ["x"]),            # a name, not an index
    lambda b: b.input(5),                       # a name that is not a string
    lambda b: b.input(""),                      # an empty name
    lambda b: (b.op("f", "y", [0]), b.build([5])),
    lambda b: (b.op("f", "y", [0]), b.build(["y"])),
], ids=["self-loop", "forward", "negative", "bool", "name-as-pred", "int-name", "empty-name",
        "output-out-of-range", "output-by-name"])
def test_the_builder_refuses_what_is_not_a_dag(build):
    """Regression (found by trying the API the strategies how-to shows): DAGBuilder took a
    predecessor that was the vertex itself or a later one (the built graph had a cycle, and the
    exhaustive search answered on it), a negative or bool index, and names that are not
    non-empty strings; bad indices raised IndexError or TypeError."""
    b = DAGBuilder()
    b.input("x")
    with pytest.raises(InvalidDAG):
        build(b)
        b.build()
