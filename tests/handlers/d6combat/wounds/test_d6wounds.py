"""d6 wounds through the chat (docs/rules.md §D.1–§D.2): /dmg and /heal write the sheet's wounds,
and the chance of G-D01 comes out of the sheet: physical wounds add up, only the strongest
mental one counts."""

from __future__ import annotations

import pytest
from aiogram.types import User

from rules.d6.chance import DifficultyKind
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
VERA = player(3, "Vera")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(VERA.id)
    return table


async def test_g_d01_through_the_chat(d6: Table) -> None:
    """powers 2,3,1; weakness 2 applies; a general −1 and a physical 1; mental 1 and 2;
    advantage +1; luck 1 → 6 − 2 − 2 − 2 + 1 + 1 = 2."""
    await d6.say(ANNA, "/set\nСила 2\nЛовкость 3\nХитрость 1\nСлабость 2\nКубики удачи 1")
    await d6.say(ANNA, "/dmg 1 тел")
    await d6.say(ANNA, "/dmg 1 душ")
    await d6.say(ANNA, "/dmg 2 душ")
    assert "3) душевная рана −2" in d6.session.sent[-1].text
    await d6.say(ANNA, "/r сила+ловкость+хитрость слаб удача 1 -1 +1")
    text = d6.session.sent[-1].text
    assert "шанс 2к6" in text
    assert "− раны 3" in text  # physical 1 + the strongest mental 2


async def test_heal_and_the_storytellers_wounds(d6: Table) -> None:
    await d6.say(ANNA, "/dmg 2 тел")
    await d6.say(ANNA, "/heal 2")
    assert "нет такой раны" in d6.session.sent[-1].text
    await d6.say(ANNA, "/heal 1")
    assert "Ран нет." in d6.session.sent[-1].text
    await d6.say(ANNA, "/dmg npc Страж 2 тел")
    assert "сценарист" in d6.session.sent[-1].text
    await d6.say(VERA, "/dmg npc Страж 2 тел")
    assert "НПС «Страж» здесь нет" in d6.session.sent[-1].text
    sheet = await d6.store.load_sheet(d6.chat.id, ANNA.id, SheetSystem.D6)
    assert sheet is not None
    assert sheet.wounds == ()


@pytest.mark.parametrize("text", ["/dmg", "/dmg 2", "/dmg тел", "/dmg 0 тел", "/dmg 2 2 тел"])
async def test_bad_wounds_change_nothing(d6: Table, text: str) -> None:
    await d6.say(ANNA, text)
    assert "/dmg 2" in d6.session.sent[-1].text
    assert await d6.store.load_sheet(d6.chat.id, ANNA.id, SheetSystem.D6) is None
    assert DifficultyKind.MENTAL_WOUND


async def test_g_d20_helplessness_shows_where_the_wound_lands_and_on_the_sheet(
    d6: Table,
) -> None:
    """G-D20: every chance ≤ 0 and no luck → helpless; with a luck die → not helpless."""
    await d6.say(ANNA, "/set\nСила 1\nЛовкость 1")
    await d6.say(ANNA, "/dmg 1 тел")
    assert "Беспомощ" not in d6.session.sent[-1].text  # Сила + Ловкость − 1 = 1 is left
    await d6.say(ANNA, "/dmg 1 тел")
    assert "⛓ Беспомощ" in d6.session.sent[-1].text
    await d6.say(ANNA, "/sheet")
    assert "⛓ Беспомощ" in d6.session.sent[-1].text
    await d6.say(ANNA, "/set кубики удачи 1")
    await d6.say(ANNA, "/sheet")
    assert "Беспомощ" not in d6.session.sent[-1].text


