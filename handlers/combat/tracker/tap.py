"""The round tracker's buttons as one pure step (bot/runner.py; docs/rules.md §B.1–§B.11).

Buttons that walk the phases carry the step they were drawn for, so two players pressing
«Дальше» at once move the round one step, not two (docs/product.md §3 "Concurrency"); buttons
that name a participant by position need the very drawing they were pressed on. What a step
means is :mod:`rules.combat.tracker`; the step decides who may press, and what goes with it
into the same compare-and-set: a condition on the character's sheet (§B.8), a point of
Willpower spent on an Interruption, a botched stand-up's wound. «Атака» stores nothing here:
it opens the attack panel for whoever acts (:func:`handlers.combat.attack.router.open_panel`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.access import runs_game
from bot.runner import (
    Actor,
    Advance,
    Delegate,
    Known,
    Outcome,
    Reading,
    Refuse,
    Sequel,
    SheetMoved,
    Tap,
    refuse,
    repeat,
    spending,
)
from handlers.combat.ambush import router as ambush_router
from handlers.combat.ambush import steps as ambush_steps
from handlers.combat.ambush import view as ambush_view
from handlers.combat.attack.router import open_panel
from handlers.combat.tracker import view
from handlers.combat.tracker.callbacks import PANELS, InitAction, InitCallback, Panel
from handlers.combat.tracker.flow import KIND, InitFlow, Note, NoteKind
from handlers.combat.tracker.steps import initiative_modifier, with_health
from rules import combat
from rules.combat import tracker
from rules.combat.situation import Condition
from rules.combat.tracker import Fighter, Phase, Round
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.health import DamageType, apply_damage, wound_penalty
from rules.profiles import Profile
from rules.sheet import (
    Ability,
    Attribute,
    Discipline,
    Sheet,
    is_vampire,
    set_conditions,
    set_health,
    spend_blood,
    system_of,
)
from rules.vampire import blood_per_turn
from table.store import Flow, SheetSpend

Answer = Callable[[], str]

# Buttons that take one step of the round carry the step they were drawn for (x): a second
# press of the same drawing finds the step taken and changes nothing.
STEPS = frozenset(
    {InitAction.START, InitAction.DECLARED, InitAction.MORE, InitAction.NEXT, InitAction.DELAY}
    | {InitAction.DECLARED_DEFENCE, InitAction.HASTEN}
    | {InitAction.NEW_ROUND, InitAction.ATTACK, InitAction.STAND_UP}
)
# Buttons that name a participant by position need the very drawing they were pressed on (a
# second press of an Interruption finds the drawing gone: Willpower is rolled or spent once).
BY_INDEX = frozenset(
    {InitAction.REMOVE, InitAction.PICK, InitAction.CONDITION, InitAction.AMBUSH}
    | {InitAction.INTERRUPT, InitAction.INTERRUPT_SPEND}
)
_DECLARING = (
    InitAction.DECLARED,
    InitAction.MORE,
    InitAction.DECLARED_DEFENCE,
    InitAction.HASTEN,
)


@dataclass(frozen=True)
class Table:
    """What a tracker step reads besides the round: whether the presser runs the game (asked
    only when the step may need it), and the one sheet it rolls or joins from — the
    presser's (joining the fight) or the fighter's (an Interruption, standing up)."""

    storyteller: bool = False
    sheet: Sheet | None = None


class Refused(Exception):
    """The press is answered with an alert and nothing changes."""

    def __init__(self, text: Answer) -> None:
        self.text = text


def sheet_base(sheet: Sheet | None) -> int | None:
    """Ловкость + Смекалка from the sheet (§B.1), None while either is unset."""
    if sheet is None:
        return None
    dexterity, wits = sheet.rating(Attribute.DEXTERITY), sheet.rating(Attribute.WITS)
    if dexterity is None or wits is None:
        return None
    return dexterity + wits


def refusal_of(error: RulesInputError) -> str:
    """A join the rules refused: already in, or the fight is full."""
    if error.code is ErrorCode.STATE and error.field == "key":
        return view.already_in_text()
    if error.field == "fighters":
        return view.too_many_text()
    return render.invalid_button_text()


def _tap_refusal(action: InitAction, error: RulesInputError) -> str:
    if action is InitAction.DELAY:
        return view.no_delay_text()
    if action is InitAction.MORE:
        return view.too_many_actions_text()
    if action is InitAction.START:
        return view.nobody_text()
    return refusal_of(error)


def _alert(text: Answer) -> Outcome[InitFlow]:
    """Alerts carry no markup: the HTML of a text drawn for a message is taken off."""
    return refuse(lambda: render.plain(text()))


# ----- what the step reads --------------------------------------------------------------


def _at_or_none(current: Round, index: int) -> Fighter | None:
    return current.fighters[index] if 0 <= index < len(current.fighters) else None


def _subject(state: InitFlow, action: InitAction, x: int) -> Fighter | None:
    """The participant a press acts for, where that decides whether the presser may."""
    current = state.round
    if action in _DECLARING:
        key = current.declarer()
        return current.fighter(key) if key is not None else None
    if action in (InitAction.ATTACK, InitAction.STAND_UP, InitAction.NEXT, InitAction.DELAY):
        acting = current.actor()
        return current.fighter(acting[0]) if acting is not None else None
    if action in (InitAction.INTERRUPT, InitAction.INTERRUPT_SPEND, InitAction.REMOVE):
        return _at_or_none(current, x)
    return None


# Presses that read the sheet of the fighter they act for (its Willpower, blood, Athletics).
_SHEET_OF_SUBJECT = (
    InitAction.INTERRUPT,
    InitAction.INTERRUPT_SPEND,
    InitAction.STAND_UP,
    InitAction.HASTEN,
)


def sheet_celerity(sheet: Sheet | None) -> int:
    """A vampire's dots of Celerity (§B.13), which the tracker offers on their declaration;
    0 for a mortal or no sheet."""
    if sheet is None or not is_vampire(sheet):
        return 0
    return sheet.rating(Discipline.CELERITY) or 0


def seated(current: Round, key: str, sheet: Sheet | None) -> Round:
    """A fighter just joined, known for a vampire when their sheet is one (§B.13: Celerity
    offered, torpor passed over); a mortal as joined."""
    if sheet is None or not is_vampire(sheet):
        return current
    return tracker.with_vampire(current, key, sheet_celerity(sheet))


def needs_storyteller(state: InitFlow, action: InitAction, x: int, presser: int) -> bool:
    """Whether the step may ask who runs the game (a Telegram call while the chat has no
    Storyteller): never for joining or the Interruption panel, nor for one's own character."""
    if action in (InitAction.ROLL, InitAction.BASE) or _ambushing(state, action, x):
        return False
    if action is InitAction.PANEL and _interrupt_panel(state, x):
        return False
    own = tracker.player_key(presser)
    if action is InitAction.PANEL and _removal(state, action, x):
        return state.round.fighter(own) is None
    subject = _subject(state, action, x)
    return subject is None or subject.key != own


