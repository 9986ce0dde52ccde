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
- ``sdb:st:{user_id}`` — a hash of the campaigns a Storyteller runs: chat id → chat title
  (kept in step with ``ChatSettings.storyteller_id`` by :meth:`Store.set_storyteller`);
- ``sdb:stpick:{user_id}`` — the campaign the Storyteller's private ``/h`` rolls for;
- ``sdb:hseq:{chat_id}`` — the counter of the chat's hidden rolls (their ``seq``);
- ``sdb:hidden:{chat_id}`` — a hash of the chat's hidden rolls: ``{seq}`` the record
  (:class:`HiddenRecord` JSON, nonce included), ``{seq}:r`` set once it is revealed.
- ``sdb:sheet:{chat_id}`` — a hash of the chat's character sheets: ``u:{user_id}:{system}``
  a player's sheet (``rules.sheet.to_json``; one per game system, so a ``/rules`` switch neither
  loses nor mixes a sheet), ``p:{user_id}`` the player's shown name and @username (JSON, for
  ``/sheet @user``), ``npc:{system}:{name}`` a Storyteller's NPC sheet (name casefolded) and
  ``npcname:{system}:{name}`` its name as typed.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import Pipeline
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from rules.errors import RulesInputError
from rules.sheet import Sheet, SheetSystem, new_sheet, spend_willpower, to_json
from rules.sheet import from_json as sheet_from_json

log = logging.getLogger(__name__)
_T = TypeVar("_T")

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
    # Issue 4 item 6: who runs the game here (Рассказчик); None until an admin claims it.
    storyteller_id: int | None = None
    storyteller_name: str | None = None


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

# KEYS[1] flow, KEYS[2] its chat's log (only with entries); ARGV: expected version, new data
# JSON, close ('1'/'0'), then optionally the log cap and the log entries. The version check
# and the writes happen in one script, so of two taps carrying the same version exactly one
# can pass, and a lost compare-and-set logs nothing.
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
if #ARGV > 4 then
  for i = 5, #ARGV do
    redis.call('LPUSH', KEYS[2], ARGV[i])
  end
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
end
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


class SheetOwner(BaseModel):
    """Who a player's sheet belongs to, as the chat shows them (their name when it was saved)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    user_id: int
    name: str
    username: str | None = None


@dataclass(frozen=True)
class PlayerSheet:
    owner: SheetOwner
    sheet: Sheet


def sheet_key(chat_id: int) -> str:
    return f"{PREFIX}:sheet:{chat_id}"


def _player_field(user_id: int, system: SheetSystem) -> str:
    return f"u:{user_id}:{SheetSystem(system).value}"


def _owner_field(user_id: int) -> str:
    return f"p:{user_id}"


def _npc_field(system: SheetSystem, name: str) -> str:
    return f"npc:{SheetSystem(system).value}:{' '.join(name.split()).casefold()}"


def _npc_name_field(system: SheetSystem, name: str) -> str:
    return "npcname" + _npc_field(system, name)[3:]


def _parse_sheet(raw: str | bytes | None) -> Sheet | None:
    """A stored sheet, or None; a damaged one is logged and treated as absent, never fatal."""
    if raw is None:
        return None
    try:
        return sheet_from_json(raw)
    except RulesInputError as error:
        log.warning("damaged sheet ignored: %s", error)
        return None


def _parse_owner(raw: str | bytes | None, user_id: int) -> SheetOwner:
    if raw is not None:
        try:
            return SheetOwner.model_validate_json(raw)
        except ValidationError:
            log.warning("damaged sheet owner ignored: %r", raw[:200])
    return SheetOwner(user_id=user_id, name=str(user_id))


# --- The Storyteller and hidden rolls (issue 4 items 6 and 7) ------------------------------


def campaigns_key(user_id: int) -> str:
    return f"{PREFIX}:st:{user_id}"


def campaign_pick_key(user_id: int) -> str:
    return f"{PREFIX}:stpick:{user_id}"


def hidden_seq_key(chat_id: int) -> str:
    return f"{PREFIX}:hseq:{chat_id}"


def hidden_key(chat_id: int) -> str:
    return f"{PREFIX}:hidden:{chat_id}"


class HiddenRecord(BaseModel):
    """A hidden roll as kept until (and after) ``/reveal``: the commitment's opening and the
    result exactly as it was resolved, so a later profile switch cannot change what it meant.

    ``payload`` is the canonical ``sdb-hidden-v1`` line (``bot.commitment``) and ``nonce`` its
    secret; ``result`` is the ``rules.d10.D10Result`` as JSON. ``revealed`` is read from the
    ``{seq}:r`` field, never stored in the JSON.
    """

    model_config = ConfigDict(extra="ignore")

    seq: int
    chat_id: int
    owner_id: int
    name: str
    profile: str
    pool: int
    payload: str
    nonce: str
    commitment: str
    result: dict[str, Any]
    revealed: bool = False


def _hidden_from(raw: str | bytes | None, revealed: object) -> HiddenRecord | None:
    if raw is None:
        return None
    try:
        record = HiddenRecord.model_validate_json(raw)
    except ValidationError:
        log.warning("damaged hidden roll ignored: %r", raw[:200])
        return None
    return record.model_copy(update={"revealed": revealed is not None})


def _hidden_records(fields: Mapping[Any, Any]) -> dict[int, HiddenRecord]:
    records: dict[int, HiddenRecord] = {}
    for field, raw in fields.items():
        name = str(field)
        if not name.isdigit():
            continue
        record = _hidden_from(raw, fields.get(f"{name}:r"))
        if record is not None:
            records[int(name)] = record
    return records


# KEYS[1] the chat's hidden rolls; ARGV[1] seq. -1: no such roll; 0: already revealed; 1: now.
# HSETNX makes the reveal happen once, whoever of two taps or two /reveal gets there first.
_REVEAL_HIDDEN = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return -1
end
return redis.call('HSETNX', KEYS[1], ARGV[1] .. ':r', '1')
"""


