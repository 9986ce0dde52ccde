"""The attack panel's buttons as one pure step (bot/runner.py; docs/rules.md §B.3–§B.10).

The attacker (or the Storyteller for an NPC) picks the manoeuvre and the §B.7 modifiers, then
the target, whose button rolls the attack; the target (or the Storyteller for an NPC) defends
with one tap that rolls the damage and the soak too (docs/rules.md §B.2); an ambush victim who
may not defend takes it all in the attacker's tap. The attack's last step stores the panel,
the target's sheet and the round tracker's step in one compare-and-set (docs/product.md §5),
so a wound is never written without its message, nor twice (docs/product.md §3).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.access import runs_game
from bot.runner import (
    Actor,
    Advance,
    Answer,
    Known,
    Outcome,
    Reading,
    SheetMoved,
    Tap,
    refuse,
    spending,
)
from handlers.combat.attack import view
from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.attack.flow import (
    AIMS,
    APPROACHES,
    CALLED_SHOTS,
    COVERS,
    DEFENCES,
    INTERRUPT_DEFENCES,
    MELEE,
    MOVES,
    RANGED,
    WEAPONS,
    AttackFlow,
    Defence,
    Desperate,
    Guard,
    Side,
    Stage,
    soaker_of,
)
from handlers.combat.tracker.steps import Aftermath, Open, after_attack, open_tracker
from rules import combat
from rules.combat.damage import DiceTally
from rules.combat.manoeuvres import MANOEUVRES, Effect, Reach
from rules.combat.situation import Condition
from rules.combat.tracker import MAX_FIGHTERS, Phase, Round
from rules.d10 import D10Result
from rules.d10 import Outcome as RollOutcome
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.health import HealthTrack, apply_damage
from rules.profiles import Profile
from rules.sheet import (
    Sheet,
    is_vampire,
    new_sheet,
    set_conditions,
    set_health,
    spend_willpower,
    system_of,
)
from table.store import Flow, LogEntry, SheetSpend

# The buttons whose step may end the attack (and so wound someone and move the round on).
_LANDING = frozenset(
    {AtkAction.TARGET, AtkAction.ATTACK, AtkAction.DEFEND, AtkAction.INTERRUPT}
    | {AtkAction.DAMAGE, AtkAction.SOAK}
)


@dataclass(frozen=True)
class Scene:
    """What an attack's step reads besides the panel: whether the presser runs the game
    (asked only of a press for someone else's side), the chat's open tracker (with the
    fighters' health read only when the step may wound), and the target's sheet now."""

    storyteller: bool = False
    tracker: Open | None = None
    sheet: Sheet | None = None

    @property
    def round(self) -> Round | None:
        return self.tracker.state.round if self.tracker is not None else None


class _Refused(Exception):
    """The press is answered with an alert and nothing changes."""

    def __init__(self, text: Answer) -> None:
        self.text = text


def _side_of(state: AttackFlow, button: AtkCallback) -> Side | None:
    """The side whose press it is: the attacker's while setting up and for the damage, the
    target's for the defence and the soak; None for a button of no stage."""
    action = button.a
    if state.stage is Stage.SETUP or (state.stage is Stage.DAMAGE and action is AtkAction.DAMAGE):
        return state.attacker
    if state.pending() and action is AtkAction.CANCEL:
        return state.attacker  # or the Storyteller: an unanswered attack holds nobody
    defending = action in (AtkAction.DEFEND, AtkAction.INTERRUPT)
    if (state.stage is Stage.DEFENCE and defending) or (
        state.stage is Stage.SOAK and action is AtkAction.SOAK
    ):
        return state.chosen_target()
    return None


def _prospect(state: AttackFlow, button: AtkCallback) -> Side | None:
    """The target the press may wound: the chosen one, or the one its button names."""
    if state.stage is Stage.SETUP and button.a is AtkAction.TARGET:
        return state.targets[button.x] if 0 <= button.x < len(state.targets) else None
    return state.chosen_target()


def _mine(side: Side | None, presser: int) -> bool:
    return side is not None and side.user_id is not None and side.user_id == presser


async def read(reading: Reading[AttackFlow, AtkCallback]) -> Scene:
    """Read only what the press may need: the right when it is for someone else's side, the
    sheets when it may wound."""
    state, button, presser = reading.state, reading.action, reading.presser
    assert reading.profile is not None
    profile, chat = reading.profile, reading.message.chat
    side = _side_of(state, button)
    storyteller = False
    if side is not None and not _mine(side, presser.id):
        assert reading.bot is not None
        assert reading.chat_settings is not None
        storyteller = await runs_game(reading.bot, chat, reading.chat_settings, presser, None)
    landing = side is not None and button.a in _LANDING
    tracker = await open_tracker(reading.store, chat.id, profile, tracks=landing)
    sheet: Sheet | None = None
    target = _prospect(state, button) if landing else None
    if target is not None:
        system = system_of(profile)
        sheet = (
            await reading.store.load_sheet(chat.id, target.user_id, system)
            if target.user_id is not None
            else await reading.store.load_npc(chat.id, system, target.name)
        )
    return Scene(storyteller=storyteller, tracker=tracker, sheet=sheet)


def step(
    state: AttackFlow, button: AtkCallback, actor: Actor, known: Known[Scene], rng: Rng | None
) -> Outcome[AttackFlow]:
    try:
        side = _side_of(state, button)
        if side is None:
            raise _Refused(render.invalid_button_text)
        if not _mine(side, actor.id) and not known.read.storyteller:
            raise _Refused(view.not_yours_text)
        if state.pending() and _outlived(state, known.read.tracker):
            # its round or its fight is over: the late answer closes the panel, nothing lands
            return Advance(
                state=state.model_copy(update={"stage": Stage.CANCELLED, "lapsed": True})
            )
        after = _next(state, button, known.profile, known.read.round, rng)
        logged = log_entries(state, after, actor.id)
        if after.stage is Stage.DONE:
            return _land(after, known, logged)
    except _Refused as refused:
        said = refused.text
        return refuse(lambda: render.plain(said()))
    return Advance(state=after, entries=logged)


# The log's kinds of a fight's rolls (the chronicle names them, handlers/chronicle).
BLIND_KIND = "blind"
ATTACK_KIND = "atk"
INTERRUPT_KIND = "intr"
DEFENCE_KIND = "def"
DAMAGE_KIND = "dmg"
SOAK_KIND = "soak"


def log_entries(before: AttackFlow, after: AttackFlow, presser: int) -> tuple[LogEntry, ...]:
    """The rolls this press made, as the chat's log keeps them, in the order rolled: the
    blind shot's check, the attack, the Interruption, the defence, the damage, the soak,
    each with the fight's round, so /log, /stats and the chronicle see a fight. An NPC's
    roll is logged under the Storyteller who pressed for it, with the NPC's name."""
    target = after.chosen_target()
    round_no = after.round_no or None

    def who(side: Side | None) -> tuple[int, str]:
        if side is None:
            return presser, "?"
        return (side.user_id if side.user_id is not None else presser), side.name

    def d10(side: Side | None, roll: D10Result, kind: str) -> LogEntry:
        user_id, name = who(side)
        entry = rolling.log_entry(user_id, name, len(roll.faces), roll, kind)
        return entry.model_copy(update={"round_no": round_no})

    def tallied(side: Side | None, roll: DiceTally, kind: str) -> LogEntry:
        user_id, name = who(side)
        return LogEntry(
            user_id=user_id,
            name=name,
            pool=len(roll.faces),
            difficulty=roll.difficulty,
            faces=roll.faces,
            successes=roll.successes,
            outcome=(RollOutcome.SUCCESS if roll.successes > 0 else RollOutcome.FAILURE).value,
            kind=kind,
            round_no=round_no,
        )

    entries: list[LogEntry] = []
    rolls: tuple[tuple[D10Result | None, D10Result | None, Side | None, str], ...] = (
        (before.blind_check, after.blind_check, after.attacker, BLIND_KIND),
        (before.attack, after.attack, after.attacker, ATTACK_KIND),
        (before.interruption, after.interruption, target, INTERRUPT_KIND),
        (before.defence_roll, after.defence_roll, target, DEFENCE_KIND),
    )
    for was, now, side, kind in rolls:
        if now is not None and now is not was:
            entries.append(d10(side, now, kind))
    tallies: tuple[tuple[DiceTally | None, DiceTally | None, Side | None, str], ...] = (
        (before.damage, after.damage, after.attacker, DAMAGE_KIND),
        (before.soak, after.soak, target, SOAK_KIND),
    )
    for was_t, now_t, side, kind in tallies:
        if now_t is not None and now_t is not was_t and now_t.faces:
            entries.append(tallied(side, now_t, kind))
    return tuple(entries)


def _outlived(state: AttackFlow, tracker: Open | None) -> bool:
    if tracker is None:
        return state.outlived(None, None)
    return state.outlived(tracker.flow.id, tracker.state.round.number, tracker.state.ended)


def _next(
    state: AttackFlow, button: AtkCallback, profile: Profile, current: Round | None, rng: Rng | None
) -> AttackFlow:
    action, x = button.a, button.x
    if state.stage is Stage.SETUP:
        after = _setup(state, action, x, profile, rng)
        if after.stage not in (Stage.SETUP, Stage.CANCELLED):
            after = _guarded(_remember(after), current, profile, rng)
        return after
    if state.stage is Stage.DEFENCE and action is AtkAction.DEFEND:
        target = state.chosen_target()
        if state.guard is Guard.INTERRUPT and DEFENCES[x : x + 1] != (Defence.NONE,):
            raise _Refused(lambda: view.interrupt_needed_text(target))
        return _roll_through(_defend(state, x, profile, rng), profile, rng)
    if state.stage is Stage.DEFENCE and action is AtkAction.INTERRUPT:
        target = state.chosen_target()
        marked = current is not None and target is not None and current.spent_willpower(target.key)
        if x % 2 == 1 and marked and target is not None:
            raise _Refused(lambda: view.willpower_spent_text(target.name))
        return _roll_through(_interrupt(state, x, profile, rng), profile, rng)
    if state.stage is Stage.DAMAGE and action is AtkAction.DAMAGE:
        return _damage(state, profile, rng)
    if state.stage is Stage.SOAK and action is AtkAction.SOAK:
        return _soak(state, profile, rng)
    if state.pending() and action is AtkAction.CANCEL:
        return state.model_copy(update={"stage": Stage.CANCELLED})
    raise _Refused(render.invalid_button_text)


def _remember(state: AttackFlow) -> AttackFlow:
    """The attack is rolled: its manoeuvre and weapon become the attacker's next default."""
    kits = tuple(k for k in state.kits if k.key != state.attacker.key)
    return state.model_copy(update={"kits": (*kits, state.kit())[-MAX_FIGHTERS:]})


def _land(
    after: AttackFlow, known: Known[Scene], entries: tuple[LogEntry, ...] = ()
) -> Outcome[AttackFlow]:
    """The attack's last step: the flow, the target's sheet, the round tracker and the log
    (``entries``, the press's rolls) change in one step (docs/product.md §5). The levels are
    applied to the sheet as it is then (another wound may have landed since the panel
    opened); a knocking hit puts the target down, even when it is all soaked (§B.8); a point
    of Willpower spent to interrupt leaves the sheet here. The tracker takes the wound, the
    knockdown, the stun (§B.11), the defence used or the Interruption, and moves on from the
    attacker's action by itself."""
    target = after.chosen_target()
    if target is None:
        raise _Refused(render.invalid_button_text)
    profile = known.profile
    kind = after.damage_kind
    levels = after.levels if kind is not None else 0
    spent = after.interrupt_spent and after.interrupted

    seen = known.read.sheet or new_sheet(system_of(profile))

    def wound(sheet: Sheet) -> Sheet | None:
        if kind is not None and levels and sheet.health != seen.health:
            # Another wound landed since the step read the sheet: the panel would show a
            # track the sheet does not have, so the press runs again on the sheet as it is.
            raise SheetMoved
        hurt = sheet
        if spent and sheet.willpower is not None:
            hurt = spend_willpower(hurt)
        if kind is not None and levels:
            undead = is_vampire(hurt)
            track = apply_damage(hurt.health, kind, levels, profile.combat, undead=undead).track
            hurt = set_health(hurt, track)
        if after.knocked and Condition.PRONE not in hurt.conditions:
            hurt = set_conditions(hurt, (*hurt.conditions, Condition.PRONE))
        return None if hurt == sheet else hurt

    system = system_of(profile)
    spend = SheetSpend(
        user_id=target.user_id or 0,
        system=system,
        change=wound,
        npc=target.name if target.user_id is None else None,
        create=bool(levels) or after.knocked,
    )
    expected: HealthTrack | None = None
    if kind is not None and levels:
        # the sheet as read (a blank one the step creates when there is none)
        undead = is_vampire(seen)
        expected = apply_damage(seen.health, kind, levels, profile.combat, undead=undead).track
        # the panel shows the track the sheet will have, not the one it opened with
        after = after.model_copy(update={"track_after": expected})
    opened = known.read.tracker
    moved = None
    if opened is not None:
        aftermath = Aftermath(
            changed={target.key: expected} if expected is not None else {},
            knocked=frozenset({target.key}) if after.knocked else frozenset(),
            stunned=frozenset({target.key}) if after.stunned else frozenset(),
            defended=target.key if _used_declared(after) else None,
            interrupted=target.key if after.interrupted else None,
            resolved=after.attacker.key,
            willpower=target.key if spent else None,
        )
        moved = after_attack(opened, profile, aftermath)
    willpower = target.willpower or 0
    return Advance(
        state=after,
        entries=entries,
        spends=spending(spend),
        also=moved,
        unpaid=lambda: rolling.no_willpower_text(willpower),
    )


def draw(
    flow: Flow, state: AttackFlow, known: Known[Scene]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.profile)


TAP: Tap[AttackFlow, AtkCallback, Scene] = Tap(
    model=AttackFlow, callback=AtkCallback, step=step, view=draw, read=read, current_only=True
)


_V = TypeVar("_V")


def _cycle(values: tuple[_V, ...], current: _V) -> _V:
    index = values.index(current) if current in values else -1
    return values[(index + 1) % len(values)]


# The buttons that step one setting round its values or flip a yes/no: the change each makes.
_STEPPED: dict[AtkAction, Callable[[AttackFlow], dict[str, object]]] = {
    AtkAction.APPROACH: lambda s: {"approach": _cycle(APPROACHES, s.approach)},
    AtkAction.COVER: lambda s: {"cover": _cycle(COVERS, s.cover)},
    AtkAction.OWN_COVER: lambda s: {"own_cover": _cycle(COVERS, s.own_cover)},
    AtkAction.CALLED: lambda s: {"called": _cycle(CALLED_SHOTS, s.called)},
    AtkAction.AIM: lambda s: {"aim": _cycle(AIMS, s.aim)},
    AtkAction.MOVE: lambda s: {"moved": _cycle(MOVES, s.moved)},
    AtkAction.OFF_HAND: lambda s: {"off_hand": not s.off_hand},
    AtkAction.AMBUSH: lambda s: {"ambush": not s.ambush},
}


def _reach(state: AttackFlow, x: int) -> AttackFlow:
    """Melee or ranged: the first manoeuvre of that kind, and a gun needs at least one die."""
    if x not in (0, 1):
        raise _Refused(render.invalid_button_text)
    reach = Reach.MELEE if x == 0 else Reach.RANGED
    first = MELEE[0] if reach is Reach.MELEE else RANGED[0]
    weapon = state.weapon if reach is Reach.MELEE else max(state.weapon, 1)
    return state.model_copy(
        update={"reach": reach, "manoeuvre": first, "ability": None, "weapon": weapon}
    )


def _manoeuvre(state: AttackFlow, x: int) -> AttackFlow:
    listed = state.manoeuvres()
    if not 0 <= x < len(listed):
        raise _Refused(render.invalid_button_text)
    return state.model_copy(update={"manoeuvre": listed[x], "ability": None})


def _weapon(state: AttackFlow, x: int) -> AttackFlow:
    if x not in WEAPONS:
        raise _Refused(render.invalid_button_text)
    return state.model_copy(update={"weapon": x})


_CHOSEN: dict[AtkAction, Callable[[AttackFlow, int], AttackFlow]] = {
    AtkAction.REACH: _reach,
    AtkAction.MANOEUVRE: _manoeuvre,
    AtkAction.WEAPON: _weapon,
}


def _setup(
    state: AttackFlow, action: AtkAction, x: int, profile: Profile, rng: Rng | None
) -> AttackFlow:
    chosen = _CHOSEN.get(action)
    if chosen is not None:
        return chosen(state, x)
    stepped = _STEPPED.get(action)
    if stepped is not None:
        return state.model_copy(update=stepped(state))
    if action is AtkAction.ABILITY:
        allowed = MANOEUVRES[state.manoeuvre].abilities
        return state.model_copy(update={"ability": _cycle(allowed, state.used_ability())})
    if action is AtkAction.TARGET:  # the target's button rolls the attack (one tap)
        if not 0 <= x < len(state.targets):
            raise _Refused(render.invalid_button_text)
        return _attack(state.model_copy(update={"target": x}), profile, rng)
    if action is AtkAction.CANCEL:
        return state.model_copy(update={"stage": Stage.CANCELLED})
    if action is not AtkAction.ATTACK or state.chosen_target() is None:
        raise _Refused(render.invalid_button_text)
    return _attack(state, profile, rng)


def guard_of(state: AttackFlow, current: Round | None) -> Guard:
    """§B.3 step 2: the target defends with a declared, unused defensive manoeuvre (or the
    desperate defence it holds), else only by an Interruption, which needs declared actions
    not yet taken; a round without declarations on the tracker leaves it to the table."""
    target = state.chosen_target()
    if target is None or current is None or current.phase is not Phase.RESOLVE:
        return Guard.FREE
    if target.key not in current.order:
        return Guard.FREE
    if state.desperate_of(target.key) is not None or current.has_defence(target.key):
        return Guard.DECLARED
    if current.can_interrupt(target.key):
        return Guard.INTERRUPT
    return Guard.NONE


def _guarded(
    state: AttackFlow, current: Round | None, profile: Profile, rng: Rng | None
) -> AttackFlow:
    """The attack is rolled: a target that cannot defend takes the hit at once, and so does
    an ambush victim (AMB-B14), whose damage and soak then have no choice left in them: the
    attack resolves in the attacker's one tap and the tracker moves on (docs/rules.md §B.2)."""
    if state.stage is Stage.DAMAGE:
        return _roll_through(state, profile, rng)
    if state.stage is not Stage.DEFENCE:
        return state
    guard = guard_of(state, current)
    state = state.model_copy(update={"guard": guard})
    if guard is not Guard.NONE:
        return state
    return _roll_through(_defend(state, DEFENCES.index(Defence.NONE), profile, rng), profile, rng)


def _interrupt(state: AttackFlow, x: int, profile: Profile, rng: Rng | None) -> AttackFlow:
    """S4 «Прерывание … (бросок Силы Воли или трата 1 Силы Воли)» for a dodge or a block
    (x: the defence's index, twice, plus 1 for a point spent): one success at the table's
    difficulty (AMB-B4), or the point, paid with the step that shows it; a failed roll costs
    nothing and the attack comes through undefended (docs/rules.md §B.2)."""
    target = state.chosen_target()
    kind = DEFENCES[x // 2] if 0 <= x < 2 * len(DEFENCES) else Defence.NONE
    if state.guard is not Guard.INTERRUPT or target is None or kind not in INTERRUPT_DEFENCES:
        raise _Refused(render.invalid_button_text)
    spend = x % 2 == 1
    if spend:
        try:
            combat.interruption_allowed(profile, spend_willpower=True)
        except RulesInputError:
            raise _Refused(view.no_interrupt_spend_text) from None
        if target.willpower_left is not None and target.willpower_left < 1:
            raise _Refused(lambda: rolling.no_willpower_text(target.willpower or 0))
        ok, roll = True, None
    else:
        if not target.willpower:
            raise _Refused(lambda: view.no_willpower_text(target.name))
        roll = rolling.roll_d10(
            target.willpower, profile.combat.interruption_difficulty, profile, rng=rng
        )
        ok = combat.interruption_allowed(profile, willpower_roll=roll)
    tried = state.model_copy(
        update={"interruption": roll, "interrupt_spent": spend, "interrupted": ok}
    )
    chosen = kind if ok else Defence.NONE
    return _defend(tried, DEFENCES.index(chosen), profile, rng)


def _roll_through(state: AttackFlow, profile: Profile, rng: Rng | None) -> AttackFlow:
    """After the defence the rest of the chain has no choice in it: damage and the soak are
    rolled at once (§B.3 steps 3–4), so the attack costs the defender one tap."""
    if state.stage is Stage.DAMAGE:
        state = _damage(state, profile, rng)
    if state.stage is Stage.SOAK:
        state = _soak(state, profile, rng)
    return state


def _target(state: AttackFlow) -> combat.Target:
    target = state.chosen_target()
    if target is None:
        raise _Refused(render.invalid_button_text)
    return soaker_of(target)


def _outcome(
    state: AttackFlow, profile: Profile, dice: combat.Rolled | None = None
) -> combat.AttackOutcome:
    """The rules' whole chain for what has been rolled so far. Dice not yet rolled come from
    a fixed stand-in source: only the numbers before them (net, pools) are read then."""
    return combat.resolve_attack(
        state.plan(profile),
        _target(state),
        profile,
        replace(
            dice or combat.Rolled(),
            attack=state.attack,
            defence=state.defence_roll,
            ambush=state.ambush,
        ),
        rng=_STAND_IN,
    )


_STAND_IN = random.Random(0)


def _attack(state: AttackFlow, profile: Profile, rng: Rng | None) -> AttackFlow:
    """§B.3 step 1: roll the plan; a botch or no success ends the attack at once. A gated
    blind shot rolls its check first, in the same tap: without a success there is no shot."""
    if state.blind_gated(profile):
        check = state.blind_plan(profile)
        if check.status is not combat.PlanStatus.ROLL:
            raise _Refused(lambda: view.blind_unseen_text(state.attacker.name))
        rolled_check = rolling.roll_d10(check.pool, check.difficulty, profile, rng=rng)
        state = state.model_copy(update={"blind_check": rolled_check})
    plan = state.plan(profile)
    if plan.roll.reason is combat.PlanReason.BLIND_CHECK_FAILED:
        return state.model_copy(update={"stage": Stage.DONE, "net": 0})
    if plan.status is combat.PlanStatus.IMPOSSIBLE:
        raise _Refused(view.cannot_attack_text)
    attack = None
    if plan.status is combat.PlanStatus.ROLL or plan.status is combat.PlanStatus.AUTO_HIT:
        attack = rolling.roll_d10(
            plan.roll.pool, plan.roll.difficulty, profile, threshold=plan.roll.threshold, rng=rng
        )
    rolled = state.model_copy(update={"attack": attack})
    outcome = _outcome(rolled, profile)
    if outcome.result is not combat.HitResult.HIT:
        return rolled.model_copy(update={"stage": Stage.DONE, "net": 0})
    undefended = state.ambush and not profile.combat.ambush_victim_defends
    if undefended or plan.status is combat.PlanStatus.AUTO_HIT:
        # AMB-B14: the ambush victim gets no defence roll; soak still applies. S4
        # «автоматическое попадание против полностью обездвиженного»: no dodge either.
        if outcome.damage_type is None:
            return rolled.model_copy(update={"stage": Stage.DONE, "net": outcome.net})
        return rolled.model_copy(
            update={"stage": Stage.DAMAGE, "net": outcome.net, "damage_kind": outcome.damage_type}
        )
    return rolled.model_copy(update={"stage": Stage.DEFENCE, "net": outcome.attack_successes})


def _defend(state: AttackFlow, x: int, profile: Profile, rng: Rng | None) -> AttackFlow:
    """§B.3 step 2 and §B.4: the defence's successes come off the attack's (AMB-B2)."""
    if not 0 <= x < len(DEFENCES):
        raise _Refused(render.invalid_button_text)
    kind = DEFENCES[x]
    target = state.chosen_target()
    held = state.desperate_of(target.key) if target is not None else None
    if target is not None and held is not None and kind is not held.defence:
        raise _Refused(lambda: view.desperate_only_text(target.name))
    roll_plan = state.defence_plan(profile, kind)
    defence = None
    if roll_plan is not None and roll_plan.status is combat.PlanStatus.ROLL:
        defence = rolling.roll_d10(
            roll_plan.pool, roll_plan.difficulty, profile, threshold=roll_plan.threshold, rng=rng
        )
    defended = state.model_copy(update={"defence": kind, "defence_roll": defence})
    if kind.desperate and target is not None:
        met = Desperate(key=target.key, defence=kind, met=(held.met if held else 0) + 1)
        others = tuple(d for d in state.desperate if d.key != target.key)
        defended = defended.model_copy(update={"desperate": (*others, met)})
    outcome = _outcome(defended, profile)
    net = max(outcome.net, 0)
    if outcome.result is not combat.HitResult.HIT or outcome.damage_type is None:
        return defended.model_copy(update={"stage": Stage.DONE, "net": net})
    return defended.model_copy(
        update={"stage": Stage.DAMAGE, "net": net, "damage_kind": outcome.damage_type}
    )


def _damage(state: AttackFlow, profile: Profile, rng: Rng | None) -> AttackFlow:
    """§B.3 step 3: base + (net − 1) dice at difficulty 6, no botch (AMB-B2)."""
    pool = _outcome(state, profile).damage_pool
    damage = combat.roll_damage(pool, profile.combat, rng=rng)
    rolled = state.model_copy(update={"damage": damage})
    if state.damage_kind is None or state.soak_dice(profile, state.damage_kind) == 0:
        return _final(rolled, profile)  # nothing this target may soak with (§B.10)
    return rolled.model_copy(update={"stage": Stage.SOAK})


def _soak(state: AttackFlow, profile: Profile, rng: Rng | None) -> AttackFlow:
    """§B.3 step 4 «Поглощение урона (бросок), если это возможно» (§B.10)."""
    if state.damage_kind is None:
        raise _Refused(render.invalid_button_text)
    pool = state.soak_dice(profile, state.damage_kind)
    soak = combat.roll_soak(pool, profile.combat, rng=rng)
    return _final(state.model_copy(update={"soak": soak}), profile)


def _final(state: AttackFlow, profile: Profile) -> AttackFlow:
    assert state.damage is not None
    outcome = _outcome(
        state,
        profile,
        combat.Rolled(
            damage_faces=state.damage.faces,
            soak_faces=state.soak.faces if state.soak is not None else None,
            earlier_levels=state.earlier_levels(),
        ),
    )
    return state.model_copy(
        update={
            "stage": Stage.DONE,
            "levels": outcome.levels,
            "halved": outcome.halved,
            # A sheet with no Stamina written (an NPC nobody wrote down) says nothing of a
            # stun: the tracker would skip two rounds of it on a guess (docs/rules.md §B.11).
            "stunned": outcome.stunned and _target(state).stamina > 0,
            "knocked": Effect.KNOCKDOWN in MANOEUVRES[state.manoeuvre].effects,
            "track_after": outcome.track,
        }
    )


def _used_declared(state: AttackFlow) -> bool:
    """A declared defence met this attack and is spent (a desperate one lasts the turn)."""
    if state.guard is not Guard.DECLARED or state.defence in (None, Defence.NONE):
        return False
    target = state.chosen_target()
    held = state.desperate_of(target.key) if target is not None else None
    return held is None or held.met <= 1
