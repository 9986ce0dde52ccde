"""What the d6 tracker does for an attack's defence, and the shapes the tracker and the
attacks hand each other (docs/rules.md §D.9): a defence sets aside the defender's highest die
on the tracker in the same step as the defence itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aiogram import Bot
from aiogram.types import InlineKeyboardMarkup, Message

from bot import live as bot_live
from bot.combat import TrackerStep
from bot.runner import screen_of
from handlers.d6combat.tracker import view
from handlers.d6combat.tracker.flow import KIND, ROUND_TTL, D6InitFlow, Panel
from rules.d6 import initiative as d6i
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from table.store import (
    AlsoStep,
    Flow,
    FlowState,
    FlowStateError,
    Live,
    LogEntry,
    SheetSpend,
    Store,
)


@dataclass(frozen=True)
class D6Side:
    """A d6 fighter as the tracker knows them: the key the tracker and the attacks use (``u``
    and the user id, or ``n:`` and the NPC's name), the name shown, the player (None: an NPC)
    and the dice the tracker rolled for them, the chance of a fighter with no power on their
    sheet."""

    key: str
    name: str
    user_id: int | None
    dice: int
    powers: tuple[str, ...] = ()  # the powers they last attacked with, if any


@dataclass(frozen=True)
class D6Attack:
    """A d6 attack rolled for the tracker and not stored yet: the tracker stores it with its
    own step (one write), then posts it. ``spend``: what its roll changes on the attacker's
    sheet (the tricks waiting on it, §D.12), stored with the attack instead."""

    state: FlowState
    owner: int
    entries: tuple[LogEntry, ...]
    spend: SheetSpend | None
    draw: Callable[[Flow], tuple[str, InlineKeyboardMarkup | None]]


@dataclass(frozen=True)
class D6Defence:
    """The tracker's side of a defence under a d6 attack: the slowness it takes (§D.9), the
    defender's dice on the tracker, and the tracker's step to store with the defence's own
    (None: the defender already set their die aside with the tracker's «Защита»)."""

    slowness: int
    dice: int
    step: TrackerStep | None


async def defend_for_attack(
    store: Store, chat_id: int, profile: Profile, defender: str, attacker: str
) -> D6Defence | str | None:
    """A defence under a d6 attack: the defender sets aside their
    highest die against the attacker's latest action on the tracker, slow when it is lower
    (§D.9). The step is drawn, not stored: the defence's own step stores it."""
    tracker = await _live_tracker(store, chat_id, profile)
    if tracker is None:
        return None
    flow, live, state, current = tracker
    fighter = next((f for f in current.fighters if f.sheet.id == defender), None)
    if fighter is None or all(f.sheet.id != attacker for f in current.fighters):
        return None
    attack_at = _latest_action(current, attacker)
    if attack_at is None:
        return None  # an attack typed before the attacker acted on the tracker
    attack = current.log[attack_at]
    done = next(
        (s for s in current.log if s.responds_to == attack_at and s.actor == defender), None
    )
    if done is not None and done.value is not None and attack.value is not None:
        # the die went aside with the tracker's own «Защита»: the slowness it took stands
        slow = 0 if attack.was_holder else max(0, attack.value - done.value)
        return D6Defence(slowness=slow, dice=fighter.sheet.alacrity, step=None)
    try:
        changed, defence = d6i.defend(current, defender, attacker=attacker, profile=profile)
    except RulesInputError as error:
        return refusal(error)
    note = view.defended_note(side_name(state, defender), defence.die, defence.slowness)
    after = state.model_copy(update={"round": changed, "note": note, "panel": Panel.NONE})
    drawn = view.draw(flow.next(after), after, profile)
    step = TrackerStep(AlsoStep(flow, flow.version, after, screen_of(*drawn)), live, drawn)
    return D6Defence(slowness=defence.slowness, dice=fighter.sheet.alacrity, step=step)


TYPED_ATTEMPTS = 3  # a typed attack's die, retried when a tap moved the tracker meanwhile


async def spend_typed_attack(
    bot: Bot,
    message: Message,
    store: Store,
    profile: Profile,
    attacker: str,
    target: str | None,
    rng: Rng | None,
    powers: tuple[str, ...] = (),
) -> None:
    """A typed ``/atk`` during a d6 round is the attacker's action as the tracker's «⚔️ Атака»
    is (§D.9): their highest die is set aside, so a defence against it is slow when lower.
    A fighter who may not act now (not up, no die to cut in with) leaves the tracker as it is;
    the attack itself stands. The powers it named are remembered for the fighter's next
    one-tap attack."""
    for _attempt in range(TYPED_ATTEMPTS):
        tracker = await _live_tracker(store, message.chat.id, profile)
        if tracker is None:
            return
        flow, live, state, current = tracker
        if all(f.sheet.id != attacker for f in current.fighters):
            return
        try:
            changed = d6i.act(current, attacker, rng)
        except RulesInputError:
            return
        value = changed.log[-1].value if changed.log else None
        note = (
            view.attack_note(side_name(state, attacker), target, value)
            if target is not None and value is not None
            else ""
        )
        used = {**state.powers, attacker: powers} if powers else state.powers
        after = state.model_copy(
            update={"round": changed, "note": note, "panel": Panel.NONE, "powers": used}
        )
        drawn = view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(flow, flow.version, after, screen=screen_of(*drawn))
        if advanced is not None:
            shown = bot_live.Shown(KIND, advanced, live, drawn, ROUND_TTL, pin=True)
            await bot_live.show_live(bot, store, message, shown)
            return


async def _live_tracker(
    store: Store, chat_id: int, profile: Profile
) -> tuple[Flow, Live, D6InitFlow, d6i.Round] | None:
    """The chat's d6 tracker with a round under way, if there is one."""
    loaded = await store.load_live(chat_id, KIND)
    if loaded is None or profile.system is not GameSystem.D6:
        return None
    flow, live = loaded
    try:
        state = flow.state(D6InitFlow)
    except FlowStateError:
        return None
    current = state.round
    if current is None or state.ended:
        return None
    return flow, live, state, current


def _latest_action(current: d6i.Round, attacker: str) -> int | None:
    """Where in the round's log the attacker last acted («Действовать»), if they did."""
    return next(
        (
            n
            for n in range(len(current.log) - 1, -1, -1)
            if current.log[n].actor == attacker and current.log[n].kind is d6i.StepKind.ACT
        ),
        None,
    )


def refusal(error: RulesInputError) -> str:
    if error.field == "combatant.id":
        return view.already_in_text()
    return view.refused_text(error.detail)


def side_name(state: D6InitFlow, key: str) -> str:
    member = state.members.get(key)
    return member.name if member is not None else key
