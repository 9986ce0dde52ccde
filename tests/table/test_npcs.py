"""NPC groups (table/npcs.py, bot/names.py): the numbers copies join under, and the sheet each
copy gets from its group."""

from __future__ import annotations

import fakeredis
import pytest

from bot.names import numbered_names
from rules.health import DamageType, HealthTrack
from rules.sheet import Attribute, SheetSystem, new_sheet, set_health, set_trait
from table.npcs import AmbiguousName, fresh_copy, group_of, may_be_a_name, name_by_part, seat_copies
from table.store import Store
from table.store.sheets import npc_field, npc_name_field, npc_prefixes, player_field, sheets_ahead

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


def test_a_line_names_an_npc_by_its_first_words_only() -> None:
    assert npc_prefixes(["Старый", "Страж", "ловк", "6"]) == [
        "старый",
        "старый страж",
        "старый страж ловк",
    ]
    assert npc_prefixes(["Страж"]) == []  # a roll's line goes on after the name
    assert npc_prefixes(["Страж"], whole=True) == ["страж"]
    assert npc_prefixes(["7", "6"]) == []  # a pool is never a name
    assert npc_prefixes(["+2", "ловк"]) == []
    assert npc_prefixes(["я" * 60, "б" * 10, "6"]) == ["я" * 60]  # no name is that long


def test_a_command_reads_ahead_its_sender_and_the_npcs_it_may_name() -> None:
    ahead = sheets_ahead(7, "/r Страж ловк 6")
    assert ahead[:3] == [player_field(7, system) for system in SheetSystem]
    assert npc_field(MAGE, "страж ловк") in ahead
    assert npc_name_field(SheetSystem.D6, "Страж") in ahead
    assert sheets_ahead(None, "/r 7 6") == []
    assert sheets_ahead(7, "just talking here") == sheets_ahead(7, None) == ahead[:3]


async def test_an_npc_is_found_by_name_without_reading_every_sheet() -> None:
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    await store.update_npc(1, MAGE, "Старый  страж", lambda s: set_trait(s, Attribute.STAMINA, 3))
    await store.update_npc(1, MAGE, "Старый", lambda s: s)
    assert await store.npc_at_start(1, MAGE, ["старый", "СТРАЖ", "вын", "6"]) == ("Старый страж", 2)
    assert await store.npc_at_start(1, MAGE, ["Старый", "вын"]) == ("Старый", 1)
    assert await store.npc_at_start(1, MAGE, ["Старый"]) is None
    assert await store.npc_at_start(1, MAGE, ["Старый"], whole=True) == ("Старый", 1)
    assert await store.npc_at_start(1, SheetSystem.D6, ["Старый", "вын"]) is None
    assert await store.npc_at_start(2, MAGE, ["Старый", "вын"]) is None


async def test_an_npc_with_a_name_past_the_lookup_is_still_found() -> None:
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    long = " ".join(["Очень-очень-длинное имя"] * 4)  # a d6 fight seats any name
    await store.update_npc(1, SheetSystem.D6, long, lambda s: s)
    await store.update_npc(1, SheetSystem.D6, "Очень-очень-длинное", lambda s: s)
    found = await store.npc_at_start(1, SheetSystem.D6, [*long.split(), "сила"])
    assert found == (long, len(long.split()))
    short = await store.npc_at_start(1, SheetSystem.D6, ["Очень-очень-длинное", "сила"])
    assert short == ("Очень-очень-длинное", 1)


def test_an_npc_by_a_part_of_its_name() -> None:
    names = ["Епископ Гуго", "Страж ворот", "Страж моста", "Hugo the Bishop"]
    assert name_by_part(["гуго", "восп+эмпатия", "7"], names) == ("Епископ Гуго", "восп+эмпатия 7")
    assert name_by_part(["епис", "7"], names) == ("Епископ Гуго", "7")  # its beginning
    assert name_by_part(["страж", "моста", "7"], names) == ("Страж моста", "7")
    assert name_by_part(["bishop", "7"], names) == ("Hugo the Bishop", "7")
    assert name_by_part(["ге", "7"], names) is None  # two letters are no name
    with pytest.raises(AmbiguousName) as caught:
        name_by_part(["страж", "7"], names)
    assert caught.value.names == ("Страж ворот", "Страж моста")


def test_a_roll_by_traits_is_never_a_name() -> None:
    assert not may_be_a_name("ловк+драка", SheetSystem.MAGE)
    assert not may_be_a_name("восприятие", SheetSystem.MAGE)
    assert not may_be_a_name("7", SheetSystem.MAGE)
    assert may_be_a_name("гуго", SheetSystem.MAGE)
