"""``/m``: casting an Effect in chat (docs/rules.md §C.1–§C.12), typed in one line or on buttons.

The Arete roll is ``rules.magick.cast``: difficulty from the highest Sphere, vulgar or not,
witnesses and the capped modifiers with Quintessence (§C.2–§C.4), Arete less wounds
(AMB-C5), Paradox by the two tables (§C.10). What the cast costs and earns — Quintessence
spent, Paradox on the wheel burning what it needs (§C.11), a Willpower point — is written
to the sheet in the same transaction as the flow and the log line: the sheet is changed
only as it was read when the dice were rolled, so a concurrent change makes the cast start
over rather than land on a sheet it was not computed for, and a double tap spends once.
«Отдача» (§C.12) rolls all the Paradox, discharges the successes, and puts the damage on
the caster's health track (soaked where the tier allows), in one transaction too.
Under the cast the caster spreads the successes and settles the Effect's terms — the mage
among the targets, a permanent Effect, the Correspondence link (§C.7, §C.8) — and the
Storyteller may name the successes it needs (§C.6); each reads the table's house rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import InlineKeyboardMarkup, Message, User
from aiogram.utils.i18n.context import get_i18n

from bot import combat as bot_combat
from bot import render, rolling, runner
from bot.access import runs_game
from bot.names import roller_name
from bot.runner import SheetMoved as _SheetMoved
from bot.runner import spending
from bot.wizard import Choices
from handlers.magick import view
from handlers.magick.callbacks import (
    MagickAction,
    MagickCallback,
    SphereCallback,
)
from handlers.magick.flow import (
    ABANDONED_KIND,
    EXTEND_TARGETS,
    KIND,
    LEVELS,
    MODIFIER_CAP,
    NAMED_MODIFIERS,
    PANELS,
    PARTS,
    BarrierFlow,
    EffectFlow,
    Panel,
    Stage,
    conditions_difficulty,
)
from handlers.magick.tap import BARRIER, barrier_pool, no_barrier_dice
from handlers.magick.tap import only_if as _only_if
from rules import combat, magick
from rules.d10 import Outcome
from rules.dice import Rng, roll_faces
from rules.errors import ErrorCode, RulesInputError
from rules.health import apply_damage, wound_penalty
from rules.profiles import Profile
from rules.sheet import (
    Attribute,
    Sheet,
    SheetSystem,
    add_paradox,
    remove_paradox,
    set_health,
    spend_quintessence,
    spend_willpower,
    system_of,
)
from rules.spheres import Sphere
from table.parsing import ArgumentsError, MagickArguments, parse_magick_arguments, tokenize
from table.store import AlsoMoved, AlsoStep, Flow, LogEntry, SheetSpend, Store
from table.traits import TraitNameError, resolve

SHEET_RETRIES = 8


def make_router() -> Router:
    router = Router(name="magick")
    router.message.register(m_command, Command("m", "magick"))
    router.message.register(sphere_command, Command("sphere", "spheres"))
    runner.register(router, EFFECT)
    runner.register(router, SPHERE_TAP)
    router.message.register(barrier_command, Command("barrier"))
    runner.register(router, BARRIER)
    return router


def _locale() -> str:
    return get_i18n().current_locale


async def sphere_command(message: Message, command: CommandObject) -> None:
    """``/sphere`` the nine Spheres, ``/sphere материя`` one, ``/sphere материя 3`` a card."""
    words = tokenize(command.args)
    level = 0
    if words and words[-1].isascii() and words[-1].isdigit() and len(words[-1]) == 1:
        level = int(words.pop())
    found: Sphere | None = None
    if words:
        try:
            code = resolve(" ".join(words), SheetSystem.MAGE)
        except TraitNameError:
            code = None
        if not isinstance(code, Sphere):
            await message.answer(view.no_sphere_text(" ".join(words)))
            return
        found = code
    if not 0 <= level <= 5 or (found is None and level):
        level = 0
    text, markup = view.sphere_card(found, level, _locale())
    await message.answer(text, reply_markup=markup)


Card = tuple[Sphere | None, int]


async def load_card(pressed: runner.Pressed[SphereCallback]) -> Card | runner.Refuse:
    """A reference card has no state behind it: the button names it whole (§C.16)."""
    data = pressed.data
    try:
        found = Sphere(data.s) if data.s else None
    except ValueError:
        return runner.refuse(render.invalid_button_text)
    return found, data.n


def card_step(
    card: Card, data: SphereCallback, actor: runner.Actor, seen: runner.Seen[None]
) -> runner.Keep:
    """Any press of any copy opens the card it names; a level no card has is invalid."""
    found, level = card
    if not 0 <= level <= 5 or (found is None and level):
        raise RulesInputError(ErrorCode.RANGE, "level", str(level))
    return runner.Keep()


def card_view(card: Card, data: SphereCallback, seen: runner.Seen[None]) -> runner.Drawn:
    found, level = card
    return view.sphere_card(found, level, _locale())


SPHERE_TAP: runner.RecordTap[Card, SphereCallback, None] = runner.RecordTap(
    name="sphere", callback=SphereCallback, load=load_card, step=card_step, view=card_view
)


class _Refused(Exception):
    def __init__(self, text: str) -> None:
        self.text = text


async def _caster(message: Message, store: Store) -> tuple[User, Sheet] | None:
    """The mage who typed the command and their sheet with Arete, or None once the refusal
    is answered (a post on behalf of a chat has no sheet; a sheet without Arete cannot cast)."""
    user = message.from_user
    if user is None or message.sender_chat is not None:
        await message.answer(view.usage_text())
        return None
    sheet = await store.load_sheet(message.chat.id, user.id, SheetSystem.MAGE)
    if sheet is None or sheet.arete is None:
        await message.answer(view.no_arete_text())
        return None
    return user, sheet


def _mage(profile: Profile) -> bool:
    return system_of(profile) is SheetSystem.MAGE


async def m_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    if not _mage(profile):
        await message.answer(view.not_mage_text())
        return
    typed = (command.args or "").strip()
    try:
        args = parse_magick_arguments(typed) if typed else None
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    found = await _caster(message, store)
    if found is None:
        return
    user, sheet = found
    # A fight on in the chat makes durations count in turns (§C.7, S4 «в бою»).
    fighting = await bot_combat.fighting(store, message.chat.id)
    state = EffectFlow(
        caster=roller_name(message, user),
        user_id=user.id,
        arete=sheet.arete,
        held=sheet.quintessence,
        wound_penalty=-wound_penalty(sheet.health).penalty,
        condition_difficulty=conditions_difficulty(sheet),
        in_combat=fighting,
    )
    if args is None:
        flow = await store.create_flow(state, message.chat.id, user.id)
        text, markup = view.draw(flow, state, profile)
        await message.answer(text, reply_markup=markup)
        return
    typed_state = _typed(args, state, sheet, profile)
    if isinstance(typed_state, str):
        await message.answer(typed_state)
        return
    await _cast_typed(message, store, profile, typed_state, sheet, user.id, rng)


def _typed(
    args: MagickArguments, state: EffectFlow, sheet: Sheet, profile: Profile
) -> EffectFlow | str:
    """The Effect as typed after ``/m``, or the refusal to answer with."""
    level = args.level
    if args.sphere is not None:
        reached = _sphere_reached(args.sphere, level, state, sheet)
        if isinstance(reached, str):
            return reached
        state, level = reached
    if level is None or level not in LEVELS:
        return view.usage_text()
    cap = max(MODIFIER_CAP, profile.magick.modifier_cap)
    return state.model_copy(
        update={
            "level": level,
            "vulgar": args.vulgar,
            "witnesses": args.witnesses,
            "quintessence": args.quintessence,
            # the buttons' range, or the table's wider cap when typed (§C.3)
            "modifier": max(-cap, min(cap, args.modifier)),
            "willpower": args.willpower,
            "target": args.target,
            # a ritual's target is the successes its Effect needs (§C.6, §C.10)
            "magnitude": args.target or 1,
        }
    )


def _sphere_reached(
    typed: str, level: int | None, state: EffectFlow, sheet: Sheet
) -> tuple[EffectFlow, int] | str:
    """§C.1: a mage casts only what their Spheres reach; a typed level above the sheet's is
    refused, not cast. No level typed means the sheet's."""
    try:
        code = resolve(typed, SheetSystem.MAGE)
    except TraitNameError:
        code = None
    if not isinstance(code, Sphere):
        return view.no_sphere_text(typed)
    known = sheet.spheres.get(code.value) or 0
    level = level or known
    if not known:
        return view.no_sphere_on_sheet_text(typed)
    if level > known:
        return view.sphere_too_low_text(typed, known, level)
    return state.model_copy(update={"sphere": code}), level


