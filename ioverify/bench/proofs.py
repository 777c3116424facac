"""Clausal proofs of one-shot optima (issue 15): matmul(2,2,2) with chain sums at M = 3..6 and
attention_forward(2, 1) at every M from the smallest feasible one to the one where the optimum is
the trivial bound.  Per instance: the one-shot optimum and the seconds ``pebble`` takes to find
it (method auto), the seconds to write its proof (the CNF at budget optimum - 1, CaDiCaL's LRAT
refutation, trimmed), the CNF's and the proof's sizes, and the seconds ``certificate check``
takes to re-check the certificate (the CNF re-encoded and compared, the LRAT proof checked in
pure Python, the schedule replayed).  Wall-clock on whatever machine runs it; ``--quick`` runs
two instances."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from ioverify.bench import Rows, machine_line


def instances(quick: bool):
    """(label, dag, memories or None for 'up to the trivial bound')."""
    from ioverify.dag import attention_forward, matmul

    if quick:
        return [("matmul(2,2,2)", matmul(2, 2, 2), [6]),
                ("attention_forward(2,1)", attention_forward(2, 1), [8])]
    return [("matmul(2,2,2)", matmul(2, 2, 2), [3, 4, 5, 6]),
            ("attention_forward(2,1)", attention_forward(2, 1), None)]


def measure(dag, memory: int, folder: Path) -> dict:
    """Find the one-shot optimum, write its proof and certificate to ``folder``, re-check it."""
    import json

    from ioverify._io import write_text
    from ioverify.certificate.body import pebble_certificate
    from ioverify.certificate.recheck import check_file
    from ioverify.search.pebbling import pebble
    from ioverify.search.proof import clausal_proof
    from ioverify.verdict import Evidence, Optimal

    start = time.monotonic()
    verdict = pebble(dag, memory, variant="one-shot")
    found = time.monotonic() - start
    if verdict.status != "optimal":
        return {"status": verdict.status, "find": found}
    start = time.monotonic()
    detail = clausal_proof(dag, memory, verdict.io, folder)
    proving = time.monotonic() - start
    doc = pebble_certificate(dag, "bench.json", memory,
                             Optimal(verdict.io, verdict.schedule,
                                     Evidence("clausal-proof", detail), "one-shot"), found, None)
    write_text(json.dumps(doc), str(folder / "certificate.json"))
    start = time.monotonic()
    outcome = check_file(folder / "certificate.json")
    checking = time.monotonic() - start
    return {"status": outcome.outcome, "io": verdict.io, "find": found, "prove": proving,
            "check": checking, "clauses": detail["clauses"], "variables": detail["variables"],
            "lemmas": detail["lemmas"],
            "megabytes": (folder / detail["proof"]).stat().st_size / 1e6}


def row(label: str, memory: int, m: dict) -> str:
    if m["status"] != "accepted":
        return f"{label:<24} {memory:>3} {m['status']}"
    return (f"{label:<24} {memory:>3} {m['io']:>4} {m['find']:>7.1f} {m['prove']:>7.1f} "
            f"{m['variables']:>7} {m['clauses']:>7} {m['lemmas']:>8} {m['megabytes']:>7.1f} "
            f"{m['check']:>7.1f} {m['check'] / (m['find'] + m['prove']):>6.2f}")


def run(quick: bool = False, out: Rows | None = None) -> int:
    from ioverify.game.lemmas import trivial_lower_bound

    out = out or Rows()
    out.note(machine_line())
    out.note(f"{'instance':<24} {'M':>3} {'I/O':>4} {'find s':>7} {'prove s':>7} {'vars':>7} "
          f"{'clauses':>7} {'lemmas':>8} {'LRAT MB':>7} {'check s':>7} {'ratio':>6}")
    worst = 0
    for label, dag, memories in instances(quick):
        trivial = trivial_lower_bound(dag)
        for memory in range(dag.min_memory, len(dag) + 2):
            if memories is not None and memory not in memories:
                continue
            with tempfile.TemporaryDirectory() as folder:
                m = measure(dag, memory, Path(folder))
            figures = {k: round(v, 3) if isinstance(v, float) else v for k, v in m.items()
                       if k != "status"}
            out.row("proofs", m["status"], row(label, memory, m), instance=label,
                    memory=memory, **figures)
            worst = max(worst, 0 if m["status"] == "accepted" else 3)
            if (memories is not None and memory >= max(memories)) or m.get("io") == trivial:
                break
    return worst
