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

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Chat, Message, User
from aiogram.utils.i18n.context import get_i18n

from bot import house_rules, render, vocabulary
from bot.access import GameAccess, game_access, is_admin, is_storyteller
from bot.commands import set_game_commands
from bot.features import FeatureSet
from bot.middlewares import chat_profile
from bot.runner import tell
from bot.session import safe_edit
from bot.store import ChatSettings, Store
from handlers.settings import house, view
from handlers.settings.callbacks import (
    HouseCallback,
    LangCallback,
    OldHouseCallback,
    ProfileCallback,
)
from rules import profiles
from rules.profiles import GameSystem


def _d6(chat_settings: ChatSettings) -> bool:
    """The d6 texts call the one who runs the game «сценарист»: the refusals say so there."""
    return chat_profile(chat_settings).system is GameSystem.D6


def make_router() -> Router:
    router = Router(name="settings")
    router.message.register(lang_command, Command("lang"))
    router.message.register(rules_command, Command("rules"))
    router.callback_query.register(lang_tap, LangCallback.filter())
    router.callback_query.register(profile_tap, ProfileCallback.filter())
    router.callback_query.register(house_tap, HouseCallback.filter())
    router.callback_query.register(house_tap, OldHouseCallback.filter())
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


async def lang_tap(
    callback: CallbackQuery,
    callback_data: LangCallback,
    store: Store,
    bot: Bot,
    chat_settings: ChatSettings,
) -> None:
    message = callback.message
    code = callback_data.code
    known = code in render.LANGUAGES or code == view.PERSONAL
    if not known or not isinstance(message, Message):
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    if not await _may_set_language(bot, message.chat, chat_settings, callback.from_user, None):
        await tell(callback, lambda: view.language_refusal_text(_d6(chat_settings)), alert=True)
        return
    if code == view.PERSONAL:
        await store.update_chat(message.chat.id, locale=None)
        text = view.language_personal_text()
    else:
        await store.update_chat(message.chat.id, locale=code)
        with get_i18n().use_locale(code):
            text = view.language_set_text()
    await safe_edit(message, text, None)
    await callback.answer()


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
        view.rules_text(current),
        reply_markup=view.rules_keyboard(profiles.names(), current),
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
    await store.update_chat(message.chat.id, switches=switches)
    await message.answer(house.set_text(assignments))


async def house_tap(
    callback: CallbackQuery,
    callback_data: HouseCallback,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
) -> None:
    """The house-rules buttons: anyone may browse, the Storyteller (or an admin until there is
    one) changes; a set carries its value, so a double tap sets it once."""
    message = callback.message
    if not isinstance(message, Message):
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    action, data = callback_data.a, callback_data
    groups = house.GROUP_ORDER
    group = groups[data.g] if 0 <= data.g < len(groups) else None
    profile = chat_profile(chat_settings)
    if group is not None and group not in house_rules.groups_for(profile):
        group = None
    switches = dict(chat_settings.switches)
    if action in ("s", "r", "R"):
        access = await game_access(bot, message.chat, chat_settings, callback.from_user, None)
        if access is not GameAccess.ALLOWED:
            await tell(callback, lambda: house.read_only_text(_d6(chat_settings)), alert=True)
            return
    card: int | None = None
    if action in ("c", "s") and group is not None:
        members = house_rules.switches_of(group)
        if not 0 <= data.i < len(members):
            await tell(callback, lambda: render.invalid_button_text(), alert=True)
            return
        card = data.i
    if action == "s" and group is not None and card is not None:
        switch = house_rules.switches_of(group)[card]
        if not 0 <= data.x < len(switch.values):
            await tell(callback, lambda: render.invalid_button_text(), alert=True)
            return
        try:
            switches = house_rules.with_switch(
                chat_settings.profile, switches, switch, switch.values[data.x]
            )
        except house_rules.HouseRuleError:
            await tell(callback, lambda: render.invalid_button_text(), alert=True)
            return
        settings = await store.update_chat(message.chat.id, switches=switches)
        profile = chat_profile(settings)
    elif action == "r" and group is not None:
        settings = await store.update_chat(
            message.chat.id, switches=house_rules.reset(switches, group)
        )
        profile = chat_profile(settings)
    elif action == "R":
        settings = await store.update_chat(message.chat.id, switches={})
        profile = chat_profile(settings)
        group = None
    elif action == "t":
        group = None
    elif action not in ("g", "c") or group is None:
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    if group is not None and card is not None:
        switch = house_rules.switches_of(group)[card]
        text = house.card_text(profile, switch)
        markup = house.card_keyboard(profile, group, card)
        await safe_edit(message, text, markup)
        await callback.answer()
        return
    if group is None:
        text, markup = house.top_text(profile), house.top_keyboard(profile)
    else:
        text, markup = house.group_text(profile, group), house.group_keyboard(profile, group)
    await safe_edit(message, text, markup)
    await callback.answer()


async def profile_tap(
    callback: CallbackQuery,
    callback_data: ProfileCallback,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
    features: FeatureSet,
) -> None:
    message = callback.message
    if not isinstance(message, Message) or callback_data.name not in profiles.names():
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    access = await game_access(bot, message.chat, chat_settings, callback.from_user, None)
    if access is not GameAccess.ALLOWED:
        await tell(
            callback, lambda: view.game_refusal_text(chat_settings, _d6(chat_settings)), alert=True
        )
        return
    kept, _dropped = house_rules.kept_on_switch(callback_data.name, chat_settings.switches)
    settings = await store.update_chat(message.chat.id, profile=callback_data.name, switches=kept)
    await safe_edit(
        message,
        view.rules_text(settings.profile),
        view.rules_keyboard(profiles.names(), settings.profile),
    )
    await callback.answer()
    await set_game_commands(bot, get_i18n(), features, message.chat.id, settings.profile, store)
