"""The button of a roll request: «Бросить» for each player asked."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class RequestAction(StrEnum):
    ROLL = "go"
    CLOSE = "end"


class RequestCallback(CallbackData, prefix="rq"):
    """A tap under a request: which flow and what. No version: every player taps the same
    button, and the handler applies each player's roll once whatever the version."""

    f: str
    a: RequestAction
