"""The kernel framework: what a kernel module provides (``KernelSpec``), block helpers, planning
by dry run, and running a kernel on the traced memory with its certification.

parse -> plan -> apply: sizes are checked (parse, ``check_sizes``), block sizes are derived from
M by dry runs on a shape-only traced memory (plan: the largest blocks whose peak fits), then the
kernel runs on a traced memory and its trace is certified against a contract built from the spec
and the request (apply, ``run_kernel`` / ``run_spec``; ``ioverify.trace.certify``), and its I/O is
compared with the closed form (``ioverify.bounds.kernel_counts``).  Nothing the kernel can touch
(its trace, the trace's M or array table) decides what is checked.

The kernels themselves live in ``ioverify.kernels`` (the repository's ``kernels/`` folder), one
module per kernel defining ``SPEC``.  This module reaches them only through the module names in
``ioverify.kernels.KERNEL_MODULES``, imported when the registry ``KERNELS`` is first read: that is
the one door from the trace layer up to the kernels.  Other packages add kernels by declaring a
``KernelSpec`` as an entry point of group ``ioverify.kernels`` (``ioverify._plugins``); they
join the registry at the same moment, in every process (spawned ``check`` workers and
``certificate check`` included).
"""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ioverify._check import physical_memory, positive, refuse_unused
from ioverify._plugins import load as installed
from ioverify.errors import InternalError, InvalidArgument
from ioverify.trace.certify import Certification, KernelContract, certify
from ioverify.trace.memory import TracedMemory
from ioverify.verdict import Certified, Evidence, Refuted, Verdict


class _Registry(Mapping):
    """name -> ``KernelSpec`` of every module in ``ioverify.kernels.KERNEL_MODULES`` and of every
    installed entry point of group ``ioverify.kernels``, imported on first use (so that the trace
    layer does not import the kernels when it is imported)."""

    def __init__(self):
        self._specs: dict | None = None

    def _load(self) -> dict:
        if self._specs is None:
            from ioverify.kernels import KERNEL_MODULES  # the one door up to the kernels

            specs = {spec.name: spec for spec in
                     (importlib.import_module(m).SPEC for m in KERNEL_MODULES)}
            for spec in installed("ioverify.kernels", KernelSpec):
                if spec.name in specs:
                    raise InvalidArgument(f"entry point kernel {spec.name!r} is already a "
                                          f"kernel")
                specs[spec.name] = spec
            self._specs = specs
        return self._specs

    def __getitem__(self, name: str):
        return self._load()[name]

    def __iter__(self):
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


KERNELS = _Registry()


@dataclass(frozen=True)
class KernelSpec:
    """One kernel: its sizes, arrays, loop nest, reference, planner and closed-form count.

    ``run(mem, arrays, sizes, blocks)`` is the loop nest (handles only); ``plan(spec, sizes,
    memory, literal)`` returns the block sizes; ``dry_sizes(sizes, blocks)`` returns sizes small
    enough to dry-run yet containing every block shape and loop case of the full run (so the
    dry-run peak is the full run's peak); ``count`` names the closed form in
    ``ioverify.bounds.kernel_counts``, or is the closed form itself, a SymPy expression whose
    symbols are named after the kernel's sizes and block sizes (how a kernel of another package,
    declared as an entry point, gives its count)."""

    name: str
    summary: str
    sizes: tuple
    inputs: Callable
    outputs: Callable
    scratch: Callable
    run: Callable
    reference: Callable
    plan: Callable
    dry_sizes: Callable
    count: object  # a name in ioverify.bounds.kernel_counts.KERNEL_COUNTS, or a SymPy expression
    tolerance: float = 1e-9
    input_scale: Callable = field(default=lambda sizes: 1.0)
    # Optional hooks (kernels of the backward/sparse/approximate issue): per-kernel options
    # (``KernelOption``s, parsed into the sizes dict), an input sampler
    # ``sample(sizes, blocks, rng)`` for inputs that must be consistent (O and L of a backward
    # pass) or bounded, and a reference that needs the sizes and blocks,
    # ``reference(inputs, sizes, blocks)``.
    options: tuple = ()
    sample: Callable | None = None
    sized_reference: bool = False
    extra: Callable | None = None  # extra(inputs, outputs, sizes, blocks) -> dict to report


