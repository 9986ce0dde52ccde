"""The key layout before hash tags, moved once to the current one (:mod:`bot.store.base`).

A chat's keys used to be named without a hash tag (``sdb:chat:-100…``, ``sdb:flow:ID``),
which a Redis Cluster cannot serve: a step's keys must share one slot. A single Redis that
holds the old names is moved at start-up, once (the mark ``sdb:layout``), so no table loses
its settings, sheets, log or hidden rolls in the upgrade: every chat key is renamed to its
tagged name, a flow to its chat's slot (its chat is in its hash), and a key that had no
clock yet gets the one it has now. Journals and chat locks are left to expire (a day, seconds):
an update running across the upgrade only begins a new journal.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from redis.asyncio import Redis
from redis.exceptions import ResponseError

from bot.store.base import (
    CHAT_TTL,
    LOG_TTL,
    PREFIX,
    chat_key,
    flow_key,
    hidden_key,
    hidden_seq_key,
    is_cluster,
    live_key,
    log,
    log_key,
    sheet_key,
)

LAYOUT_KEY = f"{PREFIX}:layout"
LAYOUT = "2"  # chat keys carry the chat's hash tag

_CHAT_KEY = re.compile(rf"^{PREFIX}:(chat|log|sheet|hidden|hseq):(-?\d+)$")
_LIVE_KEY = re.compile(rf"^{PREFIX}:live:(-?\d+):(.+)$")
_FLOW_KEY = re.compile(rf"^{PREFIX}:flow:([A-Za-z0-9_-]+)$")
_USER_KEY = re.compile(rf"^{PREFIX}:(st|stpick):-?\d+$")
_CHAT_NAMES: dict[str, Callable[[int], str]] = {
    "chat": chat_key,
    "log": log_key,
    "sheet": sheet_key,
    "hidden": hidden_key,
    "hseq": hidden_seq_key,
}


async def _new_name(redis: Redis, key: str) -> tuple[str, int | None] | None:
    """The key's tagged name and the clock it must have (None: it keeps its own)."""
    if found := _CHAT_KEY.match(key):
        kind, chat = found.groups()
        return _CHAT_NAMES[kind](int(chat)), LOG_TTL if kind == "log" else CHAT_TTL
    if found := _LIVE_KEY.match(key):
        return live_key(int(found[1]), found[2]), None
    if found := _FLOW_KEY.match(key):
        chat = await redis.hget(key, "chat_id")
        if chat is None or not str(chat).lstrip("-").isdigit():
            return None
        return flow_key(int(chat), found[1]), None
    return None


async def _give_clock(redis: Redis, key: str, ttl: int) -> None:
    if await redis.ttl(key) == -1:  # it exists and never expires
        await redis.expire(key, ttl)


async def migrate(redis: Redis) -> int:
    """Move a single Redis's keys of the old layout; how many were renamed."""
    if is_cluster(redis) or await redis.get(LAYOUT_KEY) == LAYOUT:
        return 0
    moved = 0
    async for key in redis.scan_iter(match=f"{PREFIX}:*", count=1000):
        name = str(key)
        if _USER_KEY.match(name):
            await _give_clock(redis, name, CHAT_TTL)
            continue
        target = await _new_name(redis, name)
        if target is None:
            continue
        new, ttl = target
        try:
            renamed = await redis.renamenx(name, new)
        except ResponseError:  # another replica moved it first
            continue
        if not renamed:
            log.warning("%s not moved: %s already exists", name, new)
            continue
        if ttl is not None:
            await _give_clock(redis, new, ttl)
        moved += 1
    await redis.set(LAYOUT_KEY, LAYOUT)
    if moved:
        log.info("%d key(s) moved to the hash-tagged layout", moved)
    return moved
