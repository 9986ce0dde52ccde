"""A campaign's sessions (``/session start`` … ``/session end``) and their seeds
(table/fairness.py).

The running session lives in the chat's settings (``ChatSettings.session`` and its secret
``session_seed``), so the update's first round-trip, which reads the settings anyway, knows
whether its dice come from a seed: no round-trip of its own. Every session, running or
ended, is also a record in ``sdb:sessions:{CHAT}`` (field ``N`` → JSON, ``n`` the counter):
its commitment and start, and once ended its end and the seed revealed. Starting and ending
are one WATCH transaction over both keys, journaled like every write of an update, so a run
again after a crash neither draws a second seed nor ends twice.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from table.scope import Campaign
from table.store import journaled
from table.store.base import CHAT_TTL, PREFIX, StoreBase, chat_key, tag
from table.store.chats import ChatSettings, parse_chat_settings

COUNTER = "n"


def sessions_key(chat_id: int | Campaign) -> str:
    return f"{PREFIX}:sessions:{tag(chat_id)}"


@dataclass(frozen=True)
class SessionRecord:
    """One session of a campaign; ``seed`` (hex) only once it ended."""

    number: int
    commitment: str
    started: float
    ended: float | None = None
    seed: str | None = None

    def dumped(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))


def parse_record(raw: str | bytes | None) -> SessionRecord | None:
    if raw is None:
        return None
    try:
        data: Any = json.loads(raw)
        return SessionRecord(
            number=int(data["number"]),
            commitment=str(data["commitment"]),
            started=float(data["started"]),
            ended=None if data.get("ended") is None else float(data["ended"]),
            seed=None if data.get("seed") is None else str(data["seed"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


def _write_settings(pipe: Pipeline, chat_id: Campaign, settings: ChatSettings) -> None:
    pipe.set(chat_key(chat_id), settings.model_dump_json(), ex=CHAT_TTL)


async def start_session(
    store: StoreBase, chat: int | Campaign, seed_hex: str, commitment: str, now: float
) -> tuple[SessionRecord, bool]:
    """A new session with ``seed_hex``, or the one already running (False): one at a time."""
    chat_id = store.at(chat)
    keys = [chat_key(chat_id), sessions_key(chat_id)]

    async def apply(pipe: Pipeline) -> tuple[dict[str, Any], bool]:
        settings = parse_chat_settings(await pipe.get(keys[0]))
        if settings.session is not None:
            found = parse_record(await pipe.hget(keys[1], str(settings.session)))
            if found is not None:
                return asdict(found), False
        number = int(await pipe.hget(keys[1], COUNTER) or 0) + 1
        record = SessionRecord(number, commitment, now)
        updated = settings.model_copy(update={"session": number, "session_seed": seed_hex})
        pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        _write_settings(pipe, chat_id, updated)
        pipe.hset(keys[1], mapping={COUNTER: str(number), str(number): record.dumped()})
        pipe.expire(keys[1], CHAT_TTL)
        return asdict(record), True

    data, started = await journaled.transaction(store.scope, store.redis, keys, apply)
    return SessionRecord(**data), started


async def end_session(store: StoreBase, chat: int | Campaign, now: float) -> SessionRecord | None:
    """The running session ended and its seed revealed; None when none runs."""
    chat_id = store.at(chat)
    keys = [chat_key(chat_id), sessions_key(chat_id)]

    async def apply(pipe: Pipeline) -> dict[str, Any] | None:
        settings = parse_chat_settings(await pipe.get(keys[0]))
        if settings.session is None or settings.session_seed is None:
            return None
        found = parse_record(await pipe.hget(keys[1], str(settings.session)))
        number = settings.session
        record = SessionRecord(
            number,
            found.commitment if found is not None else "",
            found.started if found is not None else now,
            ended=now,
            seed=settings.session_seed,
        )
        updated = settings.model_copy(update={"session": None, "session_seed": None})
        pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        _write_settings(pipe, chat_id, updated)
        pipe.hset(keys[1], str(number), record.dumped())
        pipe.expire(keys[1], CHAT_TTL)
        return asdict(record)

    data = await journaled.transaction(store.scope, store.redis, keys, apply)
    return None if data is None else SessionRecord(**data)


async def load_sessions(redis: Redis, chat_id: int | Campaign) -> list[SessionRecord]:
    """The campaign's sessions, oldest first."""
    raw = await redis.hgetall(sessions_key(chat_id))
    found = [parse_record(value) for name, value in raw.items() if str(name) != COUNTER]
    return sorted((r for r in found if r is not None), key=lambda r: r.number)


async def load_session(redis: Redis, chat_id: int | Campaign, number: int) -> SessionRecord | None:
    return parse_record(await redis.hget(sessions_key(chat_id), str(number)))


def of_session(entries: list[dict[str, Any]], number: int) -> list[dict[str, Any]]:
    """The log lines (as stored, newest first) rolled in session ``number``."""
    return [entry for entry in entries if entry.get("ses") == number]


async def chosen_session(
    redis: Redis, chat_id: int | Campaign, running: int | None, asked: int | None = None
) -> SessionRecord | None:
    """The session a ``/log session``, ``/stats session`` or ``/chronicle`` means: the one
    asked for by number, else the one running, else the latest."""
    if asked is not None:
        return await load_session(redis, chat_id, asked)
    if running is not None:
        return await load_session(redis, chat_id, running)
    found = await load_sessions(redis, chat_id)
    return found[-1] if found else None


EVENTS_CAP = 500  # what the Storyteller changed in one session, for its chronicle


def events_key(chat_id: int | Campaign, number: int) -> str:
    return f"{PREFIX}:sevents:{tag(chat_id)}:{number}"


async def add_event(
    store: StoreBase, chat_id: int | Campaign, number: int, event: dict[str, Any]
) -> None:
    """One change of a sheet the chronicle tells (damage, healing, a spend by the
    Storyteller's screen), oldest first; told once however often its update runs (recorded
    like any write of an update, table/store/journaled.py, also when the campaign is
    another than the update's)."""
    key = events_key(chat_id, number)
    line = json.dumps(event, separators=(",", ":"), ensure_ascii=False)

    async def apply(pipe: Pipeline) -> None:
        pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        pipe.rpush(key, line)
        pipe.ltrim(key, -EVENTS_CAP, -1)
        pipe.expire(key, CHAT_TTL)

    await journaled.transaction(store.scope, store.redis, [key], apply)


async def load_events(redis: Redis, chat_id: int | Campaign, number: int) -> list[dict[str, Any]]:
    found = []
    for raw in await redis.lrange(events_key(chat_id, number), 0, -1):
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            found.append(item)
    return found
