"""Proofs a small checker verifies (issue 15): clausal proofs of one-shot optima and search
certificates of optima in both variants.

Instances: matmul(2,2,2) with chain sums at M = 3..6 and attention_forward(2, 1) at every M from
the smallest feasible one to the one where the optimum is the trivial bound, in both variants;
then the largest instances the frontier benchmark settles (attention_backward(1,1) and
approximate_attention(2,1,1) at every M, and the cells of matmul(2,2,3),
sparse_forward(causal 3,1) and attention_forward(2,2) that it proves).  A recompute optimum
where every needed non-input vertex has one use (matmul) is proved in one-shot by either route
(the single-use lemma; the evidence names it).  Per cell and route: the optimum and the
seconds ``pebble`` takes to find it (method auto), the seconds to write the proof (the CNF at budget optimum - 1 and CaDiCaL's trimmed LRAT refutation; or the exhaustive
search re-run below the optimum with its own heuristic, keeping its closed configurations), the
proof's size and items (LRAT lemmas, or closed configurations), and the seconds
``certificate check`` takes to re-check the certificate (solver-free).  Wall-clock on whatever
machine runs it; ``--quick`` runs two cells."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from ioverify.bench import Rows, machine_line

PROVE_LIMIT = 120.0  # seconds for one proof; past it the row says so
FIND_LIMIT = 120.0  # seconds for pebble to find the optimum


def instances(quick: bool):
    """(label, dag, cells): cells is a list of (M, variant), or None for every M from the
    smallest feasible one to the trivial bound, in both variants."""
    from ioverify.dag import (approximate_attention, attention_backward, attention_forward,
                              matmul, sparse_attention_forward)

    if quick:
        return [("matmul(2,2,2)", matmul(2, 2, 2), [(6, "one-shot"), (6, "recompute")])]
    both = ("one-shot", "recompute")
    causal = [[j <= i for j in range(3)] for i in range(3)]
    return [("matmul(2,2,2)", matmul(2, 2, 2), [(m, v) for m in (3, 4, 5, 6) for v in both]),
            ("attention_forward(2,1)", attention_forward(2, 1), None),
            ("attention_backward(1,1)", attention_backward(1, 1), None),
            ("approximate_attention(2,1,1)", approximate_attention(2, 1, 1), None),
            ("matmul(2,2,3)", matmul(2, 2, 3), [(5, "one-shot"), (8, "one-shot")]),
            ("sparse_forward(causal 3,1)", sparse_attention_forward(causal, 1),
             [(9, "one-shot")]),
            ("attention_forward(2,2)", attention_forward(2, 2), [(8, "one-shot")])]


def plan(dag, listed) -> list[tuple[str, range | list[int]]]:
    """(variant, memories) to run in order; for every M (``listed`` None) the caller stops a
    variant at the first M whose optimum is the trivial bound (larger M add nothing)."""
    if listed is not None:
        return [(variant, [memory]) for memory, variant in listed]
    return [(variant, range(dag.min_memory, len(dag) + 1)) for variant in ("one-shot",
                                                                             "recompute")]


def measure(dag, memory: int, variant: str, folder: Path) -> list[dict]:
    """Find the optimum, then write and re-check each route's proof of it."""
    from ioverify.search.pebbling import pebble

    start = time.monotonic()
    verdict = pebble(dag, memory, variant=variant, timeout=FIND_LIMIT)
    found = time.monotonic() - start
    if verdict.status != "optimal":
        return [{"route": "-", "status": verdict.status, "find": found}]
    from ioverify.search.proof import proved_in

    # a recompute optimum under the single-use lemma is proved in one-shot, by either route
    routes = ("clausal", "search") if proved_in(dag, variant) == "one-shot" else ("search",)
    return [prove(dag, memory, verdict, found, route, folder / route) for route in routes]


def prove(dag, memory: int, verdict, found: float, route: str, folder: Path) -> dict:
    """Write the ``route`` proof of ``verdict``'s optimum with its certificate; re-check it."""
    import json

    from ioverify._io import write_text
    from ioverify.certificate.body import pebble_certificate
    from ioverify.certificate.recheck import check_file
    from ioverify.errors import DeadlineReached
    from ioverify.search.proof import clausal_proof, search_certificate
    from ioverify.verdict import Evidence, Optimal

    start = time.monotonic()
    try:
        if route == "clausal":
            detail = clausal_proof(dag, memory, verdict.io, folder, timeout=PROVE_LIMIT,
                                   variant=verdict.variant)
        else:
            detail = search_certificate(dag, memory, verdict.variant, verdict.io, folder,
                                        timeout=PROVE_LIMIT)
    except DeadlineReached:
        return {"route": route, "status": f"no proof in {PROVE_LIMIT:.0f} s", "find": found}
    proving = time.monotonic() - start
    kind = "clausal-proof" if route == "clausal" else "search-certificate"
    doc = pebble_certificate(dag, "bench.json", memory,
                             Optimal(verdict.io, verdict.schedule, Evidence(kind, detail),
                                     verdict.variant), found, None)
    write_text(json.dumps(doc), str(folder / "certificate.json"))
    start = time.monotonic()
    outcome = check_file(folder / "certificate.json")
    checking = time.monotonic() - start
    name = detail["proof"] if route == "clausal" else detail["closed"]
    return {"route": route, "status": outcome.outcome, "io": verdict.io, "find": found,
            "prove": proving, "check": checking,
            "items": detail["lemmas"] if route == "clausal" else detail["states"],
            "megabytes": (folder / name).stat().st_size / 1e6}


HEADER = (f"{'instance':<29} {'M':>3} {'variant':<9} {'route':<7} {'I/O':>4} {'find s':>7} "
          f"{'prove s':>7} {'items':>8} {'MB':>7} {'check s':>7} {'ratio':>6}")


def row(label: str, memory: int, variant: str, m: dict) -> str:
    head = f"{label:<29} {memory:>3} {variant:<9} {m['route']:<7}"
    if m["status"] != "accepted":
        return f"{head} {m['status']} (find {m['find']:.1f} s)"
    return (f"{head} {m['io']:>4} {m['find']:>7.1f} {m['prove']:>7.1f} {m['items']:>8} "
            f"{m['megabytes']:>7.2f} {m['check']:>7.1f} "
            f"{m['check'] / (m['find'] + m['prove']):>6.2f}")


def run(quick: bool = False, out: Rows | None = None) -> int:
    from ioverify.errors import EXIT_CODES
    from ioverify.game.lemmas import trivial_lower_bound

    out = out or Rows()
    out.note(machine_line())
    out.note(HEADER)
    worst = 0
    for label, dag, listed in instances(quick):
        trivial = trivial_lower_bound(dag)
        for variant, memories in plan(dag, listed):
            for memory in memories:
                with tempfile.TemporaryDirectory() as folder:
                    measured = measure(dag, memory, variant, Path(folder))
                for m in measured:
                    figures = {k: round(v, 3) if isinstance(v, float) else v
                               for k, v in m.items() if k != "status"}
                    status = m["status"] if m["status"] in EXIT_CODES else "unknown"
                    out.row("proofs", status, row(label, memory, variant, m), instance=label,
                            memory=memory, variant=variant, **figures)
                    worst = max(worst, EXIT_CODES[status])
                if measured[0].get("io") == trivial:
                    break
    return worst
