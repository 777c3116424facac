"""One search's expansions on several processes (``ioverify.search.farm``,
``_Search.farmed_steps``): the same optima and proved levels as the search alone, whatever order
the batches come back in; the workers' protocol; failures as errors; no worker outlives it."""

import io
import marshal
import pickle
import random
import time

import pytest
from hypothesis import given, settings, strategies as st

from ioverify.dag import attention_forward, matmul
from ioverify.errors import InternalError
from ioverify.game import engine, exhaustive
from ioverify.game.abstraction import AbstractionBound, parts_of
from ioverify.game.exhaustive import ExhaustiveRun, exhaustive_optimum
from ioverify.game.rules import VARIANTS
from ioverify.search import farm
from ioverify.search.pebbling import pebble
from ioverify.strategies import dags, memory_sizes


class _LocalFarm:
    """A farm in this process: a search of its own makes the successors (as a worker does),
    and ``collect`` gives back a batch sent, chosen at random (as workers finishing in any
    order would)."""

    def __init__(self, dag, memory, variant, rng, capacity, recipe=None):
        # as ``farm._worker`` builds it
        self.search = farm._search(engine.search(), dag, memory, variant, time.monotonic() + 600,
                                   recipe)
        self.rng, self.capacity, self.out, self.sent = rng, capacity, {}, 0

    def submit(self, tag, tasks):
        self.sent += 1
        # through marshal, as the workers' batches and answers go
        self.out[tag] = marshal.loads(marshal.dumps(tasks))

    def collect(self, deadline):
        tag = self.rng.choice(sorted(self.out))
        made = farm._expansions(self.search, self.out.pop(tag), deadline or float("inf"))
        return tag, marshal.loads(marshal.dumps(made))


