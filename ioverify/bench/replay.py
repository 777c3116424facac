"""Replayer throughput: 10 million moves on a DAG of a million vertices (target: <= 20 s)."""

from __future__ import annotations

import time

from ioverify.bench import Rows, machine_line


def chain_schedule(length: int, moves_target: int):
    """A path DAG x0 -> x1 -> ... and a legal schedule that sweeps it with 2 red pebbles,
    storing every vertex and re-sweeping from stored vertices until ``moves_target`` moves."""
    from array import array

    from ioverify.dag.model import DAGBuilder
    from ioverify.game.rules import COMPUTE, DELETE, LOAD, STORE, Schedule

    b = DAGBuilder()
    prev = b.input("x0")
    for i in range(1, length):
        prev = b.op("f", f"x{i}", [prev])
    dag = b.build()
    kinds, verts = bytearray(), array("l")
    # First sweep: load x0, then compute/store/delete along the path (4 moves per vertex).
    kinds += bytes((LOAD,))
    verts.append(0)
    for v in range(1, length):
        kinds += bytes((COMPUTE, STORE, DELETE))
        verts.extend((v, v, v - 1))
    kinds += bytes((DELETE,))
    verts.append(length - 1)
    # Further sweeps reload stored vertices (load, delete pairs) until the target is reached.
    v = 0
    while len(kinds) < moves_target:
        kinds += bytes((LOAD, DELETE))
        verts.extend((v, v))
        v = (v + 1) % length
    return dag, Schedule(kinds, verts)


def run(quick: bool = False, out: Rows | None = None) -> int:
    from ioverify.game.replay import replay

    out = out or Rows()
    vertices, moves = (100_000, 1_000_000) if quick else (1_000_000, 10_000_000)
    start = time.perf_counter()
    dag, schedule = chain_schedule(vertices, moves)
    built = time.perf_counter() - start
    start = time.perf_counter()
    result = replay(dag, schedule, memory=2)
    seconds = time.perf_counter() - start
    out.note(machine_line())
    out.note(f"{'vertices':>10} {'moves':>11} {'build s':>8} {'replay s':>9} {'moves/s':>12} ok")
    out.row("replay", "legal" if result.ok else "illegal",
            f"{len(dag):>10} {len(schedule):>11} {built:>8.2f} {seconds:>9.2f} "
            f"{len(schedule) / seconds:>12,.0f} {result.ok}",
            vertices=len(dag), moves=len(schedule), build_seconds=round(built, 3),
            replay_seconds=round(seconds, 3), moves_per_second=round(len(schedule) / seconds))
    return 0 if result.ok else 1
