"""The buttons under a d6 attack as one pure step (bot/runner.py; docs/rules.md §D.9–§D.12).

Each defender answers once with their chance (AMB-D7), the armour once; a defence is also the
defender's response on the d6 tracker (the highest die set aside, slow when lower than the
attacker's, §D.9), stored with it. «Итог» (the attacker or the Storyteller) takes the
responses off the attack; a hit's gain is then spent by the attacker — all into a wound
written onto the target's sheet in the same step, a trick of §D.12, the declared manoeuvre, or
shared out a measure a tap (§D.11). A special effort (§D.4) rerolls the presser's own dice
and lands its wound on their sheet, in the same step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.access import runs_game
from bot.runner import Actor, Advance, Known, Outcome, Reading, Tap, refuse, spending
from handlers.d6combat.attack import view
from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback, GainChoice
from handlers.d6combat.attack.flow import DEFENDERS_MAX, D6AttackFlow, Roll
from handlers.d6combat.tracker.steps import D6Defence, defend_for_attack
from rules.d6.chance import WOUND_KINDS, DifficultyKind
from rules.d6.combat import (
    ActionKind,
    AttackResult,
    GainShare,
    GainUse,
    grapple,
    poison_wound,
    resolve_attack,
    shove,
    spend_gain,
)
from rules.d6.roll import D6Result, special_effort
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem, add_wound
from table.store import Flow, LogEntry, SheetSpend

Answer = Callable[[], str]


def entry_of(roll: Roll, result: D6Result, kind: str) -> LogEntry:
    """A roll of the attack (the attack, a defence, the armour, an effort) as a log line."""
    return LogEntry(
        user_id=roll.user_id or 0,
        name=roll.name,
        system="d6",
        chance=len(result.faces),
        required=1,
        faces=result.faces,
        measures=result.measures,
        outcome=result.outcome.value,
        kind=kind,
    )


def npc_roll_key(name: str) -> str:
    """An NPC's key in an attack: its name, any case (a player's is ``u`` and their id)."""
    return "n:" + " ".join(name.split()).casefold()


def best_power(sheet: Sheet | None) -> str | None:
    """The power a one-tap attack or defence rolls (docs/rules.md §D.9): the sheet's highest,
    the first written among equals; a player who means more powers types them (/atk)."""
    if sheet is None or not sheet.powers:
        return None
    return max(sheet.powers, key=lambda p: p.level).name


def wound_of(
    choice: GainChoice, outcome: AttackResult, profile: Profile, hold: int = 1
) -> tuple[DifficultyKind, int] | None:
    """The wound a use of the gain deals (§D.11–§D.12): all of it, or what is left after the
    first measure went into knocking down (a shove) or holding (a grapple); a poisoned wound
    by the final gain or the attacker's measures, as the table reads it (AMB-D11). A grapple's
    ``hold`` is the measures the attacker put into the hold (S3 «вправе распределить»)."""
    gain = outcome.gain
    if choice is GainChoice.POISON:
        poisoned = poison_wound(outcome, hit_body=True, profile=profile)
        return (poisoned.kind, poisoned.magnitude) if poisoned is not None else None
    if choice is GainChoice.PHYSICAL:
        return DifficultyKind.PHYSICAL_WOUND, gain
    if choice is GainChoice.MENTAL:
        return DifficultyKind.MENTAL_WOUND, gain
    if choice is GainChoice.SHOVE:
        _down, bruise = shove(gain)
        return (bruise.kind, bruise.magnitude) if bruise is not None else None
    if choice is GainChoice.GRAPPLE:
        _held, hurt = grapple(gain, hold)
        return (hurt.kind, hurt.magnitude) if hurt is not None else None
    return None


# ----- what the step reads --------------------------------------------------------------


@dataclass(frozen=True)
class Scene:
    """What a press under an attack reads besides it. For a defence or the armour: who it is
    rolled for (None: the Storyteller must name the NPC first), their sheet, and the d6
    tracker's side of a defence (or its refusal); otherwise whether the presser may call the
    attack (its attacker, or whoever runs the game)."""

    who: rolling.Roller | None = None
    sheet: Sheet | None = None
    guard: D6Defence | str | None = None
    calls: bool = False


_RESPONSES = (AttackAction.DEFEND, AttackAction.ARMOUR)


async def read(reading: Reading[D6AttackFlow, D6AttackCallback]) -> Scene:
    state, data, user = reading.state, reading.action, reading.presser
    chat, store = reading.message.chat, reading.store
    assert reading.bot is not None
    assert reading.chat_settings is not None
    assert reading.profile is not None
    bot, settings, profile = reading.bot, reading.chat_settings, reading.profile
    if data.a is AttackAction.EFFORT:
        return Scene()
    if data.a not in _RESPONSES:
        attacker = state.attack.user_id or 0
        calls = user.id == attacker or await runs_game(bot, chat, settings, user, None)
        return Scene(calls=calls)
    # Who a defence or the armour is rolled for (docs/product.md "NPCs"): the Storyteller
    # answers for the NPC under attack; a player, or the Storyteller with a character of
    # their own (powers on a sheet), for themself. The Storyteller with neither is asked.
    mine = rolling.Roller(chat.id, user.id, user.full_name)
    who: rolling.Roller | None = mine
    if state.target_user != user.id and await runs_game(bot, chat, settings, user, None):
        if state.target_npc is not None:
            npc = state.target_npc
            who = rolling.Roller(chat.id, user.id, npc, npc=npc)
        else:
            own = await store.load_sheet(chat.id, user.id, SheetSystem.D6)
            who = mine if own is not None and own.powers else None
    if who is None or data.a is AttackAction.ARMOUR:
        return Scene(who=who)
    key = _key_of(who)
    guard = await defend_for_attack(store, chat.id, profile, key, state.attack.key)
    sheet = await rolling.load_sheet(store, who, profile)
    return Scene(who=who, sheet=sheet, guard=guard)


def _key_of(who: rolling.Roller) -> str:
    return npc_roll_key(who.npc) if who.npc is not None else f"u{who.user_id}"


# ----- the step ---------------------------------------------------------------------------


class Refused(Exception):
    """The press is answered with an alert and nothing changes."""

    def __init__(self, text: Answer) -> None:
        self.text = text


def step(
    state: D6AttackFlow,
    data: D6AttackCallback,
    actor: Actor,
    known: Known[Scene],
    rng: Rng | None,
) -> Outcome[D6AttackFlow]:
    try:
        return _outcome(state, data, actor, known, rng)
    except Refused as refused:
        return refuse(refused.text)


def _outcome(
    state: D6AttackFlow,
    data: D6AttackCallback,
    actor: Actor,
    known: Known[Scene],
    rng: Rng | None,
) -> Outcome[D6AttackFlow]:
    action, profile = data.a, known.profile
    if action in _RESPONSES:
        who = known.read.who
        if who is None:
            raise Refused(view.name_the_npc_text)
        return _respond(state, data, who, known, rng)
    if action is AttackAction.EFFORT:
        return _effort(state, data.x, actor, profile, rng)
    if not known.read.calls:
        raise Refused(view.attacker_only_text)
    if action is AttackAction.RESOLVE and state.outcome is None:
        return _resolve(state, data.x, profile)
    split = _split_step(state, data)
    if split is not None:
        return split
    if (
        action is AttackAction.SPEND
        and state.outcome is not None
        and state.outcome.hit
        and not state.splitting
    ):
        return _spend(state, data.c, profile, data.x)
    raise Refused(render.invalid_button_text)


def _resolve(state: D6AttackFlow, x: int, profile: Profile) -> Outcome[D6AttackFlow]:
    """«Итог»: the responses taken off the attack (§D.9–§D.10); a hit pressed «into a wound»
    spends its whole gain on the target at once, a miss closes the attack."""
    outcome = resolve_attack(
        state.attack.measures,
        {d.key: d.measures for d in state.defences},
        state.armour.measures if state.armour is not None else None,
        attacker=state.attack.key,
    )
    after = state.model_copy(update={"outcome": outcome})
    if x == view.RESOLVE_INTO_WOUND and outcome.hit and after.foes():
        return _spend(after, GainChoice.PHYSICAL, profile)
    return Advance(state=after, close=not outcome.hit)


def _split_step(state: D6AttackFlow, data: D6AttackCallback) -> Outcome[D6AttackFlow] | None:
    """Sharing the gain out a measure a tap (§D.11): starting it, taking back the last
    measure (or leaving the sharing when none is left), giving one; None for any other press."""
    if state.spent is not None:
        return None
    action = data.a
    if (
        action is AttackAction.SPEND
        and data.c == GainChoice.SPLIT
        and not state.splitting
        and view.split_offered(state)
    ):
        return Advance(state=state.model_copy(update={"splitting": True, "split": ()}))
    if not state.splitting:
        return None
    if action is AttackAction.UNDO:
        if state.split:
            return Advance(state=state.model_copy(update={"split": state.split[:-1]}))
        return Advance(state=state.model_copy(update={"splitting": False}))
    if action is AttackAction.SHARE:
        return _share(state, data.x, data.c)
    return None


def _respond(
    state: D6AttackFlow,
    data: D6AttackCallback,
    who: rolling.Roller,
    known: Known[Scene],
    rng: Rng | None,
) -> Outcome[D6AttackFlow]:
    """A defence or the armour (§D.9–§D.10), once each. A defence is the defender's action:
    full defence declared before adds its advantage to it (§D.12), and whatever else waited on
    the defender is lost with it — in the same step, with the tracker's. The armour is no
    action and touches nothing."""
    armour = data.a is AttackAction.ARMOUR
    key = _key_of(who)
    _check_response(state, data, key, armour=armour)
    profile = known.profile
    dice, label, spend = data.x, "", None
    guard: D6Defence | None = None
    if not armour:
        guard = _guard_of(known.read.guard)
        dice, label, spend = _defence_pool(data, who, known.read.sheet, guard, profile)
    result = rolling.roll_d6(dice, rng=rng, profile=profile, armour=armour)
    roll = Roll(
        key=key,
        name=who.name,
        user_id=who.user_id if who.npc is None else None,
        faces=result.faces,
        measures=result.measures,
        label=label,
        result=None if armour else result,
    )
    entries = (entry_of(roll, result, "armour" if armour else "defence"),)
    if armour:
        after = state.model_copy(update={"armour": roll})
    else:
        after = state.model_copy(update={"defences": (*state.defences, roll)})
    tracker = guard.step if guard is not None else None
    if spend is None and tracker is not None:
        spend = _unchanged(who)
    return Advance(
        state=after,
        entries=entries,
        spends=spending(spend),
        also=tracker,
    )


def _check_response(state: D6AttackFlow, data: D6AttackCallback, key: str, *, armour: bool) -> None:
    """Refuses a response the attack no longer takes: after «Итог» or with a chance not on
    the buttons, the attacker defending against themself, a second answer from the same side,
    or a defender past the table's limit."""
    from_sheet = not armour and data.x == view.FROM_SHEET
    if state.outcome is not None or (data.x not in view.CHANCES and not from_sheet):
        raise Refused(render.closed_text)
    if not armour and key == state.attack.key:
        raise Refused(view.not_the_attacker_text)
    taken = state.armour is not None if armour else any(d.key == key for d in state.defences)
    if taken or (not armour and len(state.defences) >= DEFENDERS_MAX):
        raise Refused(view.once_text)


