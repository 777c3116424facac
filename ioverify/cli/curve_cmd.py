"""``ioverify pebble DAG --memory LO..HI [--variant both] [--timeout S] [--jobs N | --scheduler
ADDRESS] [--json] [--plot FILE] [--certificates DIR]``: the whole I/O curve of a DAG
(``ioverify.search.curve``, issue 18)."""

from __future__ import annotations

import time
from pathlib import Path

from ioverify.cli.common import (command_start, default_jobs, positive_int, print_json,
                                 read_dag_within)
from ioverify.errors import EXIT_UNKNOWN, exit_code_of, worst_exit

# What reporting a cell takes after the curve, per move of its schedule, kept back from the
# curve's --timeout (``curve(output_cost=...)``, times the load the curve measures), measured
# idle on the machine of docs/performance.md on attention_backward(60,1) (43,440 vertices,
# 163,000 to 181,000 moves a cell): naming and writing the moves as JSON, 1.0 to 1.2 us a move
# (kept at 1.5); a cell's certificate (the DAG, the schedule, the digest, the writer's check),
# 3.2 us of CPU a move since the DAG is built once and the schedule not copied (8 before; kept
# at 5).
JSON_SECONDS_PER_MOVE = 1.5e-6
CERTIFICATE_SECONDS_PER_MOVE = 5e-6
# Of the JSON's cost, what printing the records takes once built (the moves named): 0.4 us a
# move (kept at 0.6), kept back from the certificates' deadline.
JSON_PRINT_SECONDS_PER_MOVE = 0.6e-6
# A certificate's cost per unit (a vertex, an edge or a move: the DAG is in every one), before
# the first is measured, times the load the curve measured: 1.9 us of CPU on
# attention_backward(60,1), 180,784 moves a cell (kept at 2.5).
CERTIFICATE_SECONDS_PER_UNIT = 2.5e-6


