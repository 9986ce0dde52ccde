"""The round tracker's flow: the round itself (``rules.combat.tracker``) and what the
message needs besides it — who is choosing a base by buttons, the Storyteller's open panel,
whether the bot pinned the message."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field

from bot.combat import TRACKER
from bot.store import FlowState
from handlers.initiative.callbacks import Panel
from rules.combat.tracker import Round
from rules.health import HealthTrack

KIND = TRACKER
ROUND_TTL = 7 * 86_400  # a fight may stretch over a week of evenings between sessions


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

    def is_pending(self, user_id: int) -> bool:
        return any(uid == user_id for uid, _name in self.pending)
