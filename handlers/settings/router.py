"""``/lang`` and ``/rules``: the chat's language and its rules profile (PRODUCT.md §2, §A.0).

The game is the Storyteller's decision, so ``/rules`` is for chat administrators until
someone claims the Storyteller's role with ``/st``, and from then on for the Storyteller alone
(``handlers.storyteller.game_access``). An anonymous administrator's message arrives with
``sender_chat`` set to the group itself and a stand-in user (GroupAnonymousBot): before there is a
Storyteller it counts as an administrator's; after, it may only open the keyboard, whose
taps carry the real user. Buttons re-check the presser every time: a keyboard in a group can
be pressed by anyone.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.enums import ChatType, ParseMode
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Chat, Message, User
from aiogram.utils.i18n.context import get_i18n

from bot import render
from bot.access import GameAccess, game_access, is_admin, is_storyteller
from bot.session import safe_edit
from bot.store import ChatSettings, Store
from handlers.settings import view
from handlers.settings.callbacks import LangCallback, ProfileCallback
from rules import profiles


def make_router() -> Router:
    router = Router(name="settings")
    router.message.register(lang_command, Command("lang"))
    router.message.register(rules_command, Command("rules"))
    router.callback_query.register(lang_tap, LangCallback.filter())
    router.callback_query.register(profile_tap, ProfileCallback.filter())
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
        await message.answer(view.language_refusal_text())
        return
    if not code:
        await message.answer(view.language_prompt(), reply_markup=view.language_keyboard())
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
    if code not in render.LANGUAGES or not isinstance(message, Message):
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    if not await _may_set_language(bot, message.chat, chat_settings, callback.from_user, None):
        await callback.answer(view.language_refusal_text(), show_alert=True)
        return
    await store.update_chat(message.chat.id, locale=code)
    with get_i18n().use_locale(code):
        text = view.language_set_text()
    await safe_edit(message, text, None, parse_mode=ParseMode.HTML)
    await callback.answer()


async def rules_command(
    message: Message, command: CommandObject, bot: Bot, store: Store, chat_settings: ChatSettings
) -> None:
    # chat admins until a Storyteller exists, then the Storyteller alone.
    access = await game_access(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    )
    if access is GameAccess.DENIED:
        await message.answer(view.game_refusal_text(chat_settings))
        return
    name = (command.args or "").strip().casefold()
    if name in profiles.names() and access is GameAccess.ALLOWED:
        settings = await store.update_chat(message.chat.id, profile=name)
        await message.answer(view.rules_set_text(settings.profile), parse_mode=ParseMode.HTML)
        return
    current = chat_settings.profile
    await message.answer(
        view.rules_text(current),
        parse_mode=ParseMode.HTML,
        reply_markup=view.rules_keyboard(profiles.names(), current),
    )


async def profile_tap(
    callback: CallbackQuery,
    callback_data: ProfileCallback,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
) -> None:
    message = callback.message
    if not isinstance(message, Message) or callback_data.name not in profiles.names():
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    access = await game_access(bot, message.chat, chat_settings, callback.from_user, None)
    if access is not GameAccess.ALLOWED:
        await callback.answer(view.game_refusal_text(chat_settings), show_alert=True)
        return
    settings = await store.update_chat(message.chat.id, profile=callback_data.name)
    await safe_edit(
        message,
        view.rules_text(settings.profile),
        view.rules_keyboard(profiles.names(), settings.profile),
        parse_mode=ParseMode.HTML,
    )
    await callback.answer()
