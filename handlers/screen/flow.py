"""The screen's state: which campaign it shows, which panel is open, and the roster as drawn."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from pydantic import ConfigDict

from table.scope import Campaign as TableCampaign
from table.store import FlowState

KIND = "screen"
SCREEN_TTL = 7 * 86_400  # a screen stays usable through an evening and the week after


class Panel(StrEnum):
    MAIN = "main"
    CHARACTER = "who"  # one character's buttons
    POOL = "pool"  # a secret roll: which pool
    DIFFICULTY = "diff"  # a secret roll: which difficulty


class Did(StrEnum):
    """What the screen's last press changed, shown under the roster."""

    DAMAGE = "damage"
    HEAL = "heal"
    WILLPOWER = "willpower"
    QUINTESSENCE = "quintessence"
    BLOOD = "blood"
    SECRET = "secret"
    REQUEST = "request"


class ScreenFlow(FlowState):
    kind: ClassVar[str] = KIND

    model_config = ConfigDict(frozen=True, extra="forbid")

    campaign: int  # the campaign's chat
    title: str
    # the forum topic whose campaign it shows (None: the chat's own game)
    thread: int | None = None
    panel: Panel = Panel.MAIN
    target: str | None = None  # the character's key: «u:ID» or «n:NAME»
    pool: int | None = None
    # The characters' keys in the order the buttons were drawn: a button's index means the
    # character it showed, even if someone joined the campaign since.
    roster: tuple[str, ...] = ()
    did: Did | None = None
    did_to: str | None = None
    did_what: str | None = None  # the damage letter (B, L, A) or the secret roll's pool
    asking: bool = False  # the pool and difficulty panels ask a player, not roll in secret
    # The last roll asked of a player from this screen: the request's flow in the campaign,
    # whom (their key), which pool and difficulty; its answer is read from the request.
    request: str | None = None
    request_to: str | None = None
    request_pool: int | None = None
    request_difficulty: int | None = None

    # A digest of the text /screen first drew, to tell a change of the campaign from none
    # before any press stored the screen's drawing (watch.py).
    opened: str | None = None

    @property
    def where(self) -> TableCampaign:
        """The campaign it shows: its chat, and its topic in a forum."""
        return TableCampaign(self.campaign, self.thread)

    def asked(self) -> tuple[str, int] | None:
        """The request's flow id and the player asked, while the screen keeps one."""
        key = self.request_to or ""
        if self.request is None or not key.startswith("u:") or not key[2:].isdigit():
            return None
        return self.request, int(key[2:])
