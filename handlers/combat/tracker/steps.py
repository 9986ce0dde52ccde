"""The tracker's steps that the attack panel and health take with their own: new health, a
knockdown or stun, the round after an attack, and the open round itself (docs/rules.md
§B.1–§B.11). A step is drawn here and stored by the caller with its own step, so a wound and
the round's move are one compare-and-set (ARCHITECTURE.md "Nothing lost, nothing twice").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiogram import Bot

from bot import live as bot_live
from bot.combat import TrackerStep
from bot.runner import CONFLICT_ATTEMPTS, screen_of
from handlers.combat.tracker import view
from handlers.combat.tracker.flow import KIND, InitFlow
from rules import vampire
from rules.combat import tracker
from rules.combat.tracker import Round
from rules.errors import RulesInputError
from rules.health import HealthTrack, wound_penalty
from rules.profiles import GameSystem, Profile
from rules.sheet import system_of
from table.store import AlsoStep, Flow, FlowStateError, Live, Store

Change = Callable[[Round], Round]


@dataclass(frozen=True)
class Aftermath:
    """What a resolved attack changes in the round (by fighter key), besides health: who was
    knocked down or stunned (§B.8, §B.11), whose declared defence it used or who interrupted
    for it (§B.3 step 2), and whose action it was, so the tracker moves on by itself."""

    changed: Mapping[str, HealthTrack]
    knocked: frozenset[str] = frozenset()
    stunned: frozenset[str] = frozenset()
    defended: str | None = None
    interrupted: str | None = None
    resolved: str | None = None
    willpower: str | None = None  # who spent a point of Willpower on it (§A.7: once a turn)


async def read_tracks(
    store: Store, chat_id: int, profile: Profile, current: Round
) -> dict[str, HealthTrack]:
    """Every fighter's health as their sheet has it now (one read, or the tap's read-ahead):
    a wound or a heal made outside the fight shows on the tracker at its next step."""
    users = [f.user_id for f in current.fighters if f.user_id is not None]
    npcs = [f.name for f in current.fighters if f.user_id is None]
    players, named = await store.load_many(chat_id, system_of(profile), users, npcs)
    found: dict[str, HealthTrack] = {}
    for fighter in current.fighters:
        sheet = players.get(fighter.user_id) if fighter.user_id is not None else None
        if fighter.user_id is None:
            sheet = named.get(fighter.name)
        if sheet is not None:
            found[fighter.key] = sheet.health
    return found


def with_health(state: InitFlow, tracks: Mapping[str, HealthTrack], **more: Any) -> InitFlow:
    """The tracker with the health it read and the round's torpor from it (§B.13: a vampire
    at «Без Сознания» is passed over until blood mends a level); ``more``: the step's other
    changes (its round first, then the torpor on it)."""
    current = more.pop("round", state.round)
    torpid = frozenset(key for key, track in tracks.items() if vampire.torpid(track))
    update = {**more, "health": dict(tracks), "round": tracker.set_torpor(current, torpid)}
    return state.model_copy(update=update)


def initiative_modifier(profile: Profile, track: HealthTrack | None) -> int:
    """AMB-B1: wounds slow initiative only when the table switched it on."""
    if track is None or not profile.combat.wound_penalty_on_initiative:
        return 0
    return wound_penalty(track).penalty


async def refresh(bot: Bot, store: Store, chat_id: int, profile: Profile) -> None:
    """Redraw the chat's tracker after a change it shows but does not own (health, §B.9): the
    sheets are read again and the tracker takes the new health as a step of its own."""
    await _retrack(bot, store, chat_id, profile, lambda round_: round_)


async def _retrack(bot: Bot, store: Store, chat_id: int, profile: Profile, change: Change) -> None:
    """The tracker takes the sheets' health as read now and ``change`` of its round in one
    compare-and-set, run again on a lost race; nothing when neither changes anything."""
    loaded = await store.load_live(chat_id, KIND)
    if loaded is None or profile.system is not GameSystem.D10:
        return
    flow, live = loaded
    for _attempt in range(CONFLICT_ATTEMPTS):
        try:
            state = flow.state(InitFlow)
        except FlowStateError:
            return
        tracks = await read_tracks(store, chat_id, profile, state.round)
        changed = change(state.round)
        if tracks == state.health and changed == state.round:
            return
        after = with_health(state, tracks, round=changed)
        drawn = view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(flow, flow.version, after, screen=screen_of(*drawn))
        if advanced is not None:
            await bot_live.redraw(bot, chat_id, live, drawn)
            return
        loaded = await store.load_live(chat_id, KIND)
        if loaded is None:
            return
        flow, live = loaded


@dataclass(frozen=True)
class Open:
    """The chat's open round tracker as a tap read it: its flow and message, its state, and
    every fighter's health as the sheets have it now (:func:`read_tracks`)."""

    flow: Flow
    live: Live
    state: InitFlow
    tracks: Mapping[str, HealthTrack]


