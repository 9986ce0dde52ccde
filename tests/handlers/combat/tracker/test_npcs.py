"""The Storyteller's NPCs on the d10 tracker through the Dispatcher (docs/product.md "NPCs"):
the Storyteller is no fighter unless they join, «Убрать» for anyone (a player only for
themself), groups of copies with the group's sheet and health of their own, ``/hp`` and
``/dmg`` by an NPC's name, ``/atk`` as an NPC by name."""

from __future__ import annotations

from rules.health import DamageType
from rules.sheet import Attribute, Sheet, SheetSystem, set_trait
from tests.handlers.combat.tracker.test_initiative import data_of, press, screen
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Аня")  # the chat's administrator: runs the game
BORIS = player(2, "Борис")
VERA = player(3, "Вера")
SYSTEM = SheetSystem.MAGE


async def guard_sheet(table: Table) -> None:
    def write(sheet: Sheet) -> Sheet:
        sheet = set_trait(sheet, Attribute.DEXTERITY, 3)
        sheet = set_trait(sheet, Attribute.WITS, 2)
        return set_trait(sheet, Attribute.STAMINA, 3)

    await table.store.update_npc(table.chat.id, SYSTEM, "Охранник", write)


async def test_the_storyteller_opens_the_fight_without_joining_it(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/init")
    _mid, text, _markup = screen(table)
    assert "Аня" not in text
    assert "Пока никто не бросил" in text or "никто" in text
    await table.say(BORIS, "/init 6")
    _mid, text, _markup = screen(table)
    assert "Борис" in text
    assert "Аня" not in text
    await table.say(VERA, "/init")  # a player without a sheet is asked for the sum, as before
    assert "Ловкости и Смекалки" in table.session.sent[-1].text


async def test_a_group_of_copies_shares_the_sheet_with_health_of_its_own(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await guard_sheet(table)
    await table.say(ANNA, "/init npc Охранник x3")
    _mid, text, _markup = screen(table)
    for n in (1, 2, 3):
        assert f"Охранник {n} — <b>" in text
        copy = await table.store.load_npc(table.chat.id, SYSTEM, f"Охранник {n}")
        assert copy is not None
        assert copy.rating(Attribute.DEXTERITY) == 3  # the group's traits
    assert "Охранник — <b>" not in text
    assert "(5+🎲" in text  # Dexterity 3 + Wits 2 from the group's sheet

    await table.say(ANNA, "/dmg Охранник 2 л")
    second = await table.store.load_npc(table.chat.id, SYSTEM, "Охранник 2")
    first = await table.store.load_npc(table.chat.id, SYSTEM, "Охранник 1")
    group = await table.store.load_npc(table.chat.id, SYSTEM, "Охранник")
    assert second is not None
    assert first is not None
    assert group is not None
    assert second.health.boxes == (DamageType.LETHAL,)
    assert first.health.boxes == ()
    assert group.health.boxes == ()

    await table.say(BORIS, "/hp Охранник")
    shown = table.session.sent[-1].text
    assert [line for line in shown.splitlines() if line.startswith("<b>Охранник")] == [
        "<b>Охранник 1</b>",
        "<b>Охранник 2</b>",
        "<b>Охранник 3</b>",
    ]
    assert shown.count("Здоров [") == 2  # only copy 2 is hurt

    # one more joins under the next number, with the sheet too
    await table.say(ANNA, "/init npc Охранник 4 x2")
    _mid, text, _markup = screen(table)
    assert "Охранник 4 — <b>4</b>" in text or "Охранник 4 — <b>" in text
    assert "Охранник 5 — <b>" in text
    fifth = await table.store.load_npc(table.chat.id, SYSTEM, "Охранник 5")
    assert fifth is not None
    assert fifth.rating(Attribute.STAMINA) == 3


async def test_a_new_fight_gives_the_copies_fresh_health(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await guard_sheet(table)
    await table.say(ANNA, "/init npc Охранник x2")
    await table.say(ANNA, "/dmg Охранник 1 3 у")
    await press(table, ANNA, "Конец боя")
    await table.say(ANNA, "/init npc Охранник x2")
    first = await table.store.load_npc(table.chat.id, SYSTEM, "Охранник 1")
    assert first is not None
    assert first.health.boxes == ()


async def test_remove_a_player_removes_themself_the_storyteller_anyone(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/init 6")
    await table.say(VERA, "/init 5")
    await table.say(ANNA, "/init npc Гуль 4")
    await press(table, BORIS, "Убрать")  # a player in the fight opens the list
    _mid, _text, markup = screen(table)
    assert [b.text for b in buttons(markup) if b.text.startswith("✖")] == [
        "✖ Борис",
        "✖ Вера",
        "✖ Гуль",
    ]
    await press(table, BORIS, "✖ Вера")
    assert table.session.answers[-1].show_alert  # not his to remove
    await press(table, BORIS, "✖ Борис")
    _mid, text, _markup = screen(table)
    assert "Борис" not in text
    assert "Вера" in text

    await press(table, ANNA, "Убрать")
    await press(table, ANNA, "✖ Гуль")
    await press(table, ANNA, "Убрать")
    await press(table, ANNA, "✖ Вера")
    _mid, text, _markup = screen(table)
    assert "Гуль" not in text
    assert "Вера" not in text

    # someone not in the fight may not open the list
    await table.say(BORIS, "/init 6")
    mid, _text, _markup = screen(table)
    await table.tap(VERA, data_of(table, "Убрать"), mid)
    assert table.session.answers[-1].show_alert


async def test_the_storyteller_attacks_as_an_npc_by_name(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await guard_sheet(table)
    await table.say(BORIS, "/init 6")
    await table.say(ANNA, "/init npc Охранник x2")
    await table.say(ANNA, "/atk Охранник 2")
    panel = table.session.sent[-1].text
    assert "Охранник 2" in panel.splitlines()[0]
    await table.say(BORIS, "/atk Охранник 1")  # a player may not
    assert "Охранник 1" not in table.session.sent[-1].text.splitlines()[0]


async def test_the_storytellers_bare_atk_is_the_acting_npcs(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/init 2")
    await table.say(ANNA, "/atk")
    assert "В бою нет НПС" in table.session.sent[-1].text
    await table.say(ANNA, "/init npc Гуль 10")  # acts first, declares last
    await table.say(ANNA, "/atk")
    assert "/atk Гуль" in table.session.sent[-1].text  # nobody acts yet: which one?
    await press(table, ANNA, "Заявки")
    await press(table, ANNA, "Заявлено")
    await press(table, ANNA, "Заявлено")
    _mid, text, _markup = screen(table)
    assert "▶️ Гуль" in text
    await table.say(ANNA, "/atk")
    assert "Гуль" in table.session.sent[-1].text.splitlines()[0]
    assert "Аня" not in table.session.sent[-1].text.splitlines()[0]


async def test_copies_of_an_npc_without_a_sheet_are_found_by_name(table: Table) -> None:
    """A group with no sheet seats its copies without one: /dmg, /heal and /hp still find
    «Гуль 2» by name in the open fight, and its wound lands on a sheet of its own."""
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/init npc Гуль 6 x3")
    assert await table.store.load_npc(table.chat.id, SYSTEM, "Гуль 2") is None

    await table.say(ANNA, "/dmg Гуль 2 л")
    second = await table.store.load_npc(table.chat.id, SYSTEM, "Гуль 2")
    assert second is not None
    assert second.health.boxes == (DamageType.LETHAL,)
    assert await table.store.load_npc(table.chat.id, SYSTEM, "Гуль 1") is None

    await table.say(BORIS, "/hp Гуль")
    shown = table.session.sent[-1].text
    assert [line for line in shown.splitlines() if line.startswith("<b>Гуль")] == [
        "<b>Гуль 1</b>",
        "<b>Гуль 2</b>",
        "<b>Гуль 3</b>",
    ]
    assert shown.count("Здоров [") == 2  # only copy 2 is hurt

    await table.say(BORIS, "/hp Гуль 3")
    assert table.session.sent[-1].text.startswith("<b>Гуль 3</b>")

    await table.say(ANNA, "/heal Гуль 2")
    second = await table.store.load_npc(table.chat.id, SYSTEM, "Гуль 2")
    assert second is not None
    assert second.health.boxes == ()

    await table.say(ANNA, "/dmg Гуль 7 л")  # no such copy: seven levels to «Гуль», unknown
    assert "Гуль нет" in table.session.sent[-1].text
    assert await table.store.list_npcs(table.chat.id, SYSTEM) == [("Гуль 2", second)]
