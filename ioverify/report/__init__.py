"""Generated pages: claim pages (``claims``), plots, bound tables and the confrontation."""
