"""Effective difficulty, the threshold rule and retries (docs/rules.md §A.3, §A.8, §A.10).

S0 «Когда вы используете модификаторы, которые повышают сложность действия сверх 9, вы
можете, вместо этого, создать пороговое значение.» Only modifier points become threshold: a
Storyteller-set base of 10 stays 10 (AMB-A7). Without the threshold rule (Dark Ages) the
difficulty is clamped to 10.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from rules.errors import check_int, check_ints
from rules.profiles import Profile, RetryPenalty, check_profile

MODIFIER_LIMIT = 10


class DifficultyLabel(StrEnum):
    """How hard a difficulty is (§A.5); the words come from the profile's ``LabelSet``.

    The codes are shared by both books because they describe the same steps; only the wording
    differs (7 is S0 «Немного сложно» but S1 «Рискованно»). Neither book's table has 2 or 10:
    S0 calls 2 trivial and 10 almost impossible, S1 says the same in prose.
    """

    TRIVIAL = "trivial"  # 2
    EASY = "easy"  # 3 Легко
    ROUTINE = "routine"  # 4 Беспроблемно (S0) / Обычно (S1)
    STRAIGHTFORWARD = "straightforward"  # 5 Просто
    STANDARD = "standard"  # 6 Стандарт / Стандартно
    CHALLENGING = "challenging"  # 7 Немного сложно / Рискованно
    DIFFICULT = "difficult"  # 8 Сложно / Трудно
    EXTREMELY_DIFFICULT = "extremely_difficult"  # 9 Очень сложно / Очень трудно
    ALMOST_IMPOSSIBLE = "almost_impossible"  # 10


_LABELS = tuple(DifficultyLabel)


def difficulty_label(difficulty: int) -> DifficultyLabel:
    """The §A.5 label of a difficulty from 2 to 10."""
    check_int(difficulty, "difficulty", 2, 10)
    return _LABELS[difficulty - 2]


class Difficulty(BaseModel):
    model_config = ConfigDict(frozen=True)

    difficulty: int
    threshold: int


def check_base(base: int, profile: Profile, field: str = "difficulty") -> int:
    """A Storyteller-entered base must be inside the profile's range (S4: 4–10)."""
    check_profile(profile)
    return check_int(base, field, profile.difficulty_min, profile.difficulty_max)


def effective_difficulty(
    base: int,
    modifiers: Sequence[int],
    profile: Profile,
    *,
    explicit_threshold: int = 0,
    floor: int | None = None,
    validate_base: bool = True,
) -> Difficulty:
    """Base plus modifiers, normalised to 2–10 with the surplus as threshold (§A.8).

    ``validate_base=False`` is for system-computed bases (soak 6, Effects, Barrier), which
    AMB-A2 exempts from the profile's Storyteller range.
    """
    check_profile(profile)
    if validate_base:
        check_base(base, profile, "base")
    else:
        check_int(base, "base", 1, 13)
    mods = check_ints(modifiers, "modifiers", -MODIFIER_LIMIT, MODIFIER_LIMIT)
    check_int(explicit_threshold, "explicit_threshold", 0, 50)
    low = profile.computed_difficulty_min if floor is None else check_int(floor, "floor", 2, 10)
    total = sum(mods)
    raw = base + total
    if profile.threshold_rule and total > 0:
        cap = max(9, min(base, 10))
        if raw > cap:
            return Difficulty(difficulty=cap, threshold=explicit_threshold + raw - cap)
    if raw > 10:
        return Difficulty(difficulty=10, threshold=explicit_threshold)
    if raw < low:
        return Difficulty(difficulty=low, threshold=explicit_threshold)
    return Difficulty(difficulty=raw, threshold=explicit_threshold)


def retry_difficulty(base: int, attempt: int, profile: Profile) -> Difficulty:
    """Difficulty of the ``attempt``-th try after failures (S0 «третья повышает сложность на 2»)."""
    check_profile(profile)
    check_int(attempt, "attempt", 1, 100)
    n = attempt - 1
    if profile.retry_penalty is RetryPenalty.NONE:
        increase = 0
    elif profile.retry_penalty is RetryPenalty.ESCALATING_TRIANGULAR:
        increase = n * (n + 1) // 2
    else:
        increase = n
    return effective_difficulty(base, [min(increase, MODIFIER_LIMIT)], profile)
