"""Character sheets: ``/set``, ``/sheet``, a pasted block, and the editor.

Ways in, from quickest to most discoverable:

- ``/set ловкость 3``, several pairs on one line (``/set ловк 3 драка 2``), Willpower as
  current/permanent (``/set сила воли 5/7``), or many lines after ``/set`` or ``/sheet set``;
- a reply to any of the bot's sheet messages (they start with 📜: the view, the export, the
  ``/sheet set`` prompt, «no sheet yet») or to a player's own ``/sheet`` with lines of traits
  sets them on the replier's OWN sheet (the Storyteller's under a player's ``/sheet``: that
  player's), so a player can copy an export, edit it and send it back; headings and labels
  («Таланты: Бдительность 2, Драка 3») are read as a pasted sheet has them (a reply without
  a single number is table talk and gets no answer);
- ``/blood 2`` spends a Dark Ages vampire's blood, ``/blood +3`` adds it;
- ``/set`` alone opens an editor in one message: category → trait → value buttons.

Every text change goes through :func:`table.traits.apply_block` inside the Store's atomic update.
A paste is forgiving: the lines that read are written and the others are listed with their
candidates (one unknown line must not drop eighteen good ones); a text in which nothing reads
writes nothing. ``/sheet`` shows the sheet; the Storyteller (or,
while the chat has none, a chat administrator: :func:`handlers.storyteller.game_access`) may
see another player's by ``/sheet @name`` or by replying ``/sheet`` to their message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject
from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    User,
    WebAppInfo,
)

from bot import notices, render, runner, sheet_text
from bot.access import GameAccess, game_access, runs_game
from bot.miniapp.initdata import encode_campaign
from bot.replies import concerns, replied_player
from bot.settings import Settings
from handlers.sheet import tap
from handlers.sheet import view as sheet_view
from handlers.sheet.callbacks import RosterCallback
from handlers.sheet.flow import EditorState
from rules.errors import RulesInputError
from rules.profiles import Profile
from rules.sheet import (
    BLOOD_MAX,
    Sheet,
    SheetSystem,
    gain_blood,
    new_sheet,
    spend_blood,
    system_of,
)
from table.scope import Campaign
from table.store import ChatSettings, SheetOwner, Store
from table.traits import BlockEntry, BlockError, BlockResult, apply_block, parse_block

NPC_NAME_MAX = 40

# A value ends a pair when a name follows it: «ловк 3 драка 2» is two lines for the block
# reader, «ловкость 3 4» stays one (and is refused as a bad number).
_PAIR_END = re.compile(
    r"((?:^|\s)(?:[0-9]{1,6}(?:\s*/\s*[0-9]{1,6})?|[●•]+[○◦]*))[ \t]+(?=[^\s0-9/,;])"
)

_RATING = re.compile(r"[0-9●•]")


class _Refused(Exception):
    """Aborts the Store's transaction: the block had problems, nothing may be written."""

    def __init__(self, result: BlockResult) -> None:
        super().__init__("block refused")
        self.result = result


def make_router() -> Router:
    router = Router(name="sheet")
    router.message.register(set_command, Command("set"))
    router.message.register(sheet_command, Command("sheet"))
    router.message.register(npc_command, Command("npc"))
    router.message.register(blood_command, Command("blood"))
    router.message.register(paste_reply, replies_to_a_sheet)
    runner.register(router, tap.TAP)
    runner.register(router, ROSTER_TAP)
    return router


def owner_of(user: User) -> SheetOwner:
    return SheetOwner(user_id=user.id, name=user.first_name, username=user.username)


def pairs_to_lines(text: str) -> str:
    """``ловк 3 драка 2`` → two lines; lines and comma-separated items pass unchanged."""
    return "\n".join(_PAIR_END.sub(r"\1\n", line) for line in text.splitlines())


def forgiving(
    block: str, profile: Profile, applied: list[BlockEntry], skipped: list[BlockError]
) -> Callable[[Sheet], Sheet]:
    """The Store's change for a block: every readable entry set and the others skipped, or
    :class:`_Refused` and nothing when no entry reads; ``applied`` and ``skipped`` receive
    what was set and what was not (for the answer)."""

    def change(sheet: Sheet) -> Sheet:
        result = apply_block(sheet, block, profile)
        if not result.applied:
            raise _Refused(result)
        applied[:] = result.applied
        skipped[:] = result.errors
        return result.sheet

    return change