def _guard_of(found: D6Defence | str | None) -> D6Defence | None:
    """The tracker's side of the defence; its refusal (a sentence) refuses the press."""
    if isinstance(found, str):
        said = found
        raise Refused(lambda: said)
    return found


def _defence_pool(
    data: D6AttackCallback,
    who: rolling.Roller,
    sheet: Sheet | None,
    guard: D6Defence | None,
    profile: Profile,
) -> tuple[int, str, SheetSpend | None]:
    """A defence's dice, their label and what the roll takes off the sheet: the typed chance,
    or the sheet's best power (the tracker's dice without one), slowed by the tracker."""
    from_sheet = data.x == view.FROM_SHEET
    best = best_power(sheet)
    chance: int | None = data.x
    if from_sheet:
        chance = None if best is not None else (guard.dice if guard is not None else None)
        if best is None and chance is None:
            raise Refused(view.no_power_text)
    try:
        ask = rolling.D6Ask(
            chance=chance,
            powers=(best,) if from_sheet and best is not None else (),
            modifier=-guard.slowness if guard is not None else 0,
            action=ActionKind.DEFENCE,
        )
        pool = rolling.d6_pool_of(sheet, who.name, profile, ask)
    except rolling.PoolRefused as refused:
        text = render.plain(str(refused))
        raise Refused(lambda: text) from None
    label = pool.label if pool.dice != data.x or from_sheet else ""
    return pool.dice, label, rolling.d6_spend(who, pool)


