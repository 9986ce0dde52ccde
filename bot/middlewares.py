"""What happens to every update before and after a handler: one straight road
(ARCHITECTURE.md, "The layers").

Order on the ``update`` observer, outermost first (after aiogram's own user-context step):

1. :class:`InFlightMiddleware` — counts running updates so shutdown can wait for them;
2. :class:`ErrorMiddleware` — nothing a handler raises may stop polling or leave a player
   without an answer;
3. :class:`StateMiddleware` — begins the update's journal (a re-delivered update that was
   finished is dropped) and loads the chat's settings in the same Redis round-trip, hands
   handlers ``chat_settings``, ``profile`` and ``rng``, and finishes the update;
4. :class:`bot.i18n.ChatLocaleMiddleware` — picks the language and sets ``locale``;
5. :class:`bot.commands.MenuUpkeep` — once the handler is done, publishes again the command
   menu of a chat on another game when this release changed it (once per chat and process).

(:class:`bot.metrics.MetricsMiddleware`, between 2 and 3, counts and times the updates.)
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.dispatcher.middlewares.user_context import UserContextMiddleware
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import (
    Chat,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    TelegramObject,
    Update,
    User,
)
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from pydantic import ValidationError

from bot import metrics, session
from bot.features import FeatureSet
from bot.i18n import choose_locale
from bot.placed import placed_thread
from bot.scope import bind, scoped_bot
from bot.sent import UNRECORDED_CHATS, Outbox, Unrecorded
from bot.session import FloodBudget
from rules import profiles
from rules.errors import RulesInputError
from rules.profiles import Profile
from table import fairness
from table.scope import Actor, Campaign, Scope, Serial, serial_of
from table.store import (
    REDIS_ERRORS,
    STORAGE_ERRORS,
    Begun,
    ChatSettings,
    Journal,
    ReadAhead,
    Store,
    Subject,
    UpdateRef,
    client_faults,
)
from table.store.budget import Window
from table.store.journal import Dropped, Prefetch
from table.store.sheets import sheets_ahead

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


def apply_switches(profile: Profile, switches: dict[str, bool | int | str]) -> Profile:
    """The profile with the chat's house-rule switches, each validated on its own.

    A switch that no longer exists or has a value of the wrong type (a chat configured by an
    older version of the bot) is skipped and logged, never fatal: the table keeps playing by
    the profile's default for that rule. ``section.name`` reaches the nested §B/§C/§D options.
    """
    current = profile.model_dump()
    for key, value in switches.items():
        section, _, name = key.partition(".")
        if section == "name":
            continue
        candidate = {**current}
        if name:
            nested = candidate.get(section)
            if not isinstance(nested, dict):
                log.info("unknown switch %r ignored", key)
                continue
            candidate[section] = {**nested, name: value}
        elif section in current:
            candidate[section] = value
        else:
            log.info("unknown switch %r ignored", key)
            continue
        try:
            Profile.model_validate(candidate)
        except ValidationError:
            log.info("invalid switch %s=%r ignored", key, value)
            continue
        current = candidate
    return Profile.model_validate(current)


def chat_profile(chat_settings: ChatSettings) -> Profile:
    """The chat's profile by name (the default one if the name is unknown) with its switches."""
    try:
        base = profiles.get(chat_settings.profile)
    except RulesInputError:
        log.warning("unknown profile %r, using %s", chat_settings.profile, profiles.DEFAULT)
        base = profiles.get(profiles.DEFAULT)
    if not chat_settings.switches:
        return base
    return apply_switches(base, chat_settings.switches)


