"""The G-C vectors of docs/rules.md §E.2 that need chosen dice, through the chat: the Table's dice
are replaced by a source that deals the faces a vector names (rules.dice.Rng), so each case
is the real command, the real buttons and the real texts.

Also «Продлить» under an ordinary cast and the Storyteller writing another mage's wheel."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

from aiogram.types import Message, MessageEntity

from handlers.magick.callbacks import MagickAction, MagickCallback
from rules.sheet import SheetSystem
from table.store import sheet_key
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Аня")
VERA = player(3, "Вера")


class Dealt:
    """Deals the given faces in order, then tens (a success on any difficulty)."""

    def __init__(self, faces: Iterable[int] = ()) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0) if self.faces else b
        assert a <= face <= b, (face, a, b)
        return face


def plain(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text)


def shown(table: Table, mid: int) -> tuple[str, object]:
    text, markup = "", None
    for sent in table.session.messages:
        if sent.message_id == mid:
            text, markup = sent.text or "", sent.reply_markup
    for edit in table.session.edits:
        if edit.message_id == mid:
            text, markup = edit.text, edit.reply_markup
    return text, markup


async def press(table: Table, user: object, mid: int, action: MagickAction, x: int = 0) -> None:
    _text, markup = shown(table, mid)
    for button in buttons(markup):
        parsed = MagickCallback.unpack(button.callback_data or "")
        if parsed.a is action and parsed.x == x:
            await table.tap(user, button.callback_data or "", mid)  # type: ignore[arg-type]
            return
    raise AssertionError(f"no {action} {x}")


async def cast(table: Table, line: str, faces: Iterable[int] = ()) -> int:
    table.rng = Dealt(faces)  # type: ignore[assignment]
    await table.say(ANNA, line)
    return table.session.messages[-1].message_id


async def test_g_c16_magnitudes_through_a_cast_and_a_ritual(table: Table) -> None:
    """S=4 → Сложный; S=10 → Необычный; S=20 (a ritual of two rolls) → Божественный."""
    await table.say(ANNA, "/set арете 4")
    mid = await cast(table, "/m 1")
    assert "хватит на Сложный Эффект" in shown(table, mid)[0]
    await table.say(ANNA, "/set арете 10")
    mid = await cast(table, "/m 1")
    assert "хватит на Необычный Эффект" in shown(table, mid)[0]
    mid = await cast(table, "/m 1 цель 20")
    await press(table, ANNA, mid, MagickAction.NEXT_ROLL)
    text = shown(table, mid)[0]
    assert "Ритуал завершён: хватит на Божественный Эффект" in text


async def test_g_c05_to_g_c08_the_allocation_helper(table: Table) -> None:
    """Damage with Forces 2 → 5 levels, Matter only 2 → 4; duration 2 → сутки, 4 → half a
    year; targets; S=4 cannot buy 2 + 2 + 1."""
    await table.say(ANNA, "/set арете 4 силы 3 материя 3")
    mid = await cast(table, "/m силы 3")
    await press(table, ANNA, mid, MagickAction.PANEL, 1)
    await press(table, ANNA, mid, MagickAction.ADD, 0)
    await press(table, ANNA, mid, MagickAction.ADD, 0)
    assert "урон: 2 → 5 уровней здоровья" in plain(shown(table, mid)[0])
    await press(table, ANNA, mid, MagickAction.ADD, 1)
    await press(table, ANNA, mid, MagickAction.ADD, 1)
    assert "длительность: 2 → сутки" in plain(shown(table, mid)[0])
    await press(table, ANNA, mid, MagickAction.ADD, 2)  # G-C08: 2 + 2 + 1 > 4
    refused = table.session.answers[-1]
    assert refused.show_alert
    assert "Все успехи уже распределены" in (refused.text or "")
    mid = await cast(table, "/m материя 3")
    await press(table, ANNA, mid, MagickAction.PANEL, 1)
    for _ in range(3):  # G-C07: three others take three successes
        await press(table, ANNA, mid, MagickAction.ADD, 2)
    assert "цели: 3" in plain(shown(table, mid)[0])
    for _ in range(3):
        await press(table, ANNA, mid, MagickAction.TAKE, 2)
    await press(table, ANNA, mid, MagickAction.ADD, 0)
    await press(table, ANNA, mid, MagickAction.ADD, 0)
    assert "урон: 2 → 4 уровня здоровья" in plain(shown(table, mid)[0])
    await press(table, ANNA, mid, MagickAction.ADD, 1)
    await press(table, ANNA, mid, MagickAction.ADD, 1)
    await press(table, ANNA, mid, MagickAction.TAKE, 0)
    await press(table, ANNA, mid, MagickAction.TAKE, 0)
    await press(table, ANNA, mid, MagickAction.ADD, 1)
    await press(table, ANNA, mid, MagickAction.ADD, 1)
    assert "длительность: 4 → полгода" in plain(shown(table, mid)[0])


async def test_g_c06_durations_count_in_turns_in_a_fight(table: Table) -> None:
    await table.say(ANNA, "/set арете 3 ловкость 2 смекалка 2")
    await table.say(ANNA, "/init")
    mid = await cast(table, "/m 1")
    await press(table, ANNA, mid, MagickAction.PANEL, 1)
    for _ in range(3):
        await press(table, ANNA, mid, MagickAction.ADD, 1)
    assert "длительность: 3 → 3 хода" in plain(shown(table, mid)[0])


async def test_g_c11_backlash_of_seven(table: Table) -> None:
    """P = 7, faces 6,7,2,3,10,1,5: three discharged, four stay; tier 1, bashing, 3 dice."""
    await table.say(ANNA, "/set арете 1 парадокс 5")
    # /m 1 вульг свид: a success earns 2 (L=1 vulgar with witnesses): the wheel holds 7
    mid = await cast(table, "/m 1 вульг свид", [10])
    text = shown(table, mid)[0]
    assert "Парадокс +2" in text
    table.rng = Dealt([6, 7, 2, 3, 10, 1, 5, 6, 6, 6])  # type: ignore[assignment]
    await press(table, ANNA, mid, MagickAction.BACKLASH)
    text = plain(shown(table, mid)[0])
    assert "Отдача: 7к10 Парадокса, сложность 6" in text
    assert "Урон (ударный): 3к10, сложность 6: 6 6 6 — 3 успеха" in text  # dealt 6 6 6
    assert "разряжено: 3, на треке остаётся: 4" in text
    assert "Ступень 1" in text
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.paradox == 4


async def test_g_c12_tiers_by_the_successes(table: Table) -> None:
    """B 5 → tier 1, B 6 / 10 → tier 2, B 11 / 15 → tier 3, B 16 / 20 → tier 4, B 21 →
    tier 5 (the wheel overflows past 20, G-C10)."""
    cases = ((3, 1), (4, 2), (8, 2), (9, 3), (13, 3), (14, 4), (18, 4), (19, 5))
    for paradox, tier in cases:
        await table.store.redis.delete(sheet_key(table.chat.id))
        await table.say(ANNA, f"/set арете 1 парадокс {paradox}")
        mid = await cast(table, "/m 1 вульг свид", [10])
        table.rng = Dealt()  # tens: every Paradox die discharges
        await press(table, ANNA, mid, MagickAction.BACKLASH)
        assert f"Ступень {tier}" in plain(shown(table, mid)[0])


async def test_extend_an_ordinary_cast_into_a_ritual(table: Table) -> None:
    """«Продлить»: the cast's successes are the first of the ritual; its Paradox is kept and
    the ritual's end pays only the rest (a success's row again: nothing more)."""
    await table.say(ANNA, "/set арете 3 парадокс 0")
    mid = await cast(table, "/m 2 вульг", [10, 10, 3])
    text = shown(table, mid)[0]
    paid = int(re.search(r"Парадокс \+(\d+)", text).group(1))  # type: ignore[union-attr]
    await press(table, ANNA, mid, MagickAction.EXTEND, 0)
    await press(table, ANNA, mid, MagickAction.EXTEND, 5)
    text = plain(shown(table, mid)[0])
    assert "2/5" in text
    table.rng = Dealt([10, 10, 10])
    await press(table, ANNA, mid, MagickAction.NEXT_ROLL)
    text = plain(shown(table, mid)[0])
    assert "5/5" in text
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.paradox == paid  # the ritual's success row was paid with the first cast


async def test_the_storyteller_writes_another_mages_wheel(table: Table) -> None:
    table.session.admins.add(VERA.id)
    await table.say(ANNA, "/set арете 2")
    table.message_id += 1
    replied = Message(
        message_id=table.message_id,
        date=datetime.now(UTC),
        chat=table.chat,
        from_user=ANNA,
        text="…",
    )
    table.message_id += 1
    text = "/set квинтэссенция 6 парадокс 3"
    message = Message(
        message_id=table.message_id,
        date=datetime.now(UTC),
        chat=table.chat,
        from_user=VERA,
        text=text,
        entities=[MessageEntity(type="bot_command", offset=0, length=4)],
        reply_to_message=replied,
    )
    await table.feed(message=message)
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert (sheet.quintessence, sheet.paradox) == (6, 3)
    assert await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE) is None