async def _cast_typed(
    message: Message,
    store: Store,
    profile: Profile,
    state: EffectFlow,
    sheet: Sheet,
    user_id: int,
    rng: Rng | None,
) -> None:
    """The typed Effect is rolled at once and its cost paid with the message that shows it;
    a point of Willpower in a fight is marked on the round in the same transaction (§A.7,
    once a turn)."""
    for _attempt in range(SHEET_RETRIES):
        try:
            turn = await _turn(store, message.chat.id, state, sheet)
            also = _marked(state, turn)
            after, before, changed = _cast(state, sheet, profile, rng)
            entries = effect_entries(after)
            spend = SheetSpend(user_id, SheetSystem.MAGE, _only_if(before, changed))
            flow, _stored = await store.create_flow_spending(
                after, message.chat.id, user_id, spend, entries=entries, also=also
            )
        except _Refused as refused:
            await message.answer(refused.text)
            return
        except AlsoMoved:
            continue
        except _SheetMoved:
            reread = await store.load_sheet(message.chat.id, user_id, SheetSystem.MAGE)
            if reread is None:
                break
            sheet = reread
            state = state.model_copy(update={"held": sheet.quintessence})
            continue
        text, markup = view.draw(flow, after, profile)
        await message.answer(text, reply_markup=markup)
        return
    await message.answer(render.busy_text())


