"""The buttons of ``/r`` as pure steps (bot/runner.py): the wizard's choices, «Бросить» and
«Автоуспех» (:data:`WIZARD_TAP`), and a result's «Ещё раз» and «Продлить»
(:data:`RESULT_TAP`). Both flows are their opener's alone (docs/product.md §2).

The wizard's read is the player's sheet, so its pool (traits, wounds, conditions) is worked
out without a round-trip by :func:`bot.rolling.pool_of`; the dice are cast in the step, before
the wizard closes, so a roll the rules refuse leaves the wizard open and a lost race shows
nothing. A roll's result flow is opened in the write that closes the pressed flow
(:func:`result_into`): drawn into the wizard's message, or posted as a new message («Ещё
раз»), with its log line and its Willpower point in the same compare-and-set.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from aiogram import F
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import get_i18n

from bot import render, rolling, sheet_text, table_text
from bot.combat import WillpowerTurn, read_willpower_turn
from bot.combat import fighting as fighting_in
from bot.runner import (
    CONFLICT_ATTEMPTS,
    Actor,
    Advance,
    Drawn,
    HandOver,
    Into,
    Known,
    Outcome,
    Reading,
    SheetMoved,
    Tap,
    Who,
    refuse,
)
from bot.wizard import EXTEND_ROLL, Choices, ExtendRequest, Wizard
from handlers.roll import view
from handlers.roll.callbacks import MODIFIER_SHIFT, RollAction, RollCallback
from handlers.roll.flow import AutoDone, RollRecord, WizardState
from rules import d10, probability
from rules.actions import AutoStatus, auto_success
from rules.dice import Rng
from rules.difficulty import check_base, retry_difficulty
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import GameSystem, Profile, RollContext
from rules.sheet import (
    Ability,
    Attribute,
    Discipline,
    Sheet,
    Stat,
    TraitCode,
    Virtue,
    catalogue,
    spend_willpower,
    system_of,
    trait_code,
)
from table.store import AlsoMoved, Flow, LogEntry, Store
from table.traits import display_name


@dataclass(frozen=True)
class WizardRead:
    """What the wizard's step and view need besides the flow: the player's sheet (None: none)
    and their name, which a sheet-less pool's refusal quotes."""

    sheet: Sheet | None
    name: str
    fighting: bool = False  # a round tracker is open: no automatic success (§A.6)
    turn: WillpowerTurn | None = None  # the fight's turn, read for a roll with Willpower


@dataclass(frozen=True)
class ResultRead:
    """What a result's buttons need: the result's text as shown (its buttons are redrawn under
    it) and, for a next attempt that spends Willpower, the points on the roller's sheet
    (None: not tracked, or not asked)."""

    text: str
    willpower: tuple[int, int] | None
    turn: WillpowerTurn | None = None  # the fight's turn, read for a retry with Willpower


# --- The wizard -------------------------------------------------------------------------


def auto_success_offered(
    pool: int, difficulty: int, profile: Profile, *, fighting: bool = False
) -> bool:
    """§A.6 in an ordinary situation (RollContext.NORMAL), or in a fight while a round tracker
    is open (RollContext.COMBAT: S0 «не может быть использована в бою», S1 «драка … система
    автоматического успеха неприменима»); the S1 variant's Willpower price is taken on trust,
    since the bot does not yet know the character's Willpower."""
    if not profile.auto_success:
        return False
    context = RollContext.COMBAT if fighting else RollContext.NORMAL
    try:
        found = auto_success(pool, difficulty, profile, context, wp_current=1)
    except RulesInputError:
        return False
    return found.status is AutoStatus.APPLIED


def wizard_trait(code: TraitCode) -> bool:
    """What a wizard button may add to a pool: an Attribute, an Ability, and on a Dark Ages
    sheet what a vampire rolls besides them — a Virtue, a Discipline, Humanity."""
    return isinstance(code, (Attribute, Ability, Virtue, Discipline)) or code is Stat.HUMANITY


def wizard_pool(
    sheet: Sheet | None, roller: rolling.Roller, profile: Profile, state: WizardState
) -> rolling.Pool | str | None:
    """The wizard's pool through the one road (§A.2 traits, §B.9 wounds, §B.8 conditions), the
    reason there is none, or None while nothing is chosen."""
    try:
        if state.traits:
            ask = rolling.PoolAsk(traits="+".join(state.traits), modifier=state.modifier)
            return rolling.pool_of(sheet, roller, profile, ask)
        if state.pool is not None:
            return rolling.pool_of(sheet, roller, profile, rolling.PoolAsk(dice=state.pool))
    except rolling.PoolRefused as refused:
        return refused.text
    return None