def add_curve_arguments(p) -> None:
    """The options only a curve (a range of M, or --variant both) reads."""
    p.add_argument("--jobs", "-j", type=positive_int, default=None,
                   help="curve: cells searched at once on local processes (default: the number "
                        "of cores, at most 4; 1: in this process); a single M and variant: 2 or "
                        "more runs the exhaustive search with the abstraction bound and the one "
                        "without it on two cores, or a search without the bound with its "
                        "expansions on two worker processes (default: 2 if the machine has "
                        "them)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="curve: run the cells on the Dask cluster at ADDRESS (needs the "
                        "'distributed' extra)")
    p.add_argument("--plot", metavar="FILE",
                   help="curve: draw it (PNG or SVG, needs matplotlib), brackets as bands")
    p.add_argument("--no-cp-sat", action="store_true",
                   help="curve: do not run the CP-SAT upper-bound worker (by default it runs on "
                        "DAGs of 40 vertices and more, with --timeout, when the 'cpsat' extra "
                        "is installed)")
    p.add_argument("--certificates", metavar="DIR",
                   help="curve: write one certificate per cell here (re-check them with "
                        "'ioverify certificate check'); with --timeout, a certificate that "
                        "cannot be finished in time is not written (nothing of it is left), "
                        "each such cell is named, and the exit code is 3 at best")


def is_curve(args, memories: list[int]) -> bool:
    """A range of M or both variants asks for the curve; the single-cell options are refused
    there (one line, exit 2)."""
    from ioverify.errors import InvalidArgument

    curve = len(memories) > 1 or ".." in str(args.memory) or args.variant == "both"
    single_only = {"--claim-lower-bound": args.claim_lower_bound,
                   "--claim-upper-end": args.claim_upper_end,
                   "--schedule-out": args.schedule_out,
                   "--proof": args.proof,
                   "--method": None if args.method == "auto" else args.method}
    curve_only = {"--plot": args.plot, "--certificates": args.certificates,
                  "--scheduler": args.scheduler}
    wrong = single_only if curve else curve_only
    for option, value in wrong.items():
        if value is not None:
            raise InvalidArgument(f"{option} applies to a single M and variant only" if curve
                                  else f"{option} applies to a curve only (--memory LO..HI or "
                                       f"--variant both)")
    _check_outputs(args)
    return curve


def _check_outputs(args) -> None:
    """The curve's output paths, checked before it is computed (one line, exit 2): a plot
    into a folder that exists, with a suffix naming its format; certificates into a folder,
    not a file."""
    from ioverify._io import writable, writable_folder
    from ioverify.report.curve_plot import plot_format

    if args.plot is not None:
        from ioverify.report.plots import require

        plot_format(writable(args.plot))
        require("--plot")
    if args.certificates is not None:
        writable_folder(args.certificates, "certificates")


def curve_command(args, memories: list[int], variant: str, progress) -> int:
    from ioverify.game.rules import require_variant
    from ioverify.search.cpsat import portfolio
    from ioverify.search.curve import VARIANTS, curve
    from ioverify.search.pebbling import IMPLEMENTED
    from ioverify.verdict import exit_code, merge

    start = command_start(args)  # --timeout bounds the whole command, start-up included
    variants = VARIANTS if variant == "both" else (
        require_variant(variant, IMPLEMENTED, "the pebbling search").name,)
    dag = read_dag_within(args.dag, start, args.timeout)
    if dag is None:
        print(f"unknown: timeout while reading the DAG: nothing searched; "
              f"{time.monotonic() - start:.2f} s")
        return EXIT_UNKNOWN
    if args.certificates:  # imported now, inside the phases' deadlines (0.1 to 0.6 s, loaded)
        import ioverify.certificate.curve  # noqa: F401
    runner = _executor(args)
    with runner as (executor, workers):
        result = curve(dag, memories, variants, timeout=args.timeout, started=start,
                       rlimit=args.rlimit, max_states=args.max_states, executor=executor,
                       workers=workers, progress=progress,
                       upper_workers=portfolio(not args.no_cp_sat),
                       output_cost=output_cost(args))
        runner.abandon = result.abandoned > 0  # searches past the timeout: not waited for
    if args.plot:
        from ioverify.report.curve_plot import curve_plot

        curve_plot(Path(args.plot), result, title=Path(args.dag).name)
    # every cell's schedule as JSON, kept inside --timeout (output_cost); the records are
    # built before the certificates, which take their verdicts named from them
    records = curve_records(result, dag) if args.json else None
    written = write_certificates(args, result, dag, start, records) if args.certificates \
        else None
    if records is not None:
        if written is not None:
            for record in records:
                key = record["memory"], record["variant"]
                record["certificate"] = certificate_record(written, key)
        print_json(records)
    else:
        print(curve_table(result, variants))
        if written is not None:
            print(certificates_text(written, len(result.cells), args.certificates))
    code = exit_code(merge(c.verdict for c in result.cells.values()))
    if written is not None and written.missing:
        code = worst_exit([code, exit_code_of("not written")])
    return code


def write_certificates(args, result, dag, start: float, records=None):
    """The cells' certificates into --certificates, each one only if it can be finished by
    --timeout less the time printing the JSON ``records`` will take (both at the load the
    curve measured): ``ioverify.certificate.curve.Written``, naming the cells not written and
    why."""
    from ioverify.certificate.curve import write_curve_certificates_within

    deadline = None
    if args.timeout is not None:
        moves = sum(len(c.schedule) for c in result.cells.values() if c.schedule is not None)
        deadline = (start + args.timeout - JSON_PRINT_SECONDS_PER_MOVE * result.slowdown
                    * moves * (records is not None))
    named = {(r["memory"], r["variant"]): r["verdict"] for r in records or ()}
    return write_curve_certificates_within(
        result, dag, Path(args.certificates),
        {"family": "dag-file", "params": {"file": Path(args.dag).name}}, seed=0,
        deadline=deadline, seconds_per_unit=CERTIFICATE_SECONDS_PER_UNIT * result.slowdown,
        named=named)


def certificates_text(written, cells: int, folder: str) -> str:
    """How many certificates were written, and one line per cell whose certificate was not,
    with the reason."""
    from ioverify.search.curve import cell_name

    lines = [f"certificates: {len(written.paths)} of {cells} written to {folder}"]
    lines += [f"certificate not written: {cell_name(key)}: {reason}"
              for key, reason in written.missing.items()]
    return "\n".join(lines)


def output_cost(args) -> float:
    """Seconds per move of the cells' schedules the command spends after the curve."""
    return (JSON_SECONDS_PER_MOVE * bool(args.json)
            + CERTIFICATE_SECONDS_PER_MOVE * bool(args.certificates))


class _executor:
    """In this process (None), local processes (--jobs N), or a Dask cluster (--scheduler)."""

    def __init__(self, args):
        self.args, self.close, self.stop = args, None, None
        self.abandon = False  # set when searches still run that no one waits for

    def __enter__(self):
        args = self.args
        if args.scheduler:
            from ioverify.claims.check import dask_client

            client = dask_client(args.scheduler)
            self.close = client.close
            workers = max(1, sum(client.nthreads().values()))
            return client.get_executor(pure=False), workers
        jobs = args.jobs or default_jobs()
        if jobs > 1:
            import concurrent.futures
            import multiprocessing

            pool = concurrent.futures.ProcessPoolExecutor(
                jobs, mp_context=multiprocessing.get_context("spawn"))
            self.close = lambda: pool.shutdown(cancel_futures=True)
            self.stop = lambda: _stop_pool(pool)
            return pool, jobs
        return None, 1

    def __exit__(self, kind, error, trace):
        if (kind is not None or self.abandon) and self.stop is not None:
            self.stop()  # Ctrl-C, SIGTERM, an error or the timeout: no cell is waited for
        elif self.close is not None:
            self.close()
        return False


def _stop_pool(pool) -> None:
    """Cancel the cells not started and end the worker processes at once: shutting down
    waits for the running cells, each up to its whole slice (SIGTERM to a curve on
    attention_forward(2,2), M = 3..6, --timeout 60: exit after 33.4 s)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()


# --- output -------------------------------------------------------------------------------------

def cell_text(cell) -> str:
    if cell.infeasible:
        return "infeasible"
    if cell.settled:
        return str(cell.upper)
    return f"[{cell.verdict.lower_bound}, {'?' if cell.upper is None else cell.upper}]"


def curve_table(result, variants) -> str:
    """M, the answer per variant (the optimum, or the proved bracket), the trivial bound and the
    seconds spent on the row."""
    header = ["M", *variants, "trivial", "seconds"]
    rows = []
    for m in sorted({k[0] for k in result.cells}):
        cells = [result.cells[m, v] for v in variants]
        rows.append([str(m), *(cell_text(c) for c in cells), str(result.trivial),
                     f"{sum(c.seconds for c in cells):.1f}"])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.rjust(w) for x, w in zip(r, widths)) for r in [header, *rows]]
    lines.append(f"{result.settled()} of {len(result.cells)} cells settled, total bracket width "
                 f"{result.total_width()}, {result.seconds:.1f} s")
    if result.timeout_reached is not None:
        lines.append(timeout_line(result))
    return "\n".join(lines)


def timeout_line(result) -> str:
    """What the timeout stopped, and the cells it left without an upper end ('?')."""
    line = f"timeout reached while {result.timeout_reached}"
    if result.unbounded():
        line += (f"; {result.unbounded()} cells have no schedule yet (?): only the trivial or a "
                 f"carried lower bound is proved there")
    return line


def curve_records(result, dag) -> list[dict]:
    """One JSON record per cell: M, variant, the verdict, the trivial bound, the seconds and
    where the answer came from (with --certificates, ``certificate_record`` is added)."""
    from ioverify.search.curve import evidence_lines
    from ioverify.verdict import to_json

    records = []
    for cell in result.cells.values():
        verdict = to_json(cell.verdict, dag)
        records.append({"memory": cell.memory, "variant": cell.variant,
                        "status": verdict["status"],
                        "lower_bound": _lower(cell), "upper_bound": cell.upper,
                        "trivial_bound": result.trivial, "seconds": round(cell.seconds, 3),
                        "searches": cell.runs, "evidence": evidence_lines(result, cell),
                        "verdict": verdict})
    return records


def certificate_record(written, key) -> dict:
    """A cell's certificate: the file, or why it was not written."""
    if key in written.paths:
        return {"written": True, "path": str(written.paths[key])}
    return {"written": False, "reason": written.missing[key]}


def _lower(cell):
    if cell.infeasible:
        return None
    return cell.upper if cell.settled else cell.verdict.lower_bound
