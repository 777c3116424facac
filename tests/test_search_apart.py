"""The race on two cores (``ioverify.search.apart``): the search without the bound in a child
process agrees with the same search here, reports its proved level, hands back a failure as an
error, and never outlives the command."""

import io
import os
import pickle
import signal
import subprocess
import sys
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from ioverify.dag import attention_forward, matmul
from ioverify.errors import InternalError, InvalidArgument
from ioverify.game import abstraction
from ioverify.game.exhaustive import ExhaustiveRun, exhaustive_optimum
from ioverify.game.rules import VARIANTS
from ioverify.search import apart, children
from ioverify.search.pebbling import pebble


def _bound_run(dag, memory, variant, deadline, below=None):
    bound = abstraction.AbstractionBound(dag, memory, VARIANTS[variant], abstraction.parts_of(dag),
                                         deadline=deadline, nested=False)
    return ExhaustiveRun(dag, memory, variant, below=below, deadline=deadline,
                         max_states=2_000_000, bound=bound)


@pytest.mark.parametrize("variant", ["one-shot", "recompute"])
@pytest.mark.parametrize("memory", [3, 5])
def test_both_searches_find_the_optimum_of_one_process(variant, memory):
    dag = attention_forward(2, 1)
    known = exhaustive_optimum(dag, memory, variant)
    deadline = time.monotonic() + 60
    here, there = apart.race_apart(_bound_run(dag, memory, variant, deadline), deadline,
                                   2_000_000)
    done = [result for result in (here, there) if result.complete]
    assert done and all(result.optimum == known.optimum for result in done)
    for result in (here, there):  # the one stopped has proved a level at most the optimum
        assert result.complete or result.lower_bound is None or \
            result.lower_bound <= known.optimum


def test_a_child_stopped_by_the_deadline_keeps_its_last_level():
    # neither search finishes M = 3 recompute in 10 s (nor in 60 s), and even a child slow to
    # start on a loaded machine (CI beside another job: no report within 4 s) reports a level
    dag = attention_forward(2, 2)
    deadline = time.monotonic() + 10
    here, there = apart.race_apart(_bound_run(dag, 3, "recompute", deadline), deadline,
                                   2_000_000)
    assert not here.complete and not there.complete
    assert there.lower_bound is not None and 16 <= there.lower_bound <= 52
    assert time.monotonic() < deadline + apart.GRACE + 1


def test_the_state_cap_is_split_evenly():
    dag = matmul(2, 2, 3)
    deadline = time.monotonic() + 60
    here, there = apart.race_apart(_bound_run(dag, 3, "recompute", deadline), deadline, 200)
    assert not here.complete and not there.complete
    assert all("state budget of 100 states" in result.reason for result in (here, there))


def _messages(task, *orders) -> list:
    source = io.BytesIO(pickle.dumps(task) + b"".join(pickle.dumps(o) for o in orders))
    sink = io.BytesIO()
    apart._child(source, sink)
    sink.seek(0)
    messages = []
    while True:
        try:
            messages.append(pickle.load(sink))
        except EOFError:
            return messages


class _Child:
    """A finished child whose standard output held ``messages``."""

    def __init__(self, messages):
        self.stdout = io.BytesIO(b"".join(pickle.dumps(m) for m in messages))

    def wait(self):
        return 1


def _listen(messages) -> apart._Listener:
    listener = apart._Listener(_Child(messages))
    deadline = time.monotonic() + 10
    while not listener.over and time.monotonic() < deadline:
        listener.listen(wait=0.5)
    return listener


def test_the_child_reports_its_result_and_the_listener_keeps_it():
    dag = matmul(2, 2, 2)
    messages = _messages((dag, 4, "one-shot", None, 30.0, 10_000, None, 2))
    assert messages[-1][0] == "result"
    listener = _listen(messages)
    assert listener.finished
    assert listener.result().optimum == exhaustive_optimum(dag, 4, "one-shot").optimum


def test_a_child_told_to_farm_goes_on_with_workers_and_finds_the_optimum(monkeypatch):
    """THE HAND-OVER, the child's half: told to farm (an order after its task), it goes on
    from its next report with real workers (``ioverify.search.farm``) to the optimum."""
    from ioverify.search import farm

    started = []
    real = farm.workers

    def workers(*args):
        started.append(args[-1])
        return real(*args)

    monkeypatch.setattr(farm, "workers", workers)
    monkeypatch.setattr(apart, "REPORT_EVERY", 0.0)  # a report after every configuration
    dag = attention_forward(2, 1)
    messages = _messages((dag, 4, "recompute", None, 60.0, 1_000_000, None, 2), ("farm",))
    assert started == [2] and messages[0][0] == "level" and messages[-1][0] == "result"
    assert messages[-1][1].optimum == exhaustive_optimum(dag, 4, "recompute").optimum