def _pool(state: WizardState, x: int, profile: Profile) -> WizardState:
    if x not in view.WIZARD_POOLS or x > profile.pool_sanity_max:
        raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
    return state.model_copy(update={"pool": x, "traits": ()})


def _trait(state: WizardState, x: int, profile: Profile) -> WizardState:
    codes = catalogue(system_of(profile))
    if not 0 <= x < len(codes) or not wizard_trait(codes[x]):
        raise RulesInputError(ErrorCode.RANGE, "trait", str(x))
    code = codes[x].value
    if code in state.traits:
        traits = tuple(t for t in state.traits if t != code)
    else:  # a third trait replaces the last one (S0: at most two, an Attribute + an Ability)
        traits = (*state.traits[: profile.max_traits_per_pool - 1], code)
    return state.model_copy(update={"traits": traits, "pool": None})


def _recent(state: WizardState, x: int, profile: Profile) -> WizardState:
    if not 0 <= x < len(state.recent):
        raise RulesInputError(ErrorCode.RANGE, "recent", str(x))
    return state.model_copy(update={"traits": tuple(state.recent[x].split("+")), "pool": None})


def _modifier(state: WizardState, x: int, profile: Profile) -> WizardState:
    if x - MODIFIER_SHIFT not in view.WIZARD_MODIFIERS:
        raise RulesInputError(ErrorCode.RANGE, "modifier", str(x))
    return state.model_copy(update={"modifier": x - MODIFIER_SHIFT})


def _difficulty(state: WizardState, x: int, profile: Profile) -> WizardState:
    return state.model_copy(update={"difficulty": check_base(x, profile)})


def _willpower(state: WizardState, x: int, profile: Profile) -> WizardState:
    if not profile.wp_auto_success or not state.willpower_offered:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "willpower")
    return state.model_copy(update={"willpower": not state.willpower})


def _rolled(
    state: WizardState, data: RollCallback, actor: Actor, known: Known[WizardRead], rng: Rng | None
) -> Outcome[WizardState]:
    return _roll(state, actor, known, rng)


def _automatic(
    state: WizardState, data: RollCallback, actor: Actor, known: Known[WizardRead], rng: Rng | None
) -> Outcome[WizardState]:
    return _auto(state, actor, known)


def _profile(state: WizardState, known: Known[WizardRead]) -> Profile:
    return known.profile


# The /r wizard on the one wizard machinery (bot/wizard.py): its choices consult the profile.
WIZARD: Wizard[WizardState, RollCallback, WizardRead, Profile] = Wizard(
    choices=Choices(
        {
            RollAction.POOL: _pool,
            RollAction.TRAIT: _trait,
            RollAction.RECENT: _recent,
            RollAction.MODIFIER: _modifier,
            RollAction.DIFFICULTY: _difficulty,
            RollAction.WILLPOWER: _willpower,
        }
    ),
    ends={RollAction.ROLL: _rolled, RollAction.AUTO: _automatic},
    seen=_profile,
)
WIZARD_ACTIONS = frozenset({*WIZARD.choices.picks, *WIZARD.ends})


def wizard_step(
    state: WizardState,
    data: RollCallback,
    actor: Actor,
    known: Known[WizardRead],
    rng: Rng | None,
) -> Outcome[WizardState]:
    return WIZARD.step(state, data, actor, known, rng)


def _roller(known: Known[WizardRead], name: str) -> rolling.Roller:
    return rolling.Roller(known.flow.chat_id, known.flow.owner_id, name)


