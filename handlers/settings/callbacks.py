"""The buttons of ``/lang`` and ``/rules``."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class LangCallback(CallbackData, prefix="lang"):
    code: str


class ProfileCallback(CallbackData, prefix="prof"):
    name: str