def test_a_child_told_to_farm_may_store_the_whole_budget(monkeypatch):
    """THE HAND-OVER: the search here stops, so the child, given half the race's state
    budget, may then store all of it: a search that needs more than its half but less than
    the whole finishes once told, and stops at its half when not told."""
    monkeypatch.setattr(apart, "REPORT_EVERY", 0.0)
    dag = attention_forward(2, 1)
    states = exhaustive_optimum(dag, 4, "recompute").states
    half = states * 2 // 3  # the farmed search stores about as many as this one
    alone = _messages((dag, 4, "recompute", None, 60.0, half, None, 2))
    assert f"state budget of {half} states" in alone[-1][1].reason
    told = _messages((dag, 4, "recompute", None, 60.0, half, None, 2), ("farm",))
    assert told[-1][1].optimum == exhaustive_optimum(dag, 4, "recompute").optimum


class _Recipe:
    """A search whose bound's recipe is a string."""

    class bound:  # noqa: N801 - stands for the search's bound
        @staticmethod
        def recipe():
            return "the recipe"


class _Stalled:
    """A run paused at level 21, a few hundredths of a second per slice."""

    squeezed = False  # ``apart.relieve`` reads it: memory is never short here
    result = None

    dag, memory, variant = "dag", 3, "recompute"  # as ``apart._hand_back`` passes them on

    def __init__(self):
        self.seconds, self.level, self.slices = 0.0, 21, 0
        self.why: str | None = None  # why it was stopped, once it is
        self.caps: list[int] = []  # the state cap of each slice
        self.farm = None  # ``farm_out``'s workers
        self.search = _Recipe()  # its bound, whose recipe goes to the workers

    def advance(self, until, cap):
        assert self.why is None, "a stopped run is never advanced again"
        time.sleep(0.02)
        self.seconds += 0.02
        self.slices += 1
        self.caps.append(cap)
        return None

    def farm_out(self, workers):
        self.farm = workers

    def stopped(self, why):
        self.why = why


class _Climbing(_Stalled):
    """A run that gains a level at every doubling of its slices, from 18."""

    def advance(self, until, cap):
        super().advance(until, cap)
        self.level = 18 + self.slices.bit_length()


class _Ahead:
    """A listener whose child reports the levels of ``history`` (seconds, level)."""

    def __init__(self, history):
        self.history, self.seconds = history, history[-1][0] if history else 0.0
        self.level = history[-1][1] if history else None
        self.finished = self.handed_over = self.stopped = False
        self.seen: list[int] = []  # the levels passed on to the progress lines

    def listen(self):
        pass

    def stop(self):
        self.stopped = True

    def saw(self, level):
        self.seen.append(level)

    def hand_over(self):
        self.handed_over = True


@pytest.mark.parametrize("handing", [True, False])
def test_the_race_is_handed_over_to_a_child_forecast_ahead(handing):
    """A search here that stalls at 21 while the child climbs 3 levels a doubling, at 21
    now: after PROBE of the time (and only then) it stops and the child is told, unless the
    child has no workers to take it."""
    run, listener = _Stalled(), _Ahead([(1.0, 15), (2.0, 18), (4.0, 21)])
    total = 1.6
    start = time.monotonic()
    assert apart._search_here(run, listener, start + total, 100, 2 if handing else 1,
                              ExitStack()) is None
    assert listener.handed_over == handing
    # at the hand-over the run stops, letting go of its configurations for the child
    assert run.why == (apart.HANDED_OVER if handing else None)
    if handing:
        assert apart.PROBE * total - 0.03 <= run.seconds < apart.PROBE * total + 0.3
    else:
        assert time.monotonic() >= start + total


def test_the_race_is_not_handed_over_to_a_child_forecast_ahead_but_lower_now():
    """The hand-over cannot be undone: a child climbing 3 levels a doubling, forecast far
    ahead, does not take the race over while its level (20) is below the one here (21)."""
    history = [(0.1, 14), (0.2, 17), (0.4, 20)]
    run, listener = _Stalled(), _Ahead(history)
    start = time.monotonic()
    assert apart.forecast(history, 0.4, 0.8) > 24  # far ahead by the forecast alone
    assert apart._search_here(run, listener, start + 1.0, 100, 2, ExitStack()) is None
    assert not listener.handed_over and run.why is None
    assert time.monotonic() >= start + 1.0


