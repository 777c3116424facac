"""Reference tiled kernels on the traced two-level memory, and their registry.

``KERNELS`` maps a kernel's name to its ``KernelSpec``; it is built from ``KERNEL_MODULES``, so
adding a kernel is adding one module (defining ``SPEC``) and one line there.
``run_kernel`` (through ``run_spec``) parses the sizes, plans the blocks from M, runs the kernel
on a traced memory, certifies the trace by replay against a contract built from the spec and the
request (``contract_for``; ``ioverify.trace.certify``) and compares the I/O with the closed form
(``ioverify.bounds.kernel_counts``).  Nothing the kernel can touch (its trace, the trace's M or
array table) decides what is checked.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field

from ioverify.errors import InternalError, InvalidArgument

KERNEL_MODULES = (
    "kernels.attention_standard",
    "kernels.flash_forward_v1",
    "kernels.flash_forward_v2",
    "kernels.square_tiling_forward",
    "kernels.matmul_tiled",
    "kernels.flash_backward_v1",
    "kernels.flash_backward_v2",
    "kernels.square_tiling_backward",
    "kernels.block_sparse_forward",
    "kernels.block_sparse_backward",
    "kernels.polynomial_forward",
)

KERNELS = {spec.name: spec for spec in
           (importlib.import_module(module).SPEC for module in KERNEL_MODULES)}


@dataclass(frozen=True)
class KernelReport:
    """What one traced, certified run of a kernel found."""

    name: str
    memory: int
    sizes: dict
    blocks: dict
    loads: int
    stores: int
    peak: int
    formula: int
    formula_expr: object
    max_error: float
    certified: bool
    reason: str
    records: int = 0
    seconds: float = 0.0
    trace: object = field(default=None, repr=False, compare=False)
    extra: dict = field(default_factory=dict)  # kernel-specific findings (KernelSpec.extra)
    errors: dict = field(default_factory=dict)  # output -> relative error against the reference
    vertices: int = 0  # scalar vertices of the lowered pebble-game DAG
    game_replayed: bool = False  # the lowered schedule was replayed in the pebble game at M
    game: str = ""  # what the pebble-game replay found, or why it was skipped

    @property
    def io(self) -> int:
        return self.loads + self.stores

    def to_json(self) -> dict:
        return {"kernel": self.name, "memory": self.memory, "sizes": self.sizes,
                "blocks": self.blocks, "loads": self.loads, "stores": self.stores, "io": self.io,
                "peak": self.peak, "formula": self.formula, "formula_expr": str(self.formula_expr),
                "max_error": self.max_error, "certified": self.certified, "reason": self.reason,
                "records": self.records, "seconds": round(self.seconds, 3),
                "errors": self.errors, "vertices": self.vertices,
                "game_replayed": self.game_replayed, "game": self.game, **self.extra}


def get(name: str):
    try:
        return KERNELS[name]
    except KeyError:
        raise InvalidArgument(f"unknown kernel {name!r} (known: {', '.join(KERNELS)})") from None


def check_memory(memory) -> int:
    if isinstance(memory, bool) or not isinstance(memory, int) or memory < 1:
        raise InvalidArgument(f"memory M must be a positive integer, got {memory!r}")
    return memory


def plan(name: str, *, memory: int, literal_blocks: bool = False, **sizes) -> tuple:
    """Parse and plan: (spec, sizes, blocks); ``blocks=`` overrides the planner."""
    return plan_spec(get(name), memory=memory, literal_blocks=literal_blocks, **sizes)


def plan_spec(spec, *, memory: int, literal_blocks: bool = False, **sizes) -> tuple:
    """``plan`` for a ``KernelSpec`` that need not be in the registry."""
    from kernels.base import check_sizes

    check_memory(memory)
    given = sizes.pop("blocks", None)
    parsed = check_sizes(spec, sizes)
    blocks = dict(given) if given else spec.plan(spec, parsed, memory, literal_blocks)
    return spec, parsed, blocks


def contract_for(spec, sizes: dict, memory: int):
    """What a run of ``spec`` at ``sizes`` must leave in its trace: M and the declared arrays
    with their roles and shapes, taken from the spec and the request, never from a trace."""
    from ioverify.trace.certify import KernelContract

    return KernelContract.of(memory, inputs=spec.inputs(sizes), outputs=spec.outputs(sizes),
                             scratch=spec.scratch(sizes))


def run_kernel(name: str, *, memory: int, seed: int = 0, literal_blocks: bool = False,
               **sizes) -> KernelReport:
    """Run kernel ``name`` on a traced memory of ``memory`` words, certify its trace, and count.
    Raises InvalidArgument on bad sizes or an M too small for any block; InternalError if a
    certified trace's I/O differs from the closed form (a wrong formula is a bug)."""
    return run_spec(get(name), memory=memory, seed=seed, literal_blocks=literal_blocks, **sizes)


