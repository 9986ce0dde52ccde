"""The buttons of several actions; each carries its flow's id and version."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class MultiAction(StrEnum):
    ROLL = "go"
    SPLIT = "sp"
    STOP = "st"


class MultiCallback(CallbackData, prefix="mu"):
    f: str
    v: int
    a: MultiAction
    x: int = 0
