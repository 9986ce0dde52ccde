"""What the screen shows of a campaign, read afresh for each drawing: its player characters,
the NPCs of its fight, and whose turn it is.

The fight is read from the round tracker's flow as stored (``bot.combat.TRACKER``), through
the rules' own model of a round (``rules.combat.tracker.Round``), so this feature needs no
other feature's code; an unreadable tracker is simply no fight.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from pydantic import ValidationError

from bot.combat import TRACKER
from bot.middlewares import chat_profile
from bot.roll_requests import Answer, answer_in
from rules.combat.tracker import Phase, Round
from rules.errors import RulesInputError
from rules.health import HealthTrack, track_of
from rules.profiles import Profile
from rules.sheet import Sheet, SheetSystem, new_sheet, system_of
from table import npcs
from table.scope import Campaign as Where
from table.store import ChatSettings, Store


@dataclass(frozen=True)
class Character:
    """One line of the screen: a player's character («u:ID») or an NPC («n:NAME»)."""

    key: str
    name: str
    sheet: Sheet | None
    user_id: int | None = None
    npc: str | None = None
    health: HealthTrack | None = None  # a fighting NPC's own track kept by the tracker
    stunned: bool = False
    # A fighting NPC with no sheet of its own (a copy «Охранник 2» of a group, table/npcs.py):
    # the sheet its first change starts from — the group's as a fresh copy, else a blank one —
    # so the screen's first wound or spend writes its sheet, as the fight's first wound does.
    base: Sheet | None = None

    @property
    def working(self) -> Sheet | None:
        """The sheet a change applies to: the character's own, else the one it starts."""
        return self.sheet if self.sheet is not None else self.base


@dataclass(frozen=True)
class Fight:
    number: int
    phase: Phase
    turn: str | None  # who declares or acts now


@dataclass(frozen=True)
class Requested:
    """The roll the screen last asked of a player, as the request stands now."""

    name: str
    answer: Answer | None  # None: not rolled yet
    closed: bool  # closed without an answer, or gone


@dataclass(frozen=True)
class Campaign:
    chat_id: int
    title: str
    settings: ChatSettings
    profile: Profile
    players: tuple[Character, ...]
    npcs: tuple[Character, ...]
    fight: Fight | None
    requested: Requested | None = None
    thread_id: int | None = None  # the forum topic whose campaign it is (None: the chat's)

    @property
    def where(self) -> Where:
        """The campaign it is: its chat, and its topic in a forum."""
        return Where(self.chat_id, self.thread_id)

    def runs(self, user_id: int) -> bool:
        """Whether ``user_id`` still runs this campaign (the role may have moved)."""
        return self.settings.storyteller_id == user_id

    @property
    def everyone(self) -> tuple[Character, ...]:
        return (*self.players, *self.npcs)

    def find(self, key: str | None) -> Character | None:
        return next((c for c in self.everyone if c.key == key), None)


def _round(data: object) -> tuple[Round, dict[str, HealthTrack]] | None:
    if not isinstance(data, dict):
        return None
    try:
        found = Round.model_validate(data.get("round", {}))
    except ValidationError:
        return None
    tracks: dict[str, HealthTrack] = {}
    raw = data.get("health")
    if isinstance(raw, dict):
        for name, track in raw.items():
            if not isinstance(track, dict) or not isinstance(track.get("boxes", []), list):
                continue
            try:
                boxes = track_of(track.get("boxes", [])).boxes
            except RulesInputError:
                continue
            tracks[str(name)] = HealthTrack(boxes, dead=track.get("dead") is True)
    return found, tracks


async def read_requested(
    store: Store,
    chat_id: int | Where,
    asked: tuple[str, int] | None,
    players: tuple[Character, ...],
) -> Requested | None:
    """The screen's last request as stored in the campaign (``bot.roll_requests``)."""
    if asked is None:
        return None
    flow_id, user_id = asked
    flow = await store.load_flow(chat_id, flow_id)
    name = next((p.name for p in players if p.user_id == user_id), "?")
    if flow is None:
        return Requested(name, None, closed=True)
    answer = answer_in(flow.data, user_id)
    return Requested(name, answer, closed=flow.closed and answer is None)


async def read_campaign(
    store: Store, where: int | Where, title: str, asked: tuple[str, int] | None = None
) -> Campaign:
    chat_id = store.at(where)
    settings = await store.load_chat(chat_id)
    profile = chat_profile(settings)
    system = system_of(profile)
    players = tuple(
        Character(f"u:{p.owner.user_id}", p.owner.name, p.sheet, user_id=p.owner.user_id)
        for p in await store.list_sheets(chat_id, system)
    )
    live = await store.load_live(chat_id, TRACKER)
    fight: Fight | None = None
    fighting: list[Character] = []
    read = _round(live[0].data) if live is not None else None
    if read is not None:
        round_, tracks = read
        names = {f.key: f.name for f in round_.fighters}
        actor = round_.actor()
        declarer = round_.declarer()
        turn_key = actor[0] if actor is not None else declarer
        fight = Fight(round_.number, round_.phase, names.get(turn_key) if turn_key else None)
        stunned = {f.user_id for f in round_.fighters if f.user_id and round_.stunned(f.key)}
        players = tuple(replace(p, stunned=p.user_id in stunned) for p in players)
        fighters = [f for f in round_.fighters if f.user_id is None]
        sheets = {name.casefold(): sheet for name, sheet in await store.list_npcs(chat_id, system)}
        for fighter in fighters:
            sheet = sheets.get(fighter.name.casefold())
            fighting.append(
                Character(
                    f"n:{fighter.name}",
                    fighter.name,
                    sheet,
                    npc=fighter.name,
                    health=tracks.get(fighter.key) or tracks.get(fighter.name),
                    stunned=round_.stunned(fighter.key),
                    base=None if sheet is not None else copy_base(fighter.name, sheets, system),
                )
            )
    requested = await read_requested(store, chat_id, asked, players)
    return Campaign(
        chat_id.chat_id,
        title,
        settings,
        profile,
        players,
        tuple(fighting),
        fight,
        requested,
        chat_id.thread_id,
    )


def copy_base(name: str, sheets: Mapping[str, Sheet], system: SheetSystem) -> Sheet:
    """The sheet a fighting NPC without one starts from: its group's («Охранник» for
    «Охранник 2») as a fresh copy when the group has a sheet, else a blank one."""
    group = npcs.group_of(name)
    found = sheets.get(group.casefold()) if group is not None else None
    return npcs.fresh_copy(found) if found is not None else new_sheet(system)
