"""``/m`` through the Dispatcher: the Effect, its Quintessence and Paradox, and Backlash.

Outside contract: with Арете 3 and Квинтэссенция 5 on the sheet, ``/m 3 вульг свид кв 2``
rolls 3 dice at difficulty 6, says «Парадокс +4» (or «+8» on a botch), and /sheet then shows
Квинтэссенция 3 and Парадокс 4 (or 8).
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest

from handlers.magick.callbacks import MagickAction, MagickCallback
from rules.sheet import SheetSystem
from table.store import sheet_key
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Аня")
BORIS = player(2, "Борис")


def faces_of(text: str) -> list[int]:
    return [int(f) for f in re.sub(r"<[^>]+>", "", text.splitlines()[1]).split()]


async def test_the_outside_contract(table: Table) -> None:
    for seed in range(30):
        table.rng = random.Random(seed)
        chat = table.chat.id
        await table.store.redis.hdel(sheet_key(chat), f"u:{ANNA.id}:mage")
        await table.say(ANNA, "/set арете 3 квинтэссенция 5")
        await table.say(ANNA, "/m 3 вульг свид кв 2")
        said = table.session.sent[-1].text
        assert "сложность 6" in said, said
        assert len(faces_of(said)) == 3
        botch = "Провал" in said
        gained = 8 if botch else 4
        assert f"Парадокс +{gained}" in said
        await table.say(ANNA, "/sheet")
        sheet_text = re.sub(r"<[^>]+>", "", table.session.sent[-1].text)  # as Telegram shows it
        assert "Квинтэссенция 3" in sheet_text, sheet_text
        assert f"Парадокс {gained}" in sheet_text, sheet_text
        if botch:
            return
    # 30 casts without a botch are fine too: the success/failure branch was checked


async def test_the_wizard_shows_live_odds_and_casts_once(table: Table) -> None:
    await table.say(ANNA, "/set арете 4 квинтэссенция 2 сила воли 5")
    await table.say(ANNA, "/m")
    wizard = table.session.messages[-1]
    assert "Шанс успеха" in (wizard.text or "")
    mid = wizard.message_id

    def current() -> tuple[str, object]:
        text, markup = wizard.text or "", wizard.reply_markup
        for edit in table.session.edits:
            if edit.message_id == mid:
                text, markup = edit.text, edit.reply_markup
        return text, markup

    async def press(user: object, action: MagickAction, x: int | None = None) -> str:
        _text, markup = current()
        for button in buttons(markup):
            parsed = MagickCallback.unpack(button.callback_data or "")
            if parsed.a is action and (x is None or parsed.x == x):
                await table.tap(user, button.callback_data or "", mid)  # type: ignore[arg-type]
                return button.callback_data or ""
        raise AssertionError(f"no {action} {x}")

    await press(ANNA, MagickAction.LEVEL, 2)
    await press(ANNA, MagickAction.VULGAR)
    text, _markup = current()
    assert "сложность 6" in text  # vulgar, no witnesses: 2 + 4
    await press(ANNA, MagickAction.QUINTESSENCE, 2)
    text, _markup = current()
    assert "сложность 4" in text
    await press(BORIS, MagickAction.WILLPOWER)
    assert "чужой" in (table.session.answers[-1].text or "")
    await press(ANNA, MagickAction.WILLPOWER)
    data = await press(ANNA, MagickAction.CAST)
    await asyncio.gather(table.tap(ANNA, data, mid), table.tap(ANNA, data, mid))
    text, markup = current()
    assert "Парадокс +2" in text
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.quintessence == 0  # spent once, for all the presses
    assert sheet.willpower_current == 4
    assert sheet.paradox == 2
    await press(ANNA, MagickAction.BACKLASH)
    text, markup = current()
    assert "Отдача" in text
    assert all("Отдача" not in b.text for b in buttons(markup))  # once only
    after = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert after is not None
    assert after.paradox <= 2


async def test_refusals_change_nothing(table: Table) -> None:
    await table.say(ANNA, "/m 3")
    assert "Арете" in table.session.sent[-1].text
    await table.say(ANNA, "/set арете 2 квинтэссенция 1")
    await table.say(ANNA, "/m 3 кв 3")
    assert "Квинтэссенции" in table.session.sent[-1].text
    await table.say(ANNA, "/m дракон 3")
    assert "не Сфера" in table.session.sent[-1].text
    await table.say(ANNA, "/m материя")  # a Sphere the sheet lacks: not cast
    assert "/set материя" in table.session.sent[-1].text
    await table.say(ANNA, "/m 9")
    assert "Пример" in table.session.sent[-1].text
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert (sheet.quintessence, sheet.paradox) == (1, 0)


async def test_sphere_cards_in_the_readers_language(table: Table) -> None:
    from handlers.magick.callbacks import SphereCallback

    await table.say(ANNA, "/sphere")
    listing = table.session.messages[-1]
    labels = [b.text for b in buttons(listing.reply_markup)]
    assert "Материя" in labels
    assert len(labels) == 9
    await table.say(ANNA, "/sphere материя 3")
    card = table.session.sent[-1].text
    assert "Материя" in card
    assert "●●●" in card
    assert "Посвященный" in card
    await table.tap(ANNA, SphereCallback(s="matter", n=0).pack(), listing.message_id)
    assert "●●●●● " in table.session.edits[-1].text  # the five levels, one line each
    for forged in ("sp:dragon:1", "sp:matter:9", "sp::3", "sp:matter:-1"):
        await table.tap(ANNA, forged, listing.message_id)
        assert table.session.answers[-1].show_alert
    await table.say(player(3, "Eve", "en"), "/lang en")
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/lang en")
    await table.say(ANNA, "/sphere matter 5")
    assert "Matter" in table.session.sent[-1].text
    await table.say(ANNA, "/sphere dragon")
    assert "not a Sphere" in table.session.sent[-1].text


async def test_successes_are_spent_on_the_helper_with_the_tables_one_tap_away(
    table: Table,
) -> None:
    await table.say(ANNA, "/set арете 5 силы 2")
    for seed in range(40):
        table.rng = random.Random(seed)
        await table.say(ANNA, "/m силы 2")
        cast = table.session.messages[-1]
        if re.search(r"<b>([2-9]|\d\d) успех", cast.text or ""):  # «<b>2 успеха</b>»
            break
    else:
        raise AssertionError("no cast with two successes or more")
    mid = cast.message_id

    def current() -> tuple[str, object]:
        text, markup = cast.text or "", cast.reply_markup
        for edit in table.session.edits:
            if edit.message_id == mid:
                text, markup = edit.text, edit.reply_markup
        return text, markup

    async def press(action: MagickAction, x: int | None = None, user: object = ANNA) -> None:
        _text, markup = current()
        for button in buttons(markup):
            parsed = MagickCallback.unpack(button.callback_data or "")
            if parsed.a is action and (x is None or parsed.x == x):
                await table.tap(user, button.callback_data or "", mid)  # type: ignore[arg-type]
                return
        raise AssertionError(f"no {action} {x}")

    await press(MagickAction.PANEL, 1)
    await press(MagickAction.ADD, 0)  # damage
    await press(MagickAction.ADD, 1)  # duration
    text, _markup = current()
    assert "урон: 1 → 3 уровня здоровья" in text  # Forces: 1 + 2 per success (§C.7)
    assert "длительность: 1 → сцена" in text
    assert "свободно" in text
    for _ in range(30):  # more than the successes: refused, nothing changes
        await press(MagickAction.ADD, 4)
    assert "распределены" in (table.session.answers[-1].text or "")
    await press(MagickAction.PANEL, 0)
    await press(MagickAction.PANEL, 2)
    text, _markup = current()
    assert "в пределах взгляда" in text
    await press(MagickAction.PANEL, 0)
    await press(MagickAction.PANEL, 3)
    text, _markup = current()
    assert "1000 лет и больше" in text


async def test_a_ritual_gathers_successes_and_pays_paradox_at_its_end(table: Table) -> None:
    """§C.10: Paradox when the ritual ends — the table once at the target; on a botch the
    table plus one per roll made (AMB-C11); given up, the failure row."""
    seen = set()
    for seed in range(60):
        table.rng = random.Random(seed)
        chat = table.chat.id
        await table.store.redis.hdel(sheet_key(chat), f"u:{ANNA.id}:mage")
        await table.say(ANNA, "/set арете 3")
        await table.say(ANNA, "/m 1 вульг свид цель 4")
        ritual = table.session.messages[-1]
        mid, rolls = ritual.message_id, 1

        def current(message: Any = ritual) -> tuple[str, Any]:
            text, markup = message.text or "", message.reply_markup
            for edit in table.session.edits:
                if edit.message_id == message.message_id:
                    text, markup = edit.text, edit.reply_markup
            return text, markup

        text, markup = current()
        give_up = seed % 3 == 0
        while "Следующий бросок" in " ".join(b.text for b in buttons(markup)) if markup else False:
            sheet = await table.store.load_sheet(chat, ANNA.id, SheetSystem.MAGE)
            assert sheet is not None
            assert sheet.paradox == 0  # nothing until the ritual ends
            wanted = MagickAction.ABANDON if give_up else MagickAction.NEXT_ROLL
            data = next(
                b.callback_data or ""
                for b in buttons(markup)
                if MagickCallback.unpack(b.callback_data or "").a is wanted
            )
            await table.tap(ANNA, data, mid)
            rolls += 0 if give_up else 1
            text, markup = current()
        sheet = await table.store.load_sheet(chat, ANNA.id, SheetSystem.MAGE)
        assert sheet is not None
        if "прерван" in text:
            assert sheet.paradox == 1 + 1 * 1  # «успешный/неудачный»: 1 at once + 1 per level
            seen.add("abandoned")
        elif "Провал" in text:
            assert sheet.paradox == 2 + 2 * 1 + rolls
            seen.add("botch")
        else:
            assert "Ритуал завершён" in text
            assert sheet.paradox == 1 + 1 * 1
            seen.add("complete")
        if len(seen) == 3:
            return
    assert "complete" in seen


async def test_crossing_the_barrier_hurts_for_each_failed_roll(table: Table) -> None:
    from handlers.magick.callbacks import BarrierAction, BarrierCallback

    await table.say(ANNA, "/barrier")
    assert "Арете" in table.session.sent[-1].text  # no sheet yet
    await table.say(ANNA, "/set арете 2")
    await table.say(ANNA, "/barrier")
    panel = table.session.messages[-1]
    assert "сложность 7" in (panel.text or "")  # most cities: 7, four successes
    mid = panel.message_id

    def current() -> tuple[str, Any]:
        text, markup = panel.text or "", panel.reply_markup
        for edit in table.session.edits:
            if edit.message_id == mid:
                text, markup = edit.text, edit.reply_markup
        return text, markup

    async def press(action: BarrierAction, x: int | None = None, user: Any = ANNA) -> None:
        _text, markup = current()
        for button in buttons(markup):
            parsed = BarrierCallback.unpack(button.callback_data or "")
            if parsed.a is action and (x is None or parsed.x == x):
                await table.tap(user, button.callback_data or "", mid)
                return
        raise AssertionError(f"no {action} {x}")

    await press(BarrierAction.PLACE, 5)  # a Technocracy lab: 9, five and more
    text, _markup = current()
    assert "сложность 9" in text
    await press(BarrierAction.ROLL, user=BORIS)
    assert table.session.answers[-1].show_alert  # not Борис's crossing
    for _ in range(4):
        await press(BarrierAction.ROLL)
    text, _markup = current()
    failed = len(re.findall(r"— (Неудача|Провал)", text))
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert len(sheet.health.boxes) == failed  # one unsoakable level per failed roll
    await press(BarrierAction.STOP)
    text, markup = current()
    assert "по эту сторону" in text
    assert markup is None


# docs/rules.md §E.2 G-C01–G-C04 and G-C09 through the chat: the line typed, the difficulty and
# threshold the cast shows, and the Paradox it earns without and with a botch.
G_C = [
    ("/m 3", 6, 0, (0, 3)),  # G-C01 natural; G-C09 (3, natural, success) 0
    ("/m 3 вульг", 7, 0, (3, 4)),  # G-C01 vulgar, no witnesses
    ("/m 3 вульг свид", 8, 0, (4, 8)),  # G-C01; G-C09 4 / 8
    ("/m 3 свид", 6, 0, (0, 3)),  # G-C01 natural with witnesses [P]
    ("/m 3 вульг свид мод -1 кв 3", 5, 0, (4, 8)),  # G-C02: −4 capped at −3, 1 Q wasted
    ("/m 4 вульг свид мод 2", 9, 2, (5, 10)),  # G-C03
    ("/m 5 вульг свид мод 1", 10, 1, (6, 12)),  # G-C03
    ("/m 5 вульг свид", 10, 0, (6, 12)),  # G-C03
    ("/m 1 мод -3", 3, 0, (0, 1)),  # G-C04: clamped at 3
    ("/m 2 мод -1 кв 1", 3, 0, (0, 2)),  # G-C04; G-C09 (2, natural, botch) 2
    ("/m 2 вульг", 6, 0, (2, 3)),  # G-C09 (2, vulgar, no witnesses) 2 / 3
]


@pytest.mark.parametrize(("line", "difficulty", "threshold", "paradox"), G_C)
async def test_the_magick_vectors_through_the_chat(
    table: Table, line: str, difficulty: int, threshold: int, paradox: tuple[int, int]
) -> None:
    chat = table.chat.id
    for seed in range(3):
        table.rng = random.Random(seed)
        await table.store.redis.hdel(sheet_key(chat), f"u:{ANNA.id}:mage")
        await table.say(ANNA, "/set арете 5 квинтэссенция 3")
        await table.say(ANNA, line)
        said = table.session.sent[-1].text
        assert f"сложность {difficulty}" in said, said
        assert (f"пороговое значение {threshold}" in said) == bool(threshold), said
        gained = paradox[1] if "Провал" in said else paradox[0]
        assert (f"Парадокс +{gained}" in said) == bool(gained), said
        if "кв 3" in line:
            assert "ничего не снизила" in said  # G-C02 wasted_q = 1


async def test_paradox_burns_quintessence_where_they_meet_and_english_reads_it(
    table: Table,
) -> None:
    """G-C10: Q 15 on a 20-box wheel, then Paradox: it takes the boxes it needs."""
    await table.say(player(5, "Eve", "en"), "/lang en")
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/lang en")
    for seed in range(20):
        table.rng = random.Random(seed)
        chat = table.chat.id
        await table.store.redis.hdel(sheet_key(chat), f"u:{ANNA.id}:mage")
        await table.say(ANNA, "/set arete 3 quintessence 15")
        await table.say(ANNA, "/m 3 vulgar witnesses")
        said = table.session.sent[-1].text
        assert "difficulty 8" in said
        gained = 8 if "Botch" in said else 4
        assert f"Paradox +{gained}" in said
        sheet = await table.store.load_sheet(chat, ANNA.id, SheetSystem.MAGE)
        assert sheet is not None
        assert (sheet.quintessence, sheet.paradox) == (min(15, 20 - gained), gained)
        if gained == 8:
            assert "Quintessence 12 · Paradox 8" in said
            return


async def test_the_tables_modifiers_step_through_their_ranges_under_the_cap(table: Table) -> None:
    """§C.3 rows as toggles: G-C02 again on buttons — near a Node −2, distracted +1 and
    three Quintessence make −4, capped at −3: difficulty 5, one Quintessence wasted."""
    await table.say(ANNA, "/set арете 4 квинтэссенция 3")
    await table.say(ANNA, "/m")
    wizard = table.session.messages[-1]
    mid = wizard.message_id

    def current() -> tuple[str, Any]:
        text, markup = wizard.text or "", wizard.reply_markup
        for edit in table.session.edits:
            if edit.message_id == mid:
                text, markup = edit.text, edit.reply_markup
        return text, markup

    async def press(action: MagickAction, x: int | None = None) -> None:
        _text, markup = current()
        for button in buttons(markup):
            parsed = MagickCallback.unpack(button.callback_data or "")
            if parsed.a is action and (x is None or parsed.x == x):
                await table.tap(ANNA, button.callback_data or "", mid)
                return
        raise AssertionError(f"no {action} {x}")

    from handlers.magick.flow import NAMED_MODIFIERS
    from rules.magick import Modifier

    await press(MagickAction.LEVEL, 3)
    await press(MagickAction.VULGAR)
    await press(MagickAction.WITNESSES)
    await press(MagickAction.MODIFIERS, 1)
    node = NAMED_MODIFIERS.index(Modifier.NODE)
    await press(MagickAction.NAMED, node)  # −1
    await press(MagickAction.NAMED, node)  # −2
    await press(MagickAction.NAMED, NAMED_MODIFIERS.index(Modifier.DISTRACTED))  # +1
    await press(MagickAction.QUINTESSENCE, 3)
    text, _markup = current()
    assert "сложность 5" in text, text
    assert "ничего не снизит" in text
    assert "рядом с Узлом −2" in text
    await press(MagickAction.NAMED, NAMED_MODIFIERS.index(Modifier.UNNEEDED_FOCUS))
    await press(MagickAction.NAMED, NAMED_MODIFIERS.index(Modifier.MISSING_FOCUS))
    assert "не сочетаются" in (table.session.answers[-1].text or "")


@pytest.mark.parametrize(
    ("place", "difficulty", "successes"),
    [(3, 7, "4"), (0, 3, "1"), (5, 9, "5+")],  # G-C13: most cities, a Node, a lab
)
async def test_the_barrier_table_through_the_chat(
    table: Table, place: int, difficulty: int, successes: str
) -> None:
    from handlers.magick.callbacks import BarrierAction, BarrierCallback

    await table.say(ANNA, "/set арете 3")
    await table.say(ANNA, "/barrier")
    panel = table.session.messages[-1]
    data = next(
        b.callback_data or ""
        for b in buttons(panel.reply_markup)
        if BarrierCallback.unpack(b.callback_data or "").a is BarrierAction.PLACE
        and BarrierCallback.unpack(b.callback_data or "").x == place
    )
    await table.tap(ANNA, data, panel.message_id)
    text = table.session.edits[-1].text
    assert f"сложность {difficulty}" in text
    assert f"нужно успехов: {successes}" in text


def test_the_range_tables_as_the_helper_shows_them(i18n: Any) -> None:
    """G-C14/G-C15: the rows the helper's tables print."""
    from handlers.magick import view

    with i18n.context(), i18n.use_locale("ru"):
        correspondence = view.correspondence_table()
        time = view.time_table()
    assert "3: знакомое место · имущество или просто друг" in correspondence
    assert "6+: любое место на Земле · ничего не требуется" in correspondence
    assert "4: 50 лет" in time
    assert "10+: 1000 лет и больше" in time


