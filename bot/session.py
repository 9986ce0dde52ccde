"""The bot's HTTP session to the Bot API: retries, throttling, and quiet edits (docs/product.md §5).

Telegram answers 429 with ``retry_after`` when a group is flooded, 5xx when it is restarting,
and the network sometimes drops. A request is retried only when that cannot send a message
twice: 429 and 5xx mean Telegram did not apply it; a lost connection is retried for a send
only if it never reached the server. 4xx answers are never retried. An answer that is not the
Bot API's JSON (a front's HTML error page, an empty or cut body) is read by its status: a
5xx is a 5xx (:class:`UnreadableAnswer`), a 4xx a refusal (:class:`UnreadableRefusal`).

Sends are throttled to Telegram's published limits (about 20 messages a minute in one group,
about 30 a second overall), with a margin because Telegram counts on its own clock after the
transit: 20 in any 61 seconds in a group, 25 a second overall. The limiter only delays a send
that would exceed a limit, so normal play sees no added latency.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Sequence
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, cast

from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.session.base import BaseSession
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramEntityTooLarge,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import (
    AnswerCallbackQuery,
    GetUpdates,
    Response,
    SendMessage,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import InaccessibleMessage, InlineKeyboardMarkup, Message, ReplyParameters
from aiohttp import ClientConnectorError
from pydantic import ValidationError

from bot import metrics
from bot.scope import scope_of, scoped_bot
from bot.sent import LostSendGuard
from bot.threads import InCampaignThread
from table.scope import FLOOD_WAIT_BUDGET as FLOOD_WAIT_BUDGET
from table.scope import FloodBudget as FloodBudget
from table.scope import Scope
from table.store import REDIS_ERRORS
from table.store.lease import Lease

if TYPE_CHECKING:
    from aiogram import Bot

    from bot.settings import Settings

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]

GROUP_LIMIT = 20  # messages per minute in one group
GROUP_PERIOD = 61.0  # a second of slack: Telegram counts on its own clock, after the transit
GLOBAL_LIMIT = 25  # messages per second overall (Telegram allows about 30: a margin for transit)
GLOBAL_PERIOD = 1.0

# Methods that put a new message in a chat: these are throttled, and never re-sent after a
# connection loss that may have happened after Telegram applied them.
_MESSAGE_METHODS = frozenset({"copyMessage", "copyMessages", "forwardMessage", "forwardMessages"})


def is_message_send(method: TelegramMethod[Any]) -> bool:
    name = method.__api_method__
    return (name.startswith("send") and name != "sendChatAction") or name in _MESSAGE_METHODS


def _never_reached_server(error: TelegramNetworkError) -> bool:
    return isinstance(error.__cause__, ClientConnectorError)


def with_flood_budget(bot: Bot, seconds: float = FLOOD_WAIT_BUDGET) -> Bot:
    """``bot`` for calls outside an update that wait out Telegram's 429s within ``seconds``
    all together (a chat's command menu, bot/commands.py): a Bot bound to a scope of its own
    that holds only that budget (bot/scope.py)."""
    return scoped_bot(bot, Scope(flood_budget=FloodBudget(seconds)))


class RetryMiddleware(BaseRequestMiddleware):
    """Waits out 429 for as long as Telegram asks, and retries 5xx and network errors with
    backoff and jitter.

    A 429 was not applied, and the result behind it may be paid for already: it is waited
    out within the update's :class:`FloodBudget` (ten minutes, far above what Telegram asks;
    ``flood_wait`` per request outside an update) and does not count as a try. Other errors
    get at most ``attempts`` tries and ``max_total`` seconds of waiting, after which the
    update is run again later (bot/delivery.py).
    """

    def __init__(
        self,
        *,
        attempts: int = 4,
        base_delay: float = 0.5,
        max_delay: float = 4.0,
        max_total: float = 30.0,
        flood_wait: float = FLOOD_WAIT_BUDGET,
        sleep: Sleep = asyncio.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.flood_wait = flood_wait
        self.attempts = attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_total = max_total
        self.sleep = sleep
        self.jitter = jitter

    def backoff(self, attempt: int) -> float:
        """Exponential, capped, with "equal jitter" so replicas do not retry in lockstep."""
        ceiling = min(self.max_delay, self.base_delay * 2**attempt)
        return float(ceiling / 2 + self.jitter() * ceiling / 2)

    def _delay(self, error: Exception, method: TelegramMethod[Any], attempt: int) -> float | None:
        if isinstance(error, TelegramServerError):
            return self.backoff(attempt)
        if isinstance(error, TelegramNetworkError) and not isinstance(
            error, TelegramEntityTooLarge
        ):
            if is_message_send(method) and not _never_reached_server(error):
                return None
            return self.backoff(attempt)
        return None

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if method.__api_method__ == GetUpdates.__api_method__:
            # The polling loop has its own backoff, and must stay responsive to shutdown.
            return await make_request(bot, method)
        waited = 0.0
        attempt = 0
        scope = scope_of(bot)  # the update's, from the Bot it calls with (bot/scope.py)
        budget = scope.flood_budget if scope is not None else None
        if budget is None:
            budget = FloodBudget(self.flood_wait)
        while True:
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as error:
                await self._wait_out(error, method, budget)
            except (TelegramServerError, TelegramNetworkError) as error:
                delay = self._delay(error, method, attempt)
                attempt += 1
                if delay is None or attempt >= self.attempts or waited + delay > self.max_total:
                    if isinstance(error, TelegramRetryAfter):
                        metrics.too_many_requests(0.0)
                    raise
                if isinstance(error, TelegramRetryAfter):
                    metrics.too_many_requests(delay)
                log.warning(
                    "%s failed (%s), retry %d in %.2f s",
                    method.__api_method__,
                    type(error).__name__,
                    attempt,
                    delay,
                )
                waited += delay
                await self.sleep(delay)

    async def _wait_out(
        self, error: TelegramRetryAfter, method: TelegramMethod[Any], budget: FloodBudget
    ) -> None:
        delay = float(error.retry_after)
        chat_id = getattr(method, "chat_id", None)
        if delay > budget.left:
            log.warning(
                "%s to chat %s: Telegram asks to wait %.0f s, %.0f s of the update's budget left",
                method.__api_method__,
                chat_id,
                delay,
                budget.left,
            )
            metrics.too_many_requests(0.0)
            raise error
        metrics.too_many_requests(delay)
        budget.left -= delay
        log.warning(
            "%s to chat %s: flood control, waiting %.0f s as Telegram asks",
            method.__api_method__,
            chat_id,
            delay,
        )
        await self.sleep(delay)


class SlidingWindow:
    """At most ``limit`` events per ``period`` seconds per key, by reserving time slots.

    Each caller reserves the earliest slot that keeps every window within the limit and
    sleeps until then; no lock is needed because reserving is synchronous. Keys that have
    been idle for a whole period are forgotten, so memory does not grow with chats.
    """

    def __init__(self, limit: int, period: float, clock: Clock = time.monotonic) -> None:
        self.limit = limit
        self.period = period
        self.clock = clock
        self._slots: dict[Hashable, deque[float]] = {}
        self._reservations = 0

    def reserve(self, key: Hashable) -> float:
        """Reserve a slot for ``key``; return how long to wait before using it."""
        now = self.clock()
        slots = self._slots.setdefault(key, deque())
        while slots and slots[0] <= now - self.period:
            slots.popleft()
        slot = now if len(slots) < self.limit else max(now, slots[-self.limit] + self.period)
        slots.append(slot)
        self._reservations += 1
        if self._reservations % 1024 == 0:
            self._forget_idle(now)
        return slot - now

    def note(self, key: Hashable, delay: float) -> None:
        """Mirror a slot reserved elsewhere (the shared budget in Redis) ``delay`` seconds
        from now: /metrics reads what is left here, and while Redis is away this window
        goes on from the sends it has seen instead of from nothing."""
        now = self.clock()
        slots = self._slots.setdefault(key, deque())
        while slots and slots[0] <= now - self.period:
            slots.popleft()
        slots.append(now + max(delay, 0.0))

    def _forget_idle(self, now: float) -> None:
        idle = [k for k, s in self._slots.items() if not s or s[-1] <= now - self.period]
        for key in idle:
            del self._slots[key]

    def __len__(self) -> int:
        return len(self._slots)


def _is_group(chat_id: object) -> TypeGuard[int | str]:
    # Group and channel ids are negative; a string is a public @channel or @supergroup.
    return isinstance(chat_id, str) or (isinstance(chat_id, int) and chat_id < 0)


# Told whenever the sends a group's budget holds back change: the chat, how many are held,
# and how many seconds until the last of them may go (0 when none is held).
HoldListener = Callable[[int | str, int, float], None]


class SharedBudget(Protocol):
    """The send budget every replica shares (``table.store.Store.reserve_send``)."""

    async def reserve_send(
        self,
        bot_id: int,
        windows: Sequence[tuple[int | str | None, int, float]],
        lease: Lease | None = None,
    ) -> float: ...


def _lease_of(bot: Bot) -> Lease | None:
    """The send slot the sending update's first round-trip reserved (its scope's journal)."""
    scope = scope_of(bot)
    journal = scope.journal if scope is not None else None
    return journal.lease if journal is not None else None


class RateLimitMiddleware(BaseRequestMiddleware):
    """Throttles message sends: per group (20/min) and overall (30/s).

    With ``shared`` (the Store) the budget is kept in Redis, one for every replica and across
    restarts, since Telegram counts per token; while Redis is away each process keeps its own
    as before, the better guess there is.

    ``on_hold`` lets a watcher see the replies a group's budget is holding back, so the
    playground can say why the bot is silent instead of leaving the group wondering
    (``bot/playground.py``).
    """

    def __init__(
        self,
        *,
        shared: SharedBudget | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        on_hold: HoldListener | None = None,
    ) -> None:
        self.groups = SlidingWindow(GROUP_LIMIT, GROUP_PERIOD, clock)
        self.overall = SlidingWindow(GLOBAL_LIMIT, GLOBAL_PERIOD, clock)
        self.shared = shared
        self.clock = clock
        self.sleep = sleep
        self.on_hold = on_hold
        self._held: dict[int | str, list[float]] = {}  # a group's held sends: release times

    async def _hold(self, chat_id: int | str, delay: float) -> None:
        release = self.clock() + delay
        held = self._held.setdefault(chat_id, [])
        held.append(release)
        self._tell(chat_id)
        try:
            await self.sleep(delay)
        finally:
            held.remove(release)
            if not held:
                del self._held[chat_id]
            self._tell(chat_id)

    def _tell(self, chat_id: int | str) -> None:
        if self.on_hold is None:
            return
        held = self._held.get(chat_id, [])
        self.on_hold(chat_id, len(held), max(0.0, max(held, default=0.0) - self.clock()))

    async def _reserve(
        self, bot_id: int, group: int | str | None, lease: Lease | None = None
    ) -> float:
        """How long the send waits: the group's minute (for a group) and the bot's second,
        reserved in one step of the shared budget (the sending update's ``lease``, reserved by
        its first round-trip, when it fits), or here while Redis is away."""
        windows: list[tuple[SlidingWindow, Hashable, int | str | None, int, float]] = [
            (self.overall, bot_id, None, GLOBAL_LIMIT, GLOBAL_PERIOD)
        ]
        if group is not None:
            windows.insert(0, (self.groups, (bot_id, group), group, GROUP_LIMIT, GROUP_PERIOD))
        if self.shared is not None:
            try:
                delay = await self.shared.reserve_send(
                    bot_id,
                    [(chat, limit, period) for _w, _k, chat, limit, period in windows],
                    lease,
                )
            except REDIS_ERRORS as error:
                log.info("send budget kept here while Redis is away: %s", error)
            else:
                for window, key, *_rest in windows:
                    window.note(key, delay)
                return delay
        return max(window.reserve(key) for window, key, *_rest in windows)

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if is_message_send(method):
            chat_id = getattr(method, "chat_id", None)
            group = chat_id if isinstance(chat_id, int | str) and _is_group(chat_id) else None
            delay = await self._reserve(bot.id, group, _lease_of(bot))
            if delay > 0 and group is not None:
                log.info("group %s is at Telegram's limit, send delayed %.1f s", group, delay)
                await self._hold(group, delay)
            elif delay > 0:
                await self.sleep(delay)
        return await make_request(bot, method)


class CallbackAnswerTracker(BaseRequestMiddleware):
    """Notes every successful answerCallbackQuery for the update being handled."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        result = await make_request(bot, method)
        # The error middleware gives each update a fresh set in its scope: this is how "every
        # callback query is answered exactly once" survives a handler that fails half-way.
        scope = scope_of(bot)
        answered = scope.answered if scope is not None else None
        if answered is not None and isinstance(method, AnswerCallbackQuery):
            answered.add(method.callback_query_id)
        return result


