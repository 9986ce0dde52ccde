"""The team's state, stored as its flow: who rolled what, who is still choosing (§A.13)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from rules import d10
from table.store import FlowState

KIND = "team"


MAX_MEMBERS = 20  # a message stays well under Telegram's 4096 characters


class Member(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: int
    name: str
    pool: int
    result: d10.D10Result
    source: str | None = None  # the sheet's traits the pool came from, as shown


class TeamFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    leader: str
    difficulty: int
    target: int | None = None
    members: tuple[Member, ...] = ()
    pending: tuple[tuple[int, str], ...] = ()  # pressed «Помочь», pool not yet chosen
    closed: bool = False

    def has_rolled(self, user_id: int) -> bool:
        return any(m.user_id == user_id for m in self.members)

    def is_pending(self, user_id: int) -> bool:
        return any(uid == user_id for uid, _name in self.pending)