def effect_entries(state: EffectFlow) -> list[LogEntry]:
    """The roll's log line with what it cost and earned (the chronicle tells them): the
    Quintessence is paid on a ritual's first roll only, its Paradox on the roll that ends it
    (``state.paradox`` is what this roll earned), so a ritual's lines add up to its cost."""
    if state.result is None:
        return []
    entry = rolling.log_entry(state.user_id, state.caster, state.pool, state.result, KIND)
    spent = max(0, state.quintessence - state.kept) if state.rolls <= 1 else 0
    return [
        entry.model_copy(update={"quintessence": spent or None, "paradox": state.paradox or None})
    ]


def abandoned_entries(state: EffectFlow) -> list[LogEntry]:
    """A ritual given up before its target: no dice, but its end earns Paradox (§C.10), and
    the log, ``/log`` and the chronicle tell it as they tell a ritual's last roll."""
    return [
        LogEntry(
            user_id=state.user_id,
            name=state.caster,
            kind=ABANDONED_KIND,
            paradox=state.paradox or None,
        )
    ]


def _cast(
    state: EffectFlow, sheet: Sheet, profile: Profile, rng: Rng | None
) -> tuple[EffectFlow, Sheet, Sheet]:
    """The Arete roll and what it does to the sheet: (the cast, the sheet it was computed
    from, the sheet after). Refuses what the sheet cannot pay.

    A ritual (``target``) gathers successes roll by roll (§C.10): Quintessence and Willpower
    are paid on its first roll, and lower the difficulty of all of them; Paradox comes when
    it ends — by the table once the target is reached, and on a botch by the table plus one
    for every roll made (AMB-C11), the gathered successes lost."""
    first = state.rolls == 0
    held = sheet.quintessence
    _check_first_costs(state, sheet, profile, first)
    penalty = -wound_penalty(sheet.health).penalty
    current = state.model_copy(
        update={
            "held": held,
            "wound_penalty": penalty,
            "condition_difficulty": conditions_difficulty(sheet),
        }
    )
    if first and current.quintessence:
        current = _keep_idle_quintessence(current, profile)
    try:
        spell = magick.Spell(
            sheet.arete or 1,
            current.level,
            current.vulgar,
            current.witnesses,
            current.modifier_items(),
            current.quintessence,
            quintessence_available=held if first else None,
            willpower=current.willpower,
            wound_penalty=min(penalty, magick.ARETE_MAX),
            condition_difficulty=current.condition_difficulty,
            ritual_rolls=current.rolls + 1 if current.target is not None else 0,
        )
        casting = magick.cast(spell, rng=rng, profile=profile)
    except RulesInputError:
        raise _Refused(view.not_enough_quintessence_text(held, profile)) from None
    if casting.status is magick.CastStatus.IMPOSSIBLE:
        raise _Refused(view.wizard_text(current, profile))
    stage, paradox, gathered = _ritual_progress(current, casting)
    after, left = _sheet_after_cast(current, sheet, paradox, profile, first)
    cast = current.model_copy(
        update={
            "stage": stage,
            "pool": casting.pool,
            "result": casting.roll,
            "wasted": casting.difficulty.wasted_quintessence,
            "paradox": paradox,
            "wheel": (after.quintessence, after.paradox),
            "willpower_left": left,
            "gathered": gathered,
            "rolls": current.rolls + 1,
        }
    )
    return cast, sheet, after