class ReplyToCommand(BaseRequestMiddleware):
    """In a group, a message the bot sends while handling a command is a reply to it, so
    when several players roll at once each result sits under its own command (docs/product.md §5).
    A send that already says what it replies to is left alone, and a deleted command does
    not stop the reply (``allow_sending_without_reply``)."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        # The group command the update answers (chat id, message id), from its scope: the
        # state middleware sets it for a message in a group.
        scope = scope_of(bot)
        command = scope.command if scope is not None else None
        if (
            command is not None
            and isinstance(method, SendMessage)
            and method.chat_id == command[0]
            and method.reply_parameters is None
            and method.reply_to_message_id is None
        ):
            method.reply_parameters = ReplyParameters(
                message_id=command[1], allow_sending_without_reply=True
            )
        return await make_request(bot, method)


class SayUnderstood(BaseRequestMiddleware):
    """A command the bot read otherwise than typed (table/typos.py: «/к 7 6» on the Russian
    layout ran as «/r 7 6») says so at the top of its first answer in that chat, «Поняли как
    /r 7 6», so a player learns what ran without a second message."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        scope = scope_of(bot)
        understood = scope.understood if scope is not None else None
        if scope is not None and understood is not None and isinstance(method, SendMessage):
            chat_id, note = understood
            if method.chat_id == chat_id and isinstance(method.text, str):
                scope.understood = None
                method.text = note + "\n" + method.text
        return await make_request(bot, method)


