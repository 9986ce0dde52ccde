"""``/atk`` in a d6 chat: an attack, its responses and its gain (docs/rules.md §D.9–§D.11).

The attacker rolls with the command (a manoeuvre is declared before the roll, S3 «о нём надо
заявить заранее»); each defender answers once with their chance (AMB-D7), subtracting one
after another (AMB-D9); the armour rolls after a defence that did not bear fruit or instead of
it, never with a fiasco. «Итог» (the attacker or the Storyteller) takes the responses off the
attack; a hit's gain is then spent by the attacker: all into a physical or a mental wound,
written onto the target's sheet in the same step, a trick of §D.12, the declared manoeuvre, or
shared out a measure a tap (§D.11). The tricks rolled before with /r (§D.12) count here: a
run-up or an aim on the attack, full defence on a defence, the target's escape on an attack in
reply to them. A line that starts with an NPC's name is the Storyteller's attack as that NPC,
or a player's attack on it; the Storyteller's defence and armour then roll for the NPC and the
wound lands on its sheet (docs/product.md "NPCs").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message, User

from bot import live as bot_live
from bot import npcs, render, rolling, vocabulary
from bot.access import owner_or_storyteller, runs_game
from bot.combat import TrackerStep
from bot.features import in_game
from bot.names import roller_name
from bot.parsing import ArgumentsError, D6Arguments, Problem, parse_d6_arguments
from bot.replies import replied_player
from bot.session import safe_edit
from bot.store import AlsoStep, ChatSettings, Flow, LogEntry, SheetSpend, Store
from bot.taps import TapConflict, commit_tap, open_state, retrying, screen_of, tell
from handlers.d6combat.attack import view
from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback, GainChoice
from handlers.d6combat.attack.flow import DEFENDERS_MAX, D6AttackFlow, Roll
from handlers.d6combat.tracker.steps import D6Attack, D6Defence, D6Side, defend_for_attack
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
from rules.d6.roll import D6Result, auto_success, gain_value, special_effort
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


def npc_roll_key(name: str) -> str:
    """An NPC's key in an attack: its name, any case (a player's is ``u`` and their id)."""
    return "n:" + " ".join(name.split()).casefold()


async def _sides(
    message: Message,
    line: str,
    store: Store,
    bot: Bot,
    chat_settings: ChatSettings,
) -> tuple[rolling.Roller, str | None, str]:
    """Who attacks and which NPC is attacked, from a line that may start with an NPC's name
    (docs/product.md "NPCs"): the Storyteller attacks as that NPC (``/atk атаман
    сабля+сила``), a player attacks it (``/atk бандит сабля``). The rest of the line is the
    pool."""
    user = message.from_user
    who = rolling.Roller(message.chat.id, user.id if user else 0, roller_name(message, user))
    named = await npcs.npc_at_start(store, message.chat.id, SheetSystem.D6, line)
    if named is None:
        return who, None, line
    name, rest = named
    if await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
        return rolling.Roller(who.chat_id, who.user_id, name, npc=name), None, rest
    return who, name, rest


async def d6_attack_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    who, target_npc, line = await _sides(message, command.args or "", store, bot, chat_settings)
    target = await replied_player(message, store)  # a player, or whom the bot's reply is about
    if target is not None and (target.id == who.user_id or target_npc):
        target = None
    fleeing = 0
    if target is not None:  # §D.12 Побег: the escapee's measures hinder whoever attacks them
        escapee = await store.load_sheet(message.chat.id, target.id, SheetSystem.D6)
        fleeing = pursuit(escapee.edges) if escapee is not None else 0
    try:
        manoeuvre, rest = _manoeuvre(line.split())
        args = parse_d6_arguments(" ".join(rest))
        if args.trick() is not None:  # a trick is an action of its own, rolled with /r
            raise ArgumentsError(Problem.NOT_A_NUMBER)
        if args.auto:
            await _auto_attack(message, store, profile, who, args, manoeuvre, target, target_npc)
            return
        ask = rolling.D6Ask.typed(args, action=ActionKind.ATTACK, pursuit=fleeing)
        pool = await rolling.d6_pool(store, who, profile, ask)
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    except rolling.PoolRefused as refused:
        await message.answer(str(refused))
        return
    result = rolling.roll_d6(pool.dice, rng=rng, profile=profile)
    attack = _attacker(who, result.faces, result.measures, result)
    state = D6AttackFlow(
        attack=attack,
        label=pool.label,
        manoeuvre=manoeuvre,
        target_name=target.first_name if target is not None else target_npc,
        target_user=target.id if target is not None else None,
        target_npc=target_npc,
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
    target_npc: str | None,
) -> None:
    """An attack that needs no roll (S2 «бросать кубики не нужно»; S3 «Беспомощность»: to bind
    or finish a helpless foe): a hit at once, no defence, its gain the chat's number for a
    success without a roll (AMB-D2, ``d6.auto_success_gain``). Nothing is rolled, spent or
    logged; the powers named are checked on the sheet and shown."""
    label = ""
    if args.powers or args.chance is not None:
        try:
            pool = await rolling.d6_pool(
                store, who, profile, rolling.D6Ask(chance=args.chance, powers=args.powers)
            )
        except rolling.PoolRefused as refused:
            await message.answer(str(refused))
            return
        label = pool.label
    gain = gain_value(auto_success(), profile)
    attack = _attacker(who, (), gain)
    state = D6AttackFlow(
        attack=attack,
        label=label,
        manoeuvre=manoeuvre,
        target_name=target.first_name if target is not None else target_npc,
        target_user=target.id if target is not None else None,
        target_npc=target_npc,
        outcome=resolve_attack(gain, {}, None, attacker=attack.key),
        auto=view.auto_line(label, gain, profile),
    )
    flow = await store.create_flow(state, who.chat_id, who.user_id)
    text, markup = view.draw(flow, state)
    await message.answer(text, reply_markup=markup)


def _attacker(
    who: rolling.Roller, faces: tuple[int, ...], measures: int, result: D6Result | None = None
) -> Roll:
    """The attack's roll, under the NPC's name when the Storyteller attacks as one; ``result``
    is kept for «Особое усилие» after the roll (none for a success without a roll)."""
    if who.npc is not None:
        return Roll(
            key=npc_roll_key(who.npc), name=who.npc, faces=faces, measures=measures, result=result
        )
    return Roll(
        key=f"u{who.user_id}",
        name=who.name,
        user_id=who.user_id,
        faces=faces,
        measures=measures,
        result=result,
    )


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
        try:
            who = await _responder(bot, chat_settings, store, message, state, user)
        except _Refused as refused:
            await callback.answer(refused.text, show_alert=True)
            return
        press = _Press(callback, message, store, flow)
        await _respond(press, state, callback_data, profile, who, rng, bot)
        return
    if action is AttackAction.EFFORT:
        await _effort(callback, message, store, flow, state, callback_data.x, profile, rng)
        return
    attacker = state.attack.user_id or 0
    if not await owner_or_storyteller(bot, message.chat, chat_settings, user, attacker):
        await tell(callback, lambda: view.attacker_only_text(), alert=True)
        return
    if action is AttackAction.RESOLVE and state.outcome is None:
        outcome = resolve_attack(
            state.attack.measures,
            {d.key: d.measures for d in state.defences},
            state.armour.measures if state.armour is not None else None,
            attacker=state.attack.key,
        )
        after = state.model_copy(update={"outcome": outcome})
        if callback_data.x == view.RESOLVE_INTO_WOUND and outcome.hit and after.foes():
            await _spend(callback, message, store, flow, after, GainChoice.PHYSICAL, profile)
            return
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
    await tell(callback, lambda: render.invalid_button_text(), alert=True)


class _Refused(Exception):
    def __init__(self, text: str) -> None:
        self.text = text


async def _responder(
    bot: Bot,
    chat_settings: ChatSettings,
    store: Store,
    message: Message,
    state: D6AttackFlow,
    user: User,
) -> rolling.Roller:
    """Who a defence or the armour is rolled for (docs/product.md "NPCs"): the Storyteller
    answers for the NPC under attack; a player, or the Storyteller with a character of their
    own (powers on a sheet), for themself. The Storyteller with neither is asked which NPC."""
    mine = rolling.Roller(message.chat.id, user.id, user.full_name)
    if state.target_user == user.id or not await runs_game(
        bot, message.chat, chat_settings, user, None
    ):
        return mine
    npc = state.target_npc
    if npc is not None:
        return rolling.Roller(message.chat.id, user.id, npc, npc=npc)
    own = await store.load_sheet(message.chat.id, user.id, SheetSystem.D6)
    if own is not None and own.powers:  # a character of their own, as /init reads it
        return mine
    raise _Refused(view.name_the_npc_text())


async def _respond(
    press: _Press,
    state: D6AttackFlow,
    data: D6AttackCallback,
    profile: Profile,
    who: rolling.Roller,
    rng: Rng | None,
    bot: Bot,
) -> None:
    """A defence or the armour (§D.9–§D.10), once each. A defence is the defender's action:
    full defence declared before adds its advantage to it (§D.12), and whatever else waited on
    the defender is lost with it — in the same step. The armour is no action and touches
    nothing."""
    callback, message, store, flow = press.callback, press.message, press.store, press.flow
    action = data.a
    armour = action is AttackAction.ARMOUR
    from_sheet = not armour and data.x == view.FROM_SHEET
    if state.outcome is not None or (data.x not in view.CHANCES and not from_sheet):
        await tell(callback, lambda: render.closed_text(), alert=True)
        return
    key = npc_roll_key(who.npc) if who.npc is not None else f"u{who.user_id}"
    if not armour and key == state.attack.key:
        await tell(callback, lambda: view.not_the_attacker_text(), alert=True)
        return
    taken = state.armour is not None if armour else any(d.key == key for d in state.defences)
    if taken or (not armour and len(state.defences) >= DEFENDERS_MAX):
        await tell(callback, lambda: view.once_text(), alert=True)
        return
    dice, label, spend = data.x, "", None
    guard: D6Defence | None = None
    if not armour:
        # The defence is a response on the tracker too: the highest die set aside, slow when
        # lower than the attacker's (§D.9).
        found = await defend_for_attack(store, message.chat.id, profile, key, state.attack.key)
        if isinstance(found, str):
            await callback.answer(found, show_alert=True)
            return
        guard = found
        sheet = await rolling.load_sheet(store, who, profile)
        best = _best_power(sheet)
        chance: int | None = data.x
        if from_sheet:
            chance = None if best is not None else (guard.dice if guard is not None else None)
            if best is None and chance is None:
                await tell(callback, lambda: view.no_power_text(), alert=True)
                return
        try:
            ask = rolling.D6Ask(
                chance=chance,
                powers=(best,) if from_sheet and best is not None else (),
                modifier=-guard.slowness if guard is not None else 0,
                action=ActionKind.DEFENCE,
            )
            pool = rolling.d6_pool_of(sheet, who.name, profile, ask)
        except rolling.PoolRefused as refused:
            await callback.answer(render.plain(str(refused)), show_alert=True)
            return
        dice, spend = pool.dice, rolling.d6_spend(who, pool)
        label = pool.label if pool.dice != data.x or from_sheet else ""
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
    entries = [_entry(roll, result, "armour" if armour else "defence")]
    if armour:
        after = state.model_copy(update={"armour": roll})
    else:
        after = state.model_copy(update={"defences": (*state.defences, roll)})
    tracker = guard.step if guard is not None else None
    if spend is None and tracker is not None:
        spend = _unchanged(who)
    await _commit_spending(
        _Press(callback, message, store, flow),
        after,
        [spend] if spend is not None else [],
        entries=entries,
        tracker=tracker,
    )
    if tracker is not None:
        await bot_live.redraw(bot, message.chat.id, tracker.live, tracker.drawn)


def _unchanged(who: rolling.Roller) -> SheetSpend:
    """The defender's sheet as it is: the one script that stores a step with a sheet's change
    also takes the tracker's step, so a defence stays within one write (docs/product.md)."""
    return SheetSpend(
        who.user_id if who.npc is None else 0, SheetSystem.D6, lambda sheet: sheet, npc=who.npc
    )


