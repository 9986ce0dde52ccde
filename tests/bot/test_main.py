"""Start-up errors of the real ``python -m bot``: one line on stderr and the exit code the README
documents ("Exit codes"), never a traceback unless LOG_LEVEL=DEBUG.

The process runs against what it would meet: a Bot API server answering 401, a port nobody
listens on, a proxy's error page, a redis-server that wants a password it was not given. It is
forked from the tests' warm interpreter (localapi/zygote.py: the bot's own start-up, without
seconds of aiogram imports); what is about import time runs ``python -m bot`` from nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from aiohttp import web
from redis import Redis as SyncRedis
from redis.exceptions import AuthenticationError

from bot.version import version
from localapi.patience import patient
from localapi.processes import end_process, redis_server_binary, run_to_end
from localapi.server import FakeBotApi, free_port
from table.store.legacy import LAYOUT, LAYOUT_KEY
from tests.conftest import RedisServer

ROOT = Path(__file__).resolve().parents[2]


async def run_bot(env: dict[str, str], cwd: Path, *python: str) -> tuple[int, str]:
    """``python -m bot`` with only ``env`` for settings; its exit code and stderr.
    ``python``: the interpreter's own options."""
    clean = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    finished = await run_to_end(
        [sys.executable, *python, "-m", "bot"],
        timeout=60,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        cwd=cwd,  # an empty directory: no .env from the developer's checkout
        warm=not python,  # bot/__main__.py's start-up as it is, forked warm (localapi/zygote.py)
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


def bot_command(
    args: list[str], cwd: Path, **env: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    """``python -X importtime -m bot ARGS`` and how long it took (wall clock)."""
    clean = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", *args],
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=patient(60),
    )
    return result, time.perf_counter() - started


def imported(stderr: str) -> set[str]:
    """The modules ``-X importtime`` saw imported."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


@pytest.mark.parametrize(
    ("args", "env", "code"),
    [
        ([], {}, 2),  # no BOT_TOKEN
        ([], {"BOT_TOKEN": "123456:ABC", "REDIS_URL": "mysql://x"}, 2),
        (["--version"], {}, 0),
    ],
)
def test_settings_and_the_version_are_answered_before_aiogram_loads(
    args: list[str], env: dict[str, str], code: int, tmp_path: Path
) -> None:
    """A wrong setting or ``--version`` never waits for aiogram, the features or Redis to
    import (seconds of CPU on a small machine): the answer comes in well under a second."""
    result, took = bot_command(args, tmp_path, **env)
    assert result.returncode == code, result.stderr
    modules = imported(result.stderr)
    assert "bot.settings" in modules or args == ["--version"]
    assert not {m for m in modules if m.split(".")[0] in {"aiogram", "redis", "handlers"}}
    print(f"python -m bot {' '.join(args)}: {took:.2f} s, {len(modules)} modules")


def test_version_prints_the_release(tmp_path: Path) -> None:
    result, _took = bot_command(["--version"], tmp_path)
    assert result.stdout.strip() == version()
    assert result.stdout.strip().count(".") == 2  # semantic: MAJOR.MINOR.PATCH


async def test_in_json_mode_the_failure_line_is_json_too(refusing_api: str, tmp_path: Path) -> None:
    """LOG_FORMAT=json: every line is a JSON object, the traceback (DEBUG) and the last one
    included; that one still says ``bot: …``."""
    code, stderr = await run_bot(
        {
            "BOT_TOKEN": "123456:WRONG",
            "TELEGRAM_API_URL": refusing_api,
            "LOG_LEVEL": "DEBUG",
            "LOG_FORMAT": "json",
        },
        tmp_path,
    )
    assert code == 2, stderr
    records = [json.loads(line) for line in stderr.splitlines()]
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    assert any("Traceback" in r.get("error", "") for r in records)
    assert records[-1]["message"].startswith("bot: ")
    assert "BOT_TOKEN" in records[-1]["message"]


async def test_json_mode_answers_a_bad_setting_in_json(tmp_path: Path) -> None:
    code, stderr = await run_bot({"LOG_FORMAT": "json", "DEFAULT_LOCALE": "fr"}, tmp_path)
    assert code == 2
    (line,) = stderr.splitlines()
    assert "DEFAULT_LOCALE" in json.loads(line)["message"]


@pytest.fixture(params=["bad-gateway", "portal"])
async def proxy_page(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """What a proxy in front of the Bot API answers while the way to it is down: its own
    502 page, or a captive portal's page with 200."""

    async def page(_: web.Request) -> web.Response:
        if request.param == "bad-gateway":
            html = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
            return web.Response(status=502, text=html, content_type="text/html")
        html = "<!DOCTYPE html><html><head><title>Sign in to Wi-Fi</title></head></html>"
        return web.Response(status=200, text=html, content_type="text/html")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", page)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_a_proxy_s_page_at_start_is_retried_then_exit_3(
    proxy_page: str, tmp_path: Path
) -> None:
    """Not a wrong setting: waiting may mend it, so a supervisor should try again (3)."""
    code, stderr = await run_bot(
        {"BOT_TOKEN": "123456:ABC", "TELEGRAM_API_URL": proxy_page}, tmp_path
    )
    assert code == 3, stderr
    line = the_error(stderr)
    assert "unreachable" in line
    assert "HTML page" in line
    assert "retry 1" in stderr
    assert "retry 3" in stderr


@pytest.mark.e2e
async def test_redis_wanting_a_password_none_was_given_is_not_a_refusal(
    locked_redis: int, fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """REDIS_URL gives no credentials: Redis did not refuse any, it wants some."""
    code, stderr = await run_bot(
        {
            "BOT_TOKEN": fake_api.token,
            "TELEGRAM_API_URL": fake_api.base_url,
            "REDIS_URL": f"redis://127.0.0.1:{locked_redis}/0",
        },
        tmp_path,
    )
    assert code == 2, stderr
    line = the_error(stderr)
    assert "refused" not in line
    assert "Redis asks for a password and REDIS_URL gives none" in line


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