def test_the_backlash_offers_the_flaw_of_its_tier(i18n: Any) -> None:
    """§C.13 beside §C.12: the flaw row of the same tier, for the Storyteller's choice."""
    from handlers.magick import view

    with i18n.context(), i18n.use_locale("ru"):
        assert "средний, долгий, +1…2 к сложности" in view.flaw_line(3)
        assert "привлекает внимание" in view.flaw_line(4)
        assert "может остаться навсегда" in view.flaw_line(5)
        assert view.flaw_line(0) == ""


async def test_a_name_as_long_as_telegram_allows_is_quoted_short(table: Table) -> None:
    """A refusal quotes a few words back, never the whole 4000-letter line (Telegram's 4096)."""
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/set арете 3")
    await table.say(ANNA, "/init 5")
    long_name = "я" * 4000
    for line in (
        f"/sphere {long_name}",
        f"/m {long_name}",
        f"/init npc {long_name}",
        f"/atk npc {long_name}",
    ):
        await table.say(ANNA, line)
        assert len(table.session.sent[-1].text) < 300, line[:20]


async def test_barrier_with_no_arete_dice_left_answers_and_opens_nothing(table: Table) -> None:
    """§C.15: Arete less wounds at 0 dice: a clear answer, no crossing opened."""
    await table.say(ANNA, "/set арете 1")
    await table.say(ANNA, "/dmg 4 л")  # Раны: −2 leaves Arete 1 no die
    opened = len(table.session.messages)
    await table.say(ANNA, "/barrier")
    answer = table.session.sent[-1]
    assert "Барьер не пересечь, пока раны не залечены" in answer.text
    assert answer.reply_markup is None
    assert len(table.session.messages) == opened + 1
