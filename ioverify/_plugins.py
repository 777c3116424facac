"""Extensions through entry points (``importlib.metadata``): a package adds DAG families
(group ``ioverify.families``), traced kernels (group ``ioverify.kernels``) and bound records
(group ``ioverify.bounds``) by declaring them in its metadata, e.g. in its ``pyproject.toml``::

    [project.entry-points."ioverify.families"]
    ladder = "my_package.families:LADDER"      # an ioverify.dag.registry.Family

    [project.entry-points."ioverify.kernels"]
    my-kernel = "my_package.my_kernel:SPEC"    # an ioverify.trace.kernel.KernelSpec

Every process that imports the registries sees them, spawned ``check`` workers and
``certificate check`` included, with no registration code run by hand.  An entry point's value
is the object, a list of them, or a callable returning either.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from ioverify.errors import InvalidArgument


def load(group: str, kind: type) -> list:
    """Every object the installed entry points of ``group`` provide, each a ``kind``; a broken
    entry point is an InvalidArgument naming it."""
    found = []
    for point in sorted(entry_points(group=group), key=lambda p: p.name):
        try:
            value = point.load()
            if callable(value) and not isinstance(value, kind):
                value = value()
        except Exception as error:  # a third party's code: name it, on one line
            raise InvalidArgument(f"entry point {point.name!r} of {group} ({point.value}) "
                                  f"cannot be loaded: {type(error).__name__}: {error}") from None
        for obj in value if isinstance(value, (list, tuple)) else [value]:
            if not isinstance(obj, kind):
                raise InvalidArgument(f"entry point {point.name!r} of {group} gives "
                                      f"{type(obj).__name__}, not a {kind.__name__}")
            found.append(obj)
    return found