class InFlightMiddleware(BaseMiddleware):
    """Remembers the tasks handling updates, so a graceful stop can let them finish."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[Any]] = set()

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - always inside a task under asyncio
            return await handler(event, data)
        self.tasks.add(task)
        try:
            return await handler(event, data)
        finally:
            self.tasks.discard(task)

    async def drain(self, grace: float) -> int:
        """Wait up to ``grace`` seconds for running updates; return how many were left."""
        current = asyncio.current_task()
        pending = {t for t in self.tasks if t is not current and not t.done()}
        if not pending:
            return 0
        log.info("waiting for %d update(s) in flight", len(pending))
        _, still = await asyncio.wait(pending, timeout=grace)
        return len(still)


class ChatBusy(Exception):
    """Another replica is handling an update of this chat: this one waits its turn."""


class DeadRunFirst(ChatBusy):
    """A run of another update of this chat died mid-way (``Begun.BEHIND``): bot/delivery.py
    runs ``update_id`` first, then this one."""

    def __init__(self, scope: Serial, update_id: int) -> None:
        super().__init__(scope, update_id)
        self.update_id = update_id


class GivenUp(Exception):
    """The update failed more often than ``MAX_ATTEMPTS`` (not counting outages): it is
    dropped, and the player is told so in reply, with what the drop did (``Dropped``)."""

    def __init__(self, scope: Serial, dropped: Dropped | None = None) -> None:
        super().__init__(scope)
        self.dropped = dropped


class Failed(GivenUp):
    """An update failed by an error that is no outage (a bug, a refusal no retry changes)
    after it wrote or sent something: its player is never told to try again, since that
    would make what it did twice. One that showed nothing had what it spent given back
    (``dropped``); one that showed something (``shown``) keeps it all."""

    def __init__(self, scope: Serial, dropped: Dropped | None = None, *, shown: bool) -> None:
        super().__init__(scope, dropped)
        self.shown = shown


def wrote(journal: Journal) -> bool:
    """Whether the update wrote anything, in this run or an earlier one."""
    return bool(journal.taken or journal.steps)


def sent_any(journal: Journal, box: Outbox | None) -> bool:
    """Whether the update put a message anywhere, in this run or an earlier one."""
    return bool(journal.sent or (box is not None and box.newest))


# Who is handling updates here: the chat lock's owner token (table/store/updates.py).
PROCESS_TOKEN = secrets.token_hex(8)
LOCK_RENEW_EVERY = 5.0
# Errors after which the update stays in the inbox and is run again later (Redis or Telegram
# away): its journal keeps the dice and the writes, so the player gets the real result.
RETRIED_LATER: tuple[type[BaseException], ...] = (
    *STORAGE_ERRORS,
    TelegramServerError,
    TelegramNetworkError,
    TelegramRetryAfter,
)


def _message_of(update: Update) -> Message | None:
    """The message an update is in or sits under (a button's), when it is one."""
    if update.callback_query is not None:
        found = update.callback_query.message
        return found if isinstance(found, Message) else None
    return update.message or update.edited_message


def campaign_of(update: Update) -> Campaign | None:
    """The campaign an update plays in (ARCHITECTURE.md, "The update's scope"): the forum
    topic of its message (a button's: the message it sits under) when Telegram says it is a
    topic's message, else its chat's own game (a group, a private chat, a forum's General);
    None outside a chat. The chat is the one aiogram hands the handlers (``event_chat``)."""
    context = UserContextMiddleware.resolve_event_context(update)
    if context.chat is None:
        return None
    placed = placed_thread(update)  # a press on an old message in a forum (bot/placed.py)
    if placed is not None:
        return Campaign(context.chat.id, placed)
    message = _message_of(update)
    if message is None or message.chat.id != context.chat.id:
        return Campaign(context.chat.id)
    replied = message.reply_to_message
    created = replied.forum_topic_created if replied is not None else None
    return Campaign.of(
        context.chat.id,
        message.message_thread_id,
        is_topic=message.is_topic_message,
        name=created.name if created is not None else None,
    )


def _named(campaign: Campaign | None, settings: object) -> Campaign | None:
    """The campaign with its topic's name, when the update did not show it and its settings
    keep it (its service messages' name, :func:`_remember_topic`)."""
    if campaign is None or campaign.thread_id is None or campaign.name is not None:
        return campaign
    name = settings.topic if isinstance(settings, ChatSettings) else None
    return dataclasses.replace(campaign, name=name) if name else campaign


def update_scope(update: Update) -> Serial:
    """What an update is serialised by: its campaign (a chat's own game by the chat's id, a
    forum topic by its campaign), or its sender outside a chat. The update's journal and lock
    sit in that campaign's slot with its keys (table/store/updates.py), and one campaign's
    updates run in order while another topic's run beside them. An inline query and a press
    on a message sent in inline mode (``inline_message_id``, no message) have no chat: they
    go in their sender's turn, with the sender's private chat, whose slot holds the sender's
    own keys (table/store/inline.py)."""
    campaign = campaign_of(update)
    if campaign is not None:
        return serial_of(campaign)
    context = UserContextMiddleware.resolve_event_context(update)
    if context.user is not None:
        return context.user.id
    return update.update_id


class StateMiddleware(BaseMiddleware):
    """The update's journal, its chat's lock and settings in one round-trip; injects what
    handlers need; finishes the update once its effect and replies are out (docs/product.md §5).

    An update finished before (a re-delivery) is skipped; one whose chat another replica is
    busy with raises :class:`ChatBusy` for bot/delivery.py to retry. The dice come from the
    journal's seed, so handling the update again after a crash rolls the same faces, and the
    writes it already made are read back from the journal instead of made twice.
    """

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        store: Store = data["store"]
        bot: Bot = data["bot"]
        chat: Chat | None = data.get("event_chat")
        user: User | None = data.get("event_from_user")
        token = str(data.get("delivery_token", PROCESS_TOKEN))
        scope = update_scope(event)
        unrecorded = data.get("unrecorded")
        if not isinstance(unrecorded, Unrecorded):
            unrecorded = None
        if unrecorded is not None and chat is not None:
            await _record_notices(unrecorded, store, chat.id)
        ref = UpdateRef(
            bot.id, event.update_id, scope, chat.id if chat is not None else None, token
        )
        status, chat_settings, journal, prefetch = await _begin(store, event, data, ref, user)
        await _refuse_unbegun(status, prefetch, store, ref)
        if journal is None:
            log.info("update %d: %s, skipped", event.update_id, status.value)
            data["update_skipped"] = True  # counted as a duplicate (bot/metrics.py)
            return None
        _inject(data, event, chat_settings, journal, scope)
        renew = LockRenewal(store, bot.id, scope, token)
        box = _outbox(event, store, chat, journal, data, unrecorded)
        data["outbox"], data["journal"] = box, journal  # what ErrorMiddleware tells by
        scoped = update_scope_of(event, data, prefetch)

        async def finish() -> None:
            """Done, whether its handler returned or failed for good: what it sent, whom
            that is about and where its sender plays go with the mark (table/store/updates.py)."""
            with client_faults():
                await store.finish_update(
                    bot.id,
                    event.update_id,
                    scope,
                    token,
                    sent=box.sent() if box is not None else None,
                    played=played_in(chat, user, journal, scoped.campaign),
                    about=box.about if box is not None else None,
                    lease=journal.lease,
                )

        try:
            with client_faults():
                result = await _in_scope(handler, event, data, scoped)
        except RETRIED_LATER:
            # Run again later: not a failed try, and what it delivered stays below the floor.
            with contextlib.suppress(*REDIS_ERRORS):
                sent = box.sent() if box is not None else None
                await store.postpone_update(bot.id, event.update_id, scope, sent=sent)
            raise
        except Exception as error:
            await _failed(error, store, ref, journal, box, finish)
            raise
        finally:
            renew.cancel()
        await finish()
        return result


async def _begin(
    store: Store, event: Update, data: dict[str, Any], ref: UpdateRef, user: User | None
) -> tuple[Begun, ChatSettings, Journal | None, Prefetch]:
    """The update's first round-trip: its journal, the chat's lock and settings, and what its
    handler will read, read ahead (table/store/updates.py)."""
    wide = _reads_ahead(event, data.get("features"))
    flow_id = button_flow(event)
    data["button_flow"] = flow_id
    with client_faults():
        begun = await store.begin_update(
            ref,
            force=bool(data.get("take_over", True)),
            seed=secrets.token_bytes(32),
            ahead=ReadAhead(
                flow_id=flow_id,
                sheet_fields=sheets_ahead(
                    user.id if user else None, event.message.text if event.message else None
                ),
                all_sheets=wide is not None,
                live_names=wide or (),
            ),
            inbox=data.get("inbox_entry"),
            lease=reply_windows(event, data.get("event_chat")),
        )
    kept = data.get("on_kept")
    if callable(kept):  # bot/delivery.py: the update is in the inbox now
        kept()
    return begun


def _inject(
    data: dict[str, Any],
    event: Update,
    chat_settings: ChatSettings,
    journal: Journal,
    scope: Serial,
) -> None:
    """What handlers are handed of the chat: its settings, its profile and the update's
    dice (the journal's seed, or the running session's)."""
    data["chat_settings"] = chat_settings
    data["profile"] = chat_profile(chat_settings)
    data.setdefault(
        "rng",
        fairness.dice_for(
            journal.dice(),
            chat_settings.session,
            chat_settings.session_seed,
            scope.chat_id if isinstance(scope, Campaign) else scope,
            event.update_id,
        ),
    )


def update_scope_of(event: Update, data: dict[str, Any], prefetch: Prefetch) -> Scope:
    """The update's one scope (ARCHITECTURE.md, "The update's scope"): its campaign and
    sender, its journal, read-ahead, outbox and dice, the command it answers and whom its
    messages are about, with the flood-wait budget of all its runs (bot/delivery.py) and the
    set of callbacks answered the error middleware keeps. The locale middleware adds the
    languages."""
    user: User | None = data.get("event_from_user")
    budget = data.get("flood_budget")
    answered = data.get("answered")
    return Scope(
        campaign=_named(campaign_of(event), data.get("chat_settings")),
        actor=Actor.of(user) if user is not None else None,
        journal=data["journal"],
        prefetch=prefetch,
        command=_command_of(event),
        outbox=data["outbox"],
        subject=_subject_of(event, user),
        dice=data["rng"],
        flood_budget=budget if isinstance(budget, FloodBudget) else None,
        answered=answered if isinstance(answered, set) else None,
    )


async def _in_scope(handler: Handler, event: Update, data: dict[str, Any], scope: Scope) -> Any:
    """Run the handler with ``scope`` handed on by argument: ``scope``, a Store bound to it
    and a Bot that carries it, with the update's objects bound to that Bot so their
    shortcuts (``message.answer``) go through it (bot/scope.py). The shared ones come back
    after, so what the error middleware says is outside the update's count."""
    store: Store = data["store"]
    bot: Bot = data["bot"]
    scoped = scoped_bot(bot, scope)
    bind(event, scoped)
    data["scope"], data["store"], data["bot"] = scope, store.bound(scope), scoped
    try:
        await _remember_topic(event, data)
        return await handler(event, data)
    finally:
        bind(event, bot)
        data["store"], data["bot"] = store, bot


async def _remember_topic(event: Update, data: dict[str, Any]) -> None:
    """A forum topic's service message (made or renamed) gives its campaign's name, kept
    in its settings (``ChatSettings.topic``): the bot sees a topic's name nowhere else."""
    message = event.message
    if message is None or not message.is_topic_message:
        return
    made, renamed = message.forum_topic_created, message.forum_topic_edited
    name = made.name if made is not None else renamed.name if renamed is not None else None
    settings = data.get("chat_settings")
    if not name or (isinstance(settings, ChatSettings) and settings.topic == name):
        return
    store: Store = data["store"]
    data["chat_settings"] = await store.update_chat(message.chat.id, topic=name)


async def _failed(
    error: Exception,
    store: Store,
    ref: UpdateRef,
    journal: Journal,
    box: Outbox | None,
    finish: Callable[[], Awaitable[None]],
) -> None:
    """An update whose handler failed by an error that is no outage: what it paid for and
    never showed goes back; what it wrote or showed is finished, and the player is told so
    (:class:`Failed`)."""
    if wrote(journal) and not sent_any(journal, box):
        # Paid for and nothing shown, by an error nobody foresaw: what it spent goes
        # back in the step that ends it, as for an update Telegram refused for good.
        with client_faults():
            dropped = await store.drop_update(ref.bot_id, ref.update_id, ref.scope, ref.token)
        raise Failed(ref.scope, dropped, shown=False) from error
    await finish()
    if wrote(journal) or sent_any(journal, box):
        raise Failed(ref.scope, None, shown=sent_any(journal, box)) from error


async def _record_notices(unrecorded: Unrecorded, store: Store, chat_id: int) -> None:
    """What the bot told this chat outside any update's count (its notices while Redis was
    away) goes below the floor before this update sends (bot/sent.py).

    A floor that cannot be raised now (Redis refusing writes, out of memory) is raised
    before a later update: a notice left above the floor can only be turned into a lost
    send (a repeat, never a loss), while failing here would fail every update of the chat
    for as long as Redis refuses, over a notice."""
    try:
        with client_faults():
            await unrecorded.record(store, chat_id)
    except REDIS_ERRORS as error:
        log.info("chat %d: its notices not below the floor yet: %s", chat_id, error)


async def _refuse_unbegun(status: Begun, prefetch: Prefetch, store: Store, ref: UpdateRef) -> None:
    """Raise for an update that may not run here now: its chat busy elsewhere, an earlier
    update of the chat to finish first, or one that failed too often and is given up (what
    it spent comes back in the step that ends it)."""
    if status is Begun.BUSY:
        raise ChatBusy(ref.scope)
    if status is Begun.BEHIND:  # always with the update it names
        raise DeadRunFirst(ref.scope, prefetch.behind or 0)
    if status is Begun.GIVEN_UP:
        log.warning("update %d in chat %s failed too often: given up", ref.update_id, ref.scope)
        with client_faults():
            dropped = await store.drop_update(ref.bot_id, ref.update_id, ref.scope, ref.token)
        raise GivenUp(ref.scope, dropped)


def _outbox(
    event: Update,
    store: Store,
    chat: Chat | None,
    journal: Journal,
    data: dict[str, Any],
    unrecorded: Unrecorded | None,
) -> Outbox | None:
    """What the update sends, counted for its chat (none for an update with no chat)."""
    if chat is None:
        return None
    return Outbox(
        store,
        chat.id,
        delivered=data.get("sent_before", {}),
        # A run before this one died in another process (bot/sent.py).
        after_crash=journal.attempts > 1 and not data.get("attempt"),
        unrecorded=unrecorded,
        floor=update_scope(event),
        forum=bool(chat.is_forum),
        update_id=event.update_id,
    )


class LockRenewal:
    """Renews the chat's lock every :data:`LOCK_RENEW_EVERY` seconds while the update runs.
    Most updates end well within the first period, so only a timer is set at first; the task
    that renews starts when it fires (a task for every update was a noticeable part of a
    roll's CPU, bench/e2e.py)."""

    def __init__(self, store: Store, bot_id: int, scope: Serial, token: str) -> None:
        self.store, self.bot_id, self.scope, self.token = store, bot_id, scope, token
        self._task: asyncio.Task[None] | None = None
        self._timer = asyncio.get_running_loop().call_later(LOCK_RENEW_EVERY, self._start)

    def _start(self) -> None:
        self._task = asyncio.ensure_future(self._renew())

    async def _renew(self) -> None:
        while True:
            try:
                await self.store.renew_lock(self.bot_id, self.scope, self.token)
            except REDIS_ERRORS as error:
                log.warning("chat %s: lock not renewed: %s", self.scope, error)
            await asyncio.sleep(LOCK_RENEW_EVERY)

    def cancel(self) -> None:
        self._timer.cancel()
        if self._task is not None:
            self._task.cancel()


def played_in(
    chat: Chat | None, user: User | None, journal: Journal, campaign: Campaign | None
) -> tuple[int, Campaign, str] | None:
    """(player, campaign, its title) when a person's update rolled in a group (a log line
    written): that campaign — the group's own game, or the forum topic the update played in,
    titled «Хроника › Маг» — becomes the one their inline rolls belong to
    (table/store/inline.py), in the update's finishing script. A refused command or tap
    changes nothing, and an anonymous admin speaks as the group's bot account and plays
    nowhere."""
    if not journal.rolled or chat is None or user is None or user.is_bot:
        return None
    if chat.type not in ("group", "supergroup"):
        return None
    if campaign is None or campaign.chat_id != chat.id:
        campaign = Campaign(chat.id)
    return user.id, campaign, campaign.titled(chat.title or "")


def reply_windows(update: Update, chat: Chat | None) -> list[Window]:
    """The send budget's windows a command's reply in its own chat keeps (bot/session.py's
    limiter: the group's minute, then the bot's second), reserved ahead by ``begin_update``
    so the reply costs no round-trip of its own (table/store/budget.py). A tap mostly edits
    and a plain message is mostly not answered: they reserve when they send."""
    message = update.message
    if message is None or chat is None or not (message.text or "").startswith("/"):
        return []
    overall: Window = (None, session.GLOBAL_LIMIT, session.GLOBAL_PERIOD)
    if chat.id < 0:  # a group's: its minute too, as the limiter counts it
        return [(chat.id, session.GROUP_LIMIT, session.GROUP_PERIOD), overall]
    return [overall]


_FLOW_ID = re.compile(r"[A-Za-z0-9_-]{12}")  # secrets.token_urlsafe(FLOW_ID_BYTES)


def button_flow(update: Update) -> str | None:
    """The flow a pressed button names: every flow button packs its flow id right after its
    prefix (``prefix:flow:version:…``, bot/runner.py), so ``begin_update`` can read it ahead.
    Anything else (a garbled button) reads nothing ahead; the handler judges it."""
    query = update.callback_query
    if query is None or not query.data:
        return None
    parts = query.data.split(":")
    if len(parts) < 3 or not _FLOW_ID.fullmatch(parts[1]):
        return None
    return parts[1]


def _reads_ahead(update: Update, features: object) -> tuple[str, ...] | None:
    """What a tap on a fight's buttons reads ahead besides its own flow (bot.features)."""
    query = update.callback_query
    if query is None or not query.data or not isinstance(features, FeatureSet):
        return None
    return features.reads_ahead(query.data.split(":", 1)[0])


def _subject_of(update: Update, user: User | None) -> Subject | None:
    """Whom the bot's answers to this update are about: its sender, unless the sender is a
    bot or speaks as the chat (an anonymous administrator is nobody's character)."""
    message = update.message
    if user is None or user.is_bot or (message is not None and message.sender_chat is not None):
        return None
    return Subject(user_id=user.id, name=user.first_name, username=user.username)


def _command_of(update: Update) -> tuple[int, int] | None:
    """The group message a result should reply to, so parallel rolls stay paired."""
    message = update.message
    if message is None or message.chat.type not in ("group", "supergroup"):
        return None
    return message.chat.id, message.message_id


def _given_up_text(dropped: Dropped | None) -> str:
    """What was paid is back, what else the update wrote stays: sent again it would be made
    twice, so the player is asked to look first (as bot/delivery.py's ``dropped_text``)."""
    if dropped is not None and dropped.refunded:
        return _(
            "This could not be answered: it failed too many times in a row. What it spent "
            "is back on the sheet; any other change it made stays. Check before sending it "
            "again."
        )
    if dropped is not None and dropped.wrote:
        return _(
            "This could not be answered: it failed too many times in a row. Any change it "
            "made stays. Check before sending it again."
        )
    return _(
        "This could not be answered: it failed too many times in a row. "
        "Send it again if it still matters."
    )


def _failed_text(error: Failed) -> str:
    """What an update that failed after writing or sending says: never "try again", which
    would make what it did twice; what it spent is back if it showed nothing."""
    dropped = error.dropped
    if error.shown:
        return _(
            "Something went wrong on our side after part of this was shown. Any change it "
            "made stays. Check before sending it again."
        )
    if dropped is not None and dropped.refunded:
        return _(
            "Something went wrong on our side. What this spent is back on the sheet; any "
            "other change it made stays. Check before sending it again."
        )
    if dropped is None or dropped.wrote:
        return _(
            "Something went wrong on our side. Any change this made stays. Check before "
            "sending it again."
        )
    return _("Something went wrong on our side. Please try again.")


def _showed_something(data: dict[str, Any]) -> bool:
    """Whether the failed update put a message anywhere (the outbox and journal the state
    middleware handed over): then its result, or part of it, is out, and a notice that the
    answer will come would promise what the player already has."""
    journal = data.get("journal")
    box = data.get("outbox")
    return isinstance(journal, Journal) and sent_any(
        journal, box if isinstance(box, Outbox) else None
    )


class ErrorMiddleware(BaseMiddleware):
    """Logs any failure with its update id and tells the player something short and useful.

    Redis down → "storage unavailable, try in a minute"; a :class:`RulesInputError` that no
    handler turned into a specific message → "that input is not valid"; anything else →
    "something went wrong". A callback query the handler did not answer is answered here (as
    an alert), so the button's spinner never hangs; an inline query gets the same words as
    its one result, at once (Telegram forgets it in seconds, so it is never run again later).

    A message sent here is outside the update's count of what it sent (``Outbox``): it is
    kept in :attr:`unrecorded`, handed to :class:`StateMiddleware` as ``unrecorded``, which
    raises the chat's floor over it before the chat's next update (bot/sent.py).
    """

    def __init__(self, i18n: I18n, default_locale: str) -> None:
        self.i18n = i18n
        self.default_locale = default_locale
        self.unrecorded = Unrecorded()
        # The chats told in this outage that the table's memory is away: one notice per chat
        # until an update of the chat runs through again (:meth:`_coalesced`).
        self.told_away: dict[int, None] = {}

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        data["unrecorded"] = self.unrecorded
        # The callback queries the update answers: a fresh set in its scope, which the
        # session's request middleware fills (bot/session.py). This is how "every callback
        # query is answered exactly once" survives a handler that fails half-way.
        answered: set[str] = set()
        data["answered"] = answered
        shared = data.get("bot")
        try:
            result = await handler(event, data)
        except ChatBusy:
            raise
        except Exception as error:
            if not isinstance(event, Update):
                raise
            # Under bot/delivery.py an update that met Redis or Telegram away is run again
            # later from its journal: the player hears once that the answer will come, and
            # is never told "try again" for a command whose effect may already be stored.
            # An inline query is answered now or never (Telegram drops it in seconds).
            later = (
                isinstance(error, RETRIED_LATER)
                and "delivery_token" in data
                and event.inline_query is None
            )
            if not later or (
                data.get("attempt", 0) == 0
                and isinstance(error, STORAGE_ERRORS)
                and not _showed_something(data)
            ):
                if isinstance(shared, Bot):  # its own scope: the update's budget and answers
                    budget = data.get("flood_budget")
                    own = Scope(flood_budget=budget, answered=answered)
                    bind(event, scoped_bot(shared, own))
                await self._report(event, data, error, answered, later=later)
            if later:
                raise
            return None
        chat = data.get("event_chat")
        if isinstance(chat, Chat):
            self.told_away.pop(chat.id, None)  # the chat's outage is over
        return result

    def _coalesced(self, update: Update) -> bool:
        """Whether the chat was told already in this outage that the table's memory is away:
        a burst of commands then gets one notice, not one each, and the group's send budget
        (20 messages a minute) stays for the results that follow."""
        if update.message is None:
            return False
        chat_id = update.message.chat.id
        if chat_id in self.told_away:
            return True
        if len(self.told_away) >= UNRECORDED_CHATS:
            del self.told_away[next(iter(self.told_away))]
        self.told_away[chat_id] = None
        return False

    def _locale(self, data: dict[str, Any]) -> str:
        locale = data.get("locale")
        if isinstance(locale, str):
            return locale
        user: User | None = data.get("event_from_user")
        return choose_locale(data.get("chat_settings"), user, self.default_locale)

    def _text(self, error: Exception, locale: str, *, later: bool) -> str:
        with self.i18n.context(), self.i18n.use_locale(locale):
            if later:
                return _(
                    "The dice table's memory is unavailable right now. "
                    "The bot will answer this as soon as it is back."
                )
            if isinstance(error, STORAGE_ERRORS):
                return _(
                    "The dice table's memory is unavailable right now. "
                    "Please try again in a minute."
                )
            if isinstance(error, Failed):
                return _failed_text(error)
            if isinstance(error, GivenUp):
                return _given_up_text(error.dropped)
            if isinstance(error, RulesInputError):
                return _("That input is not valid. Send /help to see examples.")
            return _("Something went wrong on our side. Please try again.")

    async def _report(
        self,
        update: Update,
        data: dict[str, Any],
        error: Exception,
        answered: set[str],
        *,
        later: bool = False,
    ) -> None:
        if later and isinstance(error, STORAGE_ERRORS) and self._coalesced(update):
            log.error(
                "update %d: storage unavailable (chat told already): %s", update.update_id, error
            )
            return
        if isinstance(error, STORAGE_ERRORS):
            log.error("update %d: storage unavailable: %s", update.update_id, error)
        elif isinstance(error, Failed):
            log.error("update %d: failed after it wrote or sent", update.update_id, exc_info=error)
        elif isinstance(error, GivenUp):
            pass  # logged where it was given up, with its chat
        elif isinstance(error, RulesInputError):
            log.warning("update %d: unhandled rules input error: %s", update.update_id, error)
        else:
            log.exception("update %d: handler failed", update.update_id, exc_info=error)
        # An alert under a tap is the presser's own, whatever language the message is in.
        own = data.get("own_locale") if update.callback_query is not None else None
        locale = own if isinstance(own, str) else self._locale(data)
        text = self._text(error, locale, later=later)
        try:
            if update.callback_query is not None:
                if update.callback_query.id not in answered:
                    await update.callback_query.answer(text, show_alert=True)
            elif update.inline_query is not None:  # a hint in the list, never a silent failure
                hint = InlineQueryResultArticle(
                    id="error",
                    title=text,
                    input_message_content=InputTextMessageContent(message_text=text),
                )
                await update.inline_query.answer([hint], cache_time=0, is_personal=True)
            elif update.message is not None:
                # A reply: the notice sits under the command it is about, as its result will.
                notice = await update.message.reply(text, allow_sending_without_reply=True)
                self.unrecorded.note(notice.chat.id, notice.message_id)
        except TelegramAPIError as reply_error:
            log.warning("update %d: could not tell the player: %s", update.update_id, reply_error)


class MetricsMiddleware(BaseMiddleware):
    """Times every try at an update and tells bot/delivery.py its outcome (``update_try``),
    which counts the update once it is done. It sits inside the error middleware
    (bot/app.py), so it sees a handler's exception before the player is told."""

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        kind = _event_kind(event)
        started = time.perf_counter()
        outcome = "ok"
        try:
            result = await handler(event, data)
            if data.get("update_skipped"):  # done before: a delivery again (StateMiddleware)
                outcome = "duplicate"
            return result
        except ChatBusy:
            outcome = ""  # not a try: another replica has the chat
            raise
        except RETRIED_LATER as error:
            outcome = "retried"
            metrics.redis_error("update", error)
            raise
        except GivenUp:
            outcome = "given_up"
            raise
        except Exception:
            outcome = "failed"
            raise
        finally:
            if outcome:
                metrics.LATENCY.labels(kind).observe(time.perf_counter() - started)
                last = data.get("update_try")
                if isinstance(last, metrics.Try):
                    last.outcome = outcome


def _event_kind(update: Update) -> str:
    try:
        return update.event_type
    except Exception:  # aiogram's UpdateTypeLookupError: a kind newer than the library
        return "unknown"
