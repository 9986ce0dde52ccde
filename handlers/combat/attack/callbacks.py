"""The attack panel's buttons; each carries the panel's flow id and the version drawn."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class AtkAction(StrEnum):
    REACH = "r"  # x: 0 melee, 1 ranged
    MANOEUVRE = "m"  # x: index in the reach's manoeuvres
    ABILITY = "ab"  # the next ability the manoeuvre allows (Драка / Фехтование)
    TARGET = "t"  # x: index in the panel's targets
    WEAPON = "w"  # x: the weapon's damage rating, 0 for bare Strength
    APPROACH = "ap"  # front → flank → rear
    COVER = "cv"  # the target's cover: none → partial → full
    OWN_COVER = "oc"  # the shooter's own cover: none → partial → full
    CALLED = "cs"  # a shot at a body part: +0 → +1 → +2 → +3 difficulty
    AIM = "aim"  # turns spent aiming: 0 → 1 → 2 → 3
    MOVE = "mv"  # metres moved: 0 → 1 → 2 → 3 → 5 → 10
    OFF_HAND = "oh"
    AMBUSH = "amb"  # the attacker won the ambush (§B.7): one attack before the fight
    ATTACK = "go"
    DEFEND = "d"  # x: 0 no defence, 1 dodge, 2 block/parry
    INTERRUPT = "i"  # x: 2 × the defence's index, + 1 for a point of Willpower spent
    DAMAGE = "dm"
    SOAK = "sk"
    CANCEL = "x"


class AtkCallback(CallbackData, prefix="atk"):
    f: str
    v: int
    a: AtkAction
    x: int = 0