class ExpiredCallbackAnswers(BaseRequestMiddleware):
    """A callback answered too late (an update run again after a crash or an outage) gets
    Telegram's "query is too old": the player has long seen the spinner stop, and the rest
    of the update (the edit with the result) must still happen."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        try:
            return await make_request(bot, method)
        except TelegramBadRequest as error:
            if isinstance(method, AnswerCallbackQuery) and "query is too old" in error.message:
                log.info("callback %s answered too late", method.callback_query_id)
                # aiogram's request chain passes the method's result, typed as its Response.
                return cast(Response[TelegramType], True)
            raise


class PinResponseTypes(BaseRequestMiddleware):
    """Keeps every ``Response[T]`` class aiogram asks for alive for the life of the process.

    aiogram parametrises ``Response[method.__returning__]`` for each answer, and pydantic
    caches parametrised generics only weakly: the garbage collector kept dropping them and
    each was rebuilt from its schema, about a millisecond of CPU per reply (bench/e2e.py).
    """

    def __init__(self) -> None:
        self._pinned: dict[Any, Any] = {}

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        returning = method.__returning__
        if returning not in self._pinned:
            self._pinned[returning] = Response[returning]  # type: ignore[valid-type]
        return await make_request(bot, method)


# What Telegram's answer to a send or an edit echoes back that nothing in the bot reads: the
# message it replies to (a whole message of its own, with its sender, chat and entities) and
# the entities the HTML of its text made (one per bold die of a roll).
ECHOED = ("reply_to_message", "entities")
# What the methods answered with a message return: a send's, and an edit's (True inline).
_MESSAGE_ANSWERS = (Message, Message | bool)


class LeanAnswers(BaseSession):
    """Reads the answer to a send or an edit without what it echoes back (:data:`ECHOED`).

    aiogram builds a model for every object of an answer, a few microseconds each, and the
    answer to a roll's result holds a dozen that only repeat what the bot sent: about 6% of
    a roll's CPU (bench/README.md, ``cpu.py``). The bot needs the message's id, chat, text
    and keyboard, as bot/sent.py's ``delivered`` does; those stay, and the caller still gets
    a real ``Message`` (code that wants the dropped parts takes them from what it sent).
    Every other answer, and any that is not a plain success (an error, a 429, a body that is
    not JSON), is read exactly as aiogram reads it.
    """

    def check_response(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        status_code: int,
        content: str,
    ) -> Response[TelegramType]:
        try:
            return self._check(bot, method, status_code, content)
        except ClientDecodeError as error:
            raise unreadable(method, status_code, content) from error

    def _check(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        status_code: int,
        content: str,
    ) -> Response[TelegramType]:
        answer = self._sent(method, status_code, content)
        if answer is None:
            # A proxy's page where the Bot API should be is read by check_response above
            # (:func:`unreadable`); at start-up a 5xx one is retried, then exit 3
            # (bot/launch.py), a 4xx one is a wrong setting.
            return super().check_response(bot, method, status_code, content)
        try:
            read = Response[method.__returning__].model_validate(  # type: ignore[name-defined]
                answer, context={"bot": bot}
            )
        except ValidationError as error:
            raise ClientDecodeError("Failed to deserialize object", error, answer) from error
        return cast(Response[TelegramType], read)

    def _sent(
        self, method: TelegramMethod[Any], status_code: int, content: str
    ) -> dict[str, Any] | None:
        """A send's or an edit's successful answer, without its echoes; None for any other."""
        if method.__returning__ not in _MESSAGE_ANSWERS or status_code != HTTPStatus.OK:
            return None
        try:
            answer = self.json_loads(content)
        except ValueError:
            return None
        sent = answer.get("result") if isinstance(answer, dict) and answer.get("ok") else None
        if not isinstance(sent, dict):
            return None
        for echoed in ECHOED:
            sent.pop(echoed, None)
        return cast(dict[str, Any], answer)


class UnreadableAnswer(TelegramServerError):
    """An answer that is not the Bot API's JSON (a front's HTML error page, an empty or cut
    body) with a status that refuses nothing: a 5xx, or a 2xx whose body was cut. Telegram
    may have applied the call, so it is handled as a 5xx is: retried with backoff, a send
    looked for before it is sent again (bot/sent.py), the update run again later."""


class UnreadableRefusal(TelegramAPIError):
    """A 4xx whose body is not the Bot API's JSON (a front refusing the call with a page of
    its own): not applied, and not retried either, since nothing says a retry would fare
    better; the update ends and the failure is reported (bot/middlewares.py)."""


PAGE_EXCERPT = 80  # characters of an unreadable body kept in the error, for the log


def unreadable(method: TelegramMethod[Any], status_code: int, content: str) -> TelegramAPIError:
    """The error for an answer aiogram could not read (``ClientDecodeError``), by its status:
    aiogram reads the body before the status, so a front's 502 page would otherwise be an
    error nothing knows how to handle (ARCHITECTURE.md, "Nothing lost, nothing twice")."""
    message = f"HTTP {status_code}, not the Bot API's answer: {not_the_api(content)}"
    if HTTPStatus.BAD_REQUEST <= status_code < HTTPStatus.INTERNAL_SERVER_ERROR:
        return UnreadableRefusal(method=method, message=message)
    return UnreadableAnswer(method=method, message=message)


def not_the_api(content: str) -> str:
    """A short description of an answer that is not the Bot API's, for the log and stderr:
    a page's title (a proxy's «502 Bad Gateway», a captive portal's sign-in page)."""
    title = _TITLE.search(content[:4096])
    if title is not None:
        return f"an HTML page: {' '.join(title.group(1).split())[:PAGE_EXCERPT]}"
    head = content[:512].lstrip().lower()
    if head.startswith(("<!doctype html", "<html")) or "<html" in head:
        return "an HTML page"
    line = " ".join(content.split())
    return line[:PAGE_EXCERPT] if line else "an empty body"


