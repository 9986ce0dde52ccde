"""The round tracker's flow: the round itself (``rules.combat.tracker``) and what the
message needs besides it — who is choosing a base by buttons, the Storyteller's open panel,
whether the bot pinned the message."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from bot.combat import TRACKER
from handlers.combat.tracker.callbacks import Panel
from rules.combat.damage import DiceTally
from rules.combat.tracker import Round
from rules.d10 import D10Result
from rules.health import HealthTrack
from table.store import FlowState

KIND = TRACKER
ROUND_TTL = 7 * 86_400  # a fight may stretch over a week of evenings between sessions


class NoteKind(StrEnum):
    INTERRUPT = "interrupt"  # S4 «Прерывание» (§B.3 step 2)
    STAND_UP = "stand_up"  # §B.8 «Чтобы сразу подняться»
    CELERITY = "celerity"  # §B.13 «Стремительность»: an extra action bought with blood


class Note(BaseModel):
    """What the last tap rolled on the tracker itself, shown under the round until the next
    step: an Interruption (a Willpower roll, or a point spent) or standing up at once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: NoteKind
    name: str
    ok: bool
    roll: D10Result | None = None  # None: a Willpower point spent instead
    willpower_left: tuple[int, int] | None = None  # (current, permanent) after a spend
    bashing: int = 0  # a botched stand-up's bashing level, before soak
    soak: DiceTally | None = None  # its soak, where the table allows one (AMB-B16)
    levels: int = 0  # what landed on the health track
    blood_left: int | None = None  # Celerity: the blood pool after its point


class InitFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    round: Round = Round()
    pending: tuple[tuple[int, str], ...] = ()  # pressed «Бросить» with no Dexterity + Wits
    panel: Panel = Panel.NONE
    picked: str | None = None  # the participant whose conditions the panel shows
    ended: bool = False
    # Each participant's health as last read from the sheets (on a command, or when health
    # changed elsewhere): a tap draws from here without reading every sheet again.
    health: dict[str, HealthTrack] = Field(default_factory=dict)
    note: Note | None = None
    # Who has made their ambush this fight (§B.7: one ambush attack per ambusher per fight).
    ambushed: tuple[str, ...] = ()

    def is_pending(self, user_id: int) -> bool:
        return any(uid == user_id for uid, _name in self.pending)