def test_the_race_goes_on_while_the_search_here_is_not_behind():
    # a child that stalls one level lower: not behind by AHEAD_BY
    run, listener = _Stalled(), _Ahead([(1.0, 20), (4.0, 20)])
    start = time.monotonic()
    assert apart._search_here(run, listener, start + 1.0, 100, 2, ExitStack()) is None
    assert not listener.handed_over and not listener.stopped and time.monotonic() >= start + 1.0
    assert listener.seen and set(listener.seen) == {21}  # each slice's level, for the progress
    assert run.farm is None and set(run.caps) == {100}


@pytest.mark.parametrize("processes", [2, 1])
def test_the_race_is_handed_back_from_a_child_forecast_behind(monkeypatch, processes):
    """THE HAND-BACK: a child that stalls at 14 while the search here is at 21: after PROBE
    of the time (and only then) the child is stopped, the search here goes on with workers
    of its own for a search with the bound, ended when the race ends, and the whole state
    budget; never in one process (``processes`` 1)."""
    asked, ended, lines = [], [], []

    @contextmanager
    def workers(dag, memory, variant, deadline, count, bound=None):
        asked.append((dag, memory, variant, count, bound))
        try:
            yield "the workers"
        finally:
            ended.append(True)

    monkeypatch.setattr(apart.farm, "workers", workers)
    run, listener = _Climbing(), _Ahead([(1.0, 14), (4.0, 14)])
    total = 1.6
    start = time.monotonic()
    with ExitStack() as farmed:
        assert apart._search_here(run, listener, start + total, 100, processes, farmed,
                                  lines.append) is None
        assert not ended  # the workers outlive ``_search_here``, not the race
    assert time.monotonic() >= start + total and not listener.handed_over and run.why is None
    if processes == 1:
        assert not listener.stopped and run.farm is None and not asked
        return
    assert listener.stopped and run.farm == "the workers" and ended == [True]
    assert asked == [("dag", 3, "recompute", 2, "the recipe")]
    handed = run.caps.index(200)  # the cap doubles from the hand-back on
    assert set(run.caps[:handed]) == {100} and set(run.caps[handed:]) == {200}
    assert apart.PROBE * total - 0.03 <= 0.02 * handed < apart.PROBE * total + 0.3
    level = 18 + handed.bit_length()  # the level here after the slices before the hand-back
    assert lines == [f"{apart.HANDED_BACK} (none below 14 there, {level} here); the search "
                     "with the bound goes on with 2 processes"]


def test_the_race_is_not_handed_back_to_a_search_that_stalls():
    """A search here far above the child (21 against 14) but gaining nothing keeps the race
    going: it may have started high and stalled while the child climbs."""
    run, listener = _Stalled(), _Ahead([(1.0, 14), (4.0, 14)])
    start = time.monotonic()
    assert apart._search_here(run, listener, start + 1.0, 100, 2, ExitStack()) is None
    assert not listener.stopped and run.farm is None and set(run.caps) == {100}


def test_a_child_stopped_at_the_hand_back_keeps_its_last_level():
    """The listener's ``stop``: the child ended, its search stopped at the last level it
    reported, with the reason; no error for the end it was given."""
    dag = attention_forward(2, 2)
    deadline = time.monotonic() + 30
    run = _bound_run(dag, 3, "recompute", deadline)
    child = apart._start(run, 30.0, 5_000_000, None, 1)
    listener = apart._Listener(child)
    try:
        while listener.level is None and time.monotonic() < deadline:
            listener.listen(wait=0.5)
        listener.stop()
        assert child.poll() is not None
        listener.listen()  # the end it was given is no error
    finally:
        apart._end(child)
    result = listener.result()
    assert not result.complete and result.lower_bound == listener.level is not None
    assert result.reason.startswith(apart.HANDED_BACK)


def test_a_failing_child_is_an_internal_error():
    messages = _messages((matmul(2, 2, 2), 4, "no-such-variant", None, 30.0, 10_000, None, 2))
    assert messages[0][0] == "failed" and "no-such-variant" in messages[0][1]
    with pytest.raises(InternalError, match="second search failed.*no-such-variant"):
        _listen(messages)


