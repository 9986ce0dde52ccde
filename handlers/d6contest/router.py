"""``/vs`` in a d6 chat: a contest of two or more sides (docs/rules.md §D.5).

S2 «при состязании все действия происходят одновременно»: every side rolls its own chance,
the most measures win by the difference (the gain), equal tops are «ничья», and a fiasco is
a complication whoever won. The opener rolls with the command; others join by pressing their
chance; «Итог» (the opener or the Storyteller) calls it. ``/vs 4 3`` rolls an opponent's 3 at
once and calls it, for the Storyteller's quick opposition.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot import render, rolling
from bot.access import owner_or_storyteller
from bot.features import in_game
from bot.names import roller_name
from bot.parsing import ArgumentsError, Problem, parse_d6_arguments, tokenize
from bot.store import ChatSettings, LogEntry, Store
from bot.taps import commit_tap, open_state, retrying, tell
from handlers.d6contest import view
from handlers.d6contest.callbacks import ContestAction, ContestCallback
from handlers.d6contest.flow import SIDES_MAX, ContestFlow, Side
from rules.d6.roll import contest
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile


def make_router() -> Router:
    router = Router(name="d6contest")
    router.message.register(d6_vs_command, Command("vs", "oppose"), in_game(GameSystem.D6))
    router.callback_query.register(d6_vs_tap, ContestCallback.filter())
    return router


def sides_max(profile: Profile) -> int:
    """S2 «нередко участвует более двух сторон»; a table that plays contests of two only
    (AMB-D12) has no room for a third."""
    return SIDES_MAX if profile.d6.multi_side_contests else 2


def _side(key: str, name: str, label: str, dice: int, profile: Profile, rng: Rng | None) -> Side:
    result = rolling.roll_d6(dice, rng=rng, profile=profile)
    return Side(key=key, name=name, label=label, faces=result.faces, measures=result.measures)


def _entry(user_id: int, side: Side) -> LogEntry:
    return LogEntry(
        user_id=user_id,
        name=side.name,
        system="d6",
        chance=len(side.faces),
        required=1,
        faces=side.faces,
        measures=side.measures,
        outcome="fiasco" if side.measures == 0 else "success",
        kind="vs",
    )


async def d6_vs_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    words = tokenize(command.args)
    user = message.from_user
    who = rolling.Roller(message.chat.id, user.id if user else 0, roller_name(message, user))
    if not words:
        await message.answer(view.usage_text())
        return
    numbers = all(w.isdecimal() and len(w) <= 2 for w in words)
    opponents: list[int] = []
    try:
        if numbers:
            chances = [int(w) for w in words]
            if len(chances) > SIDES_MAX or not all(1 <= c <= 30 for c in chances):
                raise ArgumentsError(Problem.NOT_A_NUMBER)
            if len(chances) > sides_max(profile):
                await message.answer(view.two_sides_text())
                return
            pool = await rolling.d6_pool(store, who, profile, rolling.D6Ask(chance=chances[0]))
            opponents = chances[1:]
        else:
            args = parse_d6_arguments(command.args)
            if args.auto:  # a contest is rolled by every side (S2 «Состязания»)
                raise ArgumentsError(Problem.NOT_A_NUMBER)
            pool = await rolling.d6_pool(store, who, profile, rolling.D6Ask.typed(args))
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    except rolling.PoolRefused as refused:
        await message.answer(str(refused))
        return
    sides = [_side(f"u{who.user_id}", who.name, pool.label, pool.dice, profile, rng)]
    for n, chance in enumerate(opponents, start=1):
        sides.append(_side(f"o{n}", view.opponent_name(n), str(chance), chance, profile, rng))
    outcome = None
    if opponents:
        try:
            outcome = contest({s.key: s.measures for s in sides}, profile)
        except RulesInputError:
            await message.answer(view.usage_text())
            return
    state = ContestFlow(sides=tuple(sides), outcome=outcome)
    entries = [_entry(who.user_id, s) for s in sides]
    flow = await rolling.create_d6_flow(store, state, who, pool, entries)
    if flow is None:  # the luck dice left the sheet since it was read
        await message.answer(rolling.no_luck_text(0))
        return
    text, markup = view.draw(flow, state, sides_max(profile))
    await message.answer(text, reply_markup=markup)


@retrying
async def d6_vs_tap(
    callback: CallbackQuery,
    callback_data: ContestCallback,
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
        ContestFlow,
        profile,
        system=GameSystem.D6,
    )
    if opened is None:
        return
    flow, message, state = opened
    user = callback.from_user
    if state.outcome is not None:
        await tell(callback, lambda: render.closed_text(), alert=True)
        return
    if callback_data.a is ContestAction.JOIN:
        key = f"u{user.id}"
        if any(s.key == key for s in state.sides):
            await tell(callback, lambda: view.already_in_text(), alert=True)
            return
        if callback_data.x not in view.JOIN_CHANCES:
            await tell(callback, lambda: render.invalid_button_text(), alert=True)
            return
        if len(state.sides) >= sides_max(profile):
            await tell(callback, lambda: view.full_text(sides_max(profile)), alert=True)
            return
        side = _side(key, user.full_name, str(callback_data.x), callback_data.x, profile, rng)
        after = state.model_copy(update={"sides": (*state.sides, side)})
        await commit_tap(
            callback,
            message,
            store,
            flow,
            after,
            lambda f: view.draw(f, after, sides_max(profile)),
            entries=[_entry(user.id, side)],
        )
        return
    if callback_data.a is ContestAction.RESOLVE:
        if not await owner_or_storyteller(bot, message.chat, chat_settings, user, flow.owner_id):
            await tell(callback, lambda: view.only_opener_text(), alert=True)
            return
        try:
            outcome = contest({s.key: s.measures for s in state.sides}, profile)
        except RulesInputError:
            await tell(callback, lambda: render.invalid_button_text(), alert=True)
            return
        after = state.model_copy(update={"outcome": outcome})
        await commit_tap(
            callback,
            message,
            store,
            flow,
            after,
            lambda f: view.draw(f, after, sides_max(profile)),
            close=True,
        )
        return
    await tell(callback, lambda: render.invalid_button_text(), alert=True)
