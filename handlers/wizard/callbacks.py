"""The wizard's buttons: a choice of pool, difficulty or target, undo, and «Бросить»."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class SetupAction(StrEnum):
    POOL = "p"
    DIFFICULTY = "d"
    TARGET = "t"
    GO = "go"
    UNDO = "un"
    CANCEL = "x"


class SetupCallback(CallbackData, prefix="su"):
    f: str
    v: int
    a: SetupAction
    x: int = 0
