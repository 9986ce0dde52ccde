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
from bot.metrics import MetricsMiddleware
from bot.middlewares import ChatBusy
from bot.session import RetryMiddleware
from bot.settings import Settings
from bot.store import Store
from bot.webhook import build_app as build_webhook
from tests.bot.telegram_fakes import GROUP, TOKEN, make_bot, text_update, user
from tests.bot.test_session import ScriptedApi, Sleeps, api_bot


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def handled(outcome: str, kind: str = "message") -> float:
    return sample("storyteller_updates_handled_total", kind=kind, outcome=outcome)


def raising(
    error: BaseException | None,
) -> Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]:
    async def handler(event: TelegramObject, data: dict[str, Any]) -> Any:
        if error is not None:
            raise error
        return "done"

    return handler


async def test_each_try_counts_by_outcome_and_is_timed() -> None:
    update = text_update("/r 5 6", chat=GROUP, from_user=user())
    middleware = MetricsMiddleware()
    before = {o: handled(o) for o in ("ok", "failed", "retried")}
    timed = sample("storyteller_update_handling_seconds_count", kind="message")
    redis_errors = sample("storyteller_redis_errors_total", where="update")

    assert await middleware(raising(None), update, {}) == "done"
    with pytest.raises(ValueError, match="bug"):
        await middleware(raising(ValueError("bug")), update, {})
    with pytest.raises(RedisConnectionError):
        await middleware(raising(RedisConnectionError("away")), update, {})
    with pytest.raises(ChatBusy):  # another replica has the chat: not a try
        await middleware(raising(ChatBusy(GROUP.id)), update, {})

    assert {o: handled(o) - before[o] for o in before} == {"ok": 1, "failed": 1, "retried": 1}
    assert sample("storyteller_update_handling_seconds_count", kind="message") - timed == 3
    assert sample("storyteller_redis_errors_total", where="update") - redis_errors == 1


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
    page = REGISTRY.collect()
    waiting = next(m for m in page if m.name == "storyteller_updates_waiting")
    assert [(s.labels, s.value) for s in waiting.samples] == [({"chat": str(GROUP.id)}, 2)]

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
