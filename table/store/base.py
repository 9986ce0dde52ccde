"""The connection, the key names and what every part of the Store shares (docs/product.md §3).

Fail fast and heal by itself: a player must hear "storage unavailable" within a second or
two, not hang, and a dead pooled connection is retried once on a fresh one.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Self, TypeVar, cast

import hiredis
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import (
    AbstractConnection,
    Connection,
    SSLConnection,
    UnixDomainSocketConnection,
)
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import (
    AskError,
    ClusterError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from table.redis_urls import CLUSTER_SCHEMES
from table.scope import Campaign, Scope
from table.store import journaled
from table.store.limits import (
    ABOUT_CAP as ABOUT_CAP,
)
from table.store.limits import (
    ACTORS_KEPT as ACTORS_KEPT,
)
from table.store.limits import (
    CHAT_TTL as CHAT_TTL,
)
from table.store.limits import (
    FLOW_ID_BYTES as FLOW_ID_BYTES,
)
from table.store.limits import (
    FLOW_TTL as FLOW_TTL,
)
from table.store.limits import (
    HIDDEN_CAP as HIDDEN_CAP,
)
from table.store.limits import (
    LOG_CAP as LOG_CAP,
)
from table.store.limits import (
    LOG_TTL as LOG_TTL,
)
from table.store.limits import (
    PREFIX as PREFIX,
)
from table.store.scripts import Batch

log = logging.getLogger("table.store")
_T = TypeVar("_T")

# A connection is made rarely (the pool keeps them); a busy host or a cluster's first slot
# map can take a second to accept one, and an unreachable Redis is refused at once anyway.
CONNECT_TIMEOUT = 2.0
COMMAND_TIMEOUT = 1.0
POOL_SIZE = 64
POOL_WAIT = 1.0
HEALTH_CHECK_INTERVAL = 15
RETRIES = 1
# REDIS_URL schemes of a Redis Cluster, and what the client library calls them, are
# table.redis_urls.CLUSTER_SCHEMES: the settings check them without importing the store.

# Redis away for a while, as a single server or a Redis Cluster shows it: refused or timed-out
# connections, a server still loading, a cluster whose slots are not all served (CLUSTERDOWN,
# a slot with no node), slots moving during a failover (MOVED, ASK, TRYAGAIN), a write that
# reached a replica, a server out of memory (OOM under ``maxmemory`` with noeviction), or one
# that cannot persist (MISCONF) — and every other error redis-py has a class for: an error
# the bot has not seen before is waited out like an outage, since an update that meets it
# may have written already and must never be told to try again (ARCHITECTURE.md, "Nothing
# lost, nothing twice"). An update that meets one is run again later (bot/delivery.py).
STORAGE_ERRORS: tuple[type[BaseException], ...] = (
    RedisError,
    RedisConnectionError,
    RedisTimeoutError,
    ClusterError,
    AskError,
    TryAgainError,
    ReadOnlyError,
    RedisClusterException,
)
# Anything the Redis client raises: what the loops that must never stop (polling, the inbox's
# recovery, the webhook, a lock's renewal) survive. The same errors as an outage, named apart
# for what each place means by them.
REDIS_ERRORS: tuple[type[BaseException], ...] = (RedisError, RedisClusterException)


class RedisUnavailable(RedisConnectionError):
    """Redis could not be reached in time; the error middleware turns it into a message."""


# Where a frame's code lives: the Redis client, or code of the bot's own (anything else, the
# standard library and asyncio, is passed over when judging where an error was raised).
_CLIENT = "redis"
_OURS = ("table", "bot", "handlers", "rules", "localapi", "tests")


def raised_in_client(error: BaseException) -> bool:
    """Whether ``error`` was raised inside the Redis client: the last frame of the client or
    of the bot's own code it went through is the client's. An error the bot's own code
    raises from inside a transaction the client runs (a callback of ours) is ours."""
    last = ""
    frame = error.__traceback__
    while frame is not None:
        module = str(frame.tb_frame.f_globals.get("__name__", ""))
        root = module.partition(".")[0]
        if root == _CLIENT or root in _OURS:
            last = root
        frame = frame.tb_next
    return last == _CLIENT


@contextmanager
def client_faults() -> Iterator[None]:
    """Anything raised inside the Redis client that is not one of its errors is an outage
    too, not a bug of the bot's: redis-py's cluster client trips over a connection another
    task has just closed while a node goes away (``AttributeError`` on its writer), and its
    transactions raise ``RuntimeError`` while it rediscovers the cluster after a primary
    died. Such an error is raised as :class:`RedisUnavailable`, so the update is run again
    later instead of being finished as done (or its player told to try again)."""
    try:
        yield
    except REDIS_ERRORS:
        raise
    except Exception as error:
        if raised_in_client(error):
            raise RedisUnavailable(
                f"Redis client fault: {type(error).__name__}: {error}"
            ) from error
        raise


def tag(scope: int | Campaign) -> str:
    """The hash tag of a chat (or of a sender outside one), or of a campaign (its ``key``):
    Redis Cluster puts every key with the same ``{…}`` in one slot, so the scripts and
    transactions of an update, which touch only its own chat's keys, work on a cluster as on
    one server."""
    return f"{{{scope.key if isinstance(scope, Campaign) else scope}}}"


def chat_key(chat_id: int | Campaign) -> str:
    return f"{PREFIX}:chat:{tag(chat_id)}"


def menu_key(chat_id: int | Campaign) -> str:
    return f"{PREFIX}:menu:{tag(chat_id)}"


def flow_key(chat_id: int | Campaign, flow_id: str) -> str:
    """A flow lives in its chat's slot: a tap's step writes it with the chat's log, sheets and
    the update's journal in one script or transaction."""
    return f"{PREFIX}:flow:{tag(chat_id)}:{flow_id}"


