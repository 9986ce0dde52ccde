"""Shared fixtures: an in-process Store for fast tests and a real redis-server when it matters.

The real server runs from Debian's binary on a random free port in a temporary directory, so
tests never touch a system Redis and can stop and restart it to play an outage.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import fakeredis
import pytest
from redis import Redis as SyncRedis
from redis.exceptions import RedisError

from bot.store import Store
from localapi.server import FakeBotApi

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RedisServer:
    """A redis-server process the test owns: ``stop()`` and ``start()`` play an outage."""

    directory: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with SyncRedis(port=self.port, socket_connect_timeout=0.2) as client:
                    if client.ping():
                        return
            except (OSError, RedisError):  # still booting
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def fake_store() -> AsyncIterator[Store]:
    """A Store over fakeredis with Lua: the same semantics as production, no server."""
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def real_store(redis_server: RedisServer) -> AsyncIterator[Store]:
    store = Store.from_url(redis_server.url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi() as api:
        yield api
    # Answers that do not match api.json are this fake's bugs; they must not pass silently.
    assert not api.internal_errors, api.internal_errors
