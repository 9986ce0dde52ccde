"""The buttons of inline mode; nothing in them is trusted (the offer is looked up by its id
in the campaign named, and its sender checked against the presser)."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class InlineRollCallback(CallbackData, prefix="inl"):
    """«🎲 Бросить» under a message sent in inline mode: the offer and the chat it rolls for
    (its campaign, or its sender's own id). ``inl:`` + 12 + a chat id fits in 64 bytes."""

    offer: str
    home: int


class CampaignCallback(CallbackData, prefix="inlc"):
    """A campaign chosen in the private chat for the player's inline rolls."""

    chat: int
