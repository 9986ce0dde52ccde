"""A forum supergroup end to end: the real bot answers in the topic it was written in.

The harness plays one topic at a time (``InChat(api, forum, "Маг")``): a line typed there
reaches the bot with its thread, the bot's answer must be filed in that same topic (aiogram's
``answer`` and ``reply`` keep a topic message's thread), and General sees none of it.
"""

from __future__ import annotations

import re

import pytest

from localapi.server import TopicClosedError
from tests.e2e.conftest import BotLauncher, InChat, add_forum
from tests.e2e.test_table_e2e import unexpected_errors

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    return shared_world


async def test_a_roll_in_a_topic_is_answered_in_that_topic(world: BotLauncher) -> None:
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    boris = api.add_user("Борис", language_code="ru")
    first = len(api.calls)
    forum = add_forum(api, "Клуб", owner=master, members=[anya, boris])
    mage = InChat(api, forum, "Маг")
    general = mage.in_topic(None)

    roll = await mage.say(anya, "/r 5")
    assert roll.topic_id == mage.thread_id
    assert roll in mage.messages
    assert roll not in general.messages

    ages = mage.in_topic("Тёмные века")
    tracker = await ages.say(anya, "/init 6")
    assert tracker.topic_id == ages.thread_id
    await ages.press(boris, tracker, "Бросить инициативу")  # edited in place, in its topic
    assert tracker in ages.messages

    in_general = await general.say(anya, "/r 3")
    assert in_general.topic_id is None
    assert in_general not in mage.messages

    mage.close(master)
    with pytest.raises(TopicClosedError):
        mage.type(anya, "/r 2")
    mage.reopen(master)
    again = await mage.say(anya, "/r 2")
    assert again.topic_id == mage.thread_id
    # The topics' service messages and every post in a topic went through without a refusal.
    assert unexpected_errors(api.calls[first:]) == []


async def test_a_press_on_an_old_message_plays_in_its_topic(world: BotLauncher) -> None:
    """Telegram hands a press on an old message without the message, so without its topic:
    the chat's register of what the bot posted tells the topic, and the press plays in that
    topic's campaign (bot/placed.py), not in General's, where its fight is not."""
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    boris = api.add_user("Борис", language_code="ru")
    first = len(api.calls)
    forum = add_forum(api, "Старый клуб", owner=master, members=[anya, boris])
    ages = InChat(api, forum, "Тёмные века")
    mage = ages.in_topic("Маг")
    tracker = await ages.say(anya, "/init 6")
    other = await mage.say(anya, "/init 7")
    await ages.press(boris, tracker, "Бросить инициативу", inaccessible=True)
    assert "Борис" in tracker.text
    assert "Борис" not in other.text
    assert tracker.topic_id == ages.thread_id
    assert unexpected_errors(api.calls[first:]) == []


