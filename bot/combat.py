"""What the combat features share without importing each other (ARCHITECTURE.md).

The round tracker (``handlers/initiative``) shows every participant's health; a change of
health made elsewhere (``/dmg``, ``/heal`` in ``handlers/health``) asks the tracker to redraw
through :data:`REFRESH_TRACKER`, so the one live message never lags behind the sheets
(PRODUCT.md "Combat").
"""

from __future__ import annotations

from typing import Protocol

from aiogram import Bot

from bot.features import HandoffKey
from bot.store import Store
from rules.profiles import Profile

TRACKER = "init"  # the name of the chat's live tracker in the store (bot.store.flows.Live)


class RefreshTracker(Protocol):
    async def __call__(self, bot: Bot, store: Store, chat_id: int, profile: Profile) -> None: ...


REFRESH_TRACKER: HandoffKey[RefreshTracker] = HandoffKey("tracker.refresh")