async def read(reading: Reading[InitFlow, InitCallback]) -> Table:
    """The storyteller's right and the sheet the step needs, read only when it needs them."""
    state, action, presser = reading.state, reading.action.a, reading.presser
    chat = reading.message.chat
    assert reading.profile is not None
    system = system_of(reading.profile)
    storyteller = False
    if needs_storyteller(state, action, reading.action.x, presser.id):
        assert reading.bot is not None
        assert reading.chat_settings is not None
        storyteller = await runs_game(reading.bot, chat, reading.chat_settings, presser, None)
    sheet: Sheet | None = None
    if action in (InitAction.ROLL, InitAction.BASE):
        if state.round.fighter(tracker.player_key(presser.id)) is None:
            sheet = await reading.store.load_sheet(chat.id, presser.id, system)
    elif action in _SHEET_OF_SUBJECT:
        who = _subject(state, action, reading.action.x)
        if who is not None and who.user_id is not None:
            sheet = await reading.store.load_sheet(chat.id, who.user_id, system)
        elif who is not None:
            sheet = await reading.store.load_npc(chat.id, system, who.name)
    return Table(storyteller=storyteller, sheet=sheet)


# ----- the step ---------------------------------------------------------------------------


def step(
    state: InitFlow, button: InitCallback, actor: Actor, known: Known[Table], rng: Rng | None
) -> Outcome[InitFlow]:
    action, x = button.a, button.x
    if action in STEPS and x != _step_of(action, state.round):
        return repeat()  # a step already taken by someone else's press of the same button
    if action in BY_INDEX and button.v != known.flow.version:
        return Refuse(lambda: render.plain(view.changed_text()), heal=True)
    try:
        return _outcome(state, action, x, actor, known, rng)
    except Refused as refused:
        return _alert(refused.text)
    except RulesInputError as error:
        said = error
        return _alert(lambda: _tap_refusal(action, said))


