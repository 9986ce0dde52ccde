"""The bounds that keep a typo from becoming a 10 000-die roll, and helpers all of §C shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rules import profiles
from rules.d10 import Outcome
from rules.errors import (
    ErrorCode,
    RulesInputError,
    parse_enum,
)
from rules.profiles import Profile

# Limits on inputs that no rule sets but that keep a typo from becoming a 10 000-die roll.
MAX_SUCCESSES = 200
MAX_PARADOX_POOL = 500
MAX_RITUAL_ROLLS = 100


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True)


def _profile(profile: Profile | None) -> Profile:
    """The house Mage sheet is the default because §C is written from it."""
    if profile is None:
        return profiles.get("mage")
    if not isinstance(profile, Profile):
        raise RulesInputError(ErrorCode.TYPE, "profile", f"got {type(profile).__name__}")
    return profile


def _outcome(value: Outcome | str) -> Outcome:
    return parse_enum(Outcome, value, "outcome")
