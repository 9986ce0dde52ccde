"""``/init`` and the round tracker through the Dispatcher (docs/rules.md §B.1–§B.2).

Outside contract: ``/init``, ``/init 7``, ``/init npc Имя 6``; the tracker lists each
participant's name with their total.
"""

from __future__ import annotations

import asyncio
import re

from aiogram.methods import DeleteMessage, PinChatMessage, UnpinChatMessage
from aiogram.types import InlineKeyboardMarkup

from bot.combat import TRACKER
from handlers.combat.tracker.callbacks import InitAction, InitCallback
from rules.profiles import GameSystem
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Аня")  # the chat's administrator: runs the game until a Storyteller claims it
BORIS = player(2, "Борис")
VERA = player(3, "Вера")


def screen(table: Table) -> tuple[int, str, InlineKeyboardMarkup | None]:
    """The tracker as the chat shows it now: its message id, text and keyboard."""
    sent = table.session.messages
    tracker_id = next(m.message_id for m in reversed(sent) if "⚔️" in (m.text or ""))
    text, markup = next(m.text or "" for m in sent if m.message_id == tracker_id), None
    markup = next(m.reply_markup for m in sent if m.message_id == tracker_id)
    for edit in table.session.edits:
        if edit.message_id == tracker_id:
            text, markup = edit.text, edit.reply_markup
    return tracker_id, text, markup


def data_of(table: Table, label: str) -> str:
    _mid, _text, markup = screen(table)
    for button in buttons(markup):
        if label in button.text:
            assert button.callback_data is not None
            return button.callback_data
    raise AssertionError(f"no {label!r} button")


async def press(table: Table, user: object, label: str) -> None:
    mid, _text, _markup = screen(table)
    await table.tap(user, data_of(table, label), mid)  # type: ignore[arg-type]


def total_of(text: str, name: str) -> int:
    found = re.search(re.escape(name) + r" — <b>(\d+)</b> \((\d+)\+🎲(\d+)", text)
    assert found is not None, text
    assert int(found.group(1)) == int(found.group(2)) + int(found.group(3))
    return int(found.group(1))