async def open_tracker(
    store: Store, chat_id: int, profile: Profile, *, tracks: bool = True
) -> Open | None:
    """The chat's open d10 tracker, None without one; ``tracks`` False: the health as the
    tracker last showed it, with no sheet read (a step that cannot wound anyone)."""
    loaded = await store.load_live(chat_id, KIND)
    if loaded is None or profile.system is not GameSystem.D10:
        return None
    flow, live = loaded
    try:
        state = flow.state(InitFlow)
    except FlowStateError:
        return None
    found = await read_tracks(store, chat_id, profile, state.round) if tracks else state.health
    return Open(flow, live, state, found)


def after_attack(opened: Open, profile: Profile, aftermath: Aftermath) -> TrackerStep | None:
    """The tracker's step after an attack on the panel, drawn but not stored: the attack's
    own step stores it, so the round moves on in the same round-trip (docs/product.md §5) and
    nobody taps «Дальше» after an attack. Pure: the tracker as read in :func:`open_tracker`."""
    flow, state = opened.flow, opened.state
    tracks = {**opened.tracks, **aftermath.changed}
    tracks = {k: v for k, v in tracks.items() if state.round.fighter(k) is not None}
    try:
        changed = round_after_attack(state.round, aftermath)
    except RulesInputError:
        return None
    if tracks == state.health and changed == state.round:
        return None
    after = with_health(state, tracks, round=changed, note=None)
    drawn = view.draw(flow.next(after), after, profile)
    # A point of Willpower spent on the attack (an Interruption's) stands or falls with its
    # mark on the round (docs/rules.md §A.7, once a turn): a tracker moved since stores neither.
    strict = aftermath.willpower is not None
    step = AlsoStep(flow, flow.version, after, screen_of(*drawn), strict=strict)
    return TrackerStep(step, opened.live, drawn)


def after_wound(
    opened: Open, profile: Profile, key: str | None, track: HealthTrack, *, stunned: bool
) -> TrackerStep | None:
    """The tracker's step after a soaked wound typed with /dmg, drawn but not stored: the
    soak's own step stores it, so the wound and the round are one compare-and-set. The
    character ``key`` (None: no fighter's key, only the new health shown) shows ``track``,
    and is stunned for this round and the next, or no longer (§B.11: the soak saved them).
    Pure: the tracker as read in :func:`open_tracker`."""
    flow, state = opened.flow, opened.state
    tracks = dict(opened.tracks)
    changed = state.round
    if key is not None:
        if state.round.fighter(key) is not None:
            tracks[key] = track
        try:
            changed = tracker.stun(state.round, key, stunned=stunned)
        except RulesInputError:
            return None
    if tracks == state.health and changed == state.round:
        return None
    after = with_health(state, tracks, round=changed)
    drawn = view.draw(flow.next(after), after, profile)
    return TrackerStep(AlsoStep(flow, flow.version, after, screen_of(*drawn)), opened.live, drawn)


def round_after_attack(current: Round, aftermath: Aftermath) -> Round:
    """The round's own steps for what an attack did, in the order the table plays them: the
    defence first (it came before the hit), then the hit's knockdown and stun, then the
    attacker's action is over."""
    interrupter, defender = aftermath.interrupted, aftermath.defended
    if interrupter is not None and current.can_interrupt(interrupter):
        current = tracker.interrupt(current, interrupter)
    spender = aftermath.willpower
    if spender is not None and not current.spent_willpower(spender):
        current = tracker.spend_willpower(current, spender)
    if defender is not None and current.has_defence(defender):
        current = tracker.use_defence(current, defender)
    for key in sorted(aftermath.knocked):
        current = tracker.knock_down(current, key)
    for key in sorted(aftermath.stunned):
        current = tracker.stun(current, key)
    if aftermath.resolved is not None:
        current = tracker.resolved(current, aftermath.resolved)
    return current


async def stun_fighter(
    bot: Bot, store: Store, chat_id: int, profile: Profile, key: str, stunned: bool
) -> None:
    """A wound typed with /dmg stunned ``key`` or its soak saved them :
    the tracker skips or restores their actions and shows the new health in one step."""
    await _retrack(
        bot, store, chat_id, profile, lambda round_: tracker.stun(round_, key, stunned=stunned)
    )


async def current_round(store: Store, chat_id: int) -> Round | None:
    """The chat's open round, for the attack panel."""
    loaded = await store.load_live(chat_id, KIND)
    if loaded is None:
        return None
    try:
        return loaded[0].state(InitFlow).round
    except FlowStateError:
        return None