@dataclass(frozen=True)
class KernelOption:
    """A non-size parameter of a kernel (CLI flag ``--name`` with ``_`` as ``-``): ``parse``
    turns a string or value into the value or raises InvalidArgument."""

    name: str
    parse: Callable
    default: object
    help: str
    # (another option, the values of it under which this one is used): the CLI refuses this
    # one given with any other value of that one, rather than ignore it
    only_with: tuple = ()


def blocks(total: int, size: int):
    """Consecutive (start, length) blocks of ``size`` covering ``range(total)``; the last may be
    shorter (uneven sizes)."""
    return [(s, min(size, total - s)) for s in range(0, total, size)]


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def check_sizes(spec: KernelSpec, sizes: dict) -> dict:
    """Parse: exactly the kernel's size names, each a positive integer, and its options, none
    given where another option's value leaves it unused (``density`` with a causal mask: a
    record of the run would say more than the run used)."""
    unknown = set(sizes) - set(spec.sizes) - {o.name for o in spec.options} - {"blocks"}
    if unknown:
        raise InvalidArgument(f"kernel {spec.name!r} takes sizes {', '.join(spec.sizes)}, "
                              f"got unknown {sorted(unknown)[0]!r}")
    out = {o.name: o.parse(sizes.get(o.name, o.default)) for o in spec.options}
    refuse_unused(f"kernel {spec.name!r}", {o.name: o.only_with for o in spec.options
                                            if o.only_with}, sizes, out.get)
    for key in spec.sizes:
        value = sizes.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InvalidArgument(f"size {key} of kernel {spec.name!r} must be a positive "
                                  f"integer, got {value!r}")
        out[key] = int(value)
    return out


def dry_peak(spec: KernelSpec, sizes: dict, memory: int, blk: dict) -> int:
    """The peak fast-memory words of the kernel with blocks ``blk`` (shape-only dry run)."""
    small = spec.dry_sizes(sizes, blk)
    mem = TracedMemory(memory, execute=False)
    arrays = declare(mem, spec, small, None)
    spec.run(mem, arrays, small, blk)
    return mem.trace.peak


def declare(mem, spec: KernelSpec, sizes: dict, inputs: dict | None) -> dict:
    """Declare the kernel's slow arrays on ``mem``; returns name -> handle."""
    arrays = {}
    for name, shape in spec.inputs(sizes).items():
        arrays[name] = mem.input(name, shape if inputs is None else inputs[name])
    for name, shape in spec.outputs(sizes).items():
        arrays[name] = mem.output(name, shape)
    for name, shape in spec.scratch(sizes).items():
        arrays[name] = mem.scratch(name, shape)
    return arrays


def largest_fitting(fits: Callable[[int], bool], high: int) -> int | None:
    """The largest b in 1..high with fits(b), by bisection (fits is monotone: bigger blocks,
    bigger working set); None if even 1 does not fit."""
    if not fits(1):
        return None
    lo, hi = 1, high
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def square_plan(keys: tuple, cap: Callable[[dict], int], literal=None):
    """A planner choosing one block side B for every key in ``keys``: the largest B <= cap(sizes)
    whose dry-run peak fits in M.  ``literal(sizes, memory)`` gives the paper's block sizes,
    used as they are (fitting or not) when asked for."""

    def plan(spec: KernelSpec, sizes: dict, memory: int, use_literal: bool) -> dict:
        if use_literal:
            if literal is None:
                raise InvalidArgument(f"kernel {spec.name!r} has no literal block sizes")
            return literal(sizes, memory)

        def fits(b):
            return dry_peak(spec, sizes, memory, {k: b for k in keys}) <= memory

        best = largest_fitting(fits, cap(sizes))
        if best is None:
            need = dry_peak(spec, sizes, memory, {k: 1 for k in keys})
            raise InvalidArgument(f"memory M = {memory} is too small for kernel {spec.name!r}: "
                                  f"even 1-wide blocks need {need} words")
        return {k: best for k in keys}

    return plan


