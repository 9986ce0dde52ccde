"""``/atk``: one attack played out on the chat's attack panel (docs/rules.md §B.3–§B.10).

The panel is one live message per chat (``bot.live``): every attack of the fight uses it in
turn and leaves a line above the next, so a round sends the tracker and the panel and edits
them after that (docs/product.md §5). The attacker (or the Storyteller for an NPC) picks the
manoeuvre and the §B.7 modifiers, then the target, whose button rolls the attack; the target
(or the Storyteller for an NPC) defends with one tap that rolls the damage and the soak too
(docs/rules.md §B.2); an ambush victim who may not defend takes it all in the attacker's tap.
The damage lands on the target's sheet in the same transaction as the step that shows it,
so a wound is never written without its message, nor twice (docs/product.md §3).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import TypeVar

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot import live as bot_live
from bot import render, rolling
from bot.access import runs_game
from bot.parsing import ArgumentsError, InitArguments, parse_init_arguments
from bot.session import safe_edit
from bot.store import ChatSettings, Flow, FlowStateError, SheetSpend, Store
from bot.taps import (
    CONFLICT_ATTEMPTS,
    TapConflict,
    commit_tap,
    open_state,
    retrying,
    screen_of,
    tell,
)
from handlers.combat.attack import view
from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.attack.flow import (
    AIMS,
    APPROACHES,
    COVERS,
    DEFENCES,
    HISTORY_KEPT,
    INTERRUPT_DEFENCES,
    KIND,
    MELEE,
    MOVES,
    PANEL_TTL,
    RANGED,
    WEAPONS,
    AttackFlow,
    Defence,
    Desperate,
    Guard,
    Kit,
    Past,
    Side,
    Stage,
)
from handlers.combat.tracker.steps import Aftermath, after_attack, current_round, refresh
from rules import combat
from rules.combat.manoeuvres import MANOEUVRES, Effect, Reach, Trait
from rules.combat.situation import Condition
from rules.combat.tracker import MAX_FIGHTERS, Fighter, Phase, Round, npc_key, player_key
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.health import HealthTrack, apply_damage
from rules.profiles import GameSystem, Profile
from rules.sheet import (
    Sheet,
    new_sheet,
    set_conditions,
    set_health,
    spend_willpower,
    system_of,
)


def make_router() -> Router:
    router = Router(name="attack")
    router.message.register(atk_command, Command("atk", "attack"))
    router.callback_query.register(atk_tap, AtkCallback.filter())
    return router


_SHEET_TRAITS = (
    Trait.DEXTERITY,
    Trait.STRENGTH,
    Trait.STAMINA,
    Trait.BRAWL,
    Trait.MELEE,
    Trait.FIREARMS,
    Trait.THROWING,
    Trait.DODGE,
    Trait.PERCEPTION,  # blind fire's check (§B.6)
    Trait.AWARENESS,
)


def _ratings(sheet: Sheet | None) -> dict[str, int]:
    """The traits an attack reads, by their combat code; what the sheet lacks is 0 (§B.5)."""
    found: dict[str, int] = {}
    if sheet is None:
        return found
    for trait in _SHEET_TRAITS:
        try:
            value = sheet.rating(trait.value)
        except RulesInputError:  # a trait this game's sheet does not have (Firearms in 1230)
            value = None
        if value:
            found[trait.value] = value
    return found


async def _sides(
    store: Store, chat_id: int, profile: Profile, fighters: list[Fighter], current: Round
) -> list[Side]:
    users = [f.user_id for f in fighters if f.user_id is not None]
    npcs = [f.name for f in fighters if f.user_id is None]
    players, named = await store.load_many(chat_id, system_of(profile), users, npcs)
    sides: list[Side] = []
    for fighter in fighters:
        if fighter.user_id is not None:
            sheet = players.get(fighter.user_id)
        else:
            sheet = named.get(fighter.name)
        sides.append(
            Side(
                key=fighter.key,
                name=fighter.name,
                user_id=fighter.user_id,
                ratings=_ratings(sheet),
                track=sheet.health if sheet is not None else HealthTrack(),
                conditions=_conditions(fighter, current),
                sheet=sheet is not None,
                willpower=sheet.willpower if sheet is not None else None,
                willpower_left=sheet.willpower_current if sheet is not None else None,
            )
        )
    return sides


def _conditions(fighter: Fighter, current: Round) -> tuple[Condition, ...]:
    """The fighter's §B.8 conditions, with the stun the tracker counts (§B.11)."""
    if current.stunned(fighter.key) and Condition.STUNNED not in fighter.conditions:
        return (*fighter.conditions, Condition.STUNNED)
    return fighter.conditions


