"""A campaign is the chat and topic a message is in (table/scope.py), and its keys keep one
cluster slot per campaign (table/store/base.py): the chat's own game keeps the keys data was
stored under before topics were campaigns."""

from __future__ import annotations

from table.scope import Campaign, serial_of
from table.store.base import chat_key, flow_key, hidden_key, live_key, log_key, sheet_key, tag
from table.store.journaled import same_slot
from table.store.updates import journal_key, lock_key, running_key

FORUM = -1001


def test_a_topic_message_plays_in_its_topic_and_anything_else_in_the_chat() -> None:
    assert Campaign.of(FORUM, 45, is_topic=True) == Campaign(FORUM, 45)
    assert Campaign.of(FORUM, None, is_topic=None) == Campaign(FORUM)  # General
    # a reply in a group without topics carries a thread, but no topic
    assert Campaign.of(FORUM, 45, is_topic=None) == Campaign(FORUM)
    assert Campaign.of(FORUM, 1, is_topic=True) == Campaign(FORUM)  # General's own id
    # the name is no part of the campaign's identity
    assert Campaign.of(FORUM, 45, is_topic=True, name="Маг") == Campaign(FORUM, 45)
    assert Campaign.of(FORUM, 45, is_topic=True, name="Маг").name == "Маг"


def test_the_chats_own_game_keeps_its_keys_and_a_topic_has_a_slot_of_its_own() -> None:
    general, topic = Campaign(FORUM), Campaign(FORUM, 45)
    for key in (chat_key, log_key, sheet_key, hidden_key):
        assert key(general) == key(FORUM) == f"sdb:{key(FORUM).split(':')[1]}:{{{FORUM}}}"
        assert key(topic) == f"sdb:{key(FORUM).split(':')[1]}:{{{FORUM}:45}}"
    assert flow_key(topic, "f") == f"sdb:flow:{{{FORUM}:45}}:f"
    assert live_key(topic, "round") == f"sdb:live:{{{FORUM}:45}}:round"
    assert tag(topic) != tag(general)


def test_an_update_is_serialised_by_its_campaign_in_the_campaigns_slot() -> None:
    general, topic = Campaign(FORUM), Campaign(FORUM, 45)
    assert serial_of(general) == FORUM  # the journal, lock and mark it always had
    assert serial_of(topic) == topic
    for key in (lock_key, running_key):
        assert tag(topic) in key(7, serial_of(topic))
        assert tag(FORUM) in key(7, serial_of(general))
    journal = journal_key(7, 99, serial_of(topic))
    assert same_slot(journal, [sheet_key(topic), flow_key(topic, "f")])
    assert not same_slot(journal, [sheet_key(general)])


def test_a_campaign_in_a_button_and_in_a_list() -> None:
    topic = Campaign(FORUM, 45)
    assert Campaign.from_button(topic.button) == topic
    assert Campaign.from_button(str(FORUM)) == Campaign(FORUM)  # an older button
    assert Campaign.from_key(topic.key) == topic
    assert Campaign.from_key(str(FORUM)) == Campaign(FORUM)
    for forged in ("", "x", "-100t", "-100t1", "-100tx", "1:2:3"):
        assert Campaign.from_button(forged) is None
    assert Campaign(FORUM, 45, "Маг").titled("Хроника") == "Хроника › Маг"
    assert Campaign(FORUM, 45).titled("Хроника") == "Хроника › #45"
    assert Campaign(FORUM).titled("Хроника") == "Хроника"
