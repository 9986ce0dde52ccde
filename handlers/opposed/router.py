"""Opposed rolls (противостояние, docs/rules.md §A.12, §A.14): ``/vs 6 7`` against another player.

S0 «…ваш персонаж получает только те успехи, которые превышают успехи соперника»: the
challenger rolls at once; the challenged player (named by replying to their message or by
@mention) chooses their own pool and difficulty on the buttons of the same message and
rolls; :func:`rules.contests.contest_step` says who won and by how many net successes. With
``до 5`` it is the extended opposed roll of S0/S1 (first to 5, each round's surplus counts),
and every round both sides press their own button. ``нпс`` puts the Storyteller's NPC on a
side: with an opponent named it is the Storyteller's own side, without one it is the
opponent, whose button only the Storyteller may press.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.enums import MessageEntityType
from aiogram.filters import Command, CommandObject
from aiogram.types import Message, User
from pydantic import ValidationError

from bot import render, retype, rolling, runner, table_text
from bot.access import runs_game
from bot.features import FeatureSet
from bot.i18n import drawing
from bot.names import roller_name
from bot.replies import replied_player
from bot.runner import screen_of
from bot.session import safe_edit
from bot.wizard import OPEN_WIZARD
from handlers.opposed import view
from handlers.opposed.callbacks import VsCallback
from handlers.opposed.flow import KIND, OpposedFlow, Party
from handlers.opposed.tap import TAP
from rules.d10 import D10Result
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from table.parsing import ArgumentsError, OpposedArguments, Problem, parse_opposed_arguments
from table.store import ChatSettings, Flow, FlowStateError, Store


def make_router() -> Router:
    router = Router(name="opposed")
    router.message.register(vs_command, Command("vs", "oppose"))
    runner.register(router, TAP)
    return router


async def _opponent(
    message: Message, mention: str | None, store: Store
) -> tuple[User | None, str | None]:
    """The challenged player: a text mention (a user without a username), the author of the
    replied-to message or the player the bot's replied-to message is about (bot/replies.py),
    or an @username (known by id only once they press)."""
    for entity in message.entities or ():
        if entity.type == MessageEntityType.TEXT_MENTION and entity.user is not None:
            return entity.user, None
    if mention is None and message.reply_to_message is not None:
        author = await replied_player(message, store)
        if author is not None:
            return author, None
    return None, mention


def _without_text_mentions(message: Message, args: str | None) -> str | None:
    text = message.text or ""
    for entity in message.entities or ():
        if entity.type == MessageEntityType.TEXT_MENTION and args:
            args = args.replace(entity.extract_from(text), " ", 1)
    return args


async def vs_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    features: FeatureSet,
    rng: Rng | None = None,
) -> None:
    if profile.system is not GameSystem.D10:
        await message.answer(render.wrong_system_text())
        return
    challenge_id = _challenge_in(message.reply_to_message)
    if challenge_id is not None:
        await _answer_by_reply(
            message, command, challenge_id, store, profile, bot, chat_settings, rng
        )
        return
    user = message.from_user
    line = _without_text_mentions(message, command.args)
    try:
        npc = await rolling.npc_named(store, message.chat.id, profile, line or "")
    except rolling.PoolRefused as refused:
        await retype.offer(message, store, refused.text, refused.choices(message.text or ""))
        return
    if npc is not None:
        if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
            await message.answer(render.npc_storyteller_only_text(npc[0]))
            return
        line = npc[1]
    try:
        args = parse_opposed_arguments(line)
    except ArgumentsError as problem:
        if problem.problem is Problem.POOL_MISSING and await _open_setup(
            message, command, store, profile, features
        ):
            return
        await message.answer(
            table_text.problem_text(problem.problem, problem.token, profile, view.usage_text())
        )
        return
    challenger_id = user.id if user else 0
    opponent, username = await _challenged(message, args.mention, store, challenger_id)
    named = opponent is not None or username is not None
    refusal = await _sides_refusal(message, args, npc is not None, named, bot, chat_settings)
    if refusal is not None:
        await message.answer(refusal + "\n" + view.usage_text())
        return
    npc_name = npc[0] if npc is not None else None
    try:
        resolved = await rolling.command_pool(
            store,
            message,
            npc_name if npc_name is not None else roller_name(message, user),
            args.pool,
            args.traits,
            profile,
            args.dice,
            npc=npc_name,
        )
    except rolling.PoolRefused as refused:
        text = refused.with_example(view.usage_text())
        await retype.offer(message, store, text, refused.choices(message.text or ""))
        return
    try:
        state, pool, first = _first_roll(
            message, args, npc_name, opponent, username, resolved, profile, rng
        )
    except RulesInputError as error:
        await message.answer(table_text.range_text(error.field, profile, view.usage_text()))
        return
    entry = rolling.log_entry(challenger_id, state.a.name, pool, first, KIND)
    flow = await store.create_flow(state, message.chat.id, challenger_id, entries=[entry])
    text, markup = view.draw(flow, state, profile)
    await message.answer(text, reply_markup=markup)


async def _challenged(
    message: Message, mention: str | None, store: Store, challenger_id: int
) -> tuple[User | None, str | None]:
    """The opponent :func:`_opponent` names, unless it is the challenger themself."""
    opponent, username = await _opponent(message, mention, store)
    if opponent is not None and opponent.id == challenger_id and message.sender_chat is None:
        opponent = None
    return opponent, username


async def _sides_refusal(
    message: Message,
    args: OpposedArguments,
    npc_named: bool,
    named: bool,
    bot: Bot,
    chat_settings: ChatSettings,
) -> str | None:
    """Why the challenge has no two sides: no opponent named (and no NPC to be one), or an
    NPC side claimed by someone who does not run the game."""
    if not named and (npc_named or not args.npc):
        return view.opponent_missing_text()
    user = message.from_user
    if named and args.npc and not await runs_game(bot, message.chat, chat_settings, user, None):
        return view.storyteller_only_text()
    return None


def _first_roll(
    message: Message,
    args: OpposedArguments,
    npc_name: str | None,
    opponent: User | None,
    username: str | None,
    resolved: rolling.Pool,
    profile: Profile,
    rng: Rng | None,
) -> tuple[OpposedFlow, int, D10Result]:
    """The challenge with the challenger's roll in it, its pool and the roll; raises
    :class:`RulesInputError` for a pool, difficulty or race target out of range."""
    pool = rolling.check_pool(resolved.dice, profile)
    base = rolling.check_difficulty(args.difficulty, profile)
    state = _challenge(
        message,
        args.race_to,
        args.npc or npc_name is not None,
        opponent,
        username,
        pool,
        base,
        npc_name=npc_name,
    )
    # The challenger's own conditions make their side harder, not the opponent's (§B.8).
    terms = resolved.difficulty(base, profile)
    a = state.a.model_copy(
        update={
            "source": resolved.source,
            "difficulty": terms.difficulty,
            "threshold": terms.threshold,
        }
    )
    state = state.model_copy(update={"a": a})
    state.contest()  # the rules check the race target here
    first = rolling.roll_d10(pool, a.difficulty, profile, threshold=a.threshold, rng=rng)
    return state.model_copy(update={"roll_a": first}), pool, first


def _challenge_in(replied: Message | None) -> str | None:
    """The challenge a reply answers: the flow id its buttons carry (nothing is stored per
    message; the keyboard already says which flow it drives)."""
    if replied is None or replied.reply_markup is None:
        return None
    for row in replied.reply_markup.inline_keyboard:
        for button in row:
            data = button.callback_data or ""
            if data.startswith(VsCallback.__prefix__ + ":"):
                try:
                    return VsCallback.unpack(data).f
                except (TypeError, ValueError):
                    return None
    return None


async def _answer_by_reply(
    message: Message,
    command: CommandObject,
    flow_id: str,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None,
) -> None:
    """``/vs ловк+драка 7`` in reply to a challenge: the challenged player answers with a pool
    from their sheet (or typed) instead of the buttons; the challenge message is redrawn."""
    replied = message.reply_to_message
    challenge = await _open_challenge(message, flow_id, store)
    if replied is None or challenge is None:
        return
    flow, state = challenge
    npc = None
    try:
        if state.b.storyteller:  # the Storyteller answers for an NPC of the chat by its name
            npc = await rolling.npc_named(store, message.chat.id, profile, command.args or "")
    except rolling.PoolRefused as refused:
        await message.answer(refused.text)
        return
    try:
        args = parse_opposed_arguments(npc[1] if npc is not None else command.args)
    except ArgumentsError as problem:
        await message.answer(
            table_text.problem_text(problem.problem, problem.token, profile, view.usage_text())
        )
        return
    user = await _side_b_player(message, state, bot, chat_settings)
    if user is None:
        await message.answer(view.not_your_side_text())
        return
    if not state.choosing:
        await message.answer(view.already_rolled_text())
        return
    npc_name = npc[0] if npc is not None else None
    try:
        with drawing(flow):  # the pool's words are lines of the challenge's message
            resolved = await rolling.command_pool(
                store,
                message,
                npc_name if npc_name is not None else user.first_name,
                args.pool,
                args.traits,
                profile,
                args.dice,
                npc=npc_name,
            )
    except rolling.PoolRefused as refused:
        text = refused.with_example(view.usage_text())
        await retype.offer(message, store, text, refused.choices(message.text or ""))
        return
    try:
        after, pool, result = _answer_roll(state, user, npc_name, args, resolved, profile, rng)
    except RulesInputError as error:
        await message.answer(table_text.range_text(error.field, profile, view.usage_text()))
        return
    entry = rolling.log_entry(user.id, after.b.name, pool, result, KIND)
    close = after.finished or after.cancelled
    text, markup = view.draw(flow.next(after, close=close), after, profile)
    advanced = await store.advance_flow(
        flow,
        flow.version,
        after,
        entries=[entry],
        close=close,
        screen=screen_of(text, markup),
    )
    if advanced is None:
        await message.answer(render.closed_text())
        return
    await safe_edit(replied.as_(bot), text, markup)


async def _open_challenge(
    message: Message, flow_id: str, store: Store
) -> tuple[Flow, OpposedFlow] | None:
    """The open challenge of this chat a reply answers, or None once the player is told why
    there is none."""
    flow = await store.load_flow(message.chat.id, flow_id)
    if (
        message.reply_to_message is None
        or flow is None
        or flow.closed
        or flow.chat_id != message.chat.id
    ):
        await message.answer(render.closed_text())
        return None
    try:
        return flow, flow.state(OpposedFlow)
    except (ValidationError, FlowStateError):
        await message.answer(render.invalid_button_text())
        return None


async def _side_b_player(
    message: Message, state: OpposedFlow, bot: Bot, chat_settings: ChatSettings
) -> User | None:
    """The sender, when the challenged side is theirs: the player named by id or by
    @username, or whoever runs the game for an NPC side; None for anyone else (or a channel)."""
    user = message.from_user
    if user is None or message.sender_chat is not None:
        return None
    if state.b.user_id is not None:
        allowed = state.b.user_id == user.id
    elif state.b.username is not None:
        allowed = (user.username or "").casefold() == state.b.username.casefold()
    else:
        allowed = await runs_game(bot, message.chat, chat_settings, user, None)
    return user if allowed else None


def _answer_roll(
    state: OpposedFlow,
    user: User,
    npc_name: str | None,
    args: OpposedArguments,
    resolved: rolling.Pool,
    profile: Profile,
    rng: Rng | None,
) -> tuple[OpposedFlow, int, D10Result]:
    """The challenged side's roll (the challenge's difficulty unless one is typed) and the
    challenge settled with it; raises :class:`RulesInputError` for a value out of range."""
    pool = rolling.check_pool(resolved.dice, profile)
    terms = resolved.difficulty(
        rolling.check_difficulty(
            args.difficulty if args.difficulty is not None else state.b.difficulty, profile
        ),
        profile,
    )
    difficulty = terms.difficulty
    result = rolling.roll_d10(pool, difficulty, profile, threshold=terms.threshold, rng=rng)
    name = user.first_name
    if state.b.storyteller:
        name = npc_name if npc_name is not None else state.b.name
    b = state.b.model_copy(
        update={
            "user_id": None if state.b.storyteller else user.id,
            "name": name,
            "pool": pool,
            "difficulty": difficulty,
            "source": resolved.source,
            "threshold": terms.threshold,
        }
    )
    return state.model_copy(update={"b": b, "roll_b": result}).settled(), pool, result


async def _open_setup(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    features: FeatureSet,
) -> bool:
    """``/vs`` in reply to a player (or ``/vs @name``) without numbers: the pool wizard."""
    words = (_without_text_mentions(message, command.args) or "").split()
    if any(not word.startswith("@") for word in words) or len(words) > 1:
        return False
    opponent, username = await _opponent(message, words[0][1:] if words else None, store)
    user = message.from_user
    if opponent is not None and user is not None and opponent.id == user.id:
        opponent = None
    if opponent is None and username is None:
        return False
    challenge = _challenge(message, None, False, opponent, username, 1, profile.default_difficulty)
    await features.handoff(OPEN_WIZARD)(
        message,
        store,
        profile,
        KIND,
        challenge.a.name,
        carry=challenge,
        opponent=challenge.b.name,
        features=features,
    )
    return True


def _challenge(
    message: Message,
    race_to: int | None,
    npc: bool,
    opponent: User | None,
    username: str | None,
    pool: int,
    difficulty: int,
    *,
    npc_name: str | None = None,
) -> OpposedFlow:
    """``npc_name``: the Storyteller's side is that NPC of the chat, named on the result."""
    user = message.from_user
    named = opponent is not None or username is not None
    a = Party(
        user_id=user.id if user else 0,
        name=(npc_name or view.npc_name()) if npc and named else roller_name(message, user),
        storyteller=npc and named,
        pool=pool,
        difficulty=difficulty,
    )
    if opponent is not None:
        b = Party(user_id=opponent.id, name=opponent.first_name, difficulty=difficulty)
    elif username is not None:
        b = Party(username=username, name="@" + username, difficulty=difficulty)
    else:
        b = Party(name=view.npc_name(), storyteller=True, difficulty=difficulty)
    return OpposedFlow(a=a, b=b, race_to=race_to)
