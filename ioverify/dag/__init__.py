"""Computation DAGs: the model, the JSON format and the families."""

from ioverify.dag.families import binary_tree, matmul, pyramid
from ioverify.dag.jsonio import (dag_from_dict, dag_from_json, dag_to_dict, dag_to_json,
                                 from_networkx, read_dag)
from ioverify.dag.model import DAG, DAGBuilder

__all__ = ["DAG", "DAGBuilder", "binary_tree", "dag_from_dict", "dag_from_json", "dag_to_dict",
           "dag_to_json", "from_networkx", "matmul", "pyramid", "read_dag"]
