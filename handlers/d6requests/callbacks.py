"""The buttons under a d6 roll request: roll from my sheet, and close."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class D6RequestAction(StrEnum):
    ROLL = "r"
    CLOSE = "c"


class D6RequestCallback(CallbackData, prefix="d6q"):
    f: str
    v: int
    a: D6RequestAction
