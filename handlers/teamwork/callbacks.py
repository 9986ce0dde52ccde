"""The buttons of a team's effort; each carries its flow's id and version."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class TeamAction(StrEnum):
    JOIN = "j"
    POOL = "p"
    FINISH = "end"


class TeamCallback(CallbackData, prefix="tm"):
    f: str
    v: int
    a: TeamAction
    x: int = 0
