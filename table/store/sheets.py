"""Character and NPC sheets (docs/product.md "Character sheet").

Every change is a read-modify-write of one hash field under WATCH: the pure change runs in
Python (``rules.sheet``), and a concurrent write to the chat's sheets makes the transaction
retry on fresh data, so two edits never overwrite each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, ValidationError
from redis.asyncio.client import Pipeline

from rules.errors import RulesInputError
from rules.sheet import Sheet, SheetSystem, new_sheet, to_json
from rules.sheet import from_json as sheet_from_json
from table import typos
from table.scope import Campaign
from table.store.base import CHAT_TTL, StoreBase, log, sheet_key


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


def player_field(user_id: int, system: SheetSystem) -> str:
    return f"u:{user_id}:{SheetSystem(system).value}"


def owner_field(user_id: int) -> str:
    return f"p:{user_id}"


def npc_field(system: SheetSystem, name: str) -> str:
    return f"npc:{SheetSystem(system).value}:{' '.join(name.split()).casefold()}"


def npc_name_field(system: SheetSystem, name: str) -> str:
    return "npcname" + npc_field(system, name)[3:]


# The longest name (in characters) a typed line is looked up by field as an NPC's: ``/npc``
# takes 40 and the d10 tracker 32; a line whose first words run longer (a d6 fight's NPC may
# have any name) is matched against the chat's NPC roster instead, as a rarity.
NPC_NAME_LOOKUP = 64
# How many first words of a command the update's first round-trip reads ahead as possible NPC
# names (``sheets_ahead``): a roll's line of up to nine words (an NPC's name, its traits, the
# difficulty and the switches) is looked up with no round-trip of its own; a longer one costs
# one HMGET.
NPC_WORDS_AHEAD = 8


def npc_prefixes(words: Sequence[str], *, whole: bool = False) -> list[str]:
    """The names a line's first words could call an NPC by, casefolded, shortest first: the
    first word, the first two, … — never the whole line unless ``whole`` (a roll's line goes
    on after the name), never a line that starts with a number or a sign (a pool)."""
    if not words or words[0][:1].isdigit() or words[0][:1] in "+-":
        return []
    found: list[str] = []
    for count in range(1, (len(words) if whole else len(words) - 1) + 1):
        name = " ".join(words[:count])
        if len(name) > NPC_NAME_LOOKUP:
            break
        found.append(name.casefold())
    return found


def npc_fields(system: SheetSystem, names: Sequence[str]) -> list[str]:
    """Each name's sheet field and its shown-name field, pairwise."""
    return [f for name in names for f in (npc_field(system, name), npc_name_field(system, name))]


def sheets_ahead(user_id: int | None, text: str | None) -> list[str]:
    """What an update's first round-trip reads of its chat's sheets: the sender's own sheet
    in every system, and, for a command, the NPC sheets its first words could name — the
    hash's own ``npc:SYSTEM:NAME`` fields are the index by name, so a roll by traits or by an
    NPC's name finds its sheet without a read of every sheet in the chat."""
    fields = [] if user_id is None else [player_field(user_id, s) for s in SheetSystem]
    command, _, args = (text or "").partition(" ")
    if command.startswith("/") and args:
        # the words as the command will read them (bot/routing.py reads them so)
        words = typos.tidy(args).split()[:NPC_WORDS_AHEAD]
        names = npc_prefixes(words, whole=True)
        for system in SheetSystem:
            fields += npc_fields(system, names)
    return fields


def parse_sheet(raw: str | bytes | None) -> Sheet | None:
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


