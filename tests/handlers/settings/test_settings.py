"""``/start``, ``/help``, ``/lang`` and ``/rules`` through the Dispatcher."""

from __future__ import annotations

from typing import Any

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramForbiddenError
from aiogram.methods import DeleteMyCommands, GetChatMember, SetMyCommands, TelegramMethod
from aiogram.types import BotCommandScopeChat, Chat

from handlers.settings.callbacks import LangCallback, ProfileCallback
from tests.handlers.conftest import GROUP, Table, buttons, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
EMMA = player(3, "Emma", "en")


async def test_help_is_short_with_examples_in_the_players_language(table: Table) -> None:
    await table.say(ANNA, "/help")
    await table.say(EMMA, "/help")
    ru, en = (s.text for s in table.session.sent)
    assert "/r 7 8 св — потратить Силу Воли" in ru
    assert "/r 7 8 пор2" in ru
    assert "Текущая игра: Маг (домашние правила)" in ru
    assert "/r 7 8 wp — spend Willpower" in en
    assert "Current game: Mage (house rules)" in en
    assert len(ru.splitlines()) <= 17  # one line more since inline mode (@bot 7 6)


async def test_start_greets_and_shows_help(table: Table) -> None:
    await table.say(EMMA, "/start")
    text = table.session.sent[0].text
    assert text.startswith("Hello!")
    assert "/prob 7 6" in text


