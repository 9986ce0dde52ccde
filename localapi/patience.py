"""How long the tests and benchmarks wait for something that should happen: one factor for all.

Every deadline they wait on (a process ready, a reply shown, a script finished) is written as
what an idle machine needs, and multiplied here by ``TEST_TIMEOUT_SCALE``. A wait ends as soon
as its condition holds, so a generous factor costs a passing run nothing; it only decides how
long a broken one takes to fail. The default is generous because the suite runs on two cores
beside other work, where importing aiogram alone can take tens of seconds: a fixed 30-second
wall there fails tests that are right. ``TEST_TIMEOUT_SCALE=1`` checks the figures as written
(an idle machine); a slower machine raises it.
"""

from __future__ import annotations

import os

SCALE_ENV = "TEST_TIMEOUT_SCALE"
DEFAULT_SCALE = 3.0


def timeout_scale() -> float:
    """The factor from the environment (read on each call, so a test may change it)."""
    raw = os.environ.get(SCALE_ENV, "").strip()
    if not raw:
        return DEFAULT_SCALE
    try:
        scale = float(raw)
    except ValueError:
        scale = 0.0
    if not scale > 0 or scale == float("inf"):
        raise ValueError(f"{SCALE_ENV} must be a positive number, not {raw!r}")
    return scale


def patient(seconds: float) -> float:
    """``seconds`` (what an idle machine needs) times the factor."""
    return seconds * timeout_scale()
