"""The buttons of ``/r``: the wizard's choices and «Ещё раз», «Продлить», «Автоуспех»."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class RollAction(StrEnum):
    """What a button under a roll does; short codes because callback_data is ≤ 64 bytes."""

    POOL = "p"
    DIFFICULTY = "d"
    WILLPOWER = "w"
    ROLL = "go"
    AUTO = "au"
    RETRY = "re"
    TRAIT = "t"  # x: the trait's place in the sheet's catalogue, toggled
    MODIFIER = "mo"  # x: the dice modifier + MODIFIER_SHIFT
    RECENT = "rp"  # x: one of the player's recent sheet pools
    EXTEND = "ex"  # «Продлить»: x=0 shows the targets, x=N turns the roll into an extended one


MODIFIER_SHIFT = 10  # callback numbers are not negative


class RollCallback(CallbackData, prefix="r"):
    """A tap on a roll's flow: which flow, the version the button was drawn at, the action."""

    f: str
    v: int
    a: RollAction
    x: int = 0
