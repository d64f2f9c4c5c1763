"""Hypothesis profiles for the property tests (tests/test_properties.py).

``nomercy`` (the default) runs each property with its full example count; ``fast`` runs
a few examples of each, for ``make check``. Pick one with ``NOMERCY_HYPOTHESIS_PROFILE``
(or pytest's ``--hypothesis-profile``).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "nomercy", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("fast", max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("NOMERCY_HYPOTHESIS_PROFILE", "nomercy"))