def _outcome(
    state: InitFlow,
    action: InitAction,
    x: int,
    actor: Actor,
    known: Known[Table],
    rng: Rng | None,
) -> Outcome[InitFlow]:
    if action is InitAction.ROLL or action is InitAction.BASE:
        return _roll_in(state, actor, action, x, known, rng)
    if action is InitAction.HASTEN:
        return _hasten(state, actor, known)
    if action in _DECLARING:
        return _declaring(state, action, actor, known)
    if action is InitAction.ATTACK:
        return _attack(state, _acting(state, actor, known.read))
    if action is InitAction.INTERRUPT or action is InitAction.INTERRUPT_SPEND:
        return _interrupting(state, action, x, actor, known, rng)
    if action is InitAction.STAND_UP:
        return _stand_up(state, _acting(state, actor, known.read), known, rng)
    if action is InitAction.PANEL and _interrupt_panel(state, x):
        return _interrupt_panel_open(state, x, known)
    if _ambushing(state, action, x):
        return _ambush(state, action, x, actor, known, rng)
    if _removal(state, action, x):
        return _stored(state, _remove(state, action, x, actor, known.read), known)
    if action is InitAction.NEXT or action is InitAction.DELAY:
        return _advancing(state, action, actor, known)
    if not known.read.storyteller:
        raise Refused(view.storyteller_only_text)
    return _stored(state, _storyteller_step(state, action, x, known.profile, rng), known)


def _declaring(
    state: InitFlow, action: InitAction, actor: Actor, known: Known[Table]
) -> Outcome[InitFlow]:
    """The one declaring now says what they do, adds an action or declares a defence."""
    current = state.round
    key = current.declarer()
    if key is None:
        raise Refused(render.invalid_button_text)
    _own_or_storyteller(state, key, actor, known.read)
    changed = (
        tracker.more_actions(current, key)
        if action is InitAction.MORE
        else tracker.declare(current, key, defence=action is InitAction.DECLARED_DEFENCE)
    )
    return _stored(state, state.model_copy(update={"round": changed}), known)


