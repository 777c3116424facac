"""Reference tiled kernels on the traced two-level memory (installed as ``ioverify.kernels``).

Each module defines ``SPEC``, a ``ioverify.trace.kernel.KernelSpec``: its sizes, arrays, loop
nest, reference, planner and closed-form count.  ``KERNEL_MODULES`` is the registry, as data:
adding a kernel is adding one module and one line here.  The framework that runs and certifies
them, and the registry ``KERNELS`` built from this list, are ``ioverify.trace.kernel``.
"""

KERNEL_MODULES = (
    "ioverify.kernels.attention_standard",
    "ioverify.kernels.flash_forward_v1",
    "ioverify.kernels.flash_forward_v2",
    "ioverify.kernels.square_tiling_forward",
    "ioverify.kernels.matmul_tiled",
    "ioverify.kernels.flash_backward_v1",
    "ioverify.kernels.flash_backward_v2",
    "ioverify.kernels.square_tiling_backward",
    "ioverify.kernels.alman_song_backward",
    "ioverify.kernels.block_sparse_forward",
    "ioverify.kernels.block_sparse_backward",
    "ioverify.kernels.polynomial_forward",
)

__all__ = ["KERNEL_MODULES"]