async def atk_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
) -> None:
    if profile.system is not GameSystem.D10:
        await message.answer(view.d10_only_text())
        return
    user = message.from_user
    chat_id = message.chat.id
    try:
        args = parse_init_arguments(command.args)
    except ArgumentsError:
        args = None
    if args is not None and ((args.base is not None and args.npc is None) or args.copies != 1):
        args = None
    current = await current_round(store, chat_id)
    if args is None:
        npc = _npc_fighter(current, command.args or "") if current is not None else None
        if npc is None:
            await message.answer(view.usage_text())
            return
        args = InitArguments(npc=npc.name)
    if current is None:
        await message.answer(view.no_round_text())
        return
    if args.npc is not None:
        if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
            await message.answer(view.not_yours_text())
            return
        name = args.npc if args.base is None else f"{args.npc} {args.base}"
        key = npc_key(name)
    elif user is None or message.sender_chat is not None:
        await message.answer(view.usage_text())
        return
    else:
        key, name = player_key(user.id), user.first_name
        if current.fighter(key) is None and await runs_game(
            bot, message.chat, chat_settings, user, None
        ):
            acting = _acting_npc(current)
            if acting is None:
                await message.answer(view.name_the_npc_text(_npc_names(current)))
                return
            key, name = acting.key, acting.name
    refusal = await open_panel(bot, store, profile, message, current, key, name)
    if refusal is not None:
        await message.answer(refusal)


def _acting_npc(current: Round) -> Fighter | None:
    """The Storyteller's bare ``/atk`` outside the fight: the NPC whose action it is now."""
    acting = current.actor()
    fighter = current.fighter(acting[0]) if acting is not None else None
    return fighter if fighter is not None and fighter.user_id is None else None


def _npc_names(current: Round) -> list[str]:
    return [f.name for f in current.fighters if f.user_id is None]


def _npc_fighter(current: Round, text: str) -> Fighter | None:
    """``/atk Гуль 2``: the Storyteller attacks as an NPC of the round named by the whole
    line (docs/product.md "NPCs")."""
    typed = " ".join(text.split()).casefold()
    for fighter in current.fighters:
        if fighter.user_id is None and " ".join(fighter.name.split()).casefold() == typed:
            return fighter
    return None


async def open_panel(
    bot: Bot,
    store: Store,
    profile: Profile,
    message: Message,
    current: Round,
    key: str,
    name: str,
) -> str | None:
    """A new attack by the participant ``key`` on the chat's panel (posted, or the finished
    attack's panel reused); the refusal to answer with, or None. ``message`` is what the
    attack came from: the command, or the tracker whose «Атака» was pressed."""
    chat_id = message.chat.id
    attacker = current.fighter(key)
    if attacker is None:
        return view.not_in_fight_text(name)
    others = [f for f in current.fighters if f.key != key]
    if not others:
        return view.no_targets_text()
    sides = await _sides(store, chat_id, profile, [attacker, *others], current)
    fresh = AttackFlow(attacker=sides[0], targets=tuple(sides[1:]), round_no=current.number)
    owner = attacker.user_id or 0
    # The chat has no panel yet (as read ahead): post it, then store it in one step.
    new = store.new_flow(fresh, chat_id, owner)
    drawn = view.draw(new, fresh, profile)
    if await bot_live.open_shown(bot, store, message, KIND, new, drawn, ttl=PANEL_TTL):
        return None
    for _attempt in range(CONFLICT_ATTEMPTS):
        flow, live, created = await store.open_live(KIND, fresh, chat_id, owner, ttl=PANEL_TTL)
        if created:
            drawn = view.draw(flow, fresh, profile)
            await store.keep_screen(flow, screen_of(*drawn))
            await bot_live.show(bot, store, message, KIND, flow, live, drawn, ttl=PANEL_TTL)
            return None
        try:
            state = flow.state(AttackFlow)
        except FlowStateError:
            state = None
        if state is not None and state.stage not in (Stage.DONE, Stage.CANCELLED):
            return view.busy_text(state.attacker.name)
        history = _history(state) if state is not None else ()
        # Desperate defence lasts the turn it was taken in (§B.4), across the round's attacks.
        held = state.desperate if state is not None and state.round_no == current.number else ()
        if any(d.key == key for d in held):
            return view.desperate_busy_text(name)
        kits = state.kits if state is not None else ()
        after = _with_kit(fresh, kits).model_copy(update={"history": history, "desperate": held})
        drawn = view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(flow, flow.version, after, screen=screen_of(*drawn))
        if advanced is not None:
            await bot_live.show(bot, store, message, KIND, advanced, live, drawn, ttl=PANEL_TTL)
            return None
    return render.busy_text()


