"""``ioverify pebble DAG --memory M [--variant NAME | --one-shot] [--claim-lower-bound L |
--claim-upper-end U] [--timeout S] [--rlimit N] [--max-states N] [--json] [--schedule-out FILE]
[--method auto|exhaustive|z3] [--proof DIR [--proof-kind auto|clausal|search]]``: the exact pebbling search of ``ioverify.search.pebbling`` (issue 3)."""

from __future__ import annotations

import sys
import time

from ioverify.cli.common import (add_memory_argument, apply_memory_budget, command_start,
                                 json_text, non_negative_int, positive_float, positive_int,
                                 print_json, read_dag_within)
from ioverify.game.rules import VARIANTS

PROGRESS_AFTER = 3.0  # seconds before progress lines appear on stderr

DESCRIPTION = """Find the exact I/O optimum of a DAG with M red pebbles, or check a claimed lower
bound L: refuted by a replayed schedule of I/O < L, or verified by a complete argument (the
output names it), or a claimed upper end U: verified by a replayed schedule of I/O <= U, or
refuted by a proof that every schedule needs more than U. A work budget (--rlimit,
--max-states) stops the search at the same point on every machine, unlike --timeout; hitting
any limit gives 'unknown' with the bounds reached, never a proof. Exit 0: optimal or
verified; 1: refuted; 2: bad input (an unknown or unsupported --variant too); 3: unknown,
bounded (nothing proved beyond a horizon) or infeasible M.
With --memory LO..HI or --variant both: the whole curve, one --timeout for all of it, answers
carried between cells (a schedule to larger M and from one-shot to recompute, a proved lower bound
to smaller M and from recompute to one-shot), every schedule replayed at its cell's M and variant;
the exit code is the worst cell's, and 3 at best when a certificate asked for (--certificates)
was not written: one --timeout bounds the certificates too."""


def register(sub) -> None:
    p = sub.add_parser("pebble", help="exact red-blue pebbling search (optimum or a claim)",
                       description=DESCRIPTION)
    p.add_argument("dag", help="an ioverify-dag JSON file")
    p.add_argument("--memory", "-M", required=True, metavar="M|LO..HI",
                   help="red pebbles (M); a range LO..HI computes the whole curve")
    add_variant_arguments(p, both=True)
    p.add_argument("--claim-lower-bound", type=non_negative_int, metavar="L",
                   help="check the claim that every schedule needs at least L transfers")
    p.add_argument("--claim-upper-end", type=non_negative_int, metavar="U",
                   help="check the claim that some schedule needs at most U transfers: "
                        "verified by a replayed schedule within U (the search stops at the "
                        "first), refuted only by a proof that every schedule needs more")
    p.add_argument("--timeout", type=positive_float, metavar="S",
                   help="wall-clock limit in seconds on the whole command from the start of "
                        "its process (Linux; elsewhere from the start of ioverify's main), "
                        "reading the DAG included (the answer is then 'unknown' with the "
                        "bounds reached)")
    p.add_argument("--rlimit", type=positive_int, metavar="N",
                   help="work budget of each solver call: Z3 resource units (unit "
                        "propagations when PySAT's Glucose decides); reproducible on any "
                        "machine, unlike --timeout; 'unknown' (exit 3) if hit")
    p.add_argument("--max-states", type=positive_int, metavar="N",
                   help="cap on the configurations the exhaustive search stores (default "
                        "2000000; 20000000 with --method exhaustive or past 24 compute steps, "
                        "where Z3 proves no lower bound); past it only the level "
                        "reached is proved")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--schedule-out", metavar="FILE",
                   help="write the best schedule found (ioverify-schedule JSON) here")
    p.add_argument("--method", choices=("auto", "exhaustive", "z3"), default="auto",
                   help="auto (default): the exhaustive configuration search with a share of "
                        "the time, then Z3; exhaustive or z3: that search alone")
    p.add_argument("--proof", metavar="DIR",
                   help="write to DIR a proof of the proved lower bound and a certificate "
                        "naming its files by SHA-256 (docs/explanation/proofs.md); "
                        "'ioverify certificate check DIR/certificate.json' re-checks it "
                        "without any solver")
    p.add_argument("--proof-kind", choices=("auto", "clausal", "search"), default="auto",
                   help="with --proof: clausal (one-shot, or recompute where every needed "
                        "non-input vertex has one use): the CNF of the final "
                        "unsatisfiable query (budget = the proved lower bound - 1) and its LRAT "
                        "proof; search: the exhaustive search's closed configurations, checked "
                        "block by block (both variants); auto (default): clausal for one-shot, "
                        "search for recompute")
    add_memory_argument(p)
    from ioverify.cli.curve_cmd import add_curve_arguments

    add_curve_arguments(p)
    p.set_defaults(handler=_pebble)


