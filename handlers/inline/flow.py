"""What an inline answer offers: a roll not rolled yet (README "Inline mode").

An :class:`Offer` keeps what was typed, never a pool or dice: the press resolves the pool on
the sheet as it is then (wounds taken since count) and rolls it, through ``bot.rolling`` like
every roll. Kept in Redis by its random id (``table.store.inline``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from table.parsing import D6Arguments, RollArguments
from table.scope import Campaign

RECENT_MAX = 4  # recent pools offered to an empty query


class Offer(BaseModel):
    """A roll offered to ``user_id`` for the chat ``home`` and its forum topic ``thread``
    (None: the chat's own game) — their campaign, or their own id when they have played in
    no group; ``campaign`` is its title as shown. An offer of the release before topics has
    no ``thread``: the chat's own game."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    user_id: int
    name: str
    home: int
    thread: int | None = None
    campaign: str | None = None
    system: Literal["d10", "d6"] = "d10"
    # d10 (§A.2–A.8): a typed pool or the sheet's traits, with dice added or taken
    dice: int | None = None
    traits: str | None = None
    modifier: int = 0
    difficulty: int | None = None
    threshold: int = 0
    willpower: bool = False
    # d6 (§D.2–D.3): a typed chance or the sheet's powers
    chance: int | None = None
    powers: tuple[str, ...] = ()
    required: int = 1
    weakness: bool = False
    luck: int = 0

    @property
    def place(self) -> Campaign:
        """The campaign whose sheet, log and offer key the roll belongs to."""
        return Campaign(self.home, self.thread)


def d10_offer(base: Offer, args: RollArguments) -> Offer:
    return base.model_copy(
        update={
            "system": "d10",
            "dice": args.pool if args.traits is None else None,
            "traits": args.traits,
            "modifier": args.dice,
            "difficulty": args.difficulty,
            "threshold": args.threshold,
            "willpower": args.willpower,
        }
    )


def d6_offer(base: Offer, args: D6Arguments) -> Offer:
    return base.model_copy(
        update={
            "system": "d6",
            "chance": args.chance,
            "powers": args.powers,
            "required": args.required,
            "weakness": args.weakness,
            "modifier": args.modifier,
            "luck": args.luck,
        }
    )


def needs_table(args: D6Arguments) -> bool:
    """What an inline d6 roll does not do: an automatic success rolls nothing to offer, and
    a trick waits on the sheet for a later roll in the game's chat (§D.12)."""
    return bool(
        args.auto or args.aim is not None or args.escape or args.charge or args.full_defence
    ) or bool(args.relief)


def recent_queries(entries: Iterable[Mapping[str, Any]], user_id: int, d6: bool) -> list[str]:
    """The player's latest rolls in the campaign's log as typed lines, newest first and each
    once: a sheet pool by its traits, a typed pool with its difficulty (and Willpower), a d6
    chance with the measures it needed."""
    found: list[str] = []
    for entry in entries:
        if entry.get("user_id") != user_id or entry.get("hidden") or entry.get("kind"):
            continue
        line = _d6_line(entry) if d6 else _d10_line(entry)
        if line is not None and line not in found:
            found.append(line)
            if len(found) >= RECENT_MAX:
                break
    return found


def _d6_line(entry: Mapping[str, Any]) -> str | None:
    """A d6 roll of the log as typed: its chance, and the measures it needed when not 1."""
    if entry.get("system") != "d6" or not isinstance(entry.get("chance"), int):
        return None
    required = entry.get("required") or 1
    return f"{entry['chance']}" + (f" {required}" if required != 1 else "")


def _d10_line(entry: Mapping[str, Any]) -> str | None:
    """A d10 roll of the log as typed: its traits or pool, its difficulty, and Willpower."""
    if entry.get("system") is not None:
        return None
    pool, difficulty = entry.get("pool"), entry.get("difficulty")
    traits = entry.get("traits")
    line: str | None = None
    if isinstance(traits, str) and isinstance(difficulty, int):
        line = f"{traits} {difficulty}"
    elif isinstance(pool, int) and pool > 0 and isinstance(difficulty, int):
        line = f"{pool} {difficulty}"
    if line is not None and entry.get("willpower"):
        line += " wp"
    return line
