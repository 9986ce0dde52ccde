"""The buttons under a d6 project: an action rolled with the presser's chance, one that needs
no roll, and closing."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class ProjectAction(StrEnum):
    ROLL = "r"  # x: the presser's chance
    AUTO = "a"  # an action that needs no roll (S2 «бросать кубики не нужно»)
    CLOSE = "c"


class ProjectCallback(CallbackData, prefix="d6p"):
    f: str
    v: int
    a: ProjectAction
    x: int = 0