async def opened(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/set ловкость 3 смекалка 2")
    await table.say(ANNA, "/init")
    await table.say(BORIS, "/init 7")
    await table.say(ANNA, "/init npc Гуль 4 x2")


async def test_init_opens_one_tracker_and_joins_in_place(table: Table) -> None:
    await opened(table)
    trackers = [m for m in table.session.sent if "⚔️" in m.text]
    assert len(trackers) == 1  # later joins edit the one message
    _mid, text, _markup = screen(table)
    anna = total_of(text, "Аня")
    assert 6 <= anna <= 15  # 3 + 2 + 1d10
    assert 8 <= total_of(text, "Борис") <= 17
    assert total_of(text, "Гуль 1") >= 5
    assert total_of(text, "Гуль 2") >= 5
    names = re.findall(r"^\d+\. (?:\S+ )?(\S+(?: \d)?) — <b>(\d+)</b>", text, re.M)
    totals = [int(t) for _n, t in names]
    assert totals == sorted(totals, reverse=True)
    assert table.session.of(PinChatMessage)


async def test_players_cannot_add_npcs_and_bad_input_is_answered(table: Table) -> None:
    await opened(table)
    before = screen(table)
    await table.say(BORIS, "/init npc Дракон 9")
    assert "Рассказчик" in table.session.sent[-1].text
    await table.say(BORIS, "/init 7")
    assert "уже" in table.session.sent[-1].text
    await table.say(VERA, "/init")
    assert "/init 7" in table.session.sent[-1].text  # no sheet: how to type the base
    await table.say(VERA, "/init сорок")
    assert "/init" in table.session.sent[-1].text
    assert screen(table) == before


async def test_init_without_a_sheet_or_a_tracker_names_what_exists(table: Table) -> None:
    await table.say(VERA, "/init")
    hint = table.session.sent[-1].text or ""
    assert "/init 7" in hint
    assert "/set ловкость 3 смекалка 2" in hint
    assert "Бросить инициативу" not in hint  # the tracker and its button are not there yet
    assert not any("⚔️" in (m.text or "") for m in table.session.messages)


async def test_a_round_walks_declarations_up_and_actions_down(table: Table) -> None:
    await opened(table)
    await press(table, BORIS, "Заявки")
    assert "Рассказчик" in (table.session.answers[-1].text or "")  # only who runs the game starts
    await press(table, ANNA, "Заявки")
    _mid, text, _markup = screen(table)
    order = re.findall(r"^\d+\. (?:✍️ )?([^—]+?) — ", text, re.M)
    assert len(order) == 4
    declared = []
    for _ in range(4):
        _mid, text, _markup = screen(table)
        name = re.search(r"✍️ (.+?) заявляет", text)
        assert name is not None
        declared.append(name.group(1))
        await press(table, ANNA, "Заявлено")
    assert declared == list(reversed(order))  # lowest initiative declares first
    acted = []
    for _ in range(4):
        _mid, text, _markup = screen(table)
        name = re.search(r"▶️ (.+?) действует", text)
        assert name is not None
        acted.append(name.group(1))
        await press(table, ANNA, "Дальше")
    assert acted == order
    _mid, text, _markup = screen(table)
    assert "Раунд окончен" in text
    await press(table, ANNA, "Новый раунд")
    _mid, text, _markup = screen(table)
    assert "раунд 2" in text
    assert "заявляет" in text


async def test_only_the_declarer_or_the_storyteller_declares(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/init 3")
    await table.say(VERA, "/init 9")
    await press(table, ANNA, "Заявки")
    _mid, text, _markup = screen(table)
    first = re.search(r"✍️ (.+?) заявляет", text)
    assert first is not None
    other = VERA if first.group(1) == "Борис" else BORIS
    await press(table, other, "Заявлено")
    assert "черёд" in (table.session.answers[-1].text or "")
    mover = BORIS if other is VERA else VERA
    await press(table, mover, "Ещё действие")
    await press(table, mover, "Заявлено")
    _mid, text, _markup = screen(table)
    assert "2 действия" in text


async def test_two_presses_of_next_at_once_take_one_step(table: Table) -> None:
    await opened(table)
    await press(table, ANNA, "Заявки")
    for _ in range(4):
        await press(table, ANNA, "Заявлено")
    mid, _text, _markup = screen(table)
    data = data_of(table, "Дальше")
    flow_id = InitCallback.unpack(data).f
    before = await table.store.load_flow(table.chat.id, flow_id)
    assert before is not None
    await asyncio.gather(table.tap(ANNA, data, mid), table.tap(BORIS, data, mid))
    after = await table.store.load_flow(table.chat.id, flow_id)
    assert after is not None
    assert after.data["round"]["step"] == before.data["round"]["step"] + 1


async def test_roll_button_asks_for_the_base_when_the_sheet_lacks_it(table: Table) -> None:
    await table.say(BORIS, "/init 5")
    await press(table, VERA, "Бросить инициативу")
    _mid, text, markup = screen(table)
    assert "Вера" in text
    assert "Ловкости и Смекалки" in text
    data = next(b.callback_data for b in buttons(markup) if b.text == "6")
    assert data is not None
    mid, _t, _m = screen(table)
    await table.tap(BORIS, data, mid)  # Борис is in already
    assert "уже" in (table.session.answers[-1].text or "")
    await table.tap(player(5, "Глеб"), data, mid)  # not Глеб's choice to make
    assert "Бросить инициативу" in (table.session.answers[-1].text or "")
    await table.tap(VERA, data, mid)
    _mid, text, _markup = screen(table)
    assert total_of(text, "Вера") >= 7


async def test_storyteller_panels_add_remove_and_mark_conditions(table: Table) -> None:
    await opened(table)
    await press(table, ANNA, "НПС")
    await press(table, ANNA, "5")
    _mid, text, _markup = screen(table)
    assert "НПС 1" in text
    await press(table, ANNA, "Убрать")
    await press(table, ANNA, "Гуль 2")
    _mid, text, _markup = screen(table)
    assert "Гуль 2" not in text
    await press(table, ANNA, "Состояния")
    await press(table, ANNA, "Борис")
    await press(table, ANNA, "нокдаун")
    await press(table, ANNA, "Назад")
    _mid, text, _markup = screen(table)
    assert re.search(r"Борис — .*нокдаун", text), text
    await press(table, BORIS, "Состояния")
    assert "Рассказчик" in (table.session.answers[-1].text or "")


async def test_a_condition_on_an_npc_with_no_sheet_makes_its_sheet_in_the_same_step(
    table: Table,
) -> None:
    """The NPC's sheet is created by the toggle's own step, with its name as typed."""
    await opened(table)
    assert await table.store.list_npcs(table.chat.id, SheetSystem.MAGE) == []
    await press(table, ANNA, "Состояния")
    await press(table, ANNA, "Гуль 1")
    await press(table, ANNA, "нокдаун")
    [(name, sheet)] = await table.store.list_npcs(table.chat.id, SheetSystem.MAGE)
    assert name == "Гуль 1"
    assert [c.value for c in sheet.conditions] == ["prone"]
    await press(table, ANNA, "нокдаун")  # off again: the same sheet, nothing else made
    [(name, sheet)] = await table.store.list_npcs(table.chat.id, SheetSystem.MAGE)
    assert not sheet.conditions


async def test_end_closes_unpins_and_frees_the_chat(table: Table) -> None:
    await opened(table)
    await press(table, ANNA, "Конец боя")
    _mid, text, markup = screen(table)
    assert "Бой окончен" in text
    assert markup is None
    assert table.session.of(UnpinChatMessage)
    assert await table.store.load_live(table.chat.id, TRACKER) is None
    await table.say(BORIS, "/init 4")
    trackers = [m for m in table.session.sent if "⚔️" in m.text]
    assert len(trackers) == 2  # a new fight, a new tracker
    assert "Аня" not in trackers[-1].text


async def test_damage_shows_on_the_tracker_line(table: Table) -> None:
    await opened(table)
    await table.say(BORIS, "/dmg 2 л")
    _mid, text, _markup = screen(table)
    assert re.search(r"Борис — .*🩸 Ушибы, −1 за раны \[XX\]", text), text


async def test_a_buried_tracker_is_posted_again_at_the_bottom(table: Table) -> None:
    await opened(table)
    first, _text, _markup = screen(table)
    table.message_id = first + 40  # the chat has moved on
    await table.say(VERA, "/init 6")
    again, text, _markup = screen(table)
    assert again != first
    assert "Вера" in text
    assert "Аня" in text
    assert any(d.message_id == first for d in table.session.of(DeleteMessage))


async def test_english_and_the_d6_game(table: Table) -> None:
    await table.say(player(4, "Eve", "en"), "/lang en")
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/lang en")
    await table.say(BORIS, "/init 7")
    _mid, text, _markup = screen(table)
    assert "Combat" in text
    assert "round 1" in text
    await table.say(ANNA, "/rules d6")
    await table.say(BORIS, "/init 7")  # the d6 game's own tracker, 7 Alacrity dice
    assert "d6 initiative" in table.session.sent[-1].text
    assert GameSystem.D6


async def test_forged_buttons_change_nothing(table: Table) -> None:
    await opened(table)
    mid, _text, _markup = screen(table)
    flow_id = InitCallback.unpack(data_of(table, "Заявки")).f
    before = await table.store.load_flow(table.chat.id, flow_id)
    assert before is not None
    for who in (BORIS, ANNA):
        for action in InitAction:
            if who is ANNA and action is InitAction.END:
                continue  # the one button whose number means nothing: it would end the fight
            for x in (-1, 99, 10**9):
                now = await table.store.load_flow(table.chat.id, flow_id)
                assert now is not None
                forged = InitCallback(f=flow_id, v=now.version, a=action, x=x).pack()
                await table.tap(who, forged, mid)
    await table.tap(ANNA, "ini:zzz:1:r:0", mid)
    await table.tap(ANNA, "ini:" + flow_id + ":1:??:0", mid)
    after = await table.store.load_flow(table.chat.id, flow_id)
    assert after is not None
    assert after.data["round"] == before.data["round"]
    assert all(a.text for a in table.session.answers[-20:])  # every press got a word back


async def test_conditions_follow_the_character_into_every_roll(table: Table) -> None:
    await opened(table)

    async def mark(condition: str) -> None:
        await press(table, ANNA, "Состояния")
        await press(table, ANNA, "Борис")
        await press(table, ANNA, condition)
        await press(table, ANNA, "Назад")

    await mark("ослепление")
    await table.say(BORIS, "/r 6 6")
    said = table.session.sent[-1].text
    assert "сложность 8" in said
    assert "ослепление: +2 к сложности" in said
    await table.say(BORIS, "/ext 6 6 5")
    assert "ослепление: +2 к сложности" in table.session.sent[-1].text
    await mark("контузия")
    await table.say(BORIS, "/r 6 6")
    assert "контужен" in table.session.sent[-1].text
    await press(table, ANNA, "Конец боя")
    await table.say(BORIS, "/r 6 6")
    said = table.session.sent[-1].text
    assert "сложность 6" in said
    assert "ослепление" not in said
