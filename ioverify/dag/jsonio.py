"""The ``ioverify-dag`` JSON format, version 1:

    {"format": "ioverify-dag", "version": 1, "nodes": ["a", ...], "edges": [["a", "c"], ...],
     "outputs": ["c"], "ops": {"c": "mul"}}

``outputs`` and ``ops`` are optional.  Reading validates everything and names the offending item.
"""

from __future__ import annotations

import json
from pathlib import Path

from ioverify._io import check_header, load_json_document
from ioverify.dag.model import DAG, INPUT_OP
from ioverify.errors import InvalidDAG, InvalidFormat

FORMAT = "ioverify-dag"
VERSION = 1
_KEYS = {"format", "version", "nodes", "edges", "outputs", "ops"}


def dag_from_dict(doc: object, what: str = "DAG") -> DAG:
    doc = check_header(doc, FORMAT, VERSION, what)
    unknown = set(doc) - _KEYS
    if unknown:
        raise InvalidDAG(f"{what} has unknown field {sorted(unknown)[0]!r}")
    nodes, edges = doc.get("nodes"), doc.get("edges", [])
    if not isinstance(nodes, list):
        raise InvalidDAG(f"{what}: 'nodes' must be a list of names")
    if not isinstance(edges, list):
        raise InvalidDAG(f"{what}: 'edges' must be a list of [from, to] pairs")
    return DAG.from_edges(nodes, edges, doc.get("outputs"), doc.get("ops"))


def dag_from_json(text: str, what: str = "DAG") -> DAG:
    return dag_from_dict(load_json_document(text, what), what)


def read_dag(path: str | Path) -> DAG:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise InvalidDAG(f"cannot read DAG file {str(path)!r}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidFormat(f"DAG file {str(path)!r} is not UTF-8 text") from None
    return dag_from_json(text, f"DAG file {str(path)!r}")


def dag_to_dict(dag: DAG) -> dict:
    names = dag.names
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "nodes": list(names),
        "edges": [[names[p], names[v]] for p, v in dag.edges()],
        "outputs": [names[v] for v in dag.outputs],
    }
    ops = {names[v]: op for v, op in enumerate(dag.ops) if op != INPUT_OP}
    if ops:
        doc["ops"] = ops
    return doc


def dag_to_json(dag: DAG) -> str:
    return json.dumps(dag_to_dict(dag), separators=(",", ":"))


def to_networkx(dag: DAG):
    """A ``networkx.DiGraph`` of ``dag``: one node per vertex (its name), attributes ``op`` and
    ``output`` (bool); ``from_networkx(to_networkx(dag))`` is ``dag`` again.  networkx is not
    a dependency of ioverify (the 'test' extra has it)."""
    try:
        import networkx as nx
    except ImportError:
        raise ImportError("to_networkx needs networkx, of the optional 'test' extra: pip install "
                          "'ioverify[test]' (or networkx alone)") from None

    graph = nx.DiGraph()
    for v, name in enumerate(dag.names):
        graph.add_node(name, op=dag.ops[v], output=bool(dag.is_output[v]))
    graph.add_edges_from((dag.names[p], dag.names[v]) for v in range(len(dag))
                         for p in dag.preds[v])
    return graph


def from_networkx(graph, outputs=None) -> DAG:
    """Build from a ``networkx.DiGraph``; node names are ``str(node)``, ops from attribute 'op';
    outputs from ``outputs``, else the nodes whose attribute ``output`` is true, else the
    sinks."""
    if outputs is None:
        marked = [str(n) for n, data in graph.nodes(data=True) if data.get("output")]
        outputs = marked or None
    nodes = [str(n) for n in graph.nodes]
    edges = [(str(a), str(b)) for a, b in graph.edges]
    ops = {str(n): data["op"] for n, data in graph.nodes(data=True) if "op" in data}
    return DAG.from_edges(nodes, edges, outputs, ops)
