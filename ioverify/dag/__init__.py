"""Computation DAGs: the model, the JSON format, the families and their automorphisms
(``ioverify.dag.symmetry``)."""

from ioverify.dag.attention import (alman_song_backward, approximate_attention, attention_backward,
                                    attention_forward,
                                    sparse_attention_backward, sparse_attention_forward)
from ioverify.dag.families import binary_tree, matmul, pyramid
from ioverify.dag.jsonio import (dag_from_dict, dag_from_json, dag_to_dict, dag_to_json,
                                 from_networkx, read_dag, to_networkx)
from ioverify.dag.model import DAG, DAGBuilder

__all__ = ["DAG", "DAGBuilder", "alman_song_backward", "approximate_attention", "attention_backward", "attention_forward",
           "binary_tree", "dag_from_dict", "dag_from_json", "dag_to_dict", "dag_to_json",
           "from_networkx", "to_networkx", "matmul", "pyramid", "read_dag",
           "sparse_attention_backward",
           "sparse_attention_forward"]
