"""What a mage needs to see, and what the rules refuse, through the Dispatcher (§C).

Every number a player needs is shown: the Backlash's damage dice, /barrier's header that
matches the dice rolled, the wound penalty on /m and /barrier. A Sphere the sheet lacks (or
a level above the sheet's) is refused; Quintessence that cannot lower a difficulty already at
its floor is not taken.
"""

from __future__ import annotations

import random
import re
from typing import Any

from handlers.magick.callbacks import BarrierAction, BarrierCallback, MagickAction, MagickCallback
from rules.sheet import SheetSystem
from table.store import sheet_key
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Аня")


def plain(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text)


def current(table: Table, mid: int) -> tuple[str, Any]:
    message = next(m for m in table.session.messages if m.message_id == mid)
    text, markup = message.text or "", message.reply_markup
    for edit in table.session.edits:
        if edit.message_id == mid:
            text, markup = edit.text, edit.reply_markup
    return text, markup


async def sheet_of(table: Table) -> Any:
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    return sheet


async def test_a_backlash_shows_its_damage_dice(table: Table) -> None:
    for seed in range(60):
        table.rng = random.Random(seed)
        await table.store.redis.hdel(sheet_key(table.chat.id), f"u:{ANNA.id}:mage")
        await table.say(ANNA, "/set арете 3 выносливость 2 парадокс 12")
        await table.say(ANNA, "/m 1 вульг")  # a vulgar Effect earns Paradox: «Отдача» shows
        mid = table.session.messages[-1].message_id
        _text, markup = current(table, mid)
        data = next(
            b.callback_data
            for b in buttons(markup)
            if MagickCallback.unpack(b.callback_data or "").a is MagickAction.BACKLASH
        )
        await table.tap(ANNA, data or "", mid)
        text = plain(current(table, mid)[0])
        found = re.search(r"Урон \(\w+\): (\d+)к10, сложность (\d+): ([\d ]+) — (\d+) успех", text)
        if found is None:
            continue
        dice, faces = int(found.group(1)), found.group(3).split()
        assert len(faces) == dice
        hits = sum(1 for f in faces if int(f) >= int(found.group(2)))
        assert hits == int(found.group(4))
        soak = re.search(r"Поглощение: (\d+)к10, сложность \d+: ([\d ]+|—) —", text)
        if soak is not None and soak.group(2) != "—":
            assert len(soak.group(2).split()) == int(soak.group(1))
        return
    raise AssertionError("no Backlash with damage in 60 seeds")


async def test_the_barriers_header_says_the_dice_it_rolls_with_the_wounds(table: Table) -> None:
    await table.say(ANNA, "/set арете 3")
    await table.say(ANNA, "/dmg 2 л")  # Ранен: −1
    await table.say(ANNA, "/barrier")
    panel = table.session.messages[-1]
    text = plain(panel.text or "")
    assert "Арете 2к10 (-1 за раны)" in text or "Арете 2к10 (−1 за раны)" in text
    data = next(
        b.callback_data
        for b in buttons(panel.reply_markup)
        if BarrierCallback.unpack(b.callback_data or "").a is BarrierAction.ROLL
    )
    await table.tap(ANNA, data or "", panel.message_id)
    text = plain(current(table, panel.message_id)[0])
    rolled = re.search(r"^1\. ([\d ]+) —", text, re.M)
    assert rolled is not None
    assert len(rolled.group(1).split()) == 2


async def test_a_cast_shows_the_wound_penalty_it_rolled_with(table: Table) -> None:
    await table.say(ANNA, "/set арете 3")
    await table.say(ANNA, "/dmg 2 л")
    await table.say(ANNA, "/m 1")
    said = plain(table.session.sent[-1].text)
    assert re.search(r"Арете 2к10 \([-−]1 за раны\), сложность 4", said), said
    assert len(said.splitlines()[1].split()) == 2


async def test_a_sphere_the_sheet_lacks_or_a_level_above_it_is_refused(table: Table) -> None:
    await table.say(ANNA, "/set арете 3 материя 1 квинтэссенция 3")
    before = await sheet_of(table)
    sent = len(table.session.sent)
    await table.say(ANNA, "/m материя 3 кв 1")
    said = table.session.sent[-1].text
    assert "Сфера «материя» 1" in said
    assert "/m материя 1" in said
    await table.say(ANNA, "/m силы 2 вульг")
    said = table.session.sent[-1].text
    assert "нет Сферы «силы»" in said
    assert "/set силы 2" in said
    assert len(table.session.sent) == sent + 2  # two refusals, no cast
    assert await sheet_of(table) == before
    assert await table.store.recent_rolls(table.chat.id) == []
    await table.say(ANNA, "/m материя 1")
    assert "сложность 4" in plain(table.session.sent[-1].text)  # what the sheet reaches, cast


async def test_quintessence_at_the_difficulty_floor_is_not_taken(table: Table) -> None:
    await table.say(ANNA, "/set арете 3 квинтэссенция 5")
    await table.say(ANNA, "/m 1 кв 2")  # coincidental level 1: 4, and 3 is the floor
    said = plain(table.session.sent[-1].text)
    assert "сложность 3" in said
    assert "Квинтэссенция (1) ничего бы не снизила: сложность не бывает ниже 3" in said
    sheet = await sheet_of(table)
    assert sheet.quintessence == 4  # one point lowered the difficulty, one was kept


async def test_the_wizard_warns_before_the_quintessence_is_asked_for(table: Table) -> None:
    await table.say(ANNA, "/set арете 3 квинтэссенция 3")
    await table.say(ANNA, "/m")
    mid = table.session.messages[-1].message_id

    async def press(action: MagickAction, x: int) -> None:
        _text, markup = current(table, mid)
        for button in buttons(markup):
            parsed = MagickCallback.unpack(button.callback_data or "")
            if parsed.a is action and parsed.x == x:
                await table.tap(ANNA, button.callback_data or "", mid)
                return
        raise AssertionError(f"no {action} {x}")

    await press(MagickAction.LEVEL, 1)
    await press(MagickAction.QUINTESSENCE, 3)
    text = plain(current(table, mid)[0])
    assert "Квинтэссенция (2) ничего бы не снизила" in text
