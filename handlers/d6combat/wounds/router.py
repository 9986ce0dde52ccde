"""``/dmg``, ``/heal`` and ``/hp`` in a d6 chat (docs/rules.md §D.1–§D.2): a wound is a difficulty
the sheet keeps, physical ones adding up and only the strongest mental one counting in every later
chance (``rules.d6.chance.difficulty_total``). One atomic sheet update each, so two wounds sent
at once both land. The Storyteller wounds a player by replying to them, or an NPC by name."""

from __future__ import annotations

from collections.abc import Callable

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import render, retype, rolling
from bot.access import runs_game
from bot.features import in_game
from bot.names import roller_name
from bot.replies import concerns, replied_player
from handlers.d6combat.wounds import view
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem, add_wound, heal_wound
from table import npcs
from table.parsing import ArgumentsError, D6WoundArguments, parse_d6_wound_arguments
from table.store import ChatSettings, SheetOwner, Store

D6 = SheetSystem.D6


def make_router() -> Router:
    router = Router(name="d6wounds")
    router.message.register(dmg_command, Command("dmg", "damage"), in_game(GameSystem.D6))
    router.message.register(heal_command, Command("heal"), in_game(GameSystem.D6))
    router.message.register(hp_command, Command("hp", "health"), in_game(GameSystem.D6))
    return router


def _parse(
    text: str | None, *, damage: bool, refused: list[ArgumentsError] | None = None
) -> D6WoundArguments | None:
    """The line by the grammar (``table.parsing``); None when it is not one, for the usage,
    with the grammar's refusal kept in ``refused`` (worded by ``render``)."""
    try:
        return parse_d6_wound_arguments(text, damage=damage)
    except ArgumentsError as problem:
        if refused is not None:
            refused.append(problem)
        return None


def _usage(refused: list[ArgumentsError]) -> str:
    if not refused:
        return view.usage_text()
    return render.line_problem_text(refused[0].problem, refused[0].token, view.usage_text())


async def _npc_named(
    store: Store, chat_id: int, text: str | None, *, damage: bool
) -> D6WoundArguments | None:
    """``Охранник 2 тел 1``: a line that starts with an NPC's name, as the scenarist names
    one (a group's copy by its number, docs/product.md "NPCs"), or names it by a part that
    is its alone (``бандит тел 1`` for «Одноглазый бандит»); severity 1 when only the kind
    follows the name. A part several NPCs share raises :class:`rolling.PoolRefused` with
    their names, for the answer to offer each."""
    try:
        found = await npcs.npc_named(store, chat_id, D6, text or "", whole=True)
    except npcs.AmbiguousName as ambiguous:
        said = rolling.ambiguous_npc_text(ambiguous.typed, ambiguous.names)
        raise rolling.PoolRefused(said, ambiguous.typed, ambiguous.names, one_word=False) from None
    if found is None:
        return None
    name, rest = found
    for line in (rest, rest + " 1"):
        args = _parse(line, damage=damage)
        if args is not None:
            return args.model_copy(update={"npc": name})
    return None


async def _apply(
    message: Message,
    store: Store,
    bot: Bot,
    chat_settings: ChatSettings,
    npc: str | None,
    change: Callable[[Sheet], Sheet],
) -> tuple[str, Sheet] | None:
    """Whose sheet and the sheet after the change; None once refused (and answered)."""
    user = message.from_user
    target = await replied_player(message, store) if npc is None else None
    other = target is not None and user is not None and target.id != user.id
    chat_id = message.chat.id
    if npc is not None or other:
        if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
            await message.answer(view.storyteller_only_text())
            return None
        if npc is not None:
            concerns(store.scope, None)
            if await store.load_npc(chat_id, D6, npc) is None:
                await message.answer(view.no_npc_text(npc))
                return None
            return npc, await store.update_npc(chat_id, D6, npc, change)
        assert target is not None
        concerns(store.scope, target.id, target.first_name, target.username)
        owner = SheetOwner(user_id=target.id, name=target.first_name, username=target.username)
        return target.first_name, await store.update_sheet(
            chat_id, target.id, D6, change, owner=owner
        )
    if user is None or message.sender_chat is not None:
        await message.answer(view.usage_text())
        return None
    name = roller_name(message, user)
    owner = SheetOwner(user_id=user.id, name=name, username=user.username)
    return name, await store.update_sheet(chat_id, user.id, D6, change, owner=owner)