def _pays_willpower(state: EffectFlow, sheet: Sheet | None) -> bool:
    """Whether this roll of the Effect takes a point of Willpower off the sheet: its first,
    with the point chosen, on a sheet that tracks Willpower."""
    return (
        state.rolls == 0
        and state.willpower
        and sheet is not None
        and sheet.willpower_current is not None
    )


async def _turn(
    store: Store, chat_id: int, state: EffectFlow, sheet: Sheet | None
) -> bot_combat.WillpowerTurn | None:
    """The caster's turn in the chat's fight, read only for a roll that pays Willpower."""
    if not _pays_willpower(state, sheet):
        return None
    return await bot_combat.read_willpower_turn(store, chat_id, state.user_id, None)


def _marked(state: EffectFlow, turn: bot_combat.WillpowerTurn | None) -> AlsoStep | None:
    """The round's mark of the caster's point of Willpower, stored with the cast; a second
    point in the same turn of a fight is refused (§A.7 S0 «только один раз за ход»)."""
    if turn is None:
        return None
    if turn.spent:
        raise _Refused(rolling.willpower_spent_text(state.caster, turn.round_no))
    return turn.mark.step if turn.mark is not None else None


def _check_first_costs(state: EffectFlow, sheet: Sheet, profile: Profile, first: bool) -> None:
    """Quintessence and Willpower are paid on the first roll: refuse what the sheet lacks."""
    if not first:
        return
    held = sheet.quintessence
    if state.quintessence > min(held, profile.magick.quintessence_max_per_roll):
        raise _Refused(view.not_enough_quintessence_text(held, profile))
    if state.willpower and sheet.willpower_current == 0:
        raise _Refused(rolling.no_willpower_text(sheet.willpower or 0))


def _keep_idle_quintessence(current: EffectFlow, profile: Profile) -> EffectFlow:
    """A point that cannot lower a difficulty already at its floor is not taken (§C.4)."""
    try:
        idle = current.difficulty(profile).floor_quintessence
    except RulesInputError:
        idle = 0
    if not idle:
        return current
    return current.model_copy(update={"quintessence": current.quintessence - idle, "kept": idle})


def _ritual_progress(current: EffectFlow, casting: magick.Casting) -> tuple[Stage, int, int]:
    """The stage after this roll, the Paradox it earns now and the successes gathered."""
    stage, paradox, gathered = Stage.CAST, casting.paradox, 0
    if current.target is None or casting.roll is None:
        return stage, paradox, gathered
    botched = casting.roll.outcome is Outcome.BOTCH
    gathered = 0 if botched else current.gathered + max(0, casting.roll.successes)
    if not botched and gathered < current.target:
        return Stage.RITUAL, 0, gathered  # the Paradox waits for the ritual's end
    # a cast turned ritual already paid some of it
    return stage, max(0, paradox - current.prepaid), gathered


