"""What the Mini App asks of the features, by a typed key (bot/features.py): the chat's live
messages that show health (the d10 round tracker) redrawn after a sheet changed on the page,
as after a ``/dmg`` in the chat. The fight's feature serves it (handlers/combat)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram import Bot

from bot.features import HandoffKey
from rules.profiles import Profile
from table.store import Store

RefreshLive = Callable[[Bot, Store, int, Profile], Awaitable[None]]
REFRESH_LIVE: HandoffKey[RefreshLive] = HandoffKey("miniapp.refresh_live")