def _hasten(state: InitFlow, actor: Actor, known: Known[Table]) -> Outcome[InitFlow]:
    """§B.13 Celerity on the vampire's declaration: one extra action this round for a point
    of blood, paid off the sheet in the tracker's own step (a pool that moved since the read
    runs the press again); the Discipline's dots and the Generation's blood a turn bound it."""
    current = state.round
    key = current.declarer()
    who = current.fighter(key) if key is not None else None
    if key is None or who is None:
        raise Refused(render.invalid_button_text)
    _own_or_storyteller(state, key, actor, known.read)
    sheet = known.read.sheet
    dots = sheet_celerity(sheet)
    if sheet is None or not dots:
        raise Refused(lambda: view.no_celerity_text(who.name))
    blood = sheet.blood or 0
    try:
        changed = tracker.hasten(current, key, dots, blood, sheet.generation)
    except RulesInputError as error:
        raise Refused(_celerity_refusal(error, who.name, dots, sheet)) from None
    note = Note(kind=NoteKind.CELERITY, name=who.name, ok=True, blood_left=blood - 1)
    after = state.model_copy(update={"round": changed, "note": note})
    paid = SheetSpend(
        user_id=who.user_id or 0,
        system=system_of(known.profile),
        change=partial(_blood_of, blood),
        npc=who.name if who.user_id is None else None,
    )
    return Advance(state=after, spends=spending(paid), unpaid=lambda: view.no_blood_text(who.name))


def _celerity_refusal(error: RulesInputError, name: str, dots: int, sheet: Sheet) -> Answer:
    """Which limit stopped one more action of Celerity: the pool, the Generation's blood a
    turn, or the Discipline's dots."""
    if error.field == "blood":
        return lambda: view.no_blood_text(name)
    if error.field == "generation":
        limit = blood_per_turn(sheet.generation)
        return lambda: view.celerity_turn_limit_text(name, limit)
    return lambda: view.celerity_dots_text(name, dots)


def _blood_of(seen: int, sheet: Sheet) -> Sheet:
    """A point of blood off the pool the step read (the tracker says what is left); a pool
    that moved since runs the press again."""
    if (sheet.blood or 0) != seen:
        raise SheetMoved
    return spend_blood(sheet, 1)


def _interrupting(
    state: InitFlow,
    action: InitAction,
    x: int,
    actor: Actor,
    known: Known[Table],
    rng: Rng | None,
) -> Outcome[InitFlow]:
    fighter = _at(state.round, x)
    _own_or_storyteller(state, fighter.key, actor, known.read)
    if action is InitAction.INTERRUPT_SPEND:
        return _interrupt_spending(state, fighter, known)
    return _interrupt_rolling(state, fighter, known, rng)


def _interrupt_panel_open(state: InitFlow, x: int, known: Known[Table]) -> Outcome[InitFlow]:
    """Anyone at the table may ask to interrupt: the panel lists who still can."""
    current = state.round
    if x and not any(current.can_interrupt(f.key) for f in current.fighters):
        raise Refused(render.invalid_button_text)
    return _stored(state, state.model_copy(update={"panel": PANELS[x], "picked": None}), known)


def _advancing(
    state: InitFlow, action: InitAction, actor: Actor, known: Known[Table]
) -> Outcome[InitFlow]:
    current = state.round
    _acting(state, actor, known.read)
    changed = tracker.advance(current) if action is InitAction.NEXT else tracker.delay(current)
    return _stored(state, state.model_copy(update={"round": changed}), known)


def _own_or_storyteller(state: InitFlow, key: str | None, actor: Actor, table: Table) -> None:
    if key is not None and key == tracker.player_key(actor.id):
        return
    if not table.storyteller:
        fighter = state.round.fighter(key) if key is not None else None
        raise Refused(lambda: view.not_your_turn_text(fighter.name if fighter else "?"))


def _acting(state: InitFlow, actor: Actor, table: Table) -> str:
    """The one acting now, if the presser may press for them."""
    acting = state.round.actor()
    if acting is None:
        raise Refused(render.invalid_button_text)
    _own_or_storyteller(state, acting[0], actor, table)
    return acting[0]


def _attack(state: InitFlow, key: str) -> Outcome[InitFlow]:
    """«Атака» opens the attack panel for whoever acts; the tracker stays as it is."""
    current = state.round
    fighter = current.fighter(key)
    name = fighter.name if fighter is not None else "?"

    async def open_it(sequel: Sequel) -> Answer | None:
        assert sequel.bot is not None
        refusal = await open_panel(
            sequel.bot, sequel.store, sequel.profile, sequel.message, current, key, name
        )
        if refusal is None:
            return None
        return lambda: render.plain(refusal)

    return Delegate(open_it)


