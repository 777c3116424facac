"""Certificates: the format and seal (``format``), the body written by ``check`` (``body``), and the re-check that re-derives them (``recheck``)."""
