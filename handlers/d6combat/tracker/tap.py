"""The d6 round tracker's buttons as one pure step (bot/runner.py; docs/rules.md §D.7–§D.9).

Steps that move the round carry how many steps were taken when they were drawn, so two presses
of «Действовать» move the round once. Who may press: the one who is up (their player, or the
Storyteller for anyone), a holder for themself, any participant with dice for their own
defence; the Storyteller picks the NPC who cuts in or defends, and is no fighter unless they
join; «Убрать» takes out one's own character, or anyone for the Storyteller (docs/product.md
"NPCs"). «⚔️ Атака» on a target rolls the attack from the attacker's sheet and stores it with
the tracker's step (:func:`handlers.d6combat.attack.router.attack_from_tracker`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.access import runs_game
from bot.runner import (
    Actor,
    Advance,
    Answer,
    Known,
    Open,
    Opens,
    Outcome,
    Reading,
    Tap,
    refuse,
    repeat,
    spending,
)
from handlers.d6combat.attack.router import attack_from_tracker, tracker_rollers
from handlers.d6combat.tracker import view
from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from handlers.d6combat.tracker.flow import KIND, D6InitFlow, Member, Panel, player_key
from handlers.d6combat.tracker.steps import D6Side, refusal, side_name
from rules.d6 import initiative as d6i
from rules.d6.chance import DifficultyKind
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem, add_wound
from table.store import Flow, SheetSpend

STEPS = frozenset(
    {
        D6InitAction.ACT,
        D6InitAction.ATTACK,
        D6InitAction.HOLD,
        D6InitAction.NEW_ROUND,
        D6InitAction.GUARD,
        D6InitAction.GUARD_BY,
    }
)
_UP = (D6InitAction.ACT, D6InitAction.HOLD, D6InitAction.ATTACK)


@dataclass(frozen=True)
class Table:
    """What a d6 tracker step reads besides the round: whether the presser runs the game
    (asked only when the step may need it), the presser's sheet when they join, and the
    attacker's and the target's sheets when «⚔️ Атака» names a target."""

    storyteller: bool = False
    sheet: Sheet | None = None
    attack: tuple[Sheet | None, Sheet | None] = (None, None)


class Refused(Exception):
    """The press is answered with an alert and nothing changes."""

    def __init__(self, text: Answer) -> None:
        self.text = text


def combatant(key: str, sheet: Sheet | None, dice: int | None, hero: bool) -> d6i.Combatant:
    """A fighter's initiative dice: as typed, or the sheet's alacrity, or a hero's three."""
    alacrity = dice
    if alacrity is None and sheet is not None and sheet.alacrity is not None:
        alacrity = sheet.alacrity
    return d6i.Combatant(
        id=key,
        alacrity=alacrity if alacrity is not None else d6i.HERO_ALACRITY,
        hero=hero,
        weakness=sheet.weakness if sheet is not None else None,
    )


def join(state: D6InitFlow, fighter: d6i.Combatant, member: Member, rng: Rng | None) -> D6InitFlow:
    """The fighter in the fight (the first one opens its round), with a line saying so."""
    if state.round is None:
        current = d6i.start_round([fighter], rng=rng)
    else:
        current = d6i.join(state.round, fighter, rng=rng)
    note = view.joined_note(member.name, fighter.alacrity)
    return state.model_copy(
        update={
            "round": current,
            "members": {**state.members, fighter.id: member},
            "note": note,
        }
    )


# ----- what the step reads --------------------------------------------------------------


def needs_storyteller(state: D6InitFlow, data: D6InitCallback, presser: int) -> bool:
    """Whether the step may ask who runs the game (a Telegram call while the chat has no
    Storyteller): never for joining, nor for a press on one's own character's behalf."""
    own, action, current = player_key(presser), data.a, state.round
    if action is D6InitAction.JOIN:
        return False
    if action in _UP:
        return current is not None and current.up is not None and current.up.actor != own
    if action in (D6InitAction.CUT_IN, D6InitAction.DEFEND):
        return data.y >= 0 or own not in state.members
    if action is D6InitAction.GUARD:
        return own not in state.members
    if action is D6InitAction.PANEL:
        return not _closes_own(state, own)
    if action is D6InitAction.NEW_ROUND:
        return current is not None and current.up is not None
    if action is D6InitAction.REMOVE and current is not None:
        if data.y < 0:
            return own not in state.members
        fighters = current.fighters
        return not (0 <= data.y < len(fighters) and fighters[data.y].sheet.id == own)
    return True


