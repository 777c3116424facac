"""``ioverify dag FAMILY [parameters] [-o FILE]`` and ``ioverify dag info FILE``."""

from __future__ import annotations

import argparse

from ioverify._io import writable, write_text
from ioverify.cli.common import non_negative_int, positive_int, print_json, refuse_unused
from ioverify.errors import EXIT_OK


def register(sub) -> None:
    from ioverify.dag.registry import FAMILIES

    parser = sub.add_parser("dag", help="build a DAG family as JSON, or describe a DAG file",
                            description="Build a DAG family as ioverify-dag JSON, or describe "
                                        "a DAG file.")
    families = parser.add_subparsers(dest="family", metavar="FAMILY|info",
                                     parser_class=type(parser))
    info = families.add_parser("info", help="vertices, edges, inputs, outputs, in-degree, min M")
    info.add_argument("file", help="an ioverify-dag JSON file")
    info.add_argument("--json", action="store_true", help="print one JSON object")
    info.set_defaults(handler=_info)
    for family in FAMILIES.values():
        p = families.add_parser(family.name, help=family.doc, description=family.doc)
        for param in family.params:
            kind = _cli_type(param)
            p.add_argument(f"--{param.name.replace('_', '-')}", dest=param.name, type=kind,
                           default=argparse.SUPPRESS, required=param.default is None,
                           choices=param.choices, help=param.help)
        p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
        p.set_defaults(handler=_build, family_obj=family)
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])


def _cli_type(param):
    """An int parameter is checked against its minimum (0, or 1 by default), with a message
    naming what is expected."""
    if param.type is not int:
        return param.type
    return non_negative_int if param.minimum == 0 else positive_int


def _build(args) -> int:
    from ioverify.dag.jsonio import dag_to_json

    family = args.family_obj
    kwargs = {p.name: getattr(args, p.name, p.default) for p in family.params}
    given = [p.name for p in family.params if hasattr(args, p.name)]
    refuse_unused(f"dag {family.name}", {p.name: p.only_with for p in family.params
                                         if p.only_with}, given, kwargs.get)
    if args.output not in (None, "-"):  # before building: a large family takes seconds
        writable(args.output)
    dag = family.build(**kwargs)
    write_text(dag_to_json(dag), args.output)
    return EXIT_OK


def dag_summary(dag) -> dict:
    return {"vertices": len(dag), "edges": dag.num_edges, "inputs": len(dag.inputs),
            "outputs": len(dag.outputs), "max_in_degree": dag.max_in_degree,
            "min_memory": dag.min_memory}


def _info(args) -> int:
    from ioverify.dag.jsonio import read_dag

    summary = dag_summary(read_dag(args.file))
    if args.json:
        print_json(summary)
    else:
        width = max(len(k) for k in summary)
        for key, value in summary.items():
            print(f"{key.replace('_', ' '):<{width}}  {value}")
    return EXIT_OK
