"""Test configuration: Hypothesis profiles (``ci`` is chosen when the CI variable is set)."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture
def z3_only(monkeypatch):
    """Switch off the exhaustive search inside ``ioverify.search.pebbling.pebble``, so that the Z3
    encodings (and what checks them) are what a test exercises."""
    from ioverify.search import pebbling as search

    monkeypatch.setattr(search, "_exhaustive", lambda st, claim: "off: Z3 only")
