"""«Поглотить» under a wound typed with ``/dmg``, as one pure step (bot/runner.py;
docs/rules.md §B.10–§B.11).

The wounded character's player (the Storyteller for anyone) rolls the soak; the track becomes
the wound less the soaked levels, in the same compare-and-set as the step and only while the
sheet still shows that wound; the tracker, if a fight is on, takes the new health and the stun
the soak left or took back in the same step
(:func:`handlers.combat.tracker.steps.after_wound`).
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup

from bot.access import runs_game
from bot.runner import Actor, Advance, Known, Outcome, Reading, Tap, refuse, spending
from handlers.combat.health import view
from handlers.combat.health.callbacks import HealthAction, HealthCallback
from handlers.combat.health.flow import WoundFlow
from handlers.combat.tracker.steps import Open, after_wound, open_tracker
from rules import combat
from rules.combat.tracker import npc_key, player_key
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.health import HealthTrack, apply_damage, is_stunned
from rules.profiles import Profile
from rules.sheet import Sheet, set_health, system_of
from rules.vampire import halved_bashing
from table.store import Flow, SheetSpend


def fighter_key(user_id: int | None, npc: str | None) -> str | None:
    """The tracker's key of the character a health command is about."""
    if npc is not None:
        return npc_key(npc)
    return player_key(user_id) if user_id is not None else None


def _theirs(state: WoundFlow, presser: int) -> bool:
    return state.user_id is not None and state.user_id == presser


@dataclass(frozen=True)
class Soaking:
    """What a soak reads: whether the presser runs the game (asked only of someone else's
    soak), and the chat's open round tracker, which takes the soak's outcome."""

    storyteller: bool = False
    tracker: Open | None = None


async def read(reading: Reading[WoundFlow, HealthCallback]) -> Soaking:
    state = reading.state
    if state.soak is not None:
        return Soaking()
    assert reading.profile is not None
    chat = reading.message.chat
    opened = await open_tracker(reading.store, chat.id, reading.profile)
    if _theirs(state, reading.presser.id):
        return Soaking(tracker=opened)
    assert reading.bot is not None
    assert reading.chat_settings is not None
    storyteller = await runs_game(reading.bot, chat, reading.chat_settings, reading.presser, None)
    return Soaking(storyteller, opened)


def track_after(state: WoundFlow, profile: Profile) -> HealthTrack:
    """The track the wound leaves: less what was soaked once the soak is rolled."""
    if state.kept is None:
        return state.after
    return apply_damage(
        state.before, state.damage, state.kept, profile.combat, undead=state.vampire
    ).track


def step(
    state: WoundFlow, button: HealthCallback, actor: Actor, known: Known[Soaking], rng: Rng | None
) -> Outcome[WoundFlow]:
    if button.a is not HealthAction.SOAK or state.soak is not None:
        return refuse(view.soaked_already_text)
    if not _theirs(state, actor.id) and not known.read.storyteller:
        return refuse(view.not_yours_text)
    profile = known.profile
    soak = combat.roll_soak(state.dice, profile.combat, rng=rng)
    kept = max(0, state.levels - soak.successes)
    if state.vampire:
        kept = halved_bashing(kept, state.damage, profile.vampire)
    after = state.model_copy(update={"soak": soak, "kept": kept})
    track = track_after(after, profile)

    def soaked(sheet: Sheet) -> Sheet:
        if sheet.health != state.after:  # healed or wounded again since: nothing is soaked
            raise RulesInputError(ErrorCode.STATE, "health", "the wound is no longer there")
        return set_health(sheet, track)

    spend = SheetSpend(
        user_id=state.user_id or 0, system=system_of(profile), change=soaked, npc=state.npc
    )
    stamina = state.stamina
    # §B.11: more levels than Stamina stun the character for this round and the next; the
    # tracker, if a fight is on, skips their actions (and a soak that saves them gives them
    # back). Without a fighter's key it only shows the new health.
    stunned = stamina is not None and is_stunned(kept, stamina, profile.combat)
    opened = known.read.tracker
    key = fighter_key(state.user_id, state.npc)
    moved = after_wound(opened, profile, key, track, stunned=stunned) if opened else None
    return Advance(
        state=after,
        close=True,
        spends=spending(spend),
        unpaid=view.track_moved_text,
        also=moved,
    )


def draw(
    flow: Flow, state: WoundFlow, known: Known[Soaking]
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A soaked wound has no button left."""
    return view.wound_text(state, track_after(state, known.profile), known.profile), None


TAP: Tap[WoundFlow, HealthCallback, Soaking] = Tap(
    model=WoundFlow, callback=HealthCallback, step=step, view=draw, read=read, current_only=True
)
