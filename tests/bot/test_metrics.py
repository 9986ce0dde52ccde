"""What /metrics counts and what /healthz judges (bot/metrics.py), without a process."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from aiogram import Router
from aiogram.exceptions import TelegramServerError
from aiogram.filters import Command
from aiogram.methods import SendMessage
from aiogram.types import Message, TelegramObject, Update
from aiogram.utils.i18n import I18n
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client import REGISTRY
from redis.exceptions import ConnectionError as RedisConnectionError

from bot import delivery, metrics
from bot.app import create_dispatcher
from bot.delivery import Delivery
from bot.middlewares import ChatBusy, MetricsMiddleware
from bot.session import RetryMiddleware
from bot.settings import Settings
from bot.version import version
from bot.webhook import build_app as build_webhook
from table.store import Store
from tests.bot.telegram_fakes import GROUP, TOKEN, make_bot, text_update, user
from tests.bot.test_session import ScriptedApi, Sleeps, api_bot


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def handled(outcome: str, kind: str = "message") -> float:
    return sample("storyteller_updates_handled_total", kind=kind, outcome=outcome)


def assert_no_ids(registry: Any) -> None:
    """No series is labelled by a chat or a user, and no label value is a chat's id."""
    for family in registry.collect():
        for series in family.samples:
            assert not {"chat", "user", "chat_id", "user_id"} & set(series.labels), series
            assert str(GROUP.id) not in series.labels.values(), series


def raising(
    error: BaseException | None,
) -> Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]:
    async def handler(event: TelegramObject, data: dict[str, Any]) -> Any:
        if error is not None:
            raise error
        return "done"

    return handler


async def test_each_try_is_timed_and_its_outcome_told_not_counted() -> None:
    """The middleware times every try and tells the delivery how it went; it counts no
    update itself (a try is not an update: bot/delivery.py counts each once, when done)."""
    update = text_update("/r 5 6", chat=GROUP, from_user=user())
    middleware = MetricsMiddleware()
    before = {o: handled(o) for o in ("ok", "failed", "retried")}
    timed = sample("storyteller_update_handling_seconds_count", kind="message")
    redis_errors = sample("storyteller_redis_errors_total", where="update")

    seen = []
    for error, raises in [
        (None, None),
        (ValueError("bug"), ValueError),
        (RedisConnectionError("away"), RedisConnectionError),
        (ChatBusy(GROUP.id), ChatBusy),  # another replica has the chat: not a try
    ]:
        last = metrics.Try(outcome="untouched")
        if raises is None:
            assert await middleware(raising(error), update, {"update_try": last}) == "done"
        else:
            with pytest.raises(raises):
                await middleware(raising(error), update, {"update_try": last})
        seen.append(last.outcome)

    async def skipped(event: TelegramObject, data: dict[str, Any]) -> None:
        data["update_skipped"] = True  # as StateMiddleware marks an update done before

    last = metrics.Try()
    await middleware(skipped, update, {"update_try": last})
    seen.append(last.outcome)

    assert seen == ["ok", "failed", "retried", "untouched", "duplicate"]
    assert {o: handled(o) - before[o] for o in before} == {"ok": 0, "failed": 0, "retried": 0}
    assert sample("storyteller_update_handling_seconds_count", kind="message") - timed == 4
    assert sample("storyteller_redis_errors_total", where="update") - redis_errors == 1


class ScriptedDispatcher:
    """Each try runs the real MetricsMiddleware around the next of ``tries``: an error to
    raise, or None for a try that goes through."""

    def __init__(self, tries: list[BaseException | str | None]) -> None:
        self.tries = list(tries)
        self.fed = 0

    async def feed_update(self, bot: object, update: Update, **kwargs: Any) -> None:
        self.fed += 1
        step = self.tries.pop(0)

        async def skipped(event: TelegramObject, data: dict[str, Any]) -> None:
            data["update_skipped"] = True  # done before: StateMiddleware skips it

        handler = skipped if step == "skipped" else raising(step)  # type: ignore[arg-type]
        await MetricsMiddleware()(handler, update, dict(kwargs))


