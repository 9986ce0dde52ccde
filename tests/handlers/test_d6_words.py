"""A d6 chat names the one who runs the game in its own texts' word, «сценарист», never the
World of Darkness «Рассказчик»: the refusals of /h, /reveal, /ask, /rules, /lang, /sheet and
/npc, every answer of /st and its button, and /help, through the Dispatcher."""

from __future__ import annotations

from aiogram.types import User

from tests.handlers.conftest import GROUP, Table, buttons, player

ANNA = player(1, "Аня")
BORIS = player(2, "Борис")
VERA = player(3, "Вера")
ANONYMOUS = User(id=1087968824, is_bot=True, first_name="Group", username="GroupAnonymousBot")


def shown(table: Table) -> list[str]:
    """Everything the chat was shown: messages, their buttons, and the taps' alerts."""
    found = [m.text or "" for m in table.session.sent]
    for m in table.session.sent:
        if m.reply_markup is not None:
            found += [b.text for b in buttons(m.reply_markup)]
    return found + [a.text or "" for a in table.session.answers]


async def test_a_d6_chat_never_says_rasskazchik(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.update({ANNA.id, VERA.id})
    await table.say(BORIS, "/st")  # no GM yet, and no admin
    assert table.session.sent[-1].text == "Стать сценаристом может только администратор чата."
    await table.say(ANNA, "/st")
    assert "Аня теперь сценарист этого чата." in table.session.sent[-1].text
    await table.say(ANNA, "/st")
    await table.say(BORIS, "/st")
    assert "Сценарист этого чата: Аня." in table.session.sent[-1].text
    await table.say(VERA, "/st")
    assert "Сейчас сценарист — Аня" in table.session.sent[-1].text
    await table.say(ANONYMOUS, "/st", sender_chat=GROUP)
    assert "Сейчас сценарист — Аня" in table.session.sent[-1].text
    await table.say(ANNA, "/st", reply_to=BORIS)
    assert "теперь сценарист — Борис" in table.session.sent[-1].text
    await table.say(BORIS, "/st", reply_to=ANNA)  # the role goes back

    for line in ("/h 4 2", "/reveal", "/ask сила", "/rules", "/rules d10"):
        await table.say(BORIS, line)
    await table.say(BORIS, "/sheet all")
    assert "только сценарист" in table.session.sent[-1].text
    await table.say(BORIS, "/npc")
    assert "только сценарист" in table.session.sent[-1].text
    await table.say(BORIS, "/sheet что-то")
    await table.say(ANNA, "/npc Атаман")
    assert "нет персонажа сценариста «Атаман»" in table.session.sent[-1].text
    await table.say(BORIS, "/lang en")
    await table.say(BORIS, "/rules set провал=1")
    assert "Домашние правила меняет сценарист" in table.session.sent[-1].text
    for topic in ("", " sheet", " combat"):
        await table.say(BORIS, "/help" + topic)

    await table.say(VERA, "/st")
    [button] = buttons(table.session.sent[-1].reply_markup)
    await table.tap(VERA, button.callback_data or "", table.session.messages[-1].message_id)
    assert (await table.store.load_chat(GROUP.id)).storyteller_id == VERA.id

    said = shown(table)
    assert [text for text in said if "Рассказчик" in text] == []
    assert sum("сценарист" in text for text in said) >= 12


async def test_a_d10_chat_keeps_rasskazchik(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/st")
    assert "Аня теперь Рассказчик этого чата." in table.session.sent[-1].text
    await table.say(BORIS, "/h 7 6")
    assert "Рассказчик" in table.session.sent[-1].text
    assert not any("сценарист" in text for text in shown(table))
