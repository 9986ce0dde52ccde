"""A roll asked of one player by another feature than ``/ask`` (the Storyteller's screen):
what the requests feature serves (``ASK_ROLL``) and how the asker reads the answer back.

The request is ``/ask``'s own: a message in the campaign naming the player, with a button
only they press to roll from their sheet; its answer lands in that message and in the log.
The asker keeps the request's flow id and reads the answer from the flow as stored
(:func:`answer_in`), through the rules' own models, needing none of the feature's code.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiogram import Bot
from pydantic import ValidationError

from bot.features import HandoffKey
from rules.actions import PoolStatus
from rules.d10 import D10Result
from rules.profiles import Profile
from table.scope import Campaign
from table.store import Store


@dataclass(frozen=True)
class RollAsk:
    """Ask ``name`` (the player ``user_id``) of the campaign ``chat_id`` for a roll of the
    pool ``traits`` (trait names as typed, «perception+alertness») at ``difficulty``."""

    bot: Bot
    store: Store
    chat_id: int | Campaign  # the campaign: a chat, or a forum topic of it
    profile: Profile
    asker: str  # who asks, as shown («Mira»)
    asker_id: int
    user_id: int
    name: str
    traits: str
    difficulty: int
    locale: str | None = None  # the campaign's /lang, when it has one


# The request's flow id in the campaign, or why there is none in the presser's words.
Asked = str | Callable[[], str]
ASK_ROLL: HandoffKey[Callable[[RollAsk], Awaitable[Asked]]] = HandoffKey("ask-roll")


@dataclass(frozen=True)
class Answer:
    """A player's answer to a request: the roll, or the pool's status when nothing was
    rolled (the zero-Ability rule's failure, a pool emptied by wounds)."""

    status: PoolStatus
    result: D10Result | None


def answer_in(data: Mapping[str, Any] | None, user_id: int) -> Answer | None:
    """The answer ``user_id`` gave to the request stored as ``data``; None while they have
    not rolled (or the flow is not a request's)."""
    answers = data.get("answers") if data is not None else None
    if not isinstance(answers, list):
        return None
    for raw in answers:
        if not isinstance(raw, dict) or raw.get("user_id") != user_id:
            continue
        try:
            status = PoolStatus(str(raw.get("status")))
            result = raw.get("result")
            rolled = D10Result.model_validate(result) if result is not None else None
        except (ValueError, ValidationError):
            return None
        return Answer(status, rolled)
    return None