def _sheet_after_cast(
    current: EffectFlow, sheet: Sheet, paradox: int, profile: Profile, first: bool
) -> tuple[Sheet, tuple[int, int] | None]:
    """The sheet after the cast's costs, and the Willpower left to show."""
    after = sheet
    if first and current.quintessence:
        after = spend_quintessence(after, current.quintessence, profile)
    if paradox:
        after = add_paradox(after, paradox, profile)
    left = current.willpower_left
    if first and current.willpower and after.willpower_current is not None:
        after = spend_willpower(after)
        left = rolling.willpower_left(after)
    return after, left


def _abandon(state: EffectFlow, sheet: Sheet, profile: Profile) -> tuple[EffectFlow, Sheet]:
    """A ritual given up before its target: it failed, and a failed Effect earns the
    failure row of the Paradox table (§C.10)."""
    gain = magick.paradox_gain(
        state.level, state.vulgar, state.witnesses, Outcome.FAILURE, profile=profile
    )
    gain = max(0, gain - state.prepaid)
    after = add_paradox(sheet, gain, profile) if gain else sheet
    done = state.model_copy(
        update={
            "stage": Stage.CAST,
            "abandoned": True,
            "paradox": gain,
            "wheel": (after.quintessence, after.paradox),
        }
    )
    return done, after


def _backlash(
    state: EffectFlow, sheet: Sheet, profile: Profile, rng: Rng | None
) -> tuple[EffectFlow, Sheet]:
    """§C.12: the whole Paradox pool at difficulty 6; the successes leave the wheel; the
    tier's damage (difficulty 6), soaked by Stamina where the tier lets it (§B.10)."""
    if sheet.paradox <= 0:
        raise _Refused(view.no_paradox_text())
    rolled = magick.backlash(min(sheet.paradox, magick.MAX_PARADOX_POOL), rng=rng, profile=profile)
    effects = rolled.effects
    after = remove_paradox(sheet, rolled.successes)
    update: dict[str, object] = {
        "stage": Stage.BACKLASH,
        "backlash": rolled,
        "wheel": (after.quintessence, after.paradox),
    }
    kind = effects.damage_type
    if kind is not None and effects.damage_dice > 0:
        faces = roll_faces(effects.damage_dice, 10, rng)
        damage = combat.tally(faces, effects.damage_difficulty)
        soak = None
        if effects.soakable:
            stamina = sheet.rating(Attribute.STAMINA) or 0
            target = combat.Target(stamina=stamina, track=sheet.health)
            dice = combat.soak_pool(target, kind, profile.combat)
            soak = combat.roll_soak(dice, profile.combat, rng=rng) if dice else None
        levels = max(0, damage.successes - (soak.successes if soak is not None else 0))
        track = sheet.health
        if not track.dead and levels:
            track = apply_damage(track, kind, levels, profile.combat).track
        after = set_health(after, track)
        update |= {
            "damage": damage,
            "soak": soak,
            "levels": levels,
            "damage_type": kind,
            "track": track,
        }
    return state.model_copy(update=update), after


@dataclass(frozen=True)
class Presser:
    """What an Effect's step reads before it runs: whether a presser who is not the caster
    runs the game (the Storyteller may roll another mage's Backlash and name the successes
    an Effect needs), and the caster's sheet for a step that rolls or pays."""

    runs_game: bool = False
    sheet: Sheet | None = None
    turn: bot_combat.WillpowerTurn | None = None  # the caster's turn, for a cast with Willpower


_FOR_THE_STORYTELLER = (MagickAction.BACKLASH, MagickAction.MAGNITUDE)
_PAYING = (MagickAction.BACKLASH, MagickAction.NEXT_ROLL, MagickAction.ABANDON, MagickAction.CAST)


