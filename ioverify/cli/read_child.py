"""Reading a large DAG file in a child process that can be ended at once.

``json.loads`` holds the interpreter for as long as it parses: on a DAG file of 189 MB
(attention_backward(300,2), 1,982,400 vertices) 13 s, then building the DAG about a minute,
and neither ``--timeout`` nor Ctrl-C nor SIGTERM could end a command before the parse did.
Past CHILD_READ_BYTES the file is read by a fresh interpreter (``python -m
ioverify.cli.read_child``, ``search.children.start_child``: in a session of its own, so a
Ctrl-C reaches only this process), which parses it, builds and checks the DAG as
``read_dag`` does, and sends it back in CHUNK-vertex pickles (names, predecessors, operations),
each quick to load, so that this process reads the clock and takes its signals between two.
At the deadline, on a signal or on any error here, the child is killed before the call
returns.  The child sends nothing but what ``read_dag`` made of the file, or the error it
raised (a one-line ``IOVerifyError``, as reading here would give), or that it ran out of
memory.  It gets half of the address space this process does not use yet and this process
keeps the rest (``search.children.halved_memory``), so that the two together stay within the
memory budget (``--max-memory``); before, each could take the whole budget.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import sys
import time

# Files past this size are read in a child: below it the parse holds the interpreter for less
# than about half a second (30 to 70 ms a MB measured on two shared cores).
CHILD_READ_BYTES = 8 * 2**20
CHUNK = 50_000  # vertices per message: about 50 ms to load
POLL = 0.1  # seconds between two looks at the clock while the child reads
_LENGTH = struct.Struct("<Q")


def read_dag_in_child(path: str, deadline: float | None):
    """The DAG of the file ``path``, read in a child process; None if the ``time.monotonic()``
    value ``deadline`` passes first.  The child is ended before this returns or raises."""
    from ioverify.search import children

    with children.halved_memory() as memory:
        child = children.start_child("ioverify.cli.read_child")
        try:
            child.stdin.write(b"-" if memory is None else b"%d" % memory)
            child.stdin.write(b"\n" + os.fsencode(path))
            child.stdin.close()
            return _received(_frames(child.stdout.fileno(), deadline), path, memory)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()


def _received(frames, path: str, memory: int | None):
    """The DAG the child's messages make up; None if they stop at the deadline."""
    from ioverify.dag.model import DAG

    names, preds, ops, count, outputs = [], [], [], None, ()
    while count is None or len(names) < count:
        message = next(frames, None)
        if message is None:
            return None
        if message[0] == "error":
            raise message[1]
        if message[0] == "memory":
            raise _out_of_memory(path, memory)
        if message[0] == "dag":
            _, count, outputs = message
            continue
        names.extend(message[0]), preds.extend(message[1]), ops.extend(message[2])
    return DAG(tuple(names), tuple(preds), tuple(ops), tuple(outputs))


def _out_of_memory(path: str, memory: int | None):
    from ioverify.errors import InvalidArgument

    given = "" if memory is None else f" ({memory / 2**20:.0f} MiB, half of what was left)"
    return InvalidArgument(f"reading the DAG file {path} needs more memory than its reader "
                           f"was given{given}: raise --max-memory, or use a smaller DAG")


def _frames(fd: int, deadline: float | None):
    """The child's messages (length-prefixed pickles) as they arrive; stops (the caller gets
    None) at the deadline.  A child that ends without its answer is a bug (InternalError)."""
    buffer = bytearray()
    while True:
        while len(buffer) < _LENGTH.size or \
                len(buffer) < _LENGTH.size + _LENGTH.unpack_from(buffer)[0]:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return
            ready, _, _ = select.select([fd], [], [], POLL if left is None else min(POLL, left))
            if ready:
                data = os.read(fd, 1 << 20)
                if not data:
                    from ioverify.errors import InternalError

                    raise InternalError("the process reading the DAG file ended without it "
                                        "(out of memory?)")
                buffer += data
        size = _LENGTH.unpack_from(buffer)[0]
        message = bytes(buffer[_LENGTH.size:_LENGTH.size + size])
        del buffer[:_LENGTH.size + size]
        yield pickle.loads(message)


def _send(out, message) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_LENGTH.pack(len(data)))
    out.write(data)
    out.flush()


def _child() -> None:
    """The child: its address-space limit in bytes ("-": none) and the path on standard input,
    the DAG (or the error, or "memory") on standard output."""
    out = sys.stdout.buffer
    limit, _, path = sys.stdin.buffer.read().partition(b"\n")
    if limit != b"-":
        import resource

        resource.setrlimit(resource.RLIMIT_AS,
                           (int(limit), resource.getrlimit(resource.RLIMIT_AS)[1]))
    try:
        _read_and_send(out, os.fsdecode(path))
    except MemoryError:
        _send(out, ("memory",))


def _read_and_send(out, path: str) -> None:
    from ioverify.dag.jsonio import read_dag
    from ioverify.errors import IOVerifyError

    try:
        dag = read_dag(path)
    except IOVerifyError as error:
        _send(out, ("error", error))
        return
    _send(out, ("dag", len(dag), dag.outputs))
    intern = sys.intern  # one string per operation name: pickles them once per chunk
    for i in range(0, len(dag), CHUNK):
        _send(out, (dag.names[i:i + CHUNK], dag.preds[i:i + CHUNK],
                    [intern(op) for op in dag.ops[i:i + CHUNK]]))


if __name__ == "__main__":
    _child()
