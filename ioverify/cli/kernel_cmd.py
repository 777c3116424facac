"""``ioverify kernel NAME --n N --d D --memory M [--seed S] [--json] [--literal-blocks]``
(``--m --k --n`` for matmul-tiled) and ``ioverify kernel list``."""

from __future__ import annotations

from ioverify.cli.common import non_negative_int, positive_int, print_json, refuse_unused
from ioverify.errors import EXIT_OK

SIZE_FLAGS = ("m", "k", "n", "d")
# Per-kernel options (``KernelSpec.options``; parsed and checked by the kernel's own parsers).
# Listed here so the parser is built without importing the kernels; a test checks that this
# covers every option of every kernel.
OPTION_FLAGS = {  # name -> (metavar, help)
    "mask": ("causal|random", "block mask of the block-sparse kernels (default causal)"),
    "density": ("S", "fraction s of allowed blocks of a random block mask, in (0, 1] "
                     "(default 0.5)"),
    "degree": ("G", "degree g of the polynomial method (default 2)"),
    "entry_bound": ("B", "entries of Q, K, V drawn uniformly from [-B, B] (polynomial method, "
                         "default 0.5)"),
    "scale": ("sqrt-d|d|none", "scores approximated by the polynomial method: exp(q.k/sqrt(d)) "
                              "(default), exp(q.k/d) or exp(q.k)"),
}


def register(sub) -> None:
    p = sub.add_parser("kernel", help="run a traced kernel, certify its trace and count its I/O",
                       description="Run a reference kernel on a traced fast memory of M words, "
                                   "certify the trace by replay and compare its I/O with the "
                                   "closed form. NAME 'list' lists the kernels. Exit 0: "
                                   "certified; 1: certification failed; 2: bad input.")
    p.add_argument("name", help="kernel name, or 'list'")
    for flag in SIZE_FLAGS:
        p.add_argument(f"--{flag}", type=positive_int, default=None, help=f"size {flag}")
    for key, (metavar, text) in OPTION_FLAGS.items():
        p.add_argument(f"--{key.replace('_', '-')}", dest=f"option_{key}", default=None,
                       metavar=metavar, help=text)
    p.add_argument("--memory", "-M", type=positive_int, default=None, help="fast memory words M")
    p.add_argument("--seed", type=non_negative_int, default=None,
                   help="seed of the random inputs (default 0)")
    p.add_argument("--literal-blocks", action="store_true",
                   help="use the paper's block sizes, fitting or not")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_kernel)


def _kernel(args) -> int:
    from ioverify.errors import InvalidArgument
    from ioverify.trace.kernel import KERNELS, get, judge, run_kernel
    from ioverify.verdict import exit_code, to_json

    if args.name == "list":
        _nothing_to_run(args)
        return _list(KERNELS, args.json)
    spec = get(args.name)
    if args.memory is None:
        raise InvalidArgument("--memory M is required")
    sizes = {}
    for flag in SIZE_FLAGS:
        value = getattr(args, flag)
        if flag in spec.sizes:
            if value is None:
                raise InvalidArgument(f"kernel {spec.name!r} needs --{flag}")
            sizes[flag] = value
        elif value is not None:
            raise InvalidArgument(f"kernel {spec.name!r} takes "
                                  f"{' '.join('--' + s for s in spec.sizes)}, not --{flag}")
    sizes.update(_options(spec, args))
    try:
        report = run_kernel(spec.name, memory=args.memory,
                            seed=0 if args.seed is None else args.seed,
                            literal_blocks=args.literal_blocks, **sizes)
    except MemoryError as error:  # NumPy's arrays of an instance too large for the machine
        shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
        raise InvalidArgument(f"kernel {spec.name!r} at {shown} does not fit in this machine's "
                              f"memory: {error}") from None
    verdict = judge(report)
    if args.json:
        print_json({"status": verdict.status, **report.to_json(), "verdict": to_json(verdict)})
    else:
        print(_describe(report, verdict))
    return exit_code(verdict)


def _options(spec, args) -> dict:
    """The kernel's options given on the command line; an option it does not take is refused."""
    from ioverify.errors import InvalidArgument

    known = {option.name for option in spec.options}
    given = {}
    for key in OPTION_FLAGS:
        value = getattr(args, f"option_{key}")
        if value is None:
            continue
        if key not in known:
            raise InvalidArgument(f"kernel {spec.name!r} takes no option "
                                  f"--{key.replace('_', '-')}")
        given[key] = value
    options = {option.name: option for option in spec.options}
    refuse_unused(f"kernel {spec.name!r}", {o.name: o.only_with for o in spec.options
                                            if o.only_with}, given,
                  lambda name: options[name].parse(given.get(name, options[name].default)))
    return given


def _nothing_to_run(args) -> None:
    """``kernel list`` runs nothing: an option of a run given with it is refused, not ignored."""
    from ioverify.errors import InvalidArgument

    runs = [*SIZE_FLAGS, *(f"option_{key}" for key in OPTION_FLAGS), "memory", "seed"]
    given = [name for name in runs if getattr(args, name) is not None]
    given += ["literal_blocks"] if args.literal_blocks else []
    if given:
        shown = given[0].removeprefix("option_").replace("_", "-")
        raise InvalidArgument(f"kernel list runs no kernel: --{shown} applies to a run "
                              f"(ioverify kernel NAME ...)")


def _list(kernels, as_json: bool) -> int:
    if as_json:
        print_json([{"name": s.name, "sizes": list(s.sizes), "summary": s.summary,
                     "options": [o.name for o in s.options]} for s in kernels.values()])
    else:
        for spec in kernels.values():
            flags = " ".join([f"--{s}" for s in spec.sizes]
                             + [f"[--{o.name.replace('_', '-')}]" for o in spec.options])
            print(f"{spec.name:<24} {flags:<16} {spec.summary}")
    return EXIT_OK


def _describe(r, verdict) -> str:
    from ioverify.verdict import describe

    sizes = ", ".join(f"{k}={v}" for k, v in r.sizes.items())
    blocks = ", ".join(f"{k}={v}" for k, v in r.blocks.items())
    return "\n".join([
        f"kernel {r.name} ({sizes}, M={r.memory}; blocks {blocks})",
        f"loads       {r.loads}",
        f"stores      {r.stores}",
        f"total I/O   {r.io}",
        f"peak        {r.peak} of M = {r.memory} words",
        f"closed form {r.formula_expr} = {r.formula}",
        f"max error   {r.max_error:.3g} (vs float64 reference)",
        *[f"{key:<11} {value}" for key, value in r.extra.items()],
        f"verdict     {verdict.status}: {describe(verdict)}",
    ])
