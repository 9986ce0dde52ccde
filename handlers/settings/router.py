"""``/lang`` and ``/rules``: the chat's language and its rules profile (docs/product.md §2, §A.0).

The game is the Storyteller's decision, so ``/rules`` is for chat administrators until
someone claims the Storyteller's role with ``/st``, and from then on for the Storyteller alone
(``handlers.storyteller.game_access``). An anonymous administrator's message arrives with
``sender_chat`` set to the group itself and a stand-in user (GroupAnonymousBot): before there is a
Storyteller it counts as an administrator's; after, it may only open the keyboard, whose
taps carry the real user. Buttons re-check the presser every time: a keyboard in a group can
be pressed by anyone. A game switch also gives the chat that game's command menu
(``bot.commands.set_game_commands``), after the answer: a menu Telegram refuses is only logged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject
from aiogram.types import Chat, Message, User
from aiogram.utils.i18n.context import get_i18n

from bot import house_rules, render, runner
from bot.access import GameAccess, game_access, is_admin, is_storyteller
from bot.commands import set_game_commands
from bot.features import FeatureSet
from bot.middlewares import chat_profile
from handlers.settings import house, privacy, view
from handlers.settings.callbacks import (
    HouseCallback,
    LangCallback,
    OldHouseCallback,
    ProfileCallback,
    SheetsCallback,
)
from rules import profiles
from rules.profiles import GameSystem
from table import vocabulary
from table.store import ChatSettings, Store


def _d6(chat_settings: ChatSettings) -> bool:
    """The d6 texts call the one who runs the game «сценарист»: the refusals say so there."""
    return chat_profile(chat_settings).system is GameSystem.D6


def make_router() -> Router:
    router = Router(name="settings")
    router.message.register(lang_command, Command("lang"))
    router.message.register(rules_command, Command("rules"))
    runner.register(router, LANG_TAP)
    runner.register(router, PROFILE_TAP)
    runner.register(router, HOUSE_TAP)
    runner.register(router, OLD_HOUSE_TAP)
    runner.register(router, SHEETS_TAP)
    return router


async def _may_set_language(
    bot: Bot, chat: Chat, chat_settings: ChatSettings, user: User | None, sender: Chat | None
) -> bool:
    """A group's language is the table's: its Storyteller or an administrator sets it; in a
    private chat, the one person in it."""
    if chat.type == ChatType.PRIVATE:
        return True
    if sender is None and is_storyteller(chat_settings, user):
        return True
    return await is_admin(bot, chat, user, sender)


async def lang_command(
    message: Message, command: CommandObject, store: Store, bot: Bot, chat_settings: ChatSettings
) -> None:
    code = (command.args or "").strip().casefold()
    if code and not await _may_set_language(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    ):
        await message.answer(view.language_refusal_text(_d6(chat_settings)))
        return
    if not code:
        pinned = chat_settings.locale is not None
        keyboard = view.language_keyboard(pinned)
        await message.answer(view.language_prompt(), reply_markup=keyboard)
        return
    if code in vocabulary.LANG_PERSONAL:
        await store.update_chat(message.chat.id, locale=None)
        await message.answer(view.language_personal_text())
        return
    if code not in render.LANGUAGES:
        await message.answer(view.language_problem_text())
        return
    await store.update_chat(message.chat.id, locale=code)
    with get_i18n().use_locale(code):
        await message.answer(view.language_set_text())


async def rules_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
    features: FeatureSet,
) -> None:
    # chat admins until a Storyteller exists, then the Storyteller alone.
    access = await game_access(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    )
    words = (command.args or "").split()
    name = words[0].casefold() if words else ""
    if name in HOUSE_WORDS:  # reading them is for everyone, changing them is not
        await _house_command(message, store, chat_settings, access, name, words[1:])
        return
    if access is GameAccess.DENIED:
        await message.answer(view.game_refusal_text(chat_settings, _d6(chat_settings)))
        return
    if name in profiles.names() and access is GameAccess.ALLOWED:
        await _switch_game(message, store, chat_settings, name)
        await set_game_commands(bot, get_i18n(), features, message.chat.id, name, store)
        return
    current = chat_settings.profile
    await message.answer(
        view.rules_text(current, chat_settings.sheets_open),
        reply_markup=view.rules_keyboard(profiles.names(), current, chat_settings.sheets_open),
    )


HOUSE_WORDS = frozenset({"set", "reset", "export", "import", "house"})


async def _switch_game(
    message: Message, store: Store, chat_settings: ChatSettings, name: str
) -> None:
    """A new game keeps the house rules that still apply and says which were dropped."""
    kept, dropped = house_rules.kept_on_switch(name, chat_settings.switches)
    settings = await store.update_chat(message.chat.id, profile=name, switches=kept)
    text = view.rules_set_text(settings.profile)
    if dropped:
        text += "\n" + house.dropped_text(dropped)
    await message.answer(text)


async def _house_command(
    message: Message,
    store: Store,
    chat_settings: ChatSettings,
    access: GameAccess,
    verb: str,
    words: list[str],
) -> None:
    """``/rules set botch=net_negative``, ``/rules reset [group]``, ``/rules export``,
    ``/rules import <line>``, ``/rules house``: the house rules typed (docs/product.md "/rules")."""
    profile = chat_profile(chat_settings)
    if verb == "house":
        await message.answer(
            house.top_text(profile),
            reply_markup=house.top_keyboard(profile),
        )
        return
    if verb == "export":
        line = house_rules.export_line(chat_settings.switches)
        await message.answer(house.export_text(line))
        return
    if access is not GameAccess.ALLOWED:
        await message.answer(house.read_only_text(_d6(chat_settings)))
        return
    switches = dict(chat_settings.switches)
    if verb == "reset":
        group = house_rules.find_group(words[0]) if words else None
        switches = house_rules.reset(switches, group)
        await store.update_chat(message.chat.id, switches=switches)
        await message.answer(house.reset_text())
        return
    try:
        sheets_open, words = privacy.split_words(words)
    except privacy.PrivacyError as error:
        await message.answer(privacy.bad_value_text(error.value))
        return
    if sheets_open is not None and not words:
        await store.update_chat(message.chat.id, sheets_open=sheets_open)
        await message.answer(privacy.set_text(sheets_open))
        return
    allowed = set(house_rules.groups_for(profile))
    try:
        assignments = house_rules.parse_assignments(words)
        if not assignments:
            raise house_rules.HouseRuleError("")
        for switch, value in assignments:
            if switch.group not in allowed:
                raise house_rules.HouseRuleError(house_rules.typed_name(switch))
            switches = house_rules.with_switch(chat_settings.profile, switches, switch, value)
    except house_rules.HouseRuleError as error:
        names = [
            house_rules.typed_name(s)
            for g in house_rules.groups_for(profile)
            for s in house_rules.switches_of(g)
        ]
        await message.answer(house.bad_rule_text(error, names))
        return
    if sheets_open is None:
        await store.update_chat(message.chat.id, switches=switches)
        await message.answer(house.set_text(assignments))
        return
    await store.update_chat(message.chat.id, switches=switches, sheets_open=sheets_open)
    await message.answer(house.set_text(assignments) + "\n" + privacy.set_text(sheets_open))


# ----- the buttons: the chat's settings, one compare-and-set a press (bot/runner.py) -----

# The settings' menus share a message: «/rules» offers the games and the house rules.
MENU = (LangCallback, ProfileCallback, HouseCallback, OldHouseCallback, SheetsCallback)


async def load_settings(pressed: runner.Pressed[Any]) -> ChatSettings | runner.Refuse:
    """The chat's settings as they are now (a lost race reads them again)."""
    message = pressed.message
    if message is None:
        return runner.refuse(render.invalid_button_text)
    return await pressed.store.load_chat(message.chat.id)


