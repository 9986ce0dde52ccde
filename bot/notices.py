"""Players told privately when the Storyteller changes their sheet (docs/product.md §2b).

Damage, healing, a value set or a point spent on a player's behalf by the Storyteller reaches
the player as a short private message saying what changed and in which campaign. ``/notify
off`` stops them (``sdb:quiet:{USER}``), ``/notify on`` brings them back. Telegram lets a
bot write only to who started it: a player who never did (403) is told once per campaign in
the group how to enable it (``sdb:unreach:{CHAT}``, the players told so), so the group is
not flooded and the player is not nagged.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from html import escape

from aiogram import Bot
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.types import Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _
from redis.asyncio import Redis

from bot.scope import scope_of
from rules.health import DamageType
from table.scope import Campaign
from table.store.base import CHAT_TTL, PREFIX, StoreBase, tag
from table.store.chats import ChatSettings
from table.store.sessions import add_event

log = logging.getLogger(__name__)


def quiet_key(user_id: int) -> str:
    return f"{PREFIX}:quiet:{tag(user_id)}"


def unreachable_key(chat_id: int) -> str:
    return f"{PREFIX}:unreach:{tag(chat_id)}"


async def set_quiet(redis: Redis, user_id: int, quiet: bool) -> None:
    if quiet:
        await redis.set(quiet_key(user_id), "1", ex=CHAT_TTL)
    else:
        await redis.delete(quiet_key(user_id))


async def is_quiet(redis: Redis, user_id: int) -> bool:
    return bool(await redis.exists(quiet_key(user_id)))


def notice_text(campaign: str, what: str) -> str:
    """«🎭 Хроника: the Storyteller …» — ``what`` is already in words (and escaped)."""
    return (
        f"🎭 <b>{escape(campaign)}</b>: {what}\n"
        + "<i>"
        + _("/notify off stops these messages.")
        + "</i>"
    )


def unreachable_text(name: str, bot_username: str) -> str:
    link = f"https://t.me/{bot_username}?start=notify" if bot_username else ""
    text = _(
        "{name}, the Storyteller changed your sheet, but I cannot write to you privately. "
        "Open a private chat with me and press Start to be told next time."
    ).format(name=escape(name))
    return f"{text}\n{link}" if link else text


async def tell_player(
    bot: Bot,
    redis: Redis,
    *,
    campaign_id: int | Campaign,
    campaign: str,
    user_id: int,
    name: str,
    what: str,
    locale: str | None = None,
) -> bool:
    """Tell the player ``what`` changed (made in ``locale``, the campaign's language); True
    when the message went out. A quiet player is not told; a player the bot may not write to
    is told once in the group how to enable it (in the campaign's topic, when ``campaign_id``
    names a forum topic's campaign)."""
    where = campaign_id if isinstance(campaign_id, Campaign) else Campaign(campaign_id)
    campaign_id = where.chat_id
    if await is_quiet(redis, user_id):
        return False
    i18n = get_i18n()
    with i18n.use_locale(locale or i18n.current_locale):
        text = notice_text(campaign, what)
    try:
        await bot.send_message(user_id, text)
        return True
    except (TelegramForbiddenError, TelegramBadRequest) as error:
        log.info("player %d not told privately: %s", user_id, error)
    first = await redis.sadd(unreachable_key(campaign_id), str(user_id))
    await redis.expire(unreachable_key(campaign_id), CHAT_TTL)
    if first:
        me = await bot.me()
        with i18n.use_locale(locale or i18n.current_locale):
            warning = unreachable_text(name, me.username or "")
        try:
            await bot.send_message(campaign_id, warning, message_thread_id=where.thread_id)
        except (TelegramForbiddenError, TelegramBadRequest) as error:
            log.info("campaign %d not told: %s", campaign_id, error)
    return False


def damage_words(kind: DamageType, levels: int) -> str:
    word = {
        DamageType.BASHING: _("bashing"),
        DamageType.LETHAL: _("lethal"),
        DamageType.AGGRAVATED: _("aggravated"),
    }[kind]
    wound = _("{n} level of damage ({kind})", "{n} levels of damage ({kind})", n=levels)
    return sheet_words() + " " + wound.format(n=levels, kind=word)


def healed_words(levels: int) -> str:
    healed = _("{n} level healed", "{n} levels healed", n=levels)
    return sheet_words() + " " + healed.format(n=levels)


def sheet_words() -> str:
    return _("The Storyteller changed your sheet:")


async def storyteller_changed(
    bot: Bot,
    store: StoreBase,
    message: Message,
    chat_settings: ChatSettings,
    player: tuple[int, str],
    what: Callable[[], str],
) -> None:
    """After a command in the group changed ``player``'s sheet (their id and name): told
    privately, and kept for the running session's chronicle, when it was someone else's
    doing — the Storyteller's (a player's own change is news to nobody). ``what`` is made in
    the campaign's language."""
    sender = message.from_user
    user_id, name = player
    if sender is None or sender.id == user_id or message.chat.type == ChatType.PRIVATE:
        return
    i18n = get_i18n()
    locale = chat_settings.locale or i18n.current_locale
    scope = scope_of(bot)  # the group's update: its campaign, a forum topic's
    here = scope.campaign if scope is not None else None
    where = here if here is not None and here.chat_id == message.chat.id else None
    title = message.chat.title or str(message.chat.id)
    campaign = where.titled(title) if where is not None else title
    with i18n.use_locale(locale):
        said = what()
    if chat_settings.session is not None:
        event = {"at": time.time(), "who": name, "what": re.sub(r"<[^>]+>", "", said)}
        await add_event(store, where or message.chat.id, chat_settings.session, event)
    await tell_player(
        bot,
        store.redis,
        campaign_id=message.chat.id,
        campaign=campaign,
        user_id=user_id,
        name=name,
        what=said,
        locale=locale,
    )