def _closes_own(state: D6InitFlow, own: str) -> bool:
    """Anyone in the fight closes the choice of whom to protect, remove or attack."""
    return state.panel in (Panel.GUARD, Panel.REMOVE, Panel.TARGET) and own in state.members


def _target_of(state: D6InitFlow, data: D6InitCallback) -> tuple[D6Side, D6Side] | None:
    """The attacker (who is up) and the target «⚔️ Атака» names, when the press names one."""
    current = state.round
    if data.a is not D6InitAction.ATTACK or data.y < 0 or current is None or current.up is None:
        return None
    actor = current.up.actor
    if not 0 <= data.y < len(current.fighters) or current.fighters[data.y].sheet.id == actor:
        return None
    attacker = next(f for f in current.fighters if f.sheet.id == actor)
    return _side(state, attacker), _side(state, current.fighters[data.y])


async def read(reading: Reading[D6InitFlow, D6InitCallback]) -> Table:
    """The right, the joiner's sheet, the attack's two sheets: each only when it is needed."""
    state, data, presser = reading.state, reading.action, reading.presser
    chat, store = reading.message.chat, reading.store
    storyteller = False
    if needs_storyteller(state, data, presser.id):
        assert reading.bot is not None
        assert reading.chat_settings is not None
        storyteller = await runs_game(reading.bot, chat, reading.chat_settings, presser, None)
    sheet: Sheet | None = None
    if data.a is D6InitAction.JOIN and player_key(presser.id) not in state.members:
        sheet = await store.load_sheet(chat.id, presser.id, SheetSystem.D6)
    sides = _target_of(state, data)
    attack: tuple[Sheet | None, Sheet | None] = (None, None)
    if sides is not None:
        assert reading.profile is not None
        who, aimed = tracker_rollers(chat.id, *sides)
        attack = (
            await rolling.load_sheet(store, who, reading.profile),
            await rolling.load_sheet(store, aimed, reading.profile),
        )
    return Table(storyteller=storyteller, sheet=sheet, attack=attack)


# ----- the step ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Press:
    """One press on the d6 tracker: what every part of the step reads."""

    state: D6InitFlow
    data: D6InitCallback
    actor: Actor
    known: Known[Table]
    rng: Rng | None

    @property
    def own(self) -> str:
        return player_key(self.actor.id)

    @property
    def storyteller(self) -> bool:
        return self.known.read.storyteller

    @property
    def profile(self) -> Profile:
        return self.known.profile

    def name_of(self, key: str) -> str:
        return side_name(self.state, key)

    def npc_at(self, current: d6i.Round, index: int) -> str:
        """The NPC the Storyteller picked by position on the drawn list."""
        if not 0 <= index < len(current.fighters):
            raise Refused(render.invalid_button_text)
        key = current.fighters[index].sheet.id
        member = self.state.members.get(key)
        if member is None or member.user_id is not None:
            raise Refused(render.invalid_button_text)
        return key

    def up(self, current: d6i.Round) -> str:
        """The one who is up, if the presser may press for them."""
        if current.up is None:
            raise Refused(lambda: view.refused_text("not this fighter's turn"))
        actor = current.up.actor
        if actor != self.own and not self.storyteller:
            name = self.name_of(actor)
            raise Refused(lambda: view.not_your_turn_text(name))
        return actor