async def swap_settings(
    pressed: runner.Pressed[Any], before: ChatSettings, after: ChatSettings
) -> ChatSettings | None:
    message = pressed.message
    assert message is not None
    return after if await pressed.store.swap_chat(message.chat.id, before, after) else None


def _bot_and_chat(pressed: runner.Pressed[Any]) -> tuple[Bot, Chat]:
    message, bot = pressed.message, pressed.context.bot
    assert message is not None
    assert bot is not None
    return bot, message.chat


async def read_language_right(
    pressed: runner.Pressed[LangCallback], settings: ChatSettings
) -> bool:
    bot, chat = _bot_and_chat(pressed)
    return await _may_set_language(bot, chat, settings, pressed.presser, None)


def lang_step(
    settings: ChatSettings, data: LangCallback, actor: runner.Actor, seen: runner.Seen[bool]
) -> runner.Deed[ChatSettings]:
    """A language for the whole chat, or back to each person's own (``view.PERSONAL``)."""
    if data.code not in render.LANGUAGES and data.code != view.PERSONAL:
        return runner.refuse(render.invalid_button_text)
    if not seen.read:
        return runner.refuse(lambda: view.language_refusal_text(_d6(settings)))
    locale = None if data.code == view.PERSONAL else data.code
    return runner.Change(settings.model_copy(update={"locale": locale}))


