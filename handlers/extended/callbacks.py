"""The buttons of the extended action; each carries its flow's id and version."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class ExtAction(StrEnum):
    ROLL = "go"
    STOP = "st"


class ExtCallback(CallbackData, prefix="x"):
    f: str
    v: int
    a: ExtAction
