"""``ioverify bench maxsat``: core-guided MaxSAT lower bounds on the one-shot game (issue 16,
item 4), measured against the exhaustive search for the ablation.

Per instance and M: the one-shot exact-horizon encoding without its I/O budget
(``ioverify.encode.clauses.one_shot_rule_clauses``, every rule of the game as hard clauses), each
load and store variable a soft unit clause (its negation, weight 1), solved by PySAT's RC2
(``pysat.examples.rc2``, Glucose 3, with the options of its MaxSAT Evaluation entries: at-most-one
detection, core exhaustion, core minimisation and trimming) in a worker process that reports its
cost after every step of the core loop and is killed at the cell's time limit.  RC2's cost is
the weight of the cores it refuted, a lower bound on the MaxSAT optimum; the horizon is exact
(every one-shot schedule of I/O b is a model with at most b transfers true), so it is a lower
bound on the one-shot optimum, and RC2's optimum, when reached, is the one-shot optimum (its
model is decoded and replayed here as a check).  Beside it: the level the exhaustive search
(``exhaustive_optimum``, one-shot, its own heuristic) proved within the same time, and the
optimum or bracket known from the exact searches.

Nothing from RC2 reaches a verdict: this suite is a measurement.  A row is ``refuted`` when a
figure contradicts what is known (a lower bound above a known upper end, an optimum other than
the known one, a model that does not replay at its cost), else ``valid``.  The CNF is built in
this process first; its seconds are reported apart from RC2's.  ``--quick``: matmul(2,2,2) at
M = 5, 6 and attention_forward(2,1) at M = 8, at 10 s a cell; the full suite 60 s a cell."""

from __future__ import annotations

import multiprocessing
import time

from ioverify.bench import Rows, machine_line

SECONDS = {False: 60.0, True: 10.0}  # per cell, for RC2 and for the exhaustive search each

# (label, family, args, memories, what is known: M -> (lower, upper) proved, equal = optimum)
FULL = (
    ("matmul(2,2,2)", "matmul", (2, 2, 2), (3, 4, 5, 6),
     {3: (25, 25), 4: (17, 17), 5: (14, 14), 6: (13, 13)}),
    ("attention_forward(2,1)", "attention_forward", (2, 1), (3, 4, 5, 6, 7, 8),
     {3: (24, 24), 4: (15, 15), 5: (11, 11), 6: (10, 10), 7: (9, 9), 8: (8, 8)}),
    # brackets: M = 3, 4 from `pebble --timeout 60` with the abstraction bound; M = 5 from the
    # frontier sweep (docs/performance.md)
    ("attention_forward(2,2)", "attention_forward", (2, 2), (3, 4, 5),
     {3: (43, 62), 4: (26, 43), 5: (19, 40)}),
    ("attention_backward(2,1)", "attention_backward", (2, 1), (3, 5),
     {3: (37, 85), 5: (21, 56)}),
)
QUICK = (
    ("matmul(2,2,2)", "matmul", (2, 2, 2), (5, 6), {5: (14, 14), 6: (13, 13)}),
    ("attention_forward(2,1)", "attention_forward", (2, 1), (8,), {8: (8, 8)}),
)
RC2_OPTIONS = {"solver": "g3", "adapt": True, "exhaust": True, "minz": True, "trim": 5}


def available() -> bool:
    try:
        import pysat.examples.rc2  # noqa: F401
    except ImportError:
        return False
    return True