def lang_view(settings: ChatSettings, data: LangCallback, seen: runner.Seen[bool]) -> runner.Drawn:
    """Said in the language just chosen (each person's own: in the presser's)."""
    if data.code == view.PERSONAL:
        return view.language_personal_text(), None
    with get_i18n().use_locale(settings.locale or data.code):
        return view.language_set_text(), None


LANG_TAP: runner.RecordTap[ChatSettings, LangCallback, bool] = runner.RecordTap(
    name="lang",
    callback=LangCallback,
    load=load_settings,
    read=read_language_right,
    step=lang_step,
    view=lang_view,
    swap=swap_settings,
    among=MENU,
)


async def read_game_access(pressed: runner.Pressed[Any], settings: ChatSettings) -> GameAccess:
    bot, chat = _bot_and_chat(pressed)
    return await game_access(bot, chat, settings, pressed.presser, None)


def profile_step(
    settings: ChatSettings,
    data: ProfileCallback,
    actor: runner.Actor,
    seen: runner.Seen[GameAccess],
) -> runner.Deed[ChatSettings]:
    """A game switch keeps the house rules that still apply."""
    if data.name not in profiles.names():
        return runner.refuse(render.invalid_button_text)
    if seen.read is not GameAccess.ALLOWED:
        return runner.refuse(lambda: view.game_refusal_text(settings, _d6(settings)))
    kept, _dropped = house_rules.kept_on_switch(data.name, settings.switches)
    return runner.Change(settings.model_copy(update={"profile": data.name, "switches": kept}))


def profile_view(
    settings: ChatSettings, data: ProfileCallback, seen: runner.Seen[GameAccess]
) -> runner.Drawn:
    return view.rules_text(settings.profile, settings.sheets_open), view.rules_keyboard(
        profiles.names(), settings.profile, settings.sheets_open
    )


async def publish_menu(pressed: runner.Pressed[ProfileCallback], settings: ChatSettings) -> None:
    """The new game's command menu, after the answer: a menu Telegram refuses is only
    logged."""
    bot, chat = _bot_and_chat(pressed)
    features = pressed.context.features
    assert features is not None
    store = pressed.store
    await set_game_commands(bot, get_i18n(), features, chat.id, settings.profile, store)


PROFILE_TAP: runner.RecordTap[ChatSettings, ProfileCallback, GameAccess] = runner.RecordTap(
    name="profile",
    callback=ProfileCallback,
    load=load_settings,
    read=read_game_access,
    step=profile_step,
    view=profile_view,
    swap=swap_settings,
    effect=publish_menu,
    among=MENU,
)

_CHANGES = ("s", "r", "R")  # the house-rules buttons that change something


async def read_house_access(
    pressed: runner.Pressed[HouseCallback], settings: ChatSettings
) -> GameAccess | None:
    """Asked only of a button that changes something: anyone may browse."""
    if pressed.data.a not in _CHANGES:
        return None
    return await read_game_access(pressed, settings)