def random_inputs(spec: KernelSpec, sizes: dict, seed, blk: dict | None = None) -> dict:
    """Standard normal inputs, scaled by ``spec.input_scale`` (attention: d^(-1/4), so that the
    scores QK^T are of order 1 and exp neither overflows nor underflows)."""
    rng = np.random.default_rng(seed)
    if spec.sample is not None:
        return spec.sample(sizes, blk, rng)
    scale = spec.input_scale(sizes)
    return {name: rng.standard_normal(shape) * scale for name, shape in spec.inputs(sizes).items()}


def reference_for(spec: KernelSpec, sizes: dict, blk: dict) -> Callable:
    """The reference as certification calls it, ``reference(inputs)``."""
    if spec.sized_reference:
        return lambda inputs: spec.reference(inputs, sizes, blk)
    return spec.reference


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


def judge(report: KernelReport, *, expect_certified: bool = True,
          lower_bounds=(), upper_bounds=()) -> Verdict:
    """The verdict on a kernel run: ``Certified`` when the trace was certified, its I/O equals
    the closed form, is at least every ``(bound id, value)`` of ``lower_bounds`` and at most
    every one of ``upper_bounds``; otherwise ``Refuted`` with the reason.  With
    ``expect_certified=False`` the claim is that certification fails on capacity."""
    io = report.io

    def refuted(claim, reason: str) -> Refuted:
        return Refuted(None, io, claim, "kernel", reason)

    def certified(**detail) -> Certified:
        return Certified(io, report.peak, report.formula, report.max_error,
                         Evidence("kernel-certification", detail))

    if not expect_certified:
        if report.certified:
            return refuted(None, "the kernel was certified, but the claim says certification "
                                 "fails")
        if "capacity exceeded" not in report.reason:
            return refuted(None, f"certification failed, but not on capacity: {report.reason}")
        return certified(failed_as_claimed=report.reason)
    if not report.certified:
        return refuted(None, f"certification failed: {report.reason}")
    if io != report.formula:
        return refuted(report.formula, f"traced I/O {io} differs from the closed form "
                                       f"{report.formula}")
    for bound_id, value in lower_bounds:
        if io < value:
            return refuted(math.ceil(value), f"certified kernel with {io} I/O beats lower bound "
                                             f"{bound_id} = {value}")
    for bound_id, value in upper_bounds:
        if io > value:
            return refuted(math.floor(value), f"traced I/O {io} exceeds upper bound {bound_id} "
                                              f"= {value}")
    return certified()


def get(name: str):
    try:
        return KERNELS[name]
    except KeyError:
        raise InvalidArgument(f"unknown kernel {name!r} (known: {', '.join(KERNELS)})") from None


def check_memory(memory) -> int:
    return positive("memory M", memory)


def plan(name: str, /, *, memory: int, literal_blocks: bool = False, **sizes) -> tuple:
    """Parse and plan: (spec, sizes, blocks); ``blocks=`` overrides the planner."""
    return plan_spec(get(name), memory=memory, literal_blocks=literal_blocks, **sizes)


def plan_spec(spec, /, *, memory: int, literal_blocks: bool = False, **sizes) -> tuple:
    """``plan`` for a ``KernelSpec`` that need not be in the registry."""
    check_memory(memory)
    given = sizes.pop("blocks", None)
    if given is not None and literal_blocks:
        raise InvalidArgument(f"kernel {spec.name!r}: blocks and literal_blocks together (the "
                              f"given blocks would override the literal ones): give one")
    if given is not None and (not isinstance(given, dict) or not given or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1
            for v in given.values())):
        raise InvalidArgument(f"kernel {spec.name!r}: blocks must map block names to positive "
                              f"integers, got {given!r}")
    parsed = check_sizes(spec, sizes)
    blocks = dict(given) if given else spec.plan(spec, parsed, memory, literal_blocks)
    return spec, parsed, blocks


def contract_for(spec, sizes: dict, memory: int):
    """What a run of ``spec`` at ``sizes`` must leave in its trace: M and the declared arrays
    with their roles and shapes, taken from the spec and the request, never from a trace."""
    return KernelContract.of(memory, inputs=spec.inputs(sizes), outputs=spec.outputs(sizes),
                             scratch=spec.scratch(sizes))