async def test_hp_shows_the_wounds_they_take_off_and_helplessness(d6: Table) -> None:
    await d6.say(ANNA, "/hp")
    assert d6.session.sent[-1].text == "<b>Anna</b>\nРан нет."
    await d6.say(ANNA, "/set\nСила 1\nЛовкость 1")
    await d6.say(ANNA, "/dmg 1 тел")
    await d6.say(ANNA, "/dmg 1 душ")
    await d6.say(ANNA, "/dmg 2 душ")
    await d6.say(ANNA, "/hp")
    text = d6.session.sent[-1].text
    assert "1) телесная рана −1, 2) душевная рана −1, 3) душевная рана −2" in text
    assert "Каждый шанс у персонажа меньше на 3." in text  # physical 1 + the strongest mental 2
    assert "⛓ Беспомощ" in text  # powers 1 + 1 against 3, no luck
    await d6.say(BORIS, "/hp", reply_to=ANNA)  # anyone looks, at whom they reply to
    assert d6.session.sent[-1].text == text
    await d6.say(ANNA, "/r 2")
    rolled = d6.session.messages[-1].message_id
    dice = User(id=123456, is_bot=True, first_name="Dice")
    await d6.say(BORIS, "/hp", reply_to=dice, replied_id=rolled)  # the bot's result of Anna's
    assert d6.session.sent[-1].text == text
    await d6.say(BORIS, "/hp")
    assert d6.session.sent[-1].text == "<b>Boris</b>\nРан нет."


async def test_hp_of_an_npc_and_of_a_group_by_number(d6: Table) -> None:
    for name in ("Бандит", "Охранник 1", "Охранник 2", "Охранник 3"):
        await d6.store.update_npc(d6.chat.id, SheetSystem.D6, name, lambda sheet: sheet)
    await d6.say(VERA, "/dmg Охранник 2 тел 2")
    await d6.say(VERA, "/dmg Бандит душ 1")
    await d6.say(ANNA, "/hp бандит")
    assert d6.session.sent[-1].text.startswith("<b>Бандит</b>\nРаны: 1) душевная рана −1")
    await d6.say(ANNA, "/hp Охранник")
    shown = d6.session.sent[-1].text
    assert [line for line in shown.splitlines() if line.startswith("<b>")] == [
        "<b>Охранник 1</b>",
        "<b>Охранник 2</b>",
        "<b>Охранник 3</b>",
    ]
    assert shown.count("Ран нет.") == 2
    assert "1) телесная рана −2" in shown
    await d6.say(ANNA, "/hp Охранник 3")
    assert d6.session.sent[-1].text == "<b>Охранник 3</b>\nРан нет."
    await d6.say(ANNA, "/hp Атаман")
    assert "НПС «Атаман» здесь нет" in d6.session.sent[-1].text
    await d6.say(ANNA, "/hp Бандит 5")
    assert "/hp Бандит" in d6.session.sent[-1].text
    assert "Здоров" not in d6.session.sent[-1].text  # never the d10 health track


async def test_hp_lists_a_group_seated_on_the_d6_tracker(d6: Table) -> None:
    await d6.say(VERA, "/init npc Охранник 3 x3")  # no sheet: the copies get blank ones
    await d6.say(VERA, "/dmg Охранник 3 душ 1")
    await d6.say(BORIS, "/hp охранник")
    shown = d6.session.sent[-1].text
    assert [line for line in shown.splitlines() if line.startswith("<b>")] == [
        "<b>Охранник 1</b>",
        "<b>Охранник 2</b>",
        "<b>Охранник 3</b>",
    ]
    assert shown.endswith(
        "<b>Охранник 3</b>\nРаны: 1) душевная рана −1\nКаждый шанс у персонажа меньше на 1."
    )


async def test_a_refused_wound_line_says_what_is_wrong(d6: Table) -> None:
    await d6.say(ANNA, "/dmg 2 3 тел")
    assert d6.session.sent[-1].text.startswith("«3» — лишнее число.\n")
    await d6.say(ANNA, "/dmg 2 тел душ")
    assert d6.session.sent[-1].text.startswith("«душ» указано дважды.\n")
    await d6.say(ANNA, "/heal 2 тел")
    assert d6.session.sent[-1].text.startswith("Не поняли «тел».\n")