def replies_to_a_sheet(message: Message, bot: Bot) -> bool:
    """A plain text reply to one of the bot's 📜 messages (the sheet, the export, the prompt,
    «no sheet yet»; privacy mode still delivers it), or to a player's own ``/sheet``."""
    reply = message.reply_to_message
    if message.text is None or message.text.startswith("/") or reply is None:
        return False
    author = reply.from_user
    if author is None:
        return False
    if author.id == bot.id:
        return (reply.text or "").startswith(sheet_text.SHEET_MARK)
    return not author.is_bot and _is_sheet_command(reply.text or "")


def _is_sheet_command(text: str) -> bool:
    """``/sheet`` or ``/sheet@OurBot``, with or without words after it."""
    command = text.split(maxsplit=1)[0].casefold() if text.split() else ""
    return command.partition("@")[0] in ("/sheet", "/set")


async def _player(message: Message) -> User | None:
    """The person a sheet belongs to. A post on behalf of a chat (an anonymous administrator)
    says nothing about who wrote it, so it gets a hint instead of a sheet of its own."""
    if message.sender_chat is not None:
        await message.answer(sheet_view.anonymous_text())
        return None
    return message.from_user


async def set_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    locale: str,
    bot: Bot,
    chat_settings: ChatSettings,
) -> None:
    user = await _player(message)
    if user is None:
        return
    if (command.args or "").strip():
        # The Storyteller writes a player's sheet by replying to them (their wheel, a
        # Willpower point); anyone else's reply still writes their own sheet.
        target = await _reply_target(message, user, store, bot, chat_settings)
        said = await apply_text(message, target, command.args or "", store, profile, locale)
        await _tell_player(message, bot, store, chat_settings, target, said)
        return
    await _open_editor(message, user, store, profile, locale)


async def _tell_player(
    message: Message,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
    target: User,
    said: str | None,
) -> None:
    """The Storyteller wrote a player's sheet: the player is told privately (bot/notices.py)."""
    if said is None:
        return
    await notices.storyteller_changed(
        bot,
        store,
        message,
        chat_settings,
        (target.id, target.first_name),
        lambda: notices.sheet_words() + "\n" + said,
    )


async def paste_reply(
    message: Message,
    store: Store,
    profile: Profile,
    locale: str,
    bot: Bot,
    chat_settings: ChatSettings,
) -> None:
    if not _RATING.search(message.text or ""):
        return  # «круто!» under a sheet is table talk, not a paste: no answer at all
    user = await _player(message)
    if user is None:
        return
    # Under a player's own /sheet (or the bot's answer to it) the Storyteller writes that
    # player's sheet, as /set in reply to them does; anyone else's paste writes their own.
    target = await _reply_target(message, user, store, bot, chat_settings)
    said = await apply_text(message, target, message.text or "", store, profile, locale)
    await _tell_player(message, bot, store, chat_settings, target, said)


async def apply_text(
    message: Message, user: User, text: str, store: Store, profile: Profile, locale: str
) -> str | None:
    """Set every ``name value`` in ``text`` on the user's sheet, or nothing at all; the answer
    when something was written."""
    system = system_of(profile)
    lang = sheet_text.lang_of(locale)
    block = pairs_to_lines(text)
    parsed = parse_block(block, system)
    if not parsed.entries and not parsed.errors:
        await message.answer(sheet_view.empty_set_text(system))
        return None
    applied: list[BlockEntry] = []
    skipped: list[BlockError] = []
    change = forgiving(block, profile, applied, skipped)

    owner = owner_of(user)
    try:
        sheet = await store.update_sheet(message.chat.id, user.id, system, change, owner=owner)
    except _Refused as refused:
        text = sheet_view.block_errors_text(refused.result.errors, lang, system)
        await message.answer(text)
        return None
    text = sheet_view.saved_text(sheet, owner.name, lang, applied)
    if skipped:
        text += "\n" + sheet_view.skipped_text(skipped, lang, system)
    await message.answer(text)
    return text