async def effect_read(reading: runner.Reading[EffectFlow, MagickCallback]) -> Presser:
    state, user, action = reading.state, reading.presser, reading.action.a
    storyteller = False
    asks = user.id != state.user_id and action in _FOR_THE_STORYTELLER
    if asks and reading.bot is not None and reading.chat_settings is not None:
        chat, settings = reading.message.chat, reading.chat_settings
        storyteller = await runs_game(reading.bot, chat, settings, user, None)
    sheet = None
    if action in _PAYING and (user.id == state.user_id or storyteller):
        sheet = await reading.store.load_sheet(
            reading.flow.chat_id, state.user_id, SheetSystem.MAGE
        )
    turn = None
    if action in (MagickAction.CAST, MagickAction.NEXT_ROLL):
        turn = await _turn(reading.store, reading.flow.chat_id, state, sheet)
    return Presser(runs_game=storyteller, sheet=sheet, turn=turn)


def effect_step(
    state: EffectFlow,
    data: MagickCallback,
    actor: runner.Actor,
    known: runner.Known[Presser],
    rng: Rng | None,
) -> runner.Outcome[EffectFlow]:
    if actor.id != state.user_id and not (data.a in _FOR_THE_STORYTELLER and known.read.runs_game):
        return runner.refuse(view.not_yours_text)
    try:
        return _effect_step(state, data, known, rng)
    except _Refused as refused:
        said = refused.text
        return runner.refuse(lambda: render.plain(said))


def _effect_step(
    state: EffectFlow, data: MagickCallback, known: runner.Known[Presser], rng: Rng | None
) -> runner.Outcome[EffectFlow]:
    action, x, profile = data.a, data.x, known.profile
    if action is MagickAction.BACKLASH:
        if state.stage is not Stage.CAST or not state.paradox:
            raise _Refused(render.invalid_button_text())
        return _paid(state, known.read, profile, rng, mode="backlash")
    if action in (MagickAction.NEXT_ROLL, MagickAction.ABANDON):
        if state.stage is not Stage.RITUAL:
            raise _Refused(render.invalid_button_text())
        mode = "abandon" if action is MagickAction.ABANDON else "cast"
        return _paid(state, known.read, profile, rng, mode=mode)
    if action in _ALLOCATING:
        if state.stage not in (Stage.CAST, Stage.BACKLASH):
            raise _Refused(render.invalid_button_text())
        after = _allocate(state, action, x, profile)
    elif action is MagickAction.EXTEND:
        after = _extend(state, x)
    elif state.stage is not Stage.SETUP:
        raise _Refused(render.invalid_button_text())
    elif action is MagickAction.CAST:
        return _paid(state, known.read, profile, rng, mode="cast")
    else:
        after = SETUP.choose(state, action, x, profile)
    return runner.Advance(state=after, close=after.stage is Stage.CANCELLED)


_ALLOCATING = (
    MagickAction.PANEL,
    MagickAction.ADD,
    MagickAction.TAKE,
    MagickAction.DAMAGING,
    MagickAction.MAGNITUDE,
    MagickAction.MAGE_TOO,
    MagickAction.PERMANENT,
    MagickAction.LINK_PLACE,
    MagickAction.LINK_CONTACT,
)


def _paid(
    state: EffectFlow, read: Presser, profile: Profile, rng: Rng | None, *, mode: str
) -> runner.Outcome[EffectFlow]:
    """«Сотворить», a ritual's next roll or its end, «Отдача»: the dice, then the flow and
    the caster's sheet together, and only on the sheet the dice were cast for (with the
    round's mark of a point of Willpower spent in a fight, §A.7)."""
    sheet = read.sheet
    if sheet is None or sheet.arete is None:
        raise _Refused(view.no_arete_text())
    entries: list[LogEntry] = []
    also = None
    if mode == "backlash":
        after, changed = _backlash(state, sheet, profile, rng)
    elif mode == "abandon":
        after, changed = _abandon(state, sheet, profile)
        entries = abandoned_entries(after)
    else:
        if _pays_willpower(state, sheet) and read.turn is not None:
            _marked(state, read.turn)  # refuses a second point in the turn
            also = read.turn.mark
        after, _before, changed = _cast(state, sheet, profile, rng)
        entries = effect_entries(after)
    spend = SheetSpend(state.user_id, SheetSystem.MAGE, _only_if(sheet, changed))
    return runner.Advance(state=after, spends=spending(spend), entries=tuple(entries), also=also)


