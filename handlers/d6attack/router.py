"""``/atk`` in a d6 chat: an attack, its responses and its gain (RULES.md §D.9–§D.11).

The attacker rolls with the command (a manoeuvre is declared before the roll, S3 «о нём надо
заявить заранее»); each defender answers once with their chance (AMB-D7), subtracting one
after another (AMB-D9); the armour rolls after a defence that did not bear fruit or instead of
it, never with a fiasco. «Итог» (the attacker or the Storyteller) takes the responses off the
attack; a hit's gain is then spent by the attacker: all into a physical or a mental wound,
written onto the target's sheet in the same step, a trick of §D.12, the declared manoeuvre, or
shared out a measure a tap (§D.11). The tricks rolled before with /r (§D.12) count here: a
run-up or an aim on the attack, full defence on a defence, the target's escape on an attack in
reply to them.
"""

from __future__ import annotations

from collections.abc import Callable

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message, User

from bot import render, rolling, vocabulary
from bot.access import owner_or_storyteller
from bot.features import in_game
from bot.names import roller_name
from bot.parsing import ArgumentsError, D6Arguments, Problem, parse_d6_arguments
from bot.session import safe_edit
from bot.store import ChatSettings, Flow, LogEntry, SheetSpend, Store
from bot.taps import TapConflict, commit_tap, open_state, retrying, screen_of
from handlers.d6attack import view
from handlers.d6attack.callbacks import AttackAction, D6AttackCallback, GainChoice
from handlers.d6attack.flow import DEFENDERS_MAX, D6AttackFlow, Roll
from rules.d6.chance import WOUND_KINDS, DifficultyKind
from rules.d6.combat import (
    ActionKind,
    AttackResult,
    GainShare,
    GainUse,
    Manoeuvre,
    grapple,
    poison_wound,
    pursuit,
    resolve_attack,
    shove,
    spend_gain,
)
from rules.d6.roll import D6Result, auto_success, gain_value
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem, add_wound


def make_router() -> Router:
    router = Router(name="d6attack")
    router.message.register(d6_attack_command, Command("atk", "attack"), in_game(GameSystem.D6))
    router.callback_query.register(d6_attack_tap, D6AttackCallback.filter())
    return router


def _manoeuvre(words: list[str]) -> tuple[Manoeuvre | None, list[str]]:
    """``уловка трудность`` / ``уловка преимущество`` anywhere in the line."""
    folded = [w.casefold() for w in words]
    for i, word in enumerate(folded[:-1]):
        if word in vocabulary.TRICK:
            kind = folded[i + 1]
            if kind in vocabulary.TRICK_DIFFICULTY:
                return Manoeuvre.DIFFICULTY, words[:i] + words[i + 2 :]
            if kind in vocabulary.TRICK_ADVANTAGE:
                return Manoeuvre.ADVANTAGE, words[:i] + words[i + 2 :]
    if any(w in vocabulary.TRICK for w in folded):
        raise ArgumentsError(Problem.NOT_A_NUMBER)
    return None, words


def _entry(roll: Roll, result: D6Result, kind: str) -> LogEntry:
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


async def d6_attack_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    user = message.from_user
    who = rolling.Roller(message.chat.id, user.id if user else 0, roller_name(message, user))
    replied = message.reply_to_message
    target = replied.from_user if replied is not None else None
    if target is not None and (target.is_bot or target.id == who.user_id):
        target = None
    fleeing = 0
    if target is not None:  # §D.12 Побег: the escapee's measures hinder whoever attacks them
        escapee = await store.load_sheet(message.chat.id, target.id, SheetSystem.D6)
        fleeing = pursuit(escapee.edges) if escapee is not None else 0
    try:
        manoeuvre, rest = _manoeuvre((command.args or "").split())
        args = parse_d6_arguments(" ".join(rest))
        if args.trick() is not None:  # a trick is an action of its own, rolled with /r
            raise ArgumentsError(Problem.NOT_A_NUMBER)
        if args.auto:
            await _auto_attack(message, store, profile, who, args, manoeuvre, target)
            return
        pool = await rolling.d6_pool(
            store,
            who,
            profile,
            chance=args.chance,
            powers=args.powers,
            weakness=args.weakness,
            modifier=args.modifier,
            luck=args.luck,
            relief=args.relief,
            action=ActionKind.ATTACK,
            pursuit=fleeing,
        )
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    except rolling.PoolRefused as refused:
        await message.answer(str(refused))
        return
    result = rolling.roll_d6(pool.dice, rng=rng, profile=profile)
    attack = Roll(
        key=f"u{who.user_id}",
        name=who.name,
        user_id=who.user_id,
        faces=result.faces,
        measures=result.measures,
    )
    state = D6AttackFlow(
        attack=attack,
        label=pool.label,
        manoeuvre=manoeuvre,
        target_name=target.first_name if target is not None else None,
        target_user=target.id if target is not None else None,
    )
    entries = [_entry(attack, result, "attack")]
    flow = await rolling.create_d6_flow(store, state, who, pool, entries)
    if flow is None:  # the luck dice left the sheet since it was read
        await message.answer(rolling.no_luck_text(0))
        return
    text, markup = view.draw(flow, state)
    await message.answer(text, reply_markup=markup)


