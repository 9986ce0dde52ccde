"""The stored layout's version, and the moves that bring older data to it, once, at start-up.

One key says which layout the data is in: ``sdb:layout`` (absent: layout 1, before it was
written). A release knows its own layout, :data:`LAYOUT`, and one step from each older one
to the next (:data:`STEPS`). At start-up (bot/app.py) :func:`migrate` runs the steps the data
still needs, writing ``sdb:layout`` after each, so a process killed halfway resumes at the step
it was in; every step may run again over what it already did. Replicas starting together take
turns on the lock ``sdb:layout:lock``: one migrates (renewing the lock as it goes), the
others wait until the layout is current, and take over if the one migrating dies and its
lock expires. Data of a newer layout than this release knows (a rollback past an upgrade) is
not touched: start-up stops with :class:`LayoutTooNew` (exit code 2, README "Upgrading").

Layout 1 → 2: chat keys get the chat's hash tag. They used to be named without one
(``sdb:chat:-100…``, ``sdb:flow:ID``), which a Redis Cluster cannot serve: a step's keys must
share one slot. Every chat key is renamed to its tagged name, a flow to its chat's slot (its
chat is in its hash), and a key that had no clock yet gets the one it has now. Journals and
chat locks are left to expire (a day, seconds): an update running across the upgrade only
begins a new journal. A Redis Cluster never held layout 1: it is marked current as it is.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis
from redis.exceptions import ResponseError

from table.store.base import (
    CHAT_TTL,
    LOG_TTL,
    PREFIX,
    REDIS_ERRORS,
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
LAYOUT = "2"  # this release's: chat keys carry the chat's hash tag
LOCK_KEY = f"{PREFIX}:layout:lock"
LOCK_MS = 30_000  # a migrating process renews it well before; a dead one's expires
RENEW_EVERY = 5.0  # seconds between renewals while a step runs
WAIT_STEP = 0.2  # seconds between a waiting replica's looks
RETRY_PAUSE = 5.0  # seconds between tries while Redis is away at start-up


class LayoutTooNew(RuntimeError):
    """The data is in a layout newer than this release knows: a newer release wrote it."""

    def __init__(self, found: int) -> None:
        super().__init__(
            f"the data in Redis is in layout {found}, newer than this release's {LAYOUT}: "
            "run the release that wrote it, or restore the backup taken before the upgrade "
            '(README "Upgrading")'
        )
        self.found = found


_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class Lease:
    """This process's hold on the migration lock, renewed while a step runs."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self.token = secrets.token_hex(16)
        self.renewed = 0.0

    async def take(self) -> bool:
        taken = bool(await self.redis.set(LOCK_KEY, self.token, nx=True, px=LOCK_MS))
        self.renewed = time.monotonic()
        return taken

    async def keep(self) -> None:
        """Renew the lock if it is time; a step calls this as it goes."""
        if time.monotonic() - self.renewed >= RENEW_EVERY:
            await self.redis.eval(_RENEW, 1, LOCK_KEY, self.token, str(LOCK_MS))
            self.renewed = time.monotonic()

    async def release(self) -> None:
        await self.redis.eval(_RELEASE, 1, LOCK_KEY, self.token)


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


async def _tag_chat_keys(redis: Redis, lease: Lease) -> int:
    """Layout 1 → 2: every chat key renamed to its hash-tagged name; how many were moved."""
    moved = 0
    async for key in redis.scan_iter(match=f"{PREFIX}:*", count=1000):
        await lease.keep()
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
        except ResponseError:  # gone since the scan saw it (a replica before this release)
            continue
        if not renamed:
            log.warning("%s not moved: %s already exists", name, new)
            continue
        if ttl is not None:
            await _give_clock(redis, new, ttl)
        moved += 1
    if moved:
        log.info("%d key(s) moved to the hash-tagged layout", moved)
    return moved


# From each layout to the next; the last one leads to LAYOUT.
STEPS: dict[int, Callable[[Redis, Lease], Awaitable[int]]] = {1: _tag_chat_keys}


async def stored_layout(redis: Redis) -> int:
    """The layout the data is in: 1 when no release has written one yet."""
    found = await redis.get(LAYOUT_KEY)
    try:
        return int(found) if found is not None else 1
    except ValueError as error:
        raise RuntimeError(f"{LAYOUT_KEY} holds {found!r}, not a layout number") from error


def _check(found: int) -> bool:
    """True when ``found`` is this release's layout; raises when it is newer."""
    if found > int(LAYOUT):
        raise LayoutTooNew(found)
    return found == int(LAYOUT)


async def migrate(redis: Redis) -> int:
    """Bring the data to this release's layout, once whatever replicas start together; how
    many keys were moved (0 when it already was current, or another replica moved them)."""
    if _check(await stored_layout(redis)):
        return 0
    if is_cluster(redis):  # always started empty in the current layout
        await redis.set(LAYOUT_KEY, LAYOUT, nx=True)
        return 0
    lease = Lease(redis)
    while not await lease.take():
        await asyncio.sleep(WAIT_STEP)  # another replica migrates: wait for its result
        if _check(await stored_layout(redis)):
            return 0
    try:
        version = await stored_layout(redis)  # read again: another may have just finished
        moved = 0
        while not _check(version):
            log.info("data layout %d: moving it to layout %d", version, version + 1)
            moved += await STEPS[version](redis, lease)
            version += 1
            await redis.set(LAYOUT_KEY, str(version))
        return moved
    finally:
        await lease.release()


async def migrate_when_reachable(redis: Redis) -> bool:
    """:func:`migrate` again and again until Redis answers (it was away at start-up); True
    once the data is in this release's layout, False when a newer release wrote it."""
    while True:
        try:
            await migrate(redis)
        except REDIS_ERRORS as error:
            log.warning("data layout not checked yet, Redis unreachable: %s", error)
            await asyncio.sleep(RETRY_PAUSE)
        except LayoutTooNew as error:
            log.critical("%s", error)  # at start-up it would have stopped the bot
            return False
        else:
            return True
