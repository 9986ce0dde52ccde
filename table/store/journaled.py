"""The running update's journal at work: a write made inside an update recorded with it, and
read back instead of made again when the update runs again (ARCHITECTURE.md, "Nothing lost,
nothing twice").

Each function takes the update's scope (table/scope.py) and the Redis client; the journal's
own record (table/store/journal.py) knows neither, so the scope can hold it without a cycle.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar, cast

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError

from rules.sheet import Sheet
from table.store.journal import Journal, spent_between
from table.store.limits import JOURNAL_TTL, PREFIX

if TYPE_CHECKING:
    from table.scope import Scope

_T = TypeVar("_T")


def note_spent(scope: Scope, field_name: str, before: Sheet | None, after: Sheet | None) -> None:
    """A write of the running update changes a sheet from ``before`` to ``after``: what it
    takes from the pools is recorded in the write's own transaction (:func:`transaction`)."""
    running = scope.journal
    spent = spent_between(field_name, before, after)
    if running is not None and spent is not None:
        running.spending.append(spent)


def note_rolled(scope: Scope) -> None:
    """A log line is being written by the running update (``table.store.log.stored``)."""
    running = scope.journal
    if running is not None:
        running.rolled = True


def update_secret(scope: Scope, label: str, size: int = 32) -> bytes:
    """A secret fixed when the running update first ran (:meth:`Journal.secret`), so a re-run
    after an outage shows the same one (a hidden roll's nonce, ARCHITECTURE.md "Nothing lost,
    nothing twice"); fresh from the OS outside an update."""
    journal = scope.journal
    if journal is None:
        return secrets.token_bytes(size)
    return journal.secret(label, size)


def forget(scope: Scope) -> None:
    """A write is about to happen: what was read ahead may no longer be true."""
    prefetch = scope.prefetch
    if prefetch is not None:
        prefetch.flows.clear()
        prefetch.sheets.clear()
        prefetch.all_sheets = None
        prefetch.lives.clear()


def hash_tag(key: str) -> str:
    """The ``{…}`` part of a key that Redis Cluster puts in a slot (the whole key without
    one)."""
    start = key.find("{")
    end = key.find("}", start + 1)
    return key[start + 1 : end] if start != -1 and end > start + 1 else key


def same_slot(journal_key: str, keys: list[str]) -> bool:
    """Whether ``keys`` share the journal's hash tag, so one MULTI may hold them all."""
    tag = hash_tag(journal_key)
    return all(hash_tag(key) == tag for key in keys)


async def transaction(
    scope: Scope,
    redis: Redis,
    keys: list[str],
    apply: Callable[[Pipeline], Awaitable[_T]],
) -> _T:
    """A WATCH transaction that, inside an update, records what it returned in the update's
    journal in the same MULTI, and on a re-run of the update returns that record instead of
    writing again."""
    forget(scope)
    journal = scope.journal
    if journal is None:
        return cast(_T, await redis.transaction(apply, *keys, value_from_callable=True))
    step = journal.next_step()
    if not same_slot(journal.key, keys):
        return await _elsewhere(journal.key, step, redis, keys, apply)
    if step in journal.steps:
        return cast(_T, journal.decode(journal.steps[step]))

    written: list[Callable[[], None]] = []
    runs = [0]

    async def recorded(pipe: Pipeline) -> _T:
        journal.spending.clear()  # a lost WATCH runs ``apply`` again on fresh data
        runs[0] += 1
        if runs[0] > 1:
            # redis-py runs the transaction again after a lost WATCH, and a lost connection
            # (an EXEC whose answer never came) counts as one: the EXEC may have been
            # applied. Its record says so, and then nothing is written twice.
            await pipe.watch(journal.key)
            landed = await pipe.hget(journal.key, f"fx:{step}")
            if landed is not None:
                pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                written.clear()
                return cast(_T, journal.decode(str(landed)))
        result = await apply(pipe)
        # It decided without writing: record that alone. (A cluster's pipeline does not say
        # whether MULTI was issued; both refuse a second one with a RedisError.)
        with contextlib.suppress(RedisError):
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        pipe.hset(journal.key, f"fx:{step}", journal.encode(result))
        written[:] = [journal.queue_records(pipe, step)]
        return result

    result = cast(_T, await redis.transaction(recorded, *keys, value_from_callable=True))
    for done in written:
        done()
    return result


def away_key(journal_key: str, target: str) -> str:
    """Where an update records its writes to another campaign than its own: in that
    campaign's slot (``target``, one of the written keys), named by the update's journal."""
    plain = journal_key.removeprefix(f"{PREFIX}:").replace("{", "").replace("}", "")
    return f"{PREFIX}:away:{{{hash_tag(target)}}}:{plain}"


async def _elsewhere(
    journal_key: str,
    step: int,
    redis: Redis,
    keys: list[str],
    apply: Callable[[Pipeline], Awaitable[_T]],
) -> _T:
    """:func:`transaction` for a write to another campaign than the update's (the
    Storyteller's screen in a private chat changing a group's sheet): its keys are in another
    slot, which no transaction shares with the journal on a Redis Cluster, so what it returned
    is recorded beside them (:func:`away_key`), in the same MULTI, and a re-run of the update
    (or redis-py's retry of an EXEC whose answer was lost) finds it there instead of writing
    again. What it spends is not the journal's: the screen's changes are the Storyteller's,
    never a player's roll to give back."""
    record = away_key(journal_key, keys[0])

    async def recorded(pipe: Pipeline) -> _T:
        landed = await pipe.hget(record, str(step))
        if landed is not None:
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            return cast(_T, Journal.decode(str(landed)))
        result = await apply(pipe)
        with contextlib.suppress(RedisError):  # it decided without writing
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        pipe.hset(record, str(step), Journal.encode(result))
        pipe.expire(record, JOURNAL_TTL)
        return result

    return cast(_T, await redis.transaction(recorded, record, *keys, value_from_callable=True))


async def pipeline(scope: Scope, redis: Redis, queue: Callable[[Pipeline], None], result: _T) -> _T:
    """A MULTI/EXEC of writes whose result is known beforehand (a new flow, nothing), recorded
    like :func:`transaction`. Inside an update it watches the update's journal, so an EXEC
    whose answer was lost is looked up in the journal instead of being sent again blindly
    (redis-py repeats an unwatched one): a round-trip more, for a write applied once."""
    journal = scope.journal
    if journal is None:
        forget(scope)
        async with redis.pipeline(transaction=True) as pipe:
            queue(pipe)
            await pipe.execute()
        return result

    async def apply(pipe: Pipeline) -> _T:
        pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        queue(pipe)
        return result

    return await transaction(scope, redis, [journal.key], apply)


async def once(scope: Scope, redis: Redis, write: Callable[[], Awaitable[int]]) -> int:
    """A single write that is not a transaction (a counter): its result is journaled right
    after it, so a re-run of the update reuses it unless the crash fell in between."""
    forget(scope)
    journal = scope.journal
    if journal is None:
        return int(await write())
    step = journal.next_step()
    if step in journal.steps:
        return int(journal.decode(journal.steps[step]))
    value = int(await write())
    encoded = journal.encode(value)
    await redis.hset(journal.key, f"fx:{step}", encoded)
    journal.steps[step] = encoded
    return value
