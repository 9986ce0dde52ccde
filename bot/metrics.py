"""Health and Prometheus metrics for an operator: ``METRICS_PORT`` (README "Operations").

Two pages on their own small HTTP server, the same in long polling and webhook mode:

- ``GET /healthz`` — 200 when Redis answers a PING, the Bot API answers getMe and the oldest
  update waiting in this process has waited less than ``INBOX_STALE`` seconds; 503 otherwise.
  The JSON body says which of the three failed, so a probe's log explains a restart.
- ``GET /metrics`` — Prometheus text: updates by kind and outcome, how long handling took,
  Redis errors, Telegram's 429s and the time waited on them, the send budget left, and the
  updates waiting per chat.

The counters are process-wide (Prometheus' default registry): the code that sees an event
calls one function here. What is read at scrape time (the queues, the send budget) comes from
the :class:`~bot.delivery.Delivery` objects that registered themselves with :func:`watch`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject, Update
from aiohttp import web
from prometheus_client import REGISTRY, Counter, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector

from bot.store import STORAGE_ERRORS

if TYPE_CHECKING:
    from bot.delivery import Delivery
    from bot.settings import Settings

log = logging.getLogger(__name__)

INBOX_STALE = 300.0  # seconds an update may wait here before the bot counts as unhealthy
CHECK_TIMEOUT = 3.0  # seconds /healthz gives Redis and the Bot API to answer
TELEGRAM_CHECK_EVERY = 15.0  # getMe at most this often, however often the probe asks

# A ``_created`` series beside every counter would only double the page.
disable_created_metrics()  # type: ignore[no-untyped-call]

UPDATES = Counter(
    "storyteller_updates_handled",
    "Updates handled, by kind (message, callback_query, ...) and outcome: ok; failed (a bug, "
    "the player was told); retried (Redis or Telegram away, run again later); given_up (Telegram "
    "refused its result past GIVE_UP_AFTER: dropped, what it spent given back, the player told).",
    ["kind", "outcome"],
)
LATENCY = Histogram(
    "storyteller_update_handling_seconds",
    "How long one try at handling an update took, by kind.",
    ["kind"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
REDIS_ERRORS = Counter(
    "storyteller_redis_errors",
    "Redis unreachable or too slow, by where it was met: update, polling, inbox, webhook.",
    ["where"],
)
TOO_MANY_REQUESTS = Counter(
    "storyteller_telegram_429",
    "Answers 429 Too Many Requests from the Bot API.",
)
TOO_MANY_REQUESTS_WAITED = Counter(
    "storyteller_telegram_429_wait_seconds",
    "Seconds spent waiting out the retry_after of 429 answers.",
)

_deliveries: weakref.WeakSet[Delivery] = weakref.WeakSet()
_latest: list[weakref.ref[Delivery]] = []  # the one /healthz judges: the process's newest
_queued_at: weakref.WeakKeyDictionary[Delivery, dict[int, float]] = weakref.WeakKeyDictionary()


def update_kind(raw: dict[str, Any]) -> str:
    """An update's kind from its Bot API JSON: the one field besides ``update_id``."""
    return next((key for key in raw if key != "update_id"), "unknown")


# ----- what the rest of the bot calls ---------------------------------------------------------


def watch(delivery: Delivery) -> None:
    """Let /metrics and /healthz read ``delivery``'s queues (kept only while it lives)."""
    _deliveries.add(delivery)
    _queued_at.setdefault(delivery, {})
    _latest[:] = [weakref.ref(delivery)]


def queued(delivery: Delivery, update_id: int) -> None:
    """An update joined a chat's queue: its wait counts from now."""
    since = _queued_at.setdefault(delivery, {})
    since.setdefault(update_id, time.monotonic())
    if len(since) > 1000:  # forget those that have left the queues
        _forget_gone(delivery, since)


def given_up(raw: dict[str, Any]) -> None:
    UPDATES.labels(update_kind(raw), "given_up").inc()


def redis_error(where: str, error: BaseException | None = None) -> None:
    """Count a Redis error met ``where``; with ``error``, only if it is one."""
    if error is None or isinstance(error, STORAGE_ERRORS):
        REDIS_ERRORS.labels(where).inc()


def too_many_requests(waited: float) -> None:
    """A 429; ``waited``: the seconds slept before trying again (0 when it was not)."""
    TOO_MANY_REQUESTS.inc()
    TOO_MANY_REQUESTS_WAITED.inc(max(waited, 0.0))


Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class MetricsMiddleware(BaseMiddleware):
    """Times every try at an update and counts its outcome. It sits inside the error
    middleware (bot/app.py), so it sees a handler's exception before the player is told."""

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        from bot.middlewares import RETRIED_LATER, ChatBusy  # no import cycle at load

        kind = _event_kind(event)
        started = time.perf_counter()
        outcome = "ok"
        try:
            return await handler(event, data)
        except ChatBusy:
            outcome = ""  # not a try: another replica has the chat
            raise
        except RETRIED_LATER as error:
            outcome = "retried"
            redis_error("update", error)
            raise
        except Exception:
            outcome = "failed"
            raise
        finally:
            if outcome:
                UPDATES.labels(kind, outcome).inc()
                LATENCY.labels(kind).observe(time.perf_counter() - started)


def _event_kind(update: Update) -> str:
    try:
        return update.event_type
    except Exception:  # aiogram's UpdateTypeLookupError: a kind newer than the library
        return "unknown"


# ----- read at scrape time --------------------------------------------------------------------


def _forget_gone(delivery: Delivery, since: dict[int, float]) -> None:
    waiting = {u for ids in delivery.waiting().values() for u in ids}
    for update_id in [u for u in since if u not in waiting]:
        del since[update_id]