class Store:
    """The contract the handlers use; every method is one atomic step on the server."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        # Registered once: the client sends EVALSHA and reloads the script by itself if a
        # restarted Redis has forgotten it.
        self._take_update = redis.register_script(_TAKE_UPDATE)
        self._advance_flow = redis.register_script(_ADVANCE_FLOW)
        self._reveal_hidden = redis.register_script(_REVEAL_HIDDEN)

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

        async def apply(pipe: Pipeline) -> ChatSettings:
            current = parse_chat_settings(await pipe.get(key))
            updated = ChatSettings.model_validate({**current.model_dump(), **changes})
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.set(key, updated.model_dump_json())
            return updated

        return await self._watched(key, apply)

    async def _watched(self, key: str, apply: Callable[[Pipeline], Awaitable[_T]]) -> _T:
        """Run ``apply`` under WATCH on ``key`` and return what it returned: a concurrent write
        to the key makes redis-py run it again on fresh data, so ``apply`` reads, decides, then
        calls ``multi()`` before queuing its writes."""
        return cast(_T, await self.redis.transaction(apply, key, value_from_callable=True))

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
        return await self._run_advance(
            flow_id, [flow_key(flow_id)], [expected_version, _dump(data), "1" if close else "0"]
        )

    async def _run_advance(self, flow_id: str, keys: list[str], args: list[Any]) -> Flow | None:
        reply = await self._advance_flow(keys=keys, args=args)
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

    # --- The Storyteller and hidden rolls (issue 4 items 6 and 7) --------------------------
    # The role is a field of the chat's settings changed by compare-and-set under WATCH, in
    # the same transaction as the Storytellers' campaign lists, so a list never disagrees
    # with the chats. A hidden roll is stored only once its result reached the Storyteller.

    async def set_storyteller(
        self, chat_id: int, *, expected: int | None, new_id: int, name: str, title: str
    ) -> ChatSettings | None:
        """Make ``new_id`` the chat's Storyteller if the role is still ``expected``'s.

        None when someone else changed the role first (two admins claiming at once: one
        wins, the other's button goes stale). The old Storyteller loses the campaign from
        their list and the new one gains it, with the chat's ``title`` for their buttons.
        """
        key = chat_key(chat_id)

        async def apply(pipe: Pipeline) -> ChatSettings | None:
            current = parse_chat_settings(await pipe.get(key))
            if current.storyteller_id != expected:
                return None
            updated = current.model_copy(
                update={"storyteller_id": new_id, "storyteller_name": name}
            )
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.set(key, updated.model_dump_json())
            if current.storyteller_id is not None and current.storyteller_id != new_id:
                pipe.hdel(campaigns_key(current.storyteller_id), str(chat_id))
            pipe.hset(campaigns_key(new_id), str(chat_id), title)
            return updated

        return await self._watched(key, apply)

    async def campaigns(self, user_id: int) -> tuple[int | None, dict[int, str]]:
        """The Storyteller's chosen campaign (or None) and every campaign they run: id → title."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(campaign_pick_key(user_id))
            pipe.hgetall(campaigns_key(user_id))
            chosen, titles = await pipe.execute()
        runs = {int(k): str(v) for k, v in titles.items() if str(k).lstrip("-").isdigit()}
        picked = int(chosen) if chosen is not None and chosen.lstrip("-").isdigit() else None
        return picked, runs

    async def choose_campaign(self, user_id: int, chat_id: int) -> None:
        await self.redis.set(campaign_pick_key(user_id), str(chat_id))

    async def next_hidden_seq(self, chat_id: int) -> int:
        """The next hidden roll's number in this chat (1, 2, …; bound into its commitment)."""
        return int(await self.redis.incr(hidden_seq_key(chat_id)))

    async def save_hidden(self, record: HiddenRecord, entry: dict[str, Any]) -> None:
        """The hidden roll and its log line (which must carry no result) in one round-trip."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                hidden_key(record.chat_id),
                str(record.seq),
                record.model_dump_json(exclude={"revealed"}),
            )
            self._queue_log(pipe, record.chat_id, entry)
            await pipe.execute()

    async def load_hidden(self, chat_id: int, seq: int) -> HiddenRecord | None:
        raw, revealed = await self.redis.hmget(hidden_key(chat_id), [str(seq), f"{seq}:r"])
        return _hidden_from(raw, revealed)

    async def hidden_rolls(self, chat_id: int) -> dict[int, HiddenRecord]:
        """Every hidden roll of the chat by ``seq``, revealed or not."""
        return _hidden_records(await self.redis.hgetall(hidden_key(chat_id)))

    async def reveal_hidden(self, chat_id: int, seq: int) -> bool | None:
        """Mark the roll revealed: True if this call did it, False if it already was, None if
        there is no such roll."""
        found = int(await self._reveal_hidden(keys=[hidden_key(chat_id)], args=[seq]))
        return None if found < 0 else bool(found)

    async def history(
        self, chat_id: int, limit: int = LOG_CAP
    ) -> tuple[list[dict[str, Any]], dict[int, HiddenRecord]]:
        """The newest ``limit`` log entries and the chat's hidden rolls, in one round-trip
        (``/log`` and ``/stats`` show a hidden roll's result only once it is revealed)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrange(log_key(chat_id), 0, max(0, limit - 1))
            pipe.hgetall(hidden_key(chat_id))
            raw_log, fields = await pipe.execute()
        return [json.loads(item) for item in raw_log], _hidden_records(fields)

    # --- Character sheets (issue 4 item 1; PRODUCT.md "Character sheet") -------------------
    # Every change is a read-modify-write of one hash field under WATCH: the pure change runs
    # in Python (rules.sheet), and a concurrent write to the chat's sheets makes the
    # transaction retry on fresh data, so two edits never overwrite each other.

    async def load_sheet(self, chat_id: int, user_id: int, system: SheetSystem) -> Sheet | None:
        """The player's sheet for the chat's game system; None if there is none (or only a
        damaged one, which the next change replaces)."""
        raw = await self.redis.hget(sheet_key(chat_id), _player_field(user_id, system))
        return _parse_sheet(raw)

    async def update_sheet(
        self,
        chat_id: int,
        user_id: int,
        system: SheetSystem,
        change: Callable[[Sheet], Sheet],
        *,
        owner: SheetOwner | None = None,
    ) -> Sheet:
        """Apply ``change`` to the player's sheet (a new empty one if there is none) and save
        it atomically, with the player's name when ``owner`` is given; the saved sheet.

        Whatever ``change`` raises (a ``RulesInputError`` for a refused value) propagates and
        nothing is written.
        """
        field = _player_field(user_id, system)
        extra = {} if owner is None else {_owner_field(user_id): owner.model_dump_json()}
        return await self._update_sheet_field(chat_id, field, system, change, extra)

    async def list_sheets(self, chat_id: int, system: SheetSystem) -> list[PlayerSheet]:
        """Every player's sheet of ``system`` in the chat, in one round-trip (for the
        Storyteller's ``/sheet @user`` and overview)."""
        fields = await self.redis.hgetall(sheet_key(chat_id))
        found: list[PlayerSheet] = []
        for field, raw in fields.items():
            kind, _, rest = str(field).partition(":")
            user, _, of_system = rest.partition(":")
            if kind != "u" or of_system != system.value or not user.lstrip("-").isdigit():
                continue
            sheet = _parse_sheet(raw)
            if sheet is None:
                continue
            owner = _parse_owner(fields.get(_owner_field(int(user))), int(user))
            found.append(PlayerSheet(owner, sheet))
        found.sort(key=lambda p: p.owner.name.casefold())
        return found

    async def load_npc(self, chat_id: int, system: SheetSystem, name: str) -> Sheet | None:
        raw = await self.redis.hget(sheet_key(chat_id), _npc_field(system, name))
        return _parse_sheet(raw)

    async def update_npc(
        self, chat_id: int, system: SheetSystem, name: str, change: Callable[[Sheet], Sheet]
    ) -> Sheet:
        """Like :meth:`update_sheet` for the Storyteller's NPC called ``name`` (any case); the
        name as last typed is kept for :meth:`list_npcs`."""
        field = _npc_field(system, name)
        shown = {_npc_name_field(system, name): " ".join(name.split())}
        return await self._update_sheet_field(chat_id, field, system, change, shown)

    async def list_npcs(self, chat_id: int, system: SheetSystem) -> list[tuple[str, Sheet]]:
        """The chat's NPC sheets of ``system`` by name, in one round-trip."""
        fields = await self.redis.hgetall(sheet_key(chat_id))
        prefix = _npc_field(system, "")
        found: list[tuple[str, Sheet]] = []
        for field, raw in fields.items():
            if not str(field).startswith(prefix):
                continue
            sheet = _parse_sheet(raw)
            if sheet is None:
                continue
            key = str(field)[len(prefix) :]
            found.append((str(fields.get(_npc_name_field(system, key)) or key), sheet))
        found.sort(key=lambda item: item[0].casefold())
        return found

    async def _update_sheet_field(
        self,
        chat_id: int,
        field: str,
        system: SheetSystem,
        change: Callable[[Sheet], Sheet],
        extra: dict[str, str],
    ) -> Sheet:
        key = sheet_key(chat_id)

        async def apply(pipe: Pipeline) -> Sheet:
            current = _parse_sheet(await pipe.hget(key, field)) or new_sheet(system)
            updated = change(current)
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            values: dict[Any, Any] = {field: to_json(updated), **extra}
            pipe.hset(key, mapping=values)
            return updated

        return await self._watched(key, apply)

    # --- Table rolls (extended, opposed, teamwork, multiple actions; issue 4 items 2–5) -----
    # A tap on these flows both advances the flow and writes the roll's log line; one Lua
    # script does both, so a lost compare-and-set logs nothing and a won one cannot lose its
    # line: one round-trip, and /stats never counts dice that no message shows.

    async def advance_flow_and_log(
        self,
        flow: Flow,
        expected_version: int,
        data: dict[str, Any],
        entries: list[dict[str, Any]],
        *,
        close: bool = False,
    ) -> Flow | None:
        """Compare-and-set like :meth:`advance_flow`, plus ``entries`` pushed to the flow's
        chat log (oldest first) only when the set succeeds; None if stale, closed or expired."""
        return await self._run_advance(
            flow.id,
            [flow_key(flow.id), log_key(flow.chat_id)],
            [
                expected_version,
                _dump(data),
                "1" if close else "0",
                LOG_CAP,
                *(_dump(entry) for entry in entries),
            ],
        )

    async def create_flow_spending_willpower(
        self,
        kind: str,
        chat_id: int,
        owner_id: int,
        system: SheetSystem,
        data: dict[str, Any],
        entry: dict[str, Any],
        ttl: int = FLOW_TTL,
    ) -> tuple[Flow, Sheet | None]:
        """A roll that spends Willpower (§A.7): one point off the player's sheet, the result's
        flow and its log line in one transaction, WATCHing the chat's sheets, so the point
        never leaves the sheet without the roll nor the roll happen without the point.

        A player with no sheet, or a sheet that does not track Willpower, rolls as before
        (the sheet returned is None). With no points left, ``rules.sheet.spend_willpower``
        raises ``E_WP_UNAVAILABLE`` and nothing is written.
        """
        key = sheet_key(chat_id)
        field = _player_field(owner_id, system)
        flow = self._new_flow(kind, chat_id, owner_id, data)

        async def apply(pipe: Pipeline) -> Sheet | None:
            current = _parse_sheet(await pipe.hget(key, field))
            updated = None
            if current is not None and current.willpower is not None:
                updated = spend_willpower(current)
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            if updated is not None:
                pipe.hset(key, field, to_json(updated))
            self._queue_flow(pipe, flow, ttl)
            self._queue_log(pipe, chat_id, entry)
            return updated

        return flow, await self._watched(key, apply)
