"""Start-up errors of the real ``python -m bot``: one line on stderr and the exit code the README
documents ("Exit codes"), never a traceback unless LOG_LEVEL=DEBUG.

The process runs against what it would meet: a Bot API server answering 401, a port nobody
listens on, a redis-server that wants a password it was not given.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from aiohttp import web
from redis import Redis as SyncRedis
from redis.exceptions import AuthenticationError

from bot.store.legacy import LAYOUT, LAYOUT_KEY
from localapi.patience import patient
from localapi.processes import end_process, redis_server_binary, run_to_end
from localapi.server import FakeBotApi, free_port
from tests.conftest import RedisServer

ROOT = Path(__file__).resolve().parents[2]


async def run_bot(env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """``python -m bot`` with only ``env`` for settings; its exit code and stderr."""
    clean = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    finished = await run_to_end(
        [sys.executable, "-m", "bot"],
        timeout=60,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        cwd=cwd,  # an empty directory: no .env from the developer's checkout
    )
    return finished.returncode, finished.stderr


def the_error(stderr: str) -> str:
    """The one line that is not a log record; fails if there is none or more than one."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("bot: ")]
    assert len(lines) == 1, stderr
    assert stderr.rstrip().endswith(lines[0]), stderr
    return lines[0]


@pytest.fixture(params=["telegram", "plain"])
async def refusing_api(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A server that answers every method 401: as Telegram answers a revoked token, or as a
    proxy in front of it would, in plain text."""

    async def unauthorized(_: web.Request) -> web.Response:
        if request.param == "plain":
            return web.Response(status=401, text="401 Unauthorized")
        body = {"ok": False, "error_code": 401, "description": "Unauthorized"}
        return web.json_response(body, status=401)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", unauthorized)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_a_token_telegram_refuses_exits_2_in_one_line(
    refusing_api: str, tmp_path: Path
) -> None:
    code, stderr = await run_bot(
        {"BOT_TOKEN": "123456:WRONG", "TELEGRAM_API_URL": refusing_api}, tmp_path
    )
    assert code == 2, stderr
    assert "BOT_TOKEN" in the_error(stderr)
    assert "WRONG" not in stderr  # the token never lands in the output


async def test_with_debug_the_traceback_comes_before_the_line(
    refusing_api: str, tmp_path: Path
) -> None:
    code, stderr = await run_bot(
        {"BOT_TOKEN": "123456:WRONG", "TELEGRAM_API_URL": refusing_api, "LOG_LEVEL": "DEBUG"},
        tmp_path,
    )
    assert code == 2
    assert "Traceback" in stderr
    assert stderr.rstrip().splitlines()[-1].startswith("bot: ")


async def test_telegram_unreachable_exits_3_after_the_retries(tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}"  # nobody listens there
    code, stderr = await run_bot({"BOT_TOKEN": "123456:ABC", "TELEGRAM_API_URL": closed}, tmp_path)
    assert code == 3, stderr
    line = the_error(stderr)
    assert closed in line
    assert "unreachable" in line
    assert "retry 1" in stderr  # it did try again before giving up


@pytest.fixture
async def locked_redis(tmp_path: Path) -> AsyncIterator[int]:
    """A redis-server of its own on a random port that wants the password ``s3same``."""
    binary = redis_server_binary()
    if binary is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    directory = tmp_path / "redis"
    directory.mkdir()
    process = await asyncio.create_subprocess_exec(
        binary,
        *("--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory)),
        *("--save", "", "--appendonly", "no", "--requirepass", "s3same"),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    client = aioredis.Redis(port=port, password="s3same", socket_timeout=1)
    try:
        deadline = time.monotonic() + patient(5)
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, aioredis.RedisError):
                if await client.ping():
                    break
            await asyncio.sleep(0.02)
        yield port
    finally:
        await client.aclose()
        process.terminate()
        await end_process(process, grace=patient(5))


@pytest.mark.e2e
async def test_redis_refusing_the_password_exits_2_in_one_line(
    locked_redis: int, fake_api: FakeBotApi, tmp_path: Path
) -> None:
    url = f"redis://:hunter2@127.0.0.1:{locked_redis}/0"
    with pytest.raises(AuthenticationError):  # the server really does refuse it
        async with aioredis.Redis.from_url(url) as client:
            await client.ping()
    code, stderr = await run_bot(
        {
            "BOT_TOKEN": fake_api.token,
            "TELEGRAM_API_URL": fake_api.base_url,
            "REDIS_URL": url,
        },
        tmp_path,
    )
    assert code == 2, stderr
    assert "Redis refused" in the_error(stderr)
    assert "hunter2" not in stderr


@pytest.mark.e2e
async def test_data_of_a_newer_release_exits_2_untouched(
    redis_server: RedisServer, fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """A rollback past an upgrade that changed the layout (README "Upgrading")."""
    newer = str(int(LAYOUT) + 1)
    with SyncRedis(port=redis_server.port, decode_responses=True) as client:
        client.set(LAYOUT_KEY, newer)
        client.set("sdb:chat:-100", "{}")
    code, stderr = await run_bot(
        {
            "BOT_TOKEN": fake_api.token,
            "TELEGRAM_API_URL": fake_api.base_url,
            "REDIS_URL": redis_server.url,
        },
        tmp_path,
    )
    assert code == 2, stderr
    line = the_error(stderr)
    assert f"layout {newer}, newer than this release's {LAYOUT}" in line
    assert "restore the backup" in line
    with SyncRedis(port=redis_server.port, decode_responses=True) as client:
        assert client.get("sdb:chat:-100") == "{}"
        assert client.get(LAYOUT_KEY) == newer