_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


class BotSession(LeanAnswers, AiohttpSession):
    """aiohttp's session to the Bot API, reading the answers to sends the lean way."""


def make_session(
    settings: Settings,
    shared: SharedBudget | None = None,
    *,
    limiter: RateLimitMiddleware | None = None,
) -> AiohttpSession:
    """The session for TELEGRAM_API_URL (a self-hosted or the tests' fake Bot API server);
    ``shared``: the send budget all replicas keep in Redis (the Store); ``limiter``: a send
    limiter of the caller's (the playground watches its holds)."""
    session = BotSession(api=TelegramAPIServer.from_base(settings.telegram_api_url))
    install_middlewares(session, shared, limiter=limiter)
    return session


def install_middlewares(
    session: BaseSession,
    shared: SharedBudget | None = None,
    *,
    limiter: RateLimitMiddleware | None = None,
) -> None:
    """Retries outside the limiter, so every retried attempt is throttled too; a send whose
    answer was lost is looked for between the two, before it is tried again (bot/sent.py).
    ``limiter`` is one with a watcher (the playground's); by default a plain one."""
    session.middleware(PinResponseTypes())
    session.middleware(ExpiredCallbackAnswers())
    session.middleware(ReplyToCommand())
    session.middleware(SayUnderstood())
    session.middleware(InCampaignThread())  # inside the reply: a fallback replies to nothing
    session.middleware(CallbackAnswerTracker())
    session.middleware(RetryMiddleware())
    session.middleware(LostSendGuard())
    session.middleware(limiter or RateLimitMiddleware(shared=shared))