def log_key(chat_id: int | Campaign) -> str:
    return f"{PREFIX}:log:{tag(chat_id)}"


def stats_key(chat_id: int | Campaign) -> str:
    """The chat's roll counters for ``/stats`` (table/stats.py), written with each log line."""
    return f"{PREFIX}:stats:{tag(chat_id)}"


def sheet_key(chat_id: int | Campaign) -> str:
    return f"{PREFIX}:sheet:{tag(chat_id)}"


def campaigns_key(user_id: int) -> str:
    return f"{PREFIX}:st:{user_id}"


def campaign_pick_key(user_id: int) -> str:
    return f"{PREFIX}:stpick:{user_id}"


def hidden_seq_key(chat_id: int | Campaign) -> str:
    return f"{PREFIX}:hseq:{tag(chat_id)}"


def hidden_key(chat_id: int | Campaign) -> str:
    return f"{PREFIX}:hidden:{tag(chat_id)}"


def live_key(chat_id: int | Campaign, name: str) -> str:
    """The chat's one live message of a kind (the round tracker): its flow and message."""
    return f"{PREFIX}:live:{tag(chat_id)}:{name}"


def sent_key(chat_id: int | Campaign) -> str:
    """The newest message the bot is known to have put in the chat: a send whose answer was
    lost looks above it for what it may have delivered (bot/sent.py)."""
    return f"{PREFIX}:sent:{tag(chat_id)}"


def about_key(chat_id: int | Campaign) -> str:
    """Whom each of the bot's recent messages in the chat is about (a roll's result: its
    roller), so a command in reply to it targets that player (bot/replies.py)."""
    return f"{PREFIX}:about:{tag(chat_id)}"


def none_key(scope: int | Campaign) -> str:
    """A key never written, standing for an absent one in a script's key list (a script's
    keys must all share one slot on a cluster)."""
    return f"{PREFIX}:none:{tag(scope)}"


def connect(redis_url: str | None) -> Redis:
    """A client for ``redis_url``, or an embedded in-process Redis when there is none.

    The embedded one (fakeredis with Lua) has the same semantics, so the bot behaves the same
    without a server; it only forgets everything when the process stops.
    ``redis+cluster://host:port`` (``rediss+cluster://`` with TLS) is a Redis Cluster, any
    one of whose nodes is named: the client finds the others.
    """
    if redis_url is None:
        import fakeredis

        log.warning(
            "REDIS_URL is not set: using in-process storage, state will not survive a restart"
        )
        return cast(Redis, fakeredis.FakeAsyncRedis(decode_responses=True))
    retry = Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.25), RETRIES)
    scheme, _, rest = redis_url.partition("://")
    if scheme in CLUSTER_SCHEMES:
        # It speaks the same commands; the Store uses only those a cluster runs (every
        # script's and transaction's keys in one slot) and asks ``is_cluster`` for the rest.
        cluster = RedisCluster.from_url(
            f"{CLUSTER_SCHEMES[scheme]}://{rest}",
            max_connections=POOL_SIZE,
            socket_connect_timeout=CONNECT_TIMEOUT,
            socket_timeout=COMMAND_TIMEOUT,
            health_check_interval=HEALTH_CHECK_INTERVAL,
            retry=retry,
            decode_responses=True,
        )
        return cast(Redis, cluster)
    pool = BlockingConnectionPool.from_url(
        redis_url,
        max_connections=POOL_SIZE,
        timeout=POOL_WAIT,
        socket_connect_timeout=CONNECT_TIMEOUT,
        socket_timeout=COMMAND_TIMEOUT,
        health_check_interval=HEALTH_CHECK_INTERVAL,
        retry=retry,
        decode_responses=True,
    )
    pool.connection_class = _PACKED.get(pool.connection_class, pool.connection_class)
    return Redis(connection_pool=pool)


