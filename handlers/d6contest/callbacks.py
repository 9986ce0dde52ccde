"""The buttons under a d6 contest: a side joins with its chance, and «Итог»."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class ContestAction(StrEnum):
    JOIN = "j"  # x: the presser's chance
    RESOLVE = "r"


class ContestCallback(CallbackData, prefix="d6v"):
    f: str
    v: int
    a: ContestAction
    x: int = 0
