"""``/init`` in a d6 chat and its round tracker: one live message per chat
(docs/rules.md §D.7–§D.9).

Initiative in the d6 game is spent, not compared once: every action sets a die aside, so the
tracker is a sequence of small steps on :mod:`rules.d6.initiative`, each the flow's
compare-and-set. Steps that move the round carry how many steps were taken when they were
drawn, so two presses of «Действовать» move the round once. Who may press: the one who is up
(their player, or the Storyteller for anyone), a holder for themself, any participant with
dice for their own defence; the Storyteller picks the NPC who cuts in or defends, and is no
fighter unless they join; «Убрать» takes out one's own character, or anyone for the
Storyteller (docs/product.md "NPCs"). The buttons' step is :mod:`handlers.d6combat.tracker.tap`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import live as bot_live
from bot import render, runner
from bot.access import runs_game
from bot.features import in_game
from bot.i18n import drawing
from bot.names import numbered_names, roller_name
from bot.runner import CONFLICT_ATTEMPTS, screen_of
from handlers.d6combat.tracker import view
from handlers.d6combat.tracker.flow import (
    KIND,
    ROUND_TTL,
    D6InitFlow,
    Member,
    npc_key,
    player_key,
)
from handlers.d6combat.tracker.steps import refusal
from handlers.d6combat.tracker.tap import TAP, Refused, join
from handlers.d6combat.tracker.tap import combatant as combatant_of
from rules.d6 import initiative as d6i
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import SheetSystem
from table import npcs
from table.parsing import (
    ArgumentsError,
    InitArguments,
    parse_d6_preparation,
    parse_init_arguments,
)
from table.store import ChatSettings, Store

Change = Callable[[D6InitFlow], D6InitFlow]


def make_router() -> Router:
    router = Router(name="d6init")
    router.message.register(d6_init_command, Command("init", "initiative"), in_game(GameSystem.D6))
    runner.register(router, TAP)
    return router


async def d6_init_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    try:
        gain = parse_d6_preparation(command.args)
        if gain is not None:
            await _prepare_command(message, store, profile, bot, gain, rng)
            return
        args = parse_init_arguments(command.args)
    except ArgumentsError as problem:
        await message.answer(
            render.line_problem_text(problem.problem, problem.token, view.usage_text())
        )
        return
    if args.base is not None and not 1 <= args.base <= d6i.ALACRITY_MAX:
        await message.answer(view.usage_text())
        return
    if args.npc is not None:
        change = await _npc_change(message, args, args.npc, store, bot, chat_settings, rng)
    else:
        change = await _player_change(message, args, store, bot, chat_settings, rng)
    if change is not None:
        await _apply(message, store, bot, change, profile)


async def _npc_change(
    message: Message,
    args: InitArguments,
    npc: str,
    store: Store,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None,
) -> Change | None:
    """``/init npc Гуль 2 x3``: the Storyteller seats the NPC's copies, by their sheet's dice
    or the ones typed; None once the sender is told why not."""
    chat_id = message.chat.id
    if not await runs_game(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    ):
        await message.answer(view.storyteller_only_text())
        return None
    loaded = await store.load_live(chat_id, KIND)
    seated = loaded[0].state(D6InitFlow) if loaded is not None else D6InitFlow()
    dice = args.base
    if args.copies == 1 and dice is not None:  # «Стражник 2»: the group's second copy
        members = [m.name for m in seated.members.values()]
        copy = await npcs.copy_named(store, chat_id, SheetSystem.D6, npc, dice, members)
        npc, dice = (copy, None) if copy is not None else (npc, dice)
    names = numbered_names(npc, args.copies, lambda c: npc_key(c) in seated.members)
    npc_sheet = await npcs.seat_copies(store, chat_id, SheetSystem.D6, npc, names)
    if dice is None and (npc_sheet is None or npc_sheet.alacrity is None):
        await message.answer(view.no_npc_dice_text(npc[:40]))
        return None
    if npc_sheet is None:  # a bandit typed with its dice: known by name from now on
        await npcs.note_npcs(store, chat_id, SheetSystem.D6, names)

    def change(state: D6InitFlow) -> D6InitFlow:
        for name in names:
            combatant = combatant_of(npc_key(name), npc_sheet, dice, hero=False)
            state = join(state, combatant, Member(name=name), rng)
        return state

    return change


async def _player_change(
    message: Message,
    args: InitArguments,
    store: Store,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None,
) -> Change | None:
    """``/init`` or ``/init 3``: the sender joins with their sheet's dice or the ones typed;
    None once a sender who cannot join is told how."""
    user = message.from_user
    if user is None or message.sender_chat is not None:
        await message.answer(view.usage_text())
        return None
    sheet = await store.load_sheet(message.chat.id, user.id, SheetSystem.D6)
    character = sheet is not None and bool(sheet.powers)
    if (
        args.base is None
        and not character
        and await runs_game(bot, message.chat, chat_settings, user, None)
    ):
        # The scenarist with no character of their own (no powers: a wound or a trick
        # may have left a blank sheet) opens (or shows) the fight and is no fighter in
        # it; /init 3 or «Вступить» adds them.
        return lambda state: state
    member = Member(name=roller_name(message, user), user_id=user.id)
    combatant = combatant_of(player_key(user.id), sheet, args.base, hero=True)

    def change(state: D6InitFlow) -> D6InitFlow:
        return join(state, combatant, member, rng)

    return change


async def _prepare_command(
    message: Message,
    store: Store,
    profile: Profile,
    bot: Bot,
    gain: int,
    rng: Rng | None,
) -> None:
    """S3 «Подготовка»: a preparation's gain raises the sender's initiative dice (to 6 at
    most) before anyone has acted; the default plan of §D.7 places it."""
    user = message.from_user
    if user is None:
        await message.answer(view.usage_text())
        return
    key = player_key(user.id)

    def change(state: D6InitFlow) -> D6InitFlow:
        if state.round is None or key not in state.members:
            raise Refused(view.not_in_fight_text)
        fighter = next(f for f in state.round.fighters if f.sheet.id == key)
        prepared = d6i.apply_preparation(fighter.remaining, gain, profile=profile)
        changed = d6i.prepare(state.round, key, gain, rng=rng, profile=profile)
        note = view.prepared_note(state.members[key].name, gain, prepared.wasted)
        return state.model_copy(update={"round": changed, "note": note})

    loaded = await store.load_live(message.chat.id, KIND)
    if loaded is None:
        await message.answer(view.no_fight_text())
        return
    await _apply(message, store, bot, change, profile)


async def _apply(
    message: Message, store: Store, bot: Bot, change: Change, profile: Profile
) -> None:
    """Open the chat's fight with this change, or apply it to the open one (retrying a
    compare-and-set lost to a tap), then show the tracker. The change is made once per
    attempt on the state it applies to, so a newcomer's dice are rolled once."""
    chat_id = message.chat.id
    owner = message.from_user.id if message.from_user else 0
    for _attempt in range(CONFLICT_ATTEMPTS):
        loaded = await store.load_live(chat_id, KIND)
        try:
            # Its notes are the shared tracker's lines: in the tracker's language.
            with drawing(loaded[0]) if loaded else contextlib.nullcontext():
                after = change(loaded[0].state(D6InitFlow) if loaded else D6InitFlow())
        except Refused as refused:
            await message.answer(refused.text() if loaded else view.no_fight_text())
            return
        except RulesInputError as error:
            await message.answer(refusal(error))
            return
        if loaded is None:
            flow, live, created = await store.open_live(KIND, after, chat_id, owner, ttl=ROUND_TTL)
            if not created:
                continue  # another command opened the fight first: apply to that one
            drawn = view.draw(flow, after, profile)
            await store.keep_screen(flow, screen_of(*drawn))
            shown = bot_live.Shown(KIND, flow, live, drawn, ROUND_TTL, pin=True)
            await bot_live.show_live(bot, store, message, shown)
            return
        flow, live = loaded
        drawn = view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(flow, flow.version, after, screen=screen_of(*drawn))
        if advanced is not None:
            shown = bot_live.Shown(KIND, advanced, live, drawn, ROUND_TTL, pin=True)
            await bot_live.show_live(bot, store, message, shown)
            return
    await message.answer(render.busy_text())
