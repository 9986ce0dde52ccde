"""What the combat features share without importing each other (ARCHITECTURE.md).

The round tracker (``handlers/initiative``) shows every participant's health; a change of
health made elsewhere (``/dmg``, ``/heal``, an attack) asks the tracker to redraw through
:data:`REFRESH_TRACKER`, so the one live message never lags behind the sheets; the attack
panel (``handlers/attack``) reads who fights through :data:`CURRENT_ROUND`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from aiogram import Bot
from aiogram.types import InlineKeyboardMarkup, Message

from bot.features import HandoffKey
from bot.store import AlsoStep, Live, Store
from rules.combat.tracker import Round
from rules.health import HealthTrack
from rules.profiles import Profile

TRACKER = "init"  # the name of the chat's live tracker in the store (bot.store.flows.Live)
ATTACK = "atk"  # the chat's attack panel: one message for every attack of the fight


class RefreshTracker(Protocol):
    async def __call__(self, bot: Bot, store: Store, chat_id: int, profile: Profile) -> None: ...


REFRESH_TRACKER: HandoffKey[RefreshTracker] = HandoffKey("tracker.refresh")


@dataclass(frozen=True)
class TrackerStep:
    """The tracker's health step after a wound, to be stored with the wound's own step (one
    round-trip, PRODUCT.md §5), then shown where the tracker is."""

    step: AlsoStep
    live: Live
    drawn: tuple[str, InlineKeyboardMarkup | None]


class TrackerHealth(Protocol):
    async def __call__(
        self,
        store: Store,
        chat_id: int,
        profile: Profile,
        changed: Mapping[str, HealthTrack],
        knocked: frozenset[str] = frozenset(),
    ) -> TrackerStep | None: ...


# The tracker's next state with these participants' new health (by fighter key) and those
# ``knocked`` down by the hit, as read ahead; None when there is no tracker or nothing it
# shows changes.
TRACKER_HEALTH: HandoffKey[TrackerHealth] = HandoffKey("tracker.health")


@dataclass(frozen=True)
class Aftermath:
    """What a resolved attack changes in the round (by fighter key), besides health: who was
    knocked down or stunned (§B.8, §B.11), whose declared defence it used or who interrupted
    for it (§B.3 step 2), and whose action it was, so the tracker moves on by itself."""

    changed: Mapping[str, HealthTrack]
    knocked: frozenset[str] = frozenset()
    stunned: frozenset[str] = frozenset()
    defended: str | None = None
    interrupted: str | None = None
    resolved: str | None = None


class AfterAttack(Protocol):
    async def __call__(
        self, store: Store, chat_id: int, profile: Profile, aftermath: Aftermath
    ) -> TrackerStep | None: ...


# The tracker's next state after an attack, as read ahead, to be stored with the attack's own
# step; None when there is no tracker or nothing it shows changes.
AFTER_ATTACK: HandoffKey[AfterAttack] = HandoffKey("tracker.after_attack")


class StunTracker(Protocol):
    async def __call__(
        self, bot: Bot, store: Store, chat_id: int, profile: Profile, key: str, stunned: bool
    ) -> None: ...


# A wound typed with /dmg stunned the fighter ``key`` (or its soak saved them): the tracker
# skips their actions for this round and the next (§B.11) and shows the new health.
STUN_TRACKER: HandoffKey[StunTracker] = HandoffKey("tracker.stun")


class CurrentRound(Protocol):
    async def __call__(self, store: Store, chat_id: int) -> Round | None: ...


# The chat's open round (who fights, with which conditions), for the attack panel's targets.
CURRENT_ROUND: HandoffKey[CurrentRound] = HandoffKey("tracker.round")


class OpenAttack(Protocol):
    async def __call__(
        self,
        bot: Bot,
        store: Store,
        profile: Profile,
        message: Message,
        current: Round,
        key: str,
        name: str,
    ) -> str | None: ...


# «Атака» under the tracker opens the attack panel for the acting participant; the answer is
# a refusal to show, or None.
OPEN_ATTACK: HandoffKey[OpenAttack] = HandoffKey("attack.open")
