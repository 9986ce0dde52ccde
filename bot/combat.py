"""What the combat features share without importing each other (ARCHITECTURE.md).

The round tracker (``handlers/initiative``) shows every participant's health; a change of
health made elsewhere (``/dmg``, ``/heal``, an attack) asks the tracker to redraw through
:data:`REFRESH_TRACKER`, so the one live message never lags behind the sheets; the attack
panel (``handlers/attack``) reads who fights through :data:`CURRENT_ROUND`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from aiogram import Bot
from aiogram.types import InlineKeyboardMarkup, Message

from bot.features import HandoffKey
from bot.store import AlsoStep, Flow, FlowState, Live, LogEntry, SheetSpend, Store
from rules.combat.tracker import Round
from rules.dice import Rng
from rules.health import HealthTrack
from rules.profiles import Profile

TRACKER = "init"  # the name of the chat's live tracker in the store (bot.store.flows.Live)
ATTACK = "atk"  # the chat's attack panel: one message for every attack of the fight
D6_TRACKER = "d6init"  # the d6 game's live tracker (handlers/d6init)


class RefreshTracker(Protocol):
    async def __call__(self, bot: Bot, store: Store, chat_id: int, profile: Profile) -> None: ...


REFRESH_TRACKER: HandoffKey[RefreshTracker] = HandoffKey("tracker.refresh")


@dataclass(frozen=True)
class TrackerStep:
    """The tracker's health step after a wound, to be stored with the wound's own step (one
    round-trip, docs/product.md §5), then shown where the tracker is."""

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


# ----- the d6 game (docs/rules.md §D.7–§D.9) ---------------------------------------------------


@dataclass(frozen=True)
class D6Side:
    """A d6 fighter as the tracker knows them: the key both features use (``u`` and the user
    id, or ``n:`` and the NPC's name), the name shown, the player (None: an NPC) and the dice
    the tracker rolled for them, the chance of a fighter with no power on their sheet."""

    key: str
    name: str
    user_id: int | None
    dice: int


@dataclass(frozen=True)
class D6Attack:
    """A d6 attack rolled for the tracker and not stored yet: the tracker stores it with its
    own step (one write), then posts it. ``spend``: what its roll changes on the attacker's
    sheet (the tricks waiting on it, §D.12), stored with the attack instead."""

    state: FlowState
    owner: int
    entries: tuple[LogEntry, ...]
    spend: SheetSpend | None
    draw: Callable[[Flow], tuple[str, InlineKeyboardMarkup | None]]


class D6OpenAttack(Protocol):
    async def __call__(
        self,
        store: Store,
        profile: Profile,
        chat_id: int,
        attacker: D6Side,
        target: D6Side,
        rng: Rng | None,
    ) -> D6Attack | str: ...


# «⚔️ Атака» on the d6 tracker, a target picked: the attack rolled from the attacker's sheet,
# or a refusal to show (nothing is spent); the tracker sets the attacker's die aside and stores
# the attack in the same step, then posts it with its defence buttons.
D6_OPEN_ATTACK: HandoffKey[D6OpenAttack] = HandoffKey("d6attack.open")


@dataclass(frozen=True)
class D6Defence:
    """The tracker's side of a defence under a d6 attack: the slowness it takes (§D.9), the
    defender's dice on the tracker, and the tracker's step to store with the defence's own
    (None: the defender already set their die aside with the tracker's «Защита»)."""

    slowness: int
    dice: int
    step: TrackerStep | None


class D6Defend(Protocol):
    async def __call__(
        self, store: Store, chat_id: int, profile: Profile, defender: str, attacker: str
    ) -> D6Defence | str | None: ...


# A defence under a d6 attack sets aside the defender's highest die on the tracker (§D.9): the
# step, drawn but not stored; a refusal to show (no dice left); None when the defender or the
# attacker is not on the tracker (the attack was typed outside the fight).
D6_DEFEND: HandoffKey[D6Defend] = HandoffKey("d6tracker.defend")