def _stored(before: InitFlow, after: InitFlow, known: Known[Table]) -> Outcome[InitFlow]:
    """A step of the round stored and shown; conditions travel with the sheets, so every roll
    of the character sees them (§B.8): those who leave the fight, or all at its end, lose
    theirs, and a toggled one is written, in the same compare-and-set as the step (a
    character with no sheet yet gets one there)."""
    after = after.model_copy(update={"note": None})  # a note lasts until the next step
    system = system_of(known.profile)
    spends = [
        SheetSpend(
            user_id=gone.user_id or 0,
            system=system,
            change=lambda sheet: set_conditions(sheet, ()),
            npc=gone.name if gone.user_id is None else None,
        )
        for gone in _left_with_conditions(before.round, after.round, ended=after.ended)
    ]
    toggled = _conditions_changed(before.round, after.round)
    if toggled is not None and not after.ended:
        conditions = toggled.conditions
        spends.append(
            SheetSpend(
                user_id=toggled.user_id or 0,
                system=system,
                change=lambda sheet: set_conditions(sheet, conditions),
                npc=toggled.name if toggled.user_id is None else None,
                create=True,
            )
        )
    return Advance(
        state=after,
        close=after.ended,
        spends=tuple(spends),
        # A finished fight: the chat points at no tracker, and its message is unpinned.
        ends_live=KIND if after.ended else None,
    )


def _left_with_conditions(before: Round, after: Round, *, ended: bool) -> list[Fighter]:
    return [f for f in before.fighters if f.conditions and (ended or after.fighter(f.key) is None)]


def _conditions_changed(before: Round, after: Round) -> Fighter | None:
    for fighter in after.fighters:
        old = before.fighter(fighter.key)
        if old is not None and old.conditions != fighter.conditions:
            return fighter
    return None


def _removal(state: InitFlow, action: InitAction, x: int) -> bool:
    """«Убрать»: the panel opened or closed from itself, or a participant removed."""
    if action is InitAction.REMOVE:
        return True
    if action is not InitAction.PANEL:
        return False
    return x == PANELS.index(Panel.REMOVE) or (x == 0 and state.panel is Panel.REMOVE)


def _remove(state: InitFlow, action: InitAction, x: int, actor: Actor, table: Table) -> InitFlow:
    """Anyone in the fight opens «Убрать» and takes their own character out; the Storyteller
    removes anyone, a player or an NPC (docs/product.md "NPCs")."""
    current = state.round
    own = tracker.player_key(actor.id)
    if action is InitAction.PANEL:
        if current.fighter(own) is None and not table.storyteller:
            raise Refused(view.storyteller_only_text)
        return state.model_copy(update={"panel": PANELS[x], "picked": None})
    gone = _at(current, x)
    if gone.key != own and not table.storyteller:
        raise Refused(view.storyteller_only_text)
    changed = tracker.leave(current, gone.key)
    return state.model_copy(update={"round": changed, "panel": Panel.NONE})


def _ambushing(state: InitFlow, action: InitAction, x: int) -> bool:
    """«Засада»: its panel opened or closed from itself, or a victim pressed on it."""
    if action is InitAction.AMBUSH:
        return True
    opens = x == PANELS.index(Panel.AMBUSH)
    return action is InitAction.PANEL and (opens or (x == 0 and state.panel is Panel.AMBUSH))