def _worker(names: int, hard, soft, conn, options=None) -> None:
    """In the worker process: RC2 on ``hard`` plus the unit soft clauses ``[-v]`` for v in
    ``soft``; sends ("bound", cost, seconds, cores, None) whenever the cost rises, then ("optimum",
    cost, seconds, cores, true variables among the first ``names``) or ("unsat", ...)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    start = time.monotonic()
    formula = WCNF()
    for clause in hard:
        formula.append(clause)
    for v in soft:
        formula.append([-v], weight=1)

    class Reporting(RC2):
        reported, cores = -1, 0

        def _call_oracle(self, *args, **kwargs):
            # every rise of the cost (a core processed, a core exhausted, an at-most-one
            # constraint detected) is followed by an oracle call: report it before the call
            if self.cost > self.reported:
                self.reported = self.cost
                conn.send(("bound", self.cost, time.monotonic() - start, self.cores, None))
            return super()._call_oracle(*args, **kwargs)

        def process_core(self):
            self.cores += 1
            return super().process_core()

    with Reporting(formula, **(RC2_OPTIONS if options is None else options)) as rc2:
        model = rc2.compute()
        seconds = time.monotonic() - start
        if model is None:
            conn.send(("unsat", rc2.cost, seconds, rc2.cores, []))
        else:
            conn.send(("optimum", rc2.cost, seconds, rc2.cores,
                       [v for v in model if 0 < v <= names]))
    conn.close()


def rc2_bound(names, clauses, cost_names, limit: float, options=None) -> dict:
    """Run RC2 in a worker process for at most ``limit`` seconds: the best cost (a lower bound),
    whether it is the optimum, the seconds, the cores processed and, at the optimum, the names
    of the variables true in the model.  ``options``: RC2's keyword arguments (default
    ``RC2_OPTIONS``)."""
    index = {name: i + 1 for i, name in enumerate(names)}
    soft, extra = [], len(names)
    for name in cost_names:  # a transfer in no clause is free: a fresh variable, soft as well
        if name not in index:
            extra += 1
            index[name] = extra
        soft.append(index[name])
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    start = time.monotonic()
    proc = ctx.Process(target=_worker, args=(len(names), clauses, soft, send, options),
                       daemon=True)
    proc.start()
    send.close()
    result = {"lower": 0, "optimum": False, "seconds": None, "last_rise": None, "cores": 0,
              "true": None}
    deadline = start + limit
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not receive.poll(left):
                break
            try:
                kind, cost, _, cores, true = receive.recv()
            except EOFError:  # the worker ended without an answer
                break
            result["cores"] = cores
            if cost > result["lower"]:
                result["lower"], result["last_rise"] = cost, time.monotonic() - start
            if kind == "optimum":
                result.update(optimum=True, true=[names[v - 1] for v in true])
                break
            if kind == "unsat":
                result["unsat"] = True
                break
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()
    result["seconds"] = time.monotonic() - start if result["optimum"] else limit
    return result


def decode(dag, true_names):
    """The schedule of a model given by the names of its true variables (as
    ``ioverify.encode.pebbling.decode``, over names): per step, delete what is not red next,
    load what is missing, compute, store if asked."""
    from ioverify.game.rules import Schedule

    true = set(true_names)
    steps = sum(1 for v in dag.useful if not dag.is_input[v])
    computable = [v for v in dag.useful if not dag.is_input[v]]
    moves, red = [], set()
    blue = {v for v in range(len(dag)) if dag.is_input[v]}
    for t in range(steps):
        target = {u for u in dag.useful if f"r_{t}_{u}" in true}
        moves += [("delete", u) for u in sorted(red - target)]
        moves += [("load", u) for u in sorted(target - red)]
        red = set(target)
        for v in (v for v in computable if f"x_{t}_{v}" in true):
            moves.append(("compute", v))
            red.add(v)
            if f"s_{t}" in true and v not in blue:
                moves.append(("store", v))
                blue.add(v)
    return Schedule.from_moves(moves)


def run(quick: bool = False, out: Rows | None = None) -> int:
    import ioverify.dag as families
    from ioverify.encode.clauses import one_shot_rule_clauses
    from ioverify.game import engine
    from ioverify.game.replay import replay

    out = out or Rows()
    if not available():
        out.note("ioverify bench maxsat needs PySAT (python-sat)")
        return 2
    limit = SECONDS[quick]
    out.note(machine_line(f"{limit:.0f} s a cell for RC2 and for the exhaustive search each"))
    out.note(f"{'instance':<24} {'V':>3} {'M':>2} {'cnf s':>6} {'RC2 bound':>9} {'opt?':>4} "
             f"{'s':>6} {'cores':>5} {'exhaustive':>10} {'done?':>5} {'s':>6} {'known':>9}")
    code = 0
    for label, family, args, memories, known in QUICK if quick else FULL:
        dag = getattr(families, family)(*args)
        for memory in memories:
            start = time.monotonic()
            names, clauses, cost_names = one_shot_rule_clauses(dag, memory)
            cnf_seconds = time.monotonic() - start
            rc2 = rc2_bound(names, clauses, cost_names, limit)
            start = time.monotonic()
            search = engine.search().exhaustive_optimum(dag, memory, "one-shot",
                                                        deadline=start + limit)
            ex_seconds = time.monotonic() - start
            low, up = known.get(memory, (None, None))
            problems = []
            if rc2["optimum"]:
                check = replay(dag, decode(dag, rc2["true"]), memory, "one-shot")
                if not check.ok or check.io != rc2["lower"]:
                    problems.append(f"RC2's model replays as {check.describe()}, I/O "
                                    f"{check.io}, not {rc2['lower']}")
                if low is not None and low == up and rc2["lower"] != low:
                    problems.append(f"RC2's optimum {rc2['lower']} is not the known {low}")
                if low is not None and not low <= rc2["lower"] <= up:
                    problems.append(f"RC2's optimum {rc2['lower']} is outside [{low}, {up}]")
            if rc2.get("unsat"):
                problems.append("the hard clauses are unsatisfiable")
            if up is not None and rc2["lower"] > up:
                problems.append(f"RC2's bound {rc2['lower']} exceeds the known {up}")
            level = search.lower_bound
            if up is not None and level is not None and level > up:
                problems.append(f"the exhaustive level {level} exceeds the known {up}")
            if search.complete and search.optimum is not None and low == up \
                    and search.optimum != low:
                problems.append(f"the exhaustive optimum {search.optimum} is not {low}")
            status = "refuted" if problems else "valid"
            if problems:
                code = 1
            known_text = "-" if low is None else str(low) if low == up else f"[{low}, {up}]"
            out.row("maxsat", status,
                    f"{label:<24} {len(dag):>3} {memory:>2} {cnf_seconds:>6.1f} "
                    f"{rc2['lower']:>9} {'yes' if rc2['optimum'] else 'no':>4} "
                    f"{rc2['seconds']:>6.1f} {rc2['cores']:>5} "
                    f"{'-' if level is None else level:>10} "
                    f"{'yes' if search.complete else 'no':>5} {ex_seconds:>6.1f} "
                    f"{known_text:>9}" + "".join(f"\n    {p}" for p in problems),
                    instance=label, vertices=len(dag), memory=memory,
                    cnf={"variables": len(names), "clauses": len(clauses), "soft":
                         len(cost_names), "seconds": round(cnf_seconds, 3)},
                    rc2={"lower": rc2["lower"], "optimum": rc2["optimum"],
                         "seconds": round(rc2["seconds"], 3), "cores": rc2["cores"],
                         "last_rise": None if rc2["last_rise"] is None
                         else round(rc2["last_rise"], 3)},
                    exhaustive={"lower": level, "complete": search.complete,
                                "optimum": search.optimum, "states": search.states,
                                "seconds": round(ex_seconds, 3)},
                    known={"lower": low, "upper": up}, problems=problems)
    return code
