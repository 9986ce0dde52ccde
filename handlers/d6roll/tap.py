"""The d6 ``/r`` message's buttons as one pure step (bot/runner.py): the wizard's choices and
«Бросить», then the one special effort under the result (docs/rules.md §D.2–§D.4).

Only the roller presses, one step at a time (an older drawing is a repeat). The roller's sheet
is read before the step; the roll and the luck dice it spends, or the effort and the wound it
costs, are stored with the step in one transaction, so a double tap pays once and a player
never pays for a result they did not see (docs/product.md §3).
"""

from __future__ import annotations

from collections.abc import Callable

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.runner import Actor, Advance, Answer, Known, Outcome, Reading, Tap, Who, refuse, spending
from bot.wizard import Choices, Wizard
from handlers.d6roll import view
from handlers.d6roll.callbacks import MODIFIER_SHIFT, D6Action, D6Callback
from handlers.d6roll.flow import D6RollState
from rules.d6.chance import Difficulty
from rules.d6.combat import ActionKind, Edge, Trick, declare
from rules.d6.roll import D6Result, special_effort
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem, add_wound, set_edges
from table.store import Flow, LogEntry, SheetSpend

Drawn = tuple[str, InlineKeyboardMarkup | None]
SheetChange = Callable[[Sheet], Sheet]


def wizard_pool(
    state: D6RollState, sheet: Sheet | None, profile: Profile
) -> rolling.D6Pool | str | None:
    """The chance the wizard's choices make, the reason there is none, or None while nothing
    is picked."""
    if not state.powers and state.chance is None:
        return None
    try:
        ask = rolling.D6Ask(
            chance=state.chance,
            powers=state.powers,
            weakness=state.weakness,
            modifier=state.modifier,
            luck=state.luck,
            action=ActionKind.OTHER,
        )
        return rolling.d6_pool_of(sheet, state.roller, profile, ask)
    except rolling.PoolRefused as refused:
        return str(refused)


def draw_state(flow: Flow, state: D6RollState, sheet: Sheet | None, profile: Profile) -> Drawn:
    """The message at ``flow``'s version: the result once rolled, else the wizard."""
    if state.result is not None:
        weakness = sheet.weakness if sheet is not None else None
        return (
            view.result_text(state, weakness, profile),
            view.result_keyboard(flow.id, flow.version, state, profile),
        )
    pool = wizard_pool(state, sheet, profile)
    if isinstance(pool, rolling.D6Pool):
        shown = state.model_copy(update={"label": pool.label})
        text = view.wizard_text(shown, pool.dice, None, profile=profile)
    else:
        text = view.wizard_text(
            state, None, pool, powers=bool(sheet and sheet.powers), profile=profile
        )
    ready = isinstance(pool, rolling.D6Pool)
    return text, view.wizard_keyboard(flow.id, flow.version, state, sheet, ready)


class _Refused(Exception):
    """A press the step turns down, with what the presser is told."""

    def __init__(self, text: Answer) -> None:
        self.text = text


async def read(reading: Reading[D6RollState, D6Callback]) -> Sheet | None:
    """The roller's sheet (the flow's owner's: only they press)."""
    flow = reading.flow
    return await reading.store.load_sheet(flow.chat_id, flow.owner_id, SheetSystem.D6)


def step(
    state: D6RollState,
    action: D6Callback,
    actor: Actor,
    known: Known[Sheet | None],
    rng: Rng | None,
) -> Outcome[D6RollState]:
    try:
        if state.result is None:
            return WIZARD.step(state, action, actor, known, rng)
        return _effort_step(state, action, known, rng)
    except _Refused as refused:
        said = refused.text
        return refuse(lambda: render.plain(said()))


def _power(state: D6RollState, x: int, sheet: Sheet | None) -> D6RollState:
    powers = sheet.powers if sheet is not None else ()
    if not 0 <= x < len(powers):
        raise _Refused(render.invalid_button_text)
    name = powers[x].name
    chosen = tuple(p for p in state.powers if p != name)
    if len(chosen) == len(state.powers):
        chosen = (*state.powers, name)
    return state.model_copy(update={"powers": chosen, "chance": None})


def _chance(state: D6RollState, x: int, sheet: Sheet | None) -> D6RollState:
    if x not in view.WIZARD_CHANCES and x != view.NO_POWER:
        raise _Refused(render.invalid_button_text)
    return state.model_copy(update={"chance": x, "powers": ()})


def _weakness(state: D6RollState, x: int, sheet: Sheet | None) -> D6RollState:
    return state.model_copy(update={"weakness": not state.weakness})


def _luck(state: D6RollState, x: int, sheet: Sheet | None) -> D6RollState:
    if sheet is None or not 0 <= x <= sheet.luck:
        luck = sheet.luck if sheet else 0
        raise _Refused(lambda: rolling.no_luck_text(luck))
    return state.model_copy(update={"luck": x})


def _required(state: D6RollState, x: int, sheet: Sheet | None) -> D6RollState:
    if x not in view.WIZARD_REQUIRED:
        raise _Refused(render.invalid_button_text)
    return state.model_copy(update={"required": x})


def _modifier(state: D6RollState, x: int, sheet: Sheet | None) -> D6RollState:
    if x - MODIFIER_SHIFT not in view.WIZARD_MODIFIERS:
        raise _Refused(render.invalid_button_text)
    return state.model_copy(update={"modifier": x - MODIFIER_SHIFT})


def _rolled(
    state: D6RollState,
    data: D6Callback,
    actor: Actor,
    known: Known[Sheet | None],
    rng: Rng | None,
) -> Outcome[D6RollState]:
    return _roll_step(state, known, rng)


def _sheet(state: D6RollState, known: Known[Sheet | None]) -> Sheet | None:
    return known.read


