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

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message, User

from bot import render, retype, rolling, runner
from bot.access import runs_game
from bot.features import in_game
from bot.names import roller_name
from bot.replies import replied_player
from handlers.d6combat.attack import view
from handlers.d6combat.attack.flow import D6AttackFlow, Roll
from handlers.d6combat.attack.tap import TAP, best_power, entry_of, npc_roll_key
from handlers.d6combat.tracker.steps import D6Attack, D6Side, spend_typed_attack
from rules.d6.combat import (
    ActionKind,
    Manoeuvre,
    pursuit,
    resolve_attack,
)
from rules.d6.roll import D6Result, auto_success, gain_value
from rules.dice import Rng
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem
from table import npcs
from table.parsing import ArgumentsError, D6Arguments, parse_d6_attack_arguments
from table.store import ChatSettings, Store


def make_router() -> Router:
    router = Router(name="d6attack")
    router.message.register(d6_attack_command, Command("atk", "attack"), in_game(GameSystem.D6))
    runner.register(router, TAP)
    return router


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
    try:
        named = await npcs.npc_named(store, message.chat.id, SheetSystem.D6, line)
    except npcs.AmbiguousName as ambiguous:
        text = rolling.ambiguous_npc_text(ambiguous.typed, ambiguous.names)
        raise rolling.PoolRefused(text, ambiguous.typed, ambiguous.names, one_word=False) from None
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
    try:
        sides = await _sides(message, command.args or "", store, bot, chat_settings)
    except rolling.PoolRefused as refused:  # a part of a name several NPCs share
        await retype.offer(message, store, refused.text, refused.choices(message.text or ""))
        return
    who, target_npc, line = sides
    target = await replied_player(message, store)  # a player, or whom the bot's reply is about
    if target is not None and (target.id == who.user_id or target_npc):
        target = None
    fleeing = 0
    if target is not None:  # §D.12 Побег: the escapee's measures hinder whoever attacks them
        escapee = await store.load_sheet(message.chat.id, target.id, SheetSystem.D6)
        fleeing = pursuit(escapee.edges) if escapee is not None else 0
    try:
        typed = parse_d6_attack_arguments(line)
        args, manoeuvre = typed.roll, typed.manoeuvre
        if args.auto:
            await _auto_attack(message, store, profile, who, args, manoeuvre, target, target_npc)
            return
        ask = rolling.D6Ask.typed(args, action=ActionKind.ATTACK, pursuit=fleeing)
        pool = await rolling.d6_pool(store, who, profile, ask)
    except ArgumentsError as problem:
        await message.answer(
            render.line_problem_text(problem.problem, problem.token, view.usage_text())
        )
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
    entries = [entry_of(attack, result, "attack")]
    flow = await rolling.create_d6_flow(store, state, who, pool, entries)
    if flow is None:  # the luck dice left the sheet since it was read
        await message.answer(rolling.no_luck_text(0))
        return
    text, markup = view.draw(flow, state)
    await message.answer(text, reply_markup=markup)
    # the attacker's die on the tracker, as «⚔️ Атака» sets it aside (§D.9)
    await spend_typed_attack(
        bot, message, store, profile, attack.key, state.target_name, rng, tuple(args.powers)
    )


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


def last_powers(sheet: Sheet | None, powers: tuple[str, ...]) -> tuple[str, ...]:
    """The powers the fighter last attacked with, when the sheet still has them all (any
    case); none otherwise, and the sheet's highest is rolled (§D.7)."""
    if sheet is None or not powers:
        return ()
    names = {p.name.casefold() for p in sheet.powers}
    return powers if all(p.casefold() in names for p in powers) else ()


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
    powers = last_powers(sheet, attacker.powers)
    best = best_power(sheet)
    try:
        ask = rolling.D6Ask(
            chance=None if best is not None else attacker.dice,
            powers=powers or ((best,) if best is not None else ()),
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
        entries=(entry_of(attack, result, "attack"),),
        spend=rolling.d6_spend(who, pool),
        draw=lambda flow: view.draw(flow, state, profile),
    )