async def dmg_command(
    message: Message,
    command: CommandObject,
    store: Store,
    bot: Bot,
    chat_settings: ChatSettings,
    profile: Profile,
) -> None:
    refused: list[ArgumentsError] = []
    try:
        args = _parse(command.args, damage=True, refused=refused) or await _npc_named(
            store, message.chat.id, command.args, damage=True
        )
    except rolling.PoolRefused as refused_name:  # a part of a name several NPCs share
        choices = refused_name.choices(message.text or "")
        await retype.offer(message, store, refused_name.text, choices)
        return
    if args is None or args.kind is None:
        await message.answer(_usage(refused))
        return
    kind, severity = args.kind, args.number

    def hurt(sheet: Sheet) -> Sheet:
        return add_wound(sheet, kind, severity)

    try:
        done = await _apply(message, store, bot, chat_settings, args.npc, hurt)
    except RulesInputError:
        await message.answer(view.usage_text())
        return
    if done is not None:
        name, sheet = done
        await message.answer(
            view.wounded_text(name, kind, severity, sheet, rolling.d6_helpless(sheet, profile))
        )


async def heal_command(
    message: Message, command: CommandObject, store: Store, bot: Bot, chat_settings: ChatSettings
) -> None:
    refused: list[ArgumentsError] = []
    try:
        args = _parse(command.args, damage=False, refused=refused) or await _npc_named(
            store, message.chat.id, command.args, damage=False
        )
    except rolling.PoolRefused as refused_name:  # a part of a name several NPCs share
        choices = refused_name.choices(message.text or "")
        await retype.offer(message, store, refused_name.text, choices)
        return
    if args is None:
        await message.answer(_usage(refused))
        return
    index = args.number - 1

    def mend(sheet: Sheet) -> Sheet:
        return heal_wound(sheet, index)

    try:
        done = await _apply(message, store, bot, chat_settings, args.npc, mend)
    except RulesInputError:
        await message.answer(view.no_wound_text(roller_name(message, message.from_user)))
        return
    if done is not None:
        name, sheet = done
        await message.answer(view.healed_text(name, sheet))


async def hp_command(
    message: Message, command: CommandObject, store: Store, profile: Profile
) -> None:
    """The wounds a character carries (§D.2) and helplessness (§D.11): one's own, in reply
    to a player's message theirs, an NPC's by name, a group's copies one by one. Anyone may
    look: wounds are what the table sees anyway."""
    chat_id = message.chat.id
    text = (command.args or "").strip()
    if text:
        listed = [name for name, _sheet in await store.list_npcs(chat_id, D6)]
        groups = [group for name in listed if (group := npcs.group_of(name)) is not None]
        found = npcs.name_at_start(text.split(), [*listed, *groups], whole=True)
        if found is None or found[1]:
            await message.answer(view.no_npc_text(text) if found is None else view.hp_usage_text())
            return
        name = found[0]
        shown = await npcs.group_sheets(store, chat_id, D6, name)
        if not shown:
            sheet = await store.load_npc(chat_id, D6, name)
            shown = [(name, sheet)] if sheet is not None else []
        if not shown:
            await message.answer(view.no_npc_text(name))
            return
        lines = [_hp(name, sheet, profile) for name, sheet in shown]
        await message.answer("\n\n".join(lines))
        return
    user = message.from_user
    target = await replied_player(message, store)  # or whom the bot's replied message is about
    who = target if target is not None else user
    if who is None or (who is user and message.sender_chat is not None):
        await message.answer(view.hp_usage_text())
        return
    name = roller_name(message, who) if who is user else who.first_name
    sheet = await store.load_sheet(chat_id, who.id, D6)
    await message.answer(_hp(name, sheet, profile))


def _hp(name: str, sheet: Sheet | None, profile: Profile) -> str:
    helpless = sheet is not None and rolling.d6_helpless(sheet, profile)
    return view.hp_text(name, sheet, profile, helpless)
