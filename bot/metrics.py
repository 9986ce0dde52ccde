"""Health and Prometheus metrics for an operator: ``METRICS_PORT`` (README "Operations").

Small pages on their own HTTP server (``METRICS_HOST``, the loopback interface unless set),
the same in long polling and webhook mode; in webhook mode the probes are also on the
webhook's port (bot/webhook.py), where a load balancer in front of it looks:

- ``GET /livez`` — 200 while the process and its event loop run (answering at all is the
  proof; the body says how long the loop took to come back to it). A supervisor restarts
  the process when this fails, and only then: nothing outside the process can make it fail.
- ``GET /readyz`` — 200 when Redis answers a PING, else 503: without Redis no update can
  be taken. The Bot API's getMe (at most every ``TELEGRAM_CHECK_EVERY`` seconds) and the
  oldest update waiting here are reported in the JSON body, but Telegram fails readiness
  only once it has been unreachable for ``TELEGRAM_UNREADY_AFTER`` seconds: a short outage
  of Telegram is everybody's, and taking the bot out of rotation would not help.
- ``GET /healthz`` — the earlier all-in-one check, kept for probes that use it: 200 when
  Redis answers, getMe answers and no update has waited ``INBOX_STALE`` seconds.
- ``GET /metrics`` — Prometheus text: the build, updates by kind and final outcome, their
  retries, how long a try took, Redis errors, Telegram's 429s and the time waited on them,
  the send budget left, and the updates waiting.

No chat or user id is ever a label (a series per chat grows without bound and names
players): what is per chat is summed up, or given as the tightest value without its id.

The counters are process-wide (Prometheus' default registry): the code that sees an event
calls one function here. An update is counted once, when bot/delivery.py is done with it,
with the outcome of its last try (bot/middlewares.py ``MetricsMiddleware`` tells it); its
retries are counted apart. What is read at scrape time (the queues, the send budget) comes
from the deliveries (bot/delivery.py) that registered themselves with :func:`watch`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import platform
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from aiohttp import web
from prometheus_client import REGISTRY, Counter, Histogram, Info, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector

from bot.version import version
from table.store import STORAGE_ERRORS

if TYPE_CHECKING:
    from aiogram import Bot

    from bot.settings import Settings
    from table.scope import Campaign
    from table.store import Store


# Sends left now under Telegram's limits (bot/session.py ``send_budgets``): overall this
# second, per group this minute for the groups that sent lately, and the per-group limit.
SendBudgets = tuple[int | None, dict[str, int], int | None]


class Delivery(Protocol):
    """What the probes read of a running delivery (bot/delivery.py), named here so that this
    module, which the delivery and the session call, imports neither."""

    @property
    def bot(self) -> Bot: ...
    @property
    def store(self) -> Store: ...
    def waiting(self) -> Mapping[int | Campaign, list[int]]: ...
    def send_budgets(self) -> SendBudgets: ...


log = logging.getLogger(__name__)

INBOX_STALE = 300.0  # seconds an update may wait here before the bot counts as unhealthy
CHECK_TIMEOUT = 3.0  # seconds a probe gives Redis and the Bot API to answer
TELEGRAM_CHECK_EVERY = 15.0  # getMe at most this often, however often the probe asks
TELEGRAM_UNREADY_AFTER = 300.0  # seconds of getMe failing before /readyz says 503

# A ``_created`` series beside every counter would only double the page.
disable_created_metrics()  # type: ignore[no-untyped-call]

BUILD = Info("storyteller_build", "The release running: its version and Python's.")
BUILD.info({"version": version(), "python": platform.python_version()})
UPDATES = Counter(
    "storyteller_updates_handled",
    "Updates done with, each once, by kind (message, callback_query, ...) and the outcome of "
    "its last try: ok; failed (a bug, the player was told); given_up (Telegram refused its "
    "result past GIVE_UP_AFTER, or it failed too often: dropped, what it spent given back, "
    "the player told).",
    ["kind", "outcome"],
)
DUPLICATES = Counter(
    "storyteller_updates_duplicate",
    "Updates delivered again after they were done (Telegram sending again what a replica "
    "had run from memory while Redis was away): skipped, and not counted again above.",
    ["kind"],
)
RETRIES = Counter(
    "storyteller_update_retries",
    "Tries at an update that met Redis or Telegram away and are run again later, by kind and "
    "reason (redis, telegram); the update itself is counted once when done.",
    ["kind", "reason"],
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


@dataclass
class Try:
    """What bot/middlewares.py's ``MetricsMiddleware`` saw of an update's latest try, for
    bot/delivery.py to count the update with when it is done (handed to the Dispatcher as
    ``update_try``)."""

    outcome: str = "ok"


def handled(kind: str, outcome: str) -> None:
    """An update is done with: counted once, with the outcome of its last try; a delivery
    of one done before is counted apart (``duplicate``)."""
    if outcome == "duplicate":
        DUPLICATES.labels(kind).inc()
    else:
        UPDATES.labels(kind, outcome).inc()


def retried(kind: str, error: BaseException) -> None:
    """A try met Redis or Telegram away: the update runs again later."""
    RETRIES.labels(kind, "redis" if isinstance(error, STORAGE_ERRORS) else "telegram").inc()


def redis_error(where: str, error: BaseException | None = None) -> None:
    """Count a Redis error met ``where``; with ``error``, only if it is one."""
    if error is None or isinstance(error, STORAGE_ERRORS):
        REDIS_ERRORS.labels(where).inc()


def too_many_requests(waited: float) -> None:
    """A 429; ``waited``: the seconds slept before trying again (0 when it was not)."""
    TOO_MANY_REQUESTS.inc()
    TOO_MANY_REQUESTS_WAITED.inc(max(waited, 0.0))


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


class _Collector(Collector):
    """The gauges read from the live deliveries at scrape time, summed over chats: a label
    per chat would name players' chats and grow without bound."""

    def collect(self) -> Iterable[Metric]:
        waiting = GaugeMetricFamily(
            "storyteller_updates_waiting",
            "Updates queued or being handled in this process.",
        )
        chats = GaugeMetricFamily(
            "storyteller_chats_waiting",
            "Chats with updates queued or being handled in this process.",
        )
        longest = GaugeMetricFamily(
            "storyteller_chat_queue_longest",
            "Updates queued or being handled in the busiest chat of this process.",
        )
        oldest = GaugeMetricFamily(
            "storyteller_inbox_oldest_seconds",
            "How long the longest-waiting update in this process has waited.",
        )
        overall = GaugeMetricFamily(
            "storyteller_send_budget_overall",
            "Message sends left this second under Telegram's overall limit.",
        )
        tightest = GaugeMetricFamily(
            "storyteller_send_budget_group_min",
            "Message sends left this minute under Telegram's per-group limit, in the group "
            "with the fewest left of those that sent lately.",
        )
        groups = GaugeMetricFamily(
            "storyteller_send_budget_groups",
            "Groups that sent lately, by their budget this minute: exhausted (none left), "
            "low (a quarter or less left), ok.",
            labels=["state"],
        )
        ages = [0.0]
        queues: list[int] = []
        budgets: list[int] = []
        limit: int | None = None
        for delivery in list(_deliveries):
            queues.extend(len(ids) for ids in delivery.waiting().values())
            ages.append(oldest_wait(delivery))
            budget, per_group, group_limit = delivery.send_budgets()
            if budget is not None:
                overall.add_metric([], budget)
                limit = group_limit
            budgets.extend(per_group.values())
        waiting.add_metric([], sum(queues))
        chats.add_metric([], len(queues))
        longest.add_metric([], max(queues, default=0))
        oldest.add_metric([], max(ages))
        yield from (waiting, chats, longest, oldest, overall)
        if limit is not None:
            tightest.add_metric([], min(budgets, default=limit))
            low = [b for b in budgets if 0 < b <= limit // 4]
            groups.add_metric(["exhausted"], sum(1 for b in budgets if b == 0))
            groups.add_metric(["low"], len(low))
            groups.add_metric(["ok"], sum(1 for b in budgets if b > limit // 4))
            yield from (tightest, groups)


REGISTRY.register(_Collector())


# ----- the HTTP server ------------------------------------------------------------------------

# The Store and Bot the probes check when no Delivery is running yet (start-up), set while
# :func:`serving` runs; a Delivery, once there, is checked instead (:func:`watch`).
_serving: list[tuple[Store, Bot]] = []
_started = time.monotonic()


class _TelegramCheck:
    """getMe, remembered for ``TELEGRAM_CHECK_EVERY`` seconds, and since when it fails."""

    def __init__(self) -> None:
        self.at = -TELEGRAM_CHECK_EVERY
        self.error: str | None = "not checked yet"
        self.failing_since: float | None = None

    async def __call__(self, bot: Bot) -> str | None:
        now = time.monotonic()
        if now - self.at >= TELEGRAM_CHECK_EVERY:
            self.error = await _checked(bot.get_me())
            self.at = time.monotonic()
            if self.error is None:
                self.failing_since = None
            elif self.failing_since is None:
                self.failing_since = self.at
        return self.error

    def down_for(self, now: float | None = None) -> float:
        """Seconds getMe has failed without a break (0 while it answers)."""
        if self.failing_since is None:
            return 0.0
        return (time.monotonic() if now is None else now) - self.failing_since


async def _checked(call: Awaitable[Any]) -> str | None:
    """None if ``call`` finished within ``CHECK_TIMEOUT``, else what went wrong."""
    try:
        await asyncio.wait_for(call, CHECK_TIMEOUT)
    except TimeoutError:
        return f"no answer within {CHECK_TIMEOUT:.0f} s"
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def _part(error: str | None) -> dict[str, Any]:
    return {"ok": error is None} | ({"error": error} if error else {})


def _inbox(delivery: Delivery) -> dict[str, Any]:
    waiting = sum(len(ids) for ids in delivery.waiting().values())
    age = oldest_wait(delivery)
    inbox: dict[str, Any] = {"ok": age < INBOX_STALE, "waiting": waiting, "oldest_seconds": age}
    if not inbox["ok"]:
        inbox["error"] = f"an update has waited over {INBOX_STALE:.0f} s"
    return inbox


async def health(telegram: _TelegramCheck) -> tuple[bool, dict[str, Any]]:
    """Whether the bot is healthy, and the report /healthz shows."""
    delivery = _latest[0]() if _latest else None
    if delivery is None:
        return False, {"healthy": False, "error": "starting: not receiving updates yet"}
    redis, bot_api = await asyncio.gather(_checked(delivery.store.ping()), telegram(delivery.bot))
    report = {"redis": _part(redis), "telegram": _part(bot_api), "inbox": _inbox(delivery)}
    healthy = all(part["ok"] for part in report.values())
    return healthy, {"healthy": healthy, **report}


async def readiness(telegram: _TelegramCheck) -> tuple[bool, dict[str, Any]]:
    """Whether the bot can take updates (Redis answers, Telegram not away for long), and
    the report /readyz shows."""
    delivery = _latest[0]() if _latest else None
    if delivery is not None:
        store, bot = delivery.store, delivery.bot
    elif _serving:
        store, bot = _serving[-1]
    else:
        return False, {"ready": False, "error": "starting"}
    redis, bot_api = await asyncio.gather(_checked(store.ping()), telegram(bot))
    down = telegram.down_for()
    report: dict[str, Any] = {"redis": _part(redis), "telegram": _part(bot_api)}
    if bot_api is not None:
        report["telegram"]["down_seconds"] = round(down)
    report["receiving"] = delivery is not None
    if delivery is not None:
        report["inbox"] = _inbox(delivery)
    ready = redis is None and down < TELEGRAM_UNREADY_AFTER
    return ready, {"ready": ready, **report}


async def liveness() -> dict[str, Any]:
    """What /livez shows: answering at all proves the loop runs; how long it took to come
    back to this request says how busy it is."""
    loop = asyncio.get_running_loop()
    asked = loop.time()
    await asyncio.sleep(0)
    return {
        "alive": True,
        "version": version(),
        "uptime_seconds": round(time.monotonic() - _started, 1),
        "loop_lag_seconds": round(loop.time() - asked, 4),
    }


def _json(report: dict[str, Any], ok: bool = True) -> web.Response:
    return web.Response(
        status=200 if ok else 503,
        text=json.dumps(report, ensure_ascii=False),
        content_type="application/json",
    )


def add_probes(app: web.Application, *, with_health: bool = True) -> None:
    """``/livez`` and ``/readyz`` (and the older ``/healthz`` unless ``with_health`` is
    False) on ``app``: the metrics server's, or the webhook's (bot/webhook.py)."""
    telegram = _TelegramCheck()

    async def livez(_: web.Request) -> web.Response:
        return _json(await liveness())

    async def readyz(_: web.Request) -> web.Response:
        ready, report = await readiness(telegram)
        return _json(report, ready)

    async def healthz(_: web.Request) -> web.Response:
        healthy, report = await health(telegram)
        return _json(report, healthy)

    app.router.add_get("/livez", livez)
    app.router.add_get("/readyz", readyz)
    if with_health:
        app.router.add_get("/healthz", healthz)


def build_app() -> web.Application:
    async def metrics(request: web.Request) -> web.Response:
        encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
        return web.Response(body=encoder(REGISTRY), headers={"Content-Type": content_type})

    app = web.Application()
    add_probes(app)
    app.router.add_get("/metrics", metrics)
    return app


@contextlib.asynccontextmanager
async def serving(
    settings: Settings, store: Store | None = None, bot: Bot | None = None
) -> AsyncIterator[None]:
    """Serve the probes and /metrics on METRICS_HOST:METRICS_PORT for the block (nothing when
    METRICS_PORT is not set); ``store`` and ``bot``: what /readyz checks before updates flow."""
    subject = (store, bot) if store is not None and bot is not None else None
    if subject is not None:
        _serving.append(subject)
    try:
        if settings.metrics_port is None:
            yield
            return
        runner = web.AppRunner(build_app(), access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, settings.metrics_host, settings.metrics_port).start()
            log.info(
                "probes and metrics on http://%s:%d (/livez, /readyz, /metrics)",
                settings.metrics_host,
                settings.metrics_port,
            )
            yield
        finally:
            await runner.cleanup()
    finally:
        if subject is not None:
            _serving[:] = [s for s in _serving if s is not subject]