def _best_power(sheet: Sheet | None) -> str | None:
    """The power a one-tap attack or defence rolls (docs/rules.md §D.9): the sheet's highest,
    the first written among equals; a player who means more powers types them (/atk)."""
    if sheet is None or not sheet.powers:
        return None
    return max(sheet.powers, key=lambda p: p.level).name


async def _effort(
    callback: CallbackQuery,
    message: Message,
    store: Store,
    flow: Flow,
    state: D6AttackFlow,
    x: int,
    profile: Profile,
    rng: Rng | None,
) -> None:
    """§D.4 «Особое усилие … сразу после броска кубиков»: the presser rerolls every die of
    their own attack or defence that shows no measure, once per action, before «Итог»; its
    wound lands on their sheet and the new faces in the log, in the same step."""
    fuel = view.EFFORT_PRICES.get(x)
    if state.outcome is not None or fuel is None:
        await tell(callback, lambda: render.closed_text(), alert=True)
        return
    key = f"u{callback.from_user.id}"
    rolls = (state.attack, *state.defences)
    mine = next((r for r in rolls if r.key == key and r.result is not None), None)
    if mine is None or mine.result is None or not view.effort_offered(mine, profile):
        await tell(callback, lambda: view.effort_refused_text(), alert=True)
        return
    try:
        effort = special_effort(mine.result, fuel, rng=rng, profile=profile)
    except RulesInputError:
        await tell(callback, lambda: view.effort_refused_text(), alert=True)
        return
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
    entry = _entry(again, effort.result, "effort").model_copy(
        update={"fresh": tuple(effort.result.faces[i] for i in effort.result.rerolled)}
    )
    wound = effort.wound
    spends = []
    if wound is not None:
        spends.append(
            SheetSpend(
                user_id=callback.from_user.id,
                system=SheetSystem.D6,
                change=lambda sheet: add_wound(sheet, wound.kind, wound.magnitude),
                create=True,
            )
        )
    await _commit_spending(_Press(callback, message, store, flow), after, spends, entries=[entry])