def _roll(
    state: WizardState, actor: Actor, known: Known[WizardRead], rng: Rng | None
) -> Outcome[WizardState]:
    """«Бросить»: the dice fall here; the wizard closes and its message becomes the result."""
    profile, sheet = known.profile, known.read.sheet
    resolved = wizard_pool(sheet, _roller(known, actor.name), profile, state)
    if isinstance(resolved, str):
        return refuse(partial(render.plain, resolved))
    if resolved is None:
        raise RulesInputError(ErrorCode.STATE, "pool", "not chosen")
    harder = resolved.difficulty(check_base(state.difficulty, profile), profile, 0)
    record = RollRecord(
        pool=resolved.dice,
        base=harder.difficulty,
        willpower=state.willpower,
        threshold=harder.threshold,
        source=resolved.source,
        traits=resolved.traits,
    )
    result = rolling.roll_d10(
        record.pool,
        record.base,
        profile,
        willpower=record.willpower,
        threshold=record.threshold,
        rng=rng,
    )
    left = rolling.willpower_left(sheet) if profile.system is GameSystem.D10 else None
    if record.willpower and left is not None and left[0] < 1:
        return refuse(partial(rolling.no_willpower_text, left[1]))
    turn = known.read.turn
    if record.willpower and turn is not None and turn.spent:
        return refuse(partial(rolling.willpower_spent_text, actor.name, turn.round_no))
    return HandOver(result_into(_roller(known, actor.name), record, result, profile, left, turn))


def _auto(state: WizardState, actor: Actor, known: Known[WizardRead]) -> Outcome[WizardState]:
    """§A.6: no dice; the pool reaching the difficulty is one (marginal) success. Where the
    table's variant makes it cost a Willpower point (S1, ``auto_success_costs_wp``), the point
    leaves the sheet in the same step, and a sheet with none left cannot take it. The pool is
    the one the wizard shows — typed or built from the sheet's traits, less the wounds."""
    profile, sheet = known.profile, known.read.sheet
    resolved = wizard_pool(sheet, _roller(known, actor.name), profile, state)
    if not isinstance(resolved, rolling.Pool) or not auto_success_offered(
        resolved.dice, state.difficulty, profile, fighting=known.read.fighting
    ):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "auto_success")
    pool = resolved.dice
    left = rolling.willpower_left(sheet) if profile.system is GameSystem.D10 else None
    try:
        found = auto_success(
            pool,
            state.difficulty,
            profile,
            RollContext.NORMAL,
            wp_current=1 if left is None else left[0],  # an untracked sheet: on trust
        )
    except RulesInputError as error:
        if error.code is not ErrorCode.WP_UNAVAILABLE:
            raise
        return refuse(partial(rolling.no_willpower_text, left[1] if left else 0))
    if found.degree is None:
        raise RulesInputError(ErrorCode.STATE, "auto_success")
    owner = known.flow.owner_id
    entry = rolling.auto_success_entry(owner, actor.name, pool, state.difficulty, found.successes)
    done = AutoDone(
        pool=pool,
        difficulty=state.difficulty,
        roller=actor.name,
        degree=found.degree,
        source=resolved.source,
    )
    spend = rolling.spend(_roller(known, actor.name), profile, willpower=True)
    if found.wp_delta < 0 and left is not None and spend is not None:
        done = done.model_copy(update={"willpower_left": (left[0] - 1, left[1])})
        after = state.model_copy(update={"done": done})
        return Advance(
            state=after,
            close=True,
            entries=(entry,),
            spends=(replace(spend, change=partial(_one_point_of, left[0])),),
            unpaid=partial(rolling.no_willpower_text, left[1]),
        )
    return Advance(state=state.model_copy(update={"done": done}), close=True, entries=(entry,))


def _one_point_of(seen: int | None, sheet: Sheet) -> Sheet | None:
    """§A.7's point off the sheet the step read (its Willpower is what the message will say
    is left; None: the step read none tracked); a sheet that moved since runs the press
    again."""
    if sheet.willpower is None and seen is None:
        return None
    if sheet.willpower is None or (sheet.willpower_current or 0) != seen:
        raise SheetMoved
    return spend_willpower(sheet)


def trait_buttons(sheet: Sheet | None, state: WizardState) -> list[view.TraitButton]:
    """§A.2 on buttons: the sheet's Attributes, then its highest Abilities, then (Dark Ages)
    its Virtues, Humanity and Disciplines; the pool is their sum, so the player never adds
    ratings in their head."""
    if sheet is None:
        return []
    codes = catalogue(sheet.system)
    rated = [(c, sheet.rating(c)) for c in codes if wizard_trait(c)]
    attributes = [(c, r) for c, r in rated if isinstance(c, Attribute) and r is not None]
    abilities = sorted(
        ((c, r) for c, r in rated if isinstance(c, Ability) and r),
        key=lambda pair: -(pair[1] or 0),
    )[: max(0, view.WIZARD_TRAITS_MAX - len(attributes))]
    vampire = [(c, r) for c, r in rated if not isinstance(c, (Attribute, Ability)) and r]
    lang = sheet_text.lang_of(get_i18n().current_locale)
    return [
        view.TraitButton(
            index=codes.index(code),
            text=f"{display_name(code, lang, sheet.system)} {rating}",
            chosen=code.value in state.traits,
        )
        for code, rating in attributes + abilities + vampire
    ]