# The d6 /r wizard on the one wizard machinery (bot/wizard.py): its choices consult the sheet.
WIZARD: Wizard[D6RollState, D6Callback, Sheet | None, Sheet | None] = Wizard(
    choices=Choices(
        {
            D6Action.POWER: _power,
            D6Action.CHANCE: _chance,
            D6Action.WEAKNESS: _weakness,
            D6Action.LUCK: _luck,
            D6Action.REQUIRED: _required,
            D6Action.MODIFIER: _modifier,
        }
    ),
    ends={D6Action.ROLL: _rolled},
    seen=_sheet,
)


def _roll_step(
    state: D6RollState, known: Known[Sheet | None], rng: Rng | None
) -> Outcome[D6RollState]:
    profile = known.profile
    pool = wizard_pool(state, known.read, profile)
    if not isinstance(pool, rolling.D6Pool):
        reason = pool
        raise _Refused((lambda: reason) if reason else view.hint_text)
    result = rolling.roll_d6(pool.dice, required=state.required, rng=rng, profile=profile)
    after = state.model_copy(update={"label": pool.label, "result": result})
    who = rolling.Roller(known.flow.chat_id, known.flow.owner_id, state.roller)
    entry = rolling.d6_log_entry(who.user_id, who.name, pool.dice, state.required, result)
    return _paying(after, rolling.d6_spend(who, pool), entry)


def _paying(after: D6RollState, spend: SheetSpend | None, entry: LogEntry) -> Outcome[D6RollState]:
    """The step with what it takes off the sheet; luck gone meanwhile is refused then."""
    return Advance(
        state=after,
        spends=spending(spend),
        entries=(entry,),
        unpaid=lambda: rolling.no_luck_text(0),
    )


def _effort_step(
    state: D6RollState, data: D6Callback, known: Known[Sheet | None], rng: Rng | None
) -> Outcome[D6RollState]:
    result, sheet, profile = state.result, known.read, known.profile
    assert result is not None
    _check_effort_offered(result, profile)
    if data.a is D6Action.BACK:
        return Advance(state=state.model_copy(update={"choosing": False}))
    if data.a is not D6Action.EFFORT:
        raise _Refused(render.invalid_button_text)
    if data.x == 0:
        return Advance(state=state.model_copy(update={"choosing": True}))
    fuel = view.EFFORT_PRICES.get(data.x)
    if fuel is None or not state.choosing:
        raise _Refused(render.invalid_button_text)
    try:
        effort = special_effort(result, fuel, rng=rng, profile=profile)
    except RulesInputError:
        raise _Refused(view.effort_refused_text) from None
    wound = effort.wound
    after = state.model_copy(
        update={
            "result": effort.result,
            "choosing": False,
            "price": fuel,
            "wound_written": wound is not None and sheet is not None,
        }
    )
    who = rolling.Roller(known.flow.chat_id, known.flow.owner_id, state.roller)
    entry = _effort_entry(who, effort.result)
    left = _left_after_effort(state, sheet, effort.result.measures)
    if left != state.left:
        after = after.model_copy(update={"left": left})
    spend = None
    if sheet is not None and (wound is not None or left != state.left):
        spend = SheetSpend(who.user_id, SheetSystem.D6, _effort_change(wound, left))
    return _paying(after, spend, entry)


def _check_effort_offered(result: D6Result, profile: Profile) -> None:
    """Refuses an effort the roll does not offer, saying so plainly when it would change
    nothing (no die without a measure to reroll)."""
    if not view.effort_offered(result, profile):
        if result.faces and not result.special_effort and not result.armour:
            raise _Refused(lambda: view.effort_noop_refused_text(profile))
        raise _Refused(view.effort_refused_text)


def _left_after_effort(
    state: D6RollState, sheet: Sheet | None, measures: int
) -> tuple[Edge, ...] | None:
    """The tricks left waiting after an effort: the roll's trick declared again with its new
    measures, as long as nothing has touched what the roll left on the sheet."""
    trick = _trick_of(state)
    left = state.left
    if trick is None or left is None or sheet is None or sheet.edges != left:
        return left
    declared = declare(trick, measures, state.aim or 0)
    left = tuple(e for e in left if e.trick is not trick)
    return (*left, declared) if declared is not None else left


def _trick_of(state: D6RollState) -> Trick | None:
    if state.aim is not None:
        return Trick.AIM
    if state.escape:
        return Trick.ESCAPE
    if state.charge:
        return Trick.CHARGE
    if state.full_defence:
        return Trick.FULL_DEFENCE
    return None


def _effort_change(wound: Difficulty | None, edges: tuple[Edge, ...] | None) -> SheetChange:
    """The effort's price on the sheet, and the trick its new measures leave waiting."""

    def change(sheet: Sheet) -> Sheet:
        if wound is not None:
            sheet = add_wound(sheet, wound.kind, wound.magnitude)
        return set_edges(sheet, edges) if edges is not None else sheet

    return change


def _effort_entry(who: rolling.Roller, result: D6Result) -> LogEntry:
    entry = rolling.d6_log_entry(who.user_id, who.name, len(result.faces), result.required, result)
    fresh = tuple(result.faces[i] for i in result.rerolled)
    return entry.model_copy(update={"kind": "effort", "fresh": fresh})


def draw(
    flow: Flow, state: D6RollState, known: Known[Sheet | None]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return draw_state(flow, state, known.read, known.profile)


TAP: Tap[D6RollState, D6Callback, Sheet | None] = Tap(
    model=D6RollState,
    callback=D6Callback,
    step=step,
    view=draw,
    who=Who.OWNER,
    system=GameSystem.D6,
    current_only=True,  # one person's steps, in order: an older drawing is a repeat
    read=read,
)
