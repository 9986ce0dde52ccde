"""METRICS_PORT and LOG_FORMAT=json on the real process: the probes and /metrics while it
polls the fake Bot API, and its log.

Only the running process shows that the server starts with the bot, that the probes reach
the same Redis and Bot API the bot uses, that a roll lands in the counters once, and that
every line the process writes (aiogram's and the libraries' included) is one JSON object.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path

import aiohttp
import pytest

from localapi.patience import patient
from localapi.processes import BotProcess, RedisServer
from localapi.server import FakeBotApi, free_port
from tests.e2e.conftest import BotLauncher

pytestmark = pytest.mark.e2e


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        return response.status, await response.text()


async def test_health_and_metrics_while_polling(
    fake_api: FakeBotApi, bot_process: BotLauncher, redis_server: RedisServer
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = await bot_process.start(
        env=bot_process.environment(METRICS_PORT=str(port), LOG_FORMAT="json")
    )  # METRICS_HOST: the loopback interface by default

    status, body = await get(f"{base}/livez")
    assert status == 200, body
    assert json.loads(body)["alive"] is True
    status, body = await get(f"{base}/readyz")
    assert status == 200, body
    assert json.loads(body)["redis"] == {"ok": True}

    status, body = await get(f"{base}/healthz")
    assert status == 200, body
    report = json.loads(body)
    assert report["healthy"] is True
    assert [report[part]["ok"] for part in ("redis", "telegram", "inbox")] == [True] * 3

    anya = fake_api.add_user("Аня", language_code="ru")
    group = fake_api.add_group("Стол", owner=anya)
    command = fake_api.send_text(group, anya, "/r 5 6")
    await fake_api.wait_for_message(group, after=command, timeout=10)

    # The reply goes out before the update is finished (its journal closed), then it counts.
    handled = 'storyteller_updates_handled_total{kind="message",outcome="ok"} 1.0'
    deadline = time.monotonic() + patient(5)
    while time.monotonic() < deadline:
        status, text = await get(f"{base}/metrics")
        assert status == 200
        if handled in text:
            break
        await asyncio.sleep(0.05)
    assert handled in text
    assert 'storyteller_update_handling_seconds_count{kind="message"} 1.0' in text
    assert "storyteller_send_budget_overall" in text
    assert "storyteller_send_budget_group_min 19.0" in text
    assert 'storyteller_build_info{python="' in text
    assert 'version="' in text
    assert 'chat="' not in text
    assert 'user="' not in text
    assert str(group.id) not in text

    await redis_server.stop()  # Redis away: the probes must say so
    status, body = await get(f"{base}/healthz")
    assert status == 503, body
    report = json.loads(body)
    assert report["healthy"] is False
    assert report["redis"]["ok"] is False
    assert report["telegram"]["ok"] is True
    status, body = await get(f"{base}/readyz")
    assert status == 503, body
    assert json.loads(body)["redis"]["ok"] is False
    status, body = await get(f"{base}/livez")  # alive all the same: a restart would not help
    assert status == 200, body

    assert await process.stop() == 0
    records = json_log(process.log_path.read_text())
    assert {"time", "level", "logger", "message"} <= set(records[0])
    assert any("started: storyteller-dice-bot" in r["message"] for r in records)
    closing = [r for r in records if r.get("outcome")]
    assert len(closing) == 1, closing  # one line per update, aiogram's folded into it
    assert closing[0]["outcome"] == "ok"
    assert closing[0]["chat"] == group.id
    assert isinstance(closing[0]["update_id"], int)
    assert not any(r["message"].startswith("Update id=") for r in records)


def json_log(text: str) -> list[dict[str, object]]:
    """Every line the process wrote, each one JSON object (the launcher's own header line
    aside)."""
    lines = [line for line in text.splitlines() if line and not line.startswith("=====")]
    records = [json.loads(line) for line in lines]
    assert all(isinstance(r, dict) for r in records)
    return records


async def test_the_webhook_s_port_has_the_probes(
    fake_api: FakeBotApi, redis_server: RedisServer, tmp_path: Path
) -> None:
    """In webhook mode a load balancer in front of the bot looks on the webhook's port."""
    port = free_port()
    process = BotProcess(
        {
            "BOT_TOKEN": fake_api.token,
            "TELEGRAM_API_URL": fake_api.base_url,
            "REDIS_URL": redis_server.url,
            "WEBHOOK_URL": "https://dice.example.org/hook",
            "WEBHOOK_SECRET": "s3cret",
            "WEBHOOK_HOST": "127.0.0.1",
            "WEBHOOK_PORT": str(port),
        },
        tmp_path / "bot.log",
    )
    await process.start()
    try:
        await process.wait_until(lambda: bool(fake_api.calls_to("setWebhook")), 60, "listening")
        base = f"http://127.0.0.1:{port}"
        status, body = 0, "not listening"
        for _ in range(200):  # setWebhook is called as the server starts
            with contextlib.suppress(aiohttp.ClientError):
                status, body = await get(f"{base}/livez")
                break
            await asyncio.sleep(0.05)
        assert status == 200, body
        status, body = await get(f"{base}/readyz")
        assert status == 200, body
        await redis_server.stop()
        status, body = await get(f"{base}/readyz")
        assert status == 503, body
        assert json.loads(body)["redis"]["ok"] is False
        status, body = await get(f"{base}/livez")
        assert status == 200, body
    finally:
        await process.stop()