class SheetStore(StoreBase):
    async def load_sheet(
        self, chat_id: int | Campaign, user_id: int, system: SheetSystem
    ) -> Sheet | None:
        """The player's sheet for the chat's game system; None if there is none (or only a
        damaged one, which the next change replaces)."""
        key, field = sheet_key(self.at(chat_id)), player_field(user_id, system)
        prefetch = self.scope.prefetch
        known, ahead = prefetch.sheet(key, field) if prefetch is not None else (False, None)
        if known:
            return parse_sheet(ahead)
        return parse_sheet(await self.redis.hget(key, field))

    async def update_sheet(
        self,
        chat_id: int | Campaign,
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
        field = player_field(user_id, system)
        extra = {} if owner is None else {owner_field(user_id): owner.model_dump_json()}
        return await self._update_sheet_field(chat_id, field, system, change, extra)

    async def _all_fields(self, chat_id: int | Campaign) -> dict[str, str]:
        """Every field of the chat's sheets: read ahead by a combat tap, else one HGETALL."""
        key = sheet_key(self.at(chat_id))
        prefetch = self.scope.prefetch
        whole = prefetch.whole(key) if prefetch is not None else None
        if whole is not None:
            return whole
        return cast(dict[str, str], await self.redis.hgetall(key))

    async def list_sheets(self, chat_id: int | Campaign, system: SheetSystem) -> list[PlayerSheet]:
        """Every player's sheet of ``system`` in the chat, in one round-trip (for the
        Storyteller's ``/sheet @user`` and overview)."""
        fields = await self._all_fields(chat_id)
        found: list[PlayerSheet] = []
        for field, raw in fields.items():
            kind, _, rest = str(field).partition(":")
            user, _, of_system = rest.partition(":")
            if kind != "u" or of_system != system.value or not user.lstrip("-").isdigit():
                continue
            sheet = parse_sheet(raw)
            if sheet is None:
                continue
            owner = _parse_owner(fields.get(owner_field(int(user))), int(user))
            found.append(PlayerSheet(owner, sheet))
        found.sort(key=lambda p: p.owner.name.casefold())
        return found

    async def load_npc(
        self, chat_id: int | Campaign, system: SheetSystem, name: str
    ) -> Sheet | None:
        key, field = sheet_key(self.at(chat_id)), npc_field(system, name)
        prefetch = self.scope.prefetch
        known, ahead = prefetch.sheet(key, field) if prefetch is not None else (False, None)
        if known:
            return parse_sheet(ahead)
        return parse_sheet(await self.redis.hget(key, field))

    async def npc_at_start(
        self,
        chat_id: int | Campaign,
        system: SheetSystem,
        words: Sequence[str],
        *,
        whole: bool = False,
    ) -> tuple[str, int] | None:
        """The chat's NPC the typed ``words`` start with — the longest name that fits, any
        case — as (its name as typed, how many words it took); ``whole``: the name may be all
        of them. The candidates are looked up by field, so the cost is the same however many
        sheets the chat keeps: nothing when the update read them ahead (``sheets_ahead``),
        else one HMGET."""
        names = npc_prefixes(words, whole=whole)
        if not names:
            return None
        if len(names) < (len(words) if whole else len(words) - 1):  # past the lookup's bound
            return await self._npc_by_roster(chat_id, system, words, whole=whole)
        raws = await self._peek(chat_id, npc_fields(system, names))
        for count in range(len(names), 0, -1):
            raw, shown = raws[2 * count - 2], raws[2 * count - 1]
            if raw is not None and parse_sheet(raw) is not None:
                return str(shown or names[count - 1]), count
        return None

    async def _npc_by_roster(
        self, chat_id: int | Campaign, system: SheetSystem, words: Sequence[str], *, whole: bool
    ) -> tuple[str, int] | None:
        typed = [w.casefold() for w in words]
        best: tuple[str, int] | None = None
        for name, _sheet in await self.list_npcs(chat_id, system):
            parts = [w.casefold() for w in name.split()]
            room = len(parts) <= len(typed) if whole else len(parts) < len(typed)
            if room and typed[: len(parts)] == parts and (best is None or len(parts) > best[1]):
                best = (name, len(parts))
        return best

    async def _peek(self, chat_id: int | Campaign, fields: Sequence[str]) -> list[str | None]:
        """These fields of the chat's sheets as read ahead, left there for the load that
        follows (:meth:`load_npc`); one HMGET when any of them was not read ahead."""
        key = sheet_key(self.at(chat_id))
        prefetch = self.scope.prefetch
        whole = prefetch.whole(key) if prefetch is not None else None
        if whole is not None:
            return [whole.get(f) for f in fields]
        ahead = prefetch.sheets if prefetch is not None else {}
        if all((key, f) in ahead for f in fields):
            return [ahead[(key, f)] for f in fields]
        return cast(list[str | None], await self.redis.hmget(key, list(fields)))

    async def update_npc(
        self,
        chat_id: int | Campaign,
        system: SheetSystem,
        name: str,
        change: Callable[[Sheet], Sheet],
    ) -> Sheet:
        """Like :meth:`update_sheet` for the Storyteller's NPC called ``name`` (any case); the
        name as last typed is kept for :meth:`list_npcs`."""
        field = npc_field(system, name)
        shown = {npc_name_field(system, name): " ".join(name.split())}
        return await self._update_sheet_field(chat_id, field, system, change, shown)

    async def load_many(
        self,
        chat_id: int | Campaign,
        system: SheetSystem,
        users: Sequence[int],
        npcs: Sequence[str],
    ) -> tuple[dict[int, Sheet], dict[str, Sheet]]:
        """The sheets of these players and NPCs in one round-trip (a list that shows everyone's
        health, like the round tracker); who has no sheet is left out."""
        fields = [player_field(u, system) for u in users] + [npc_field(system, n) for n in npcs]
        if not fields:
            return {}, {}
        prefetch = self.scope.prefetch
        whole = prefetch.whole(sheet_key(self.at(chat_id))) if prefetch is not None else None
        raws: list[Any]
        if whole is not None:
            raws = [whole.get(f) for f in fields]
        else:
            raws = await self.redis.hmget(sheet_key(self.at(chat_id)), fields)
        players = {u: s for u, raw in zip(users, raws, strict=False) if (s := parse_sheet(raw))}
        named = {
            n: s for n, raw in zip(npcs, raws[len(users) :], strict=True) if (s := parse_sheet(raw))
        }
        return players, named

    async def list_npcs(
        self, chat_id: int | Campaign, system: SheetSystem
    ) -> list[tuple[str, Sheet]]:
        """The chat's NPC sheets of ``system`` by name, in one round-trip."""
        fields = await self._all_fields(chat_id)
        prefix = npc_field(system, "")
        found: list[tuple[str, Sheet]] = []
        for field, raw in fields.items():
            if not str(field).startswith(prefix):
                continue
            sheet = parse_sheet(raw)
            if sheet is None:
                continue
            key = str(field)[len(prefix) :]
            found.append((str(fields.get(npc_name_field(system, key)) or key), sheet))
        found.sort(key=lambda item: item[0].casefold())
        return found

    async def _update_sheet_field(
        self,
        chat_id: int | Campaign,
        field: str,
        system: SheetSystem,
        change: Callable[[Sheet], Sheet],
        extra: dict[str, str],
    ) -> Sheet:
        key = sheet_key(self.at(chat_id))

        async def apply(pipe: Pipeline) -> Sheet:
            current = parse_sheet(await pipe.hget(key, field)) or new_sheet(system)
            updated = change(current)
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            values: dict[Any, Any] = {field: to_json(updated), **extra}
            pipe.hset(key, mapping=values)
            pipe.expire(key, CHAT_TTL)
            return updated

        return await self._watched(key, apply)
