"""The Storyteller's hidden rolls (docs/product.md §2 "Hidden rolls").

A hidden roll is stored only once its result reached the Storyteller, together with its log
line (which carries no result until ``/reveal``), once per number: the Storyteller may roll
from their private chat for a campaign, whose keys are in another slot than the update's
journal on a Redis Cluster, so the store makes the step itself unrepeatable instead of
journaling it. A chat keeps its last ``HIDDEN_CAP`` hidden rolls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, ValidationError
from redis.asyncio.client import Pipeline

from table import stats
from table.scope import Campaign
from table.store import journaled
from table.store.base import (
    CHAT_TTL,
    HIDDEN_CAP,
    LOG_CAP,
    hidden_key,
    hidden_seq_key,
    log,
    log_key,
    stats_key,
)
from table.store.log import (
    LOGGED,
    SEEDED,
    LogEntry,
    LogStore,
    log_args,
    packed,
)
from table.store.scripts import Lua, as_int

REVEAL_HIDDEN = Lua("reveal_hidden", keys=("hidden", "stats"), args=("seq", "tally"), reply=as_int)
SAVE_HIDDEN = Lua(
    "save_hidden",
    keys=("hidden", "log", "hidden_seq", "stats"),
    args=("seq", "record", "keep", "log_cap", "tally"),
    arg_list="entries",
    reply=as_int,
)


class HiddenRecord(BaseModel):
    """A hidden roll as kept until (and after) ``/reveal``: the commitment's opening and the
    result exactly as it was resolved, so a later profile switch cannot change what it meant.

    ``payload`` is the canonical ``sdb-hidden-v1`` line (``table.commitment``) and ``nonce`` its
    secret; ``result`` is the ``rules.d10.D10Result`` as JSON. ``revealed`` is read from the
    ``{seq}:r`` field, never stored in the JSON; ``counted``, from its value, says the reveal
    added the roll to the chat's counters (a reveal by an older version did not).
    """

    model_config = ConfigDict(extra="ignore")

    seq: int
    chat_id: int
    owner_id: int
    # the forum topic whose campaign it was rolled for (None: the chat's own, or the
    # update's own campaign when rolled there)
    thread_id: int | None = None
    name: str
    profile: str
    pool: int
    payload: str
    nonce: str
    commitment: str
    result: dict[str, Any]
    revealed: bool = False
    counted: bool = False

    @property
    def campaign(self) -> Campaign:
        """The campaign it was rolled for: its keys' slot, where it is revealed."""
        return Campaign(self.chat_id, self.thread_id)


def _hidden_from(raw: str | bytes | None, revealed: object) -> HiddenRecord | None:
    if raw is None:
        return None
    try:
        record = HiddenRecord.model_validate_json(raw)
    except ValidationError:
        log.warning("damaged hidden roll ignored: %r", raw[:200])
        return None
    return record.model_copy(update={"revealed": revealed is not None, "counted": revealed == "c"})


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


def _parsed(line: str) -> dict[str, Any]:
    """A log line as the counting reads it: a damaged one reads as nothing (never counted)."""
    try:
        found = json.loads(line)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


# What the log's lines from before the counters add to them: (the lines, oldest first, the
# chat's hidden rolls) → tally (bot.hidden_rolls.older_tally).
OlderTally = Callable[[list[dict[str, Any]], Mapping[int, HiddenRecord]], stats.Tally]


