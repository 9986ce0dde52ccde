"""The chat's roll log: what ``/log`` lists and ``/stats`` counts (docs/product.md §2 "History").

Entries are written typed (:class:`LogEntry`) and kept as compact JSON without empty fields,
newest first, capped at ``LOG_CAP``; the readers take the stored dicts as they are, because
a log written by an older version must still be read.

``/stats`` covers the whole campaign, not the capped log: the step that writes log lines adds
their tally (``table.stats.tally``) to the chat's counters (``sdb:stats:{CHAT}``) in the same
script or transaction, no round-trip of its own. The counters also count the lines written
(``logged``), so the first ``/stats`` of a chat whose log is older than its counters adds the
older lines once (``seeded``; ARCHITECTURE.md "Statistics of a whole campaign").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict
from redis.asyncio.client import Pipeline

from table import fairness, stats
from table.scope import Campaign, Scope
from table.store import journaled
from table.store.base import LOG_CAP, LOG_TTL, StoreBase, dump, log_key, stats_key
from table.store.scripts import Lua, as_int

LOGGED = "logged"  # the counters' field: log lines written since the counters began
SEEDED = "seeded"  # set once the log's older lines were added to the counters


# A tally added to the chat's counters inside a transaction (:meth:`LogStore._queue_log`).
COUNT = Lua("count", keys=("stats",), args=("tally",), reply=as_int)


def packed(tally: stats.Tally, logged: int = 0) -> str:
    """A tally as the counting Lua reads it: [[field, increment, …], [field, name, …]], with
    ``logged`` log lines written."""
    counts = [LOGGED, str(logged)] if logged else []
    for name, n in tally.counts.items():
        counts += (name, str(n))
    names = [x for pair in tally.names.items() for x in pair]
    return dump([counts, names])


class LogEntry(BaseModel):
    """One line of the log: who rolled what and how it came out.

    A d10 roll has pool, difficulty, threshold, willpower, successes and outcome; a d6 roll
    its chance, required measures and measures (``system="d6"``); a hidden roll only who and
    its number (``hidden``, ``seq``) until it is revealed. ``kind`` names the table roll it
    belonged to (ext, vs, team, multi, request)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    user_id: int
    name: str
    pool: int | None = None
    difficulty: int | None = None
    threshold: int | None = None
    willpower: bool | None = None
    faces: tuple[int, ...] | None = None
    successes: int | None = None
    outcome: str | None = None
    attempt: int | None = None
    kind: str | None = None
    system: str | None = None
    chance: int | None = None
    required: int | None = None
    measures: int | None = None
    hidden: bool | None = None
    seq: int | None = None
    traits: str | None = None  # a sheet pool's trait codes, «dexterity+brawl»
    # The dice thrown by a step that repeats an earlier roll's kept dice in ``faces`` (a d6
    # special effort's rerolls): the fairness check counts these, not the kept ones again.
    fresh: tuple[int, ...] | None = None
    # A magick Effect's Quintessence spent and Paradox gained (its chronicle tells them).
    quintessence: int | None = None
    paradox: int | None = None
    # The campaign's session it was rolled in (table/fairness.py), when the update itself runs
    # elsewhere: a hidden roll from the Storyteller's private chat.
    ses: int | None = None
    # The fight's round a combat roll was made in (the round tracker's number), so the
    # chronicle tells a fight round by round.
    round_no: int | None = None

    def stored(self) -> str:
        return dump(self.model_dump(mode="json", exclude_none=True))


def stored(scope: Scope, entries: Iterable[LogEntry]) -> list[str]:
    """The entries as the log keeps them, on their way into it: the running update is
    noted as a roll, so its sender's inline rolls belong to this chat from now on (a step
    that logs rolls takes :func:`log_args`, which counts them too)."""
    taken: set[int] = set()  # one batch's proofs each name their own dice
    lines = [
        dump(fairness.annotate(e.model_dump(mode="json", exclude_none=True), scope.dice, taken))
        for e in entries
    ]
    if lines:
        journaled.note_rolled(scope)
    return lines


def _prepared(scope: Scope, entries: Sequence[LogEntry]) -> tuple[list[str], str]:
    """The entries as stored, and what they add to the counters, packed (the lines among it)."""
    taken: set[int] = set()  # one batch's proofs each name their own dice
    dumped = [
        fairness.annotate(e.model_dump(mode="json", exclude_none=True), scope.dice, taken)
        for e in entries
    ]
    if dumped:
        journaled.note_rolled(scope)
    return [dump(item) for item in dumped], packed(stats.tally(dumped), len(dumped))


def log_args(scope: Scope, entries: Sequence[LogEntry]) -> dict[str, Any]:
    """The named arguments of a script that logs lines (``append_log`` in lua/prelude.lua):
    the cap, the entries' tally and the entries (no entries: nothing is logged)."""
    if not entries:
        return {"log_cap": "", "tally": "", "entries": []}
    lines, counted = _prepared(scope, entries)
    return {"log_cap": LOG_CAP, "tally": counted, "entries": lines}


class LogStore(StoreBase):
    def register_scripts(self) -> None:
        self._count_tally = COUNT.bind(self.redis, self.batch)

    def _queue_log(
        self, pipe: Pipeline, chat_id: int | Campaign, entries: tuple[LogEntry, ...]
    ) -> None:
        """The log lines and their tally into a transaction being queued: one EVAL adds the
        tally, so the counters cost one command more, however many faces were rolled."""
        if not entries:
            return
        key = log_key(self.at(chat_id))
        lines, counted = _prepared(self.scope, entries)
        pipe.lpush(key, *lines)
        pipe.ltrim(key, 0, LOG_CAP - 1)
        pipe.expire(key, LOG_TTL)
        self._count_tally.queue(pipe, stats=stats_key(self.at(chat_id)), tally=counted)

    async def log_roll(self, chat_id: int | Campaign, entry: LogEntry) -> None:
        await journaled.pipeline(
            self.scope, self.redis, lambda pipe: self._queue_log(pipe, chat_id, (entry,)), None
        )

    async def recent_pools(
        self, chat_id: int | Campaign, user_id: int, limit: int = 3
    ) -> list[str]:
        """The player's latest sheet pools (trait codes), newest first, from the chat's log:
        what the /r wizard offers as one tap (the log is capped, so this is one short read)."""
        found: list[str] = []
        for item in await self.redis.lrange(log_key(self.at(chat_id)), 0, -1):
            entry = json.loads(item)
            traits = entry.get("traits")
            if entry.get("user_id") == user_id and isinstance(traits, str) and traits not in found:
                found.append(traits)
                if len(found) >= limit:
                    break
        return found

    async def recent_rolls(self, chat_id: int | Campaign, limit: int = 20) -> list[dict[str, Any]]:
        """The newest ``limit`` log entries, newest first (for ``/log``)."""
        raw = await self.redis.lrange(log_key(self.at(chat_id)), 0, max(0, limit - 1))
        return [json.loads(item) for item in raw]
