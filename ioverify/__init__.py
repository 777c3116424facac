"""ioverify: machine-checked claims about the I/O complexity of attention.

Heavy dependencies (Z3, SymPy, NumPy) are imported only by the modules that need them, so
``import ioverify`` stays cheap.
"""

from ioverify.errors import IOVerifyError

__version__ = "0.1.0"
__all__ = ["IOVerifyError", "__version__"]