def add_variant_arguments(p, both: bool = False) -> None:
    """``--variant NAME`` and its alias ``--one-shot`` (read them with ``variant_of``).  The
    name is checked by the command (an unknown one is one line and exit 2, from
    ``UnsupportedVariant``), not by argparse."""
    names = ", ".join(f"{v.name} ({v.summary})" for v in VARIANTS.values())
    group = p.add_mutually_exclusive_group()
    group.add_argument("--variant", metavar="NAME",
                       help=f"game variant: {names}; default recompute"
                            + ("; 'both' computes the curve in both" if both else ""))
    group.add_argument("--one-shot", dest="variant", action="store_const", const="one-shot",
                       help="alias for --variant one-shot")


def variant_of(args) -> str:
    """The variant named on the command line (recompute if none); no default is set in the
    parser, so that argparse sees ``--variant recompute --one-shot`` as a conflict."""
    return "recompute" if args.variant is None else args.variant


def progress_printer(stream=None):
    """A progress callback printing to stderr, silent for the first few seconds."""
    start = time.monotonic()

    def progress(message: str) -> None:
        if time.monotonic() - start >= PROGRESS_AFTER:
            print(f"ioverify pebble: {message}", file=stream or sys.stderr, flush=True)

    return progress


def _pebble(args) -> int:
    apply_memory_budget(args.max_memory)
    from ioverify.cli.curve_cmd import curve_command, is_curve
    from ioverify.search.curve import parse_memory_range

    memories = parse_memory_range(args.memory)
    if is_curve(args, memories):
        return curve_command(args, memories, variant_of(args), progress_printer())
    args.memory = memories[0]
    return _single(args)


def _single(args) -> int:
    import json

    from ioverify._io import writable, write_text
    from ioverify.game.rules import require_variant
    from ioverify.search.apart import default_processes
    from ioverify.search.pebbling import (IMPLEMENTED, budget_record, pebble, state_cap,
                                          upper_end)
    from ioverify.verdict import Unknown, exit_code, verdict_to_json

    start = command_start(args)  # --timeout bounds the whole command, start-up included
    variant = require_variant(variant_of(args), IMPLEMENTED, "the pebbling search")
    if args.proof is None and args.proof_kind != "auto":
        from ioverify.errors import InvalidArgument

        raise InvalidArgument(f"--proof-kind needs --proof DIR (where to write the "
                              f"{args.proof_kind} proof)")
    _check_proof_folder(args.proof, _proof_kind(args, variant))
    _check_upper_end(args)
    if args.schedule_out is not None:  # before the search, so that a typo loses no search
        writable(args.schedule_out)
    dag = read_dag_within(args.dag, start, args.timeout)
    if args.proof is not None and dag is not None:
        _check_proof_variant(dag, variant, _proof_kind(args, variant))
    if dag is None:
        verdict = Unknown("timeout while reading the DAG: nothing searched", variant=variant.name)
    else:
        limits = dict(timeout=args.timeout, progress=progress_printer(), method=args.method,
                      rlimit=args.rlimit, max_states=args.max_states, started=start,
                      processes=min(2, args.jobs) if args.jobs else default_processes())
        if args.claim_upper_end is not None:
            verdict = upper_end(dag, args.memory, args.claim_upper_end, variant=variant,
                                **limits)
        else:
            verdict = pebble(dag, args.memory, variant=variant,
                             claim_lower_bound=args.claim_lower_bound, **limits)
    doc = verdict_to_json(verdict, dag, seconds=time.monotonic() - start)
    doc["budget"] = budget_record(rlimit=args.rlimit, timeout=args.timeout, seed=0,
                                  max_states=state_cap(args.method, args.max_states, dag))
    code = exit_code(verdict)
    if args.proof is not None:
        doc["proof"] = write_proof(args, dag, verdict, start, _proof_kind(args, variant))
        if not doc["proof"].get("rechecked") and code == 0:
            code = 3  # asked for a checked proof, got none: inconclusive
    if args.json:
        print_json(doc)
    else:
        print(describe(verdict, doc))
        if args.proof is not None:
            print(describe_proof(doc["proof"]))
    schedule = getattr(verdict, "schedule", None)
    if args.schedule_out and schedule is not None:  # after the verdict: it is printed anyway
        write_text(json_text(schedule.to_dict(dag)), args.schedule_out)  # moves: C encoder
    return code


