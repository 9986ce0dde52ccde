"""The tracker's buttons; each carries the round's flow id and the version it was drawn at."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class InitAction(StrEnum):
    ROLL = "r"  # «Бросить инициативу»: the presser joins from their sheet
    BASE = "b"  # the presser's Dexterity + Wits, when the sheet lacks it (x)
    START = "go"  # the Storyteller: declarations begin
    DECLARED = "d"  # the declarer is done
    DECLARED_DEFENCE = "dd"  # the declarer is done, the last action a defence (§B.4)
    MORE = "m"  # the declarer declares one more action (§A.9)
    NEXT = "n"  # «Дальше»: the acting character's action is resolved
    DELAY = "w"  # «Отложить» (§B.2 III)
    ATTACK = "a"  # «Атака»: the acting participant's attack on the attack panel
    NEW_ROUND = "nr"
    END = "end"
    PANEL = "p"  # the Storyteller opens a panel (x: which) or closes it (x = 0)
    NPC_ADD = "na"  # add «НПС k» with base x
    REMOVE = "rm"  # remove the participant at index x
    PICK = "pk"  # the conditions panel: choose the participant at index x
    CONDITION = "c"  # toggle condition number x on the picked participant
    INTERRUPT = "ir"  # «Прерывание» by a Willpower roll: the participant at index x
    INTERRUPT_SPEND = "is"  # «Прерывание» for a point of Willpower: the participant at index x
    STAND_UP = "su"  # «Встать»: the acting participant, knocked down, gets up at once
    HASTEN = "ce"  # «Стремительность»: the declaring vampire buys an extra action with blood
    AMBUSH = "am"  # «Засада» (§B.7): the presser's character ambushes the participant at index x


class Panel(StrEnum):
    NONE = ""
    NPC = "npc"
    REMOVE = "rm"
    CONDITIONS = "cond"
    INTERRUPT = "int"  # who may interrupt the one acting (anyone at the table opens it)
    AMBUSH = "amb"  # whom to ambush before the fight (anyone in the fight opens it)


PANELS = tuple(Panel)  # x of PANEL is an index into this


class InitCallback(CallbackData, prefix="ini"):
    f: str
    v: int
    a: InitAction
    x: int = 0