def _farmed(dag, memory, variant, below, rng, capacity=None, batch=None):
    saved = exhaustive.FARM_BATCH
    exhaustive.FARM_BATCH = batch or rng.randint(1, 6)
    try:
        local = _LocalFarm(dag, memory, variant, rng, capacity or rng.randint(1, 4))
        return exhaustive_optimum(dag, memory, variant, below=below, farm=local)
    finally:
        exhaustive.FARM_BATCH = saved


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_farmed_search_proves_what_the_search_alone_proves(data):
    """Random DAGs, both variants, with and without a limit at or below the optimum: the
    optimum (replayed), or "none below" with the same level, however the batches are sized
    and in whatever order they come back."""
    dag = data.draw(dags(max_vertices=9, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    variant = data.draw(st.sampled_from(["recompute", "one-shot"]))
    alone = exhaustive_optimum(dag, memory, variant)
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    below = None
    if alone.optimum is not None and data.draw(st.booleans()):
        below = alone.optimum - data.draw(st.integers(0, 2))
    expected = alone if below is None else exhaustive_optimum(dag, memory, variant, below=below)
    result = _farmed(dag, memory, variant, below, rng)
    assert result.complete
    assert (result.optimum, result.lower_bound) == (expected.optimum, expected.lower_bound)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_search_farmed_out_where_it_paused_proves_what_it_alone_proves(data):
    """A search alone for a few configurations, then farmed (``ExhaustiveRun.farm_out``,
    the race's hand-over in ``apart``): the same optimum or "none below" at the same level."""
    dag = data.draw(dags(max_vertices=9, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    variant = data.draw(st.sampled_from(["recompute", "one-shot"]))
    alone = exhaustive_optimum(dag, memory, variant)
    below = None
    if alone.optimum is not None and data.draw(st.booleans()):
        below = alone.optimum - data.draw(st.integers(0, 2))
    expected = alone if below is None else exhaustive_optimum(dag, memory, variant, below=below)
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    run = ExhaustiveRun(dag, memory, variant, below=below)
    result = None
    for _ in range(data.draw(st.integers(1, 30))):  # one configuration per advance
        if (result := run.advance(time.monotonic())) is not None:
            break
    if result is None:
        local = _LocalFarm(dag, memory, variant, rng, rng.randint(1, 4))
        run.farm_out(local)
        result = run.advance()
        assert run.search.handover is None  # taken: the farm went on from the pause
    assert result.complete
    assert (result.optimum, result.lower_bound) == (expected.optimum, expected.lower_bound)


@st.composite
def _with_parts(draw):
    """A DAG, M, a variant and disjoint parts for the abstraction bound."""
    dag = draw(dags(max_vertices=8, max_in_degree=3))
    memory = draw(memory_sizes(dag, max_extra=2))
    k = draw(st.integers(1, 3))
    labels = draw(st.lists(st.integers(0, k - 1), min_size=len(dag), max_size=len(dag)))
    parts = [sum(1 << v for v, label in enumerate(labels) if label == i) for i in range(k)]
    return dag, memory, draw(st.sampled_from(["recompute", "one-shot"])), \
        [part for part in parts if part]


@settings(max_examples=200, deadline=None)
@given(_with_parts(), st.data())
def test_a_search_with_the_bound_farmed_out_proves_what_it_alone_proves(case, data):
    """The race's HAND-BACK (``apart``): a search with the capped abstraction bound, deepening
    or not, paused after a few configurations and farmed out to workers holding the bound
    rebuilt from its recipe (``AbstractionBound.recipe``), which they ask: the same optimum,
    or "none below" at the same level, as the same search alone (whose bound may prove more
    than the search without it, never past the optimum)."""
    dag, memory, variant, parts = case
    alone = exhaustive_optimum(dag, memory, variant)
    below = None
    if alone.optimum is not None and data.draw(st.booleans()):
        below = alone.optimum - data.draw(st.integers(0, 2))
    deepen = data.draw(st.booleans())
    expected = exhaustive_optimum(dag, memory, variant, below=below, deepen=deepen,
                                  bound=AbstractionBound(dag, memory, VARIANTS[variant], parts))
    assert expected.optimum == (alone.optimum if below is None else None)
    assert alone.optimum is None or expected.lower_bound <= alone.optimum
    bound = AbstractionBound(dag, memory, VARIANTS[variant], parts)
    run = ExhaustiveRun(dag, memory, variant, below=below, bound=bound, deepen=deepen)
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    saved = exhaustive.FARM_BATCH
    exhaustive.FARM_BATCH = rng.randint(1, 6)
    try:
        result = None
        for _ in range(data.draw(st.integers(1, 20))):  # one configuration per advance
            if (result := run.advance(time.monotonic())) is not None:
                break
        if result is None:
            run.farm_out(_LocalFarm(dag, memory, variant, rng, rng.randint(1, 4),
                                    recipe=bound.recipe()))
            result = run.advance()
    finally:
        exhaustive.FARM_BATCH = saved
    assert result.complete
    assert (result.optimum, result.lower_bound) == (expected.optimum, expected.lower_bound)


@pytest.mark.parametrize("variant,memory", [("recompute", 3), ("recompute", 4),
                                            ("one-shot", 3)])
def test_workers_for_a_search_with_the_bound_find_its_optimum(variant, memory):
    """Real workers holding the bound (``farm.workers(bound=...)``) for a deepening search
    with the rows' bound on attention_forward(2, 1), farmed out where it paused."""
    dag = attention_forward(2, 1)
    alone = exhaustive_optimum(dag, memory, variant)
    deadline = time.monotonic() + 120
    bound = AbstractionBound(dag, memory, VARIANTS[variant], parts_of(dag, share_inputs=True),
                             deadline=deadline, nested=False)
    run = ExhaustiveRun(dag, memory, variant, bound=bound, deepen=True, deadline=deadline)
    assert run.advance(time.monotonic()) is None  # paused after its first configuration
    with farm.workers(dag, memory, variant, deadline, 2, bound=bound.recipe()) as workers:
        run.farm_out(workers)
        result = run.advance()
    assert result.complete and result.optimum == alone.optimum
    assert run.farm is workers  # every deepening run after the first was farmed too


@pytest.mark.parametrize("variant", ["recompute", "one-shot"])
def test_a_worker_holding_the_bound_completes_the_successors_as_the_search_here(variant):
    """A worker's search, its bound rebuilt from the recipe of a bound that has remembered
    values already, gives every successor its whole heuristic (the count and the bound's
    value, exact below the room) and cuts the same ones as the search here, which asks its
    own bound; a successor's value is never below the bound's exact value."""
    dag = attention_forward(2, 1)
    rules = VARIANTS[variant]
    parts = parts_of(dag, share_inputs=True)
    here = ExhaustiveRun(dag, 3, variant, bound=AbstractionBound(dag, 3, rules, parts)).search
    here.bound.root(dag)  # remembered values, shipped in the recipe
    worker = farm._search(engine.search(), dag, 3, variant, time.monotonic() + 60,
                          here.bound.recipe())
    assert worker.bound.memos == here.bound.memos and worker.bound is not here.bound
    assert [search.learned for search in worker.bound.searches] == \
        [search.learned for search in here.bound.searches]
    start = here.input_mask << here.n
    h = here.heuristic(0, here.input_mask, 0)
    for limit in (h + 2, h + 6, 60):
        [made] = farm._expansions(worker, [(start, 0, h, True, limit)], time.monotonic() + 60)
        assert made == here.completed(here.successors(start, 0, h, True, limit), limit)
        exact = AbstractionBound(dag, 3, rules, parts)
        n, full = here.n, here.full
        for ng, value, raw, _, whole, _ in made[1]:
            assert whole and ng + value < limit
            assert value >= exact(raw & full, raw >> n & full, raw >> 3 * n)


def test_a_recipe_must_match_its_parts():
    dag = attention_forward(2, 1)
    rules = VARIANTS["recompute"]
    recipe = AbstractionBound(dag, 3, rules, parts_of(dag)).recipe()
    broken = recipe[:5] + (recipe[5][:1],) + recipe[6:]
    with pytest.raises(InternalError, match="do not match its parts"):
        AbstractionBound.rebuilt(dag, 3, rules, broken)


def test_only_a_paused_run_keeping_no_closed_configurations_is_farmed_out():
    dag = attention_forward(2, 1)
    local = _LocalFarm(dag, 4, "recompute", random.Random(4), 2)
    run = ExhaustiveRun(dag, 4, "recompute")
    with pytest.raises(InternalError, match="only where it paused"):
        run.farm_out(local)
    kept = ExhaustiveRun(dag, 4, "recompute", keep_closed=True)
    kept.advance(time.monotonic())
    with pytest.raises(InternalError, match="farm keeps no closed configurations"):
        kept.farm_out(local)


@pytest.mark.parametrize("variant", ["recompute", "one-shot"])
@pytest.mark.parametrize("dag,memory", [(attention_forward(2, 1), 4),
                                        (attention_forward(2, 1), 5), (matmul(2, 2, 2), 4)])
def test_a_farmed_search_of_a_kernel_dag_finds_the_optimum(dag, memory, variant):
    alone = exhaustive_optimum(dag, memory, variant)
    for seed in range(3):
        result = _farmed(dag, memory, variant, None, random.Random(seed), capacity=4,
                         batch=8)
        assert result.complete and result.optimum == alone.optimum


def test_a_paused_farmed_search_has_proved_its_level():
    dag = attention_forward(2, 1)
    known = exhaustive_optimum(dag, 4, "recompute").optimum
    local = _LocalFarm(dag, 4, "recompute", random.Random(1), 3)
    run = ExhaustiveRun(dag, 4, "recompute", farm=local)
    levels = []
    while (result := run.advance(time.monotonic())) is None:  # a pause after every batch
        levels.append(run.level)
        assert not local.out  # it pauses only with no batch out
    assert levels == sorted(levels) and levels[-1] <= known == result.optimum


def test_a_state_cap_stops_a_farmed_search_with_its_level():
    dag = matmul(2, 2, 3)
    local = _LocalFarm(dag, 3, "recompute", random.Random(2), 2)
    result = exhaustive_optimum(dag, 3, "recompute", max_states=300, farm=local)
    assert not result.complete and "state budget of 300 states" in result.reason
    assert result.lower_bound <= exhaustive_optimum(dag, 3, "recompute").optimum


def test_closed_keys_are_refused_by_the_farmed_search():
    dag = matmul(2, 2, 2)
    local = _LocalFarm(dag, 4, "one-shot", random.Random(3), 2)
    with pytest.raises(InternalError, match="farm keeps no closed configurations"):
        exhaustive_optimum(dag, 4, "one-shot", keep_closed=True, farm=local)


def _framed(*payloads) -> io.BytesIO:
    return io.BytesIO(b"".join(farm.FRAME.pack(len(p)) + p for p in payloads))


def _answers(sink: io.BytesIO) -> list:
    sink.seek(0)
    out = []
    while (data := farm._receive(sink)) is not None:
        out.append(marshal.loads(data))
    return out


def test_a_worker_makes_the_successors_the_search_here_makes():
    dag = attention_forward(2, 1)
    search = ExhaustiveRun(dag, 3, "recompute").search
    start = search.input_mask << search.n
    h = search.heuristic(0, search.input_mask, 0)
    tasks = [(start, 0, h, True, 30)]
    sink = io.BytesIO()
    farm._worker(_framed(pickle.dumps((dag, 3, "recompute", 30.0, None, None)),
                         marshal.dumps((7, tasks))), sink)
    [(kind, tag, made)] = _answers(sink)
    assert (kind, tag) == ("made", 7)
    assert made == [search.successors(start, 0, h, True, 30)]
    assert made[0][1]  # the start has successors


def test_a_worker_past_its_deadline_cuts_every_configuration():
    dag = attention_forward(2, 1)
    search = ExhaustiveRun(dag, 3, "recompute").search
    start = search.input_mask << search.n
    assert farm._expansions(search, [(start, 0, 5, True, 30)] * 3, time.monotonic() - 1) \
        == [None, None, None]
    assert farm._expansions(None, [(start, 0, 5, True, 30)], time.monotonic() + 60) == [None]


def test_a_failing_worker_says_so_and_the_farm_raises_it():
    sink = io.BytesIO()
    farm._worker(_framed(pickle.dumps((matmul(2, 2, 2), 4, "no-such-variant", 30.0, None,
                                       None))),
                 sink)
    [(kind, why)] = _answers(sink)
    assert kind == "failed" and "no-such-variant" in why
    with pytest.raises(InternalError, match="expansion worker failed.*no-such-variant"):
        _collect_from([("failed", why)])
    with pytest.raises(MemoryError, match="out of memory"):
        _collect_from([("out of memory",)])
    with pytest.raises(InternalError, match="ended without its answer"):
        _collect_from([])


class _Ended:
    """A worker that has ended, having written ``messages``."""

    def __init__(self, messages):
        self.stdout = _framed(*(marshal.dumps(m) for m in messages))

    def wait(self):
        return 1


def _collect_from(messages):
    return farm.Farm([_Ended(messages)]).collect(time.monotonic() + 10)


def test_the_workers_agree_with_the_search_alone_and_end_with_the_block():
    dag = attention_forward(2, 1)
    alone = exhaustive_optimum(dag, 4, "recompute")
    with farm.workers(dag, 4, "recompute", time.monotonic() + 60, 2) as workers:
        assert workers is not None and len(workers.children) == 2
        result = exhaustive_optimum(dag, 4, "recompute", deadline=time.monotonic() + 60,
                                    farm=workers)
        children = workers.children
    assert result.complete and result.optimum == alone.optimum
    assert all(child.poll() is not None for child in children)


def test_without_a_thread_to_read_a_worker_the_search_goes_on_alone(monkeypatch):
    """A reader thread that cannot start ("can't start new thread": the address space is
    spent) is no crash: no farm, the workers started are ended, the search goes on alone."""
    started = []

    class _NoThread:
        def __init__(self, *args, **kwargs):
            pass

        def start(self):
            raise RuntimeError("can't start new thread")

    real = farm.start_child
    monkeypatch.setattr(farm, "start_child", lambda module: started.append(real(module))
                        or started[-1])
    monkeypatch.setattr(farm.threading, "Thread", _NoThread)
    dag = attention_forward(2, 1)
    with farm.workers(dag, 4, "recompute", time.monotonic() + 60, 2) as workers:
        assert workers is None
        assert started and all(child.poll() is not None for child in started)


def test_no_workers_when_each_would_have_too_little_memory(monkeypatch):
    """Half of the memory left split below CHILD_MIN_MEMORY a worker: none is started, and
    the search alone has its whole budget back."""
    resource = pytest.importorskip("resource")
    from ioverify.search import children

    used = children.address_space()
    if used is None:
        pytest.skip("this platform does not tell a process's address space")
    saved = resource.getrlimit(resource.RLIMIT_AS)
    tight = used + 2 * children.CHILD_MIN_MEMORY  # each of two workers gets half the minimum
    if saved[1] != resource.RLIM_INFINITY and tight > saved[1]:
        pytest.skip("the hard limit is below what the test needs")
    started = []
    monkeypatch.setattr(farm, "start_child", lambda module: started.append(module))
    resource.setrlimit(resource.RLIMIT_AS, (tight, saved[1]))
    try:
        with farm.workers(attention_forward(2, 1), 4, "recompute", time.monotonic() + 60,
                          2) as workers:
            assert workers is None
            assert resource.getrlimit(resource.RLIMIT_AS)[0] == tight
    finally:
        resource.setrlimit(resource.RLIMIT_AS, saved)
    assert started == []


def test_each_worker_gets_at_most_its_share_and_the_search_keeps_the_rest(monkeypatch):
    """Half of a large budget left would give each worker far more than its memos need: each
    is given WORKER_MEMORY, this process keeps the rest, and has its budget back after."""
    resource = pytest.importorskip("resource")
    from ioverify.search import children

    used = children.address_space()
    if used is None:
        pytest.skip("this platform does not tell a process's address space")
    saved = resource.getrlimit(resource.RLIMIT_AS)
    budget = used + 8 * farm.WORKER_MEMORY
    if saved[1] != resource.RLIM_INFINITY and budget > saved[1]:
        pytest.skip("the hard limit is below what the test needs")
    tasks = []
    monkeypatch.setattr(farm, "_started", lambda started, count, task: tasks.append(task))
    resource.setrlimit(resource.RLIMIT_AS, (budget, saved[1]))
    try:
        with farm.workers(attention_forward(2, 1), 4, "recompute", time.monotonic() + 60,
                          2) as workers:
            assert workers is None  # none started here: ``_started`` is a stand-in
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == budget
    finally:
        resource.setrlimit(resource.RLIMIT_AS, saved)
    assert [task[4] for task in tasks] == [farm.WORKER_MEMORY]


def test_farmed_workers_stop_at_the_deadline_with_the_level_proved():
    dag = attention_forward(2, 2)  # recompute at M = 3 is far from settled in 3 s
    deadline = time.monotonic() + 3
    with farm.workers(dag, 3, "recompute", deadline, 2) as workers:
        result = exhaustive_optimum(dag, 3, "recompute", deadline=deadline, farm=workers)
    assert not result.complete and "deadline" in result.reason
    assert 16 <= result.lower_bound <= 52  # the trivial bound and the best schedule known
    assert time.monotonic() < deadline + 2


def test_a_worker_killed_in_the_search_is_an_internal_error():
    dag = attention_forward(2, 2)
    deadline = time.monotonic() + 60
    with farm.workers(dag, 3, "recompute", deadline, 2) as workers:
        workers.children[0].kill()
        with pytest.raises(InternalError, match="ended without its answer"):
            exhaustive_optimum(dag, 3, "recompute", deadline=deadline, farm=workers)


@pytest.mark.parametrize("variant", ["recompute", "one-shot"])
def test_pebble_on_two_processes_farms_the_search_and_agrees(variant):
    dag = attention_forward(2, 1)
    said = []
    verdicts = [pebble(dag, 4, variant=variant, timeout=60, processes=processes,
                       abstraction=False, progress=said.append) for processes in (1, 2)]
    assert verdicts[0].io == verdicts[1].io == exhaustive_optimum(dag, 4, variant).optimum
    assert any("expansions on 2 processes" in line for line in said)


def test_a_malformed_message_or_stream_from_a_worker_is_an_internal_error():
    """A message that is not marshal data, or a frame whose length cannot be read (the
    reader runs out of memory), is an ``InternalError`` naming it, not a crash of its own."""
    garbled = _Ended([])
    garbled.stdout = _framed(b"\x00not marshal")
    with pytest.raises(InternalError, match="malformed message"):
        farm.Farm([garbled]).collect(time.monotonic() + 10)

    class _Huge:
        def read(self, size):
            if size == farm.FRAME.size:
                return farm.FRAME.pack(1 << 62)
            raise MemoryError

    out_of_step = farm.Farm([type("W", (), {"stdout": _Huge(), "wait": lambda self: 1})()])
    with pytest.raises(InternalError, match="malformed message.*longer than memory"):
        out_of_step.collect(time.monotonic() + 10)
