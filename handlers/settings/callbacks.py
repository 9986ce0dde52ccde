"""The buttons of ``/lang`` and ``/rules``."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class LangCallback(CallbackData, prefix="lang"):
    code: str


class ProfileCallback(CallbackData, prefix="prof"):
    name: str


class HouseCallback(CallbackData, prefix="ho"):
    """A house-rules button: ``a`` the action (``t`` the list of groups, ``g`` a group, ``s``
    set switch ``i`` of group ``g`` to its value number ``x``, ``r`` reset group ``g``, ``R``
    reset all). A set carries the value, not "next", so a double tap sets it once."""

    a: str
    g: int = 0
    i: int = 0
    x: int = 0


class OldHouseCallback(HouseCallback, prefix="hr"):
    """The same button as first drawn, under the prefix it shared with the hidden rolls'
    «Раскрыть» (told apart only by field count); menus still posted in chats keep working."""


class SheetsCallback(CallbackData, prefix="shp"):
    """The /rules card's privacy button: ``o`` 1 opens the players' sheets, 0 closes them. It
    carries the value, not "toggle", so a double tap sets it once."""

    o: int
