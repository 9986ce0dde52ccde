"""The screen redraws itself when the group changes what it shows (docs/product.md §2b): a
``/dmg`` or ``/heal``, a spend, a roll that spends, the round tracker's turn, a player's
answer to a roll the screen asked for.

The campaign's settings name its open screen (``ChatSettings.screen``, written by
``/screen``), and every update reads the settings in its first round-trip anyway, so a
campaign with no screen open pays nothing. Otherwise, once a group's command or press is done
and its replies sent (``Feature.after_update``, bot/watchers.py), the screen is drawn from the
campaign as it is now and compared with what its flow stored: only a change is stored (one
compare-and-set of the screen's flow, so a press on the screen meanwhile wins) and edited in
place, one edit per update however much it changed. Edits of one screen come at most one a
second (``MIN_GAP``): a change within the second is left to one redraw at its end, which shows
whatever the campaign is by then — a burst of changes is one edit.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import Chat, Update
from aiogram.utils.i18n import get_i18n

from bot.middlewares import campaign_of
from bot.runner import screen_of
from bot.session import is_not_modified
from bot.watchers import COURTESY_ERRORS
from handlers.screen import view
from handlers.screen.flow import ScreenFlow
from handlers.screen.table import read_campaign
from table.scope import Campaign as Where
from table.scope import Scope
from table.store import ChatSettings, Store
from table.store.flows import FlowStateError

log = logging.getLogger(__name__)

MIN_GAP = 1.0  # seconds between two edits of one screen: Telegram's comfortable pace
REMEMBERED = 10_000  # screens whose last edit a process remembers before it forgets them all


@dataclass(frozen=True)
class Pointer:
    """Where a campaign's open screen is: the private chat, its flow and its message."""

    chat_id: int
    flow_id: str
    message_id: int

    def stored(self) -> str:
        return f"{self.chat_id}:{self.flow_id}:{self.message_id}"

    @classmethod
    def parse(cls, raw: str | None) -> Pointer | None:
        parts = (raw or "").split(":")
        if len(parts) != 3 or not parts[1]:
            return None
        chat, flow_id, message = parts
        try:
            return cls(int(chat), flow_id, int(message))
        except ValueError:
            return None


def digest(text: str) -> str:
    """A short fingerprint of a drawn text: enough to tell a change, cheap to keep."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def changes_the_table(update: Update | None, chat: Chat | None) -> bool:
    """A group's command or press: what may change a sheet, a pool or the fight's turn. The
    screen's own presses (the private chat) redraw it themselves; talk changes nothing."""
    if update is None or chat is None or chat.type == ChatType.PRIVATE:
        return False
    if update.callback_query is not None:
        return True
    message = update.message
    return message is not None and (message.text or "").startswith("/")


async def redraw_open(bot: Bot, store: Store, campaign_id: int | Where, pointer: Pointer) -> bool:
    """Draw the screen from the campaign as it is; store and edit it only if it changed.
    True when the message was edited."""
    flow = await store.load_flow(pointer.chat_id, pointer.flow_id)
    if flow is None:  # expired: the campaign stops looking for it until the next /screen
        await store.update_chat(campaign_id, screen=None)
        return False
    if flow.closed:
        return False
    try:
        state = flow.state(ScreenFlow)
    except FlowStateError:
        return False
    if state.where != store.at(campaign_id):
        return False
    campaign = await read_campaign(store, campaign_id, state.title, state.asked())
    if not campaign.runs(flow.owner_id):
        return False
    i18n = get_i18n()
    lang = flow.locale or i18n.default_locale
    with i18n.use_locale(lang):
        text, markup = view.draw(flow.next(state), state, campaign, lang)
    shown = flow.screen.text if flow.screen is not None else None
    if text == shown or (shown is None and digest(text) == state.opened):
        return False
    if await store.advance_flow(flow, flow.version, state, screen=screen_of(text, markup)) is None:
        return False  # a press on the screen moved it meanwhile and drew it itself
    try:
        await bot.edit_message_text(
            text=text, chat_id=pointer.chat_id, message_id=pointer.message_id, reply_markup=markup
        )
    except TelegramBadRequest as error:
        if not is_not_modified(error):
            raise
        return False
    return True


@dataclass
class Pace:
    """One process's pace of edits per screen: the last edit's time, and the screens whose
    redraw waits for the end of their second (a task each, kept until it is done)."""

    last: dict[str, float] = field(default_factory=dict)
    waiting: set[str] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    clock: Callable[[], float] = time.monotonic

    async def run(self, key: str, redraw: Callable[[], Awaitable[bool]]) -> None:
        if len(self.last) > REMEMBERED:
            self.last.clear()
        wait = self.last.get(key, -MIN_GAP) + MIN_GAP - self.clock()
        if wait <= 0:
            if await redraw():
                self.last[key] = self.clock()
            return
        if key in self.waiting:
            return  # the redraw already waiting shows this change too
        self.waiting.add(key)
        task = asyncio.create_task(self._later(key, wait, redraw))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _later(self, key: str, wait: float, redraw: Callable[[], Awaitable[bool]]) -> None:
        try:
            await asyncio.sleep(wait)
            self.waiting.discard(key)
            if await redraw():
                self.last[key] = self.clock()
        except COURTESY_ERRORS as error:
            log.info("screen %s not redrawn: %s", key, error)
        finally:
            self.waiting.discard(key)


PACE = Pace()


async def refresh(bot: Bot, store: Store, campaign_id: int | Where, screen: str | None) -> None:
    """The open screen ``screen`` (``ChatSettings.screen``) of the campaign redrawn at the
    screen's pace after a change made outside any update (the Mini App's sheet,
    bot/miniapp/handoffs.py ``REFRESH_SCREEN``)."""
    pointer = Pointer.parse(screen)
    if pointer is None:
        return
    unbound = store.bound(Scope())
    await PACE.run(pointer.stored(), lambda: redraw_open(bot, unbound, campaign_id, pointer))


async def after_update(update: Update, data: dict[str, Any]) -> None:
    """``Feature.after_update``: the campaign's open screen redrawn after a change of the
    group's; nothing at all when the campaign has none open."""
    settings: ChatSettings | None = data.get("chat_settings")
    pointer = Pointer.parse(settings.screen if settings is not None else None)
    if pointer is None:
        return
    chat: Chat | None = data.get("event_chat")
    if chat is None or not changes_the_table(update, chat):
        return
    bot: Bot = data["bot"]
    # Outside the update's journal: a courtesy to another message, perhaps a second later
    # (``Pace``), long after the update finished; its compare-and-set needs no journal.
    store: Store = data["store"].bound(Scope())
    campaign_id = campaign_of(update) or chat.id  # a forum topic's screen is its own
    await PACE.run(pointer.stored(), lambda: redraw_open(bot, store, campaign_id, pointer))
