"""The buttons of a challenge; each carries its flow's id and version."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class VsAction(StrEnum):
    POOL = "p"
    DIFFICULTY = "d"
    ROLL_A = "ga"
    ROLL_B = "gb"
    CANCEL = "cx"


class VsCallback(CallbackData, prefix="o"):
    f: str
    v: int
    a: VsAction
    x: int = 0