class _HiredisPacking(AbstractConnection):
    """Packs a command in C, as redis-py's blocking client already does: the asyncio client
    encodes argument by argument in Python, and a roll's scripts carry a score of arguments
    each, so on a roll's three round-trips that was a measurable share of its CPU
    (bench/README.md, ``cpu.py``). The bytes sent are the same; anything but the plain
    types (a memoryview, or a value redis-py refuses, ``None`` or a bool) goes the Python
    way, so it is sent or refused exactly as before.
    """

    def pack_command(self, *args: Any) -> list[bytes]:
        if not set(map(type, args)) <= _PLAIN:
            return super().pack_command(*args)
        if isinstance(args[0], str):  # a command name with its subcommand, "CLIENT SETNAME"
            args = (*args[0].encode().split(), *args[1:])
        elif b" " in args[0]:
            args = (*args[0].split(), *args[1:])
        return [hiredis.pack_command(args)]


_PLAIN = frozenset({str, bytes, int, float})


class _PackedConnection(_HiredisPacking, Connection):
    pass


class _PackedSSLConnection(_HiredisPacking, SSLConnection):
    pass


class _PackedUnixConnection(_HiredisPacking, UnixDomainSocketConnection):
    pass


_PACKED: dict[type[AbstractConnection], type[AbstractConnection]] = {
    Connection: _PackedConnection,
    SSLConnection: _PackedSSLConnection,
    UnixDomainSocketConnection: _PackedUnixConnection,
}


def is_cluster(redis: Redis) -> bool:
    return isinstance(redis, RedisCluster)


def dump(value: Any) -> str:
    return _COMPACT.encode(value)


# One encoder for every stored value: ``json.dumps`` with options builds a new one per call,
# and a roll stores several values (bench/README.md, ``cpu.py``).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def pairs(reply: Sequence[Any]) -> dict[Any, Any]:
    return dict(zip(reply[0::2], reply[1::2], strict=True))


class StoreBase:
    """The client every part of the Store shares, and the WATCH transaction they use."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self.cluster = is_cluster(redis)
        # The scripts' calls in one turn of the event loop go together; a cluster sends each
        # to its own slot's node.
        self.batch: Batch | None = None if self.cluster else Batch(redis)
        self._scope: Scope | None = None

    @property
    def scope(self) -> Scope:
        """The update this Store is bound to (:meth:`bound`); a throw-away empty one for an
        unbound Store, which then behaves as outside any update (ARCHITECTURE.md, "The
        update's scope")."""
        return self._scope if self._scope is not None else Scope()

    def at(self, chat: int | Campaign) -> Campaign:
        """The campaign a chat's keys belong to: ``chat`` itself when it is one; the bound
        update's own campaign (a forum topic's) when ``chat`` is the chat it plays in; else
        that chat's own game (General). A write to another campaign than the update's —
        the Storyteller's screen in a topic — names it as a :class:`Campaign`."""
        if isinstance(chat, Campaign):
            return chat
        here = self.scope.campaign
        if here is not None and here.chat_id == chat:
            return here
        return Campaign(chat)

    def bound(self, scope: Scope) -> Self:
        """This Store for one update: a shallow copy on the same client, scripts and batch
        (no connection of its own), whose writes are journaled in ``scope``'s journal and
        whose reads take what ``scope`` read ahead."""
        view = copy.copy(self)
        view._scope = scope
        return view

    async def close(self) -> None:
        await self.redis.aclose()

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    async def _watched(
        self, keys: str | list[str], apply: Callable[[Pipeline], Awaitable[_T]]
    ) -> _T:
        """Run ``apply`` under WATCH on ``keys`` and return what it returned: a concurrent
        write to a key makes redis-py run it again on fresh data, so ``apply`` reads,
        decides, then calls ``multi()`` before queuing its writes. Inside an update the result
        is journaled in the same transaction (:mod:`table.store.journal`), so a re-run of the
        update after a crash does not write twice."""
        watched = [keys] if isinstance(keys, str) else keys
        return await journaled.transaction(self.scope, self.redis, watched, apply)