def _ambush(
    state: InitFlow,
    action: InitAction,
    x: int,
    actor: Actor,
    known: Known[Table],
    rng: Rng | None,
) -> Outcome[InitFlow]:
    """§B.7 from the tracker: anyone in the fight opens the panel and presses a victim for
    their own character; the contest is :func:`handlers.combat.ambush.router.lay`'s, which
    stores it with the tracker's step (and closes the panel), so a second press finds the
    ambush spent."""
    own = tracker.player_key(actor.id)
    if action is InitAction.PANEL and x == 0:  # «Назад»: anyone closes it
        return _stored(state, state.model_copy(update={"panel": Panel.NONE}), known)
    if state.round.fighter(own) is None:
        raise Refused(ambush_view.not_in_fight_text)
    if not ambush_steps.before_the_fight(state.round):
        raise Refused(ambush_view.too_late_text)
    if action is InitAction.PANEL:
        panel = Panel.AMBUSH
        return _stored(state, state.model_copy(update={"panel": panel, "picked": None}), known)
    victim = _at(state.round, x).key

    async def lay_it(sequel: Sequel) -> Answer | None:
        assert sequel.bot is not None
        refusal = await ambush_router.lay(
            sequel.bot, sequel.store, sequel.profile, sequel.message, lambda _r: (own, victim), rng
        )
        if refusal is None:
            return None
        return lambda: render.plain(refusal)

    return Delegate(lay_it)


def _interrupt_panel(state: InitFlow, x: int) -> bool:
    """The Interruption panel opened, or closed from itself: not the Storyteller's alone."""
    opens = x == PANELS.index(Panel.INTERRUPT)
    return opens or (x == 0 and state.panel is Panel.INTERRUPT)


def _interrupt_spending(state: InitFlow, who: Fighter, known: Known[Table]) -> Outcome[InitFlow]:
    """S4 «Прерывание … (бросок Силы Воли или трата 1 Силы Воли)»: a point spent (where the
    table allows it) always interrupts, and leaves the sheet in the same step."""
    current, profile = state.round, known.profile
    if not current.can_interrupt(who.key):
        raise Refused(lambda: view.cannot_interrupt_text(who.name))
    if current.spent_willpower(who.key):
        raise Refused(lambda: view.willpower_spent_text(who.name))
    try:
        combat.interruption_allowed(profile, spend_willpower=True)
    except RulesInputError:
        raise Refused(view.no_interrupt_spend_text) from None
    left_now = rolling.willpower_left(known.read.sheet)
    if left_now is not None and left_now[0] < 1:
        permanent = left_now[1]
        raise Refused(lambda: rolling.no_willpower_text(permanent))
    left = (left_now[0] - 1, left_now[1]) if left_now is not None else None
    note = Note(kind=NoteKind.INTERRUPT, name=who.name, ok=True, willpower_left=left)
    after = state.model_copy(
        update={
            "round": tracker.spend_willpower(tracker.interrupt(current, who.key), who.key),
            "panel": Panel.NONE,
            "note": note,
        }
    )
    roller = rolling.Roller(
        known.flow.chat_id,
        who.user_id or 0,
        who.name,
        npc=who.name if who.user_id is None else None,
    )
    paid = rolling.spend(roller, profile, willpower=True)
    if paid is None:
        raise Refused(render.invalid_button_text)
    # the point went between the read and the write (another tap spent it): nothing stored
    permanent_now = left_now[1] if left_now is not None else 0
    return Advance(
        state=after, spends=spending(paid), unpaid=lambda: rolling.no_willpower_text(permanent_now)
    )


def _interrupt_rolling(
    state: InitFlow, who: Fighter, known: Known[Table], rng: Rng | None
) -> Outcome[InitFlow]:
    """The Willpower roll at the table's difficulty needs one success (AMB-B4)."""
    current, profile = state.round, known.profile
    if not current.can_interrupt(who.key):
        raise Refused(lambda: view.cannot_interrupt_text(who.name))
    sheet = known.read.sheet
    dice = sheet.willpower if sheet is not None else None
    if not dice:
        raise Refused(lambda: view.no_willpower_rating_text(who.name))
    roll = rolling.roll_d10(dice, profile.combat.interruption_difficulty, profile, rng=rng)
    ok = combat.interruption_allowed(profile, willpower_roll=roll)
    note = Note(kind=NoteKind.INTERRUPT, name=who.name, ok=ok, roll=roll)
    changed = tracker.interrupt(current, who.key) if ok else current
    return Advance(
        state=state.model_copy(update={"round": changed, "panel": Panel.NONE, "note": note})
    )