@dataclass(frozen=True)
class _Press:
    """The press a step answers: its callback, the message under it, the store and the flow
    the button names."""

    callback: CallbackQuery
    message: Message
    store: Store
    flow: Flow


async def _commit_spending(
    press: _Press,
    after: D6AttackFlow,
    spends: list[SheetSpend],
    *,
    close: bool = False,
    entries: list[LogEntry] | None = None,
    tracker: TrackerStep | None = None,
) -> None:
    """The step and the sheets it changes in one compare-and-set (a lost race runs the tap
    again), then the message edited in place; ``tracker``: the d6 tracker's step a defence
    takes, stored with it."""
    callback, message, store, flow = press.callback, press.message, press.store, press.flow
    drawn = view.draw(flow.next(after, close=close), after)
    also: AlsoStep | None = tracker.step if tracker is not None else None
    if not spends:
        advanced = await store.advance_flow(
            flow, flow.version, after, close=close, entries=entries or (), screen=screen_of(*drawn)
        )
        if advanced is not None and also is not None:
            await store.advance_flow(also.flow, also.version, also.state, screen=also.screen)
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
                also=also,
            )
        except RulesInputError:
            await tell(callback, lambda: render.invalid_button_text(), alert=True)
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
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    foes = state.foes()
    target_name = foes[0][1] if foes else state.target_name
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
    if hurt is not None and foes:
        spends.append(await _wound_spend(store, flow.chat_id, foes[0], [hurt]))
    await _commit_spending(_Press(callback, message, store, flow), after, spends, close=True)


