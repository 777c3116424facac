"""What every kernel module provides (``KernelSpec``), block helpers, planning by dry run, and
the float64 references.

parse -> plan -> apply: sizes are checked (parse), block sizes are derived from M by dry runs
on a shape-only traced memory (plan: the largest blocks whose peak fits), then the kernel runs
on the traced memory and its trace is certified (apply, in ``kernels.run_kernel``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ioverify.errors import InvalidArgument


@dataclass(frozen=True)
class KernelSpec:
    """One kernel: its sizes, arrays, loop nest, reference, planner and closed-form count.

    ``run(mem, arrays, sizes, blocks)`` is the loop nest (handles only); ``plan(spec, sizes,
    memory, literal)`` returns the block sizes; ``dry_sizes(sizes, blocks)`` returns sizes small
    enough to dry-run yet containing every block shape and loop case of the full run (so the
    dry-run peak is the full run's peak); ``count`` names the closed form in
    ``ioverify.bounds.kernel_counts``."""

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
    count: str
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


def blocks(total: int, size: int):
    """Consecutive (start, length) blocks of ``size`` covering ``range(total)``; the last may be
    shorter (uneven sizes)."""
    return [(s, min(size, total - s)) for s in range(0, total, size)]


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def check_sizes(spec: KernelSpec, sizes: dict) -> dict:
    """Parse: exactly the kernel's size names, each a positive integer."""
    unknown = set(sizes) - set(spec.sizes) - {o.name for o in spec.options} - {"blocks"}
    if unknown:
        raise InvalidArgument(f"kernel {spec.name!r} takes sizes {', '.join(spec.sizes)}, "
                              f"got unknown {sorted(unknown)[0]!r}")
    out = {o.name: o.parse(sizes.get(o.name, o.default)) for o in spec.options}
    for key in spec.sizes:
        value = sizes.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InvalidArgument(f"size {key} of kernel {spec.name!r} must be a positive "
                                  f"integer, got {value!r}")
        out[key] = int(value)
    return out


def dry_peak(spec: KernelSpec, sizes: dict, memory: int, blk: dict) -> int:
    """The peak fast-memory words of the kernel with blocks ``blk`` (shape-only dry run)."""
    from ioverify.trace.memory import TracedMemory

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


# --- float64 references -------------------------------------------------------------------------

def scores(inputs: dict) -> np.ndarray:
    """S = Q K^T (no 1/sqrt(d) scale: THEORY.md section 4's model)."""
    return inputs["Q"] @ inputs["K"].T


def softmax_reference(inputs: dict) -> dict:
    """O = softmax(QK^T) V with the row statistics m = rowmax(S), l = rowsum(exp(S - m)), and
    the logsumexp L = m + log l."""
    s = scores(inputs)
    m = s.max(axis=1, keepdims=True)
    e = np.exp(s - m)
    l = e.sum(axis=1, keepdims=True)
    return {"O": (e / l) @ inputs["V"], "m": m, "l": l, "L": m + np.log(l)}


def attention_arrays(sizes: dict) -> dict:
    n, d = sizes["n"], sizes["d"]
    return {"Q": (n, d), "K": (n, d), "V": (n, d)}


def attention_scale(sizes: dict) -> float:
    return float(sizes["d"]) ** -0.25


def flash_literal_blocks(sizes: dict, memory: int) -> dict:
    """FlashAttention's literal block sizes (Algorithm 1): B_c = ceil(M / 4d), B_r = min(B_c, d)."""
    bc = ceil_div(memory, 4 * sizes["d"])
    return {"block_r": min(bc, sizes["d"]), "block_c": bc}


def flash_dry_sizes(sizes: dict, blk: dict) -> dict:
    """Two blocks of the larger side show every block shape and loop case of a FlashAttention
    forward pass."""
    return {"n": min(sizes["n"], 2 * max(blk.values())), "d": sizes["d"]}
