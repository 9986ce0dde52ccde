"""``/ambush ЖЕРТВА`` (``/засада``), and the Storyteller's ``/ambush НПС ЖЕРТВА``: the ambush
contest before a fight (docs/rules.md §B.7), at the d10 tracker while round 1 is not yet
resolved. The tracker's «🥷 Засада» panel lays the same ambush for the presser's character
through :func:`lay` (a ``Delegate`` of its tap).

The command reads the tracker and both sheets, :func:`handlers.combat.ambush.steps.contest`
rolls it, and the tracker's flow takes the ambusher's one ambush of the fight in a
compare-and-set with the contest's log lines, so two commands at once make one ambush, and a
roll whose store was lost to another is never shown. A won ambush opens the attack panel for
the ambusher on the victim, undefended unless the house rule says so.
"""

from __future__ import annotations

from collections.abc import Callable

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import live as bot_live
from bot import render, rolling
from bot.access import runs_game
from bot.runner import CONFLICT_ATTEMPTS, screen_of
from handlers.combat.ambush import steps, view
from handlers.combat.attack.router import open_panel
from handlers.combat.tracker import view as tracker_view
from handlers.combat.tracker.flow import KIND, InitFlow
from rules.combat import tracker
from rules.combat.tracker import Fighter, Round
from rules.d10 import D10Result
from rules.dice import Rng
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, system_of
from table import vocabulary
from table.store import ChatSettings, FlowStateError, LogEntry, Store

LOG_KIND = "vs"  # the contest's two rolls in /log, as an opposed roll's


def make_router() -> Router:
    router = Router(name="ambush")
    router.message.register(ambush_command, Command("ambush", vocabulary.AMBUSH_COMMAND))
    return router


async def ambush_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    if profile.system is not GameSystem.D10:
        await message.answer(render.wrong_system_text())
        return
    user = message.from_user
    storyteller = await runs_game(bot, message.chat, chat_settings, user, message.sender_chat)
    own = tracker.player_key(user.id) if user is not None and not message.sender_chat else ""
    words = (command.args or "").split()

    def keys_of(current: Round) -> tuple[str, str]:
        return steps.pick(current, words, own, storyteller)

    refusal = await lay(bot, store, profile, message, keys_of, rng)
    if refusal is not None:
        await message.answer(refusal)


async def lay(
    bot: Bot,
    store: Store,
    profile: Profile,
    message: Message,
    keys_of: Callable[[Round], tuple[str, str]],
    rng: Rng | None = None,
) -> str | None:
    """The ambush of whom ``keys_of`` names on the chat's open tracker: rolled, stored once
    with the tracker's step, shown, and a won one's attack panel opened; the refusal, or None.
    ``message`` is what it came from: the command, or the tracker whose victim was pressed."""
    chat_id = message.chat.id
    loaded = await store.load_live(chat_id, KIND)
    if loaded is None:
        return view.no_fight_text()
    flow, live = loaded
    for _attempt in range(CONFLICT_ATTEMPTS):
        try:
            state = flow.state(InitFlow)
            keys = keys_of(state.round)
            sheets = await _sheets(store, chat_id, profile, state, keys)
            contest = steps.contest(state, keys, sheets, profile, rng)
        except steps.Refused as refused:
            return refused.text()
        except FlowStateError:
            return view.no_fight_text()
        after = steps.after(state, contest)
        drawn = tracker_view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(
            flow, flow.version, after, entries=_entries(contest), screen=screen_of(*drawn)
        )
        if advanced is not None:
            await bot_live.redraw(bot, chat_id, live, drawn)
            return await _shown(message, bot, store, profile, contest, state)
        reloaded = await store.load_live(chat_id, KIND)
        if reloaded is None:
            return view.no_fight_text()
        flow, live = reloaded
    return view.busy_text()


async def _sheets(
    store: Store, chat_id: int, profile: Profile, state: InitFlow, keys: tuple[str, str]
) -> dict[str, Sheet | None]:
    """Both sides' sheets as stored now: a player's own, an NPC's by its name."""
    system = system_of(profile)
    found: dict[str, Sheet | None] = {}
    for key in keys:
        fighter = state.round.fighter(key)
        if fighter is None:
            continue
        if fighter.user_id is not None:
            found[key] = await store.load_sheet(chat_id, fighter.user_id, system)
        else:
            found[key] = await store.load_npc(chat_id, system, fighter.name)
    return found


def _entries(contest: steps.Contest) -> tuple[LogEntry, ...]:
    """Both rolls of the contest, as /vs logs its two sides (a victim with no dice, one)."""
    entries = [_entry(contest.ambusher, contest.sneak_pool.dice, contest.sneak)]
    if contest.watch is not None:
        entries.append(_entry(contest.victim, contest.watch_pool.dice, contest.watch))
    return tuple(entries)


def _entry(who: Fighter, pool: int, roll: D10Result) -> LogEntry:
    return rolling.log_entry(who.user_id or 0, who.name, pool, roll, LOG_KIND)


async def _shown(
    message: Message,
    bot: Bot,
    store: Store,
    profile: Profile,
    contest: steps.Contest,
    state: InitFlow,
) -> str | None:
    """The contest's message; a won ambush's attack panel after it (or why it did not open)."""
    text = view.contest_text(
        contest.ambusher.name,
        contest.victim.name,
        (contest.sneak_pool, contest.sneak),
        (contest.watch_pool, contest.watch),
        (contest.won, contest.victim_defends),
        profile,
    )
    await message.answer(text)
    if not contest.won:
        return None
    return await open_panel(
        bot,
        store,
        profile,
        message,
        state.round,
        contest.ambusher.key,
        contest.ambusher.name,
        ambushed=contest.victim.key,
    )