def _draw_effect(
    flow: Flow, state: EffectFlow, known: runner.Known[Presser]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.profile)


def _extend(state: EffectFlow, x: int) -> EffectFlow:
    """«Продлить» (§C.10): the cast's successes become the first of a ritual toward ``x``; the
    Paradox the cast paid is kept and counted against what the ritual's end charges."""
    if not view.extendable(state) or state.result is None:
        raise _Refused(render.invalid_button_text())
    if x == 0:
        return state.model_copy(update={"extending": True})
    if x not in EXTEND_TARGETS or x <= state.result.successes:
        raise _Refused(render.invalid_button_text())
    return state.model_copy(
        update={
            "stage": Stage.RITUAL,
            "target": x,
            "magnitude": x,
            "gathered": max(0, state.result.successes),
            "rolls": 1,
            "prepaid": state.paradox,
            "paradox": 0,
            "extending": False,
            "panel": Panel.CAST,
            "allocation": {},
        }
    )


def _allocate(state: EffectFlow, action: MagickAction, x: int, profile: Profile) -> EffectFlow:
    """The helper's steps: a panel, or one success more or less on a part (§C.7); a step
    the successes cannot pay is refused."""
    if action is MagickAction.PANEL:
        if not 0 <= x < len(PANELS):
            raise _Refused(render.invalid_button_text())
        return state.model_copy(update={"panel": PANELS[x]})
    if action is MagickAction.DAMAGING:
        if state.sphere is not Sphere.FORCES:
            raise _Refused(render.invalid_button_text())
        return state.model_copy(update={"damaging": not state.damaging})
    if action in (MagickAction.LINK_PLACE, MagickAction.LINK_CONTACT):
        return _link(state, action, x)
    if action in (MagickAction.MAGNITUDE, MagickAction.MAGE_TOO, MagickAction.PERMANENT):
        return _terms(state, action, x, profile)
    if not 0 <= x < len(PARTS) or state.result is None:
        raise _Refused(render.invalid_button_text())
    part = PARTS[x]
    have = state.allocation.get(part, 0)
    step = 1 if action is MagickAction.ADD else -1
    allocation = {**state.allocation, part: max(0, have + step)}
    after = state.model_copy(update={"allocation": allocation})
    if after.allocated(profile) is None:
        raise _Refused(view.no_successes_left_text())
    return after


def _link(state: EffectFlow, action: MagickAction, x: int) -> EffectFlow:
    """§C.8: name a place or a contact of the table for the Correspondence link; the one
    already named, pressed again, is taken back."""
    if not 0 <= x < magick.CORRESPONDENCE_ROWS:
        raise _Refused(render.invalid_button_text())
    if action is MagickAction.LINK_PLACE:
        place = tuple(magick.Place)[x]
        return state.model_copy(update={"link_place": None if state.link_place is place else place})
    contact = tuple(magick.Contact)[x]
    return state.model_copy(
        update={"link_contact": None if state.link_contact is contact else contact}
    )


def _terms(state: EffectFlow, action: MagickAction, x: int, profile: Profile) -> EffectFlow:
    """What the Storyteller and the caster settle on the allocation panel: the successes the
    Effect needs (§C.6), the mage among the targets (AMB-C8), a permanent Effect (AMB-C9).
    Only the caster's panel open on successes to spend takes them."""
    if state.panel is not Panel.ALLOCATE or state.allocated(profile) is None:
        raise _Refused(render.invalid_button_text())
    if action is MagickAction.MAGE_TOO:
        after = state.model_copy(update={"mage_too": not state.mage_too})
    elif action is MagickAction.PERMANENT:
        after = state.model_copy(update={"permanent": not state.permanent})
    elif x in (0, 1):
        magnitude = state.magnitude + (1 if x else -1)
        if magnitude < 1:
            raise _Refused(view.magnitude_floor_text())
        if magnitude > magick.MAX_SUCCESSES:
            raise _Refused(render.invalid_button_text())
        after = state.model_copy(update={"magnitude": magnitude})
    else:
        raise _Refused(render.invalid_button_text())
    if after.allocated(profile) is None:
        raise _Refused(view.no_successes_left_text())
    return after