def recent_buttons(sheet: Sheet | None, state: WizardState) -> list[str]:
    """The player's latest sheet pools as they read («Ловкость + Драка»): one tap to a pool
    rolled before, the wizard's shortest road to a roll with Willpower (three taps)."""
    if sheet is None:
        return []
    lang = sheet_text.lang_of(get_i18n().current_locale)
    shown: list[str] = []
    for expression in state.recent:
        try:
            codes = [trait_code(c, sheet.system) for c in expression.split("+")]
        except RulesInputError:
            shown.append(expression)
            continue
        shown.append(" + ".join(display_name(c, lang, sheet.system) for c in codes))
    return shown


def wizard_view(
    flow: Flow,
    state: WizardState,
    profile: Profile,
    sheet: Sheet | None,
    resolved: rolling.Pool | str | None,
    *,
    fighting: bool = False,
) -> tuple[str, InlineKeyboardMarkup]:
    chances = None
    offered = False
    pool = resolved.dice if isinstance(resolved, rolling.Pool) else None
    if pool is not None:
        chances = probability.d10(
            pool=pool,
            difficulty=state.difficulty,
            profile=profile,
            willpower=state.willpower,
        )
        offered = auto_success_offered(pool, state.difficulty, profile, fighting=fighting)
    traits = trait_buttons(sheet, state)
    recent = recent_buttons(sheet, state)
    text = view.wizard_text(
        pool=pool,
        difficulty=state.difficulty,
        willpower=state.willpower,
        profile=profile,
        chances=chances,
        source=resolved.source if isinstance(resolved, rolling.Pool) else None,
        problem=resolved if isinstance(resolved, str) else None,
        from_sheet=bool(traits),
    )
    extras = view.WizardExtras(
        traits=traits, recent=recent, auto_success=offered, ready=pool is not None
    )
    return text, view.wizard_keyboard(flow, state, profile, extras)


def draw_wizard(flow: Flow, state: WizardState, known: Known[WizardRead]) -> Drawn:
    """The wizard as its choices stand, or the automatic success it ended with."""
    done, profile = state.done, known.profile
    if done is not None:
        text = view.auto_success_text(
            pool=done.pool,
            difficulty=done.difficulty,
            roller=done.roller,
            profile=profile,
            degree=done.degree,
            willpower_left=done.willpower_left,
            source=done.source,
        )
        return text, None
    sheet = known.read.sheet
    resolved = wizard_pool(sheet, _roller(known, known.read.name), profile, state)
    return wizard_view(flow, state, profile, sheet, resolved, fighting=known.read.fighting)


async def read_wizard(reading: Reading[WizardState, RollCallback]) -> WizardRead:
    flow, name = reading.flow, reading.presser.first_name
    assert reading.profile is not None  # the runner always hands the chat's profile
    profile = reading.profile
    who = rolling.Roller(flow.chat_id, flow.owner_id, name)
    sheet = await rolling.load_sheet(reading.store, who, profile)
    fighting = await fighting_in(reading.store, flow.chat_id)
    turn = None
    if fighting and reading.state.willpower and reading.action.a is RollAction.ROLL:
        turn = await read_willpower_turn(reading.store, flow.chat_id, flow.owner_id, None)
    return WizardRead(sheet, name, fighting, turn)


# --- A result's buttons -------------------------------------------------------------------


