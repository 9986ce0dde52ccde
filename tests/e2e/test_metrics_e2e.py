"""METRICS_PORT on the real process: /healthz and /metrics while it polls the fake Bot API.

Only the running process shows that the server starts with the bot, that the health check
reaches the same Redis and Bot API the bot uses, and that a roll lands in the counters.
"""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from localapi.patience import patient
from localapi.processes import RedisServer
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
    await bot_process.start(
        env=bot_process.environment(METRICS_PORT=str(port), METRICS_HOST="127.0.0.1")
    )

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
    assert f'storyteller_send_budget_group{{chat="{group.id}"}} 19.0' in text

    await redis_server.stop()  # Redis away: the probe must say so
    status, body = await get(f"{base}/healthz")
    assert status == 503, body
    report = json.loads(body)
    assert report["healthy"] is False
    assert report["redis"]["ok"] is False
    assert report["telegram"]["ok"] is True