def _stand_up(state: InitFlow, key: str, known: Known[Table], rng: Rng | None) -> Outcome[InitFlow]:
    """§B.8 «Чтобы сразу подняться - Ловкость + Атлетизм, с -2 к инициативе, при неудаче
    лежащий тратит целое действие, вставая на ноги, при провале ещё и получает 1 Ударный
    Урон»: the roll at the table's difficulty, the wound penalty off the pool (AMB-B17); a
    botch's level lands on the sheet directly, or soaked where the table allows (AMB-B16),
    with the knockdown taken off, in the same step as the tracker's."""
    current, profile, sheet = state.round, known.profile, known.read.sheet
    who = current.fighter(key)
    if who is None or Condition.PRONE not in who.conditions:
        raise Refused(render.invalid_button_text)
    name = who.name
    if sheet is None:
        raise Refused(lambda: view.cannot_stand_text(name))
    plan = combat.stand_up_plan(
        sheet.rating(Attribute.DEXTERITY) or 0, sheet.rating(Ability.ATHLETICS) or 0, profile
    )
    wounds = wound_penalty(sheet.health)
    dice = plan.pool + wounds.penalty
    if plan.status is not combat.PlanStatus.ROLL or dice <= 0 or not wounds.can_act:
        raise Refused(lambda: view.cannot_stand_text(name))
    roll = rolling.roll_d10(dice, plan.difficulty, profile, rng=rng)
    result = combat.stand_up(roll, profile)
    levels, soak = result.bashing, None
    if levels and result.soakable:
        soaker = combat.Target(stamina=sheet.rating(Attribute.STAMINA) or 0, track=sheet.health)
        soak_dice = combat.soak_pool(soaker, DamageType.BASHING, profile.combat)
        soak = combat.roll_soak(soak_dice, profile.combat, rng=rng)
        levels = max(0, levels - soak.successes)
    changed = tracker.stand_up(current, key, result)
    note = Note(
        kind=NoteKind.STAND_UP,
        name=name,
        ok=result.stood,
        roll=roll,
        bashing=result.bashing,
        soak=soak,
        levels=levels,
    )
    health = dict(state.health)
    if levels:
        health[key] = apply_damage(
            sheet.health, DamageType.BASHING, levels, profile.combat, undead=is_vampire(sheet)
        ).track
    after = with_health(state, health, round=changed, note=note)
    standing = changed.fighter(key)
    conditions = standing.conditions if standing is not None else ()

    def up(now: Sheet) -> Sheet:
        now = set_conditions(now, conditions)
        if not levels:
            return now
        hurt = apply_damage(
            now.health, DamageType.BASHING, levels, profile.combat, undead=is_vampire(now)
        )
        return set_health(now, hurt.track)

    paid = SheetSpend(
        user_id=who.user_id or 0,
        system=system_of(profile),
        change=up,
        npc=name if who.user_id is None else None,
    )
    return Advance(state=after, spends=spending(paid))


def _step_of(action: InitAction, current: Round) -> int | None:
    """The step a phase button stands for (what the view puts in its x); None when the
    round is not in that button's phase, so no number matches."""
    if action is InitAction.START:
        return 0 if current.phase is Phase.GATHER else None
    if action is InitAction.NEW_ROUND:
        return current.number if current.phase is Phase.DONE else None
    if action in _DECLARING:
        return current.declared if current.phase is Phase.DECLARE else None
    return current.step if current.phase is Phase.RESOLVE else None


