"""A refutation with an LRAT proof: CaDiCaL 1.9.5 through PySAT (docs/explanation/proofs.md).

Why this solver: PySAT's ``Cadical195`` is CaDiCaL 1.9.5, which writes LRAT itself (its ``lrat``
option), so no DRAT-to-LRAT elaboration is needed.  PySAT's ``with_proof`` attaches a DRAT tracer
before options can be set, so the tracer is attached here after ``lrat`` is switched on, through
the same PySAT call ``with_proof`` makes (``pysolvers.cadical195_tracepr``).

CaDiCaL gives each input clause the next number as it receives it, but once a unit clause has
been given it also propagates at the root and numbers the clauses it derives (and the shortened
copies of input clauses with a false literal) from the same counter.  So the trace is read after
each clause is given: an input clause's number is one above every number seen so far, and the
proof's numbers are mapped back to the CNF's order.  Then the proof is trimmed to the clauses
the empty clause depends on, renumbered, and each clause is deleted after its last use.  Nothing here is
trusted: the caller checks the result with ``ioverify.certificate.lrat``.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile

from ioverify import _signals
from ioverify.errors import InternalError

SOLVER = "cadical195"


def available() -> bool:
    """Whether PySAT with CaDiCaL 1.9.5 (``Cadical195``) can be imported here."""
    try:
        import pysolvers
        from pysat.solvers import Cadical195  # noqa: F401
    except ImportError:
        return False
    return hasattr(pysolvers, "cadical195_tracepr") and hasattr(pysolvers, "flushpr")


def refute(clauses, timeout: float | None = None) -> tuple[str, str]:
    """("unsat", LRAT text over ``clauses`` numbered 1..m in the given order), or ("sat", "")
    or ("unknown", reason).

    With a ``timeout`` the whole of it (loading, solving, trimming) runs in a child process
    that is killed at the deadline: CaDiCaL's solve holds the interpreter lock, so a timer
    thread in this process could not interrupt it (measured: a 300 s limit overrun by more than
    15 minutes on matmul(2,2,3))."""
    if timeout is None:
        return _refute_here(clauses)
    context = multiprocessing.get_context("fork" if "fork" in
                                          multiprocessing.get_all_start_methods() else "spawn")
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "answer")
        child = context.Process(target=_refute_to_file, args=(clauses, out), daemon=True)
        child.start()
        timed_out = True  # until the join below returns with the child ended
        try:
            child.join(max(timeout, 0.001))
            timed_out = child.is_alive()
        finally:  # the deadline, or Ctrl-C / SIGTERM in this process: the child goes too
            if child.is_alive():
                child.kill()
                child.join()
        if timed_out:
            return "unknown", "timeout"
        if child.exitcode != 0 or not os.path.exists(out):
            raise InternalError(f"the proof-producing solver's process ended with exit code "
                                f"{child.exitcode}")
        with open(out, encoding="ascii") as answer:
            status = answer.readline().strip()
            return status, answer.read()


def _refute_to_file(clauses, path: str) -> None:
    """``_refute_here`` in a child process: the status, then the proof, written to ``path``.
    Ctrl-C is the parent's to handle (it kills this process), not a traceback here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _signals.forget()
    status, text = _refute_here(clauses)
    with open(path + ".part", "w", encoding="ascii") as out:
        out.write(status + "\n" + text)
    os.replace(path + ".part", path)


def _refute_here(clauses) -> tuple[str, str]:
    from pysat.solvers import Cadical195
    import pysolvers

    solver = Cadical195()
    with tempfile.TemporaryFile() as trace:
        try:
            solver.configure({"lrat": 1, "binary": 0})
            handle = pysolvers.cadical195_tracepr(solver.cadical, trace)
            numbers = _give(solver, clauses, trace, lambda: pysolvers.flushpr(handle))
            answer = solver.solve()
            pysolvers.flushpr(handle)
        finally:
            solver.delete()
        if answer:
            return "sat", ""
        trace.seek(0)
        return "unsat", trimmed(trace.read().decode(), numbers)


def _give(solver, clauses, trace, flush) -> dict[int, int]:
    """Give ``clauses`` to the solver; CaDiCaL's number of each (-> its 1-based index)."""
    numbers, last, seen = {}, 0, 0
    for i, clause in enumerate(clauses, 1):
        last += 1
        numbers[last] = i
        solver.add_clause(list(clause))
        flush()
        size = trace.seek(0, 2)
        if size > seen:
            trace.seek(seen)
            for line in trace.read(size - seen).decode().splitlines():
                words = line.split(maxsplit=2)
                if len(words) > 1 and words[1] != "d":
                    last = max(last, int(words[0]))
            seen = size
    return numbers


def trimmed(lrat: str, numbers: dict[int, int]) -> str:
    """The LRAT ``lrat`` (in CaDiCaL's numbers; ``numbers`` maps those of the input clauses to
    the CNF's) over the CNF's own numbers, cut down to what the empty clause needs, renumbered,
    with deletions after last use."""
    m = len(numbers)
    steps, empty = {}, None
    for line in lrat.splitlines():
        words = line.split(maxsplit=2)
        if len(words) < 2 or words[1] == "d":
            continue
        ident = int(words[0])
        if ident in numbers:
            raise InternalError(f"CaDiCaL derived a clause {ident} under an input clause's "
                                f"number")
        steps[ident] = line
        if words[1] == "0":
            empty = ident
            break
    if empty is None:
        raise InternalError("CaDiCaL's proof has no empty clause")
    needed, parsed = {empty}, {}
    for ident in sorted(steps, reverse=True):
        if ident in needed:
            ints = [int(w) for w in steps[ident].split()]
            end = ints.index(0, 1)
            parsed[ident] = (ints[1:end], ints[end + 1:-1])
            needed.update(h for h in parsed[ident][1] if h not in numbers)
    return _renumbered(parsed, numbers, m)


def _renumbered(parsed: dict, original: dict, m: int) -> str:
    new = dict(original)
    kept = sorted(parsed)
    for i, ident in enumerate(kept, m + 1):
        new[ident] = i
    last_use = {}
    for ident in kept:
        for h in parsed[ident][1]:
            last_use[new[h]] = new[ident]
    dying: dict[int, list[int]] = {}
    for ident, at in last_use.items():
        dying.setdefault(at, []).append(ident)
    out = []
    for ident in kept:
        lits, hints = parsed[ident]
        me = new[ident]
        out.append(" ".join(map(str, [me, *lits, 0, *(new[h] for h in hints), 0])))
        if dying.get(me) and lits:
            out.append(f"{me} d " + " ".join(map(str, sorted(dying[me]))) + " 0")
    return "\n".join(out) + "\n"
