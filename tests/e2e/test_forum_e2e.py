"""A forum supergroup end to end: the real bot answers in the topic it was written in.

The harness plays one topic at a time (``InChat(api, forum, "Маг")``): a line typed there
reaches the bot with its thread, the bot's answer must be filed in that same topic (aiogram's
``answer`` and ``reply`` keep a topic message's thread), and General sees none of it.
"""

from __future__ import annotations

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