def _check_upper_end(args) -> None:
    """--claim-upper-end is a claim of its own: not with a claimed lower bound, and its
    schedule is its proof (--proof writes proofs of lower bounds)."""
    from ioverify.errors import InvalidArgument

    if args.claim_upper_end is None:
        return
    for option, value in (("--claim-lower-bound", args.claim_lower_bound),
                          ("--proof", args.proof)):
        if value is not None:
            raise InvalidArgument(f"--claim-upper-end is checked alone, not with {option}")


def _proof_kind(args, variant) -> str:
    """clausal or search: what --proof writes (--proof-kind, auto by the variant)."""
    if args.proof_kind != "auto":
        return args.proof_kind
    return "clausal" if variant.at_most_once else "search"


def _check_proof_folder(folder, kind: str) -> None:
    """--proof: a clausal proof with its solver, and a folder that is one or can be made
    (checked before the search, so that a bad path loses nothing)."""
    from pathlib import Path

    from ioverify.errors import InvalidArgument

    if folder is None:
        return
    if kind == "clausal":
        from ioverify.solve.proof import available

        if not available():
            raise InvalidArgument("--proof-kind clausal needs PySAT with CaDiCaL 1.9.5 "
                                  "(python-sat's Cadical195), which cannot be imported here")
    from ioverify._io import writable_folder

    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise InvalidArgument(f"--proof {folder!r}: not a folder")
    if not path.exists() and not path.parent.exists():
        raise InvalidArgument(f"--proof {folder!r}: folder {str(path.parent)!r} does not exist")
    writable_folder(folder, "the proof")


CERTIFICATE_FILE = "certificate.json"


def _check_proof_variant(dag, variant, kind: str) -> None:
    """--proof-kind clausal: the CNF states one-shot schedules, so it proves a recompute bound
    only under the single-use lemma (checked once the DAG is read, before the search)."""
    from ioverify.errors import InvalidArgument
    from ioverify.game.lemmas import compute_demands

    if kind != "clausal" or variant.at_most_once:
        return
    shared = [(v, c) for v, c in compute_demands(dag).items() if c > 1]
    if shared:
        v, uses = min(shared)
        raise InvalidArgument(
            f"--proof-kind clausal needs the one-shot variant (--one-shot), whose horizon is "
            f"exact, or a DAG whose every needed non-input vertex has one use; vertex "
            f"{dag.names[v]!r} is needed {uses} times, so the recompute optimum may be lower "
            f"(use --proof-kind search)")