async def test_two_chronicles_in_two_topics_of_one_forum(world: BotLauncher) -> None:
    """docs/product.md "Forum topics": each topic is a campaign of its own. Mage with a fight
    in «Маг», the d6 game in «Тёмные века», played at once: nothing crosses — the game, the
    sheets, the trackers, the logs, the hidden rolls' numbers — and every message of the
    bot's is filed in its topic; General sees none of it."""
    api = world.api
    master = api.add_user("Ведущая", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    boris = api.add_user("Борис", language_code="ru")
    forum = add_forum(api, "Хроника", owner=master, members=[anya, boris])
    mage = InChat(api, forum, "Маг")
    ages = mage.in_topic("Тёмные века")
    general = mage.in_topic(None)
    first = len(api.calls)
    in_general = len(general.messages)

    switched = await ages.say(master, "/rules d6")
    assert switched.topic_id == ages.thread_id
    d6_roll = await ages.say(anya, "/r 4")
    assert len(re.findall(r"\d", d6_roll.text.split("\n")[1])) == 4  # four d6 faces
    mage_roll = await mage.say(anya, "/r 5 6")  # the d10 game: a difficulty, 5 dice
    assert "сл. 6" in mage_roll.text or "сложность 6" in mage_roll.text.casefold()

    await mage.say(anya, "/set\nСила 3\nЛовкость 2")
    sheet = await ages.say(anya, "/sheet")  # no sheet in this chronicle
    assert "Сила 3" not in sheet.text

    mage_fight = await mage.say(anya, "/init 6")
    ages_fight = await ages.say(boris, "/init 2")
    assert mage_fight.topic_id == mage.thread_id
    assert ages_fight.topic_id == ages.thread_id
    assert "Борис" not in mage_fight.text
    assert "Аня" not in ages_fight.text
    await mage.press(boris, mage_fight, "Бросить инициативу")
    assert "Борис" in mage_fight.text
    assert "Аня" not in ages_fight.text
    assert "d6" in ages_fight.text
    assert "d6" not in mage_fight.text

    private = InChat(api, api.open_private_chat(master))
    await mage.say(master, "/st")
    hidden_mage = await mage.say(master, "/h 5 6")
    refused = await ages.say(master, "/h 3")  # the Storyteller of «Маг» only
    assert "только сценарист" in refused.text  # the d6 game says so in its words
    await ages.say(master, "/st")
    hidden_ages = await ages.say(master, "/h 3")
    assert "№1" in hidden_mage.text
    assert "№1" in hidden_ages.text
    secrets = [m for m in private.messages if "Тайный бросок №1" in m.text]
    assert len(secrets) == 2
    await private.press(master, secrets[0], "Раскрыть")  # «Маг»'s, revealed from private
    shown = await mage.answer(after=hidden_ages, containing="№1")
    assert shown.topic_id == mage.thread_id

    mage_log = await mage.say(boris, "/log")
    ages_log = await ages.say(boris, "/log")
    assert "5к10" in mage_log.text or "5d10" in mage_log.text
    assert "к10" not in ages_log.text
    assert "d10" not in ages_log.text

    assert len(general.messages) == in_general  # nothing of either chronicle in General
    api.assert_no_duplicate_sends()
    assert unexpected_errors(api.calls[first:]) == []


async def test_a_closed_topic_still_gets_its_result_in_general(world: BotLauncher) -> None:
    """A topic closed mid-fight: the Storyteller (an admin writes in a closed topic) rolls
    there; Telegram refuses the bot's post (TOPIC_CLOSED), and the result reaches the table
    once, in General, saying which topic it was for — not lost, not repeated."""
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    forum = add_forum(api, "Закрытая", owner=master, members=[anya])
    mage = InChat(api, forum, "Маг")
    general = mage.in_topic(None)
    first = len(api.calls)

    fight = await mage.say(anya, "/init 6")
    assert fight.topic_id == mage.thread_id
    mage.close(master)
    typed = mage.type(master, "/r 4 6")
    moved = await general.answer(after=typed, containing="Маг")
    assert "Тема «Маг» закрыта, поэтому ответ здесь:" in moved.text
    assert "4к10" in moved.text or "сл. 6" in moved.text or "Успех" in moved.text
    await api.wait_for(lambda: any(c.method == "sendMessage" for c in api.calls[first:]))
    refused = [c for c in api.calls[first:] if not c.ok and "TOPIC_CLOSED" in str(c.response)]
    assert len(refused) == 1  # tried in the topic once, never again
    mage.reopen(master)
    again = await mage.say(anya, "/r 2")
    assert again.topic_id == mage.thread_id
    api.assert_no_duplicate_sends()


async def test_the_storytellers_private_chat_acts_on_a_topics_campaign(
    world: BotLauncher,
) -> None:
    """The Storyteller of «Маг» rolls in secret from the private chat and opens the screen
    there: both name the campaign «Ночной клуб › Маг», the secret roll's notice lands in
    that topic, the screen shows that topic's sheets, and a /dmg typed in the topic redraws
    it."""
    api = world.api
    mira = api.add_user("Мира", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    forum = add_forum(api, "Ночной клуб", owner=mira, members=[anya])
    mage = InChat(api, forum, "Маг")
    ages = mage.in_topic("Тёмные века")
    private = InChat(api, api.open_private_chat(mira))
    told = InChat(api, api.open_private_chat(anya))  # the Storyteller's changes reach her
    first = len(api.calls)
    await mage.say(mira, "/st")
    await mage.say(anya, "/set выносливость 2 сила воли 5")
    await ages.say(anya, "/set выносливость 4")  # another chronicle's sheet

    typed = private.type(mira, "/h 5 6")
    secret = await private.answer(after=typed, containing="Тайный бросок №1")
    assert "«Ночной клуб › Маг»" in secret.text
    notice = await mage.answer(containing="№1")
    assert notice.topic_id == mage.thread_id

    screen = await private.say(mira, "/screen")
    assert "Ночной клуб › Маг" in screen.text
    assert "Аня" in screen.text
    await private.say(mira, "/help")  # the screen is named by its campaign once this is out
    edits = screen.edits
    await mage.say(mira, "/dmg Аня 1 л")
    await api.wait_for(lambda: screen.edits > edits, 10)
    assert "Ночной клуб › Маг" in (await told.answer(containing="Ночной клуб")).text
    api.assert_no_duplicate_sends()
    assert unexpected_errors(api.calls[first:]) == []