def _unchanged(who: rolling.Roller) -> SheetSpend:
    """The defender's sheet as it is: the one script that stores a step with a sheet's change
    also takes the tracker's step, so a defence stays within one write (docs/product.md)."""
    return SheetSpend(
        who.user_id if who.npc is None else 0, SheetSystem.D6, lambda sheet: sheet, npc=who.npc
    )


def _effort(
    state: D6AttackFlow, x: int, actor: Actor, profile: Profile, rng: Rng | None
) -> Outcome[D6AttackFlow]:
    """§D.4 «Особое усилие … сразу после броска кубиков»: the presser rerolls every die of
    their own attack or defence that shows no measure, once per action, before «Итог»; its
    wound lands on their sheet and the new faces in the log, in the same step."""
    fuel = view.EFFORT_PRICES.get(x)
    if state.outcome is not None or fuel is None:
        raise Refused(render.closed_text)
    key = f"u{actor.id}"
    rolls = (state.attack, *state.defences)
    mine = next((r for r in rolls if r.key == key and r.result is not None), None)
    if mine is None or mine.result is None or not view.effort_offered(mine, profile):
        raise Refused(view.effort_refused_text)
    try:
        effort = special_effort(mine.result, fuel, rng=rng, profile=profile)
    except RulesInputError:
        raise Refused(view.effort_refused_text) from None
    again = mine.model_copy(
        update={
            "faces": effort.result.faces,
            "measures": effort.result.measures,
            "result": effort.result,
            "effort": fuel,
            "rerolled": len(effort.result.rerolled),
        }
    )
    if mine.key == state.attack.key:
        after = state.model_copy(update={"attack": again})
    else:
        defences = tuple(again if d.key == key else d for d in state.defences)
        after = state.model_copy(update={"defences": defences})
    entry = entry_of(again, effort.result, "effort").model_copy(
        update={"fresh": tuple(effort.result.faces[i] for i in effort.result.rerolled)}
    )
    wound = effort.wound
    spend = None
    if wound is not None:
        spend = SheetSpend(
            user_id=actor.id,
            system=SheetSystem.D6,
            change=lambda sheet: add_wound(sheet, wound.kind, wound.magnitude),
            create=True,
        )
    return Advance(state=after, entries=(entry,), spends=spending(spend))