def write_proof(args, dag, verdict, start: float, kind: str) -> dict:
    """The proof (``kind`` clausal, or search: a search certificate) of the lower bound
    ``verdict`` proves (its optimum, its verified bound, or the lower end of its bracket),
    written with its certificate to ``args.proof`` and re-checked there, within --timeout; a
    record of what was written (``written`` False and a ``reason`` if nothing was;
    ``rechecked`` False and a ``reason`` if the time ran out in its re-check)."""
    from pathlib import Path

    from ioverify.errors import DeadlineReached, InternalError
    from ioverify.search.proof import clausal_proof, search_certificate

    lower, claim = _proved_lower_bound(verdict)
    if lower is None or lower < 1:
        return {"written": False, "reason": f"a {verdict.status} verdict proves no lower bound "
                                            f"above 0: there is nothing to prove"}
    left = None if args.timeout is None else args.timeout - (time.monotonic() - start)
    if left is not None and left <= 0:
        return {"written": False, "reason": f"timeout before the {kind} proof was started"}
    folder = Path(args.proof)
    if left is not None:  # the proof's re-check below takes about as long as writing it
        left /= 2
    try:
        if kind == "clausal":
            detail = clausal_proof(dag, args.memory, lower, folder, timeout=left,
                                   variant=verdict.variant)
        else:
            detail = search_certificate(dag, args.memory, verdict.variant, lower, folder,
                                        timeout=left)
    except DeadlineReached as stop:
        return {"written": False, "reason": str(stop)}
    path = _write_certificate(args, dag, verdict, lower, claim, kind, detail, start)
    from ioverify.certificate.recheck import check_file

    deadline = None if args.timeout is None else start + args.timeout
    outcome = check_file(path, deadline=deadline)
    late = (outcome.outcome == "not re-checked" and deadline is not None
            and time.monotonic() >= deadline)
    if outcome.outcome != "accepted" and not late:
        raise InternalError(f"the proof written to {str(folder)!r} does not re-check: "
                            f"{outcome.reason}")
    record = {"written": True, "rechecked": not late, "lower_bound": lower,
              "certificate": str(path)}
    if late:  # the files are whole; only their check is missing
        record["reason"] = f"--timeout reached while re-checking it: {outcome.reason}"
    if kind == "search":
        return {**record, "kind": "search-certificate",
                "closed": str(folder / detail["closed"]), "states": detail["states"]}
    return {**record, "kind": "clausal-proof", "cnf": str(folder / detail["cnf"]),
            "proof": str(folder / detail["proof"]), "variables": detail["variables"],
            "clauses": detail["clauses"], "lemmas": detail["lemmas"]}


def _proved_lower_bound(verdict):
    """(the lower bound ``verdict`` proves, the claim a certificate of it states)."""
    if verdict.status == "optimal":
        return verdict.io, None
    if verdict.status == "verified":
        return verdict.bound, verdict.bound
    if verdict.status == "unknown" and verdict.lower_bound is not None:
        return verdict.lower_bound, verdict.lower_bound
    return None, None


def _write_certificate(args, dag, verdict, lower, claim, kind, detail, start):
    import json
    from pathlib import Path

    from ioverify._io import write_text
    from ioverify.certificate.body import pebble_certificate
    from ioverify.verdict import Evidence, Optimal, Verified

    evidence = Evidence("clausal-proof" if kind == "clausal" else "search-certificate", detail)
    if verdict.status == "optimal":
        proved = Optimal(verdict.io, verdict.schedule, evidence, verdict.variant)
    else:
        proved = Verified(lower, evidence, verdict.variant)
    doc = pebble_certificate(dag, Path(args.dag).name, args.memory, proved,
                             time.monotonic() - start, claim)
    path = Path(args.proof) / CERTIFICATE_FILE
    write_text(json.dumps(doc, indent=1, allow_nan=False), str(path))
    return path


def describe_proof(record: dict) -> str:
    if not record["written"]:
        return f"proof: none written: {record['reason']}"
    if not record["rechecked"]:
        return (f"proof: I/O >= {record['lower_bound']} written but not re-checked "
                f"({record['reason']}); check it with 'ioverify certificate check "
                f"{record['certificate']}'")
    if record["kind"] == "search-certificate":
        return (f"proof: I/O >= {record['lower_bound']} by a search certificate of "
                f"{record['states']} closed configurations, accepted by the certificate check: "
                f"{record['certificate']}")
    return (f"proof: I/O >= {record['lower_bound']} by an LRAT refutation of "
            f"{record['clauses']} clauses ({record['lemmas']} lemmas), accepted by the "
            f"certificate check: {record['certificate']}")


def describe(verdict, doc: dict) -> str:
    """One line for people: the status, the verdict's one text form, the variant and the time;
    a verified bound that tests nothing says so."""
    from ioverify.verdict import describe as text

    vacuous = doc["status"] == "verified" and doc["lower_bound"] is not None and (
        doc["method"] == "trivial-bound" or doc["lower_bound"] <= 0)  # a lower bound's
    return (f"{doc['status']}: {text(verdict)}; {doc['variant']}, {doc['seconds']:.2f} s"
            + ("; vacuous: the trivial bound already implies the claim" if vacuous else ""))