class HiddenStore(LogStore):
    def register_scripts(self) -> None:
        self._reveal_hidden = REVEAL_HIDDEN.bind(self.redis, self.batch)
        self._save_hidden = SAVE_HIDDEN.bind(self.redis, self.batch)

    async def next_hidden_seq(self, chat_id: int | Campaign) -> int:
        """The next hidden roll's number in this chat (1, 2, …; bound into its commitment)."""
        # Inside an update the number is journaled too, so a re-run keeps it.
        key = hidden_seq_key(self.at(chat_id))
        return await journaled.once(self.scope, self.redis, lambda: self._count(key))

    async def _count(self, key: str) -> int:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, CHAT_TTL)
            count, _ = await pipe.execute()
        return int(count)

    async def save_hidden(self, record: HiddenRecord, entry: LogEntry) -> None:
        """The hidden roll and its log line (which must carry no result) in one round-trip,
        once for its number however often the update runs."""
        journaled.forget(self.scope)
        where = self.at(record.campaign)
        await self._save_hidden(
            hidden=hidden_key(where),
            log=log_key(where),
            hidden_seq=hidden_seq_key(where),
            stats=stats_key(where),
            seq=record.seq,
            record=record.model_dump_json(exclude={"revealed", "counted"}),
            keep=HIDDEN_CAP,
            **log_args(self.scope, [entry]),
        )

    async def load_hidden(self, chat_id: int | Campaign, seq: int) -> HiddenRecord | None:
        raw, revealed = await self.redis.hmget(hidden_key(self.at(chat_id)), [str(seq), f"{seq}:r"])
        return _hidden_from(raw, revealed)

    async def hidden_rolls(self, chat_id: int | Campaign) -> dict[int, HiddenRecord]:
        """Every hidden roll of the chat by ``seq``, revealed or not."""
        return _hidden_records(await self.redis.hgetall(hidden_key(self.at(chat_id))))

    async def reveal_hidden(
        self, chat_id: int | Campaign, seq: int, entry: Mapping[str, Any] | None = None
    ) -> bool | None:
        """Mark the roll revealed, and count ``entry`` (the roll as the log now shows it) in
        the chat's counters with it: True if this call did it, False if it already was, None
        if there is no such roll."""
        counted = packed(stats.tally([entry] if entry is not None else []))
        found = await self._reveal_hidden(
            hidden=hidden_key(self.at(chat_id)),
            stats=stats_key(self.at(chat_id)),
            seq=seq,
            tally=counted,
        )
        return None if found < 0 else bool(found)

    async def campaign_counters(self, chat_id: int | Campaign, older: OlderTally) -> dict[str, str]:
        """The chat's roll counters (``table.stats.from_counters`` reads them): one HGETALL.
        The first time, the log's lines from before the counters began are added to them,
        once (``seeded``), by ``older`` (oldest first, with the chat's hidden rolls), in one
        transaction with what it read."""
        skey, lkey, hkey = (
            stats_key(self.at(chat_id)),
            log_key(self.at(chat_id)),
            hidden_key(self.at(chat_id)),
        )
        fields = cast(dict[str, str], await self.redis.hgetall(skey))
        if fields.get(SEEDED) == "1":
            return fields

        async def apply(pipe: Pipeline) -> dict[str, str]:
            fields = cast(dict[str, str], await pipe.hgetall(skey))
            if fields.get(SEEDED) == "1":
                return fields
            logged = stats.counter(fields.get(LOGGED, 0))
            lines = await pipe.lrange(lkey, logged, -1)
            hidden = _hidden_records(await pipe.hgetall(hkey))
            found = older([_parsed(str(line)) for line in reversed(lines)], hidden)
            names = {k: v for k, v in found.names.items() if k not in fields}
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            for name, count in found.counts.items():
                pipe.hincrby(skey, name, count)
            marked: dict[Any, Any] = {**names, SEEDED: "1"}
            pipe.hset(skey, mapping=marked)
            pipe.expire(skey, CHAT_TTL)
            merged = {k: str(stats.counter(fields.get(k, 0)) + n) for k, n in found.counts.items()}
            return {**fields, **names, **merged, SEEDED: "1"}

        return await self._watched([skey, lkey, hkey], apply)

    async def history(
        self, chat_id: int | Campaign, limit: int = LOG_CAP
    ) -> tuple[list[dict[str, Any]], dict[int, HiddenRecord]]:
        """The newest ``limit`` log entries and the chat's hidden rolls, in one round-trip
        (``/log`` and ``/stats`` show a hidden roll's result only once it is revealed)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrange(log_key(self.at(chat_id)), 0, max(0, limit - 1))
            pipe.hgetall(hidden_key(self.at(chat_id)))
            raw_log, fields = await pipe.execute()
        return [json.loads(item) for item in raw_log], _hidden_records(fields)
