"""Helpers shared by the rules tests: a refusal's error code, and ready-made d10 results."""

from __future__ import annotations

from typing import Any

import pytest

from rules import d10
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import MAGE_REVISED, Profile


def refused(code: ErrorCode, fn: Any, *args: Any, **kwargs: Any) -> RulesInputError:
    """Call ``fn`` and require a ``RulesInputError`` with ``code``: the bot words its reply
    by the code, so a refusal with the wrong code is a wrong message in the chat."""
    with pytest.raises(RulesInputError) as info:
        fn(*args, **kwargs)
    assert info.value.code is code
    return info.value


def hits(n: int, profile: Profile = MAGE_REVISED) -> d10.D10Result:
    """A difficulty-6 roll with exactly ``n`` successes (n tens; a lone 2 for none)."""
    return d10.resolve([10] * n if n else [2], 6, profile)


def botched(profile: Profile = MAGE_REVISED) -> d10.D10Result:
    """A difficulty-6 botch: a 1 and no success (§A.5)."""
    return d10.resolve([1, 2], 6, profile)