def _with_kit(fresh: AttackFlow, kits: tuple[Kit, ...]) -> AttackFlow:
    """The attacker's last manoeuvre and weapon, remembered across the fight's attacks."""
    ready = fresh.model_copy(update={"kits": kits})
    kit = ready.kit_of(fresh.attacker.key)
    if kit is None:
        return ready
    return ready.model_copy(
        update={
            "reach": kit.reach,
            "manoeuvre": kit.manoeuvre,
            "ability": kit.ability,
            "weapon": kit.weapon,
        }
    )


def _remember(state: AttackFlow) -> AttackFlow:
    """The attack is rolled: its manoeuvre and weapon become the attacker's next default."""
    kits = tuple(k for k in state.kits if k.key != state.attacker.key)
    return state.model_copy(update={"kits": (*kits, state.kit())[-MAX_FIGHTERS:]})


def _history(state: AttackFlow) -> tuple[Past, ...]:
    """The finished attack joins the lines above the next one (the last few only)."""
    target = state.chosen_target()
    if state.stage is not Stage.DONE or target is None:
        return state.history[-HISTORY_KEPT:]
    past = Past(
        attacker=state.attacker.name,
        target=target.name,
        manoeuvre=state.manoeuvre,
        hit=state.net > 0,
        levels=state.levels,
        kind=state.damage_kind,
        target_key=target.key,
        round_no=state.round_no,
    )
    return (*state.history, past)[-HISTORY_KEPT:]


class _Refused(Exception):
    def __init__(self, text: str) -> None:
        self.text = text


_V = TypeVar("_V")


def _cycle(values: tuple[_V, ...], current: _V) -> _V:
    index = values.index(current) if current in values else -1
    return values[(index + 1) % len(values)]


