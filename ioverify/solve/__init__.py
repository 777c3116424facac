"""The only door to Z3 and PySAT: queries (``query``) and back ends behind one protocol."""