async def _auto_attack(
    message: Message,
    store: Store,
    profile: Profile,
    who: rolling.Roller,
    args: D6Arguments,
    manoeuvre: Manoeuvre | None,
    target: User | None,
) -> None:
    """An attack that needs no roll (S2 «бросать кубики не нужно»; S3 «Беспомощность»: to bind
    or finish a helpless foe): a hit at once, no defence, its gain the chat's number for a
    success without a roll (AMB-D2, ``d6.auto_success_gain``). Nothing is rolled, spent or
    logged; the powers named are checked on the sheet and shown."""
    label = ""
    if args.powers or args.chance is not None:
        try:
            pool = await rolling.d6_pool(
                store, who, profile, chance=args.chance, powers=args.powers
            )
        except rolling.PoolRefused as refused:
            await message.answer(str(refused))
            return
        label = pool.label
    gain = gain_value(auto_success(), profile)
    attack = Roll(
        key=f"u{who.user_id}", name=who.name, user_id=who.user_id, faces=(), measures=gain
    )
    state = D6AttackFlow(
        attack=attack,
        label=label,
        manoeuvre=manoeuvre,
        target_name=target.first_name if target is not None else None,
        target_user=target.id if target is not None else None,
        outcome=resolve_attack(gain, {}, None, attacker=attack.key),
        auto=view.auto_line(label, gain, profile),
    )
    flow = await store.create_flow(state, who.chat_id, who.user_id)
    text, markup = view.draw(flow, state)
    await message.answer(text, reply_markup=markup)


@retrying
async def d6_attack_tap(
    callback: CallbackQuery,
    callback_data: D6AttackCallback,
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
        D6AttackFlow,
        profile,
        system=GameSystem.D6,
    )
    if opened is None:
        return
    flow, message, state = opened
    user = callback.from_user
    action = callback_data.a

    if action in (AttackAction.DEFEND, AttackAction.ARMOUR):
        await _respond(callback, message, store, flow, state, callback_data, profile, rng)
        return
    attacker = state.attack.user_id or 0
    if not await owner_or_storyteller(bot, message.chat, chat_settings, user, attacker):
        await callback.answer(view.attacker_only_text(), show_alert=True)
        return
    if action is AttackAction.RESOLVE and state.outcome is None:
        outcome = resolve_attack(
            state.attack.measures,
            {d.key: d.measures for d in state.defences},
            state.armour.measures if state.armour is not None else None,
            attacker=state.attack.key,
        )
        after = state.model_copy(update={"outcome": outcome})
        await commit_tap(
            callback,
            message,
            store,
            flow,
            after,
            lambda f: view.draw(f, after),
            close=not outcome.hit,
        )
        return
    if (
        action is AttackAction.SPEND
        and callback_data.c == GainChoice.SPLIT
        and state.spent is None
        and not state.splitting
        and view.split_offered(state)
    ):
        after = state.model_copy(update={"splitting": True, "split": ()})
        await commit_tap(callback, message, store, flow, after, lambda f: view.draw(f, after))
        return
    if action is AttackAction.UNDO and state.splitting and state.spent is None:
        if state.split:
            after = state.model_copy(update={"split": state.split[:-1]})
        else:
            after = state.model_copy(update={"splitting": False})
        await commit_tap(callback, message, store, flow, after, lambda f: view.draw(f, after))
        return
    if action is AttackAction.SHARE and state.splitting and state.spent is None:
        await _share(callback, message, store, flow, state, callback_data.x, callback_data.c)
        return
    if (
        action is AttackAction.SPEND
        and state.outcome is not None
        and state.outcome.hit
        and not state.splitting
    ):
        await _spend(
            callback, message, store, flow, state, callback_data.c, profile, callback_data.x
        )
        return
    await callback.answer(render.invalid_button_text(), show_alert=True)


