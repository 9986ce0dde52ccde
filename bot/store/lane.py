"""One pipelined connection for the Store's scripts (ARCHITECTURE.md, "The layers": store).

Every routine update is three scripts (begin, its write, finish), and a table's updates run
side by side. redis-py serves each call on a pooled connection of its own: a checkout, a
retry wrapper, observability hooks, a write and a read with a timeout of their own, each
call waking its own reader. That was most of what a script cost the bot (about 35 µs of CPU
a call with eight updates in flight, against 7 µs on one shared connection), and three of
them a roll were the largest share of the bot's CPU that an echo bot does not pay
(bench/README.md, ``cpu.py``).

Here the scripts of every running update share one connection: each call is packed in C, the
calls asked in one turn of the event loop are written together at its next turn, Redis
answers in the order it was asked, and one reader hands each answer to its caller (answers
that arrive together are read together). Nothing else changes: a script runs exactly as
before (EVALSHA, the same arguments, NOSCRIPT loaded again by redis-py's ``Script``), an
error reply raises redis-py's own exception, and an outage looks as it did: a refused or
lost connection raises ``ConnectionError``, an answer that does not come within the command
timeout ``TimeoutError``, and either is retried once on a fresh connection, as the pool
retries. Everything else (transactions, WATCH, plain commands, script loading) stays on the
pool.

A TCP connection (with TLS for a ``rediss://`` URL, on the context redis-py builds from the
URL's options) or a Unix socket, with a password at most, is carried here; a credential
provider or RESP3 keep every call on the pool, as does a Redis Cluster.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, cast

import hiredis
from redis._parsers.base import BaseParser
from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.connection import (
    Connection,
    RedisSSLContext,
    SSLConnection,
    UnixDomainSocketConnection,
)
from redis.asyncio.retry import Retry
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse
from redis.exceptions import TimeoutError as RedisTimeoutError

# The arguments hiredis packs exactly as redis-py does; any other (a memoryview, None, a
# bool) goes redis-py's way, to be sent or refused as it always was.
_PLAIN = frozenset({str, bytes, int, float})


class _Wire(asyncio.Protocol):
    """The connection: requests written in order, answers handed out in the same order.

    A request with no answer for ``timeout`` seconds (none since the last answer, as a read
    timeout counts) fails with every request behind it, and the connection is closed: an
    answer that came later could no longer be matched to its request.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float, where: str) -> None:
        self.loop = loop
        self.timeout = timeout
        self.where = where
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._reader = hiredis.Reader(
            protocolError=InvalidResponse, replyError=BaseParser.parse_error, encoding="utf-8"
        )
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._progress = 0.0  # when the newest answer came, or the oldest request went
        self._watch: asyncio.TimerHandle | None = None
        self._outgoing: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        if self.closed or self.transport is None:
            raise RedisConnectionError(f"Connection to {self.where} is closed.")
        answer: asyncio.Future[Any] = self.loop.create_future()
        if not self._waiting:
            self._progress = self.loop.time()
            if self._watch is None:
                self._watch = self.loop.call_at(self._progress + self.timeout, self._check)
        self._waiting.append(answer)
        if not self._outgoing:
            self.loop.call_soon(self._flush)
        self._outgoing.append(packed)
        return answer

    def idle(self, limit: float) -> bool:
        """Nothing asked or answered for more than ``limit`` seconds (0: never idle)."""
        return 0 < limit < self.loop.time() - self._progress and not self._waiting

    def _flush(self) -> None:
        """What this turn of the event loop asked, written at once."""
        outgoing, self._outgoing = self._outgoing, []
        if self.transport is not None and not self.closed:
            self.transport.write(b"".join(outgoing))

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        self._progress = self.loop.time()
        while self._waiting:
            try:
                reply = self._reader.gets()
            except InvalidResponse as error:
                self.fail(RedisConnectionError(f"Protocol error from {self.where}: {error}"))
                return
            if reply is False:
                return
            answer = self._waiting.popleft()
            if answer.done():  # its caller was cancelled: the answer is nobody's now
                continue
            if isinstance(reply, Exception):
                answer.set_exception(reply)
            else:
                answer.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        reason = f": {exc}" if exc else ""
        self.fail(RedisConnectionError(f"Connection to {self.where} lost{reason}."))

    def _check(self) -> None:
        """The timeout's watch: one timer for the connection, moved on while answers come."""
        self._watch = None
        if self.closed or not self._waiting:
            return
        due = self._progress + self.timeout
        if self.loop.time() < due:
            self._watch = self.loop.call_at(due, self._check)
            return
        self.fail(RedisTimeoutError(f"Timeout reading from {self.where}"))

    def fail(self, error: Exception) -> None:
        self.closed = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        while self._waiting:
            answer = self._waiting.popleft()
            if not answer.done():  # each caller its own error, with a traceback of its own
                answer.set_exception(type(error)(*error.args))
        if self.transport is not None:
            self.transport.abort()


