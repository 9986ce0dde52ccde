"""The state layer: the only code that speaks to Redis (PRODUCT.md §3).

The bot process keeps nothing of its own, so several replicas can share one Redis. Every
change is atomic on the server: a Lua script for the flow's compare-and-set and for the
update de-duplication with the chat's settings, WATCH/MULTI/EXEC for chat settings. That is
what makes a double tap on a button apply once, whichever replica receives it.

Keys (all under ``sdb:``):

- ``sdb:chat:{chat_id}`` — the chat's :class:`ChatSettings` as JSON;
- ``sdb:flow:{flow_id}`` — a hash: kind, chat_id, owner_id, version, closed, data (JSON);
- ``sdb:upd:{bot_id}:{update_id}`` — a marker that an update was already taken, with a TTL;
- ``sdb:log:{chat_id}`` — a capped list of recent rolls, newest first.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import Pipeline
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

PREFIX = "sdb"
FLOW_TTL = 86_400
# Telegram re-delivers an unconfirmed update for at most a day; a shorter memory is enough to
# absorb the re-delivery after a restart or a webhook retry.
UPDATE_TTL = 3_600
LOG_CAP = 200
FLOW_ID_BYTES = 9  # token_urlsafe(9) is exactly 12 characters, 72 random bits

# Fail fast (the player must hear "storage unavailable" within a second or two, not hang)
# and heal by itself: a dead pooled connection is retried once on a fresh one.
CONNECT_TIMEOUT = 0.5
COMMAND_TIMEOUT = 1.0
POOL_SIZE = 64
POOL_WAIT = 1.0
HEALTH_CHECK_INTERVAL = 15
RETRIES = 1

STORAGE_ERRORS: tuple[type[BaseException], ...] = (RedisConnectionError, RedisTimeoutError)


class RedisUnavailable(RedisConnectionError):
    """Redis could not be reached in time; the error middleware turns it into a message."""


class ChatSettings(BaseModel):
    """What a chat chose: its rules profile, its language, its house-rule switches."""

    model_config = ConfigDict(extra="ignore")

    profile: str = "mage"
    locale: str | None = None
    switches: dict[str, bool | int | str] = Field(default_factory=dict)


class Flow(BaseModel):
    """An interactive message's state: who owns it, which version a button must carry."""

    id: str
    kind: str
    chat_id: int
    owner_id: int
    version: int
    data: dict[str, Any]
    closed: bool = False


# KEYS[1] update marker, KEYS[2] chat settings (may be absent); ARGV[1] marker TTL.
# Returns {fresh (1/0), settings JSON or false}: one round-trip per update.
_TAKE_UPDATE = """
local fresh = redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1])
if not fresh then
  return {0, false}
end
if KEYS[2] then
  return {1, redis.call('GET', KEYS[2])}
end
return {1, false}
"""

# KEYS[1] flow; ARGV: expected version, new data JSON, close ('1'/'0').
# The version check and the write happen in one script, so of two taps carrying the same
# version exactly one can pass.
_ADVANCE_FLOW = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then
  return false
end
if tonumber(version) ~= tonumber(ARGV[1]) then
  return false
end
if redis.call('HGET', KEYS[1], 'closed') == '1' then
  return false