def oldest_wait(delivery: Delivery, now: float | None = None) -> float:
    """Seconds the longest-waiting update queued or running in ``delivery`` has waited."""
    now = time.monotonic() if now is None else now
    since = _queued_at.setdefault(delivery, {})
    _forget_gone(delivery, since)
    return max((now - t for t in since.values()), default=0.0)


def send_budgets(delivery: Delivery) -> tuple[int | None, dict[str, int]]:
    """Sends left now under Telegram's limits (bot/session.py): overall this second, and per
    group this minute for the groups that sent lately."""
    from bot.session import RateLimitMiddleware, SlidingWindow

    def left(window: SlidingWindow, key: object, now: float) -> int:
        slots = window._slots.get(key, ())  # the limiter's own reservations
        used = sum(1 for slot in slots if slot > now - window.period)
        return max(window.limit - used, 0)

    overall: int | None = None
    groups: dict[str, int] = {}
    for middleware in delivery.bot.session.middleware:
        if not isinstance(middleware, RateLimitMiddleware):
            continue
        now = middleware.overall.clock()
        overall = left(middleware.overall, delivery.bot.id, now)
        for key in list(middleware.groups._slots):
            if isinstance(key, tuple) and key[0] == delivery.bot.id:
                groups[str(key[1])] = left(middleware.groups, key, now)
    return overall, groups


class _Collector(Collector):
    """The gauges read from the live deliveries at scrape time."""

    def collect(self) -> Iterable[Metric]:
        waiting = GaugeMetricFamily(
            "storyteller_updates_waiting",
            "Updates queued or being handled in this process, per chat.",
            labels=["chat"],
        )
        oldest = GaugeMetricFamily(
            "storyteller_inbox_oldest_seconds",
            "How long the longest-waiting update in this process has waited.",
        )
        overall = GaugeMetricFamily(
            "storyteller_send_budget_overall",
            "Message sends left this second under Telegram's overall limit.",
        )
        groups = GaugeMetricFamily(
            "storyteller_send_budget_group",
            "Message sends left this minute under Telegram's limit for one group.",
            labels=["chat"],
        )
        ages = [0.0]
        for delivery in list(_deliveries):
            for chat, ids in delivery.waiting().items():
                waiting.add_metric([str(chat)], len(ids))
            ages.append(oldest_wait(delivery))
            budget, per_group = send_budgets(delivery)
            if budget is not None:
                overall.add_metric([], budget)
            for chat_id, sends in per_group.items():
                groups.add_metric([chat_id], sends)
        oldest.add_metric([], max(ages))
        yield from (waiting, oldest, overall, groups)


REGISTRY.register(_Collector())


# ----- the HTTP server ------------------------------------------------------------------------


class _TelegramCheck:
    """getMe, remembered for ``TELEGRAM_CHECK_EVERY`` seconds."""

    def __init__(self) -> None:
        self.at = -TELEGRAM_CHECK_EVERY
        self.error: str | None = "not checked yet"

    async def __call__(self, delivery: Delivery) -> str | None:
        now = time.monotonic()
        if now - self.at >= TELEGRAM_CHECK_EVERY:
            self.error = await _checked(delivery.bot.get_me())
            self.at = time.monotonic()
        return self.error


async def _checked(call: Awaitable[Any]) -> str | None:
    """None if ``call`` finished within ``CHECK_TIMEOUT``, else what went wrong."""
    try:
        await asyncio.wait_for(call, CHECK_TIMEOUT)
    except TimeoutError:
        return f"no answer within {CHECK_TIMEOUT:.0f} s"
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


async def health(telegram: _TelegramCheck) -> tuple[bool, dict[str, Any]]:
    """Whether the bot is healthy, and the report /healthz shows."""
    delivery = _latest[0]() if _latest else None
    if delivery is None:
        return False, {"healthy": False, "error": "starting: not receiving updates yet"}
    redis = await _checked(delivery.store.ping())
    bot_api = await telegram(delivery)
    waiting = sum(len(ids) for ids in delivery.waiting().values())
    age = oldest_wait(delivery)
    inbox: dict[str, Any] = {"ok": age < INBOX_STALE, "waiting": waiting, "oldest_seconds": age}
    if not inbox["ok"]:
        inbox["error"] = f"an update has waited over {INBOX_STALE:.0f} s"
    report = {
        "redis": {"ok": redis is None} | ({"error": redis} if redis else {}),
        "telegram": {"ok": bot_api is None} | ({"error": bot_api} if bot_api else {}),
        "inbox": inbox,
    }
    healthy = all(part["ok"] for part in report.values())
    return healthy, {"healthy": healthy, **report}


def build_app() -> web.Application:
    telegram = _TelegramCheck()

    async def healthz(_: web.Request) -> web.Response:
        healthy, report = await health(telegram)
        return web.Response(
            status=200 if healthy else 503,
            text=json.dumps(report, ensure_ascii=False),
            content_type="application/json",
        )

    async def metrics(request: web.Request) -> web.Response:
        encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
        return web.Response(body=encoder(REGISTRY), headers={"Content-Type": content_type})

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    return app


@contextlib.asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[None]:
    """Serve /healthz and /metrics on METRICS_HOST:METRICS_PORT for the block (nothing when
    METRICS_PORT is not set)."""
    if settings.metrics_port is None:
        yield
        return
    runner = web.AppRunner(build_app(), access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, settings.metrics_host, settings.metrics_port).start()
        log.info("health and metrics on %s:%d", settings.metrics_host, settings.metrics_port)
        yield
    finally:
        await runner.cleanup()
