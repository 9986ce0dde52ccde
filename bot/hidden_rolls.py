"""Hidden rolls in the roll log (docs/product.md §2 "/h"): a marker until revealed, then the roll.

A hidden roll is logged without its result; ``/log`` and ``/stats`` (the history feature)
and the hidden feature both read it through :func:`merge_history`, so a result never shows
before its reveal."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiogram import Bot
from aiogram.types import User
from pydantic import ValidationError

from bot.features import HandoffKey
from rules import profiles
from rules.d6.roll import D6Result
from rules.d10 import D10Result
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import D6, Profile
from table import stats
from table.scope import Campaign
from table.store import HiddenRecord, LogEntry, Store


def record_profile(record: HiddenRecord, fallback: Profile) -> Profile:
    """The profile the roll was made under, for its words; the chat's own if it is unknown."""
    try:
        return profiles.get(record.profile)
    except RulesInputError:
        return fallback


HiddenResult = D10Result | D6Result


def record_result(record: HiddenRecord) -> HiddenResult | None:
    """The roll as it was resolved: a d6 roll (§D.3) under the d6 profile, else a d10 one."""
    model: type[D10Result] | type[D6Result] = D6Result if record.profile == D6.name else D10Result
    try:
        return model.model_validate_json(json.dumps(record.result))
    except ValidationError:
        return None


def hidden_log_entry(record: HiddenRecord) -> LogEntry:
    """What the roll log holds for a hidden roll: who and which number, never the result."""
    return LogEntry(hidden=True, seq=record.seq, user_id=record.owner_id, name=record.name)


def revealed_entry(record: HiddenRecord) -> dict[str, Any] | None:
    """The roll as the log shows it once revealed (``/stats`` counts it from then on)."""
    result = record_result(record)
    if result is None:
        return None
    if isinstance(result, D6Result):
        return {
            "user_id": record.owner_id,
            "name": record.name,
            "system": "d6",
            "chance": record.pool,
            "required": result.required,
            "faces": list(result.faces),
            "measures": result.measures,
            "successes": result.measures,
            "sides": 6,
            "outcome": result.outcome.value,
            "hidden": True,
            "seq": record.seq,
        }
    return {
        "user_id": record.owner_id,
        "name": record.name,
        "pool": record.pool,
        "difficulty": result.difficulty,
        "threshold": result.threshold,
        "willpower": result.willpower,
        "faces": list(result.faces),
        "successes": result.successes,
        "outcome": result.outcome.value,
        "hidden": True,
        "seq": record.seq,
    }


def merge_history(
    entries: Iterable[Mapping[str, Any]], hidden: Mapping[int, HiddenRecord]
) -> list[dict[str, Any]]:
    """The log as ``/log`` and ``/stats`` may see it, newest first.

    A hidden roll's line becomes its full entry once revealed and stays a bare marker
    (``hidden`` and ``seq``, no faces) until then; a d6 roll (§D.3) is counted in measures of
    success on six-sided dice, so ``table.stats`` reads it like any other roll.
    """
    merged: list[dict[str, Any]] = []
    for raw in entries:
        entry = dict(raw)
        if entry.get("hidden") is True:
            seq = entry.get("seq")
            record = hidden.get(seq) if isinstance(seq, int) else None
            revealed = revealed_entry(record) if record and record.revealed else None
            merged.append(
                revealed
                or {k: entry[k] for k in ("hidden", "seq", "user_id", "name") if k in entry}
            )
            continue
        if entry.get("system") == "d6" and "measures" in entry and "successes" not in entry:
            entry["successes"] = entry["measures"]
            entry["sides"] = 6
        merged.append(entry)
    return merged


def older_tally(
    entries: Sequence[Mapping[str, Any]], hidden: Mapping[int, HiddenRecord]
) -> stats.Tally:
    """What the log's lines from before the chat's counters began add to them, oldest first
    (``Store.campaign_counters``): a hidden roll counts if it was revealed then, not if its
    reveal counted it since (``HiddenRecord.counted``) or it is still hidden."""
    earlier = {seq: record for seq, record in hidden.items() if not record.counted}
    return stats.tally(merge_history(entries, earlier))


@dataclass(frozen=True)
class HiddenAsk:
    """A hidden roll asked by another feature than ``/h`` (the Storyteller's screen): the
    campaign, who rolls in secret (``storyteller``), whose sheet gives the pool (a player's
    ``user_id`` or an NPC's name) by trait names, and the difficulty. It is the same hidden
    roll as ``/h``'s: the result to the Storyteller's private chat, its SHA-256 commitment
    posted in the campaign."""

    bot: Bot
    store: Store
    chat_id: int | Campaign  # the campaign: a chat, or a forum topic of it
    title: str
    storyteller: User
    profile: Profile
    name: str  # whose pool, as shown
    traits: str  # trait names as typed, «perception+alertness»
    difficulty: int
    user_id: int = 0
    npc: str | None = None
    rng: Rng | None = None
    session: int | None = None  # the campaign's running session (/session start)


# What the hidden feature serves: the roll made, or why not in the presser's words.
HIDDEN_ROLL: HandoffKey[Callable[[HiddenAsk], Awaitable[Callable[[], str] | None]]] = HandoffKey(
    "hidden-roll"
)
