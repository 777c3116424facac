"""Z3 encodings (the only package besides ``ioverify.solve`` that touches Z3, always through
``ioverify.solve``): one module per search, one small function per rule or condition."""
