"""The buttons of a d6 roll: the wizard's choices and the special effort under a result."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class D6Action(StrEnum):
    """Short codes: callback_data is at most 64 bytes."""

    POWER = "pw"  # x: the power's place on the sheet, toggled
    CHANCE = "c"  # x: a chance typed by button (no powers on a sheet)
    WEAKNESS = "wk"
    LUCK = "lk"  # x: luck dice to spend
    REQUIRED = "rq"  # x: measures the scenarist requires
    MODIFIER = "md"  # x: the modifier + MODIFIER_SHIFT
    ROLL = "go"
    EFFORT = "ef"  # x: 0 shows the prices, else EffortChoice
    BACK = "bk"


MODIFIER_SHIFT = 10  # callback numbers are not negative


class D6Callback(CallbackData, prefix="d6"):
    f: str
    v: int
    a: D6Action
    x: int = 0
