"""``/vs`` in a d6 chat: a contest of two or more sides (docs/rules.md §D.5).

S2 «при состязании все действия происходят одновременно»: every side rolls its own chance,
the most measures win by the difference (the gain), equal tops are «ничья», and a fiasco is
a complication whoever won. The opener rolls with the command; others join by pressing their
chance; «Итог» (the opener or the Storyteller) calls it. ``/vs 4 3`` rolls an opponent's 3 at
once and calls it, for the Storyteller's quick opposition. ``/vs 4 3 действий 3`` is a contest
as a challenge: every side rolls its chance three times and the larger total wins. The
Storyteller who starts the line with an NPC's name (``/vs атаман 4 3``, ``/vs атаман сабля``)
rolls as that NPC, from its sheet, and the contest names the NPC, as ``/atk`` does
(docs/rules.md §D.5).
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import rolling, runner
from bot.access import runs_game
from bot.features import in_game
from bot.names import roller_name
from handlers.d6contest import view
from handlers.d6contest.flow import ACTIONS_MAX, SIDES_MAX, ContestFlow
from handlers.d6contest.tap import TAP, settle, sides_max
from handlers.d6contest.tap import entries as _entries
from handlers.d6contest.tap import side as _side
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import SheetSystem
from table import npcs, vocabulary
from table.parsing import ArgumentsError, Problem, parse_d6_arguments, tokenize
from table.store import ChatSettings, Store


def make_router() -> Router:
    router = Router(name="d6contest")
    router.message.register(d6_vs_command, Command("vs", "oppose"), in_game(GameSystem.D6))
    runner.register(router, TAP)
    return router


class _TooManySides(Exception):
    """More sides typed than the chat's game lets a contest have."""


def challenge_actions(line: str) -> tuple[int, str]:
    """``4 3 действий 3`` → (3, ``4 3``): a contest as a challenge, each side with that many
    actions (S2 «Также это может быть вызов»); 1 and the line as typed without the word. A
    count that is no number from 1 to :data:`ACTIONS_MAX` is an ArgumentsError."""
    words = line.split()
    for i, word in enumerate(words):
        if word.casefold() not in vocabulary.ACTIONS:
            continue
        count = words[i + 1] if i + 1 < len(words) else ""
        if not count.isdecimal() or not 1 <= int(count) <= ACTIONS_MAX:
            raise ArgumentsError(Problem.NOT_A_NUMBER)
        return int(count), " ".join(words[:i] + words[i + 2 :])
    return 1, line


async def _as_npc(
    message: Message,
    store: Store,
    bot: Bot | None,
    chat_settings: ChatSettings | None,
    who: rolling.Roller,
    line: str,
) -> tuple[rolling.Roller, str]:
    """Whoever runs the game, starting the line with an NPC's name, challenges as that NPC
    (its sheet, its name on the contest); anyone else challenges as themselves."""
    named = await npcs.npc_at_start(store, message.chat.id, SheetSystem.D6, line)
    if named is None or bot is None or chat_settings is None:
        return who, line
    if not await runs_game(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    ):
        return who, line
    name, rest = named
    return rolling.Roller(who.chat_id, who.user_id, name, npc=name), rest


async def _challenger(
    store: Store, who: rolling.Roller, profile: Profile, line: str, words: list[str]
) -> tuple[rolling.D6Pool, list[int]]:
    """The challenger's pool and the chances of opponents typed as numbers («/vs 4 3»: a
    chance of 4 against a chance of 3), or a pool from the sheet's powers and no such
    opponents; a line that is neither is an ArgumentsError."""
    if all(w.isdecimal() and len(w) <= 2 for w in words):
        chances = [int(w) for w in words]
        if len(chances) > SIDES_MAX or not all(1 <= c <= 30 for c in chances):
            raise ArgumentsError(Problem.NOT_A_NUMBER)
        if len(chances) > sides_max(profile):
            raise _TooManySides
        pool = await rolling.d6_pool(store, who, profile, rolling.D6Ask(chance=chances[0]))
        return pool, chances[1:]
    args = parse_d6_arguments(line)
    if args.auto:  # a contest is rolled by every side (S2 «Состязания»)
        raise ArgumentsError(Problem.NOT_A_NUMBER)
    return await rolling.d6_pool(store, who, profile, rolling.D6Ask.typed(args)), []


async def d6_vs_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
    bot: Bot | None = None,
    chat_settings: ChatSettings | None = None,
) -> None:
    user = message.from_user
    who = rolling.Roller(message.chat.id, user.id if user else 0, roller_name(message, user))
    who, line = await _as_npc(message, store, bot, chat_settings, who, command.args or "")
    try:
        actions, line = challenge_actions(line)
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    words = tokenize(line)
    if not words:
        await message.answer(view.usage_text())
        return
    try:
        pool, opponents = await _challenger(store, who, profile, line, words)
    except _TooManySides:
        await message.answer(view.two_sides_text())
        return
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    except rolling.PoolRefused as refused:
        await message.answer(str(refused))
        return
    key = f"n:{who.npc.casefold()}" if who.npc is not None else f"u{who.user_id}"
    sides = [_side(key, who.name, pool.label, pool.dice, profile, rng, actions)]
    for n, chance in enumerate(opponents, start=1):
        name = view.opponent_name(n)
        sides.append(_side(f"o{n}", name, str(chance), chance, profile, rng, actions))
    state = ContestFlow(sides=tuple(sides), actions=actions)
    if opponents:
        try:
            state = state.model_copy(update={"outcome": settle(state, profile)})
        except RulesInputError:
            await message.answer(view.usage_text())
            return
    entries = [e for s in sides for e in _entries(who.user_id, s)]
    flow = await rolling.create_d6_flow(store, state, who, pool, entries)
    if flow is None:  # the luck dice left the sheet since it was read
        await message.answer(rolling.no_luck_text(0))
        return
    text, markup = view.draw(flow, state, sides_max(profile))
    await message.answer(text, reply_markup=markup)
