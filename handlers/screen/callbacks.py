"""The screen's buttons: the flow's id and version, what the button does, and an index (a
character of the roster as drawn, a pool, a difficulty)."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class ScreenAction(StrEnum):
    REFRESH = "r"
    CHOOSE = "c"  # i: the character's place in the roster as drawn
    BACK = "b"
    BASHING = "db"
    LETHAL = "dl"
    AGGRAVATED = "da"
    HEAL = "h"
    WILLPOWER = "w"
    QUINTESSENCE = "q"
    BLOOD = "bl"
    SECRET = "s"  # a secret roll: the pools
    POOL = "p"  # i: the pool
    DIFFICULTY = "x"  # i: the difficulty: roll (or ask for the roll)
    REQUEST = "rq"  # a roll asked of the player: the pools


class ScreenCallback(CallbackData, prefix="scr"):
    f: str
    v: int
    a: ScreenAction
    i: int = 0
