"""What the two games' fights share, and what other features may know of a fight
(ARCHITECTURE.md).

Each game's fight is one feature (``handlers/combat``, ``handlers/d6combat``) whose parts call
each other directly; this module holds only the names of their live messages in the store, the
shape of a step on one of them stored with another message's step, and whether a chat fights.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup
from pydantic import ValidationError

from rules.combat import tracker
from table.scope import Campaign
from table.store import AlsoStep, Flow, Live, Store

TRACKER = "init"  # the name of the chat's live tracker in the store (table.store.flows.Live)
ATTACK = "atk"  # the chat's attack panel: one message for every attack of the fight
D6_TRACKER = "d6init"  # the d6 game's live tracker (handlers/d6combat)


@dataclass(frozen=True)
class TrackerStep:
    """The tracker's step after a wound or an attack, to be stored with that step's own (one
    round-trip, docs/product.md §5), then shown where the tracker is."""

    step: AlsoStep
    live: Live
    # None: the step changes nothing the tracker shows (a point of Willpower marked on the
    # round), so its message is left as it is.
    drawn: tuple[str, InlineKeyboardMarkup | None] | None


async def fighting(store: Store, chat_id: int) -> bool:
    """Whether the chat has a round tracker open: a fight makes durations count in turns
    (docs/rules.md §C.7)."""
    return await store.load_live(chat_id, TRACKER) is not None


@dataclass(frozen=True)
class WillpowerTurn:
    """A character's turn as the chat's d10 tracker holds it, for a roll that spends a point
    of Willpower (docs/rules.md §A.7, once a turn): the round, whether the character already
    spent a point in it, and the tracker's step that marks this one, to be stored in the
    roll's own transaction (strict: a tracker moved since stores nothing, and the roll is
    tried again on the fresh one)."""

    round_no: int
    spent: bool
    mark: TrackerStep | None


def fighter_key(user_id: int, npc: str | None) -> str:
    """The tracker's key of a player's character or of the Storyteller's NPC."""
    return tracker.npc_key(npc) if npc is not None else tracker.player_key(user_id)


def willpower_turn(loaded: tuple[Flow, Live] | None, key: str) -> WillpowerTurn | None:
    """The turn of ``key`` in the tracker as loaded (``Store.load_live(chat, TRACKER)``);
    None outside a fight, for one not in it, or once the fight is over: a roll there is its
    own moment, with no turn to count. Pure."""
    if loaded is None:
        return None
    flow, live = loaded
    raw = flow.data.get("round")
    if flow.closed or flow.data.get("ended") or not isinstance(raw, dict):
        return None
    try:
        current = tracker.Round.model_validate(raw)
    except ValidationError:
        return None
    if current.fighter(key) is None or current.phase is tracker.Phase.DONE:
        return None
    if current.spent_willpower(key):
        return WillpowerTurn(current.number, True, None)
    marked = tracker.spend_willpower(current, key)
    data = {**flow.data, "round": marked.model_dump(mode="json")}
    step = AlsoStep(flow, flow.version, data, flow.screen, strict=True)
    return WillpowerTurn(current.number, False, TrackerStep(step, live, None))


async def read_willpower_turn(
    store: Store, chat_id: int | Campaign, user_id: int, npc: str | None
) -> WillpowerTurn | None:
    """:func:`willpower_turn` of a character in the chat's open tracker, read now."""
    return willpower_turn(await store.load_live(chat_id, TRACKER), fighter_key(user_id, npc))