end
redis.call('HSET', KEYS[1], 'version', tonumber(version) + 1, 'data', ARGV[2], 'closed', ARGV[3])
return redis.call('HGETALL', KEYS[1])
"""


def chat_key(chat_id: int) -> str:
    return f"{PREFIX}:chat:{chat_id}"


def flow_key(flow_id: str) -> str:
    return f"{PREFIX}:flow:{flow_id}"


def update_key(bot_id: int, update_id: int) -> str:
    return f"{PREFIX}:upd:{bot_id}:{update_id}"


def log_key(chat_id: int) -> str:
    return f"{PREFIX}:log:{chat_id}"


def connect(redis_url: str | None) -> Redis:
    """A client for ``redis_url``, or an embedded in-process Redis when there is none.

    The embedded one (fakeredis with Lua) has the same semantics, so the bot behaves the same
    without a server; it only forgets everything when the process stops.
    """
    if redis_url is None:
        import fakeredis

        log.warning(
            "REDIS_URL is not set: using in-process storage, state will not survive a restart"
        )
        return cast(Redis, fakeredis.FakeAsyncRedis(decode_responses=True))
    pool = BlockingConnectionPool.from_url(
        redis_url,
        max_connections=POOL_SIZE,
        timeout=POOL_WAIT,
        socket_connect_timeout=CONNECT_TIMEOUT,
        socket_timeout=COMMAND_TIMEOUT,
        health_check_interval=HEALTH_CHECK_INTERVAL,
        retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.25), RETRIES),
        decode_responses=True,
    )
    return Redis(connection_pool=pool)


def _pairs(reply: list[Any]) -> dict[Any, Any]:
    return dict(zip(reply[0::2], reply[1::2], strict=True))


def _flow_from_hash(flow_id: str, fields: Mapping[Any, Any]) -> Flow:
    return Flow(
        id=flow_id,
        kind=fields["kind"],
        chat_id=int(fields["chat_id"]),
        owner_id=int(fields["owner_id"]),
        version=int(fields["version"]),
        data=json.loads(fields["data"]),
        closed=fields.get("closed") == "1",
    )


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def parse_chat_settings(raw: str | bytes | None) -> ChatSettings:
    """Stored JSON to settings; a damaged record falls back to the defaults, never crashes."""
    if raw is None:
        return ChatSettings()
    try:
        return ChatSettings.model_validate_json(raw)
    except ValidationError:
        log.warning("damaged chat settings ignored: %r", raw[:200])
        return ChatSettings()


class Store:
    """The contract the handlers use; every method is one atomic step on the server."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        # Registered once: the client sends EVALSHA and reloads the script by itself if a
        # restarted Redis has forgotten it.
        self._take_update = redis.register_script(_TAKE_UPDATE)
        self._advance_flow = redis.register_script(_ADVANCE_FLOW)

    @classmethod
    def from_url(cls, redis_url: str | None) -> Store:
        return cls(connect(redis_url))

    async def close(self) -> None:
        await self.redis.aclose()

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    async def take_update(
        self, bot_id: int, update_id: int, chat_id: int | None
    ) -> tuple[bool, ChatSettings]:
        """Mark the update as taken and load its chat's settings, in one round-trip.

        Returns ``(False, defaults)`` for an update some replica (or an earlier delivery)
        already took: Telegram re-sends unconfirmed updates after a restart, and a webhook
        retries on a slow answer, and neither may roll the dice twice.
        """
        keys = [update_key(bot_id, update_id)]
        if chat_id is not None:
            keys.append(chat_key(chat_id))
        fresh, raw = await self._take_update(keys=keys, args=[UPDATE_TTL])
        if not fresh:
            return False, ChatSettings()
        return True, parse_chat_settings(raw)

    async def load_chat(self, chat_id: int) -> ChatSettings:
        return parse_chat_settings(await self.redis.get(chat_key(chat_id)))

    async def update_chat(self, chat_id: int, **changes: Any) -> ChatSettings:
        """Read-modify-write under WATCH, so two Storytellers' changes never overwrite each other.

        An unknown field name is a programming error and raises ``TypeError``; a bad value
        raises pydantic's ``ValidationError``; nothing is written in either case.
        """
        unknown = set(changes) - set(ChatSettings.model_fields)
        if unknown:
            raise TypeError(f"unknown chat settings: {', '.join(sorted(unknown))}")
        key = chat_key(chat_id)
        result: list[ChatSettings] = []

        async def apply(pipe: Pipeline) -> None:
            current = parse_chat_settings(await pipe.get(key))
            updated = ChatSettings.model_validate({**current.model_dump(), **changes})
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.set(key, updated.model_dump_json())
            result[:] = [updated]

        await self.redis.transaction(apply, key)
        return result[0]

    def _queue_flow(self, pipe: Pipeline, flow: Flow, ttl: int) -> None:
        key = flow_key(flow.id)
        pipe.hset(
            key,
            mapping={
                "kind": flow.kind,
                "chat_id": flow.chat_id,
                "owner_id": flow.owner_id,
                "version": flow.version,
                "closed": "1" if flow.closed else "0",
                "data": _dump(flow.data),
            },
        )
        pipe.expire(key, ttl)

    def _queue_log(self, pipe: Pipeline, chat_id: int, entry: dict[str, Any]) -> None:
        key = log_key(chat_id)
        pipe.lpush(key, _dump(entry))
        pipe.ltrim(key, 0, LOG_CAP - 1)

    @staticmethod
    def _new_flow(kind: str, chat_id: int, owner_id: int, data: dict[str, Any]) -> Flow:
        # 72 random bits: a collision within a flow's one-day life is not a practical concern,
        # and the id fits callback_data (≤ 64 bytes) with room for the action and version.
        return Flow(
            id=secrets.token_urlsafe(FLOW_ID_BYTES),
            kind=kind,
            chat_id=chat_id,
            owner_id=owner_id,
            version=0,
            data=data,
        )

    async def create_flow(
        self, kind: str, chat_id: int, owner_id: int, data: dict[str, Any], ttl: int = FLOW_TTL
    ) -> Flow:
        flow = self._new_flow(kind, chat_id, owner_id, data)
        async with self.redis.pipeline(transaction=True) as pipe:
            self._queue_flow(pipe, flow, ttl)
            await pipe.execute()
        return flow

    async def create_flow_and_log(
        self,
        kind: str,
        chat_id: int,
        owner_id: int,
        data: dict[str, Any],
        entry: dict[str, Any],
        ttl: int = FLOW_TTL,
    ) -> Flow:
        """A roll's result flow and its log line in one round-trip (the ≤ 3 budget of §5)."""
        flow = self._new_flow(kind, chat_id, owner_id, data)
        async with self.redis.pipeline(transaction=True) as pipe:
            self._queue_flow(pipe, flow, ttl)
            self._queue_log(pipe, chat_id, entry)
            await pipe.execute()
        return flow

    async def load_flow(self, flow_id: str) -> Flow | None:
        fields = await self.redis.hgetall(flow_key(flow_id))
        if not fields:
            return None
        return _flow_from_hash(flow_id, fields)

    async def advance_flow(
        self, flow_id: str, expected_version: int, data: dict[str, Any], *, close: bool = False
    ) -> Flow | None:
        """Compare-and-set: the new Flow (version + 1), or None if stale, closed or expired."""
        reply = await self._advance_flow(
            keys=[flow_key(flow_id)],
            args=[expected_version, _dump(data), "1" if close else "0"],
        )
        if not reply:
            return None
        return _flow_from_hash(flow_id, _pairs(reply))

    async def log_roll(self, chat_id: int, entry: dict[str, Any]) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            self._queue_log(pipe, chat_id, entry)
            await pipe.execute()

    async def recent_rolls(self, chat_id: int, limit: int = 20) -> list[dict[str, Any]]:
        """The newest ``limit`` log entries, newest first (for ``/log``)."""
        raw = await self.redis.lrange(log_key(chat_id), 0, max(0, limit - 1))
        return [json.loads(item) for item in raw]
