"""The Effect wizard's and the cast's buttons; each carries the flow id and its version."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class MagickAction(StrEnum):
    LEVEL = "l"  # x: the highest Sphere's level, 1–5
    VULGAR = "v"  # coincidental ↔ vulgar
    WITNESSES = "w"
    QUINTESSENCE = "q"  # x: points spent, 0–3
    MODIFIER = "m"  # x: the Storyteller's modifier + 3 (0…6 for −3…+3)
    WILLPOWER = "wp"
    CAST = "go"  # «Сотворить»
    CANCEL = "x"
    BACKLASH = "b"  # «Отдача» under a cast that gained Paradox
    NAMED = "k"  # x: a §C.3 row (NAMED_MODIFIERS); each press steps through its values
    MODIFIERS = "ms"  # the wizard's panel of §C.3 rows, open (x = 1) or closed (x = 0)
    NEXT_ROLL = "n"  # a ritual's next roll
    ABANDON = "ab"  # a ritual given up
    PANEL = "p"  # x: 0 the cast, 1 allocating successes, 2 Correspondence, 3 Time (§C.7–§C.9)
    ADD = "a"  # x: which part gets one more success (PARTS)
    TAKE = "t"  # x: which part gives one back
    DAMAGING = "dg"  # a Forces Effect that hurts even with no success on damage (§C.7)
    MAGNITUDE = "mn"  # the successes the Effect needs: x = 0 one less, x = 1 one more (§C.6)
    MAGE_TOO = "mt"  # «маг тоже в зоне»: the mage is among the targets (AMB-C8)
    PERMANENT = "pm"  # the caster asks for a permanent Effect (AMB-C9)
    LINK_PLACE = "lp"  # x: the row of the place in the §C.8 table, 0–5; again: unnamed
    LINK_CONTACT = "lc"  # x: the row of the contact in the §C.8 table, 0–5; again: unnamed
    EXTEND = "e"  # «Продлить» under a cast: x = 0 shows the targets, x > 0 the successes to gather


class MagickCallback(CallbackData, prefix="mg"):
    f: str
    v: int
    a: MagickAction
    x: int = 0


class SphereCallback(CallbackData, prefix="sp"):
    """A reference card: no state behind it, so any press of any copy is fine (§C.16)."""

    s: str = ""  # the Sphere's code; empty: the list of the nine
    n: int = 0  # the level, 1–5; 0: the Sphere's five levels


class BarrierAction(StrEnum):
    PLACE = "p"  # x: the place's row in the table
    SHIFT = "s"  # x: the local shift + 2 (0…4 for −2…+2)
    ROLL = "r"  # a roll toward crossing
    STOP = "x"  # stay on this side


class BarrierCallback(CallbackData, prefix="br"):
    f: str
    v: int
    a: BarrierAction
    x: int = 0
