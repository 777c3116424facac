"""``ioverify partition DAG --memory M [--json] [--timeout S] [--rlimit N] [--seed N]``: P(2M)
and Q >= M (P(2M) - 1)."""

from __future__ import annotations

import time

from ioverify.cli.common import (add_memory_argument, apply_memory_budget, command_start,
                                 positive_float, positive_int, print_json, solver_seed)


def register(sub) -> None:
    p = sub.add_parser("partition", help="least 2M-partition and the Hong-Kung lower bound",
                       description="Compute P(2M), the least number of parts of a 2M-partition "
                                   "of the DAG (Z3 search, every witness re-checked), and the "
                                   "horizon-free lower bound Q >= M * (P(2M) - 1) on the I/O "
                                   "with recomputation. A work budget (--rlimit) stops the "
                                   "search at the same point on every machine, unlike "
                                   "--timeout. Exit 0: P(2M) exact, bound proved; 2: bad "
                                   "input; 3: M infeasible, or only bounds on P(2M) reached "
                                   "(the lower end still proves a bound).")
    p.add_argument("dag", help="an ioverify-dag JSON file")
    p.add_argument("--memory", "-M", type=positive_int, required=True, help="red pebbles (M)")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="wall-clock limit on the whole command from the start of its process "
                        "(Linux; elsewhere from the start of ioverify's main), reading the DAG "
                        "included: then report the bounds reached")
    p.add_argument("--rlimit", type=positive_int, default=None, metavar="N",
                   help="work budget of each Z3 query, in Z3 resource units (reproducible "
                        "on any machine, unlike --timeout); if hit, only the bounds reached "
                        "are reported (exit 3)")
    p.add_argument("--seed", type=solver_seed, default=0,
                   help="Z3 random seed, 0 to 2^32 - 1 (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_memory_argument(p)
    p.set_defaults(handler=_partition)


def _partition(args) -> int:
    apply_memory_budget(args.max_memory)
    from ioverify.cli.common import read_dag_within
    from ioverify.game.rules import infeasibility
    from ioverify.game.partition import parts_to_names
    from ioverify.search.partition import core_dag, search_partition, verdict_of
    from ioverify.verdict import Infeasible, Unknown

    start = command_start(args)  # --timeout bounds the whole command, start-up included
    dag = read_dag_within(args.dag, start, args.timeout)
    if dag is None:
        return _report(args, Unknown("timeout while reading the DAG: nothing searched"), None,
                       None, time.monotonic() - start)
    why = infeasibility(dag, args.memory)
    if why is not None:
        return _report(args, Infeasible(why), None, dag, time.monotonic() - start)
    core = core_dag(dag)  # the vertices with an output downstream: see core_dag
    left_out = sorted(set(dag.names) - set(core.names))
    try:
        result = search_partition(core, 2 * args.memory, timeout=args.timeout, seed=args.seed,
                                  rlimit=args.rlimit, started=start)
    except MemoryError:
        from ioverify.verdict import Unknown

        return _report(args, Unknown("the process ran out of memory: the memory budget "
                                     "(--max-memory) is spent"), None, core,
                       time.monotonic() - start)
    verdict = verdict_of(core, args.memory, result, left_out)
    return _report(args, verdict, result, core, time.monotonic() - start, parts_to_names,
                   left_out)


def _report(args, verdict, result, dag, seconds, names=None, left_out=()) -> int:
    from ioverify.verdict import exit_code

    doc = {"status": verdict.status, "memory": args.memory, "S": 2 * args.memory,
           "parts": None, "parts_lower": None, "parts_upper": None,
           "lower_bound": getattr(verdict, "bound", getattr(verdict, "lower_bound", None)),
           "partition": None, "seconds": round(seconds, 3)}
    if result is not None:
        doc.update(parts=result.upper if result.exact else None, parts_lower=result.lower,
                   parts_upper=result.upper, lower_by=result.lower_by,
                   partition=names(dag, result.witness), left_out=list(left_out))
    doc["reason"] = getattr(verdict, "reason", "")
    doc["budget"] = {"rlimit": args.rlimit, "timeout": args.timeout, "seed": args.seed}
    if args.json:
        print_json(doc)
    else:
        print(_describe(doc))
    return exit_code(verdict)


def _describe(doc: dict) -> str:
    M, S = doc["memory"], doc["S"]
    if doc["status"] == "infeasible":
        return f"infeasible: {doc['reason']}"
    if doc["partition"] is None:  # stopped before any partition was found
        return f"{doc['status']}: {doc['reason']}\nseconds: {doc['seconds']}"
    if doc["parts"] is not None:
        lines = [f"P({S}) = {doc['parts']}  (lower end: {doc['lower_by']})"]
    else:
        lines = [f"{doc['parts_lower']} <= P({S}) <= {doc['parts_upper']}"]
    lines.append(f"lower bound: Q >= {M} * ({doc['parts_lower']} - 1) = {doc['lower_bound']}")
    if doc["left_out"]:
        lines.append(f"left out (no output downstream): {' '.join(doc['left_out'])}")
    lines.append(f"witness partition ({doc['parts_upper']} parts):")
    lines += [f"  V{i}: {' '.join(part)}" for i, part in enumerate(doc["partition"])]
    lines.append(f"verdict: {doc['status']}" + (f" ({doc['reason']})" if doc["reason"] else ""))
    lines.append(f"seconds: {doc['seconds']}")
    return "\n".join(lines)