def step(
    state: D6InitFlow, data: D6InitCallback, actor: Actor, known: Known[Table], rng: Rng | None
) -> Outcome[D6InitFlow]:
    current = state.round
    opening = current is None and data.a in (D6InitAction.JOIN, D6InitAction.END)
    if (current is None and not opening) or state.ended:
        return refuse(render.closed_text)
    action, x = data.a, data.x
    if action in STEPS and current is not None and x != len(current.log):
        return repeat()
    press = Press(state, data, actor, known, rng)
    if action is D6InitAction.ATTACK and data.y >= 0 and current is not None:
        if data.v != known.flow.version:  # a name pressed on an older list
            return refuse(view.changed_text)
        return _attack(press, current, data.y)
    try:
        after = _step(press)
    except Refused as refused:
        said = refused.text
        return refuse(lambda: render.plain(said()))
    except RulesInputError as error:
        failed = error
        return refuse(lambda: refusal(failed))
    # A finished fight: the chat points at no tracker, and its message is unpinned.
    return Advance(
        state=after,
        close=after.ended,
        ends_live=KIND if after.ended else None,
        spends=on_edge_spends(after) if action is D6InitAction.NEW_ROUND else (),
    )


def on_edge_spends(state: D6InitFlow) -> tuple[SheetSpend, ...]:
    """S3 «оказываются на взводе… и эта душевная рана мешает им концентрироваться»: «на
    взводе» is a wound, so it goes onto the sheet in the step that starts the next round and
    lowers every chance there like any other wound (§D.2, §D.8). A sheet already full of
    wounds keeps what it has rather than stop the round."""
    spends = []
    for key, magnitude in state.on_edge.items():
        member = state.members.get(key)
        if member is None:
            continue
        change = _on_edge(magnitude)
        if member.user_id is not None:
            spends.append(SheetSpend(member.user_id, SheetSystem.D6, change, create=True))
        else:
            spends.append(SheetSpend(0, SheetSystem.D6, change, npc=member.name, create=True))
    return tuple(spends)


def _on_edge(magnitude: int) -> Callable[[Sheet], Sheet | None]:
    def change(sheet: Sheet) -> Sheet | None:
        try:
            return add_wound(sheet, DifficultyKind.ON_EDGE, magnitude)
        except RulesInputError:
            return None

    return change


def _step(press: Press) -> D6InitFlow:
    state, data, own = press.state, press.data, press.own
    if data.a is D6InitAction.JOIN:
        if own in state.members:
            raise Refused(view.already_in_text)
        actor = press.actor
        member = Member(name=actor.full_name or str(actor.id), user_id=actor.id)
        fighter = combatant(own, press.known.read.sheet, None, hero=True)
        return join(state, fighter, member, press.rng)
    if data.a is D6InitAction.END:
        if not press.storyteller:
            raise Refused(view.storyteller_only_text)
        return state.model_copy(update={"ended": True, "panel": Panel.NONE, "note": ""})
    current = state.round
    assert current is not None
    if data.a is D6InitAction.REMOVE:
        if data.y >= 0 and data.v != press.known.flow.version:  # a name on an older list
            raise Refused(view.changed_text)
        return _remove(press, current, data.y)
    part = _STEP_OF.get(data.a)
    if part is None:
        raise Refused(render.invalid_button_text)
    return part(press, current)


def _targets(press: Press, current: d6i.Round) -> D6InitFlow:
    """«⚔️ Атака»: the targets to pick from."""
    press.up(current)
    return press.state.model_copy(update={"panel": Panel.TARGET, "guard_by": None})


def _act_or_hold(press: Press, current: d6i.Round) -> D6InitFlow:
    actor = press.up(current)
    assert current.up is not None
    if press.data.a is D6InitAction.ACT:
        value = current.up.value
        changed = d6i.act(current, actor, press.rng)
        note = view.acted_note(press.name_of(actor), value)
    else:
        changed = d6i.hold(current, actor, press.rng)
        note = view.held_note(press.name_of(actor))
    return press.state.model_copy(update={"round": changed, "note": note, "panel": Panel.NONE})


