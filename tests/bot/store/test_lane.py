"""The scripts' shared connection (bot/store/lane.py) answers each caller with its own
answer, raises what redis-py raises, and lives through an outage as the pool does."""

from __future__ import annotations

import asyncio
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import AuthenticationError, NoScriptError, RedisError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.store import base
from bot.store.base import STORAGE_ERRORS, connect
from bot.store.lane import LanedRedis, ScriptLane
from localapi.patience import patient
from tests.conftest import REDIS_SERVER, RedisServer, free_port

ECHO = "return {KEYS[1], ARGV[1]}"
COUNT = "return redis.call('INCR', KEYS[1])"


def connections_made(watcher: SyncRedis) -> int:
    return int(watcher.info("stats")["total_connections_received"])


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[Redis]:
    """The Store's client to a server of the test's own."""
    client = connect(redis_server.url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "COMMAND_TIMEOUT", 0.3)


async def warm_echo(redis: Redis) -> AsyncScript:
    """A script that answers its key and argument, loaded and its connection open."""
    echo = redis.register_script(ECHO)
    assert await echo(keys=["k"], args=["warm"]) == ["k", "warm"]
    return echo


def lane_of(redis: Redis) -> ScriptLane:
    assert isinstance(redis, LanedRedis)
    assert redis.lane is not None
    return redis.lane


async def test_every_caller_gets_its_own_answer_over_one_connection(
    redis: Redis, redis_server: RedisServer
) -> None:
    echo = await warm_echo(redis)
    with SyncRedis(port=redis_server.port) as watcher:
        before = connections_made(watcher)
        answers = await asyncio.gather(
            *(echo(keys=[f"k{n}"], args=[f"Бросок №{n}"]) for n in range(300))
        )
        assert answers == [[f"k{n}", f"Бросок №{n}"] for n in range(300)]
        assert connections_made(watcher) == before


async def test_error_replies_raise_redis_py_errors_and_the_answers_stay_in_step(
    redis: Redis,
) -> None:
    echo = await warm_echo(redis)
    broken = redis.register_script("return redis.call('NOPE')")
    calls: list[Any] = [
        echo(keys=["a"], args=["1"]),
        broken(keys=["b"]),
        redis.evalsha("0" * 40, 0),
        echo(keys=["c"], args=["2"]),
    ]
    a, b, unknown, c = await asyncio.gather(*calls, return_exceptions=True)
    assert a == ["a", "1"]
    assert isinstance(b, ResponseError)
    assert isinstance(unknown, NoScriptError)
    assert c == ["c", "2"]


async def test_a_script_forgotten_by_the_server_is_loaded_again(redis: Redis) -> None:
    count = redis.register_script(COUNT)
    assert await count(keys=["n"]) == 1
    await redis.script_flush()
    assert await count(keys=["n"]) == 2  # NOSCRIPT from the lane, loaded by redis-py


async def test_a_cancelled_caller_leaves_its_answer_to_nobody(redis: Redis) -> None:
    echo = await warm_echo(redis)
    gone = asyncio.create_task(echo(keys=["gone"], args=["x"]))
    await asyncio.sleep(0)  # written, not yet answered
    gone.cancel()
    assert await echo(keys=["next"], args=["y"]) == ["next", "y"]
    assert gone.cancelled()


async def test_an_outage_surfaces_as_a_storage_error_and_heals(
    redis: Redis, redis_server: RedisServer
) -> None:
    count = redis.register_script(COUNT)
    assert await count(keys=["n"]) == 1
    redis_server.stop()
    with pytest.raises(STORAGE_ERRORS):
        await count(keys=["n"])
    redis_server.start()  # the same data directory: the count is kept, the script is not
    assert await count(keys=["n"]) == 2


@pytest.mark.usefixtures("short_timeout")
async def test_a_frozen_server_times_out_and_a_late_answer_reaches_nobody(
    redis: Redis, redis_server: RedisServer
) -> None:
    echo = await warm_echo(redis)
    assert redis_server.process is not None
    redis_server.process.send_signal(signal.SIGSTOP)
    started = time.monotonic()
    try:
        stuck = await asyncio.gather(
            *(echo(keys=[f"s{n}"], args=[str(n)]) for n in range(5)),
            return_exceptions=True,
        )
    finally:
        redis_server.process.send_signal(signal.SIGCONT)
    assert all(isinstance(error, STORAGE_ERRORS) for error in stuck)
    assert time.monotonic() - started < 1.5  # 0.3 s, once more after a retry's pause
    answers = await asyncio.gather(*(echo(keys=[f"n{n}"], args=[str(n)]) for n in range(5)))
    assert answers == [[f"n{n}", str(n)] for n in range(5)]


async def test_a_closed_client_refuses_at_once(redis_server: RedisServer) -> None:
    redis = connect(redis_server.url)
    echo = await warm_echo(redis)
    await redis.aclose()
    with pytest.raises(RedisConnectionError):
        await asyncio.wait_for(lane_of(redis).call("EVALSHA", echo.sha, 1, "k", "v"), 1)