def _house_place(
    settings: ChatSettings, data: HouseCallback
) -> tuple[house_rules.Group | None, int | None]:
    """The group and the card a house-rules button shows (None: the list of groups; no card:
    the group's list), as far as the chat's game has them."""
    groups = house.GROUP_ORDER
    group = groups[data.g] if 0 <= data.g < len(groups) else None
    if group is not None and group not in house_rules.groups_for(chat_profile(settings)):
        group = None
    if data.a in ("R", "t"):
        return None, None
    card = data.i if data.a in ("c", "s") and group is not None else None
    return group, card


def house_step(
    settings: ChatSettings,
    data: HouseCallback,
    actor: runner.Actor,
    seen: runner.Seen[GameAccess | None],
) -> runner.Deed[ChatSettings]:
    """Anyone may browse; the Storyteller (or an admin until there is one) changes. A set
    carries its value, so a double tap sets it once."""
    action = data.a
    if action in _CHANGES and seen.read is not GameAccess.ALLOWED:
        return runner.refuse(lambda: house.read_only_text(_d6(settings)))
    group, card = _house_place(settings, data)
    members = house_rules.switches_of(group) if group is not None else ()
    if card is not None and not 0 <= card < len(members):
        return runner.refuse(render.invalid_button_text)
    switches = dict(settings.switches)
    if action == "s" and group is not None and card is not None:
        switch = members[card]
        if not 0 <= data.x < len(switch.values):
            return runner.refuse(render.invalid_button_text)
        try:
            changed = house_rules.with_switch(
                settings.profile, switches, switch, switch.values[data.x]
            )
        except house_rules.HouseRuleError:
            return runner.refuse(render.invalid_button_text)
        return runner.Change(settings.model_copy(update={"switches": changed}))
    if action == "r" and group is not None:
        reset = house_rules.reset(switches, group)
        return runner.Change(settings.model_copy(update={"switches": reset}))
    if action == "R":
        return runner.Change(settings.model_copy(update={"switches": {}}))
    if action == "t" or (action in ("g", "c") and group is not None):
        return runner.Keep()
    return runner.refuse(render.invalid_button_text)


def house_view(
    settings: ChatSettings, data: HouseCallback, seen: runner.Seen[GameAccess | None]
) -> runner.Drawn:
    profile = chat_profile(settings)
    group, card = _house_place(settings, data)
    if group is not None and card is not None:
        switch = house_rules.switches_of(group)[card]
        return house.card_text(profile, switch), house.card_keyboard(profile, group, card)
    if group is None:
        return house.top_text(profile), house.top_keyboard(profile)
    return house.group_text(profile, group), house.group_keyboard(profile, group)


HOUSE_TAP: runner.RecordTap[ChatSettings, HouseCallback, GameAccess | None] = runner.RecordTap(
    name="house",
    callback=HouseCallback,
    load=load_settings,
    read=read_house_access,
    step=house_step,
    view=house_view,
    swap=swap_settings,
    among=MENU,
)
# The same buttons as first drawn, under the prefix they shared with «Раскрыть»: menus still
# posted in chats keep working.
OLD_HOUSE_TAP = replace(HOUSE_TAP, name="old_house", callback=OldHouseCallback)


def sheets_step(
    settings: ChatSettings,
    data: SheetsCallback,
    actor: runner.Actor,
    seen: runner.Seen[GameAccess],
) -> runner.Deed[ChatSettings]:
    """The campaign's privacy setting from the /rules card: whoever runs the game decides."""
    if data.o not in (0, 1):
        return runner.refuse(render.invalid_button_text)
    if seen.read is not GameAccess.ALLOWED:
        return runner.refuse(lambda: view.game_refusal_text(settings, _d6(settings)))
    return runner.Change(settings.model_copy(update={"sheets_open": data.o == 1}))


def sheets_view(
    settings: ChatSettings, data: SheetsCallback, seen: runner.Seen[GameAccess]
) -> runner.Drawn:
    return view.rules_text(settings.profile, settings.sheets_open), view.rules_keyboard(
        profiles.names(), settings.profile, settings.sheets_open
    )


SHEETS_TAP: runner.RecordTap[ChatSettings, SheetsCallback, GameAccess] = runner.RecordTap(
    name="sheets",
    callback=SheetsCallback,
    load=load_settings,
    read=read_game_access,
    step=sheets_step,
    view=sheets_view,
    swap=swap_settings,
    among=MENU,
)
