"""The buttons under a d6 attack: defences and armour by chance, the call, and the gain."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class AttackAction(StrEnum):
    DEFEND = "d"  # x: the defender's chance
    ARMOUR = "a"  # x: the armour's chance
    RESOLVE = "r"
    EFFORT = (
        "ef"  # the presser's special effort on their own roll (x: 1 physical, 2 mental, 3 memory)
    )
    SPEND = "s"  # x: a GainChoice
    SHARE = "sh"  # splitting the gain: one measure to the foe at index x, as c (a ShareUse)
    UNDO = "u"  # splitting the gain: take the last measure back (none given: stop splitting)


class GainChoice(StrEnum):
    PHYSICAL = "p"  # «Всё в раны!» as a physical wound
    MENTAL = "m"  # … as a mental wound
    MANOEUVRE = "v"  # «Хитрая уловка!» as declared before the roll
    SHOVE = "k"  # §D.12 Толчок: knocked down −1, the rest bruises
    GRAPPLE = "g"  # §D.12 Захват: a hold −1, the rest wounds
    TAKE = "t"  # §D.12 Отнять предмет: a gain of 1 takes it
    POISON = "o"  # §D.12 Отравление: a wound that carries the poison into the body
    SPLIT = "x"  # §D.11 «Семерых одним ударом!», «Уловка с подвохом!»: the gain shared out
    BREAK = "b"  # §D.11 «Ломать и крушить!»: an item's durability (x: its threshold)


class ShareUse(StrEnum):
    """What one measure of a split gain becomes (§D.11)."""

    PHYSICAL = "p"
    MENTAL = "m"
    MANOEUVRE = "v"  # the manoeuvre declared before the roll: a foe's difficulty or an advantage


class D6AttackCallback(CallbackData, prefix="d6a"):
    f: str
    v: int
    a: AttackAction
    x: int = 0
    c: str = ""