async def test_lang_with_argument_switches_the_chat(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/lang en")
    assert table.session.sent[-1].text == "This chat now speaks English."
    assert (await table.store.load_chat(GROUP.id)).locale == "en"
    await table.say(ANNA, "/help")
    assert "Current game" in table.session.sent[-1].text  # a Russian client, an English chat
    await table.say(ANNA, "/lang ru")
    assert table.session.sent[-1].text == "Теперь этот чат говорит по-русски."


async def test_lang_buttons(table: Table) -> None:
    table.session.admins.add(EMMA.id)
    await table.say(EMMA, "/lang")
    markup = table.session.sent[-1].reply_markup
    codes = [LangCallback.unpack(b.callback_data or "").code for b in buttons(markup)]
    assert codes == ["ru", "en"]
    await table.tap(EMMA, LangCallback(code="ru").pack(), table.session.messages[-1].message_id)
    assert table.session.edits[-1].text == "Теперь этот чат говорит по-русски."
    assert (await table.store.load_chat(GROUP.id)).locale == "ru"


async def test_a_pinned_language_returns_to_each_persons_own(table: Table) -> None:
    table.session.admins.add(EMMA.id)
    await table.say(EMMA, "/lang en")
    await table.say(EMMA, "/lang")
    markup = table.session.sent[-1].reply_markup
    codes = [LangCallback.unpack(b.callback_data or "").code for b in buttons(markup)]
    assert codes == ["ru", "en", "own"]
    assert buttons(markup)[-1].text == "👤 Each person's own"
    keyboard = table.session.messages[-1].message_id
    await table.tap(EMMA, LangCallback(code="own").pack(), keyboard)
    assert (await table.store.load_chat(GROUP.id)).locale is None
    assert table.session.edits[-1].text.startswith("The chat no longer has one language")
    await table.say(EMMA, "/lang ru")
    await table.say(EMMA, "/lang свой")  # the word does it too
    assert (await table.store.load_chat(GROUP.id)).locale is None
    assert table.session.sent[-1].text == (
        "У чата больше нет общего языка: каждый читает бота на своём."
    )


async def test_only_the_storyteller_or_an_admin_sets_the_groups_language(table: Table) -> None:
    await table.say(BORIS, "/lang en")
    assert "Рассказчик или администратор" in table.session.sent[-1].text
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/lang")  # the keyboard itself may be opened by anyone
    keyboard = table.session.messages[-1].message_id
    await table.tap(BORIS, LangCallback(code="en").pack(), keyboard)
    assert table.session.answers[-1].show_alert
    assert (await table.store.load_chat(GROUP.id)).locale is None
    await table.tap(ANNA, LangCallback(code="en").pack(), keyboard)
    assert (await table.store.load_chat(GROUP.id)).locale == "en"


async def test_lang_unknown_code_gets_a_hint(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/lang de")
    assert "Пример: /lang ru" in table.session.sent[-1].text
    assert (await table.store.load_chat(GROUP.id)).locale is None


async def test_rules_refuses_non_admins(table: Table) -> None:
    await table.say(BORIS, "/rules dark-ages")
    assert table.session.sent[-1].text == "Менять игру могут только администраторы чата."
    assert table.session.of(GetChatMember)[-1].user_id == BORIS.id
    assert (await table.store.load_chat(GROUP.id)).profile == "mage"


async def test_rules_buttons_for_an_admin(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules")
    sent = table.session.sent[-1]
    assert "Игра этого чата: <b>Маг (домашние правила)</b>" in sent.text
    names = [
        ProfileCallback.unpack(b.callback_data or "").name
        for b in buttons(sent.reply_markup)
        if (b.callback_data or "").startswith("prof:")
    ]
    assert names == ["mage", "mage-revised", "dark-ages", "d6"]
    assert buttons(sent.reply_markup)[-1].text == "🏠 Домашние правила"
    message_id = table.session.messages[-1].message_id

    await table.tap(BORIS, ProfileCallback(name="dark-ages").pack(), message_id)
    assert table.session.answers[-1].text == "Менять игру могут только администраторы чата."
    assert (await table.store.load_chat(GROUP.id)).profile == "mage"

    await table.tap(ANNA, ProfileCallback(name="dark-ages").pack(), message_id)
    assert (await table.store.load_chat(GROUP.id)).profile == "dark-ages"
    edit = table.session.edits[-1]
    assert "Вампир: Тёмные века" in edit.text
    assert any(b.text.startswith("✅ Вампир") for b in buttons(edit.reply_markup))

    await table.tap(ANNA, ProfileCallback(name="vampire").pack(), message_id)
    assert table.session.answers[-1].show_alert is True
    assert (await table.store.load_chat(GROUP.id)).profile == "dark-ages"


async def test_anonymous_admin_is_an_admin(table: Table) -> None:
    anonymous = player(1087968824, "Group", "ru")
    await table.say(anonymous, "/rules mage-revised", sender_chat=GROUP)
    assert (await table.store.load_chat(GROUP.id)).profile == "mage-revised"
    assert table.session.of(GetChatMember) == []


async def test_in_a_private_chat_the_user_decides(table: Table) -> None:
    table.chat = Chat(id=BORIS.id, type="private", first_name="Boris")
    await table.say(BORIS, "/rules d6")
    assert (await table.store.load_chat(BORIS.id)).profile == "d6"
    await table.say(BORIS, "/prob 7 6")
    assert "шанс 7к6, нужно мер успеха: 6" in table.session.sent[-1].text


async def test_help_follows_the_chats_game(table: Table) -> None:
    """/help in a d6 chat shows the d6 roll and nothing the d6 game refuses."""
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules d6")
    await table.say(ANNA, "/help")
    text = table.session.sent[-1].text
    assert "/r 4 — шанс в 4 кубика" in text
    assert "/prob 4 2" in text
    assert "/init — кубики инициативы (Расторопность)" in text
    for d10_only in ("Сила Воли", "порог", "/prob 7 6", "/h 7 6", "/m 3"):
        assert d10_only not in text, d10_only


def menus(table: Table) -> list[tuple[str, str | None, str]]:
    """Each chat-menu call: set or delete, its language code, the first command's words."""
    found = []
    for call in table.session.of(SetMyCommands) + table.session.of(DeleteMyCommands):
        assert call.scope == BotCommandScopeChat(chat_id=GROUP.id)
        first = call.commands[0].description if isinstance(call, SetMyCommands) else ""
        found.append((type(call).__name__, call.language_code, first))
    return found


async def test_a_game_switch_gives_the_chat_its_menu_and_the_default_takes_it_away(
    table: Table,
) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules d6")
    assert menus(table) == [
        ("SetMyCommands", None, "Roll dice: /r 4"),
        ("SetMyCommands", "ru", "Бросок кубиков: /r 4"),
    ]
    await table.say(ANNA, "/rules")
    message_id = table.session.messages[-1].message_id
    table.session.calls.clear()
    await table.tap(ANNA, ProfileCallback(name="mage").pack(), message_id)
    assert (await table.store.load_chat(GROUP.id)).profile == "mage"
    assert menus(table) == [("DeleteMyCommands", None, ""), ("DeleteMyCommands", "ru", "")]
    table.session.calls.clear()
    await table.tap(BORIS, ProfileCallback(name="d6").pack(), message_id)  # refused: no menu
    assert menus(table) == []


async def test_a_menu_telegram_refuses_leaves_the_switch_standing(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    async def refuse(make_request: Any, bot: Bot, method: TelegramMethod[Any]) -> Any:
        if isinstance(method, SetMyCommands):
            raise TelegramForbiddenError(method, "Forbidden: bot was kicked from the chat")
        return await make_request(bot, method)

    table.session.middleware(refuse)
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules d6")
    assert (await table.store.load_chat(GROUP.id)).profile == "d6"
    texts = [sent.text for sent in table.session.sent]
    assert texts == ["Игра этого чата: <b>Повествовательная система d6</b>."]
    assert "could not set the command menu of chat -1001 for d6" in caplog.text