class NoWillpower(Exception):
    """The sheet has no Willpower left for a roll that spends it (§A.7)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def failed(result: d10.D10Result) -> bool:
    return result.outcome in (d10.Outcome.FAILURE, d10.Outcome.BOTCH)


async def store_result(
    store: Store, who: rolling.Roller, record: RollRecord, result: d10.D10Result, profile: Profile
) -> Drawn:
    """Log the roll and open the flow behind the buttons under it (one round-trip).

    A roll that spends Willpower takes the point off the player's sheet in the same
    transaction (:meth:`Store.create_flow_spending`); with no points left it raises
    :class:`NoWillpower` and nothing is written."""
    entry = _log_entry(who, record, result)
    kept = record.model_copy(update={"result": result})
    left: tuple[int, int] | None = None
    if result.willpower and profile.system is GameSystem.D10:
        flow, left = await _store_paying(store, who, kept, entry, profile)
    else:
        flow = await store.create_flow(kept, who.chat_id, who.user_id, entries=[entry])
    return _drawn(who, record, result, profile, left, flow)


def _log_entry(who: rolling.Roller, record: RollRecord, result: d10.D10Result) -> LogEntry:
    return rolling.log_entry(
        who.user_id, who.name, record.pool, result, attempt=record.attempt, traits=record.traits
    )


def _drawn(
    who: rolling.Roller,
    record: RollRecord,
    result: d10.D10Result,
    profile: Profile,
    left: tuple[int, int] | None,
    flow: Flow,
) -> Drawn:
    """The result's message: its text (``left``: the roller's Willpower after it, when it
    spent a point) and the buttons of its flow."""
    text = render.roll_result_text(
        result,
        pool=record.pool,
        roller=who.name,
        profile=profile,
        attempt=record.attempt,
        source=record.source,
        willpower_left=left,
    )
    return text, view.result_keyboard(flow.id, flow.version, retry=failed(result))


async def _store_paying(
    store: Store, who: rolling.Roller, kept: RollRecord, entry: LogEntry, profile: Profile
) -> tuple[Flow, tuple[int, int] | None]:
    """The result's flow, its log line and the point of Willpower off the sheet in one
    transaction, with the fight's mark of the point on the round (docs/rules.md §A.7, once a
    turn): a second point in the same round of a fight is refused and nothing is written; a
    tracker moved meanwhile is read again."""
    spend = rolling.spend(who, profile, willpower=True)
    assert spend is not None
    for _attempt in range(CONFLICT_ATTEMPTS):
        turn = await read_willpower_turn(store, who.chat_id, who.user_id, who.npc)
        if turn is not None and turn.spent:
            raise NoWillpower(rolling.willpower_spent_text(who.name, turn.round_no))
        mark = turn.mark.step if turn is not None and turn.mark is not None else None
        try:
            flow, sheet = await store.create_flow_spending(
                kept, who.chat_id, who.user_id, spend, entries=[entry], also=mark
            )
        except AlsoMoved:
            continue
        except RulesInputError as error:
            if error.code is not ErrorCode.WP_UNAVAILABLE:
                raise
            known = await rolling.willpower_on_sheet(store, who.chat_id, who.user_id, profile)
            raise NoWillpower(rolling.no_willpower_text(known[1] if known else 0)) from None
        return flow, rolling.willpower_left(sheet)
    raise NoWillpower(render.busy_text())


def result_into(
    who: rolling.Roller,
    record: RollRecord,
    result: d10.D10Result,
    profile: Profile,
    left: tuple[int, int] | None,
    turn: WillpowerTurn | None,
    *,
    below: bool = False,
) -> Into:
    """A roll the step made, as the result's flow the press opens (drawn into the message,
    or ``below`` it) with its log line and, for a roll on Willpower, the point off the sheet
    as the step read it (``left``: its (current, permanent) Willpower, None: not tracked)
    and the fight's mark of it on the round (``turn``): the pressed flow's close and all of
    it are one write, so a lost race shows nothing and a sheet out of points stores
    nothing."""
    entry = _log_entry(who, record, result)
    spend = rolling.spend(who, profile, willpower=result.willpower)
    shown = (left[0] - 1, left[1]) if spend is not None and left is not None else None
    draw = partial(_drawn, who, record, result, profile, shown)

    seen = left[0] if left is not None else None
    paid = replace(spend, change=partial(_one_point_of, seen)) if spend is not None else None
    return Into(
        record.model_copy(update={"result": result}),
        draw,
        entries=(entry,),
        below=below,
        spends=(paid,) if paid is not None else (),
        also=turn.mark if spend is not None and turn is not None else None,
        unpaid=partial(rolling.no_willpower_text, left[1] if left else 0),
    )


def result_step(
    record: RollRecord,
    data: RollCallback,
    actor: Actor,
    known: Known[ResultRead],
    rng: Rng | None,
) -> Outcome[RollRecord]:
    if data.a is RollAction.RETRY:
        return _retry(record, actor, known, rng)
    if data.a is not RollAction.EXTEND:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "action", data.a.value)
    if record.result is None:
        raise RulesInputError(ErrorCode.STATE, "result", "no roll to extend")
    if data.x == 0:  # «Продлить»: first the targets, under the same result
        after = record.model_copy(update={"asking": True})
        return Advance(state=after, keyboard_only=True, answer=table_text.extend_prompt_text)
    if known.features is None:
        raise RulesInputError(ErrorCode.STATE, "extend", "no extended action here")
    request = ExtendRequest(
        roller=actor.name,
        pool=record.pool,
        difficulty=record.base,
        target=data.x,
        first=record.result,
    )
    opening = known.features.handoff(EXTEND_ROLL)(request, known.profile)
    return HandOver(opening.into)


def _retry(
    record: RollRecord, actor: Actor, known: Known[ResultRead], rng: Rng | None
) -> Outcome[RollRecord]:
    """«Ещё раз»: §A.10's next attempt, posted as a new message; the old button goes away."""
    if record.result is not None and not failed(record.result):
        raise RulesInputError(ErrorCode.STATE, "action", "a success is not retried")
    profile = known.profile
    attempt = record.attempt + 1
    harder = retry_difficulty(record.base, attempt, profile)
    result = rolling.roll_d10(
        record.pool,
        harder.difficulty,
        profile,
        willpower=record.willpower,
        threshold=record.threshold + harder.threshold,
        rng=rng,
    )
    left = known.read.willpower
    if record.willpower and left is not None and left[0] < 1:
        return refuse(partial(rolling.no_willpower_text, left[1]))
    turn = known.read.turn
    if record.willpower and turn is not None and turn.spent:
        return refuse(partial(rolling.willpower_spent_text, actor.name, turn.round_no))
    who = rolling.Roller(known.flow.chat_id, known.flow.owner_id, actor.name, npc=record.npc)
    again = record.model_copy(update={"attempt": attempt})
    return HandOver(result_into(who, again, result, profile, left, turn, below=True))


