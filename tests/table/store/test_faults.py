"""The Store over redis-py's own client lives through what a server and a network do to it:
a stopped, frozen or restarted server, a connection killed under its calls, scripts flushed
from the server, and it speaks TLS, a password with a database, and a Unix socket."""

from __future__ import annotations

import asyncio
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from redis import Redis as SyncRedis
from redis.exceptions import RedisError, ResponseError

from table.store import Store, base
from table.store.base import STORAGE_ERRORS
from table.store.scripts import Batch
from tests.conftest import REDIS_SERVER, RedisServer, free_port


def connections_made(watcher: SyncRedis) -> int:
    return int(watcher.info("stats")["total_connections_received"])


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[Store]:
    """The Store on a server of the test's own, its scripts loaded."""
    opened = Store.from_url(redis_server.url)
    await opened.load_scripts()
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "COMMAND_TIMEOUT", 0.3)


async def raise_floors(store: Store, chats: range) -> None:
    """A script per chat (the chat's floor raised to its number), all at once."""
    await asyncio.gather(*(store.note_sent(chat, chat) for chat in chats))


async def floors(store: Store, chats: range) -> list[int]:
    return [await store.last_sent(chat) for chat in chats]


async def test_every_caller_gets_its_own_answer(store: Store) -> None:
    await raise_floors(store, range(1, 301))
    assert await floors(store, range(1, 301)) == list(range(1, 301))


async def test_a_script_forgotten_by_the_server_is_loaded_again(store: Store) -> None:
    await store.note_sent(5, 10)
    await store.redis.script_flush()
    await store.note_sent(5, 11)  # NOSCRIPT, loaded again by redis-py's Script
    assert await store.last_sent(5) == 11


async def test_scripts_asked_together_reach_the_server_together(
    store: Store, redis_server: RedisServer
) -> None:
    await raise_floors(store, range(1, 3))
    with SyncRedis(port=redis_server.port) as watcher:
        before = int(watcher.info("stats")["total_reads_processed"])
        await raise_floors(store, range(1, 101))
        reads = int(watcher.info("stats")["total_reads_processed"]) - before
    assert reads <= 10, reads  # one pipeline, read in a few gulps; not a hundred calls


async def test_scripts_forgotten_by_the_server_are_loaded_again_in_a_batch(store: Store) -> None:
    await raise_floors(store, range(1, 21))
    await store.redis.script_flush()
    await asyncio.gather(*(store.note_sent(chat, chat + 50) for chat in range(1, 21)))
    assert await floors(store, range(1, 21)) == list(range(51, 71))


async def test_a_batch_answers_each_caller_with_its_own_reply_or_error(store: Store) -> None:
    batch = Batch(store.redis)
    echo = store.redis.register_script("return {KEYS[1], ARGV[1]}")
    broken = store.redis.register_script("return redis.call('NOPE')")
    await echo(keys=["k"], args=["load"])
    await store.redis.script_load(broken.script)
    calls = [
        batch.call(echo, ["a"], ["1"]),
        batch.call(broken, ["b"], []),
        batch.call(echo, ["c"], ["Бросок"]),
    ]
    a, b, c = await asyncio.gather(*calls, return_exceptions=True)
    assert a == ["a", "1"]
    assert isinstance(b, ResponseError)
    assert c == ["c", "Бросок"]


@pytest.mark.parametrize("cancelled", [0, 1])
async def test_a_cancelled_caller_leaves_its_answer_to_nobody(store: Store, cancelled: int) -> None:
    """The first call of a turn sends the others' with its own, so it may be given up on
    while it gathers them (0) or while a later caller of the turn waits for its answer (1):
    the other call is answered all the same."""
    batch = Batch(store.redis)
    echo = store.redis.register_script("return {KEYS[1], ARGV[1]}")
    await echo(keys=["k"], args=["load"])
    calls = [asyncio.create_task(batch.call(echo, [f"k{n}"], [str(n)])) for n in range(2)]
    await asyncio.sleep(0)  # both asked: the first gathers the turn's calls
    calls[cancelled].cancel()
    kept = 1 - cancelled
    assert await calls[kept] == [f"k{kept}", str(kept)]
    with pytest.raises(asyncio.CancelledError):
        await calls[cancelled]
    assert await batch.call(echo, ["next"], ["z"]) == ["next", "z"]