async def _respond(
    callback: CallbackQuery,
    message: Message,
    store: Store,
    flow: Flow,
    state: D6AttackFlow,
    data: D6AttackCallback,
    profile: Profile,
    rng: Rng | None,
) -> None:
    """A defence or the armour (§D.9–§D.10), once each. A defence is the defender's action:
    full defence declared before adds its advantage to it (§D.12), and whatever else waited on
    the defender is lost with it — in the same step. The armour is no action and touches
    nothing."""
    user = callback.from_user
    action = data.a
    if state.outcome is not None or data.x not in view.CHANCES:
        await callback.answer(render.closed_text(), show_alert=True)
        return
    key = f"u{user.id}"
    armour = action is AttackAction.ARMOUR
    if not armour and key == state.attack.key:
        await callback.answer(view.not_the_attacker_text(), show_alert=True)
        return
    taken = state.armour is not None if armour else any(d.key == key for d in state.defences)
    if taken or (not armour and len(state.defences) >= DEFENDERS_MAX):
        await callback.answer(view.once_text(), show_alert=True)
        return
    dice, label, spend = data.x, "", None
    if not armour:
        who = rolling.Roller(flow.chat_id, user.id, user.full_name)
        try:
            pool = rolling.d6_pool_of(
                await rolling.load_sheet(store, who, profile),
                who.name,
                profile,
                chance=data.x,
                action=ActionKind.DEFENCE,
            )
        except rolling.PoolRefused as refused:
            await callback.answer(render.plain(str(refused)), show_alert=True)
            return
        dice, spend = pool.dice, rolling.d6_spend(who, pool)
        label = pool.label if pool.dice != data.x else ""
    result = rolling.roll_d6(dice, rng=rng, profile=profile, armour=armour)
    roll = Roll(
        key=key,
        name=user.full_name,
        user_id=user.id,
        faces=result.faces,
        measures=result.measures,
        label=label,
    )
    entries = [_entry(roll, result, "armour" if armour else "defence")]
    if armour:
        after = state.model_copy(update={"armour": roll})
    else:
        after = state.model_copy(update={"defences": (*state.defences, roll)})
    if spend is None:
        await commit_tap(
            callback, message, store, flow, after, lambda f: view.draw(f, after), entries=entries
        )
        return
    await _commit_spending(callback, message, store, flow, after, [spend], entries=entries)


async def _commit_spending(
    callback: CallbackQuery,
    message: Message,
    store: Store,
    flow: Flow,
    after: D6AttackFlow,
    spends: list[SheetSpend],
    *,
    close: bool = False,
    entries: list[LogEntry] | None = None,
) -> None:
    """The step and the sheets it changes in one compare-and-set (a lost race runs the tap
    again), then the message edited in place."""
    drawn = view.draw(flow.next(after, close=close), after)
    if not spends:
        advanced = await store.advance_flow(
            flow, flow.version, after, close=close, entries=entries or (), screen=screen_of(*drawn)
        )
    else:
        try:
            advanced, _sheet = await store.advance_flow_spending(
                flow,
                flow.version,
                after,
                spends[0],
                close=close,
                entries=entries or (),
                screen=screen_of(*drawn),
                more=spends[1:],
            )
        except RulesInputError:
            await callback.answer(render.invalid_button_text(), show_alert=True)
            return
    if advanced is None:
        raise TapConflict(flow.id)
    await safe_edit(message, drawn[0], drawn[1])
    await callback.answer()


