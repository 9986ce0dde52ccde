"""The buttons of inline mode; nothing in them is trusted (the offer is looked up by its id
in the campaign named, and its sender checked against the presser).

A campaign is written as ``table.scope.Campaign.button`` (the chat's id, and ``t`` and the
topic's thread id for a forum topic); a button of the release before topics carries the
chat's id alone, read as that chat's own game."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class InlineRollCallback(CallbackData, prefix="inl"):
    """«🎲 Бросить» under a message sent in inline mode: the offer and the campaign it rolls
    for (or its sender's own id). ``inl:`` + 12 + a topic's ``-100…t…`` fits in 64 bytes."""

    offer: str
    home: str


class CampaignCallback(CallbackData, prefix="inlc"):
    """A campaign chosen in the private chat for the player's inline rolls."""

    campaign: str
