"""Hypothesis strategies for computation DAGs, memory sizes and legal complete schedules.

Hypothesis is a test extra (``pip install 'ioverify[test]'``); this is the only ioverify module
that imports it, and nothing else in the package imports this module.  Every strategy is built
from Hypothesis primitives (integers, lists, booleans), so failing examples shrink.

    from hypothesis import given, strategies as st
    from ioverify.game import replay
    from ioverify.strategies import dags, memory_sizes, schedules

    @given(st.data())
    def test_schedules_replay(data):
        dag = data.draw(dags(max_vertices=6))
        memory = data.draw(memory_sizes(dag))
        schedule = data.draw(schedules(dag, memory))
        assert replay(dag, schedule, memory).ok
"""

from __future__ import annotations

try:
    from hypothesis import strategies as st
except ImportError:  # raised on import, as ImportError, naming the extra to install
    raise ImportError("ioverify.strategies needs Hypothesis, of the optional 'test' extra: "
                      "pip install 'ioverify[test]'") from None

from ioverify._check import integer
from ioverify.dag.model import DAG, DAGBuilder
from ioverify.errors import InvalidArgument
from ioverify.game.rules import (COMPUTE, DELETE, LOAD, STORE, Schedule, check_dag,
                                 check_variant, infeasibility)

__all__ = ["dags", "memory_sizes", "schedules"]


def _integer(name: str, value, minimum: int) -> int:
    return integer(name, value, minimum)


def dags(*, min_vertices: int = 2, max_vertices: int = 8, max_in_degree: int = 2,
         min_inputs: int = 1) -> st.SearchStrategy[DAG]:
    """Random DAGs with ``min_vertices`` to ``max_vertices`` vertices, at least ``min_inputs``
    inputs and at least one non-input vertex, every non-input vertex having 1 to
    ``max_in_degree`` predecessors among the earlier vertices.  Outputs are the sinks, or (when
    drawn) a random non-empty set of non-input vertices, so some vertices may reach no output.
    Vertices are named ``v0, v1, ...`` in the topological order they were built in."""
    _integer("min_vertices", min_vertices, 2)
    _integer("max_vertices", max_vertices, min_vertices)
    _integer("max_in_degree", max_in_degree, 1)
    _integer("min_inputs", min_inputs, 1)
    if min_inputs > max_vertices - 1:
        raise InvalidArgument(f"min_inputs must be at most max_vertices - 1 = "
                              f"{max_vertices - 1}, got {min_inputs}")
    return _dags(max(min_vertices, min_inputs + 1), max_vertices, max_in_degree, min_inputs)


@st.composite
def _dags(draw, min_vertices, max_vertices, max_in_degree, min_inputs) -> DAG:
    n = draw(st.integers(min_vertices, max_vertices))
    inputs = draw(st.integers(min_inputs, n - 1))
    b = DAGBuilder()
    for v in range(inputs):
        b.input(f"v{v}")
    for v in range(inputs, n):
        preds = draw(st.lists(st.integers(0, v - 1), min_size=1,
                              max_size=min(max_in_degree, v), unique=True))
        b.op("op", f"v{v}", preds)
    if draw(st.booleans()):
        outputs = draw(st.lists(st.integers(inputs, n - 1), min_size=1, unique=True))
        return b.build(outputs)
    return b.build()


def memory_sizes(dag: DAG, *, max_extra: int = 3) -> st.SearchStrategy[int]:
    """Feasible memory sizes M for ``dag``: from ``dag.min_memory`` (max in-degree + 1) to
    ``dag.min_memory + max_extra``; shrinks towards the smallest."""
    check_dag(dag)
    _integer("max_extra", max_extra, 0)
    return st.integers(dag.min_memory, dag.min_memory + max_extra)


def schedules(dag: DAG, memory: int, *, variant: str = "recompute") -> st.SearchStrategy[Schedule]:
    """Legal complete schedules of ``dag`` with ``memory`` red pebbles, by random play.

    One-shot play (also drawn for ``recompute``): compute the vertices that outputs need in a
    random topological order, each exactly once; before computing v, load its predecessors that
    are not red; make room by evicting random red vertices that are not v's predecessors, storing
    an evicted vertex first if it is still needed (an output, or a predecessor of a vertex not
    yet computed) and sometimes at random.  Recompute play: pebble a random output depth first;
    to pebble v, pebble each predecessor in turn and store it (so nothing has to stay red while
    the next is pebbled; an explicit stack, so any depth works), then reload the predecessors
    and compute v; a blue vertex is loaded or, at most ``len(dag)`` times per schedule,
    recomputed.  Both need only ``len(preds(v)) + 1 <= M`` red pebbles at a time, so they
    terminate for every feasible M, ``M = dag.min_memory`` included.  Every output ends blue."""
    check_dag(dag)
    _integer("memory", memory, 1)
    variant = check_variant(variant)  # the name: a Variant record is accepted too
    why = infeasibility(dag, memory)
    if why is not None:
        raise InvalidArgument(f"no schedule exists: {why}")
    return _schedules(dag, memory, variant)