def test_a_child_ending_without_its_result_is_an_internal_error():
    with pytest.raises(InternalError, match="ended without its result"):
        _listen([("level", 12, 100, 1.0)])


def test_a_child_out_of_memory_stops_at_its_last_level():
    listener = _listen([("level", 12, 100, 1.0), ("out of memory",)])
    result = listener.result()
    assert not result.complete and result.lower_bound == 12 and result.states == 100


@contextmanager
def _soft_limit():
    """Within the block, this process's soft address-space limit set high (its hard limit, or
    4 TiB): (``resource``, the limit, the limits before, its use); skipped where the platform
    has no limits or does not tell a process's use."""
    resource = pytest.importorskip("resource")
    used = children.address_space()
    if used is None:
        pytest.skip("this platform does not tell a process's address space")
    saved = resource.getrlimit(resource.RLIMIT_AS)
    limit = 1 << 42 if saved[1] == resource.RLIM_INFINITY else saved[1]
    resource.setrlimit(resource.RLIMIT_AS, (limit, saved[1]))
    try:
        yield resource, limit, saved, used
    finally:
        resource.setrlimit(resource.RLIMIT_AS, saved)


def test_the_memory_left_is_halved_during_the_race_and_the_budget_restored():
    """This process keeps what it uses and half of the rest; the child gets the other half."""
    with _soft_limit() as (resource, limit, _, used):
        with apart.halved_memory() as child:
            keep = resource.getrlimit(resource.RLIMIT_AS)[0]
            assert keep + child == limit
            assert limit // 2 < keep < limit // 2 + used  # its use, and half of the rest
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == limit


def test_the_hand_back_takes_the_child_share_back_and_the_budget_is_restored():
    """At the hand-back this process takes back the share the child had (its workers split
    it with it), and the race's end restores the budget as it was."""
    with _soft_limit() as (resource, limit, _, _):
        with apart.halved_memory() as child:
            assert children.reclaim_memory(child) == child
            assert resource.getrlimit(resource.RLIMIT_AS)[0] == limit
            assert children.reclaim_memory(None) == 0
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == limit


def test_the_workers_of_a_search_with_the_bound_may_hold_more(monkeypatch):
    """Each worker of a search with the bound holds its restricted searches too: it may take
    up to BOUND_WORKER_MEMORY of what is left, not WORKER_MEMORY."""
    asked = []

    @contextmanager
    def halved(most=None):
        asked.append(most)
        yield None

    monkeypatch.setattr(apart.farm, "halved_memory", halved)
    monkeypatch.setattr(apart.farm, "_started", lambda children, count, task: None)
    for bound in (None, "a recipe"):
        with apart.farm.workers(matmul(2, 2, 2), 4, "recompute", time.monotonic() + 5, 2,
                                bound=bound):
            pass
    assert asked == [2 * apart.farm.WORKER_MEMORY, 2 * apart.farm.BOUND_WORKER_MEMORY]


@pytest.mark.parametrize("limit, used, keep, give", [
    (6 << 30, 2 << 30, 4 << 30, 2 << 30),  # a large search: room to grow, not half the limit
    (6 << 30, 0, 3 << 30, 3 << 30),
    (6 << 30, 7 << 30, 6 << 30, 0),  # past its limit already: nothing to give
    (7, None, 3, 4)])  # use unknown: half the limit each
def test_the_split_keeps_the_use_and_halves_the_rest(limit, used, keep, give):
    assert children.split(limit, used) == (keep, give)


@pytest.mark.parametrize("limit, used, most, keep, give", [
    (12 << 30, 1 << 30, 4 << 30, 8 << 30, 4 << 30),  # half the rest is more: the cap
    (12 << 30, 8 << 30, 4 << 30, 10 << 30, 2 << 30),  # half the rest is less: the half
    (8, None, 1, 7, 1)])
def test_the_split_gives_the_children_at_most_their_cap(limit, used, most, keep, give):
    assert children.split(limit, used, most) == (keep, give)


