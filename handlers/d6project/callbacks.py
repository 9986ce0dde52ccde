"""The buttons under a d6 project: an action rolled with the presser's chance, and closing."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class ProjectAction(StrEnum):
    ROLL = "r"  # x: the presser's chance
    CLOSE = "c"


class ProjectCallback(CallbackData, prefix="d6p"):
    f: str
    v: int
    a: ProjectAction
    x: int = 0