async def test_a_refused_connection_is_a_storage_error() -> None:
    redis = connect(f"redis://127.0.0.1:{free_port()}/0")
    try:
        with pytest.raises(STORAGE_ERRORS):
            await redis.evalsha("0" * 40, 0)
    finally:
        await redis.aclose()


@pytest.mark.parametrize(
    ("url", "laned"),
    [
        ("redis://localhost:1/0", True),
        ("unix:///tmp/none.sock", True),
        ("rediss://localhost:1/0", True),
        ("redis+cluster://localhost:1", False),  # a Cluster keeps everything on the pool
    ],
)
def test_which_connections_take_the_lane(url: str, laned: bool) -> None:
    redis = connect(url)
    assert (isinstance(redis, LanedRedis) and redis.lane is not None) is laned


@pytest.fixture
def guarded_socket(tmp_path: Path) -> Iterator[Path]:
    """A redis-server on a Unix socket only, with a password."""
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed")
    socket = tmp_path / "redis.sock"
    process = subprocess.Popen(
        [
            REDIS_SERVER,
            "--port",
            "0",
            "--unixsocket",
            str(socket),
            "--dir",
            str(tmp_path),
            "--save",
            "",
            "--requirepass",
            "тайна",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + patient(10)
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        yield socket
    finally:
        process.terminate()
        process.wait(timeout=patient(5))


async def test_a_password_a_database_and_a_unix_socket(guarded_socket: Path) -> None:
    redis = connect(f"unix://:%D1%82%D0%B0%D0%B9%D0%BD%D0%B0@{guarded_socket}?db=3")
    try:
        count = redis.register_script(COUNT)
        assert isinstance(count, AsyncScript)
        assert await count(keys=["n"]) == 1
        assert await lane_of(redis).call("EVALSHA", count.sha, 1, "n") == 2
        with SyncRedis(unix_socket_path=str(guarded_socket), password="тайна", db=3) as check:
            assert check.get("n") == b"2"
    finally:
        await redis.aclose()


async def test_a_dropped_connection_is_opened_again_once_for_every_caller(
    redis: Redis, redis_server: RedisServer
) -> None:
    count = redis.register_script(COUNT)
    assert await count(keys=["n"]) == 1
    with SyncRedis(port=redis_server.port) as watcher:
        before = connections_made(watcher)
        calls = [asyncio.create_task(count(keys=["n"])) for _ in range(50)]
        await asyncio.sleep(0)  # every call asked; written at the loop's next turn
        watcher.client_kill_filter(_type="normal", skipme=True)
        answers = await asyncio.gather(*calls)
        assert sorted(answers) == list(range(2, 52))
        assert connections_made(watcher) - before == 1


async def test_a_connection_left_idle_is_made_anew_before_its_next_call(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base, "HEALTH_CHECK_INTERVAL", 0.2)
    redis = connect(redis_server.url)
    try:
        echo = await warm_echo(redis)
        with SyncRedis(port=redis_server.port) as watcher:
            before = connections_made(watcher)
            assert await echo(keys=["a"], args=["1"]) == ["a", "1"]
            assert connections_made(watcher) == before  # busy enough: the same one
            await asyncio.sleep(0.3)
            assert await echo(keys=["b"], args=["2"]) == ["b", "2"]
            assert connections_made(watcher) == before + 1
    finally:
        await redis.aclose()


async def test_a_wrong_password_is_refused_as_redis_py_refuses_it(guarded_socket: Path) -> None:
    redis = connect(f"unix://:wrong@{guarded_socket}?db=3")
    try:
        with pytest.raises(AuthenticationError):
            await redis.evalsha("0" * 40, 0)
    finally:
        await redis.aclose()


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A redis-server speaking TLS only, on a certificate of its own for 127.0.0.1."""
    if not Path(REDIS_SERVER).exists() or shutil.which("openssl") is None:
        pytest.skip("redis-server or openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
    )
    port = free_port()
    process = subprocess.Popen(
        [
            *(REDIS_SERVER, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1"),
            *("--tls-cert-file", str(cert), "--tls-key-file", str(key)),
            *("--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no"),
            *("--dir", str(tmp_path), "--save", ""),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + patient(10)
        while True:
            try:
                with SyncRedis(
                    host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=str(cert), retry=None
                ) as client:
                    client.ping()
                break
            except RedisError:
                if process.poll() is not None:
                    pytest.skip("this redis-server was built without TLS")
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield port, cert
    finally:
        process.terminate()
        process.wait(timeout=patient(5))


async def test_a_tls_connection_on_the_urls_certificates(tls_server: tuple[int, Path]) -> None:
    port, cert = tls_server
    redis = connect(f"rediss://127.0.0.1:{port}/0?ssl_ca_certs={cert}")
    try:
        echo = await warm_echo(redis)
        answers = await asyncio.gather(*(echo(keys=[f"k{n}"], args=[str(n)]) for n in range(50)))
        assert answers == [[f"k{n}", str(n)] for n in range(50)]
    finally:
        await redis.aclose()
    untrusted = connect(f"rediss://127.0.0.1:{port}/0")  # the system's CAs: not this one
    try:
        with pytest.raises(STORAGE_ERRORS):
            await lane_of(untrusted).call("EVALSHA", echo.sha, 1, "k", "v")
    finally:
        await untrusted.aclose()
