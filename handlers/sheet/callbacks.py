"""The buttons of the sheet editor: category, trait, value."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class SheetAction(StrEnum):
    CATEGORY = "c"
    TRAIT = "t"
    VALUE = "x"
    BACK = "b"
    DONE = "d"


class Category(StrEnum):
    ATTRIBUTES = "at"
    ABILITIES = "ab"
    SPHERES = "sp"
    VIRTUES = "vi"  # Dark Ages
    DISCIPLINES = "di"  # Dark Ages
    ADVANTAGES = "ad"  # Willpower, Arete, Humanity, Quintessence, Paradox
    D6 = "d6"  # weakness, luck dice (powers are named by the player: typed)


class SheetCallback(CallbackData, prefix="sh"):
    """A tap in the sheet editor: flow id, version drawn at, action, and its argument."""

    f: str
    v: int
    a: SheetAction
    k: str = ""
    x: int = 0


class RosterCallback(CallbackData, prefix="ro"):
    """A page of ``/sheet all`` or the ``/npc`` list: stateless, the lists are read afresh at
    each press (a page is «the n-th», so a sheet added since only shifts what follows)."""

    p: int  # the page, from 0
    n: int = 0  # 1: the NPC list alone
