"""The Bot API session: retries against a tiny HTTP server, the send limiter, quiet edits."""

from __future__ import annotations

import asyncio
import datetime
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramBadRequest,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import EditMessageText, GetUpdates, SendMessage
from aiogram.types import Chat, InlineKeyboardMarkup, Message
from aiohttp import web
from aiohttp.test_utils import TestServer
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.scope import scoped_bot
from bot.session import (
    GLOBAL_LIMIT,
    GROUP_LIMIT,
    GROUP_PERIOD,
    BotSession,
    FloodBudget,
    RateLimitMiddleware,
    RetryMiddleware,
    SlidingWindow,
    UnreadableAnswer,
    UnreadableRefusal,
    safe_edit,
    with_flood_budget,
)
from table.scope import Scope
from table.store import Store
from table.store.journal import Journal
from table.store.lease import Lease
from tests.bot.telegram_fakes import TOKEN, make_bot

OK_MESSAGE = {
    "ok": True,
    "result": {
        "message_id": 10,
        "date": 1_700_000_000,
        "chat": {"id": -100, "type": "supergroup", "title": "T"},
        "text": "hi",
    },
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ScriptedApi:
    """Answers each call with the next scripted (status, body); records arrival times."""

    def __init__(self, script: list[tuple[int, dict[str, Any]]]) -> None:
        self.script = script
        self.arrivals: list[float] = []

    async def handle(self, request: web.Request) -> web.Response:
        self.arrivals.append(time.monotonic())
        status, body = self.script.pop(0) if self.script else (200, OK_MESSAGE)
        return web.json_response(body, status=status)


@asynccontextmanager
async def api_bot(api: ScriptedApi, retry: RetryMiddleware) -> AsyncIterator[Bot]:
    app = web.Application()
    app.router.add_post("/bot{token}/{method}", api.handle)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    # The production session (bot/session.py), so errors are read through its lean answers.
    session = BotSession(api=TelegramAPIServer.from_base(str(server.make_url(""))))
    session.middleware(retry)
    bot = Bot(token=TOKEN, session=session)
    try:
        yield bot
    finally:
        await session.close()
        await server.close()


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


async def test_429_waits_retry_after_then_succeeds() -> None:
    api = ScriptedApi(
        [
            (
                429,
                {
                    "ok": False,
                    "error_code": 429,
                    "description": "Too Many Requests: retry after 1",
                    "parameters": {"retry_after": 1},
                },
            )
        ]
    )
    async with api_bot(api, RetryMiddleware()) as bot:
        message = await bot.send_message(-100, "hi")
    assert message.message_id == 10
    assert len(api.arrivals) == 2  # applied once: the 429 attempt was not applied by Telegram
    assert api.arrivals[1] - api.arrivals[0] >= 0.95


async def test_5xx_backs_off_then_succeeds(sleeps: Sleeps) -> None:
    error = {"ok": False, "error_code": 502, "description": "Bad Gateway"}
    api = ScriptedApi([(500, error), (502, error)])
    retry = RetryMiddleware(base_delay=0.5, max_delay=4.0, sleep=sleeps, jitter=lambda: 1.0)
    async with api_bot(api, retry) as bot:
        message = await bot.send_message(-100, "hi")
    assert message.message_id == 10
    assert len(api.arrivals) == 3
    assert sleeps.delays == [0.5, 1.0]  # exponential: base, 2 x base (jitter at its top)


async def test_4xx_is_never_retried(sleeps: Sleeps) -> None:
    api = ScriptedApi(
        [(400, {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"})]
    )
    async with api_bot(api, RetryMiddleware(sleep=sleeps)) as bot:
        with pytest.raises(TelegramBadRequest):
            await bot.send_message(-100, "hi")
    assert len(api.arrivals) == 1
    assert sleeps.delays == []


async def test_retries_are_bounded(sleeps: Sleeps) -> None:
    error = {"ok": False, "error_code": 500, "description": "Internal Server Error"}
    api = ScriptedApi([(500, error)] * 10)
    async with api_bot(api, RetryMiddleware(attempts=3, sleep=sleeps)) as bot:
        with pytest.raises(Exception, match="Internal Server Error"):
            await bot.send_message(-100, "hi")
    assert len(api.arrivals) == 3
    assert len(sleeps.delays) == 2


async def test_retry_after_beyond_the_cap_is_not_waited(sleeps: Sleeps) -> None:
    api = ScriptedApi(
        [
            (
                429,
                {
                    "ok": False,
                    "error_code": 429,
                    "description": "Too Many Requests",
                    "parameters": {"retry_after": 3600},
                },
            )
        ]
    )
    async with api_bot(api, RetryMiddleware(max_total=30, sleep=sleeps)) as bot:
        with pytest.raises(Exception, match="Too Many Requests"):
            await bot.send_message(-100, "hi")
    assert sleeps.delays == []


def flood(seconds: int) -> tuple[int, dict[str, Any]]:
    return (
        429,
        {
            "ok": False,
            "error_code": 429,
            "description": f"Too Many Requests: retry after {seconds}",
            "parameters": {"retry_after": seconds},
        },
    )


async def test_flood_control_is_waited_out_as_long_as_telegram_asks(sleeps: Sleeps) -> None:
    """A restarted bot meets a group's flood control: Telegram asks for 54 s again and again.
    Each wait is taken in full, and a 429 is no try: the result still goes out."""
    api = ScriptedApi([flood(54)] * 6)
    async with api_bot(api, RetryMiddleware(sleep=sleeps)) as bot:
        message = await bot.send_message(-100, "hi")
    assert message.message_id == 10
    assert sleeps.delays == [54.0] * 6


async def test_the_update_s_flood_budget_is_shared_by_its_requests(sleeps: Sleeps) -> None:
    api = ScriptedApi([flood(54), (200, OK_MESSAGE), flood(54)])
    async with api_bot(api, RetryMiddleware(sleep=sleeps)) as bot:
        budget = FloodBudget(100)
        scoped = scoped_bot(bot, Scope(flood_budget=budget))
        await scoped.send_message(-100, "hi")
        assert budget.left == 46
        with pytest.raises(TelegramRetryAfter):
            await scoped.send_message(-100, "hi")
    assert sleeps.delays == [54.0]


async def test_connection_refused_is_retried(sleeps: Sleeps) -> None:
    # Nothing listens on the port: the request never reached a server, so even a send is safe
    # to repeat.
    session = AiohttpSession(api=TelegramAPIServer.from_base(f"http://127.0.0.1:{free_port()}"))
    session.middleware(RetryMiddleware(attempts=3, sleep=sleeps))
    bot = Bot(token=TOKEN, session=session)
    try:
        with pytest.raises(TelegramNetworkError):
            await bot.send_message(-100, "hi")
    finally:
        await session.close()
    assert len(sleeps.delays) == 2


async def test_timeout_on_send_is_not_repeated(sleeps: Sleeps) -> None:
    """A send that timed out may have been applied: repeating it could post the roll twice."""
    retry = RetryMiddleware(sleep=sleeps)
    calls: list[str] = []

    async def timed_out(bot: Bot, method: Any) -> Any:
        calls.append(method.__api_method__)
        raise TelegramNetworkError(method=method, message="Request timeout error")

    bot, _ = make_bot()
    with pytest.raises(TelegramNetworkError):
        await retry(timed_out, bot, SendMessage(chat_id=-100, text="hi"))
    assert calls == ["sendMessage"]
    calls.clear()
    # An edit is idempotent: the same text twice is harmless, so it is retried.
    with pytest.raises(TelegramNetworkError):
        await retry(timed_out, bot, EditMessageText(chat_id=-100, message_id=1, text="hi"))
    assert len(calls) == retry.attempts


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_window_allows_the_limit_then_spaces_sends() -> None:
    clock = Clock()
    window = SlidingWindow(GROUP_LIMIT, 60.0, clock)
    assert [window.reserve("g") for _ in range(GROUP_LIMIT)] == [0.0] * GROUP_LIMIT
    assert window.reserve("g") == 60.0  # the 21st in a minute waits for the first to age out
    assert window.reserve("g") == 60.0
    assert window.reserve("other") == 0.0  # another group is not slowed down
    clock.now += 61
    assert window.reserve("other") == 0.0
    clock.now += 61
    assert window.reserve("g") == 0.0


def test_window_never_exceeds_the_limit_in_any_period() -> None:
    clock = Clock()
    window = SlidingWindow(3, 10.0, clock)
    slots = []
    for step in range(40):
        clock.now = 1000.0 + step * 0.7
        slots.append(clock.now + window.reserve("g"))
    for start in slots:
        assert sum(start <= s < start + 10.0 for s in slots) <= 3


def test_idle_keys_are_forgotten() -> None:
    clock = Clock()
    window = SlidingWindow(20, 60.0, clock)
    for chat in range(1023):
        window.reserve(chat)
    clock.now += 120
    window.reserve("new")  # the 1024th reservation sweeps idle keys
    assert len(window) == 1


async def test_limiter_delays_only_beyond_the_group_limit(sleeps: Sleeps) -> None:
    clock = Clock()
    limiter = RateLimitMiddleware(clock=clock, sleep=sleeps)
    bot, _ = make_bot()

    async def send(bot: Bot, method: Any) -> Any:
        return True

    for _ in range(GROUP_LIMIT):
        await limiter(send, bot, SendMessage(chat_id=-100, text="x"))
    assert sleeps.delays == []
    await limiter(send, bot, SendMessage(chat_id=-100, text="x"))
    assert sleeps.delays == [GROUP_PERIOD]
    # Edits and private chats are not held by the group limit.
    sleeps.delays.clear()
    await limiter(send, bot, EditMessageText(chat_id=-100, message_id=1, text="y"))
    await limiter(send, bot, SendMessage(chat_id=5, text="x"))
    assert sleeps.delays == []


async def test_limiter_tells_its_watcher_what_a_group_holds_back() -> None:
    clock = Clock()
    told: list[tuple[int | str, int, float]] = []
    released = asyncio.Event()

    async def sleep(delay: float) -> None:
        await released.wait()
        clock.now += delay

    limiter = RateLimitMiddleware(clock=clock, sleep=sleep, on_hold=lambda *args: told.append(args))
    bot, _ = make_bot()

    async def send(bot: Bot, method: Any) -> Any:
        return True

    for _ in range(GROUP_LIMIT):
        await limiter(send, bot, SendMessage(chat_id=-100, text="x"))
    await limiter(send, bot, SendMessage(chat_id=5, text="x"))  # a private chat: never held
    assert told == []
    held = [
        asyncio.create_task(limiter(send, bot, SendMessage(chat_id=-100, text="x")))
        for _ in range(2)
    ]
    await asyncio.sleep(0)
    assert told == [(-100, 1, GROUP_PERIOD), (-100, 2, GROUP_PERIOD)]
    released.set()
    await asyncio.gather(*held)
    assert [sends for _, sends, _ in told[2:]] == [1, 0]
    assert told[-1] == (-100, 0, 0.0)


async def test_limiter_overall_rate(sleeps: Sleeps) -> None:
    clock = Clock()
    limiter = RateLimitMiddleware(clock=clock, sleep=sleeps)
    bot, _ = make_bot()

    async def send(bot: Bot, method: Any) -> Any:
        return True

    for chat in range(GLOBAL_LIMIT + 1):
        await limiter(send, bot, SendMessage(chat_id=chat + 1, text="x"))
    assert sleeps.delays == [1.0]


async def test_replicas_and_a_restart_share_one_send_budget(
    sleeps: Sleeps, real_store: Store
) -> None:
    """Telegram counts per token: two replicas, and a process started again, spend from one
    budget in Redis. The group's 21st send in a minute waits, whichever process makes it."""
    bot, _ = make_bot()

    async def send(bot: Bot, method: Any) -> Any:
        return True

    first, second = (RateLimitMiddleware(shared=real_store, sleep=sleeps) for _ in range(2))
    for n in range(GROUP_LIMIT):
        await (first, second)[n % 2](send, bot, SendMessage(chat_id=-100, text="x"))
    assert all(d < 1.0 for d in sleeps.delays)  # only the overall 30 a second
    restarted = RateLimitMiddleware(shared=real_store, sleep=sleeps)
    await restarted(send, bot, SendMessage(chat_id=-100, text="x"))
    assert 55.0 < sleeps.delays[-1] <= GROUP_PERIOD
    before = len(sleeps.delays)
    await restarted(send, bot, SendMessage(chat_id=-200, text="x"))  # another group: free
    assert sleeps.delays[before:] == []


async def test_a_send_takes_the_slot_its_updates_first_round_trip_leased(
    sleeps: Sleeps,
) -> None:
    """The update's reply goes in the slot its first round-trip reserved (``Journal.lease``):
    the limiter hands the lease from the sending Bot's scope, so the reply costs no
    round-trip of its own (bench/e2e.py: a roll in three); a Bot with no update's scope
    has none to hand."""
    handed: list[Lease | None] = []

    class Shared:
        async def reserve_send(
            self, bot_id: int, windows: Any, lease: Lease | None = None
        ) -> float:
            handed.append(lease)
            return 0.0

    limiter = RateLimitMiddleware(shared=Shared(), sleep=sleeps)
    bot, _ = make_bot()
    lease = Lease(windows=(-100, None), member="m", at=time.monotonic())
    journal = Journal(key="sdb:update:{-100}:1", seed=b"s", lease=lease)

    async def send(bot: Bot, method: Any) -> Any:
        return True

    await limiter(
        send, scoped_bot(bot, Scope(journal=journal)), SendMessage(chat_id=-100, text="x")
    )
    await limiter(send, bot, SendMessage(chat_id=-100, text="x"))
    assert handed == [lease, None]


async def test_the_budget_is_kept_here_while_redis_is_away(sleeps: Sleeps) -> None:
    class Away:
        async def reserve_send(self, *args: Any) -> float:
            raise RedisConnectionError("Connection refused")

    clock = Clock()
    limiter = RateLimitMiddleware(shared=Away(), clock=clock, sleep=sleeps)
    bot, _ = make_bot()

    async def send(bot: Bot, method: Any) -> Any:
        return True

    for _ in range(GROUP_LIMIT + 1):
        await limiter(send, bot, SendMessage(chat_id=-100, text="x"))
    assert sleeps.delays == [GROUP_PERIOD]


def bound_message(bot: Bot) -> Message:
    return Message(
        message_id=5,
        date=datetime.datetime.now(datetime.UTC),
        chat=Chat(id=-100, type="supergroup"),
        text="old",
    ).as_(bot)


async def test_safe_edit_treats_not_modified_as_success() -> None:
    bot, session = make_bot()
    method = EditMessageText(chat_id=-100, message_id=5, text="same")
    session.fail_next(
        "editMessageText",
        TelegramBadRequest(
            method=method,
            message="Bad Request: message is not modified: specified new message content "
            "and reply markup are exactly the same",
        ),
    )
    assert await safe_edit(bound_message(bot), "same") is False
    assert await safe_edit(bound_message(bot), "new") is True
    [_, second] = session.calls("editMessageText")
    assert (second.chat_id, second.message_id, second.text) == (-100, 5, "new")


async def test_safe_edit_raises_other_bad_requests() -> None:
    bot, session = make_bot()
    session.fail_next(
        "editMessageText",
        TelegramBadRequest(
            method=EditMessageText(text="x"), message="Bad Request: message to edit not found"
        ),
    )
    with pytest.raises(TelegramBadRequest):
        await safe_edit(bound_message(bot), "new")


# A send's answer is read without what it echoes back; everything else as aiogram reads it.

KEYBOARD = {"inline_keyboard": [[{"text": "⏳ Продлить", "callback_data": "r:abc:0:ex:0"}]]}
COMMAND = {
    "message_id": 7,
    "date": 1_700_000_000,
    "chat": {"id": -100, "type": "supergroup", "title": "T"},
    "from": {"id": 5, "is_bot": False, "first_name": "Аня"},
    "text": "/r 7 6",
    "entities": [{"type": "bot_command", "offset": 0, "length": 2}],
}
ECHOING = {
    "ok": True,
    "result": {
        **OK_MESSAGE["result"],  # type: ignore[dict-item]
        "from": {"id": 1, "is_bot": True, "first_name": "Dice"},
        "reply_to_message": COMMAND,
        "entities": [{"type": "bold", "offset": 0, "length": 2}],
        "reply_markup": KEYBOARD,
    },
}


async def test_a_send_s_answer_keeps_what_the_bot_reads_and_drops_the_echoes() -> None:
    async with api_bot(ScriptedApi([(200, ECHOING)]), RetryMiddleware()) as bot:
        sent = await bot.send_message(-100, "<b>hi</b>", reply_to_message_id=7)
    assert isinstance(sent, Message)
    assert (sent.message_id, sent.chat.id, sent.text) == (10, -100, "hi")
    assert sent.from_user is not None
    assert sent.from_user.is_bot
    assert isinstance(sent.reply_markup, InlineKeyboardMarkup)
    assert sent.reply_markup.model_dump(exclude_none=True) == KEYBOARD
    assert sent.reply_to_message is None
    assert sent.entities is None
    assert sent.bot is bot  # a real Message, bound to its bot like any other


async def test_an_edit_s_answer_drops_the_echoes_too() -> None:
    api = ScriptedApi([(200, ECHOING), (200, {"ok": True, "result": True})])
    async with api_bot(api, RetryMiddleware()) as bot:
        edited = await bot.edit_message_text("<b>hi</b>", chat_id=-100, message_id=10)
        inline = await bot.edit_message_text("<b>hi</b>", inline_message_id="abc")
    assert isinstance(edited, Message)
    assert edited.message_id == 10
    assert edited.reply_to_message is None
    assert edited.reply_markup is not None
    assert inline is True


async def test_other_answers_keep_everything() -> None:
    update = {"update_id": 1, "message": {**COMMAND, "reply_to_message": COMMAND}}
    api = ScriptedApi([(200, {"ok": True, "result": [update]})])
    async with api_bot(api, RetryMiddleware()) as bot:
        updates = await bot(GetUpdates())
    message = updates[0].message
    assert message is not None
    assert message.entities is not None
    assert message.reply_to_message is not None
    assert message.reply_to_message.message_id == 7


@pytest.mark.parametrize(
    "body",
    [
        {"ok": True, "result": {"message_id": "not a number", "date": 1}},
        {"ok": True, "result": {**COMMAND, "chat": None}},
    ],
)
async def test_a_send_s_answer_that_is_no_message_may_have_been_applied(
    body: dict[str, Any], sleeps: Sleeps
) -> None:
    """A 200 whose message cannot be read: Telegram applied the send, so it is handled as
    a 5xx is (retried, looked for first under an update: bot/sent.py), never as a bug."""
    retry = RetryMiddleware(attempts=2, sleep=sleeps)
    async with api_bot(ScriptedApi([(200, body)]), retry) as bot:
        message = await bot.send_message(-100, "hi")
    assert message.message_id == 10
    assert len(sleeps.delays) == 1


class PagedApi:
    """Answers each call with the next scripted (status, raw body, content type): a front
    that answers with a page of its own instead of the Bot API's JSON."""

    def __init__(self, script: list[tuple[int, str, str]]) -> None:
        self.script = script
        self.calls = 0

    async def handle(self, request: web.Request) -> web.Response:
        self.calls += 1
        if not self.script:
            return web.json_response(OK_MESSAGE)
        status, body, content_type = self.script.pop(0)
        return web.Response(status=status, text=body, content_type=content_type)


NGINX_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)


@asynccontextmanager
async def paged_bot(api: PagedApi, retry: RetryMiddleware) -> AsyncIterator[Bot]:
    app = web.Application()
    app.router.add_post("/bot{token}/{method}", api.handle)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    session = BotSession(api=TelegramAPIServer.from_base(str(server.make_url(""))))
    session.middleware(retry)
    try:
        yield Bot(token=TOKEN, session=session)
    finally:
        await session.close()
        await server.close()


@pytest.mark.parametrize(
    ("status", "body", "content_type"),
    [
        (502, NGINX_502, "text/html"),  # nginx in front of the Bot API, its upstream gone
        (503, "", "text/plain"),  # an empty body
        (500, '{"ok": false, "error_code": 500, "descr', "application/json"),  # cut short
        (200, '{"ok": true, "result": {"message_id": 1', "application/json"),  # cut short
    ],
)
async def test_an_answer_that_is_not_the_bot_api_s_json_is_a_5xx(
    status: int, body: str, content_type: str, sleeps: Sleeps
) -> None:
    """aiogram reads the body before the status: a front's HTML 502 page was a decode error
    nothing retried. Now it is what a 5xx is: maybe applied, retried with backoff."""
    api = PagedApi([(status, body, content_type)])
    async with paged_bot(api, RetryMiddleware(sleep=sleeps)) as bot:
        message = await bot.send_message(-100, "hi")
    assert message.message_id == 10
    assert api.calls == 2
    assert len(sleeps.delays) == 1


async def test_an_html_5xx_that_never_ends_is_raised_as_a_5xx(sleeps: Sleeps) -> None:
    api = PagedApi([(502, NGINX_502, "text/html")] * 10)
    async with paged_bot(api, RetryMiddleware(attempts=3, sleep=sleeps)) as bot:
        with pytest.raises(UnreadableAnswer, match="HTTP 502, not the Bot API's answer") as raised:
            await bot.send_message(-100, "hi")
    assert isinstance(raised.value, TelegramServerError)  # what the update's retry knows
    assert isinstance(raised.value.__cause__, ClientDecodeError)
    assert api.calls == 3


@pytest.mark.parametrize("status", [403, 404, 413, 429])
async def test_a_4xx_that_is_not_the_bot_api_s_json_is_reported_not_retried(
    status: int, sleeps: Sleeps
) -> None:
    api = PagedApi([(status, f"<html><h1>{status}</h1></html>", "text/html")] * 3)
    async with paged_bot(api, RetryMiddleware(sleep=sleeps)) as bot:
        with pytest.raises(UnreadableRefusal, match=f"HTTP {status}") as raised:
            await bot.send_message(-100, "hi")
    assert not isinstance(raised.value, TelegramServerError)
    assert api.calls == 1
    assert sleeps.delays == []


@pytest.mark.parametrize(
    ("status", "page", "said"),
    [
        (502, NGINX_502, "an HTML page: 502 Bad Gateway"),
        (200, "<html><head><title>Wi-Fi login</title></head></html>", "an HTML page: Wi-Fi login"),
        (503, "<html><body>maintenance</body></html>", "an HTML page"),
    ],
)
async def test_a_proxy_s_page_says_what_it_was(
    status: int, page: str, said: str, sleeps: Sleeps
) -> None:
    """A proxy's page where the Bot API should be: away for now (a 5xx to retry, exit 3 at
    start-up), and the error names the page so the operator sees whose answer it was."""
    api = PagedApi([(status, page, "text/html")] * 10)
    async with paged_bot(api, RetryMiddleware(attempts=2, sleep=sleeps)) as bot:
        with pytest.raises(UnreadableAnswer) as raised:
            await bot.send_message(-100, "hi")
    assert f"HTTP {status}" in str(raised.value)
    assert said in str(raised.value)


async def test_a_refusal_in_html_stays_a_refusal(sleeps: Sleeps) -> None:
    """401 or 404 in a page of a proxy's own: a wrong token or URL, never retried."""
    page = "<html><title>401 Authorization Required</title></html>"
    api = PagedApi([(401, page, "text/html")])
    async with paged_bot(api, RetryMiddleware(sleep=sleeps)) as bot:
        with pytest.raises(UnreadableRefusal, match="401 Authorization Required"):
            await bot.send_message(-100, "hi")
    assert api.calls == 1


async def test_calls_outside_an_update_share_the_budget_they_are_given(sleeps: Sleeps) -> None:
    api = ScriptedApi([flood(54), (200, OK_MESSAGE), flood(54)])
    async with api_bot(api, RetryMiddleware(sleep=sleeps)) as bot:
        waiting = with_flood_budget(bot, 100)
        await waiting.send_message(-100, "hi")
        with pytest.raises(TelegramRetryAfter):
            await waiting.send_message(-100, "hi")
    assert sleeps.delays == [54.0]
