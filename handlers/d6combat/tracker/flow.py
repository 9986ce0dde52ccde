"""The d6 round tracker's flow: the round of ``rules.d6.initiative`` and who is who."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from bot.combat import D6_TRACKER
from rules.d6.initiative import Round
from table.store import FlowState

KIND = D6_TRACKER
ROUND_TTL = 7 * 86_400  # a fight may stretch over a week of evenings between sessions


class Panel(StrEnum):
    NONE = ""
    CUT_IN = "cut"
    DEFEND = "def"
    GUARD = "grd"  # whom the presser protects (S3 «защищать себя или товарища»)
    GUARD_BY = "grdby"  # the Storyteller picks the NPC who protects someone
    REMOVE = "rm"  # whom «Убрать» takes out of the fight
    TARGET = "tgt"  # whom the one who is up attacks («⚔️ Атака»)


class Member(BaseModel):
    """How a participant is named on the tracker and whose they are (None: an NPC)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    user_id: int | None = None


class D6InitFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    round: Round | None = None
    members: dict[str, Member] = Field(default_factory=dict)
    panel: Panel = Panel.NONE
    guard_by: str | None = None  # the NPC the Storyteller picked to protect someone
    note: str = ""  # the last step, as the tracker says it (escaped)
    on_edge: dict[str, int] = Field(default_factory=dict)  # §D.8 after a round of waiting
    # the powers each fighter last attacked with (a typed /atk): «⚔️ Атака» rolls them again
    powers: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    ended: bool = False


def player_key(user_id: int) -> str:
    return f"u{user_id}"


def npc_key(name: str) -> str:
    return "n:" + " ".join(name.split()).casefold()