def _roll_in(
    state: InitFlow,
    actor: Actor,
    action: InitAction,
    x: int,
    known: Known[Table],
    rng: Rng | None,
) -> Outcome[InitFlow]:
    key = tracker.player_key(actor.id)
    current, sheet = state.round, known.read.sheet
    if current.fighter(key) is not None:
        raise Refused(view.already_in_text)
    if action is InitAction.BASE:
        if not state.is_pending(actor.id):
            raise Refused(view.press_roll_first_text)
        if x not in view.BASES:
            raise Refused(render.invalid_button_text)
        base: int | None = x
    else:
        base = sheet_base(sheet)
        if base is None:
            if state.is_pending(actor.id):
                raise Refused(view.no_base_text)
            pending = (*state.pending, (actor.id, actor.name))
            after = state.model_copy(update={"pending": pending, "note": None})
            return Advance(state=after, answer=view.choose_base_text)
    assert base is not None
    changed = tracker.join(
        current,
        key=key,
        name=actor.name,
        user_id=actor.id,
        dex_wits=base,
        rng=rng,
        modifier=initiative_modifier(known.profile, sheet.health if sheet else None),
    )
    changed = seated(changed, key, sheet)
    pending = tuple(p for p in state.pending if p[0] != actor.id)
    late = current.phase in (Phase.DECLARE, Phase.RESOLVE)
    health = dict(state.health)
    if sheet is not None:
        health[key] = sheet.health
    after = with_health(state, health, round=changed, pending=pending, note=None)
    return Advance(state=after, answer=view.joined_late_text if late else None)


def _storyteller_step(
    state: InitFlow, action: InitAction, x: int, profile: Profile, rng: Rng | None
) -> InitFlow:
    current = state.round
    if action is InitAction.START:
        changed = tracker.start_declarations(current, rng=rng, options=profile.combat)
        return state.model_copy(update={"round": changed, "pending": ()})
    if action is InitAction.NEW_ROUND:
        modifiers = {k: initiative_modifier(profile, t) for k, t in state.health.items()}
        changed = tracker.new_round(current, rng=rng, options=profile.combat, modifiers=modifiers)
        return state.model_copy(update={"round": changed, "pending": (), "panel": Panel.NONE})
    if action is InitAction.END:
        return state.model_copy(update={"ended": True, "pending": (), "panel": Panel.NONE})
    if action is InitAction.PANEL:
        if not 0 <= x < len(PANELS):
            raise Refused(render.invalid_button_text)
        return state.model_copy(update={"panel": PANELS[x], "picked": None})
    if action is InitAction.NPC_ADD:
        if x not in view.NPC_BASES:
            raise Refused(render.invalid_button_text)
        n = 1
        while current.fighter(tracker.npc_key(view.npc_name(n))) is not None:
            n += 1
        name = view.npc_name(n)
        changed = tracker.join(current, key=tracker.npc_key(name), name=name, dex_wits=x, rng=rng)
        return state.model_copy(update={"round": changed, "panel": Panel.NONE})
    if action is InitAction.PICK:
        return state.model_copy(update={"picked": _at(current, x).key})
    picked = state.picked
    conditions = tuple(Condition)
    if action is not InitAction.CONDITION or picked is None or not 0 <= x < len(conditions):
        raise Refused(render.invalid_button_text)
    changed = tracker.toggle_condition(current, picked, conditions[x])
    return state.model_copy(update={"round": changed})


def _at(current: Round, index: int) -> Fighter:
    if not 0 <= index < len(current.fighters):
        raise Refused(render.invalid_button_text)
    return current.fighters[index]


def draw(
    flow: Flow, state: InitFlow, known: Known[Table]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.profile)


TAP: Tap[InitFlow, InitCallback, Table] = Tap(
    model=InitFlow, callback=InitCallback, step=step, view=draw, read=read
)