async def _wound_spend(
    store: Store,
    chat_id: int,
    foe: tuple[int | None, str],
    dealt: list[tuple[DifficultyKind, int]],
) -> SheetSpend:
    """The wounds onto a player's sheet, or onto the NPC's sheet by its name (a blank one
    is made for an NPC the Storyteller never wrote down)."""
    user_id, name = foe
    if user_id is None:
        return SheetSpend(0, SheetSystem.D6, _wounding(dealt), npc=name, create=True)
    await _sheet_for(store, chat_id, user_id)
    return SheetSpend(user_id, SheetSystem.D6, _wounding(dealt))


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
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
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
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    wounds: dict[int, list[tuple[DifficultyKind, int]]] = {}
    for effect in effects:
        hurt = effect.difficulty
        if hurt is not None and hurt.kind in WOUND_KINDS:
            wounds.setdefault(int(effect.target), []).append((hurt.kind, hurt.magnitude))
    spends = [
        await _wound_spend(store, flow.chat_id, foes[foe], dealt) for foe, dealt in wounds.items()
    ]
    after = after.model_copy(update={"spent": GainChoice.SPLIT.value, "splitting": False})
    await _commit_spending(_Press(callback, message, store, flow), after, spends, close=True)


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


async def open_from_tracker(
    store: Store,
    profile: Profile,
    chat_id: int,
    attacker: D6Side,
    target: D6Side,
    rng: Rng | None,
) -> D6Attack | str:
    """«⚔️ Атака» on the d6 tracker: the chance is the attacker's
    highest power, with the sheet's wounds and waiting tricks (§D.2, §D.12); a fighter with no
    power on their sheet (an NPC typed with its dice) rolls their dice on the tracker. The
    attack is the message ``/atk`` would post, its target already named, so the target defends
    with one tap; the dice are rolled now and shown only if the tracker's step is stored."""
    who, aimed = tracker_rollers(chat_id, attacker, target)
    sheet = await rolling.load_sheet(store, who, profile)
    escapee = await rolling.load_sheet(store, aimed, profile)
    return attack_from_tracker(profile, chat_id, attacker, target, (sheet, escapee), rng)


