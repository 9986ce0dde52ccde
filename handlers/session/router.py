"""``/session start`` and ``/session end``: a session of the campaign (docs/product.md §2b).

Starting draws the session's secret seed from the update's journal (``update_secret``: a run
again after a crash draws the same one, so the commitment posted is the one kept) and posts
its SHA-256; from then on the update's dice come from the seed (table/fairness.py, chosen by
the state middleware from the chat's settings). Ending reveals the seed. Only whoever runs
the game starts or ends one; anyone may ask whether one runs.
"""

from __future__ import annotations

import time

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import render
from bot.access import runs_game
from handlers.session import view
from rules.profiles import GameSystem, Profile
from table import fairness, vocabulary
from table.store import ChatSettings, Store, update_secret
from table.store.sessions import end_session, load_session, start_session


def make_router() -> Router:
    router = Router(name="session")
    router.message.register(session_command, Command("session"))
    return router


async def session_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
    profile: Profile,
) -> None:
    if message.chat.type == ChatType.PRIVATE:
        await message.answer(view.group_only_text())
        return
    word = (command.args or "").split()[0].casefold() if (command.args or "").split() else ""
    chat_id = message.chat.id
    if not word:
        running = chat_settings.session
        record = None if running is None else await load_session(store.redis, chat_id, running)
        await message.answer(view.status_text(record))
        return
    if word not in vocabulary.SESSION_START and word not in vocabulary.SESSION_END:
        await message.answer(view.unknown_word_text(word))
        return
    if not await runs_game(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    ):
        await message.answer(render.storyteller_only_text(d6=profile.system is GameSystem.D6))
        return
    if word in vocabulary.SESSION_START:
        seed = update_secret(store.scope, "session-seed", fairness.SEED_BYTES)
        record, fresh = await start_session(
            store, chat_id, seed.hex(), fairness.commitment(seed), time.time()
        )
        await message.answer(view.started_text(record) if fresh else view.running_text(record))
        return
    ended = await end_session(store, chat_id, time.time())
    await message.answer(view.none_running_text() if ended is None else view.ended_text(ended))