async def sheet_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    profile: Profile,
    chat_settings: ChatSettings,
    locale: str,
    settings: Settings | None = None,
) -> None:
    user = await _player(message)
    if user is None:
        return
    system = system_of(profile)
    lang = sheet_text.lang_of(locale)
    words = (command.args or "").split(maxsplit=1)
    sub = words[0].casefold() if words else ""
    rest = words[1] if len(words) > 1 else ""
    if sub == "set":
        if rest.strip():
            await apply_text(message, user, rest, store, profile, locale)
        else:
            prompt = sheet_view.paste_prompt_text(lang, system)
            await message.answer(prompt)
        return
    if sub == "all":
        await _roster(message, bot, store, chat_settings, system, locale)
        return
    export = sub == "export"
    mention = rest if export else (command.args or "").strip()
    if sub and not export and not sub.startswith("@"):
        await message.answer(sheet_view.sheet_usage_text(system is SheetSystem.D6))
        return
    target = await _target(message, user, mention, store, system)
    if target is None:
        await message.answer(sheet_view.unknown_player_text(mention.split()[0]))
        return
    if target.user_id != user.id and (
        await game_access(bot, message.chat, chat_settings, user, message.sender_chat)
        is not GameAccess.ALLOWED
    ):
        await message.answer(sheet_view.not_storyteller_text(system is SheetSystem.D6))
        return
    # a reply to this answer is theirs
    concerns(store.scope, target.user_id, target.name, target.username)
    sheet = await store.load_sheet(message.chat.id, target.user_id, system)
    if sheet is None:
        await message.answer(
            sheet_text.no_sheet_text(target.name, d6=system is SheetSystem.D6),
            reply_markup=await miniapp_button(message, bot, settings),
        )
        return
    text = (
        sheet_view.export_text(sheet, target.name, lang)
        if export
        else sheet_view.sheet_text(sheet, target.name, lang, profile=profile)
    )
    markup = None if export else await miniapp_button(message, bot, settings)
    await message.answer(text, reply_markup=markup)


async def miniapp_button(
    message: Message, bot: Bot, settings: Settings | None
) -> InlineKeyboardMarkup | None:
    """The button that opens the sheet as a Mini App (bot/miniapp/), when the operator serves
    one: a ``web_app`` button in a private chat; in a group, where Telegram allows no such
    button, the Mini App's direct link with the campaign in ``startapp`` (a forum topic's
    when ``/sheet`` was typed in one: the page shows and rolls in that topic's game)."""
    if settings is None or settings.miniapp_url is None:
        return None
    code = encode_campaign(
        Campaign.of(message.chat.id, message.message_thread_id, is_topic=message.is_topic_message)
    )
    if message.chat.type == ChatType.PRIVATE:
        button = InlineKeyboardButton(
            text=sheet_view.miniapp_button_text(),
            web_app=WebAppInfo(url=f"{settings.miniapp_url}/?c={code}"),
        )
    else:
        me = await bot.me()
        if settings.miniapp_name is None or not me.username:
            return None
        link = f"https://t.me/{me.username}/{settings.miniapp_name}?startapp={code}"
        button = InlineKeyboardButton(text=sheet_view.miniapp_button_text(), url=link)
    return InlineKeyboardMarkup(inline_keyboard=[[button]])


async def _may_run_the_game(message: Message, bot: Bot, chat_settings: ChatSettings) -> bool:
    access = await game_access(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    )
    return access is GameAccess.ALLOWED


async def _roster(
    message: Message,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
    system: SheetSystem,
    locale: str,
) -> None:
    """``/sheet all``: every player's sheet and every NPC, one line each (Storyteller)."""
    if not await _may_run_the_game(message, bot, chat_settings):
        await message.answer(sheet_view.not_storyteller_text(system is SheetSystem.D6))
        return
    lang = sheet_text.lang_of(locale)
    players = [(p.owner.name, p.sheet) for p in await store.list_sheets(message.chat.id, system)]
    npcs = await store.list_npcs(message.chat.id, system)
    text, markup = sheet_view.roster_page(
        players, lang, sheet_text.SHEET_MARK, npcs=npcs, d6=system is SheetSystem.D6
    )
    await message.answer(text, reply_markup=markup)


@dataclass(frozen=True)
class Roster:
    """The lists a page of ``/sheet all`` or ``/npc`` is drawn from, as they are now."""

    players: list[tuple[str, Sheet]]
    npcs: list[tuple[str, Sheet]]