class ScriptLane:
    """The shared connection and how it is opened again after an outage (module docstring)."""

    def __init__(
        self,
        kwargs: dict[str, Any],
        *,
        unix: bool,
        retry: Retry,
        tls: RedisSSLContext | None = None,
    ) -> None:
        self._kwargs = kwargs
        self._unix = unix
        self._retry = retry
        self._tls = tls  # redis-py's RedisSSLContext of a rediss:// URL: the same certificates
        self._idle_limit = float(kwargs.get("health_check_interval") or 0)
        self._wire: _Wire | None = None
        self._opening: asyncio.Task[_Wire] | None = None
        self._closed = False

    @classmethod
    def for_pool(cls, pool: ConnectionPool) -> ScriptLane | None:
        """A lane to the pool's server, or None when its connections are not plain ones."""
        kwargs = pool.connection_kwargs
        kinds = pool.connection_class.__mro__
        unix = UnixDomainSocketConnection in kinds
        if not unix and Connection not in kinds:
            return None
        if kwargs.get("credential_provider") is not None:
            return None
        if kwargs.get("protocol") not in (None, 2, "2"):
            return None
        retry = kwargs.get("retry")
        if not isinstance(retry, Retry):
            return None
        tls = None
        if SSLConnection in kinds:  # the context redis-py itself would connect with
            tls = cast(SSLConnection, pool.connection_class(**kwargs)).ssl_context
        return cls(dict(kwargs), unix=unix, retry=retry, tls=tls)

    async def call(self, *args: Any) -> Any:
        """One command's answer, retried once on a fresh connection as the pool's are."""
        packed = hiredis.pack_command(args)
        return await self._retry.call_with_retry(lambda: self._once(packed), self._lost)

    async def _once(self, packed: bytes) -> Any:
        wire = self._wire
        if wire is not None and wire.idle(self._idle_limit):
            # A connection quiet that long may have been dropped on the way (a NAT, a proxy)
            # without a word: the pool checks its own with a PING then; a fresh one costs the
            # same round-trip and cannot be the dead one.
            wire.fail(RedisConnectionError(f"Connection to {wire.where} left idle."))
        if wire is None or wire.closed or wire.loop is not asyncio.get_running_loop():
            wire = await self._open()
        return await wire.send(packed)

    async def _lost(self, error: Exception) -> None:
        """Nothing to put right before the retry: a connection that failed is closed already
        (every failure closes it), and the retry opens a fresh one. An error reply that is
        retried (the server still loading) leaves the connection as good as it was."""

    async def _open(self) -> _Wire:
        """One connection opened for every caller waiting for it; a caller given up on does
        not give up the opening for the others."""
        if self._closed:
            raise RedisConnectionError("The Store is closed.")
        loop = asyncio.get_running_loop()
        opening = self._opening
        if opening is None or opening.get_loop() is not loop:
            opening = self._opening = loop.create_task(self._connect(loop))
            opening.add_done_callback(self._opened)
        wire = await asyncio.shield(opening)
        self._wire = wire
        return wire

    def _opened(self, opening: asyncio.Task[_Wire]) -> None:
        if self._opening is opening:
            self._opening = None
        if not opening.cancelled():
            opening.exception()  # each waiter has it raised; none is left unretrieved

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Wire:
        kw = self._kwargs
        where = kw.get("path") if self._unix else f"{kw.get('host')}:{kw.get('port')}"
        wire = _Wire(loop, float(kw.get("socket_timeout") or 5.0), str(where))
        try:
            async with asyncio.timeout(kw.get("socket_connect_timeout")):
                if self._unix:
                    await loop.create_unix_connection(lambda: wire, kw["path"])
                else:
                    tls = self._tls.get() if self._tls is not None else None
                    await loop.create_connection(lambda: wire, kw["host"], kw["port"], ssl=tls)
                await self._introduce(wire)
        except TimeoutError as error:
            wire.fail(RedisTimeoutError(f"Timeout connecting to {where}"))
            raise RedisTimeoutError(f"Timeout connecting to {where}") from error
        except OSError as error:
            wire.fail(RedisConnectionError(f"Error connecting to {where}: {error}"))
            raise RedisConnectionError(f"Error connecting to {where}: {error}") from error
        except BaseException:
            wire.fail(RedisConnectionError(f"Connection to {where} given up."))
            raise
        return wire

    async def _introduce(self, wire: _Wire) -> None:
        """What redis-py's connection says first: who it is, which database, its name."""
        kw = self._kwargs
        hello: list[tuple[Any, ...]] = []
        if kw.get("password"):
            user = kw.get("username")
            hello.append(("AUTH", user, kw["password"]) if user else ("AUTH", kw["password"]))
        if kw.get("db"):
            hello.append(("SELECT", kw["db"]))
        if kw.get("client_name"):
            hello.append(("CLIENT", "SETNAME", kw["client_name"]))
        answers = [wire.send(hiredis.pack_command(command)) for command in hello]
        for answer in await asyncio.gather(*answers, return_exceptions=True):
            if isinstance(answer, BaseException):
                raise answer

    async def aclose(self) -> None:
        self._closed = True
        wire, self._wire = self._wire, None
        if wire is not None and not wire.closed:
            wire.fail(RedisConnectionError("The Store is closed."))


class LanedRedis(Redis):
    """redis-py's client whose EVALSHA (every registered script's call) takes the lane."""

    lane: ScriptLane | None = None

    async def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        lane = self.lane
        if lane is None or not set(map(type, keys_and_args)) <= _PLAIN:
            return await super().evalsha(sha, numkeys, *keys_and_args)
        return await lane.call("EVALSHA", sha, numkeys, *keys_and_args)

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        if self.lane is not None:
            await self.lane.aclose()
        await super().aclose(close_connection_pool)