def _step_named(state: EffectFlow, row: magick.Modifier, profile: Profile) -> EffectFlow:
    """A §C.3 row steps through the values it allows (S4's ranges), then off; a row that
    cannot stand beside another (two Foci, both Resonances) is refused."""
    low, high = magick.MODIFIER_RANGES[row]
    values = list(range(low, high + 1)) if low > 0 else list(range(high, low - 1, -1))
    have = state.named.get(row.value)
    after = dict(state.named)
    if have is None:
        after[row.value] = values[0]
    elif have == values[-1]:
        del after[row.value]
    else:
        after[row.value] = values[values.index(have) + 1]
    try:
        magick.parse_modifiers(list(after.items()), profile=profile)
    except RulesInputError:
        raise _Refused(view.modifiers_clash_text()) from None
    return state.model_copy(update={"named": after})


def _level(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    if x not in LEVELS:
        raise _Refused(render.invalid_button_text())
    return state.model_copy(update={"level": x})


def _vulgar(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    return state.model_copy(update={"vulgar": not state.vulgar})


def _witnesses(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    return state.model_copy(update={"witnesses": not state.witnesses})


def _quintessence(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    if not 0 <= x <= view.quintessence_most(state, profile):
        raise _Refused(render.invalid_button_text())
    return state.model_copy(update={"quintessence": x})


def _modifier(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    if not 0 <= x <= 2 * MODIFIER_CAP:
        raise _Refused(render.invalid_button_text())
    return state.model_copy(update={"modifier": x - MODIFIER_CAP})


def _willpower(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    return state.model_copy(update={"willpower": not state.willpower})


def _modifiers(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    if x not in (0, 1):
        raise _Refused(render.invalid_button_text())
    return state.model_copy(update={"modifiers_open": bool(x)})


def _named(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    if not 0 <= x < len(NAMED_MODIFIERS):
        raise _Refused(render.invalid_button_text())
    return _step_named(state, NAMED_MODIFIERS[x], profile)


def _cancel(state: EffectFlow, x: int, profile: Profile) -> EffectFlow:
    return state.model_copy(update={"stage": Stage.CANCELLED})


# The Effect's setup is a wizard on the one machinery (bot/wizard.py): its choices, each
# checked against the table's profile; «Сотворить» ends it (:func:`_effect_step`).
SETUP: Choices[EffectFlow, Profile] = Choices(
    {
        MagickAction.LEVEL: _level,
        MagickAction.VULGAR: _vulgar,
        MagickAction.WITNESSES: _witnesses,
        MagickAction.QUINTESSENCE: _quintessence,
        MagickAction.MODIFIER: _modifier,
        MagickAction.WILLPOWER: _willpower,
        MagickAction.MODIFIERS: _modifiers,
        MagickAction.NAMED: _named,
        MagickAction.CANCEL: _cancel,
    }
)


# ----- /barrier (§C.15) ----------------------------------------------------------------------


async def barrier_command(message: Message, store: Store, profile: Profile) -> None:
    """One message for the whole crossing: the place and the local shift, then the rolls."""
    if not _mage(profile):
        await message.answer(view.not_mage_text())
        return
    found = await _caster(message, store)
    if found is None:
        return
    user, sheet = found
    if barrier_pool(sheet, profile) <= 0:  # §C.15: nothing to roll, so no crossing opens
        await message.answer(no_barrier_dice(sheet, profile)())
        return
    state = BarrierFlow(
        caster=roller_name(message, user),
        user_id=user.id,
        arete=sheet.arete,
        wound_penalty=-wound_penalty(sheet.health).penalty,
        condition_difficulty=conditions_difficulty(sheet),
    )
    flow = await store.create_flow(state, message.chat.id, user.id)
    text, markup = view.draw_barrier(flow, state, profile)
    await message.answer(text, reply_markup=markup)


EFFECT: runner.Tap[EffectFlow, MagickCallback, Presser] = runner.Tap(
    model=EffectFlow,
    callback=MagickCallback,
    step=effect_step,
    view=_draw_effect,
    current_only=True,
    read=effect_read,
)