def _spend(state: D6AttackFlow, choice: str, profile: Profile, x: int = 0) -> Outcome[D6AttackFlow]:
    """The gain (§D.11–§D.12): all into one wound on the target's sheet, written in the step;
    a shove or a grapple (the first measure knocks down or holds, the rest wounds); a wound
    that carries a poison; taking an item; breaking one; or the manoeuvre declared before
    the roll."""
    assert state.outcome is not None
    try:
        picked = GainChoice(choice)
    except ValueError:
        picked = None
    bad_threshold = picked is GainChoice.BREAK and x not in view.THRESHOLDS
    # a grapple's hold: 1 on a button drawn before the split was offered (x 0)
    hold = max(1, x) if picked is GainChoice.GRAPPLE else 0
    bad_hold = picked is GainChoice.GRAPPLE and hold > state.outcome.gain
    if (
        picked is None
        or bad_threshold
        or bad_hold
        or picked is GainChoice.SPLIT
        or (picked is GainChoice.MANOEUVRE and state.manoeuvre is None)
    ):
        raise Refused(render.invalid_button_text)
    foes = state.foes()
    target_name = foes[0][1] if foes else state.target_name
    hurt = wound_of(picked, state.outcome, profile, hold=max(1, hold))
    poison = hurt[1] if picked is GainChoice.POISON and hurt is not None else 0
    after = state.model_copy(
        update={
            "spent": picked.value,
            "target_name": target_name,
            "poison": poison,
            "threshold": x if picked is GainChoice.BREAK else 0,
            "hold": hold,
        }
    )
    spend = _wound_spend(foes[0], [hurt]) if hurt is not None and foes else None
    return Advance(state=after, close=True, spends=spending(spend))


