"""From Telegram to the handlers without losing or repeating an update (docs/product.md §5).

At-least-once delivery with exactly-once effects:

1. An update is put in the Redis inbox before Telegram is told it arrived: polling asks for
   the next batch (which confirms this one) only after the batch is in the inbox; a webhook
   answers 200 only after the update is in it (bot/webhook.py). If Redis is away, nothing is
   confirmed and Telegram keeps the updates.
2. Updates of one chat run one after another, the oldest first (an update a dead replica
   had taken comes back from the inbox after later ones arrived, and goes before them), so
   results in a chat come out in order; different chats run side by side. Across replicas a
   Redis lock per chat does the same (table/store/updates.py). An update whose run died
   mid-way goes before any other of its chat, older or not: until it ran again, the chat's
   next update finds its running mark and does not begin (``Begun.BEHIND``), so nothing of
   the chat finishes in between and what the dead run had sent is found (bot/sent.py).
3. An update leaves the inbox only when it is finished (its writes and replies done). One
   that met Redis or Telegram away stays there and is run again later; one left by a crashed
   process is picked up by the next start (or another replica) — from its journal, so the
   dice and the writes are the same and nothing is paid twice.
4. An update whose result Telegram keeps refusing (5xx or no answer; a 429 is waited out in
   bot/session.py) is run again for ``GIVE_UP_AFTER`` seconds, then dropped: what it spent
   goes back to the sheets in the drop's own step, and the player is told so in reply, once
   Telegram takes messages again. A Redis outage never drops an update: its result comes
   when Redis is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.dispatcher.middlewares.user_context import UserContextMiddleware
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import GetUpdates
from aiogram.types import Message, ReplyParameters, Update
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot import logs, metrics, session
from bot.i18n import choose_locale
from bot.middlewares import (
    PROCESS_TOKEN,
    RETRIED_LATER,
    ChatBusy,
    DeadRunFirst,
    campaign_of,
    update_scope,
)
from bot.names import clean_update
from bot.placed import place_old_presses
from bot.sent import SendKey
from bot.session import FloodBudget
from bot.settings import Settings
from table.scope import Serial
from table.store import REDIS_ERRORS, STORAGE_ERRORS, ChatSettings, Store
from table.store.journal import Dropped

log = logging.getLogger(__name__)

POLL_TIMEOUT = 25  # seconds a long poll waits at Telegram
RECOVER_EVERY = 3.0  # seconds between looks at the inbox for updates nobody is running
BUSY_PAUSE = 0.1  # seconds before the first new try while another replica holds the chat
BUSY_PAUSE_MAX = 1.0  # the pause doubles up to this: a dead holder's lock takes 15 s to go
RETRY_PAUSE = (1.0, 2.0, 5.0, 10.0, 20.0)  # before running an update again after an outage
GIVE_UP_AFTER = 900.0  # seconds of Telegram refusing an update's result before it is dropped
POLL_BACKOFF = (0.5, 1.0, 2.0, 5.0)
POLL_ERRORS: tuple[type[BaseException], ...] = (
    TelegramNetworkError,
    TelegramServerError,
    *REDIS_ERRORS,
)
RUNS_REMEMBERED = 4096  # updates whose earlier runs are remembered for their next run
# How long a fetch waits for an update's first step to keep it in the inbox (folded into that
# step's round-trip) before it writes the update there itself.
KEEP_WAIT = 0.5


@dataclass
class EarlierRuns:
    """What an update's earlier runs in this process did: how many there were (the player
    hears once that the answer will come, bot/middlewares.py) and what they delivered (a run
    again after an outage does not post a result twice, bot/sent.py)."""

    runs: int = 0
    sent: dict[SendKey, Message] = field(default_factory=dict)
    since: float = field(default_factory=time.monotonic)  # its first run here


def _update_id(raw: dict[str, Any]) -> int:
    return int(raw["update_id"])


def _chat_of(update: Update) -> int | None:
    """The chat an update is in, for the log; None outside a chat (an inline query)."""
    chat = UserContextMiddleware.resolve_event_context(update).chat
    return chat.id if chat is not None else None


def _reply_place(update: Update) -> tuple[int, int] | None:
    """(chat, message) a notice about the update replies to: its command, or the message
    whose button was pressed; None outside a chat (an inline query or an inline message)."""
    if update.message is not None:
        return update.message.chat.id, update.message.message_id
    query = update.callback_query
    if query is not None and query.message is not None:
        return query.message.chat.id, query.message.message_id
    return None


def dropped_text(*, refunded: bool, wrote: bool = False) -> str:
    """What the player reads when their update was dropped (in the active locale): what it
    paid is back (``refunded``), but any other change it wrote stays (wounds, a /set, the
    roll in the log): sent again, it would be made twice, so the player is asked to look
    first whenever it wrote anything (``Store.drop_update``)."""
    if refunded:
        return _(
            "The result could not be shown: Telegram refused the bot's messages for too "
            "long. What it spent is back on the sheet; any other change it made stays. "
            "Check before sending it again."
        )
    if wrote:
        return _(
            "The result could not be shown: Telegram refused the bot's messages for too "
            "long. Any change it made stays. Check before sending it again."
        )
    return _(
        "The result could not be shown: Telegram refused the bot's messages for too long. "
        "Try again if it still matters."
    )


class Delivery:
    """Runs updates through the Dispatcher: one worker per busy chat, a recovery loop over
    the inbox, and (in polling mode) the loop that fetches updates."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        bot: Bot,
        store: Store,
        *,
        take_over: bool,
        token: str = PROCESS_TOKEN,
    ) -> None:
        self.dispatcher = dispatcher
        self.bot = bot
        self.store = store
        # Polling has one consumer only: a chat lock found at start is a dead process's.
        self.take_over = take_over
        self.token = token
        settings = self._workflow("settings")
        self.give_up_after = (
            settings.give_up_after if isinstance(settings, Settings) else GIVE_UP_AFTER
        )
        self._queues: dict[Serial, deque[dict[str, Any]]] = {}
        self._workers: dict[Serial, asyncio.Task[None]] = {}
        self._known: set[int] = set()  # update ids queued or running here
        self._parsed: dict[int, Update] = {}  # the queued updates, validated once
        # Fetched updates whose first step is to keep them in the inbox: settled True once
        # it did, False if it could not (the fetch writes them itself then).
        self._keeping: dict[int, asyncio.Future[bool]] = {}
        # Each update's earlier runs here, until it runs to its end.
        self._ran: dict[int, EarlierRuns] = {}
        # By chat: the queued update whose run died mid-way, to run next (``_put_first``).
        self._first: dict[Serial, int] = {}
        self._stopping = asyncio.Event()
        metrics.watch(self)

    def _workflow(self, name: str) -> object:
        """What the Dispatcher hands every handler (bot/app.py): the settings, the i18n."""
        data = getattr(self.dispatcher, "workflow_data", None)
        return data.get(name) if isinstance(data, dict) else None

    # ----- running updates -------------------------------------------------------------------

    def submit(self, raw: dict[str, Any], update: Update | None = None) -> bool:
        """Queue an update (as the Bot API's JSON, and validated if the caller has it)
        behind its chat's earlier ones; False if it is known here already or no Update."""
        update_id = int(raw["update_id"])
        if update_id in self._known:
            return False
        if clean_update(raw):  # names safe to draw before anything reads them (bot/names.py)
            update = None
        try:
            if update is None:
                update = Update.model_validate(raw, context={"bot": self.bot})
            scope = update_scope(update)
        except ValueError:
            log.warning("update %s is not an Update, dropped", update_id)
            return False
        self._known.add(update_id)
        self._parsed[update_id] = update
        metrics.queued(self, update_id)
        self._queues.setdefault(scope, deque()).append(raw)
        if scope not in self._workers:
            self._workers[scope] = asyncio.create_task(self._work(scope))
        return True

    def _idle(self, update: Update) -> bool:
        """Whether the update is the next its chat runs here (nothing of the chat waits, at
        most one runs: mostly one finishing, its reply out): its first step comes at once or
        within moments, so it can keep the update in the inbox."""
        return len(self._queues.get(update_scope(update), ())) <= 1

    async def _work(self, scope: Serial) -> None:
        queue = self._queues[scope]
        try:
            while queue:
                raw = self._next(scope, queue)
                ran = False
                try:
                    ran = await self._run(raw, queue)
                finally:
                    if ran or self._stopping.is_set():
                        queue.remove(raw)
                        self._forget(_update_id(raw))
        finally:
            for left in queue:  # cancelled at shutdown: the inbox keeps them
                self._forget(_update_id(left))
            del self._workers[scope]
            del self._queues[scope]
            self._first.pop(scope, None)

    def _next(self, scope: Serial, queue: deque[dict[str, Any]]) -> dict[str, Any]:
        """The chat's update to run next: one whose run died mid-way (``_put_first``), else
        the oldest (one a dead replica had taken comes back from the inbox after later ones
        were queued here)."""
        first = self._first.pop(scope, None)
        for raw in queue:
            if _update_id(raw) == first:
                return raw
        return min(queue, key=_update_id)

    def _forget(self, update_id: int) -> None:
        self._known.discard(update_id)
        self._parsed.pop(update_id, None)
        self._settle(update_id, kept=False)

    def _settle(self, update_id: int, *, kept: bool) -> None:
        keeping = self._keeping.pop(update_id, None)
        if keeping is not None and not keeping.done():
            keeping.set_result(kept)

    async def _run(self, raw: dict[str, Any], queue: deque[dict[str, Any]]) -> bool:
        """Run the update (True), or leave it for an older one of its chat (False)."""
        update = self._update(raw)
        # One for all its runs here: Telegram's 429s are waited out. Every log record of its
        # runs names the update and its chat (bot/logs.py).
        with logs.about_update(update.update_id, _chat_of(update)):
            return await self._runs(raw, queue, FloodBudget())

    def _closed(self, raw: dict[str, Any], outcome: str, started: float, tries: int) -> None:
        """The update is done here for good: counted once with its final outcome (its
        retries were counted apart, bot/metrics.py), and one log line says so."""
        kind = metrics.update_kind(raw)
        metrics.handled(kind, outcome)
        took = (time.monotonic() - started) * 1000
        log.info(
            "update %d (%s): %s in %.0f ms, %d tr%s",
            _update_id(raw),
            kind,
            outcome,
            took,
            tries,
            "y" if tries == 1 else "ies",
            extra={
                "update_id": _update_id(raw),
                "chat": _chat_of(self._update(raw)),
                "kind": kind,
                "outcome": outcome,
                "duration_ms": round(took),
                "tries": tries,
            },
        )

    async def _runs(
        self, raw: dict[str, Any], queue: deque[dict[str, Any]], budget: FloodBudget
    ) -> bool:
        update_id = int(raw["update_id"])
        tried = 0
        started = time.monotonic()
        last = metrics.Try()  # what the metrics middleware saw of the latest try
        while True:
            earlier = self._earlier(update_id)
            try:
                ran = await self._feed(raw, earlier, queue, last, budget)
            except RETRIED_LATER as error:
                metrics.retried(metrics.update_kind(raw), error)
                if self._stopping.is_set():
                    chat = update_scope(self._update(raw))
                    log.warning("update %d of chat %s left for later: %s", update_id, chat, error)
                    return True
                pause = RETRY_PAUSE[min(tried, len(RETRY_PAUSE) - 1)]
                tried += 1
                overdue = time.monotonic() - earlier.since + pause > self.give_up_after
                if (
                    overdue
                    and not isinstance(error, STORAGE_ERRORS)
                    and await self._drop(raw, started, tried)
                ):
                    self._ran.pop(update_id, None)
                    return True
                log.info("update %d: %s, again in %.0f s", update_id, error, pause)
                await self._pause(pause)
                continue
            except Exception:
                log.exception("update %d failed", update_id)
                self._ran.pop(update_id, None)
                self._closed(raw, "failed", started, tried + 1)
                return True
            if ran:
                self._ran.pop(update_id, None)
                self._closed(raw, last.outcome, started, tried + 1)
            return ran

    async def _drop(self, raw: dict[str, Any], since: float, tries: int) -> bool:
        """Drop an update Telegram refused for :attr:`give_up_after` seconds: what it spent
        goes back in the drop's own step (``Store.drop_update``), then its player is told in
        reply, as soon as Telegram takes the message. False while Redis is away (the update
        is kept: its result may still come)."""
        update = Update.model_validate(raw, context={"bot": self.bot})
        scope = update_scope(update)
        try:
            dropped = await self.store.drop_update(self.bot.id, update.update_id, scope, self.token)
        except REDIS_ERRORS as error:
            log.info("update %d not dropped while Redis is away: %s", update.update_id, error)
            return False
        if dropped is None:  # finished meanwhile (another replica): nothing to undo or say
            return True
        log.warning(
            "update %d of chat %s dropped after %.0f s of Telegram refusing it, %d spend(s) "
            "given back",
            update.update_id,
            scope,
            self.give_up_after,
            len(dropped.refunded),
        )
        self._closed(raw, "given_up", since, tries)
        await self._tell_dropped(update, dropped)
        return True

    async def _tell_dropped(self, update: Update, dropped: Dropped) -> None:
        """The dropped update's notice, a reply to its command (or to the message whose
        button was pressed), tried until Telegram takes it or the bot stops."""
        place = _reply_place(update)
        if place is None:
            return
        chat_id, message_id = place
        campaign = campaign_of(update)
        thread = campaign.thread_id if campaign is not None else None
        text = await self._dropped_text(update, chat_id, dropped)
        reply = ReplyParameters(message_id=message_id, allow_sending_without_reply=True)
        tried = 0
        while not self._stopping.is_set():
            try:
                notice = await self.bot.send_message(
                    chat_id,
                    text,
                    reply_parameters=reply,
                    # its topic's, and General saying so when closed (bot/threads.py)
                    message_thread_id=thread,
                )
            except (TelegramServerError, TelegramNetworkError, TelegramRetryAfter) as error:
                pause = RETRY_PAUSE[min(tried, len(RETRY_PAUSE) - 1)]
                tried += 1
                log.info("chat %d not told of a dropped update yet: %s", chat_id, error)
                await self._pause(pause)
            except TelegramAPIError as error:
                log.warning("chat %d not told of a dropped update: %s", chat_id, error)
                return
            else:
                # Sent outside any update's count: the chat's floor goes over it, so a later
                # search for a lost send never takes it for that send (bot/sent.py).
                with contextlib.suppress(*REDIS_ERRORS):
                    await self.store.note_sent(chat_id, notice.message_id)
                return

    async def _dropped_text(self, update: Update, chat_id: int, dropped: Dropped) -> str:
        i18n = self._workflow("i18n")
        settings = self._workflow("settings")
        default = settings.default_locale if isinstance(settings, Settings) else "ru"
        try:
            chat: ChatSettings | None = await self.store.load_chat(chat_id)
        except REDIS_ERRORS:
            chat = None
        user = update.message.from_user if update.message is not None else None
        if update.callback_query is not None:
            user = update.callback_query.from_user
        locale = choose_locale(chat, user, default)
        told = {"refunded": bool(dropped.refunded), "wrote": dropped.wrote}
        if not isinstance(i18n, I18n):
            return dropped_text(**told)
        with i18n.context(), i18n.use_locale(locale):
            return dropped_text(**told)

    def _earlier(self, update_id: int) -> EarlierRuns:
        if update_id not in self._ran and len(self._ran) >= RUNS_REMEMBERED:
            del self._ran[next(iter(self._ran))]  # the oldest: long left for later
        return self._ran.setdefault(update_id, EarlierRuns())

    async def _feed(
        self,
        raw: dict[str, Any],
        earlier: EarlierRuns,
        queue: deque[dict[str, Any]],
        last: metrics.Try | None = None,
        budget: FloodBudget | None = None,
    ) -> bool:
        # feed_update, not feed_raw_update: that one logs every exception with its traceback,
        # and a chat another replica holds (ChatBusy, tried again after BUSY_PAUSE, then less
        # often) or an outage is not an error; _run logs what is.
        update = self._update(raw)
        pause = BUSY_PAUSE
        while True:
            keeping = update.update_id in self._keeping
            try:
                await self.dispatcher.feed_update(
                    self.bot,
                    update,
                    delivery_token=self.token,
                    take_over=self.take_over,
                    attempt=earlier.runs,
                    sent_before=earlier.sent,
                    inbox_entry=json.dumps(raw, ensure_ascii=False) if keeping else None,
                    on_kept=lambda: self._settle(update.update_id, kept=True),
                    update_try=last if last is not None else metrics.Try(),
                    flood_budget=budget if budget is not None else FloodBudget(),
                )
                return True
            except DeadRunFirst as first:  # not a run: the dead run's update goes first
                if await self._put_first(first.update_id, update_scope(update), queue):
                    return False
            except ChatBusy:  # not a run: the chat was not this replica's yet
                await asyncio.sleep(pause)
                pause = min(pause * 2, max(BUSY_PAUSE, BUSY_PAUSE_MAX))
                # The holder may be a dead replica mid-update: that update is in the inbox
                # (it was before it began) and goes first once the lock runs out (its running
                # mark says so: DeadRunFirst); queued here now, it also keeps its place among
                # the chat's older updates.
                with contextlib.suppress(*REDIS_ERRORS):
                    await self.recover()
                if min(map(_update_id, queue)) < update.update_id:
                    return False  # an older update of the chat came meanwhile: it goes first
            except BaseException:
                earlier.runs += 1
                raise
            finally:  # whatever became of its first step, the fetch stops waiting for it
                self._settle(update.update_id, kept=False)

    async def _put_first(self, dead: int, scope: Serial, queue: deque[dict[str, Any]]) -> bool:
        """Queue the chat's update ``dead``, whose run died mid-way, to run next (True), from
        the inbox unless it is queued here. Not in the inbox any more (finished or dropped
        meanwhile, or run from memory while Redis was away, so Telegram sends it again): its
        running mark is cleared, and the update that found it begins again (False)."""
        if not any(_update_id(raw) == dead for raw in queue):
            entry = await self.store.inbox_entry(self.bot.id, dead)
            raw: Any = None
            with contextlib.suppress(ValueError):
                raw = json.loads(entry) if entry is not None else None
            if isinstance(raw, dict) and raw.get("update_id") == dead:
                self.submit(raw)
        if any(_update_id(raw) == dead for raw in queue):
            self._first[scope] = dead
            return True
        if dead in self._known:  # queued or running here for another chat: it clears the mark
            await asyncio.sleep(BUSY_PAUSE)
        else:
            await self.store.unmark(self.bot.id, scope, dead)
        return False

    def _update(self, raw: dict[str, Any]) -> Update:
        known = self._parsed.get(_update_id(raw))
        return known if known is not None else Update.model_validate(raw, context={"bot": self.bot})

    def waiting(self) -> dict[Serial, list[int]]:
        """The ids of the updates queued or being handled here, by chat (bot/metrics.py)."""
        return {scope: [_update_id(raw) for raw in queue] for scope, queue in self._queues.items()}

    def send_budgets(self) -> metrics.SendBudgets:
        """What Telegram's limits leave this bot to send now (bot/metrics.py)."""
        return session.send_budgets(self.bot)

    # ----- the inbox -------------------------------------------------------------------------

    async def recover(self) -> int:
        """Queue the inbox's updates that nobody here runs (a crash's, an outage's); how many."""
        pending = await self.store.inbox(self.bot.id)
        found = 0
        for update_id in sorted(pending):
            if update_id in self._known:
                continue
            try:
                raw = json.loads(pending[update_id])
            except ValueError:
                continue
            self.submit(raw)
            found += 1
        if found:
            log.info("%d update(s) picked up from the inbox", found)
        return found

    async def recover_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.recover()
            except REDIS_ERRORS as error:
                metrics.redis_error("inbox")
                log.warning("inbox not read: %s", error)
            except Exception:
                log.exception("inbox not read")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), RECOVER_EVERY)

    async def receive(
        self, raws: list[dict[str, Any]], updates: list[Update] | None = None
    ) -> None:
        """Keep updates in the inbox and queue them (raises if Redis is away); ``updates``:
        the same, validated, when the caller has them.

        An update its chat runs at once is kept in the inbox by its own first step, in that
        step's round-trip (``begin_update``); the others (a chat busy here, a cluster, where
        the inbox is in a slot of its own) by one write for the batch, before they are
        queued. Either way this returns only once every update is in the inbox."""
        parsed: list[Update | None] = list(updates) if updates is not None else [None] * len(raws)
        folded: dict[int, asyncio.Future[bool]] = {}
        rest: list[tuple[dict[str, Any], Update | None]] = []
        loop = asyncio.get_running_loop()
        batch: set[Serial] = set()  # the chats with an update earlier in this batch
        for raw, update in zip(raws, parsed, strict=True):
            update_id = _update_id(raw)
            scope = update_scope(update) if update is not None else None
            first = (
                update is not None
                and not self.store.cluster
                and update_id not in self._known
                and scope not in batch
                and self._idle(update)
            )
            if scope is not None:
                batch.add(scope)
            if first:
                self._keeping[update_id] = folded[update_id] = loop.create_future()
                if self.submit(raw, update):
                    continue
                self._settle(update_id, kept=False)
                del folded[update_id]
            rest.append((raw, update))
        await self._keep([raw for raw, _update in rest])
        for raw, update in rest:
            self.submit(raw, update)
        if folded:
            await asyncio.wait(folded.values(), timeout=KEEP_WAIT)
            missed = {k for k, f in folded.items() if not f.done() or not f.result()}
            await self._keep([raw for raw in raws if _update_id(raw) in missed])

    async def _keep(self, raws: list[dict[str, Any]]) -> None:
        if not raws:
            return
        await self.store.inbox_add(
            self.bot.id,
            {_update_id(raw): json.dumps(raw, ensure_ascii=False) for raw in raws},
        )

    async def receive_or_hold(
        self, raws: list[dict[str, Any]], updates: list[Update] | None = None
    ) -> None:
        """:meth:`receive`; while Redis is away, the updates are run from memory all the same
        (and the error raised, so they are not confirmed: Telegram keeps them). Each player
        hears at once, in reply, that the answer will come, and gets it once Redis is back."""
        # kept in the inbox as they are drawn, and old presses in the topic they belong to
        placed = set(await place_old_presses(self.store, raws))
        changed = [clean_update(raw) or n in placed for n, raw in enumerate(raws)]
        if updates is not None and any(changed):
            updates = [
                Update.model_validate(raw, context={"bot": self.bot}) if again else update
                for raw, update, again in zip(raws, updates, changed, strict=True)
            ]
        try:
            await self.receive(raws, updates)
        except REDIS_ERRORS:
            for index, raw in enumerate(raws):
                self.submit(raw, updates[index] if updates is not None else None)
            raise

    # ----- polling ---------------------------------------------------------------------------

    async def poll(self, allowed_updates: list[str]) -> None:
        """Long polling where a batch is confirmed (by asking for the next one) only once it
        is in the inbox."""
        offset: int | None = None
        failures = 0
        while not self._stopping.is_set():
            try:
                updates = await self.bot(
                    GetUpdates(
                        offset=offset, timeout=POLL_TIMEOUT, allowed_updates=allowed_updates
                    ),
                    request_timeout=POLL_TIMEOUT + 10,
                )
                if updates:
                    raws = [
                        u.model_dump(mode="json", by_alias=True, exclude_none=True) for u in updates
                    ]
                    await self.receive_or_hold(raws, list(updates))
                    offset = updates[-1].update_id + 1
                failures = 0
            except POLL_ERRORS as error:
                metrics.redis_error("polling", error)
                pause = POLL_BACKOFF[min(failures, len(POLL_BACKOFF) - 1)]
                failures += 1
                log.warning("polling paused %.1f s: %s", pause, error)
                await self._pause(pause)
            except TelegramRetryAfter as error:
                metrics.too_many_requests(float(error.retry_after))
                await self._pause(float(error.retry_after))
            except Exception:
                # Polling must outlive anything: the updates stay unconfirmed at Telegram.
                pause = POLL_BACKOFF[min(failures, len(POLL_BACKOFF) - 1)]
                failures += 1
                log.exception("polling paused %.1f s", pause)
                await self._pause(pause)

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)

    # ----- stopping --------------------------------------------------------------------------

    def stop(self) -> None:
        self._stopping.set()

    async def drain(self, grace: float) -> int:
        """Wait up to ``grace`` seconds for the chats' queues; what is left stays in the
        inbox for the next start. Returns how many chats were still busy."""
        workers = set(self._workers.values())
        if not workers:
            return 0
        _done, pending = await asyncio.wait(workers, timeout=grace)
        for task in pending:
            task.cancel()
        return len(pending)
