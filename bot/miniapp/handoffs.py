"""What the Mini App asks of the features, by a typed key (bot/features.py) after a sheet
changed on the page, as after a ``/dmg`` in the chat: the chat's live messages that show
health (the d10 round tracker) redrawn, served by the fight's feature (handlers/combat), and
the campaign's open Storyteller's screen redrawn, served by the screen's (handlers/screen)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram import Bot

from bot.features import HandoffKey
from rules.profiles import Profile
from table.scope import Campaign
from table.store import Store

RefreshLive = Callable[[Bot, Store, int, Profile], Awaitable[None]]
REFRESH_LIVE: HandoffKey[RefreshLive] = HandoffKey("miniapp.refresh_live")

# The campaign's chat and the pointer to its open screen (``ChatSettings.screen``).
RefreshScreen = Callable[[Bot, Store, int | Campaign, str | None], Awaitable[None]]
REFRESH_SCREEN: HandoffKey[RefreshScreen] = HandoffKey("miniapp.refresh_screen")