def _cut_in_or_defend(press: Press, current: d6i.Round) -> D6InitFlow:
    state, data, own, action = press.state, press.data, press.own, press.data.a
    if data.y >= 0:
        if not press.storyteller:
            raise Refused(view.storyteller_only_text)
        key = press.npc_at(current, data.y)
    elif own in state.members:
        key = own
    elif press.storyteller:
        panel = Panel.CUT_IN if action is D6InitAction.CUT_IN else Panel.DEFEND
        return state.model_copy(update={"panel": panel})
    else:
        raise Refused(view.not_in_fight_text)
    fighter = next(f for f in current.fighters if f.sheet.id == key)
    if action is D6InitAction.CUT_IN:
        if not fighter.holding:
            raise Refused(lambda: view.refused_text("not this fighter's turn"))
        value = fighter.remaining[0] if fighter.remaining else 0
        changed = d6i.act(current, key, press.rng)
        note = view.cut_in_note(press.name_of(key), value)
    else:
        changed, defence = d6i.defend(current, key, rng=press.rng, profile=press.profile)
        note = view.defended_note(press.name_of(key), defence.die, defence.slowness)
    return state.model_copy(update={"round": changed, "note": note, "panel": Panel.NONE})


def _guard_step(press: Press, current: d6i.Round) -> D6InitFlow:
    state, data, own = press.state, press.data, press.own
    guard_by = None
    if own not in state.members:
        if not press.storyteller:
            raise Refused(view.not_in_fight_text)
        if data.y < 0:  # the Storyteller first picks the NPC who protects
            return state.model_copy(update={"panel": Panel.GUARD_BY, "guard_by": None})
        if state.panel is not Panel.GUARD or state.guard_by is None:
            raise Refused(render.invalid_button_text)
        guard_by = state.guard_by
    return guard(press, current, guard_by or own, data.y)


def guard(press: Press, current: d6i.Round, defender: str, index: int) -> D6InitFlow:
    """S3 «Противник может … защищать себя или товарища»: ``defender`` (the presser's
    character, or the NPC the Storyteller picked) defends the fighter at ``index`` against the
    latest action; a slow defence of another is the chat's house rule (AMB-D8,
    ``d6.slow_defence_of_others``). ``index`` −1 opens the choice."""
    state, profile = press.state, press.profile
    if index < 0:
        return state.model_copy(update={"panel": Panel.GUARD, "guard_by": None})
    if not 0 <= index < len(current.fighters):
        raise Refused(render.invalid_button_text)
    protected = current.fighters[index].sheet.id
    if protected == view.last_actor(state):
        raise Refused(lambda: view.refused_text("cannot defend against oneself"))
    guarded = None if protected == defender else protected
    try:
        changed, defence = d6i.defend(
            current, defender, protecting=guarded, rng=press.rng, profile=profile
        )
    except RulesInputError as error:
        if error.field == "protecting":
            raise Refused(lambda: view.slow_guard_refused_text(profile)) from None
        raise
    name_of = press.name_of
    if guarded is None:
        note = view.defended_note(name_of(defender), defence.die, defence.slowness)
    else:
        note = view.guarded_note(name_of(defender), name_of(guarded), defence.die, defence.slowness)
    return state.model_copy(
        update={"round": changed, "note": note, "panel": Panel.NONE, "guard_by": None}
    )


def _guard_by(press: Press, current: d6i.Round) -> D6InitFlow:
    if not press.storyteller:
        raise Refused(view.storyteller_only_text)
    key = press.npc_at(current, press.data.y)
    return press.state.model_copy(update={"panel": Panel.GUARD, "guard_by": key})


def _close_panel(press: Press, current: d6i.Round) -> D6InitFlow:
    # anyone in the fight closes the choice of whom to protect or remove; the NPC panels
    # are the Storyteller's
    if not _closes_own(press.state, press.own) and not press.storyteller:
        raise Refused(view.storyteller_only_text)
    return press.state.model_copy(update={"panel": Panel.NONE, "guard_by": None})


def _new_round(press: Press, current: d6i.Round) -> D6InitFlow:
    if current.up is not None and not press.storyteller:
        raise Refused(view.storyteller_only_text)
    fresh, ended = d6i.restart(current, rng=press.rng, profile=press.profile)
    on_edge = {key: wound.magnitude for key, wound in ended.wounds.items()}
    note = view.on_edge_note([press.name_of(k) for k in on_edge]) if on_edge else ""
    return press.state.model_copy(
        update={"round": fresh, "note": note, "on_edge": on_edge, "panel": Panel.NONE}
    )


