"""The buttons of ``/st``: taking the Storyteller's role or handing it over."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class StCallback(CallbackData, prefix="st"):
    """A tap on a claim or take-over confirmation: which flow, at which version."""

    f: str
    v: int