async def load_roster(pressed: runner.Pressed[RosterCallback]) -> Roster | runner.Refuse:
    """The lists read afresh at each press: a page is «the n-th», so a sheet added since only
    shifts what follows."""
    message = pressed.message
    if message is None:
        return runner.refuse(render.closed_text)
    system = system_of(pressed.context.profile)
    npcs = await pressed.store.list_npcs(message.chat.id, system)
    if pressed.data.n:
        return Roster([], npcs)
    players = [
        (p.owner.name, p.sheet) for p in await pressed.store.list_sheets(message.chat.id, system)
    ]
    return Roster(players, npcs)


async def read_access(pressed: runner.Pressed[RosterCallback], roster: Roster) -> GameAccess:
    """Whether the presser may read every sheet: the Storyteller (an admin before there is
    one)."""
    message, bot, settings = pressed.message, pressed.context.bot, pressed.context.chat_settings
    assert message is not None
    assert bot is not None
    assert settings is not None
    return await game_access(bot, message.chat, settings, pressed.presser, None)


def roster_step(
    roster: Roster, data: RosterCallback, actor: runner.Actor, seen: runner.Seen[GameAccess]
) -> runner.Deed[Roster]:
    """«⬅»/«➡»: only whoever may read the lists turns the pages."""
    if seen.read is not GameAccess.ALLOWED:
        d6 = system_of(seen.profile) is SheetSystem.D6
        return runner.refuse(lambda: sheet_view.not_storyteller_text(d6))
    return runner.Keep()


def roster_view(
    roster: Roster, data: RosterCallback, seen: runner.Seen[GameAccess]
) -> runner.Drawn:
    lang = sheet_text.lang_of(seen.locale)
    if data.n:
        return sheet_view.roster_page(
            roster.npcs, lang, sheet_view.NPC_MARK, page=data.p, npc_only=True
        )
    system = system_of(seen.profile)
    return sheet_view.roster_page(
        roster.players,
        lang,
        sheet_text.SHEET_MARK,
        npcs=roster.npcs,
        page=data.p,
        d6=system is SheetSystem.D6,
    )


ROSTER_TAP: runner.RecordTap[Roster, RosterCallback, GameAccess] = runner.RecordTap(
    name="roster",
    callback=RosterCallback,
    load=load_roster,
    read=read_access,
    step=roster_step,
    view=roster_view,
)


async def _target(
    message: Message, user: User, mention: str, store: Store, system: SheetSystem
) -> SheetOwner | None:
    """Whose sheet: an @name among the chat's players, the author of the replied message, or
    the sender. None for an @name nobody here has a sheet under."""
    word = mention.split()[0] if mention.split() else ""
    if word.startswith("@"):
        wanted = word[1:].casefold()
        for found in await store.list_sheets(message.chat.id, system):
            if (found.owner.username or "").casefold() == wanted:
                return found.owner
        return None
    replied = await replied_player(message, store)  # or whom the bot's replied message is about
    return owner_of(replied if replied is not None else user)


async def _reply_target(
    message: Message, user: User, store: Store, bot: Bot, chat_settings: ChatSettings
) -> User:
    """Whose sheet a reply writes: the player replied to, or the player the bot's replied
    message is about (a roll's result, their sheet), when the sender runs the game; otherwise
    the sender's own (docs/product.md "Shared messages and replies")."""
    target = await replied_player(message, store)
    if (
        target is not None
        and target.id != user.id
        and await runs_game(bot, message.chat, chat_settings, user, None)
    ):
        return target
    return user


# ---------------------------------------------------------------------------------------------
# The blood pool: /blood 2 spends, /blood +3 drinks, /blood shows it (Dark Ages)

_BLOOD = re.compile(r"(?P<sign>\+?)\s*(?P<n>[0-9]{1,3})")