@retrying
async def atk_tap(
    callback: CallbackQuery,
    callback_data: AtkCallback,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    opened = await open_state(
        callback,
        callback_data.f,
        callback_data.v,
        store,
        AttackFlow,
        profile,
        owner_only=False,
        current_only=True,
    )
    if opened is None:
        return
    flow, message, state = opened
    user = callback.from_user

    async def may_press(side: Side | None) -> None:
        if side is not None and side.user_id is not None and side.user_id == user.id:
            return
        if not await runs_game(bot, message.chat, chat_settings, user, None):
            raise _Refused(view.not_yours_text())

    action, x = callback_data.a, callback_data.x
    current = await current_round(store, message.chat.id)
    try:
        if state.stage is Stage.SETUP:
            await may_press(state.attacker)
            after = _setup(state, action, x, profile, rng)
            if after.stage not in (Stage.SETUP, Stage.CANCELLED):
                after = _guarded(_remember(after), current, profile, rng)
        elif state.stage is Stage.DEFENCE and action is AtkAction.DEFEND:
            await may_press(state.chosen_target())
            if state.guard is Guard.INTERRUPT and DEFENCES[x : x + 1] != (Defence.NONE,):
                raise _Refused(view.interrupt_needed_text(state.chosen_target()))
            after = _roll_through(_defend(state, x, profile, rng), profile, rng)
        elif state.stage is Stage.DEFENCE and action is AtkAction.INTERRUPT:
            await may_press(state.chosen_target())
            after = _roll_through(_interrupt(state, x, profile, rng), profile, rng)
        elif state.stage is Stage.DAMAGE and action is AtkAction.DAMAGE:
            await may_press(state.attacker)
            after = _damage(state, profile, rng)
        elif state.stage is Stage.SOAK and action is AtkAction.SOAK:
            await may_press(state.chosen_target())
            after = _soak(state, profile, rng)
        else:
            raise _Refused(render.invalid_button_text())
    except _Refused as refused:
        await callback.answer(render.plain(refused.text), show_alert=True)
        return
    except RulesInputError:
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    if after.stage is Stage.DONE:
        await _land(callback, message, bot, store, flow, after, profile, current)
    else:
        await commit_tap(
            callback, message, store, flow, after, lambda f: view.draw(f, after, profile)
        )


def _setup(
    state: AttackFlow, action: AtkAction, x: int, profile: Profile, rng: Rng | None
) -> AttackFlow:
    if action is AtkAction.REACH:
        if x not in (0, 1):
            raise _Refused(render.invalid_button_text())
        reach = Reach.MELEE if x == 0 else Reach.RANGED
        first = MELEE[0] if reach is Reach.MELEE else RANGED[0]
        weapon = state.weapon if reach is Reach.MELEE else max(state.weapon, 1)
        return state.model_copy(
            update={"reach": reach, "manoeuvre": first, "ability": None, "weapon": weapon}
        )
    if action is AtkAction.MANOEUVRE:
        listed = MELEE if state.reach is Reach.MELEE else RANGED
        if not 0 <= x < len(listed):
            raise _Refused(render.invalid_button_text())
        return state.model_copy(update={"manoeuvre": listed[x], "ability": None})
    if action is AtkAction.ABILITY:
        allowed = MANOEUVRES[state.manoeuvre].abilities
        return state.model_copy(update={"ability": _cycle(allowed, state.used_ability())})
    if action is AtkAction.TARGET:  # the target's button rolls the attack (one tap)
        if not 0 <= x < len(state.targets):
            raise _Refused(render.invalid_button_text())
        return _attack(state.model_copy(update={"target": x}), profile, rng)
    if action is AtkAction.WEAPON:
        if x not in WEAPONS:
            raise _Refused(render.invalid_button_text())
        return state.model_copy(update={"weapon": x})
    if action is AtkAction.APPROACH:
        return state.model_copy(update={"approach": _cycle(APPROACHES, state.approach)})
    if action is AtkAction.COVER:
        return state.model_copy(update={"cover": _cycle(COVERS, state.cover)})
    if action is AtkAction.AIM:
        return state.model_copy(update={"aim": _cycle(AIMS, state.aim)})
    if action is AtkAction.MOVE:
        return state.model_copy(update={"moved": _cycle(MOVES, state.moved)})
    if action is AtkAction.OFF_HAND:
        return state.model_copy(update={"off_hand": not state.off_hand})
    if action is AtkAction.AMBUSH:
        return state.model_copy(update={"ambush": not state.ambush})
    if action is AtkAction.CANCEL:
        return state.model_copy(update={"stage": Stage.CANCELLED})
    if action is not AtkAction.ATTACK or state.chosen_target() is None:
        raise _Refused(render.invalid_button_text())
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
        raise _Refused(render.invalid_button_text())
    spend = x % 2 == 1
    if spend:
        try:
            combat.interruption_allowed(profile, spend_willpower=True)
        except RulesInputError:
            raise _Refused(view.no_interrupt_spend_text()) from None
        if target.willpower_left is not None and target.willpower_left < 1:
            raise _Refused(rolling.no_willpower_text(target.willpower or 0))
        ok, roll = True, None
    else:
        if not target.willpower:
            raise _Refused(view.no_willpower_text(target.name))
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
        raise _Refused(render.invalid_button_text())
    return combat.Target(stamina=target.rating(Trait.STAMINA), track=target.track)


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
            raise _Refused(view.blind_unseen_text(state.attacker.name))
        rolled_check = rolling.roll_d10(check.pool, check.difficulty, profile, rng=rng)
        state = state.model_copy(update={"blind_check": rolled_check})
    plan = state.plan(profile)
    if plan.roll.reason is combat.PlanReason.BLIND_CHECK_FAILED:
        return state.model_copy(update={"stage": Stage.DONE, "net": 0})
    if plan.status is combat.PlanStatus.IMPOSSIBLE:
        raise _Refused(view.cannot_attack_text())
    attack = None
    if plan.status is combat.PlanStatus.ROLL or plan.status is combat.PlanStatus.AUTO_HIT:
        attack = rolling.roll_d10(
            plan.roll.pool, plan.roll.difficulty, profile, threshold=plan.roll.threshold, rng=rng
        )
    rolled = state.model_copy(update={"attack": attack})
    outcome = _outcome(rolled, profile)
    if outcome.result is not combat.HitResult.HIT:
        return rolled.model_copy(update={"stage": Stage.DONE, "net": 0})
    if state.ambush and not profile.combat.ambush_victim_defends:
        # AMB-B14: the ambush victim gets no defence roll; soak still applies.
        if outcome.damage_type is None:
            return rolled.model_copy(update={"stage": Stage.DONE, "net": outcome.net})
        return rolled.model_copy(
            update={"stage": Stage.DAMAGE, "net": outcome.net, "damage_kind": outcome.damage_type}
        )
    return rolled.model_copy(update={"stage": Stage.DEFENCE, "net": outcome.attack_successes})


def _defend(state: AttackFlow, x: int, profile: Profile, rng: Rng | None) -> AttackFlow:
    """§B.3 step 2 and §B.4: the defence's successes come off the attack's (AMB-B2)."""
    if not 0 <= x < len(DEFENCES):
        raise _Refused(render.invalid_button_text())
    kind = DEFENCES[x]
    target = state.chosen_target()
    held = state.desperate_of(target.key) if target is not None else None
    if target is not None and held is not None and kind is not held.defence:
        raise _Refused(view.desperate_only_text(target.name))
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
        raise _Refused(render.invalid_button_text())
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
            # A sheet with no Stamina written (an NPC nobody wrote down) says nothing of a
            # stun: the tracker would skip two rounds of it on a guess (docs/rules.md §B.11).
            "stunned": outcome.stunned and _target(state).stamina > 0,
            "knocked": Effect.KNOCKDOWN in MANOEUVRES[state.manoeuvre].effects,
            "track_after": outcome.track,
        }
    )


