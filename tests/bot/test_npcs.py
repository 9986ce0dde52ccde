"""NPC groups (bot/npcs.py, bot/names.py): the numbers copies join under, and the sheet each
copy gets from its group."""

from __future__ import annotations

import fakeredis

from bot.names import numbered_names
from bot.npcs import fresh_copy, group_of, seat_copies
from bot.store import Store
from rules.health import DamageType, HealthTrack
from rules.sheet import Attribute, SheetSystem, new_sheet, set_health, set_trait

MAGE = SheetSystem.MAGE


def test_copies_are_numbered_from_one_and_go_on_past_those_fighting() -> None:
    assert numbered_names("Гуль", 1, lambda _n: False) == ["Гуль"]
    assert numbered_names("Гуль", 3, lambda _n: False) == ["Гуль 1", "Гуль 2", "Гуль 3"]
    fighting = {"Гуль 1", "Гуль 2"}
    assert numbered_names("Гуль", 2, fighting.__contains__) == ["Гуль 3", "Гуль 4"]
    assert numbered_names("Гуль", 1, fighting.__contains__) == ["Гуль 3"]
    # a lone «Гуль» already fighting counts as the first
    assert numbered_names("Гуль", 2, {"Гуль"}.__contains__) == ["Гуль 2", "Гуль 3"]


def test_group_of_a_numbered_name() -> None:
    assert group_of("Охранник 2") == "Охранник"
    assert group_of("  Старый   страж 12 ") == "Старый страж"
    assert group_of("Охранник") is None


def test_a_fresh_copy_keeps_the_traits_and_not_the_wounds() -> None:
    group = set_trait(new_sheet(MAGE), Attribute.STAMINA, 3)
    group = set_health(group, HealthTrack(boxes=(DamageType.LETHAL,)))
    copy = fresh_copy(group)
    assert copy.rating(Attribute.STAMINA) == 3
    assert copy.health == HealthTrack()


async def test_seating_leaves_a_numbered_npc_with_traits_of_its_own() -> None:
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    await store.update_npc(1, MAGE, "Гуль", lambda s: set_trait(s, Attribute.STAMINA, 3))
    await store.update_npc(1, MAGE, "Гуль 2", lambda s: set_trait(s, Attribute.STRENGTH, 5))
    sheet = await seat_copies(store, 1, MAGE, "Гуль", ["Гуль 1", "Гуль 2"])
    assert sheet is not None
    first = await store.load_npc(1, MAGE, "Гуль 1")
    second = await store.load_npc(1, MAGE, "Гуль 2")
    assert first is not None
    assert first.rating(Attribute.STAMINA) == 3
    assert second is not None
    assert second.rating(Attribute.STRENGTH) == 5
    assert second.rating(Attribute.STAMINA) is None
    assert await seat_copies(store, 1, MAGE, "Никто", ["Никто 1"]) is None
    assert await store.load_npc(1, MAGE, "Никто 1") is None