@st.composite
def _schedules(draw, dag: DAG, memory: int, variant: str) -> Schedule:
    play = _Play(dag, memory, draw)
    if variant == "one-shot" or draw(st.booleans()):
        play.one_shot()
    else:
        play.depth_first()
    play.finish()
    return Schedule(play.kinds, play.verts)


class _Play:
    """The random player: tracks red and blue pebbles and appends legal moves."""

    def __init__(self, dag: DAG, memory: int, draw):
        self.dag, self.memory, self.draw = dag, memory, draw
        self.red: set[int] = set()
        self.blue: set[int] = set(dag.inputs)
        self.kinds, self.verts = bytearray(), []
        self.recomputes_left = len(dag)  # voluntary recomputations of blue vertices: bounded

    def choose(self, items):
        items = sorted(items)
        return items[self.draw(st.integers(0, len(items) - 1))]

    def move(self, kind: int, v: int) -> None:
        self.kinds.append(kind)
        self.verts.append(v)
        if kind in (LOAD, COMPUTE):
            self.red.add(v)
        elif kind == STORE:
            self.blue.add(v)
        else:
            self.red.discard(v)

    def make_room(self, pinned: set[int], needed) -> None:
        """Evict random unpinned red vertices until one more pebble fits; a vertex for which
        ``needed(u)`` holds is stored first, others sometimes."""
        while len(self.red) >= self.memory:
            u = self.choose(self.red - pinned)
            if u not in self.blue and (needed(u) or self.draw(st.booleans())):
                self.move(STORE, u)
            self.move(DELETE, u)

    def place(self, kind: int, v: int, pinned: set[int], needed) -> None:
        self.make_room(pinned, needed)
        self.move(kind, v)

    def gather(self, v: int, needed) -> None:
        """Make every predecessor of v red (each is red or blue), then compute v."""
        preds = set(self.dag.preds[v])
        for p in self.dag.preds[v]:
            if p not in self.red:
                self.place(LOAD, p, preds, needed)
        self.place(COMPUTE, v, preds, needed)

    # --- one-shot play ---------------------------------------------------------------------

    def one_shot(self) -> None:
        dag = self.dag
        todo = _ancestors(dag) - set(dag.inputs)
        waiting = {v: sum(1 for p in dag.preds[v] if p in todo) for v in todo}
        done: set[int] = set()

        def needed(u: int) -> bool:
            return dag.is_output[u] or any(s in todo and s not in done for s in dag.succs[u])

        while len(done) < len(todo):
            v = self.choose(u for u in todo if u not in done and waiting[u] == 0)
            self.gather(v, needed)
            done.add(v)
            for s in dag.succs[v]:
                if s in waiting:
                    waiting[s] -= 1

    # --- recompute play ----------------------------------------------------------------------

    def depth_first(self) -> None:
        dag = self.dag
        outputs = list(dag.outputs)
        while outputs:
            o = outputs.pop(self.draw(st.integers(0, len(outputs) - 1)))
            self.pebble(o)
            if o not in self.blue:
                self.move(STORE, o)

    def pebble(self, root: int) -> None:
        """Put a red pebble on ``root`` (recompute variant): each predecessor pebbled and
        stored in turn, then v gathered.  Iterative (one stack entry per level), so that the
        depth of the DAG is not bounded by Python's recursion limit."""
        def needed(u: int) -> bool:
            return bool(self.dag.is_output[u])

        stack = [[root, -1]]  # [vertex, next predecessor to pebble], -1: not entered yet
        while stack:
            frame = stack[-1]
            v, i = frame
            if i < 0:
                if self._reached(v, needed):
                    stack.pop()
                else:
                    frame[1] = 0
                continue
            preds = self.dag.preds[v]
            if i > 0 and preds[i - 1] not in self.blue:  # back from pebbling preds[i - 1]
                self.move(STORE, preds[i - 1])
            if i < len(preds):
                frame[1] = i + 1
                stack.append([preds[i], -1])
            else:
                self.gather(v, needed)
                stack.pop()

    def _reached(self, v: int, needed) -> bool:
        """True if v is red, or blue and loaded; False if it must be (re)computed (a voluntary
        recomputation of a blue vertex is counted)."""
        if v in self.red:
            return True
        if v in self.blue:
            if self.dag.is_input[v] or not self.recomputes_left or self.draw(st.booleans()):
                self.place(LOAD, v, set(), needed)
                return True
            self.recomputes_left -= 1
        return False

    def finish(self) -> None:
        for o in self.dag.outputs:
            if o not in self.blue:
                if o not in self.red:
                    raise AssertionError("random play lost an output")  # a bug in _Play
                self.move(STORE, o)


def _ancestors(dag: DAG) -> set[int]:
    """The outputs and every vertex from which an output is reachable."""
    seen = set(dag.outputs)
    stack = list(dag.outputs)
    while stack:
        for p in dag.preds[stack.pop()]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


# ``st.from_type(DAG)`` and ``st.builds(f)`` for a function taking a DAG draw from ``dags()``.
st.register_type_strategy(DAG, dags())