def run_spec(spec, *, memory: int, seed: int = 0, literal_blocks: bool = False,
             **sizes) -> KernelReport:
    """``run_kernel`` for a ``KernelSpec`` that need not be in the registry (tests run cheating
    kernels through the real path with ``dataclasses.replace(KERNELS[name], run=cheat)``)."""
    from ioverify.bounds.kernel_counts import evaluate, formula
    from ioverify.trace.memory import TracedMemory
    from kernels.base import declare, random_inputs

    spec, parsed, blocks = plan_spec(spec, memory=memory, literal_blocks=literal_blocks,
                                     **sizes)
    start = time.perf_counter()
    inputs = random_inputs(spec, parsed, [seed, 0], blocks)
    mem = TracedMemory(memory)
    trace = mem.trace  # the evidence is this object, whatever the kernel does to ``mem``
    spec.run(mem, declare(mem, spec, parsed, inputs), parsed, blocks)
    cert = _certify_run(spec, parsed, blocks, memory, seed, mem, trace, inputs)
    expected = evaluate(spec.count, parsed, blocks)
    if cert.certified and cert.io != expected:
        raise InternalError(f"kernel {spec.name!r} at {parsed}, blocks {blocks}: traced I/O "
                            f"{cert.io} differs from the closed form {expected}")
    outputs = _read_outputs(mem, spec.outputs(parsed))
    whole = set(outputs) == set(spec.outputs(parsed))
    extra = spec.extra(inputs, outputs, parsed, blocks) if spec.extra and whole else {}
    return KernelReport(spec.name, memory, parsed, blocks, trace.loads, trace.stores, trace.peak,
                        expected, formula(spec.count), cert.max_error, cert.certified,
                        cert.reason, len(trace.records), time.perf_counter() - start, trace,
                        extra, dict(cert.errors), cert.vertices, cert.game_replayed, cert.game)


def _certify_run(spec, parsed, blocks, memory, seed, mem, trace, inputs):
    """Certify the trace the memory created against the contract of ``spec``."""
    from ioverify.trace.certify import Certification, certify
    from kernels.base import random_inputs, reference_for

    if mem.trace is not trace:
        return Certification(False, "the kernel replaced the traced memory's trace with another "
                                    "object: only the trace the memory created is evidence")
    probe = random_inputs(spec, parsed, [seed, 1], blocks)
    return certify(trace, contract_for(spec, parsed, memory), inputs,
                   _read_outputs(mem, spec.outputs(parsed)),
                   reference_for(spec, parsed, blocks), spec.tolerance, probe_inputs=probe)


def _read_outputs(mem, names) -> dict:
    """The kernel's outputs as its memory holds them (absent ones left out: certification says
    what is missing)."""
    outputs = {}
    for name in names:
        try:
            outputs[name] = mem.read(name)
        except (KeyError, AttributeError, TypeError):
            continue
    return outputs


def count_only(name: str, *, memory: int, literal_blocks: bool = False, **sizes) -> tuple:
    """Dry run (shapes only, no arithmetic): (loads, stores, peak, blocks).  For sizes too large
    to compute; the counts do not depend on the data."""
    from ioverify.trace.memory import TracedMemory
    from kernels.base import declare

    spec, parsed, blocks = plan(name, memory=memory, literal_blocks=literal_blocks, **sizes)
    mem = TracedMemory(memory, execute=False)
    spec.run(mem, declare(mem, spec, parsed, None), parsed, blocks)
    return mem.trace.loads, mem.trace.stores, mem.trace.peak, blocks


__all__ = ["KERNELS", "KERNEL_MODULES", "KernelReport", "contract_for", "count_only", "get",
           "plan", "plan_spec", "run_kernel", "run_spec"]
