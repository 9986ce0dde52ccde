"""Crossing the Barrier's buttons as one pure step (bot/runner.py, docs/rules.md §C.15): the
place and the local shift, each roll toward the other side, and staying on this side.

Only the crossing mage presses, one step at a time. Their sheet is read before a roll; a
failed roll's unsoakable level lands on it in the step's own transaction, and only if the
sheet is still the one the roll was made on (:func:`only_if`): otherwise the press is run
again on the sheet as it is now.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.runner import (
    Actor,
    Advance,
    Known,
    Outcome,
    Reading,
    SheetMoved,
    Tap,
    Who,
    refuse,
    spending,
)
from handlers.magick import view
from handlers.magick.callbacks import BarrierAction, BarrierCallback
from handlers.magick.flow import KIND, BarrierFlow, conditions_difficulty
from rules import magick
from rules.dice import Rng
from rules.health import ImpossibleReason, apply_damage, wound_penalty
from rules.profiles import Profile
from rules.sheet import Sheet, SheetSystem, set_health
from table.store import Flow, SheetSpend


def only_if(before: Sheet, after: Sheet) -> Callable[[Sheet], Sheet]:
    """The change a step makes, valid only on the sheet it was computed from."""

    def change(current: Sheet) -> Sheet:
        if current != before:
            raise SheetMoved
        return after

    return change


async def read(reading: Reading[BarrierFlow, BarrierCallback]) -> Sheet | None:
    """The mage's sheet, for a roll (nothing else needs it)."""
    if reading.action.a is not BarrierAction.ROLL:
        return None
    return await reading.store.load_sheet(
        reading.flow.chat_id, reading.state.user_id, SheetSystem.MAGE
    )


def step(
    state: BarrierFlow,
    action: BarrierCallback,
    actor: Actor,
    known: Known[Sheet | None],
    rng: Rng | None,
) -> Outcome[BarrierFlow]:
    a, x = action.a, action.x
    if a is BarrierAction.ROLL:
        return _cross(state, known, rng)
    if a is BarrierAction.PLACE and not state.rolls and 0 <= x < len(view.PLACES):
        after = state.model_copy(update={"place": view.PLACES[x]})
    elif a is BarrierAction.SHIFT and not state.rolls and 0 <= x <= 4:
        after = state.model_copy(update={"shift": x - magick.BARRIER_ADJUSTMENT_LIMIT})
    elif a is BarrierAction.STOP:
        after = state.model_copy(update={"stopped": True})
    else:
        return refuse(render.invalid_button_text)
    return Advance(state=after, close=after.over)


def barrier_pool(sheet: Sheet, profile: Profile) -> int:
    """§C.15: the crossing rolls Arete less wounds (AMB-C5, as any Arete roll); 0 for a mage
    who cannot act at all (Без Сознания, Мёртв) or with no Arete."""
    track = wound_penalty(sheet.health)
    if sheet.arete is None or sheet.health.dead or not track.can_act:
        return 0
    pool = sheet.arete
    if profile.magick.wound_penalty_on_arete:
        pool += track.penalty
    return max(0, pool)


def no_barrier_dice(sheet: Sheet, profile: Profile) -> Callable[[], str]:
    """Why the Barrier cannot be crossed with no dice: the wounds take the Arete, or the mage
    cannot act at all."""
    track = wound_penalty(sheet.health)
    if sheet.health.dead or not track.can_act:
        reason = ImpossibleReason.DEAD if sheet.health.dead else ImpossibleReason.INCAPACITATED
        return partial(rolling.cannot_act_text, reason)
    penalty = -track.penalty if profile.magick.wound_penalty_on_arete else 0
    return partial(view.barrier_no_dice_text, sheet.arete or 0, penalty)


def _cross(state: BarrierFlow, known: Known[Sheet | None], rng: Rng | None) -> Outcome[BarrierFlow]:
    """One roll toward the other side; a failed one hurts (unsoakable)."""
    sheet, profile = known.read, known.profile
    if sheet is None or sheet.arete is None:
        return refuse(view.no_arete_text)
    pool = barrier_pool(sheet, profile)
    if pool <= 0:
        return refuse(no_barrier_dice(sheet, profile))
    # the Barrier here, as this caster meets it (blinded: +2, §B.8)
    target = magick.barrier_for(state.barrier(profile), conditions_difficulty(sheet))
    crossing = magick.cross_barrier(
        pool, target, accumulated=state.gathered, rng=rng, profile=profile
    )
    changed, track = sheet, state.track
    if crossing.damage_levels and not sheet.health.dead:
        hurt = apply_damage(
            sheet.health, crossing.damage_type, crossing.damage_levels, profile.combat
        ).track
        changed, track = set_health(sheet, hurt), hurt
    after = state.model_copy(
        update={
            "rolls": (*state.rolls, crossing.roll),
            "gathered": crossing.accumulated,
            "harm": state.harm + crossing.damage_levels,
            "crossed": crossing.crossed,
            "track": track,
            "arete": sheet.arete,
            "wound_penalty": -wound_penalty(changed.health).penalty,
            "condition_difficulty": conditions_difficulty(sheet),
        }
    )
    entry = rolling.log_entry(state.user_id, state.caster, pool, crossing.roll, KIND)
    spend = SheetSpend(state.user_id, SheetSystem.MAGE, only_if(sheet, changed))
    return Advance(state=after, close=after.over, entries=(entry,), spends=spending(spend))


def draw(
    flow: Flow, state: BarrierFlow, known: Known[Sheet | None]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw_barrier(flow, state, known.profile)


BARRIER: Tap[BarrierFlow, BarrierCallback, Sheet | None] = Tap(
    model=BarrierFlow,
    callback=BarrierCallback,
    step=step,
    view=draw,
    who=Who.OWNER,
    current_only=True,
    read=read,
)
