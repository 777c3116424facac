"""One exhaustive search's expansions on several processes (``_Search.farmed_steps``).

A search whose bound is only its own heuristic runs alone (``pebbling._search_once``), and
nearly all of its time goes into making the successors of the configurations it pops
(``_Search.successors``: the blocks and their heuristic values; attention_forward(2,2) at
M = 6 in recompute, 78 % of it).  Here those are made by WORKERS, fresh interpreters
(``python -m ioverify.search.farm``, ``children.start_child``), each holding the same search,
built from the same DAG, M and variant; this process keeps the queue, the configurations
stored and the closed orbits, and admits what comes back (``_Search._admit``).  A search with
the abstraction bound (the race's, once the search without it has fallen behind,
``ioverify.search.apart``) spends most of its time asking it: each worker then holds the same
bound, rebuilt from its recipe with the values it remembers (``AbstractionBound.recipe``),
and asks it for the successors it makes (``_Search.completed``).

Nothing a worker sends is a premise beyond what the same search run here would be: a worker
runs this process's ``successors`` on the configurations sent, and a schedule found is made
from this process's own records and replayed (``ExhaustiveRun._finish``, then the caller).
The level reached is proved as in one process (``farmed_steps``).  Limits:

- the workers stop at the same deadline (a batch it cuts comes back with None for the
  configurations it did not expand, and the search stops at the level it had proved);
- the memory budget (``--max-memory``, the soft address-space limit, when one is set) is
  shared: this process keeps what it uses and half of the rest, the workers split the other
  half (their memos; ``children.halved_memory``), each taking at most WORKER_MEMORY, and
  this process keeps what they do not take; a search that cannot have its workers (no
  process, no thread to read one, too little memory for them) goes on alone;
- whatever ends the search here (the answer, the deadline, the state cap, an exception, a
  signal) ends the workers before ``workers`` returns.

A worker that fails or ends without its answer is a bug: ``InternalError`` with what it said;
one out of memory makes the search here end as out of memory.  Messages are framed (an
8-byte length, then the bytes); batches and their successors travel as ``marshal`` data
(integers, floats, tuples and lists only), the task as a pickle.
"""

from __future__ import annotations

import marshal
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time
from contextlib import ExitStack, contextmanager

from ioverify.errors import DeadlineReached, InternalError
from ioverify.game import engine
from ioverify.game.abstraction import AbstractionBound
from ioverify.game.rules import VARIANTS
from ioverify.search.children import CHILD_MIN_MEMORY, halved_memory, start_child

FRAME = struct.Struct("<Q")
MALFORMED_STREAM = object()  # ``Farm._read``: a worker's stream out of step
IN_FLIGHT = 2  # batches a worker holds at once: one it works on, one waiting for it
# Each worker is given at most this much address space, the rest staying with the search
# here, whose configurations are what grows: a worker holds only its memos, each capped
# (``exhaustive._MEMO_MAX`` entries), 0.6 GB each in the searches measured
# (attention_forward(2,2) at M = 4 after 135 s; matmul(3,3,3) at M = 8, one-shot, after
# 336 s).  Half of the rest gave two workers 2.75 GiB each of a 12 GiB budget when the search
# here held 1 GiB, leaving it 6.5 GiB (attention_forward(3,1) at M = 5, recompute, ran out of
# memory at 544 s holding 6.0 GB resident; docs/performance.md).
WORKER_MEMORY = 2 * 2**30
# A worker holding the abstraction bound holds its restricted searches too (each up to
# ``abstraction.RESTRICTED_MAX_STATES`` configurations, about 430 MB): 1.6 GB at most in each of
# the two workers of attention_forward(2,2) at M = 4 in recompute, and with 2 GiB of what was
# left after the race's split one ran out of memory after 47 s.
BOUND_WORKER_MEMORY = 4 * 2**30


@contextmanager
def workers(dag, memory: int, variant: str, deadline: float, count: int,
            bound: tuple | None = None):
    """Within the block, a ``Farm`` of ``count`` workers holding the search of ``dag`` at
    ``memory`` in ``variant`` (with the abstraction bound of ``bound``, its recipe,
    ``AbstractionBound.recipe``) until ``deadline`` (a ``time.monotonic()`` value), or None if
    they cannot all be had: no process or no thread to read one (a process limit, no memory
    to start one), or less than CHILD_MIN_MEMORY of address space each.  With None the
    caller searches alone, with its whole memory budget."""
    children: list[subprocess.Popen] = []
    with ExitStack() as stack:
        each = WORKER_MEMORY if bound is None else BOUND_WORKER_MEMORY
        spare = stack.enter_context(halved_memory(most=count * each))
        stack.callback(_end_all, children)  # first at the end: the workers, then the budget
        share = None if spare is None else spare // count
        farm = None
        if share is None or share >= CHILD_MIN_MEMORY:
            farm = _started(children, count, (dag, memory, variant, deadline, share, bound))
        if farm is None:
            stack.close()  # the workers started, if any, end; the whole budget is back
        yield farm


def _started(children: list[subprocess.Popen], count: int, task: tuple) -> "Farm | None":
    """``count`` workers started into ``children``, each sent ``task`` (dag, M, variant,
    deadline, memory share, the bound's recipe; the deadline sent as the seconds left), and
    the ``Farm`` reading them; None if a process or a reader thread cannot be had."""
    dag, memory, variant, deadline, share, bound = task
    try:
        for _ in range(count):
            children.append(start_child("ioverify.search.farm"))
            _send(children[-1].stdin, pickle.dumps(
                (dag, memory, variant, deadline - time.monotonic(), share, bound)))
    except OSError:  # no process to be had (a process limit, no memory to start one)
        return None
    try:
        return Farm(children)
    except RuntimeError:  # "can't start new thread": no address space left for its stack
        return None