def closed_form(spec: KernelSpec, sizes: dict, blocks: dict) -> int:
    """The I/O that kernel ``spec`` moves at ``sizes`` with ``blocks``, by its closed form
    (``ioverify.bounds.kernel_counts``): planners compare block choices with it."""
    from ioverify.bounds.kernel_counts import evaluate  # SymPy: loaded when a count is asked

    return evaluate(spec.count, sizes, blocks)


def run_kernel(name: str, /, *, memory: int, seed: int = 0, literal_blocks: bool = False,
               **sizes) -> KernelReport:
    """Run kernel ``name`` on a traced memory of ``memory`` words, certify its trace, and count.
    Raises InvalidArgument on bad sizes or an M too small for any block; InternalError if a
    certified trace's I/O differs from the closed form (a wrong formula is a bug)."""
    return run_spec(get(name), memory=memory, seed=seed, literal_blocks=literal_blocks, **sizes)


def run_spec(spec, /, *, memory: int, seed: int = 0, literal_blocks: bool = False,
             **sizes) -> KernelReport:
    """``run_kernel`` for a ``KernelSpec`` that need not be in the registry (tests run cheating
    kernels through the real path with ``dataclasses.replace(KERNELS[name], run=cheat)``)."""
    from ioverify.bounds.kernel_counts import evaluate, formula

    spec, parsed, blocks = plan_spec(spec, memory=memory, literal_blocks=literal_blocks,
                                     **sizes)
    _check_fits(spec, parsed)
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


def _check_fits(spec: KernelSpec, sizes: dict) -> None:
    """Refuse an instance whose inputs alone (float64, twice: the slow memory and the
    certifier's copy) exceed this machine's memory, before anything is allocated (NumPy would
    fail with a MemoryError, or a ValueError past its own size limit)."""
    words = sum(math.prod(shape) for shape in spec.inputs(sizes).values())
    if 16 * words > (physical_memory() or 1 << 62):
        shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
        raise InvalidArgument(f"kernel {spec.name!r} at {shown} does not fit in this machine's "
                              f"memory: its inputs alone are {words} words of 8 bytes")


def _certify_run(spec, parsed, blocks, memory, seed, mem, trace, inputs):
    """Certify the trace the memory created against the contract of ``spec``."""
    if mem.trace is not trace:
        return Certification(False, "the kernel replaced the traced memory's trace with another "
                                    "object: only the trace the memory created is evidence")
    return certify(trace, contract_for(spec, parsed, memory), inputs,
                   _read_outputs(mem, spec.outputs(parsed)),
                   reference_for(spec, parsed, blocks), spec.tolerance,
                   probe_inputs=probe_for(spec, parsed, seed, blocks))


def probe_for(spec: KernelSpec, sizes: dict, seed, blk: dict | None = None) -> Callable:
    """The probe inputs of a certification, as a function of the trace's digest
    (``ioverify.trace.certify``, step 7): seeded by it, so drawn only once the trace is fixed,
    and reproducible from the same run."""
    return lambda digest: random_inputs(spec, sizes, [seed, 1, int(digest[:16], 16)], blk)


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


def count_only(name: str, /, *, memory: int, literal_blocks: bool = False, **sizes) -> tuple:
    """Dry run (shapes only, no arithmetic): (loads, stores, peak, blocks).  For sizes too large
    to compute; the counts do not depend on the data."""
    spec, parsed, blocks = plan(name, memory=memory, literal_blocks=literal_blocks, **sizes)
    mem = TracedMemory(memory, execute=False)
    spec.run(mem, declare(mem, spec, parsed, None), parsed, blocks)
    return mem.trace.loads, mem.trace.stores, mem.trace.peak, blocks


__all__ = ["KERNELS", "KernelOption", "KernelReport", "KernelSpec", "blocks", "ceil_div",
           "check_sizes", "closed_form", "contract_for", "count_only", "declare", "dry_peak", "get",
           "largest_fitting", "plan", "plan_spec", "probe_for", "random_inputs", "reference_for", "run_kernel",
           "run_spec", "square_plan"]