_STEP_OF: dict[D6InitAction, Callable[[Press, d6i.Round], D6InitFlow]] = {
    D6InitAction.ATTACK: _targets,
    D6InitAction.ACT: _act_or_hold,
    D6InitAction.HOLD: _act_or_hold,
    D6InitAction.CUT_IN: _cut_in_or_defend,
    D6InitAction.DEFEND: _cut_in_or_defend,
    D6InitAction.GUARD: _guard_step,
    D6InitAction.GUARD_BY: _guard_by,
    D6InitAction.PANEL: _close_panel,
    D6InitAction.NEW_ROUND: _new_round,
}


def _remove(press: Press, current: d6i.Round, index: int) -> D6InitFlow:
    """«Убрать»: anyone in the fight opens the list and takes their own character out; the
    scenarist removes anyone, a player or an NPC (docs/product.md "NPCs"). The last one out
    leaves the fight open with nobody in it."""
    state, own = press.state, press.own
    if index < 0:
        if own not in state.members and not press.storyteller:
            raise Refused(view.storyteller_only_text)
        return state.model_copy(update={"panel": Panel.REMOVE, "guard_by": None})
    if not 0 <= index < len(current.fighters):
        raise Refused(render.invalid_button_text)
    key = current.fighters[index].sheet.id
    if key != own and not press.storyteller:
        raise Refused(view.storyteller_only_text)
    changed = d6i.leave(current, key) if len(current.fighters) > 1 else None
    members = {k: m for k, m in state.members.items() if k != key}
    on_edge = {k: n for k, n in state.on_edge.items() if k != key}
    note = view.removed_note(state.members[key].name if key in state.members else key)
    return state.model_copy(
        update={
            "round": changed,
            "members": members,
            "on_edge": on_edge,
            "note": note,
            "panel": Panel.NONE,
        }
    )


def _side(state: D6InitFlow, fighter: d6i.Fighter) -> D6Side:
    key = fighter.sheet.id
    member = state.members.get(key)
    name = member.name if member is not None else key
    user_id = member.user_id if member is not None else None
    powers = state.powers.get(key, ())
    return D6Side(key, name, user_id, fighter.sheet.alacrity, powers)


def _attack(press: Press, current: d6i.Round, index: int) -> Outcome[D6InitFlow]:
    """«⚔️ Атака», a target picked: the attack is the one who is up's action, so their die is
    set aside whatever the result (§D.9) and the round goes on by itself; the attack, rolled
    from the attacker's sheet, is stored with the tracker's step and posted once it is. An
    attack that cannot be made (no chance) spends nothing."""
    state, known = press.state, press.known
    up = current.up
    if up is None:
        return refuse(lambda: view.refused_text("not this fighter's turn"))
    actor = up.actor
    if actor != press.own and not press.storyteller:
        return refuse(lambda: view.not_your_turn_text(side_name(state, actor)))
    sides = _target_of(state, press.data)
    if sides is None:
        return refuse(render.invalid_button_text)
    attacker, target = sides
    opened = attack_from_tracker(
        known.profile, known.flow.chat_id, attacker, target, known.read.attack, press.rng
    )
    if isinstance(opened, str):
        said = opened
        return refuse(lambda: said)
    try:
        changed = d6i.act(current, actor, press.rng)
    except RulesInputError as error:
        failed = error
        return refuse(lambda: refusal(failed))
    note = view.attack_note(side_name(state, actor), target.name, up.value)
    after = state.model_copy(update={"round": changed, "note": note, "panel": Panel.NONE})
    # The roll may use tricks off the attacker's sheet: spent in the same step, or nothing is.
    return Open(
        state=after,
        opens=Opens(opened.state, opened.owner, opened.draw, opened.entries),
        spends=spending(opened.spend),
    )


def draw(
    flow: Flow, state: D6InitFlow, known: Known[Table]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.profile)


TAP: Tap[D6InitFlow, D6InitCallback, Table] = Tap(
    model=D6InitFlow,
    callback=D6InitCallback,
    step=step,
    view=draw,
    read=read,
    system=GameSystem.D6,
)
