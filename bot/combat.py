"""What the two games' fights share, and what other features may know of a fight
(ARCHITECTURE.md).

Each game's fight is one feature (``handlers/combat``, ``handlers/d6combat``) whose parts call
each other directly; this module holds only the names of their live messages in the store, the
shape of a step on one of them stored with another message's step, and whether a chat fights.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup

from table.store import AlsoStep, Live, Store

TRACKER = "init"  # the name of the chat's live tracker in the store (table.store.flows.Live)
ATTACK = "atk"  # the chat's attack panel: one message for every attack of the fight
D6_TRACKER = "d6init"  # the d6 game's live tracker (handlers/d6combat)


@dataclass(frozen=True)
class TrackerStep:
    """The tracker's step after a wound or an attack, to be stored with that step's own (one
    round-trip, docs/product.md §5), then shown where the tracker is."""

    step: AlsoStep
    live: Live
    drawn: tuple[str, InlineKeyboardMarkup | None]


async def fighting(store: Store, chat_id: int) -> bool:
    """Whether the chat has a round tracker open: a fight makes durations count in turns
    (docs/rules.md §C.7)."""
    return await store.load_live(chat_id, TRACKER) is not None
