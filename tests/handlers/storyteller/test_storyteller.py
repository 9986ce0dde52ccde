"""``/st`` through the Dispatcher: claiming, passing and taking over the Storyteller's role,
anonymous administrators, and ``/rules`` becoming the Storyteller's alone."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from aiogram.methods import GetChatMember
from aiogram.types import Chat, Message, User

from bot.access import GameAccess, StorytellerFilter, game_access, is_storyteller
from handlers.settings.callbacks import ProfileCallback
from handlers.storyteller.callbacks import StCallback
from table.scope import Campaign
from table.store import ChatSettings, Store
from tests.handlers.conftest import GROUP, Table, buttons, flows, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
EMMA = player(3, "Emma")
ANONYMOUS = User(id=1087968824, is_bot=True, first_name="Group", username="GroupAnonymousBot")


async def reply(table: Table, user: User, text: str, to: User) -> None:
    """``user`` answers a message of ``to`` with ``text`` (a command)."""
    await table.say(user, text, reply_to=to, replied_text="I am here")


async def storyteller(table: Table) -> int | None:
    return (await table.store.load_chat(GROUP.id)).storyteller_id


def claim_button(table: Table) -> str:
    [button] = buttons(table.session.sent[-1].reply_markup)
    return button.callback_data or ""


async def test_an_admin_claims_the_role(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/st")
    assert table.session.sent[-1].text == "🎭 Anna теперь Рассказчик этого чата."
    settings = await table.store.load_chat(GROUP.id)
    assert (settings.storyteller_id, settings.storyteller_name) == (ANNA.id, "Anna")
    assert await table.store.campaigns(ANNA.id) == (None, {Campaign(GROUP.id): "Chronicle"})
    await table.say(ANNA, "/st")
    assert table.session.sent[-1].text == "Вы и так Рассказчик этого чата."


async def test_a_player_cannot_claim_and_is_told_who_runs_the_game(table: Table) -> None:
    await table.say(BORIS, "/st")
    assert table.session.sent[-1].text == "Стать Рассказчиком может только администратор чата."
    assert table.session.of(GetChatMember)[-1].user_id == BORIS.id
    assert await storyteller(table) is None
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/st")
    await table.say(BORIS, "/st")
    assert table.session.sent[-1].text.startswith("Рассказчик этого чата: Anna.")
    assert await storyteller(table) == ANNA.id


async def test_the_storyteller_passes_the_role_by_reply(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/st")
    await reply(table, ANNA, "/st", to=BORIS)
    assert table.session.sent[-1].text == (
        "🎭 Anna передаёт роль Рассказчика: теперь Рассказчик — Boris."
    )
    assert await storyteller(table) == BORIS.id
    assert await table.store.campaigns(ANNA.id) == (None, {})
    assert await table.store.campaigns(BORIS.id) == (None, {Campaign(GROUP.id): "Chronicle"})
    # Only the Storyteller passes the role: Anna's reply now does not move it.
    await reply(table, ANNA, "/st", to=EMMA)
    assert await storyteller(table) == BORIS.id


async def test_the_role_is_not_passed_to_a_bot(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/st")
    await reply(table, ANNA, "/st", to=ANONYMOUS)
    assert "ответьте командой /st на сообщение игрока" in table.session.sent[-1].text
    assert await storyteller(table) == ANNA.id


async def test_another_admin_takes_over_with_a_confirmation(table: Table) -> None:
    table.session.admins.update({ANNA.id, EMMA.id})
    await table.say(ANNA, "/st")
    await table.say(EMMA, "/st")
    prompt = table.session.sent[-1]
    assert prompt.text == "Сейчас Рассказчик — Anna. Забрать роль себе?"
    assert [b.text for b in buttons(prompt.reply_markup)] == ["🎭 Забрать роль"]
    assert await storyteller(table) == ANNA.id
    data = claim_button(table)
    message_id = table.session.messages[-1].message_id

    await table.tap(BORIS, data, message_id)
    assert table.session.answers[-1].text == "Эта кнопка не для вас."
    assert table.session.answers[-1].show_alert is True
    await table.tap(EMMA, data, message_id)
    assert await storyteller(table) == EMMA.id
    assert table.session.edits[-1].text == "🎭 Emma теперь Рассказчик этого чата."
    assert await table.store.campaigns(ANNA.id) == (None, {})
    await table.tap(EMMA, data, message_id)
    assert table.session.answers[-1].text == "Этот бросок закрыт."
    assert await storyteller(table) == EMMA.id


async def test_an_anonymous_admin_claims_with_the_button(table: Table) -> None:
    """Their command arrives as the group; the tap reveals the real id, which is checked."""
    await table.say(ANONYMOUS, "/st", sender_chat=GROUP)
    prompt = table.session.sent[-1]
    assert prompt.text.startswith("Вы пишете анонимно, от имени группы.")
    assert [b.text for b in buttons(prompt.reply_markup)] == ["🎭 Я Рассказчик"]
    assert table.session.of(GetChatMember) == []
    assert await storyteller(table) is None
    data = claim_button(table)
    message_id = table.session.messages[-1].message_id

    await table.tap(BORIS, data, message_id)  # anyone may press; only an admin may claim
    assert table.session.answers[-1].text == "Стать Рассказчиком может только администратор чата."
    assert await storyteller(table) is None

    table.session.admins.add(ANNA.id)
    await table.tap(ANNA, data, message_id)
    assert await storyteller(table) == ANNA.id
    assert table.session.edits[-1].text == "🎭 Anna теперь Рассказчик этого чата."


async def test_a_stale_claim_does_not_overwrite_a_newer_storyteller(table: Table) -> None:
    table.session.admins.update({ANNA.id, EMMA.id})
    await table.say(ANONYMOUS, "/st", sender_chat=GROUP)
    data = claim_button(table)
    message_id = table.session.messages[-1].message_id
    await table.say(EMMA, "/st")  # Emma claims directly while the button waits
    await table.tap(ANNA, data, message_id)
    assert await storyteller(table) == EMMA.id
    assert table.session.edits[-1].text.startswith("Роль Рассказчика тем временем уже сменилась")


async def test_two_simultaneous_claims_one_wins(fake_store: Store) -> None:
    claims = [
        fake_store.set_storyteller(GROUP.id, expected=None, new_id=uid, name=n, title="T")
        for uid, n in ((ANNA.id, "Anna"), (EMMA.id, "Emma"))
    ]
    results = await asyncio.gather(*claims)
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    settings = await fake_store.load_chat(GROUP.id)
    assert settings.storyteller_id == winners[0].storyteller_id
    lists = [await fake_store.campaigns(uid) for uid in (ANNA.id, EMMA.id)]
    assert sorted(len(runs) for _chosen, runs in lists) == [0, 1]


async def test_forged_claim_buttons_change_nothing(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/st")
    before = await flows(table.store)
    for data in ("st:nonexistent:0", StCallback(f="x" * 12, v=5).pack(), "st:", "st:a:b:c"):
        await table.tap(ANNA, data, 999)
        assert table.session.answers[-1].show_alert is True
    assert await flows(table.store) == before
    assert await storyteller(table) == ANNA.id


async def test_st_in_a_private_chat_points_to_the_group(table: Table) -> None:
    table.chat = Chat(id=ANNA.id, type="private", first_name="Anna")
    await table.say(ANNA, "/st")
    assert "отправьте /st в группе" in table.session.sent[-1].text


async def test_rules_become_the_storytellers_alone(table: Table) -> None:
    table.session.admins.update({ANNA.id, EMMA.id})
    await table.say(EMMA, "/rules dark-ages")  # no Storyteller yet: any admin decides
    assert (await table.store.load_chat(GROUP.id)).profile == "dark-ages"
    await table.say(ANNA, "/st")
    await table.say(EMMA, "/rules mage")
    assert table.session.sent[-1].text == "Менять игру может только Рассказчик."
    assert (await table.store.load_chat(GROUP.id)).profile == "dark-ages"
    await table.say(ANNA, "/rules mage")
    assert (await table.store.load_chat(GROUP.id)).profile == "mage"


async def test_an_anonymous_rules_command_only_opens_the_keyboard(table: Table) -> None:
    table.session.admins.update({ANNA.id, EMMA.id})
    await table.say(ANNA, "/st")
    await table.say(ANONYMOUS, "/rules d6", sender_chat=GROUP)
    assert (await table.store.load_chat(GROUP.id)).profile == "mage"
    keyboard = table.session.sent[-1]
    assert keyboard.text.startswith("Игра этого чата:")
    message_id = table.session.messages[-1].message_id
    await table.tap(EMMA, ProfileCallback(name="d6").pack(), message_id)
    assert table.session.answers[-1].text == "Менять игру может только Рассказчик."
    assert (await table.store.load_chat(GROUP.id)).profile == "mage"
    await table.tap(ANNA, ProfileCallback(name="d6").pack(), message_id)
    assert (await table.store.load_chat(GROUP.id)).profile == "d6"


async def test_is_storyteller_and_the_filter(table: Table) -> None:
    nobody = ChatSettings()
    anna_runs = ChatSettings(storyteller_id=ANNA.id, storyteller_name="Anna")
    assert not is_storyteller(nobody, ANNA)
    assert is_storyteller(anna_runs, ANNA)
    assert not is_storyteller(anna_runs, BORIS)
    assert not is_storyteller(anna_runs, None)

    def message(user: User, sender_chat: Chat | None = None) -> Message:
        return Message(
            message_id=1,
            date=datetime.now(UTC),
            chat=GROUP,
            from_user=user,
            sender_chat=sender_chat,
            text="/h 7",
        )

    check = StorytellerFilter()
    assert await check(message(ANNA), chat_settings=anna_runs)
    assert not await check(message(BORIS), chat_settings=anna_runs)
    anonymous = message(User(id=ANNA.id, is_bot=False, first_name="Anna"), sender_chat=GROUP)
    assert not await check(anonymous, chat_settings=anna_runs)
    access = await game_access(table.bot, GROUP, anna_runs, None, GROUP)
    assert access is GameAccess.BY_TAP
    assert await game_access(table.bot, GROUP, nobody, None, GROUP) is GameAccess.ALLOWED
