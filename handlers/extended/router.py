"""Extended rolls (длительное действие, docs/rules.md §A.11): ``/ext 7 6 10 [5]`` and «Продлить».

S1 «Действие, которое требует 2 и более успешных баллов, считается длительным»: the same pool
is rolled turn after turn and the successes add up toward a target, maybe against a limit of
rolls (S0's spirit summoned before the Nephandus arrives). The progress lives in a flow, so
it survives across turns, messages and bot restarts; only the roller rolls on. A botch
follows the profile (``extended_botch``) through :func:`rules.actions.extended_step`, and
whether the work goes on after it is the Storyteller's call, so the button stays («Начать
сначала»); a finished or timed-out action closes its flow.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import rolling, runner, table_text
from bot.features import FeatureSet
from bot.names import roller_name
from bot.wizard import typed_or_wizard
from handlers.extended import view
from handlers.extended.flow import KIND, ExtendedFlow, begin, finished
from handlers.extended.tap import TAP
from rules.actions import start_extended
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import Profile
from table.parsing import parse_extended_arguments
from table.store import Flow, LogEntry, Store


def make_router() -> Router:
    router = Router(name="extended")
    router.message.register(ext_command, Command("ext", "extended"))
    runner.register(router, TAP)
    return router


async def store_flow(
    store: Store, chat_id: int, owner_id: int, state: ExtendedFlow, entry: LogEntry | None
) -> Flow:
    """The action's flow, with its first roll's log line unless that roll was logged already
    (a /r result turned extended); closed at once when the first roll already finished the
    action: nothing to press, and the flow need not wait for a tap."""
    entries = () if entry is None else (entry,)
    flow = await store.create_flow(state, chat_id, owner_id, entries=entries)
    if finished(state):
        await store.close_flow(flow, flow.version)
    return flow


async def ext_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    features: FeatureSet,
    rng: Rng | None = None,
) -> None:
    args = await typed_or_wizard(
        message,
        command,
        store,
        profile,
        features,
        "ext",
        parse_extended_arguments,
        view.usage_text(),
    )
    if args is None:
        return
    user = message.from_user
    roller = roller_name(message, user)
    try:
        resolved = await rolling.command_pool(
            store, message, roller, args.pool, args.traits, profile, args.dice
        )
        typed, source = resolved.dice, resolved.source
    except rolling.PoolRefused as refused:
        await message.answer(refused.with_example(view.usage_text()))
        return
    try:
        pool = rolling.check_pool(typed, profile)
        terms = resolved.difficulty(rolling.check_difficulty(args.difficulty, profile), profile)
        difficulty, threshold = terms.difficulty, terms.threshold
        start_extended(args.target, args.max_rolls)
        first = rolling.roll_d10(pool, difficulty, profile, threshold=threshold, rng=rng)
        state = begin(roller, pool, difficulty, args.target, args.max_rolls, first, profile)
        state = state.model_copy(update={"source": source, "threshold": threshold})
    except RulesInputError as error:
        await message.answer(table_text.range_text(error.field, profile, view.usage_text()))
        return
    owner = user.id if user else 0
    entry = rolling.log_entry(owner, roller, pool, first, KIND)
    flow = await store_flow(store, message.chat.id, owner, state, entry)
    text, markup = view.draw(flow, state, profile)
    await message.answer(text, reply_markup=markup)
