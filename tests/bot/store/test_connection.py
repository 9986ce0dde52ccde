"""The connection packs commands in C and sends exactly the bytes redis-py would."""

from __future__ import annotations

from typing import Any

import pytest
from redis.asyncio.connection import Connection, SSLConnection, UnixDomainSocketConnection
from redis.exceptions import DataError

from bot.store.base import connect


@pytest.mark.parametrize(
    "args",
    [
        ("EVALSHA", "f" * 40, 2, "s:{5}:k", "s:{5}:j", "Привет, мир", -7, 1.5, 10**20, ""),
        ("CLIENT SETNAME", "bot"),
        (b"CLIENT SETNAME", b"\x00\xff", bytearray(b"ab"), memoryview(b"cd")),
    ],
)
def test_packs_the_same_bytes_as_redis_py(args: tuple[Any, ...]) -> None:
    packed = connect("redis://localhost:1/0").connection_pool.connection_class()
    assert b"".join(packed.pack_command(*args)) == b"".join(Connection().pack_command(*args))


@pytest.mark.parametrize("bad", [None, True, object()])
def test_refuses_what_redis_py_refuses(bad: object) -> None:
    packed = connect("redis://localhost:1/0").connection_pool.connection_class()
    with pytest.raises(DataError):
        Connection().pack_command("SET", "k", bad)
    with pytest.raises(DataError):
        packed.pack_command("SET", "k", bad)


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("redis://localhost:1/0", Connection),
        ("rediss://localhost:1/0", SSLConnection),
        ("unix:///tmp/none.sock", UnixDomainSocketConnection),
    ],
)
def test_keeps_the_kind_of_connection_the_url_names(url: str, kind: type) -> None:
    chosen = connect(url).connection_pool.connection_class
    assert issubclass(chosen, kind)
    assert chosen is not kind
