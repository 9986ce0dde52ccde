"""Where dice faces come from (docs/rules.md §0.2 "Randomness").

Every rolling function takes an ``rng`` with ``randint(a, b)``; by default it is the
operating system's source, so a Storyteller can trust that nobody seeded the dice. Tests
inject ``random.Random(seed)`` and get repeatable rolls.
"""

from __future__ import annotations

import secrets
from typing import Protocol

from rules.errors import check_int


class Rng(Protocol):
    def randint(self, a: int, b: int) -> int: ...


_SYSTEM = secrets.SystemRandom()


def system_rng() -> Rng:
    return _SYSTEM


def roll_faces(count: int, sides: int, rng: Rng | None = None) -> list[int]:
    """``count`` independent faces of a ``sides``-sided die, each from 1 to ``sides``."""
    check_int(count, "count", 0, 1000)
    check_int(sides, "sides", 2, 1_000_000)
    source = rng if rng is not None else _SYSTEM
    return [source.randint(1, sides) for _ in range(count)]