async def _sheet_for(store: Store, chat_id: int, user_id: int) -> None:
    """A wound lands on a sheet that exists before the step (an empty one is made for a
    player who has none), so it is written in the step's own transaction, once."""
    if await store.load_sheet(chat_id, user_id, SheetSystem.D6) is None:
        await store.update_sheet(chat_id, user_id, SheetSystem.D6, lambda s: s)


async def _spend(
    callback: CallbackQuery,
    message: Message,
    store: Store,
    flow: Flow,
    state: D6AttackFlow,
    choice: str,
    profile: Profile,
    x: int = 0,
) -> None:
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
    if (
        picked is None
        or bad_threshold
        or picked is GainChoice.SPLIT
        or (picked is GainChoice.MANOEUVRE and state.manoeuvre is None)
    ):
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    target_user, target_name = state.target_user, state.target_name
    if target_user is None and state.defences:
        target_user, target_name = state.defences[0].user_id, state.defences[0].name
    hurt = _wound_of(picked, state.outcome, profile)
    poison = hurt[1] if picked is GainChoice.POISON and hurt is not None else 0
    after = state.model_copy(
        update={
            "spent": picked.value,
            "target_name": target_name,
            "poison": poison,
            "threshold": x if picked is GainChoice.BREAK else 0,
        }
    )
    spends = []
    if hurt is not None and target_user is not None:
        await _sheet_for(store, flow.chat_id, target_user)
        spends.append(SheetSpend(target_user, SheetSystem.D6, _wounding([hurt])))
    await _commit_spending(callback, message, store, flow, after, spends, close=True)


async def _share(
    callback: CallbackQuery,
    message: Message,
    store: Store,
    flow: Flow,
    state: D6AttackFlow,
    index: int,
    code: str,
) -> None:
    """§D.11 «Семерых одним ударом!» and «Уловка с подвохом!»: one measure more to a foe as a
    physical or a mental wound or the declared manoeuvre's difficulty, or to the manoeuvre's
    advantage. When the whole gain is given, every foe's wounds land on their sheet in one
    step, as :func:`rules.d6.combat.spend_gain` reads the shares."""
    assert state.outcome is not None
    foes = state.foes()
    share = view.share_of(state, index, code)
    if share is None:
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    after = state.model_copy(update={"split": (*state.split, share)})
    if len(after.split) < state.outcome.gain:
        await commit_tap(callback, message, store, flow, after, lambda f: view.draw(f, after))
        return
    totals: dict[tuple[int, GainUse], int] = {}
    for given in after.split:
        totals[given.foe, given.use] = totals.get((given.foe, given.use), 0) + 1
    shares = [
        GainShare(target=str(foe), use=use, amount=amount) for (foe, use), amount in totals.items()
    ]
    try:
        effects = spend_gain(state.outcome.gain, shares, declared=state.manoeuvre)
    except RulesInputError:
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    wounds: dict[int, list[tuple[DifficultyKind, int]]] = {}
    for effect in effects:
        hurt = effect.difficulty
        if hurt is not None and hurt.kind in WOUND_KINDS:
            wounds.setdefault(int(effect.target), []).append((hurt.kind, hurt.magnitude))
    spends = []
    for foe, dealt in wounds.items():
        user_id = foes[foe][0]
        await _sheet_for(store, flow.chat_id, user_id)
        spends.append(SheetSpend(user_id, SheetSystem.D6, _wounding(dealt)))
    after = after.model_copy(update={"spent": GainChoice.SPLIT.value, "splitting": False})
    await _commit_spending(callback, message, store, flow, after, spends, close=True)


def _wounding(dealt: list[tuple[DifficultyKind, int]]) -> Callable[[Sheet], Sheet]:
    def change(sheet: Sheet) -> Sheet:
        for kind, severity in dealt:
            sheet = add_wound(sheet, kind, severity)
        return sheet

    return change


def _wound_of(
    choice: GainChoice, outcome: AttackResult, profile: Profile
) -> tuple[DifficultyKind, int] | None:
    """The wound a use of the gain deals (§D.11–§D.12): all of it, or what is left after the
    first measure went into knocking down (a shove) or holding (a grapple); a poisoned wound
    by the final gain or the attacker's measures, as the table reads it (AMB-D11)."""
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
        _held, hurt = grapple(gain, 1)
        return (hurt.kind, hurt.magnitude) if hurt is not None else None
    return None