def _end_all(children: list[subprocess.Popen]) -> None:
    """End the workers (they end on the end of their input too) and close their pipes."""
    for child in children:
        if child.poll() is None:
            child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            try:
                stream.close()
            except OSError:  # a batch left in the buffer of a pipe no one reads
                pass


class Farm:
    """The workers as ``farmed_steps`` sees them: ``submit`` a batch, ``collect`` one back."""

    def __init__(self, children: list[subprocess.Popen]):
        self.children = children
        self.capacity = IN_FLIGHT * len(children)
        self.load = [0] * len(children)
        self.owner: dict[int, int] = {}  # batch tag -> the worker it went to
        self.inbox: queue.Queue = queue.Queue()
        for index, child in enumerate(children):
            threading.Thread(target=self._read, args=(index, child.stdout), daemon=True,
                             name=f"ioverify-farm-reader-{index}").start()

    def _read(self, index: int, stream) -> None:
        """A worker's messages as they come (a thread, so that no worker waits on a full
        pipe while this process writes to another), then None at its end, or
        MALFORMED_STREAM if a frame's length cannot be read (its stream is out of step)."""
        try:
            while (data := _receive(stream)) is not None:
                self.inbox.put((index, data))
        except (OSError, ValueError):
            pass
        except MemoryError:  # a length no frame has: ``collect`` reports it
            self.inbox.put((index, MALFORMED_STREAM))
            return
        self.inbox.put((index, None))

    def submit(self, tag: int, tasks: list) -> None:
        """Send a batch to the worker with the fewest out."""
        index = min(range(len(self.children)), key=self.load.__getitem__)
        try:
            _send(self.children[index].stdin, marshal.dumps((tag, tasks)))
        except OSError as error:  # its end of the pipe is closed: it has ended
            raise self._ended(index) from error
        self.load[index] += 1
        self.owner[tag] = index

    def _ended(self, index: int) -> InternalError:
        code = self.children[index].wait()
        return InternalError(f"an expansion worker ended without its answer (exit code {code})")

    def collect(self, deadline: float | None):
        """(tag, successors) of a batch sent, or None if ``deadline`` passes first."""
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            index, data = self.inbox.get(timeout=wait)
        except queue.Empty:
            return None
        if data is None:
            raise self._ended(index)
        if data is MALFORMED_STREAM:
            raise InternalError("an expansion worker sent a malformed message (a frame "
                                "longer than memory)")
        try:
            kind, *detail = marshal.loads(data)
        except (ValueError, EOFError, TypeError) as error:
            raise InternalError(f"an expansion worker sent a malformed message ({error})") \
                from None
        if kind == "out of memory":
            raise MemoryError("an expansion worker ran out of memory")
        if kind != "made":
            raise InternalError(f"an expansion worker failed: {detail[0]}")
        tag, made = detail
        self.load[self.owner.pop(tag)] -= 1
        return tag, made


def _send(stream, payload: bytes) -> None:
    stream.write(FRAME.pack(len(payload)) + payload)
    stream.flush()


def _receive(stream) -> bytes | None:
    """The next framed message, or None at the end of the stream."""
    head = stream.read(FRAME.size)
    if len(head) < FRAME.size:
        return None
    (size,) = FRAME.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        return None
    return data


def _worker(source, sink) -> None:
    """A worker: the task, then for each batch the successors of its configurations (None
    for each one the deadline cut), until the end of ``source``."""
    dag, memory, variant, seconds, memory_limit, recipe = pickle.loads(_receive(source))
    try:
        if memory_limit is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS,
                               (memory_limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        deadline = time.monotonic() + seconds
        module = engine.search()
        search = _search(module, dag, memory, variant, deadline, recipe)
        with module.FewerCollections():  # as the search it works for
            while (data := _receive(source)) is not None:
                tag, tasks = marshal.loads(data)
                _send(sink, marshal.dumps(("made", tag, _expansions(search, tasks, deadline))))
    except MemoryError:
        _send(sink, marshal.dumps(("out of memory",)))
    except Exception as error:  # noqa: BLE001 - reported to the parent, which raises it
        _send(sink, marshal.dumps(("failed", f"{type(error).__name__}: {error}")))


def _search(module, dag, memory: int, variant: str, deadline: float, recipe: tuple | None):
    """The worker's search (with the bound ``recipe`` describes, if any), or None if the
    deadline passed while it was built."""
    try:
        bound = None if recipe is None else AbstractionBound.rebuilt(
            dag, memory, VARIANTS[variant], recipe, deadline)
    except DeadlineReached:
        return None
    return module.ExhaustiveRun(dag, memory, variant, deadline=deadline, bound=bound).search


def _expansions(search, tasks: list, deadline: float) -> list:
    """The successors of each task's configuration, None for those the deadline cut (and for
    every one after the first it cut)."""
    made, cut = [], search is None  # none: the deadline passed while the search was built
    for reached, g, h, start, limit in tasks:
        cut = cut or time.monotonic() > deadline
        if not cut:
            try:
                one = search.successors(reached, g, h, start, limit, deadline)
                if one is not None and search.bound is not None:
                    one = search.completed(one, limit)
            except DeadlineReached:
                one = None
            cut = one is None
        made.append(None if cut else one)
    return made


if __name__ == "__main__":
    _worker(sys.stdin.buffer, sys.stdout.buffer)
