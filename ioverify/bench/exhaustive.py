"""Exhaustive optimal search on the reference instances of docs/theory.md §1 (recompute
optima from an independent search), in both variants; exit 1 if a recompute optimum differs.
Then attention_forward(2, 1) at M = 3..8, whose optima have no outside reference (expected
"-").  ``--quick`` leaves out matmul(2,2,2) with M = 3 and 4 and attention_forward."""

from __future__ import annotations

import time

from ioverify.bench import Rows, machine_line

# (label, family builder name, arguments, M, recompute optimum from docs/theory.md §1)
CASES = (
    ("pyramid(3)", "pyramid", (3,), 3, 11), ("pyramid(3)", "pyramid", (3,), 4, 7),
    ("pyramid(3)", "pyramid", (3,), 5, 5),
    ("binary_tree(8)", "binary_tree", (8,), 3, 15), ("binary_tree(8)", "binary_tree", (8,), 4, 11),
    ("binary_tree(8)", "binary_tree", (8,), 5, 9),
    ("matmul(2,2,2) chain", "matmul", (2, 2, 2), 3, 25),
    ("matmul(2,2,2) chain", "matmul", (2, 2, 2), 4, 17),
    ("matmul(2,2,2) chain", "matmul", (2, 2, 2), 5, 14),
    ("matmul(2,2,2) chain", "matmul", (2, 2, 2), 6, 13),
) + tuple(("attention_forward(2,1)", "attention_forward", (2, 1), memory, None)
          for memory in range(3, 9))


def run(quick: bool = False, out: Rows | None = None) -> int:
    import ioverify.dag as families
    from ioverify.game import engine

    out = out or Rows()
    out.note(machine_line())
    out.note(f"{'instance':<24} {'M':>2} {'variant':<9} {'optimum':>7} {'expected':>8} "
          f"{'states':>9} {'wall s':>7} {'cpu s':>7}")
    failures = 0
    for label, builder, args, memory, expected in CASES:
        if quick and (builder == "matmul" and memory <= 4 or expected is None):
            continue
        dag = getattr(families, builder)(*args)
        for variant in ("recompute", "one-shot"):
            cpu = time.process_time()
            result = engine.search().exhaustive_optimum(dag, memory, variant)
            cpu = time.process_time() - cpu
            want = expected if variant == "recompute" and expected is not None else "-"
            wrong = want != "-" and result.optimum != expected
            failures += wrong
            out.row("exhaustive", "refuted" if wrong else "optimal",
                    f"{label:<24} {memory:>2} {variant:<9} {str(result.optimum):>7} {want:>8} "
                    f"{result.states:>9} {result.seconds:>7.2f} {cpu:>7.2f}",
                    instance=label, memory=memory, variant=variant, optimum=result.optimum,
                    expected=None if want == "-" else want, states=result.states,
                    seconds=round(result.seconds, 3), cpu_seconds=round(cpu, 3))
    return 1 if failures else 0