async def _land(
    callback: CallbackQuery,
    message: Message,
    bot: Bot,
    store: Store,
    flow: Flow,
    after: AttackFlow,
    profile: Profile,
    current: Round | None,
) -> None:
    """The attack's last step: the flow, the target's sheet and the round tracker change in
    one step (docs/product.md §5). The levels are applied to the sheet as it is now (another
    wound may have landed since the panel opened); a knocking hit puts the target down, even
    when it is all soaked (§B.8); a point of Willpower spent to interrupt leaves the sheet
    here. The tracker takes the wound, the knockdown, the stun (§B.11), the defence used or
    the Interruption, and moves on from the attacker's action by itself."""
    target = after.chosen_target()
    if target is None:
        raise _Refused(render.invalid_button_text())
    kind = after.damage_kind
    levels = after.levels if kind is not None else 0
    spent = after.interrupt_spent and after.interrupted
    system = system_of(profile)

    def wound(sheet: Sheet) -> Sheet | None:
        hurt = sheet
        if spent and sheet.willpower is not None:
            hurt = spend_willpower(hurt)
        if kind is not None and levels:
            hurt = set_health(hurt, apply_damage(hurt.health, kind, levels, profile.combat).track)
        if after.knocked and Condition.PRONE not in hurt.conditions:
            hurt = set_conditions(hurt, (*hurt.conditions, Condition.PRONE))
        return None if hurt == sheet else hurt

    spend = SheetSpend(
        user_id=target.user_id or 0,
        system=system,
        change=wound,
        npc=target.name if target.user_id is None else None,
        create=bool(levels) or after.knocked,
    )
    # The tracker's step after the attack, taken in the same step (as read ahead).
    tracker = None
    expected: HealthTrack | None = None
    if kind is not None and levels:
        now = (
            await store.load_sheet(message.chat.id, target.user_id, system)
            if target.user_id is not None
            else await store.load_npc(message.chat.id, system, target.name)
        ) or new_sheet(system)  # a sheet the step creates
        expected = apply_damage(now.health, kind, levels, profile.combat).track
    if current is not None:
        aftermath = Aftermath(
            changed={target.key: expected} if expected is not None else {},
            knocked=frozenset({target.key}) if after.knocked else frozenset(),
            stunned=frozenset({target.key}) if after.stunned else frozenset(),
            defended=target.key if _used_declared(after) else None,
            interrupted=target.key if after.interrupted else None,
            resolved=after.attacker.key,
        )
        tracker = await after_attack(store, message.chat.id, profile, aftermath)
    text, markup = view.draw(flow.next(after, close=False), after, profile)
    try:
        advanced, sheet = await store.advance_flow_spending(
            flow,
            flow.version,
            after,
            spend,
            screen=screen_of(text, markup),
            also=tracker.step if tracker is not None else None,
        )
    except RulesInputError:  # the Willpower point went since the panel read the sheet
        await tell(callback, lambda: rolling.no_willpower_text(target.willpower or 0), alert=True)
        return
    if advanced is None:
        raise TapConflict(flow.id)
    if tracker is not None and (
        expected is None or (sheet is not None and sheet.health == expected)
    ):
        await bot_live.redraw(bot, message.chat.id, tracker.live, tracker.drawn)
    elif expected is not None:  # the sheet had changed
        await refresh(bot, store, message.chat.id, profile)
    if sheet is not None and expected is not None and sheet.health != after.track_after:
        shown = after.model_copy(update={"track_after": sheet.health})
        text, markup = view.draw(advanced, shown, profile)
        await store.keep_screen(advanced, screen_of(text, markup))
    await safe_edit(message, text, markup)
    await callback.answer()


def _used_declared(state: AttackFlow) -> bool:
    """A declared defence met this attack and is spent (a desperate one lasts the turn)."""
    if state.guard is not Guard.DECLARED or state.defence in (None, Defence.NONE):
        return False
    target = state.chosen_target()
    held = state.desperate_of(target.key) if target is not None else None
    return held is None or held.met <= 1
