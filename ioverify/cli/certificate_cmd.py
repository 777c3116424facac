"""``ioverify certificate check FILE...``: re-derive certificates from their instances."""

from __future__ import annotations

import sys

DESCRIPTION = """\
Re-check certificates by re-deriving them from their instances, never by reading them back:
the structure is validated against the shipped JSON Schema, the instance rebuilt from the
obligation's spec, feasibility recomputed, witness schedules replayed, partitions re-checked,
exhaustive searches re-run, clausal proofs re-encoded and their LRAT proofs checked (the files
beside the certificate), kernels re-run and re-certified, symbolic facts re-proved, and every
field that decides anything (its status included) compared with what was derived; fields that
only record how a verdict was reached (seconds, budgets, state counts of a search re-run here,
the lemma's name, the claim's prose) are recorded, not compared, and the output says which.
Nothing in a certificate is evaluated as code. Z3 is needed
only to re-prove symbolic facts whose proof uses it. Every file is checked, whatever the others
give.

outcome per file, and the exit code (the worst over all files):
  accepted        0  everything that decides the verdict was re-derived (resting only on the
                     lemmas listed under "relies on")
  rejected        1  a stated field differs from the re-derived one, or cannot be re-derived
  malformed       2  not a readable ioverify-certificate (one line names the field)
  not re-checked  3  cannot be re-derived here (a Z3 proof without Z3, a solver's unsat
                     the capped re-search cannot reproduce)
  internal error  4  a bug in ioverify
order of severity: internal error, rejected, malformed, not re-checked, accepted."""


# Seconds past --timeout the command waits for a worker to report that its re-check stopped at
# the deadline (the searches and proof checks look at it) before it stops waiting for it.
GRACE = 0.25


def register(sub) -> None:
    import argparse

    from ioverify.cli.common import add_memory_argument, positive_float, positive_int
    from ioverify.errors import EXIT_BAD_INPUT

    p = sub.add_parser("certificate", help="re-check certificates (no solver needed)")
    actions = p.add_subparsers(dest="action", metavar="check", parser_class=type(p))
    c = actions.add_parser("check", help="re-check certificate files", description=DESCRIPTION,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("files", nargs="+", help="certificate JSON files")
    c.add_argument("--json", action="store_true",
                   help="print one JSON object with a record per file")
    c.add_argument("--jobs", "-j", type=positive_int, default=None,
                   help="local processes, each re-checking one file at a time with the whole "
                        "--max-memory (default: the cores, at most 4); the files are reported "
                        "in the order given")
    c.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="wall-clock limit on the whole command, from its start: a file whose "
                        "re-check has not finished by then is 'not re-checked' (exit 3), "
                        "never accepted or rejected")
    add_memory_argument(c, "leaves that file not re-checked (exit 3)")
    c.set_defaults(handler=_check)
    p.set_defaults(handler=lambda args: (p.print_help(), EXIT_BAD_INPUT)[1])


def _check(args) -> int:
    from ioverify.cli.common import apply_memory_budget, command_start
    from ioverify.errors import exit_code_of, worst_exit

    apply_memory_budget(args.max_memory)  # each worker inherits it
    deadline = None if args.timeout is None else command_start(args) + args.timeout
    outcomes = []
    for outcome in _outcomes(list(args.files), args.jobs, deadline, args.debug):
        outcomes.append(outcome)
        if not args.json:  # each file as soon as it and those before it are done
            _print(outcome)
            sys.stdout.flush()
    code = worst_exit(o.exit_code for o in outcomes)
    if args.json:
        from ioverify.cli.common import print_json

        worst = next((o.outcome for o in outcomes if exit_code_of(o.outcome) == code),
                     "accepted")
        print_json({"status": worst, "outcome": worst, "exit_code": code,
                    "files": [o.to_json() for o in outcomes]})
    return code


def _outcomes(files: list[str], jobs: int | None, deadline: float | None, debug: bool):
    """Each file's ``Outcome``, in the order given: in this process when one job is enough and
    there is no deadline to keep, else on a pool of spawned workers, whose files still
    unfinished GRACE seconds past the deadline are not re-checked (the pool terminated)."""
    from ioverify.cli.common import default_jobs

    jobs = min(jobs or default_jobs(), len(files))
    if jobs == 1 and deadline is None:
        from ioverify.certificate.recheck import check_file

        yield from (check_file(path, debug=debug) for path in files)
        return
    yield from _pooled(files, jobs, deadline, debug)


def _pooled(files: list[str], jobs: int, deadline: float | None, debug: bool):
    import multiprocessing
    import time

    from ioverify._pool import worker_pool
    from ioverify.certificate.recheck import Outcome

    wall = None if deadline is None else time.time() + deadline - time.monotonic()
    with worker_pool(jobs) as pool:
        pending = [pool.apply_async(_check_one, ((path, wall, debug),)) for path in files]
        for path, result in zip(files, pending):
            wait = None if deadline is None else max(0.0, deadline - time.monotonic()) + GRACE
            try:
                yield result.get(wait)
            except multiprocessing.TimeoutError:
                yield Outcome(path, "not re-checked", None,
                              reason="the time limit passed before its re-check finished")
        pool.terminate()  # what still runs past the deadline is reported and abandoned


def _check_one(item) -> object:
    """In a worker: ``check_file`` with the deadline given as a wall-clock time (monotonic
    clocks of two processes need not agree)."""
    import time

    from ioverify.certificate.recheck import check_file

    path, wall, debug = item
    deadline = None if wall is None else time.monotonic() + wall - time.time()
    return check_file(path, debug=debug, deadline=deadline)


def _print(o) -> None:
    if o.outcome == "accepted":
        print(f"{o.path}: accepted ({o.status})")
        for label, lines in (("re-checked", o.rechecked), ("relies on", o.relies_on),
                             ("not re-derived", o.not_rederived)):
            for line in lines:
                print(f"    {label}: {line}")
    elif o.outcome in ("malformed", "internal error"):
        print(f"{o.path}: {o.outcome}: {o.reason}", file=sys.stderr)
    else:
        print(f"{o.path}: {o.outcome}: {o.reason}")
