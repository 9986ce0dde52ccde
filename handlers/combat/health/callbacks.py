"""The button under a wound typed with ``/dmg``; it carries its flow's id and version."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class HealthAction(StrEnum):
    SOAK = "s"


class HealthCallback(CallbackData, prefix="hs"):
    f: str
    v: int
    a: HealthAction