def _wound_spend(
    foe: tuple[int | None, str], dealt: list[tuple[DifficultyKind, int]]
) -> SheetSpend:
    """The wounds onto a player's sheet, or onto the NPC's sheet by its name; a character
    with no sheet yet gets a blank one in the same step."""
    user_id, name = foe
    if user_id is None:
        return SheetSpend(0, SheetSystem.D6, _wounding(dealt), npc=name, create=True)
    return SheetSpend(user_id, SheetSystem.D6, _wounding(dealt), create=True)


def _share(state: D6AttackFlow, index: int, code: str) -> Outcome[D6AttackFlow]:
    """§D.11 «Семерых одним ударом!» and «Уловка с подвохом!»: one measure more to a foe as a
    physical or a mental wound or the declared manoeuvre's difficulty, or to the manoeuvre's
    advantage. When the whole gain is given, every foe's wounds land on their sheet in one
    step, as :func:`rules.d6.combat.spend_gain` reads the shares."""
    assert state.outcome is not None
    foes = state.foes()
    share = view.share_of(state, index, code)
    if share is None:
        raise Refused(render.invalid_button_text)
    after = state.model_copy(update={"split": (*state.split, share)})
    if len(after.split) < state.outcome.gain:
        return Advance(state=after)
    totals: dict[tuple[int, GainUse], int] = {}
    for given in after.split:
        totals[given.foe, given.use] = totals.get((given.foe, given.use), 0) + 1
    shares = [
        GainShare(target=str(foe), use=use, amount=amount) for (foe, use), amount in totals.items()
    ]
    try:
        effects = spend_gain(state.outcome.gain, shares, declared=state.manoeuvre)
    except RulesInputError:
        raise Refused(render.invalid_button_text) from None
    wounds: dict[int, list[tuple[DifficultyKind, int]]] = {}
    for effect in effects:
        hurt = effect.difficulty
        if hurt is not None and hurt.kind in WOUND_KINDS:
            wounds.setdefault(int(effect.target), []).append((hurt.kind, hurt.magnitude))
    spends = [_wound_spend(foes[foe], dealt) for foe, dealt in wounds.items()]
    after = after.model_copy(update={"spent": GainChoice.SPLIT.value, "splitting": False})
    spend, more = (spends[0], tuple(spends[1:])) if spends else (None, ())
    return Advance(state=after, close=True, spends=spending(spend, *more))


def _wounding(dealt: list[tuple[DifficultyKind, int]]) -> Callable[[Sheet], Sheet]:
    def change(sheet: Sheet) -> Sheet:
        for kind, severity in dealt:
            sheet = add_wound(sheet, kind, severity)
        return sheet

    return change


def draw(
    flow: Flow, state: D6AttackFlow, known: Known[Scene]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state)


TAP: Tap[D6AttackFlow, D6AttackCallback, Scene] = Tap(
    model=D6AttackFlow,
    callback=D6AttackCallback,
    step=step,
    view=draw,
    read=read,
    system=GameSystem.D6,
)
