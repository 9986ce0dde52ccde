"""The buttons of hidden rolls: «Раскрыть» and the campaign chooser in the private chat."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class RevealCallback(CallbackData, prefix="hr"):
    """«Раскрыть» under a hidden result in the Storyteller's private chat: the campaign
    (``table.scope.Campaign.button``: the chat, and its topic in a forum) and the number.
    An older button carries the chat's id alone, read as that chat's own game."""

    c: str
    s: int


class CampaignCallback(CallbackData, prefix="hc"):
    """A campaign button in the Storyteller's private chat: the campaign to roll for (a
    group's own game or a forum topic, ``table.scope.Campaign.button``; an older button
    carries the chat's id alone)."""

    c: str