def test_the_hand_over_lends_the_child_the_memory_not_used_here():
    """At the hand-over this process keeps its use and LEND_RESERVE, the child's limit grows
    by what that frees, the two together hold what they held, and the end of the race gives
    this process its limit back."""
    resource = pytest.importorskip("resource")
    if not hasattr(resource, "prlimit") or children.address_space() is None:
        pytest.skip("lending memory needs prlimit and /proc (Linux)")
    saved = resource.getrlimit(resource.RLIMIT_AS)
    hard = saved[1]
    limit = 1 << 40 if hard == resource.RLIM_INFINITY else hard
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            with apart.halved_memory() as give:
                resource.prlimit(child.pid, resource.RLIMIT_AS, (give, hard))  # as the race
                keep = resource.getrlimit(resource.RLIMIT_AS)[0]
                lent = children.lend_memory(child.pid)
                here = resource.getrlimit(resource.RLIMIT_AS)[0]
                there = resource.prlimit(child.pid, resource.RLIMIT_AS)[0]
                assert lent > 0 and here == keep - lent and there == give + lent
                assert here < children.address_space() + 2 * children.LEND_RESERVE
            assert resource.getrlimit(resource.RLIMIT_AS)[0] == limit
        finally:
            child.kill()
            child.wait()
        assert children.lend_memory(child.pid) == 0  # an ended child is lent nothing
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == limit
    finally:
        resource.setrlimit(resource.RLIMIT_AS, saved)


def test_no_race_apart_when_the_child_would_have_too_little_memory(monkeypatch):
    """Half of what is left below CHILD_MIN_MEMORY: no child, the caller races here."""
    resource = pytest.importorskip("resource")
    used = children.address_space()
    if used is None:
        pytest.skip("this platform does not tell a process's address space")
    saved = resource.getrlimit(resource.RLIMIT_AS)
    started = []
    monkeypatch.setattr(apart, "start_child", lambda module: started.append(module))
    dag = attention_forward(2, 1)
    deadline = time.monotonic() + 30
    run = _bound_run(dag, 3, "one-shot", deadline)
    tight = used + children.CHILD_MIN_MEMORY  # half of the rest is half the minimum
    if saved[1] != resource.RLIM_INFINITY and tight > saved[1]:
        pytest.skip("the hard limit is below what the test needs")
    resource.setrlimit(resource.RLIMIT_AS, (tight, saved[1]))
    try:
        assert apart.race_apart(run, deadline, 100_000) is None
    finally:
        resource.setrlimit(resource.RLIMIT_AS, saved)
    assert started == []


def test_processes_must_be_a_positive_integer():
    with pytest.raises(InvalidArgument, match="processes must be a positive integer"):
        pebble(matmul(2, 2, 2), 4, processes=0)


def _children_alive(module: str = "ioverify.search.apart") -> list[str]:
    alive = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if entry.name.isdigit() and module.encode() in line:
            alive.append(entry.name)
    return alive


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="looks for the child in /proc")
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("module,memory", [("ioverify.search.apart", "3"),
                                           ("ioverify.search.farm", "6")])