def is_not_modified(error: TelegramBadRequest) -> bool:
    return "message is not modified" in error.message


async def safe_edit(
    message: Message | InaccessibleMessage,
    text: str,
    reply_markup: InlineKeyboardMarkup | None = None,
    **kwargs: Any,
) -> bool:
    """Edit a message's text in place; True if it changed, False if it was already so.

    A double tap or a re-rendered identical result produces the same text, and Telegram
    rejects such an edit with 400 "message is not modified"; for the player nothing went
    wrong, so that answer is a success, not an exception. Works for an
    inaccessible (too old) callback message as well, through its chat and id.
    """
    bot = message.bot
    if bot is None:
        raise RuntimeError("message is not bound to a Bot")
    try:
        await bot.edit_message_text(
            text=text,
            chat_id=message.chat.id,
            message_id=message.message_id,
            reply_markup=reply_markup,
            **kwargs,
        )
    except TelegramBadRequest as error:
        if is_not_modified(error):
            return False
        raise
    return True


def send_budgets(bot: Bot) -> tuple[int | None, dict[str, int], int | None]:
    """Sends left now under Telegram's limits (:class:`RateLimitMiddleware`): overall this
    second, per group this minute for the groups that sent lately, and the per-group limit;
    (None, {}, None) when the bot's session has no limiter (bot/metrics.py reads them)."""

    def left(window: SlidingWindow, key: object, now: float) -> int:
        slots = window._slots.get(key, ())  # the limiter's own reservations
        used = sum(1 for slot in slots if slot > now - window.period)
        return max(window.limit - used, 0)

    for middleware in bot.session.middleware:
        if isinstance(middleware, RateLimitMiddleware):
            now = middleware.overall.clock()
            groups = {
                str(key[1]): left(middleware.groups, key, now)
                for key in list(middleware.groups._slots)
                if isinstance(key, tuple) and key[0] == bot.id
            }
            return left(middleware.overall, bot.id, now), groups, middleware.groups.limit
    return None, {}, None