def draw_result(flow: Flow, record: RollRecord, known: Known[ResultRead]) -> Drawn:
    """The result as shown, with «Ещё раз»/«Продлить», the extended targets, or no buttons."""
    if flow.closed:
        return known.read.text, None
    if record.asking:
        return known.read.text, view.extend_targets_keyboard(flow.id, flow.version)
    retry = record.result is None or failed(record.result)
    return known.read.text, view.result_keyboard(flow.id, flow.version, retry=retry)


async def read_result(reading: Reading[RollRecord, RollCallback]) -> ResultRead:
    flow, message = reading.flow, reading.message
    assert reading.profile is not None  # the runner always hands the chat's profile
    profile = reading.profile
    left, turn = None, None
    if reading.action.a is RollAction.RETRY and reading.state.willpower:  # only it may pay
        npc = reading.state.npc
        if profile.system is GameSystem.D10:  # the sheet the point leaves: an NPC's, if theirs
            who = rolling.Roller(flow.chat_id, flow.owner_id, "", npc=npc)
            left = rolling.willpower_left(await rolling.load_sheet(reading.store, who, profile))
        turn = await read_willpower_turn(reading.store, flow.chat_id, flow.owner_id, npc)
    return ResultRead(message.html_text if message.text is not None else "", left, turn)


WIZARD_TAP: Tap[WizardState, RollCallback, WizardRead] = Tap(
    model=WizardState,
    callback=RollCallback,
    step=wizard_step,
    view=draw_wizard,
    who=Who.OWNER,
    wrong_system=render.d6_unsupported_text,
    current_only=True,
    read=read_wizard,
    only=F.a.in_(WIZARD_ACTIONS),
)

RESULT_TAP: Tap[RollRecord, RollCallback, ResultRead] = Tap(
    model=RollRecord,
    callback=RollCallback,
    step=result_step,
    view=draw_result,
    who=Who.OWNER,
    wrong_system=render.d6_unsupported_text,
    current_only=True,
    read=read_result,
    only=~F.a.in_(WIZARD_ACTIONS),
)