async def test_an_update_is_counted_once_with_its_final_outcome_and_retries_apart(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis away twice, then Telegram away once, then through: one update ``ok``, three
    retries by reason; and one log line closes it, naming the outcome."""
    monkeypatch.setattr(delivery, "RETRY_PAUSE", (0.0,))
    scripted = ScriptedDispatcher(
        [
            RedisConnectionError("away"),
            RedisConnectionError("away"),
            TelegramServerError(SendMessage(chat_id=1, text="x"), "Bad Gateway"),
            None,
        ]
    )
    bot, _session = make_bot()
    runner = Delivery(
        scripted,  # type: ignore[arg-type]
        bot,
        Store(fakeredis.FakeAsyncRedis(decode_responses=True)),
        take_over=False,
    )
    before = {o: handled(o) for o in ("ok", "failed", "retried", "given_up")}
    retries = {
        r: sample("storyteller_update_retries_total", kind="message", reason=r)
        for r in ("redis", "telegram")
    }
    with caplog.at_level(logging.INFO, logger="bot.delivery"):
        runner.submit(raw_update(41))
        for _ in range(200):
            if not runner.waiting():
                break
            await asyncio.sleep(0.01)
    assert scripted.fed == 4
    assert {o: handled(o) - before[o] for o in before} == {
        "ok": 1,
        "failed": 0,
        "retried": 0,
        "given_up": 0,
    }
    assert {
        r: sample("storyteller_update_retries_total", kind="message", reason=r) - retries[r]
        for r in retries
    } == {"redis": 2, "telegram": 1}
    closing = [r for r in caplog.records if getattr(r, "outcome", None)]
    assert len(closing) == 1, [r.getMessage() for r in closing]
    assert closing[0].outcome == "ok"  # type: ignore[attr-defined]
    assert closing[0].tries == 4  # type: ignore[attr-defined]
    assert closing[0].update_id == 41  # type: ignore[attr-defined]
    assert closing[0].chat == GROUP.id  # type: ignore[attr-defined]
    runner.stop()
    await runner.drain(0.01)


@pytest.mark.parametrize(
    ("step", "counted"),
    [
        (ValueError("bug"), ("storyteller_updates_handled_total", "failed")),
        ("skipped", ("storyteller_updates_duplicate_total", None)),
    ],
)
async def test_a_bug_and_a_duplicate_count_once_each(
    step: BaseException | str, counted: tuple[str, str | None]
) -> None:
    scripted = ScriptedDispatcher([step])
    bot, _session = make_bot()
    runner = Delivery(
        scripted,  # type: ignore[arg-type]
        bot,
        Store(fakeredis.FakeAsyncRedis(decode_responses=True)),
        take_over=False,
    )
    name, outcome = counted
    labels = {"kind": "message"} | ({"outcome": outcome} if outcome else {})
    before = {o: handled(o) for o in ("ok", "failed")}
    count = sample(name, **labels)
    runner.submit(raw_update(42 if outcome else 43))
    for _ in range(200):
        if not runner.waiting():
            break
        await asyncio.sleep(0.01)
    assert sample(name, **labels) - count == 1
    if outcome is None:  # a duplicate is not counted again among the handled
        assert {o: handled(o) - before[o] for o in before} == {"ok": 0, "failed": 0}


async def test_a_429_is_counted_with_the_time_waited(sleeps: Sleeps) -> None:
    too_many = {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 3",
        "parameters": {"retry_after": 3},
    }
    count = sample("storyteller_telegram_429_total")
    waited = sample("storyteller_telegram_429_wait_seconds_total")
    async with api_bot(ScriptedApi([(429, too_many)]), RetryMiddleware(sleep=sleeps)) as bot:
        await bot.send_message(-100, "hi")
    assert sleeps.delays == [3.0]
    assert sample("storyteller_telegram_429_total") - count == 1
    assert sample("storyteller_telegram_429_wait_seconds_total") - waited == 3.0


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


class HeldDispatcher:
    """Every try meets ``error``: the chat's updates stay queued while it is ChatBusy."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def feed_update(self, bot: object, update: Update, **kwargs: Any) -> None:
        raise self.error


def raw_update(update_id: int) -> dict[str, Any]:
    data = text_update("/r 5 6", chat=GROUP, from_user=user()).model_dump(
        mode="json", exclude_none=True
    )
    data["update_id"] = update_id
    return data


def make_delivery(error: Exception) -> Delivery:
    bot, _session = make_bot()
    return Delivery(
        HeldDispatcher(error),  # type: ignore[arg-type]
        bot,
        Store(fakeredis.FakeAsyncRedis(decode_responses=True)),
        take_over=False,
    )


async def test_health_sees_the_queues_and_the_oldest_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(delivery, "BUSY_PAUSE", 0.01)
    runner = make_delivery(ChatBusy(GROUP.id))
    healthy, report = await metrics.health(metrics._TelegramCheck())
    assert healthy, report
    assert report["inbox"] == {"ok": True, "waiting": 0, "oldest_seconds": 0.0}

    runner.submit(raw_update(1))
    runner.submit(raw_update(2))
    await asyncio.sleep(0.05)
    assert runner.waiting() == {GROUP.id: [1, 2]}
    assert sample("storyteller_updates_waiting") >= 2
    assert sample("storyteller_chats_waiting") >= 1
    assert sample("storyteller_chat_queue_longest") >= 2
    assert_no_ids(REGISTRY)

    monkeypatch.setattr(metrics, "INBOX_STALE", 0.01)  # they have waited too long now
    healthy, report = await metrics.health(metrics._TelegramCheck())
    assert not healthy
    assert report["inbox"]["ok"] is False
    assert report["inbox"]["waiting"] == 2
    assert report["redis"] == {"ok": True}
    assert report["telegram"] == {"ok": True}
    runner.stop()
    await runner.drain(0.01)


async def test_a_given_up_update_is_a_warning_naming_its_chat(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram refused its result for longer than GIVE_UP_AFTER: it is dropped, counted."""
    monkeypatch.setattr(delivery, "RETRY_PAUSE", (0.0,))
    runner = make_delivery(TelegramServerError(SendMessage(chat_id=1, text="x"), "Bad Gateway"))
    runner.give_up_after = 0.0
    given_up = handled("given_up")
    with caplog.at_level(logging.INFO, logger="bot.delivery"):
        runner.submit(raw_update(7))
        for _ in range(100):
            if not runner.waiting():
                break
            await asyncio.sleep(0.01)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(f"update 7 of chat {GROUP.id}" in w for w in warnings), warnings
    assert handled("given_up") - given_up == 1


async def test_webhook_mode_is_counted_and_judged_the_same(
    fake_store: Store, tmp_path: Path
) -> None:
    router = Router()

    @router.message(Command("ping"))
    async def ping(message: Message) -> None:
        await message.answer("pong")

    settings = Settings(
        _env_file=None,
        bot_token=TOKEN,
        webhook_url="https://dice.example.org/hook",
        webhook_secret="s3cret",
    )
    dispatcher = create_dispatcher(
        settings, fake_store, I18n(path=tmp_path, default_locale="ru"), routers=[router]
    )
    bot, session = make_bot()
    before = handled("ok")
    webhook = TestClient(TestServer(build_webhook(settings, dispatcher, bot)))
    probe = TestClient(TestServer(metrics.build_app()))
    async with webhook, probe:
        body = text_update("/ping").model_dump(mode="json", exclude_none=True)
        headers = {"X-Telegram-Bot-Api-Secret-Token": "s3cret"}
        assert (await webhook.post("/hook", json=body, headers=headers)).status == 200
        for _ in range(100):
            if handled("ok") > before:
                break
            await asyncio.sleep(0.01)
        health = await probe.get("/healthz")
        assert health.status == 200, await health.text()
        page = await (await probe.get("/metrics")).text()
    assert handled("ok") - before == 1
    assert "storyteller_updates_handled_total" in page
    assert session.calls("sendMessage")


async def test_livez_answers_while_the_loop_runs() -> None:
    async with TestClient(TestServer(metrics.build_app())) as probe:
        answer = await probe.get("/livez")
        assert answer.status == 200
        report = await answer.json()
    assert report["alive"] is True
    assert report["version"] == version()
    assert report["loop_lag_seconds"] >= 0


async def test_readyz_follows_redis_and_only_a_long_telegram_outage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ready while Redis answers; Telegram away is reported, and fails readiness only once
    it has been away for TELEGRAM_UNREADY_AFTER seconds."""
    runner = make_delivery(ChatBusy(GROUP.id))
    telegram_away = TelegramServerError(SendMessage(chat_id=1, text="x"), "Bad Gateway")
    async with TestClient(TestServer(metrics.build_app())) as probe:
        answer = await probe.get("/readyz")
        assert answer.status == 200, await answer.text()
        report = await answer.json()
        assert report["ready"] is True
        assert report["redis"] == {"ok": True}
        assert report["telegram"] == {"ok": True}

    async def away() -> None:
        raise telegram_away

    monkeypatch.setattr(runner.bot, "get_me", away)
    app = metrics.build_app()
    async with TestClient(TestServer(app)) as probe:
        answer = await probe.get("/readyz")
        report = await answer.json()
        assert answer.status == 200, report  # Telegram away a moment: still ready
        assert report["telegram"]["ok"] is False
        assert "Bad Gateway" in report["telegram"]["error"]
        # /healthz, as before, fails at once on Telegram
        assert (await probe.get("/healthz")).status == 503

        monkeypatch.setattr(metrics, "TELEGRAM_UNREADY_AFTER", 0.0)  # away long enough now
        answer = await probe.get("/readyz")
        assert answer.status == 503, await answer.text()

    async def redis_away() -> bool:
        raise RedisConnectionError("Connection refused")

    monkeypatch.setattr(metrics, "TELEGRAM_UNREADY_AFTER", 300.0)
    monkeypatch.setattr(runner.bot, "get_me", runner.bot.__class__.get_me.__get__(runner.bot))
    monkeypatch.setattr(runner.store, "ping", redis_away)
    async with TestClient(TestServer(metrics.build_app())) as probe:
        answer = await probe.get("/readyz")
        report = await answer.json()
        assert answer.status == 503, report
        assert report["redis"]["ok"] is False
        assert "Connection refused" in report["redis"]["error"]
        assert report["telegram"] == {"ok": True}
        # liveness does not depend on Redis: restarting would not bring it back
        assert (await probe.get("/livez")).status == 200
    runner.stop()
    await runner.drain(0.01)


async def test_the_telegram_outage_counts_from_its_first_failed_check() -> None:
    check = metrics._TelegramCheck()
    bot, session = make_bot()
    session.fail_next("getMe", TelegramServerError(SendMessage(chat_id=1, text="x"), "down"))
    assert await check(bot) is not None
    assert check.failing_since is not None
    assert check.down_for(check.failing_since + 42) == 42
    check.at = -metrics.TELEGRAM_CHECK_EVERY  # due again: Telegram answers now
    assert await check(bot) is None
    assert check.down_for() == 0.0


async def test_metrics_name_the_build_and_no_chat(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build's version; the send budget and the queues summed up, never by chat."""
    runner = make_delivery(ChatBusy(GROUP.id))
    monkeypatch.setattr(delivery, "BUSY_PAUSE", 0.01)
    runner.submit(raw_update(91))
    await asyncio.sleep(0.02)
    async with TestClient(TestServer(metrics.build_app())) as probe:
        page = await (await probe.get("/metrics")).text()
    assert 'storyteller_build_info{python="' in page
    assert f'version="{version()}"' in page
    assert 'chat="' not in page
    assert 'user="' not in page
    assert str(GROUP.id) not in page
    assert_no_ids(REGISTRY)
    runner.stop()
    await runner.drain(0.01)


def test_the_send_budget_is_summed_over_groups() -> None:
    """Per group only the tightest budget and how many groups are low: no chat ids."""
    from bot.session import RateLimitMiddleware

    bot, session = make_bot()
    limiter = RateLimitMiddleware()
    session.middleware(limiter)
    runner = Delivery(
        HeldDispatcher(ChatBusy(GROUP.id)),  # type: ignore[arg-type]
        bot,
        Store(fakeredis.FakeAsyncRedis(decode_responses=True)),
        take_over=False,
    )
    for _ in range(limiter.groups.limit):
        limiter.groups.reserve((bot.id, -100777))
    for _ in range(3):
        limiter.groups.reserve((bot.id, -100888))
    families = {m.name: m for m in REGISTRY.collect()}
    assert families["storyteller_send_budget_group_min"].samples[0].value == 0
    states = {
        s.labels["state"]: s.value for s in families["storyteller_send_budget_groups"].samples
    }
    assert states["exhausted"] >= 1
    assert states["ok"] >= 1
    assert_no_ids(REGISTRY)
    del runner


async def test_the_webhook_s_port_has_the_probes(fake_store: Store, tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None,
        bot_token=TOKEN,
        webhook_url="https://dice.example.org/hook",
        webhook_secret="s3cret",
    )
    dispatcher = create_dispatcher(
        settings, fake_store, I18n(path=tmp_path, default_locale="ru"), routers=[Router()]
    )
    bot, _session = make_bot()
    async with TestClient(TestServer(build_webhook(settings, dispatcher, bot))) as webhook:
        assert (await webhook.get("/livez")).status == 200
        ready = await webhook.get("/readyz")
        assert ready.status == 200, await ready.text()
        assert (await ready.json())["redis"] == {"ok": True}
