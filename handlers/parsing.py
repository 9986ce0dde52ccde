"""Reading the words players type after ``/r`` and ``/prob`` (PRODUCT.md §2 "Simple roll").

At the table nobody reads a manual, so the grammar is small and forgiving about case and
order: the first number is the pool (запас кубиков), the second the difficulty (сложность),
``wp``/``св`` spends Willpower (Сила Воли, §A.7), and the threshold (пороговое значение, §A.8)
is ``t2``, ``пор2`` or ``+2``. This module only reads the syntax; the ranges belong to the
rules and the chat's profile, which the handler checks through ``rules`` so that a profile
with a 4–10 difficulty range (S4) refuses a 3 in the same words as the rules do.

Pure: no aiogram, no words shown to anyone (problems are enum codes).
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

# A number is at most a few ASCII digits: Python's int() would accept "٧" or a 4000-digit
# string, and neither is something a player meant as a pool.
_NUMBER = re.compile(r"[0-9]{1,6}", re.ASCII)
_THRESHOLD = re.compile(r"(?:t|пор|\+)(-?[0-9]{1,6})", re.ASCII | re.IGNORECASE)
_THRESHOLD_LIKE = re.compile(r"(?:t|пор|\+)[-=]?[0-9-]", re.ASCII | re.IGNORECASE)
_WILLPOWER_WORDS = frozenset({"wp", "св"})


class Problem(StrEnum):
    """Why a line could not be read; the bot turns each into one localised hint."""

    POOL_MISSING = "pool_missing"
    NOT_A_NUMBER = "not_a_number"
    THRESHOLD_SYNTAX = "threshold_syntax"
    TOO_MANY_NUMBERS = "too_many_numbers"
    REPEATED = "repeated"


class ArgumentsError(ValueError):
    """A line that is not a roll; ``token`` is what the player typed wrong (may be empty)."""

    def __init__(self, problem: Problem, token: str = "") -> None:
        self.problem = problem
        self.token = token
        super().__init__(f"{problem.value}: {token!r}")


class RollArguments(BaseModel):
    """What was typed; ``difficulty`` None means the profile's default (S1 «…равна 6»)."""

    model_config = ConfigDict(frozen=True)

    pool: int
    difficulty: int | None = None
    willpower: bool = False
    threshold: int = 0


def parse_roll_arguments(text: str | None) -> RollArguments:
    """Read ``7 8 wp t1`` (any order after the numbers' own order); raise ArgumentsError."""
    numbers: list[int] = []
    willpower = False
    threshold: int | None = None
    for token in (text or "").split():
        word = token.casefold()
        if _NUMBER.fullmatch(word):
            if len(numbers) == 2:
                raise ArgumentsError(Problem.TOO_MANY_NUMBERS, token)
            numbers.append(int(word))
        elif word in _WILLPOWER_WORDS:
            if willpower:
                raise ArgumentsError(Problem.REPEATED, token)
            willpower = True
        elif (match := _THRESHOLD.fullmatch(word)) is not None:
            if threshold is not None:
                raise ArgumentsError(Problem.REPEATED, token)
            value = int(match.group(1))
            if value < 0:
                raise ArgumentsError(Problem.THRESHOLD_SYNTAX, token)
            threshold = value
        elif _THRESHOLD_LIKE.match(word):
            raise ArgumentsError(Problem.THRESHOLD_SYNTAX, token)
        else:
            raise ArgumentsError(Problem.NOT_A_NUMBER, token)
    if not numbers:
        raise ArgumentsError(Problem.POOL_MISSING)
    return RollArguments(
        pool=numbers[0],
        difficulty=numbers[1] if len(numbers) > 1 else None,
        willpower=willpower,
        threshold=threshold or 0,
    )