async def blood_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    profile: Profile,
    chat_settings: ChatSettings,
) -> None:
    """Blood spent (or drunk) in one atomic change of the sheet: more than the pool holds is
    refused and writes nothing. The Storyteller spends a player's blood by replying to them,
    as with ``/set``."""
    user = await _player(message)
    if user is None:
        return
    if system_of(profile) is not SheetSystem.DARK_AGES:
        await message.answer(sheet_view.blood_other_game_text())
        return
    user = await _reply_target(message, user, store, bot, chat_settings)
    args = (command.args or "").strip()
    system = SheetSystem.DARK_AGES
    if not args:
        sheet = await store.load_sheet(message.chat.id, user.id, system)
        pool = sheet.blood if sheet is not None else None
        await message.answer(sheet_view.blood_pool_text(user.first_name, pool))
        return
    match = _BLOOD.fullmatch(args)
    points = int(match["n"]) if match is not None else 0
    if match is None or not 1 <= points <= BLOOD_MAX:
        await message.answer(sheet_view.blood_usage_text())
        return
    gain = match["sign"] == "+"
    held: list[int | None] = [None]

    def change(sheet: Sheet) -> Sheet:
        held[0] = sheet.blood
        return gain_blood(sheet, points) if gain else spend_blood(sheet, points)

    try:
        sheet = await store.update_sheet(
            message.chat.id, user.id, system, change, owner=owner_of(user)
        )
    except RulesInputError:
        await message.answer(
            sheet_view.blood_refused_text(user.first_name, points, held[0]),
        )
        return
    text = (
        sheet_view.blood_gained_text(user.first_name, points, sheet.blood or 0)
        if gain
        else sheet_view.blood_spent_text(user.first_name, points, sheet.blood or 0)
    )
    await message.answer(text)
    await _tell_player(message, bot, store, chat_settings, user, text)


# ---------------------------------------------------------------------------------------------
# NPC sheets: /npc Страж: ловкость 3 драка 2


def split_npc(text: str) -> tuple[str, str]:
    """``Страж: ловкость 3`` or ``Страж`` + lines → the name and the traits' text."""
    first_line, _, more = text.strip().partition("\n")
    name, colon, rest = first_line.partition(":")
    if colon:
        return " ".join(name.split()), "\n".join(part for part in (rest, more) if part.strip())
    return " ".join(first_line.split()), more


async def npc_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    profile: Profile,
    chat_settings: ChatSettings,
    locale: str,
) -> None:
    """The Storyteller's NPC sheets, by name; the same all-or-nothing text as ``/set``."""
    system = system_of(profile)
    d6 = system is SheetSystem.D6
    if not await _may_run_the_game(message, bot, chat_settings):
        text = sheet_view.npc_only_storyteller_text(d6)
        await message.answer(text)
        return
    lang = sheet_text.lang_of(locale)
    name, traits = split_npc(command.args or "")
    if not name:
        npcs = await store.list_npcs(message.chat.id, system)
        text, markup = (
            sheet_view.roster_page(npcs, lang, sheet_view.NPC_MARK, npc_only=True)
            if npcs
            else (sheet_view.npc_usage_text(d6), None)
        )
        await message.answer(text, reply_markup=markup)
        return
    if len(name) > NPC_NAME_MAX or name.startswith(("@", "/")):
        await message.answer(sheet_view.npc_usage_text(d6))
        return
    if not traits.strip():
        sheet = await store.load_npc(message.chat.id, system, name)
        if sheet is None:
            await message.answer(sheet_view.no_npc_text(name, d6))
            return
        text = sheet_view.sheet_text(sheet, name, lang, sheet_view.NPC_MARK)
        await message.answer(text)
        return
    block = pairs_to_lines(traits)
    applied: list[BlockEntry] = []
    skipped: list[BlockError] = []
    change = forgiving(block, profile, applied, skipped)

    try:
        sheet = await store.update_npc(message.chat.id, system, name, change)
    except _Refused as refused:
        text = sheet_view.block_errors_text(refused.result.errors, lang, system)
        await message.answer(text)
        return
    text = sheet_view.npc_saved_text(sheet, name, lang, applied)
    if skipped:
        text += "\n" + sheet_view.skipped_text(skipped, lang, system)
    await message.answer(text)


# ---------------------------------------------------------------------------------------------
# The editor


async def _open_editor(
    message: Message, user: User, store: Store, profile: Profile, locale: str
) -> None:
    system = system_of(profile)
    state = EditorState(system=system, name=user.first_name)
    sheet = await store.load_sheet(message.chat.id, user.id, system) or new_sheet(system)
    flow = await store.create_flow(state, message.chat.id, user.id)
    text, markup = tap.editor_view(flow, state, sheet, locale)
    await message.answer(text, reply_markup=markup)