async def test_the_first_caller_given_up_on_with_the_pipeline_out_leaves_the_others_answered(
    store: Store,
) -> None:
    """The first call of a turn sends the turn's pipeline from its own task: cancelled while
    the server runs it (a script that takes a while), the other call is sent again and
    answered, and the one given up on is not run a second time."""
    batch = Batch(store.redis)
    slow = store.redis.register_script(
        "local t = redis.call('TIME') local start = t[1] * 1000000 + t[2]"
        " repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start > 200000"
        " return redis.call('INCR', KEYS[1])"
    )
    echo = store.redis.register_script("return {KEYS[1], ARGV[1]}")
    await echo(keys=["k"], args=["load"])
    await store.redis.script_load(slow.script)
    first = asyncio.create_task(batch.call(slow, ["slow"], []))
    other = asyncio.create_task(batch.call(echo, ["k1"], ["1"]))  # the same turn: one pipeline
    await asyncio.sleep(0.05)  # the pipeline is out, the server busy with the slow script
    assert not first.done()
    first.cancel()
    assert await asyncio.wait_for(other, 10) == ["k1", "1"]
    with pytest.raises(asyncio.CancelledError):
        await first
    assert await store.redis.get("slow") == "1"


async def test_an_outage_surfaces_as_a_storage_error_and_heals(
    store: Store, redis_server: RedisServer
) -> None:
    await store.note_sent(5, 1)
    redis_server.stop()
    with pytest.raises(STORAGE_ERRORS):
        await store.note_sent(5, 2)
    redis_server.start()  # the same data directory: the floor is kept, the script is not
    await store.note_sent(5, 3)
    assert await store.last_sent(5) == 3


@pytest.mark.usefixtures("short_timeout")
async def test_a_frozen_server_times_out_in_time_and_heals(redis_server: RedisServer) -> None:
    store = Store.from_url(redis_server.url)
    try:
        await store.load_scripts()
        assert redis_server.process is not None
        redis_server.process.send_signal(signal.SIGSTOP)
        started = time.monotonic()
        try:
            stuck = await asyncio.gather(
                *(store.note_sent(chat, chat) for chat in range(1, 6)), return_exceptions=True
            )
        finally:
            redis_server.process.send_signal(signal.SIGCONT)
        assert all(isinstance(error, STORAGE_ERRORS) for error in stuck), stuck
        assert time.monotonic() - started < 2.5  # a timeout, a retry's pause, a timeout
        await raise_floors(store, range(10, 15))
        assert await floors(store, range(10, 15)) == list(range(10, 15))
    finally:
        await store.close()


async def test_a_refused_connection_is_a_storage_error() -> None:
    store = Store.from_url(f"redis://127.0.0.1:{free_port()}/0")
    try:
        with pytest.raises(STORAGE_ERRORS):
            await store.note_sent(5, 1)
    finally:
        await store.close()


async def test_connections_killed_under_the_calls_are_made_anew(
    store: Store, redis_server: RedisServer
) -> None:
    await raise_floors(store, range(1, 9))
    with SyncRedis(port=redis_server.port) as watcher:
        calls = [asyncio.create_task(store.note_sent(chat, chat + 100)) for chat in range(1, 51)]
        await asyncio.sleep(0)  # asked, not yet answered
        watcher.client_kill_filter(_type="normal", skipme=True)
        await asyncio.gather(*calls)  # each retried once on a fresh connection
    assert await floors(store, range(1, 51)) == list(range(101, 151))


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
        deadline = time.monotonic() + 10
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        yield socket
    finally:
        process.terminate()
        process.wait(timeout=5)


async def test_a_password_a_database_and_a_unix_socket(guarded_socket: Path) -> None:
    store = Store.from_url(f"unix://:%D1%82%D0%B0%D0%B9%D0%BD%D0%B0@{guarded_socket}?db=3")
    try:
        await store.load_scripts()
        await raise_floors(store, range(1, 51))
        assert await floors(store, range(1, 51)) == list(range(1, 51))
        with SyncRedis(unix_socket_path=str(guarded_socket), password="тайна", db=3) as check:
            assert check.get("sdb:sent:{7}") == b"7"
    finally:
        await store.close()


async def test_a_wrong_password_is_refused_as_redis_py_refuses_it(guarded_socket: Path) -> None:
    store = Store.from_url(f"unix://:wrong@{guarded_socket}?db=3")
    try:
        with pytest.raises(STORAGE_ERRORS, match="invalid username-password"):
            await store.note_sent(5, 1)
    finally:
        await store.close()


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
        deadline = time.monotonic() + 10
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
        process.wait(timeout=5)


async def test_a_tls_connection_on_the_urls_certificates(tls_server: tuple[int, Path]) -> None:
    port, cert = tls_server
    store = Store.from_url(f"rediss://127.0.0.1:{port}/0?ssl_ca_certs={cert}")
    try:
        await store.load_scripts()
        await raise_floors(store, range(1, 51))
        assert await floors(store, range(1, 51)) == list(range(1, 51))
    finally:
        await store.close()
    untrusted = Store.from_url(f"rediss://127.0.0.1:{port}/0")  # the system's CAs: not this one
    try:
        with pytest.raises(STORAGE_ERRORS):
            await untrusted.note_sent(5, 1)
    finally:
        await untrusted.close()
