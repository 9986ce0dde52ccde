"""``/init`` and the round tracker: one live message per chat (docs/rules.md §B.1–§B.2).

The round is a flow the chat points to (``Store.open_live``), so ``/init`` from any player
joins the same fight, and every step is the flow's compare-and-set. The message is edited
in place; a command that finds it buried under the conversation posts it again at the
bottom with the same state (the old one is deleted) and pins it when the bot may. Buttons
that walk the phases carry the step they were drawn for, so two players pressing «Дальше»
at once move the round one step, not two (docs/product.md §3 "Concurrency"). What a step means
is :mod:`rules.combat.tracker`; the buttons' step is
:mod:`handlers.combat.tracker.tap`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import live as bot_live
from bot import render, runner
from bot.access import runs_game
from bot.names import numbered_names, roller_name
from bot.runner import CONFLICT_ATTEMPTS, screen_of
from handlers.combat.tracker import view
from handlers.combat.tracker.flow import KIND, ROUND_TTL, InitFlow
from handlers.combat.tracker.steps import (
    current_round,
    initiative_modifier,
    read_tracks,
    with_health,
)
from handlers.combat.tracker.tap import TAP, refusal_of, seated, sheet_base
from rules.combat import tracker
from rules.combat.tracker import Round
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem, system_of
from table import npcs
from table.parsing import ArgumentsError, InitArguments, parse_init_arguments
from table.store import ChatSettings, Store

log = logging.getLogger(__name__)

Change = Callable[[Round], Round]


def make_router() -> Router:
    router = Router(name="initiative")
    router.message.register(init_command, Command("init", "initiative"))
    runner.register(router, TAP)
    return router


# ----- /init --------------------------------------------------------------------------------


async def init_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    if profile.system is not GameSystem.D10:
        await message.answer(view.d10_only_text())
        return
    try:
        args = parse_init_arguments(command.args)
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    if args.npc is not None:
        change = await _npc_change(message, args, store, profile, bot, chat_settings, rng)
    else:
        change = await _player_change(message, args, store, profile, bot, chat_settings, rng)
    if change is not None:
        await _apply(message, store, profile, bot, change)


async def _npc_change(
    message: Message,
    args: InitArguments,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None,
) -> Change | None:
    """How ``/init npc …`` seats the named NPC or group; None once a refusal is answered."""
    assert args.npc is not None
    user = message.from_user
    system = system_of(profile)
    chat_id = message.chat.id
    if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
        await message.answer(view.storyteller_only_text())
        return None
    npc, typed = args.npc, args.base
    if args.copies == 1 and typed is not None:  # «Стражник 2»: the group's second copy
        current = await current_round(store, chat_id) or Round()
        present = [f.name for f in current.fighters]
        copy = await npcs.copy_named(store, chat_id, system, npc, typed, present)
        npc, typed = (copy, None) if copy is not None else (npc, typed)
    names, npc_sheet = await _seat_group(store, chat_id, system, npc, args.copies)
    typed = typed if typed is not None else sheet_base(npc_sheet)
    if typed is None:
        await message.answer(view.no_npc_base_text(npc))
        return None
    base = typed
    # a copy joins with its own untouched health; a lone NPC with the sheet's
    lone = names == [npc] and npc_sheet is not None
    modifier = initiative_modifier(profile, npc_sheet.health if lone and npc_sheet else None)
    template = npc_sheet if lone else None

    def change(current: Round) -> Round:
        for name in names:
            current = tracker.join(
                current,
                key=tracker.npc_key(name),
                name=name,
                dex_wits=base,
                rng=rng,
                modifier=modifier,
            )
            current = seated(current, tracker.npc_key(name), template)
        return current

    return change


async def _player_change(
    message: Message,
    args: InitArguments,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None,
) -> Change | None:
    """How ``/init`` seats the one who typed it; None once a refusal is answered."""
    user = message.from_user
    chat_id = message.chat.id
    if user is None or message.sender_chat is not None:
        await message.answer(view.usage_text())
        return None
    sheet = await store.load_sheet(chat_id, user.id, system_of(profile))
    own = args.base if args.base is not None else sheet_base(sheet)
    if own is None and await runs_game(bot, message.chat, chat_settings, user, None):
        # The Storyteller with no character of their own (no Dexterity + Wits) opens (or
        # shows) the fight and is no fighter in it: the players roll in, the NPCs are
        # added by name; /init 7 or «Бросить инициативу» seats them.
        return lambda current: current
    if own is None:
        # «Roll initiative» is a button of an open tracker: without one, name what exists.
        tracker_open = await store.load_live(chat_id, KIND) is not None
        await message.answer(view.no_base_text() if tracker_open else view.no_sheet_base_text())
        return None
    name, user_id, base = roller_name(message, user), user.id, own
    modifier = initiative_modifier(profile, sheet.health if sheet else None)

    def change(current: Round) -> Round:
        joined = tracker.join(
            current,
            key=tracker.player_key(user_id),
            name=name,
            user_id=user_id,
            dex_wits=base,
            rng=rng,
            modifier=modifier,
        )
        return seated(joined, tracker.player_key(user_id), sheet)

    return change


async def _seat_group(
    store: Store, chat_id: int, system: SheetSystem, npc: str, copies: int
) -> tuple[list[str], Sheet | None]:
    """The names the NPCs join under (numbered when several: «Гуль 1», «Гуль 2») and the
    group's sheet; each numbered copy gets the group's traits with health of its own
    (table.npcs)."""
    current = await current_round(store, chat_id) or Round()

    def taken(candidate: str) -> bool:
        return current.fighter(tracker.npc_key(candidate)) is not None

    names = numbered_names(npc, copies, taken)
    sheet = await npcs.seat_copies(store, chat_id, system, npc, names)
    return names, sheet


async def _apply(
    message: Message, store: Store, profile: Profile, bot: Bot, change: Change
) -> None:
    """Open the chat's round with this change, or apply it to the open one (retrying a
    compare-and-set lost to a tap), then show the tracker."""
    chat_id = message.chat.id
    owner = message.from_user.id if message.from_user else 0
    try:
        opening = change(Round())
    except RulesInputError as error:
        await message.answer(refusal_of(error))
        return
    first = with_health(
        InitFlow(round=opening), await read_tracks(store, chat_id, profile, opening)
    )
    flow, live, created = await store.open_live(KIND, first, chat_id, owner, ttl=ROUND_TTL)
    for _attempt in range(CONFLICT_ATTEMPTS):
        state = flow.state(InitFlow)
        if created:
            drawn = view.draw(flow, state, profile)
            await store.keep_screen(flow, screen_of(*drawn))
            shown = bot_live.Shown(KIND, flow, live, drawn, ROUND_TTL, pin=True)
            await bot_live.show_live(bot, store, message, shown)
            return
        try:
            changed = change(state.round)
        except RulesInputError as error:
            await message.answer(refusal_of(error))
            return
        tracks = await read_tracks(store, chat_id, profile, changed)
        after = with_health(state, tracks, round=changed)
        drawn = view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(flow, flow.version, after, screen=screen_of(*drawn))
        if advanced is not None:
            shown = bot_live.Shown(KIND, advanced, live, drawn, ROUND_TTL, pin=True)
            await bot_live.show_live(bot, store, message, shown)
            return
        loaded = await store.load_live(chat_id, KIND)
        if loaded is None:
            flow, live, created = await store.open_live(KIND, first, chat_id, owner, ttl=ROUND_TTL)
        else:
            flow, live = loaded
    await message.answer(render.busy_text())
