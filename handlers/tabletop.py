"""What the table-roll handlers (/ext, /vs, /team, /multi) share: the tap checks and the log.

Every button under these messages carries a flow id and the version it was drawn at, and
nothing in it is trusted: :func:`open_tap` loads the flow, refuses a closed, foreign or
garbled one with the same alerts as ``/r``, and answers a stale version quietly (a double
tap already did its work). Who may press is each feature's own rule, so it stays with them.
"""

from __future__ import annotations

from typing import Any

from aiogram import Bot
from aiogram.types import CallbackQuery, Chat, Message, User

from bot import render
from bot.state import ChatSettings, Flow, Store
from handlers.settings import is_admin
from rules.d10 import D10Result
from rules.difficulty import check_base
from rules.errors import check_int
from rules.profiles import Profile


async def open_tap(
    callback: CallbackQuery, flow_id: str, version: int, store: Store, kind: str
) -> tuple[Flow, Message] | None:
    """The flow behind a tap, or None once the tap has been answered with the reason."""
    message = callback.message
    flow = await store.load_flow(flow_id)
    if flow is None or flow.closed or not isinstance(message, Message):
        await callback.answer(render.closed_text(), show_alert=True)
        return None
    if flow.chat_id != message.chat.id or flow.kind != kind:
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return None
    if flow.version != version:
        await callback.answer()
        return None
    return flow, message


def check_pool(pool: int, profile: Profile, field: str = "pool") -> int:
    return check_int(pool, field, 1, profile.pool_sanity_max)


def check_difficulty(difficulty: int | None, profile: Profile) -> int:
    return check_base(profile.default_difficulty if difficulty is None else difficulty, profile)


def log_entry(user_id: int, name: str, pool: int, result: D10Result, kind: str) -> dict[str, Any]:
    """The same line a ``/r`` roll logs, plus which kind of table roll it belonged to."""
    return {
        "user_id": user_id,
        "name": name,
        "pool": pool,
        "difficulty": result.difficulty,
        "threshold": result.threshold,
        "willpower": result.willpower,
        "faces": list(result.faces),
        "successes": result.successes,
        "outcome": result.outcome.value,
        "attempt": 1,
        "kind": kind,
    }


async def is_storyteller(
    bot: Bot, chat: Chat, user: User | None, chat_settings: ChatSettings
) -> bool:
    """Who may play the NPC side: the chat's Storyteller once one has claimed the role with
    ``/st`` (issue 4 item 6); before that a chat administrator stands in, as for ``/rules``."""
    storyteller_id = getattr(chat_settings, "storyteller_id", None)
    if isinstance(storyteller_id, int):
        return user is not None and user.id == storyteller_id
    return await is_admin(bot, chat, user, None)
