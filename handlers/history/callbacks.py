"""The page buttons of ``/log``: stateless, so any copy of any page can be pressed."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class LogCallback(CallbackData, prefix="lg"):
    o: int  # how many of the newest entries come before this page


class SessionLogCallback(CallbackData, prefix="lgs"):
    """A page of one session's log (``/log session``)."""

    s: int  # the session's number
    o: int
