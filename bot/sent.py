"""A send whose answer was lost is looked for before it is sent again (docs/product.md §5).

Telegram may apply a ``sendMessage`` and still answer 5xx, or the answer may be lost on the
way: sending again then shows the player the same result twice. The Bot API has no
idempotency key and no way to read a message, but it has three facts to build one from:

- message ids in a chat only grow, and the bot's sends in a chat are serialised by that
  chat's updates (table/store/updates.py), so every bot message above the newest one the bot
  knows it sent (the chat's *floor*, kept in Redis by each finished update) is the send in
  question — or a message sent outside any update's count (see below);
- ``editMessageCaption`` on a message tells what it is without changing it, because the
  bot sends only text: "there is no caption" is a bot message, "can't be edited" someone
  else's, "not found" none at all;
- ``editMessageText`` with exactly the send's text and keyboard answers "message is not
  modified" on the send itself, and on any other bot message makes it show the send.

So after an ambiguous failure the ids just above the floor are probed; a bot message there
is then edited to the send (:func:`make_it_the_send`): either it was the lost send,
delivered, or it was another bot message and shows the send now. Its id is returned as if
the first answer had arrived: the send is shown either way, never lost. If none is found,
the error goes on to the retry as before: between a possible repeat (the same dice) and a
possible loss the bot takes the repeat (ARCHITECTURE.md). A private chat's ids are the
user's, shared with their other chats, so there gaps are passed over. Only a send to the
chat whose update is running is probed: a send to another chat (the Storyteller's private
chat) has no exact floor, and is retried as before, where a repeat shows the same dice; it
raises that chat's floor instead, so that chat's own lost sends never take it for theirs.

The same search runs, before sending, in the run after a crash (``Outbox.after_crash``): the
dead run may have had a send applied and died before anything was written down, and what
it left above the floor is its sends, in order. No update of the chat finished in between
to raise the floor past them, on any replica: the dead run's begin left the chat's running
mark, and no other update of the chat begins before the dead run's update ran again
(table/store/updates.py, bot/delivery.py). Sends an earlier run delivered and wrote down
(``sent:DIGEST`` in the update's journal, beside a later write or in the step that put the
update off) are repeated from there without sending.

In a forum the chat's topics are campaigns whose updates run beside each other, so a bot
message above a topic's floor may be another topic's. There each send takes the chat's send
turn (table/store/posts.py): while it is held no other send of the chat is on its way, on
any replica, and when it ends what the send posted goes on the chat's register with the
update that sent it. A search in a forum runs only while the turn is held, and passes over
every message the register names for another update; what is left above the floor is this
update's, exactly as in a group. A send from another chat's update into a group takes that
group's turn as well (it may be a forum, which that update cannot tell). A forum whose turn
cannot be had (Redis away) sends without a search: a possible repeat, never a loss.

Messages sent outside an update's count — the notice that the table's memory is away (sent
while Redis is, so no floor can hear of it) and the other answers bot/middlewares.py gives
for a failed update — are kept in :class:`Unrecorded` and raise their chat's floor before
that chat's next update begins, so they are below every later search. What that cannot
cover (a notice of a process that died before Redis came back, or of another replica) is
what the edit above is for: found above the floor, such a notice is turned into the send,
which it had promised, instead of being taken for it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramEntityTooLarge,
    TelegramNetworkError,
    TelegramServerError,
)
from aiogram.methods import (
    EditMessageCaption,
    EditMessageText,
    Response,
    SendMessage,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import Chat, InlineKeyboardMarkup, Message, ReplyParameters

from bot.scope import scope_of
from table.scope import Serial
from table.store import REDIS_ERRORS, STORAGE_ERRORS, Posted, Subject
from table.store.posts import SEND_TURN_TTL_MS

if TYPE_CHECKING:
    from aiogram import Bot

    from table.scope import Scope
    from table.store import Journal, Store

log = logging.getLogger(__name__)

PROBE_SPAN = 12  # ids above the floor looked at: players' messages may come in between
# After a crash the dead run's result may sit above a whole burst of players' commands.
CRASH_PROBE_SPAN = 60
PROBE_MISSES = 3  # ids in a row that hold no message end the search
# A private chat is numbered with the user's ids, shared with their other private chats and
# basic groups: ids there skip, so a run of missing ones says nothing and more are looked at.
PRIVATE_PROBE_SPAN = 40
SETTLE = 0.5  # seconds for a send whose answer timed out to land before it is looked for

_BOT_MESSAGE = "there is no caption in the message to edit"
_NOT_A_MESSAGE = "message to edit not found"
_NOT_MODIFIED = "message is not modified"
UNRECORDED_CHATS = 4096  # chats whose unrecorded messages are remembered until their next update


SendKey = tuple[str, str, str, int, int]  # chat, text, keyboard, reply target, occurrence


def outbox_of(scope: Scope | None) -> Outbox | None:
    """The outbox the update's scope carries (the scope is the application's, table/scope.py,
    and holds it untyped)."""
    box = scope.outbox if scope is not None else None
    return box if isinstance(box, Outbox) else None


@dataclass
class Outbox:
    """What the running update has sent to its own chat (the search's floor in this update),
    whom each message is about, and what its earlier runs in this process delivered anywhere
    (``delivered``, kept by bot/delivery.py across the runs of one update): a run again after
    Redis or Telegram was away repeats each of those sends as it was answered, without
    sending it again."""

    store: Store
    chat_id: int
    newest: int = 0  # the newest message this update put in its chat
    about: dict[int, Subject] = field(default_factory=dict)
    delivered: dict[SendKey, Message] = field(default_factory=dict)
    # A run of this update died in another process (its journal counts a run that neither
    # finished nor was put off): each send to the chat is first looked for above the floor,
    # until one is not found (the dead run sent in order, so none after it was made either).
    after_crash: bool = False
    # The process's messages no floor knows of yet: a send to another chat whose floor
    # could not be raised then (Redis away) is kept there, for that chat's next update.
    unrecorded: Unrecorded | None = None
    # The campaign whose floor the update keeps (bot/middlewares.py ``update_scope``): the
    # chat's id for its own game, a forum topic's campaign.
    floor: Serial | None = None
    # The update's chat is a forum: its topics' updates run beside this one, so a send here
    # takes the chat's send turn, and a search passes over what the register names
    # (table/store/posts.py).
    forum: bool = False
    update_id: int = 0  # the update's, on the chat's register beside what it posted
    _seen: Counter[tuple[str, str, str, int]] = field(default_factory=Counter)

    @property
    def where(self) -> Serial:
        """Whose floor a lost send of this update is looked for above."""
        return self.floor if self.floor is not None else self.chat_id

    def note(self, message_id: int, subject: Subject | None) -> None:
        """The update put ``message_id`` in its chat, about ``subject`` (the update's scope
        says whom its messages are about; the update's finish stores it per message, so a
        command in reply to a roll's result targets its roller, bot/replies.py)."""
        self.newest = max(self.newest, message_id)
        if subject is not None:
            self.about[message_id] = subject

    def sent(self) -> int | None:
        return self.newest or None

    def key(self, method: SendMessage) -> SendKey:
        """The send's place in the update: a re-run rolls the same dice and so makes the
        same sends in the same order; the n-th identical one is the n-th of the first run."""
        markup = method.reply_markup
        keyboard = markup.model_dump_json() if isinstance(markup, InlineKeyboardMarkup) else ""
        what = (str(method.chat_id), method.text, keyboard, _reply_target(method))
        self._seen[what] += 1
        return (*what, self._seen[what])


@dataclass
class Unrecorded:
    """The newest message this process put in each chat outside any update's count (the
    notices bot/middlewares.py sends for a failed update, above all the one that the table's
    memory is away, sent while Redis is): no floor knows of them, so before the chat's next
    update begins they raise its floor (:meth:`record`), and no later search above the
    floor takes one for a lost send (module docstring)."""

    newest: dict[int, int] = field(default_factory=dict)

    def note(self, chat_id: int, message_id: int) -> None:
        if chat_id not in self.newest and len(self.newest) >= UNRECORDED_CHATS:
            del self.newest[next(iter(self.newest))]  # the oldest: its chat went quiet
        self.newest[chat_id] = max(self.newest.get(chat_id, 0), message_id)

    async def record(self, store: Store, chat_id: int) -> None:
        """Raise the chat's floor over what was sent there unrecorded: a round-trip of its
        own, only for a chat that has such a message (the first update after an outage).
        Raises if Redis is away: the update cannot begin then either."""
        message_id = self.newest.get(chat_id)
        if message_id is None:
            return
        # On the chat's register too, for no update: a forum's search passes over it.
        await store.end_send_turn(chat_id, "", Posted(message_id, None, 0), raise_floor=True)
        if self.newest.get(chat_id) == message_id:
            del self.newest[chat_id]


def _subject(bot: Bot) -> Subject | None:
    """Whom the update sending with ``bot`` says its messages are about now."""
    scope = scope_of(bot)
    return scope.subject if scope is not None else None


def send_digest(key: SendKey) -> str:
    """The send's place in its update, short and the same in every process: the name of its
    record in the update's journal (``sent:DIGEST``)."""
    return hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def _ambiguous(error: Exception) -> bool:
    """Telegram may have applied the call: a 5xx (a front's HTML page with a 5xx status
    too, bot/session.py), or an answer that never came back."""
    if isinstance(error, TelegramServerError):
        return True
    return isinstance(error, TelegramNetworkError) and not isinstance(error, TelegramEntityTooLarge)


def _reply_target(method: SendMessage) -> int:
    if isinstance(method.reply_parameters, ReplyParameters):
        return int(method.reply_parameters.message_id or 0)
    return int(method.reply_to_message_id or 0)


def _chat_type(chat_id: int) -> str:
    if chat_id > 0:
        return "private"
    return "supergroup" if chat_id < -1_000_000_000_000 else "group"


def delivered(method: SendMessage, chat_id: int, message_id: int) -> Message:
    """The message Telegram would have answered with, as far as the bot needs it (its id)."""
    markup = method.reply_markup
    return Message(
        message_id=message_id,
        date=datetime.now(UTC),
        chat=Chat(id=chat_id, type=_chat_type(chat_id)),
        text=method.text,
        reply_markup=markup if isinstance(markup, InlineKeyboardMarkup) else None,
        message_thread_id=method.message_thread_id,
        is_topic_message=True if method.message_thread_id is not None else None,
    )


async def find_delivered(
    bot: Bot,
    chat_id: int,
    floor: int,
    span: int = PROBE_SPAN,
    others: frozenset[int] = frozenset(),
) -> int | None:
    """The first bot message above ``floor`` in the chat, or None: see the module's docstring.
    ``others`` are messages the chat's register names as another update's (a forum's other
    topics): passed over unprobed, and not counted in the span. A probe that itself fails
    ends the search with None (send again, as before)."""
    private = chat_id > 0
    span = max(span, PRIVATE_PROBE_SPAN) if private else span
    misses = looked = 0
    message_id = floor
    while looked < span:
        message_id += 1
        if message_id in others:
            continue
        looked += 1
        try:
            await bot(EditMessageCaption(chat_id=chat_id, message_id=message_id))
        except TelegramBadRequest as error:
            if _BOT_MESSAGE in error.message:
                return message_id
            misses = misses + 1 if _NOT_A_MESSAGE in error.message else 0
            if misses >= PROBE_MISSES and not private:
                return None
            continue
        except TelegramAPIError:
            return None
        # The edit succeeded: a media message of the bot's (it sends none), so it is ours.
        return message_id
    return None


async def make_it_the_send(bot: Bot, chat_id: int, message_id: int, send: SendMessage) -> bool:
    """Whether the bot message ``message_id`` found above the floor shows ``send`` now.

    It is edited to exactly the send's text and keyboard: on the send itself Telegram
    answers "message is not modified" and nothing changes; on another bot message above the
    floor (a notice no floor knows of, module docstring) the edit applies, and that message
    shows the send instead — the notice had said the result would follow, and now it has.
    Either way the send is shown, at this id. Any other answer (the edit failed or may not
    have been applied) is False: the send goes out anew, a possible repeat, never a loss."""
    markup = send.reply_markup if isinstance(send.reply_markup, InlineKeyboardMarkup) else None
    edit = EditMessageText(
        chat_id=chat_id,
        message_id=message_id,
        text=send.text,
        parse_mode=send.parse_mode,
        entities=send.entities,
        link_preview_options=send.link_preview_options,
        reply_markup=markup,
    )
    try:
        await bot(edit)
    except TelegramBadRequest as error:
        return _NOT_MODIFIED in error.message
    except TelegramAPIError:
        return False
    log.warning(
        "message %d in chat %d was another bot message than the send looked for: "
        "it shows the send now",
        message_id,
        chat_id,
    )
    return True


@dataclass
class Turn:
    """One send's hold on its chat's send turn (table/store/posts.py) and what it posted.
    ``held`` is False when the turn could not be had (Redis away, or a holder that outlived
    the turn's clock): the send goes out all the same, and is not looked for if its answer
    is lost (a possible repeat, never a loss)."""

    store: Store
    chat_id: int
    token: str = field(default_factory=lambda: secrets.token_hex(8))
    held: bool = False
    posted: Posted | None = None
    raise_floor: bool = False  # a send from another chat's update: the chat's floor rises

    async def take(self) -> None:
        deadline = time.monotonic() + TURN_WAIT_LIMIT
        pause = TURN_PAUSE
        while True:
            try:
                if await self.store.take_send_turn(self.chat_id, self.token):
                    self.held = True
                    return
            except STORAGE_ERRORS as error:
                log.info("chat %d: no send turn (%s): sent without a search", self.chat_id, error)
                return
            if time.monotonic() > deadline:
                log.warning("chat %d: its send turn stayed held: sent without one", self.chat_id)
                return
            await asyncio.sleep(pause)
            pause = min(pause * 2, TURN_PAUSE_MAX)

    async def renewed(self) -> bool:
        """Whether the turn is still held, its clock started again (before a search)."""
        if not self.held:
            return False
        try:
            self.held = await self.store.renew_send_turn(self.chat_id, self.token)
        except STORAGE_ERRORS:
            self.held = False
        return self.held

    async def keep(self) -> None:
        """Renew the turn every :data:`TURN_RENEW_EVERY` seconds while the send holds it."""
        while True:
            if not await self.renewed():
                return
            await asyncio.sleep(TURN_RENEW_EVERY)

    def post(self, message_id: int, thread_id: int | None, update_id: int) -> None:
        self.posted = Posted(message_id, thread_id, update_id)

    async def end(self, unrecorded: Unrecorded | None) -> None:
        """Register what was posted and let the turn go. With Redis away the turn lapses by
        its clock, and a floor to raise is raised before the chat's next update instead."""
        try:
            await self.store.end_send_turn(
                self.chat_id,
                self.token if self.held else "",
                self.posted,
                raise_floor=self.raise_floor,
            )
        except STORAGE_ERRORS:
            if self.raise_floor and self.posted is not None and unrecorded is not None:
                unrecorded.note(self.chat_id, self.posted.message_id)


TURN_PAUSE = 0.005  # the first wait for a chat's send turn another replica holds
TURN_PAUSE_MAX = 0.05
TURN_RENEW_EVERY = SEND_TURN_TTL_MS / 3000  # seconds: a third of the turn's clock
# How long a send waits for a turn another live send keeps renewing (a holder that died lets
# it lapse within the turn's clock): past a group's minute of flood control, then it goes
# without one rather than never.
TURN_WAIT_LIMIT = 90.0


class Turns:
    """The process's side of the chats' send turns: its own sends to one chat queue here,
    so only the first of them waits on Redis."""

    def __init__(self) -> None:
        self._local: dict[int, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def held(
        self, store: Store, chat_id: int, unrecorded: Unrecorded | None
    ) -> AsyncIterator[Turn]:
        lock, users = self._local.get(chat_id, (asyncio.Lock(), 0))
        self._local[chat_id] = (lock, users + 1)
        try:
            async with lock:
                turn = Turn(store, chat_id)
                await turn.take()
                # A send may wait long for its slot in the group's minute (bot/session.py's
                # limiter sits inside): the turn is kept alive meanwhile, the chat's other
                # sends waiting for that same minute anyway. Most sends end well before the
                # first renewal, so only a timer is set at first.
                loop = asyncio.get_running_loop()
                keeping: list[asyncio.Task[None]] = []
                timer = loop.call_later(
                    TURN_RENEW_EVERY, lambda: keeping.append(loop.create_task(turn.keep()))
                )
                try:
                    yield turn
                finally:
                    timer.cancel()
                    for task in keeping:
                        task.cancel()
                    await turn.end(unrecorded)
        finally:
            lock, users = self._local[chat_id]
            if users <= 1:
                del self._local[chat_id]
            else:
                self._local[chat_id] = (lock, users - 1)


def _thread_of(answer: Message) -> int | None:
    return answer.message_thread_id if answer.is_topic_message else None


class LostSendGuard(BaseRequestMiddleware):
    """Looks for a send Telegram may have applied before it is sent again (module docstring).
    Sits inside the retries, so each ambiguous try is checked before the next."""

    def __init__(self, settle: float = SETTLE) -> None:
        self.settle = settle
        self.turns = Turns()

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        scope = scope_of(bot)  # the update's, from the Bot it sends with (bot/scope.py)
        box = outbox_of(scope)
        send = method if isinstance(method, SendMessage) else None
        if scope is None or box is None or send is None:
            return await make_request(bot, method)
        key = box.key(send)
        digest = send_digest(key)
        journal = scope.journal
        recorded = journal.sent.get(digest) if journal is not None else None
        if key not in box.delivered and recorded is not None and isinstance(send.chat_id, int):
            # Delivered by a run in a process that died or was stopped after writing it down.
            box.delivered[key] = delivered(send, send.chat_id, recorded)
        if key in box.delivered:
            log.info("sendMessage to %s delivered by an earlier run: not sent again", send.chat_id)
            earlier = box.delivered[key]
            if send.chat_id == box.chat_id:
                box.note(earlier.message_id, scope.subject)
            # aiogram's request chain passes the method's result, typed as its Response.
            return cast(Response[TelegramType], earlier)
        target = send.chat_id
        sending = _Sending(send, box, key, journal)
        if not isinstance(target, int) or not _takes_turn(box, target):
            return await self._deliver(make_request, bot, sending, None)
        async with self.turns.held(box.store, target, box.unrecorded) as turn:
            turn.raise_floor = target != box.chat_id
            return await self._deliver(make_request, bot, sending, turn)

    async def _deliver(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        sending: _Sending,
        turn: Turn | None,
    ) -> Response[TelegramType]:
        """The send made once (or found made), what it posted written down: in the
        update's outbox and journal, on the chat's register when it took the turn, and in
        another chat's floor."""
        send, box, key, journal = sending
        digest = send_digest(key)
        if box.after_crash and send.chat_id == box.chat_id:
            found = await self._left_by_the_dead(bot, box, send, turn)
            if found is not None:
                box.delivered[key] = found
                if journal is not None:
                    journal.delivered(digest, found.message_id)
                if turn is not None:
                    turn.post(found.message_id, send.message_thread_id, box.update_id)
                return cast(Response[TelegramType], found)
        answer = await self._send(make_request, bot, send, box, turn)
        result: Any = answer
        if isinstance(result, Message):
            box.delivered[key] = result
            if journal is not None:
                journal.delivered(digest, result.message_id)
            if turn is not None:
                turn.post(result.message_id, _thread_of(result), box.update_id)
            elif send.chat_id != box.chat_id and isinstance(send.chat_id, int):
                await self._raise_floor(box, send.chat_id, result.message_id)
        return answer

    async def _left_by_the_dead(
        self, bot: Bot, box: Outbox, send: SendMessage, turn: Turn | None
    ) -> Message | None:
        """The send as a run that died delivered it, if it did (``Outbox.after_crash``);
        in a forum only while the chat's send turn is held."""
        others = await self._others(box, turn, send)
        if others is None:
            box.after_crash = False
            return None
        floor, passed = others
        found = await find_delivered(bot, box.chat_id, floor, CRASH_PROBE_SPAN, passed)
        if found is None or not await make_it_the_send(bot, box.chat_id, found, send):
            box.after_crash = False  # the dead run got no further: the rest is sent anew
            return None
        log.warning(
            "sendMessage to %d was delivered by a run that died, as %d: not sent again",
            box.chat_id,
            found,
        )
        box.note(found, _subject(bot))
        return delivered(send, box.chat_id, found)

    @staticmethod
    async def _others(
        box: Outbox, turn: Turn | None, send: SendMessage
    ) -> tuple[int, frozenset[int]] | None:
        """Where a search for this send starts (the campaign's floor, or above what the
        update or its command put in the chat) and which messages above it are another
        update's (a forum's register); None when it may not search: Redis away, or a forum
        whose send turn is not held (another topic's send may be on its way)."""
        if box.forum and (turn is None or not await turn.renewed()):
            return None
        try:
            floor = max(await box.store.last_sent(box.where), box.newest, _reply_target(send))
            if not box.forum:
                return floor, frozenset()
            registered = await box.store.posted_above(box.chat_id, floor)
        except STORAGE_ERRORS:
            return None
        mine = box.update_id
        others = (p.message_id for p in registered.values() if not mine or p.update_id != mine)
        return floor, frozenset(others)

    @staticmethod
    async def _raise_floor(box: Outbox, chat_id: int, message_id: int) -> None:
        """A send into another chat than the update's (a hidden roll's notice to the
        Storyteller's private chat) is not serialised with that chat's updates: it raises
        that chat's floor, so a lost send there never takes this message for its own (the
        worst left is a repeat). With Redis away it is raised before that chat's next update
        instead (:class:`Unrecorded`); the send is done either way. A group's takes the
        group's send turn instead, whose end raises it (:func:`_takes_turn`)."""
        try:
            await box.store.note_sent(chat_id, message_id)
        except REDIS_ERRORS:
            if box.unrecorded is not None:
                box.unrecorded.note(chat_id, message_id)

    async def _send(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        send: SendMessage,
        box: Outbox,
        turn: Turn | None,
    ) -> Response[TelegramType]:
        method = cast(TelegramMethod[TelegramType], send)
        if send.chat_id != box.chat_id:
            return await make_request(bot, method)
        try:
            answer = await make_request(bot, method)
        except Exception as error:
            if not _ambiguous(error):
                raise
            found = await self._look(bot, box, send, error, turn)
            if found is None:
                raise
            log.warning(
                "sendMessage to %d failed (%s) but was delivered as %d: not sent again",
                box.chat_id,
                type(error).__name__,
                found,
            )
            box.note(found, _subject(bot))
            # aiogram's request chain passes the method's result, typed as its Response.
            return cast(Response[TelegramType], delivered(send, box.chat_id, found))
        result: Any = answer
        if isinstance(result, Message):
            box.note(result.message_id, _subject(bot))
        return answer

    async def _look(
        self, bot: Bot, box: Outbox, method: SendMessage, error: Exception, turn: Turn | None
    ) -> int | None:
        if isinstance(error, TelegramNetworkError):
            await asyncio.sleep(self.settle)  # a send still on its way lands first
        others = await self._others(box, turn, method)
        if others is None:
            return None
        floor, passed = others
        found = await find_delivered(bot, box.chat_id, floor, others=passed)
        if found is None or not await make_it_the_send(bot, box.chat_id, found, method):
            return None
        return found


class _Sending(NamedTuple):
    send: SendMessage
    box: Outbox
    key: SendKey
    journal: Journal | None


def _takes_turn(box: Outbox, chat_id: int) -> bool:
    """Whether a send to ``chat_id`` takes that chat's send turn (table/store/posts.py): in
    the update's own chat when it is a forum, whose topics send beside each other; into
    another chat when that is a group (which may be a forum the update cannot tell of), so
    no search there takes it for a lost send while it is on its way."""
    if chat_id == box.chat_id:
        return box.forum
    return chat_id < 0