def tracker_rollers(
    chat_id: int, attacker: D6Side, target: D6Side
) -> tuple[rolling.Roller, rolling.Roller]:
    """Who rolls a tracker's attack and at whom, as :mod:`bot.rolling` names them."""
    npc = attacker.name if attacker.user_id is None else None
    who = rolling.Roller(chat_id, attacker.user_id or 0, attacker.name, npc=npc)
    aimed = rolling.Roller(
        chat_id,
        target.user_id or 0,
        target.name,
        npc=target.name if target.user_id is None else None,
    )
    return who, aimed


def attack_from_tracker(
    profile: Profile,
    chat_id: int,
    attacker: D6Side,
    target: D6Side,
    sheets: tuple[Sheet | None, Sheet | None],
    rng: Rng | None,
) -> D6Attack | str:
    """:func:`open_from_tracker` on the attacker's and the target's sheets as read: pure, so
    the tracker's step rolls it (the refusal's text, or the attack not stored yet)."""
    who, _aimed = tracker_rollers(chat_id, attacker, target)
    sheet, escapee = sheets
    best = _best_power(sheet)
    try:
        ask = rolling.D6Ask(
            chance=None if best is not None else attacker.dice,
            powers=(best,) if best is not None else (),
            action=ActionKind.ATTACK,
            pursuit=pursuit(escapee.edges) if escapee is not None else 0,
        )
        pool = rolling.d6_pool_of(sheet, who.name, profile, ask)
    except rolling.PoolRefused as refused:
        return render.plain(str(refused))
    label = pool.label if best is not None else view.tracker_dice_label(attacker.dice)
    result = rolling.roll_d6(pool.dice, rng=rng, profile=profile)
    attack = _attacker(who, result.faces, result.measures, result)
    state = D6AttackFlow(
        attack=attack,
        label=label,
        target_name=target.name,
        target_user=target.user_id,
        target_npc=target.name if target.user_id is None else None,
    )
    return D6Attack(
        state=state,
        owner=who.user_id,
        entries=(_entry(attack, result, "attack"),),
        spend=rolling.d6_spend(who, pool),
        draw=lambda flow: view.draw(flow, state, profile),
    )
