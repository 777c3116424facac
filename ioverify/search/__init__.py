"""Searches that return verdicts: exact pebbling (``pebbling``) and S-partitions (``partition``); every witness re-checked by the trusted base."""
