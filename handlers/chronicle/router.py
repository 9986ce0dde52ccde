"""``/chronicle``: the session (or the campaign) sent as two documents (docs/product.md §2b).

A Markdown file, which ``docs/verify_session.py`` checks against the revealed seed, and a
self-contained HTML page for a phone or a printer, both in the campaign's language. Anyone
at the table may ask for it: it shows nothing the table may not see (a hidden roll only as
revealed, the seed only once the session ended).
"""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject
from aiogram.types import BufferedInputFile, Message
from aiogram.utils.i18n import get_i18n

from handlers.chronicle import document, view
from handlers.chronicle.view import Material
from rules.profiles import Profile
from rules.sheet import system_of
from table import vocabulary
from table.store import LOG_CAP, ChatSettings, Store
from table.store.sessions import (
    SessionRecord,
    chosen_session,
    load_events,
    load_sessions,
    of_session,
)


def make_router() -> Router:
    router = Router(name="chronicle")
    router.message.register(chronicle_command, Command("chronicle"))
    return router


def _asked(args: str | None) -> tuple[bool, int | None] | None:
    """(the whole campaign, a session's number); None for a line that is neither."""
    words = (args or "").split()
    if not words:
        return False, None
    if len(words) > 1:
        return None
    word = words[0].casefold().lstrip("#№")
    if word in vocabulary.CAMPAIGN:
        return True, None
    return (False, int(word)) if word.isdecimal() and len(word) < 7 else None


async def chronicle_command(
    message: Message,
    command: CommandObject,
    store: Store,
    chat_settings: ChatSettings,
    profile: Profile,
) -> None:
    if message.chat.type == ChatType.PRIVATE:
        await message.answer(view.group_only_text())
        return
    asked = _asked(command.args)
    if asked is None:
        await message.answer(view.usage_text())
        return
    whole, number = asked
    chat_id = store.at(message.chat.id)  # the campaign: a forum topic's own sessions
    entries, hidden = await store.history(chat_id)
    sessions: list[SessionRecord]
    if whole:
        sessions = await load_sessions(store.redis, chat_id)
        chosen = entries
        events = []
        for record in sessions:
            events += await load_events(store.redis, chat_id, record.number)
    else:
        found = await chosen_session(store.redis, chat_id, chat_settings.session, number)
        if found is None:
            await message.answer(view.no_session_text())
            return
        sessions = [found]
        chosen = of_session(entries, found.number)
        events = await load_events(store.redis, chat_id, found.number)
    characters = [
        (p.owner.name, p.sheet) for p in await store.list_sheets(chat_id, system_of(profile))
    ]
    material = Material(
        campaign=message.chat.title or str(chat_id),
        sessions=sessions,
        whole=whole,
        entries=list(reversed(chosen)),
        hidden=hidden,
        events=events,
        characters=characters,
        profile=profile,
        language=get_i18n().current_locale,
        truncated=len(entries) >= LOG_CAP and bool(chosen) and chosen[-1] is entries[-1],
    )
    doc = view.chronicle(material)
    stem = "chronicle-campaign" if whole else f"chronicle-session-{sessions[0].number}"
    markdown = document.markdown(doc).encode()
    page = document.html(doc).encode()
    await message.answer_document(
        BufferedInputFile(markdown, filename=f"{stem}.md"), caption=view.caption_text(doc)
    )
    await message.answer_document(BufferedInputFile(page, filename=f"{stem}.html"))
