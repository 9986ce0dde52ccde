"""Roll requests: ``/ask восп+бдит 8`` (docs/product.md "Storyteller").

The Storyteller asks the table «Бросьте Восприятие + Бдительность, сложность 8»; the message
carries a button, and each player's tap rolls the pool THEIR sheet gives (§A.2: the traits'
sum, the profile's zero-Ability rule; §B.9: the wound penalty of their health track). Every
answer becomes a line of the same message, edited in place.

Who asks: the Storyteller, or while the chat has none a chat administrator
(:func:`handlers.storyteller.game_access`, as for ``/rules``). Who answers: anyone with the
traits on their sheet, once. Many players tap at once, so a tap re-reads the flow and retries
its compare-and-set until its answer is in (or the player is found to have answered already);
the roll and its log line are written by one script, so nothing is counted twice.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import render, runner, sheet_text
from bot.access import GameAccess, game_access
from handlers.requests import view
from handlers.requests.flow import RequestState
from handlers.requests.tap import TAP
from rules.difficulty import check_base
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import TraitCode, new_sheet, pool_from_traits, system_of
from table.parsing import tokenize
from table.store import ChatSettings, Store
from table.traits import TraitNameError, parse_pool_expression


def make_router() -> Router:
    router = Router(name="requests")
    router.message.register(ask_command, Command("ask"))
    runner.register(router, TAP)
    return router


DIGITS_MAX = 6


def parse_request(text: str, profile: Profile) -> tuple[list[TraitCode], int]:
    """``восп+бдит 8`` → the trait codes and the difficulty (the profile's default if none).

    Raises :class:`TraitNameError` for a name and :class:`RulesInputError` for the rest; the
    pool is tried on an empty sheet so a trait that is never rolled (a Sphere) is refused now
    rather than at every player's tap.
    """
    words = tokenize(text)
    difficulty = profile.default_difficulty
    if words and words[-1].isascii() and words[-1].isdigit():
        typed = words.pop()
        if len(typed) > DIGITS_MAX:  # far out of range, and too long to read as a number
            raise RulesInputError(ErrorCode.RANGE, "difficulty", typed[:DIGITS_MAX])
        difficulty = int(typed)
    if not words:
        raise RulesInputError(ErrorCode.STATE, "pool", "no traits")
    system = system_of(profile)
    codes = parse_pool_expression(" ".join(words), system, max_traits=profile.max_traits_per_pool)
    check_base(difficulty, profile)
    pool_from_traits(new_sheet(system), codes, profile)
    return codes, difficulty


async def ask_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    profile: Profile,
    chat_settings: ChatSettings,
    locale: str,
) -> None:
    access = await game_access(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    )
    if access is GameAccess.DENIED:
        await message.answer(view.only_storyteller_text())
        return
    if profile.system is not GameSystem.D10:
        await message.answer(view.ask_d10_only_text())
        return
    system = system_of(profile)
    try:
        codes, difficulty = parse_request(command.args or "", profile)
    except TraitNameError as error:
        text = sheet_text.name_problem_text(error, sheet_text.lang_of(locale), system)
        await message.answer(text + "\n" + view.ask_hint_text())
        return
    except RulesInputError as error:
        await message.answer(_input_problem(error, profile))
        return
    asker = render_name(message)
    state = RequestState(
        system=system, codes=tuple(c.value for c in codes), difficulty=difficulty, asker=asker
    )
    user = message.from_user
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    await message.answer(
        view.request_text(state, codes, locale, profile, closed=False),
        reply_markup=view.request_keyboard(flow.id),
    )


def render_name(message: Message) -> str:
    if message.sender_chat is not None and message.sender_chat.title:
        return message.sender_chat.title
    return message.from_user.first_name if message.from_user else "?"


def _input_problem(error: RulesInputError, profile: Profile) -> str:
    if error.code is ErrorCode.TOO_MANY_TRAITS:
        return view.too_many_traits_text(profile.max_traits_per_pool)
    if error.field == "difficulty" or error.field == "base":
        return render.range_problem_text("difficulty", profile, command="r").splitlines()[0] + (
            "\n" + view.ask_hint_text()
        )
    if error.code is ErrorCode.NOT_ALLOWED and error.field == "codes":
        return view.not_rolled_text() + "\n" + view.ask_hint_text()
    return view.ask_hint_text()