def test_a_signal_ends_the_command_and_its_child(tmp_path, name, module, memory):
    """Ctrl-C (or SIGTERM) while the two searches race (M = 3), or while the workers of
    ``ioverify.search.farm`` make a search's successors (M = 6): the command ends at once and
    its children with it."""
    from ioverify.dag.jsonio import dag_to_json

    path = tmp_path / "af22.json"
    path.write_text(dag_to_json(attention_forward(2, 2)))
    before = set(_children_alive(module))
    command = subprocess.Popen([sys.executable, "-m", "ioverify", "pebble", str(path), "-M",
                                memory, "--timeout", "120", "--jobs", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               # SIGINT as at a terminal even where the tests run with it
                               # ignored (a background job)
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    start, started = time.monotonic(), set()
    while not started and time.monotonic() < start + 60:
        # seen once is enough: the one-shot sub-search's race may end before the next look
        started = set(_children_alive(module)) - before
        time.sleep(0.2)
    assert started, "the search never started its children"
    time.sleep(1.0)
    sent = time.monotonic()
    command.send_signal(getattr(signal, name))
    command.wait(timeout=30)
    assert time.monotonic() - sent < 5
    time.sleep(0.5)
    assert not set(_children_alive(module)) - before
    assert "Traceback" not in command.stderr.read()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="looks for the workers in /proc")
def test_a_child_that_farmed_out_ends_its_workers_with_it():
    """THE HAND-OVER's end: the race ending (``apart._end``) ends the child and the workers it
    farmed out to, though they are in sessions of their own."""
    dag = attention_forward(2, 2)  # M = 3 in recompute: not settled within the minute
    run = ExhaustiveRun(dag, 3, "recompute", deadline=time.monotonic() + 60)
    before = set(_children_alive("ioverify.search.farm"))
    child = apart._start(run, 60.0, 2_000_000, None, 2)
    try:
        apart._Listener(child).hand_over()
        start = time.monotonic()
        while len(set(_children_alive("ioverify.search.farm")) - before) < 2 and \
                time.monotonic() < start + 30:
            time.sleep(0.2)
        assert len(set(_children_alive("ioverify.search.farm")) - before) == 2
    finally:
        apart._end(child)
    assert child.returncode == 128 + signal.SIGTERM  # it ended them itself, not killed
    time.sleep(0.5)
    assert not set(_children_alive("ioverify.search.farm")) - before


def test_jobs_is_a_single_cell_option_too(tmp_path, capsys):
    import json

    from ioverify.cli import main
    from ioverify.dag.jsonio import dag_to_json

    path = tmp_path / "af21.json"
    path.write_text(dag_to_json(attention_forward(2, 1)))
    answers = []
    for jobs in ("1", "2"):
        assert main(["pebble", str(path), "-M", "4", "--one-shot", "--timeout", "60", "--jobs",
                     jobs, "--json"]) == 0
        answers.append(json.loads(capsys.readouterr().out)["io"])
    assert answers[0] == answers[1] == exhaustive_optimum(attention_forward(2, 1), 4,
                                                          "one-shot").optimum


class _State:
    """What ``_race_with`` reads of a search's state."""

    def __init__(self, dag, memory):
        self.dag, self.memory, self.processes = dag, memory, 2
        self.deadline = time.monotonic() + 60

    def remaining(self):
        return max(0.001, self.deadline - time.monotonic())

    def out_of_time(self):
        return time.monotonic() >= self.deadline

    def report(self, what):
        pass

    def proved_so_far(self, level):
        pass


def test_without_a_child_process_the_race_takes_turns_here(monkeypatch):
    from ioverify.search import pebbling

    def refuse(*args, **kwargs):
        raise OSError("no process to be had")

    monkeypatch.setattr(apart.subprocess, "Popen", refuse)
    dag = attention_forward(2, 1)
    st = _State(dag, 3)
    assert apart.race_apart(_bound_run(dag, 3, "one-shot", st.deadline), st.deadline,
                            1000) is None
    bound = abstraction.AbstractionBound(dag, 3, VARIANTS["one-shot"], abstraction.parts_of(dag),
                                         deadline=st.deadline, nested=False)
    results = pebbling._race_with(st, bound, "abstraction", VARIANTS["one-shot"], None,
                                  2_000_000)
    known = exhaustive_optimum(dag, 3, "one-shot").optimum
    assert len(results) == 2 and any(r.complete and r.optimum == known for r in results)


def test_memory_is_pressed_past_the_share_of_the_soft_limit():
    with _soft_limit() as (resource, limit, saved, _):
        used = children.address_space()
        assert children.memory_pressed(share=used / limit / 2)
        assert not children.memory_pressed(share=min(1.0, 2 * used / limit))
    if saved[0] == resource.RLIM_INFINITY:
        assert not children.memory_pressed(share=0.0)  # no limit: never pressed


@pytest.mark.parametrize("processes", [1, 2])
def test_a_search_short_of_memory_is_squeezed_and_says_so(monkeypatch, processes):
    """With memory short at every pause, the searches in this process are squeezed
    (``ExhaustiveRun.squeeze``) at their first pause, the user is told, and the optimum is
    the same (attention_forward(2,1) at M = 3, recompute, 24)."""
    from ioverify.game import engine, exhaustive
    from ioverify.search import pebbling
    from ioverify.verdict import Optimal

    squeezed = []
    real = exhaustive.ExhaustiveRun.squeeze

    def squeeze(self):
        squeezed.append(self.variant)
        real(self)

    monkeypatch.setattr(apart, "memory_pressed", lambda: True)
    monkeypatch.setattr(engine, "search", lambda: exhaustive)
    monkeypatch.setattr(exhaustive.ExhaustiveRun, "squeeze", squeeze)
    monkeypatch.setattr(apart, "SLICE", 0.001)
    monkeypatch.setattr(pebbling, "HEARTBEAT", 0.001)
    monkeypatch.setattr(pebbling, "MIN_SLICE", 0.001)
    monkeypatch.setattr(pebbling, "RACE_SLICES", 10**6)
    lines: list[str] = []
    verdict = pebble(attention_forward(2, 1), 3, variant="recompute", timeout=120,
                     processes=processes, progress=lines.append)
    assert isinstance(verdict, Optimal) and verdict.io == 24
    assert "recompute" in squeezed
    assert any("memory is short" in line for line in lines), lines
