"""Z3 encodings (the only package besides ``ioverify.solve.query`` that touches Z3, always through
``ioverify.solve.query``): one module per search, one small function per rule or condition.

``pebbling`` (the red-blue pebble game over compute steps, with symmetry breaking from the
automorphisms of ``ioverify.dag.symmetry``), ``cnf`` (Z3's CNF of an encoding decided by a PySAT
solver), ``partition`` (S-partitions)."""
