"""Rolls by trait names from the player's sheet, and Willpower spent from it.

docs/product.md §2: «/r ловкость+драка 8 from the sheet»; a name may be Russian or English, any
case, an unambiguous prefix; an unknown or ambiguous one answers with the candidates. S0
«Вы можете потратить один пункт Силы Воли…» (§A.7): the point leaves the sheet with the roll,
and at 0 the Willpower toggle is gone and «св» is refused.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from aiogram.types import Message, MessageEntity, User

from handlers.roll.callbacks import RollAction, RollCallback
from rules import d10, profiles
from rules.sheet import Ability, Attribute, Sheet, SheetSystem, catalogue, set_trait, set_willpower
from table.store import log_key
from table.traits import TraitNameError, resolve
from tests.handlers.conftest import Table, buttons, flows, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
EMMA = player(4, "Emma", "en")
MAGE = profiles.get("mage")


async def give_sheet(table: Table, user_id: int, wp: tuple[int, int] | None = (3, 5)) -> None:
    def fill(sheet: Sheet) -> Sheet:
        sheet = set_trait(sheet, Attribute.DEXTERITY, 3)
        sheet = set_trait(sheet, Ability.BRAWL, 2)
        if wp is not None:
            sheet = set_willpower(sheet, wp[1], wp[0])
        return sheet

    await table.store.update_sheet(table.chat.id, user_id, SheetSystem.MAGE, fill)


def faces(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", text.splitlines()[1])]


@pytest.mark.parametrize("typed", ["ловк+драка 7", "Ловкость + Драка 7", "dex+brawl 7"])
async def test_pool_comes_from_the_sheet(table: Table, typed: str) -> None:
    await give_sheet(table, ANNA.id)
    await table.say(ANNA, "/r " + typed)
    text = table.session.sent[-1].text
    assert text.startswith("🎲 Anna: Ловкость 3 + Драка 2 → 5к10, сложность 7")
    shown = faces(text)
    assert len(shown) == 5
    result = d10.resolve(shown, 7, MAGE)
    [entry] = await table.store.recent_rolls(table.chat.id)
    assert entry["pool"] == 5
    assert entry["successes"] == result.successes


async def test_english_names_and_words(table: Table) -> None:
    await give_sheet(table, EMMA.id)
    await table.say(EMMA, "/r Dexterity+Brawl 6")
    assert table.session.sent[-1].text.startswith(
        "🎲 Emma: Dexterity 3 + Brawl 2 → 5d10, difficulty 6"
    )


async def test_no_sheet_is_a_hint_to_fill_it(table: Table) -> None:
    await table.say(ANNA, "/r ловк+драка 7")
    text = table.session.sent[-1].text
    assert "/set" in text
    assert "/r 7 6" in text
    assert await flows(table.store) == {}
    assert await table.store.redis.llen(log_key(table.chat.id)) == 0


async def test_unknown_and_ambiguous_names_answer_with_candidates(table: Table) -> None:
    await give_sheet(table, ANNA.id)
    prefix = "ма"
    with pytest.raises(TraitNameError) as caught:
        resolve(prefix, SheetSystem.MAGE)
    assert len(caught.value.candidates) >= 2
    await table.say(ANNA, f"/r {prefix}+драка 7")
    text = table.session.sent[-1].text
    assert f"«{prefix}»" in text
    assert "Манипуляция" in text or "Манипулирование" in text
    await table.say(ANNA, "/r ловк+драка+бдит 7")
    assert "не больше 2 черт" in table.session.sent[-1].text
    assert await table.store.redis.llen(log_key(table.chat.id)) == 0


async def test_willpower_is_spent_from_the_sheet_and_refused_at_zero(table: Table) -> None:
    await give_sheet(table, ANNA.id, wp=(1, 5))
    await table.say(ANNA, "/r ловк+драка 7 св")
    text = table.session.sent[-1].text
    assert "Сила Воли" in text.splitlines()[0]
    assert "Сила Воли: осталось 0 из 5" in text
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.willpower_current == 0
    logged = await table.store.redis.llen(log_key(table.chat.id))
    await table.say(ANNA, "/r 5 6 св")
    assert "не осталось Силы Воли (0 из 5)" in table.session.sent[-1].text
    assert await table.store.redis.llen(log_key(table.chat.id)) == logged
    await table.say(ANNA, "/r")  # the wizard has no Willpower toggle now
    labels = [b.text for b in buttons(table.session.sent[-1].reply_markup)]
    assert not any("Сила Воли" in label for label in labels)
    wizard = table.session.messages[-1].message_id
    forged = RollCallback(
        f=RollCallback.unpack(
            buttons(table.session.sent[-1].reply_markup)[0].callback_data or ""
        ).f,
        v=0,
        a=RollAction.WILLPOWER,
    ).pack()
    await table.tap(ANNA, forged, wizard)
    assert table.session.answers[-1].show_alert is True


async def test_willpower_without_a_tracked_sheet_still_rolls(table: Table) -> None:
    await give_sheet(table, ANNA.id, wp=None)
    await table.say(ANNA, "/r 5 6 св")
    text = table.session.sent[-1].text
    assert "Сила Воли" in text.splitlines()[0]
    assert "осталось" not in text


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("/ext ловк+драка 6 10", "Ловкость 3 + Драка 2 → 5к10, сложность 6 (стандартно) · цель 10"),
        ("/team ловк+драка 6 цель 4", "Anna: Ловкость 3 + Драка 2 → 5к10 · "),
        ("/vs ловк+драка 6 @bob", "Anna: Ловкость 3 + Драка 2 → 5к10, сложность 6"),
        ("/multi ловк+драка/7 6", "1. Ловкость 3 + Драка 2: 5 → 3к10, сложность 7"),
    ],
)
async def test_table_rolls_take_their_pool_from_the_sheet(
    table: Table, command: str, shown: str
) -> None:
    await give_sheet(table, ANNA.id)
    await table.say(ANNA, command)
    assert shown in table.session.sent[-1].text
    if not command.startswith("/multi"):  # /multi rolls on a tap
        [entry] = await table.store.recent_rolls(table.chat.id)
        assert len(entry["faces"]) == 5


@pytest.mark.parametrize(
    "command", ["/ext ловк+драка 6 10", "/team ловк 6", "/vs ловк 6 @bob", "/multi ловк 6"]
)
async def test_table_rolls_without_a_sheet_hint_at_set(table: Table, command: str) -> None:
    await table.say(ANNA, command)
    assert "/set" in table.session.sent[-1].text
    assert await flows(table.store) == {}


async def reply_to_bot(table: Table, author: User, text: str, sent: Message) -> None:
    """``author`` answers the bot's message ``sent`` (with its keyboard) by ``text``."""
    replied = Message(
        message_id=sent.message_id,
        date=datetime.now(UTC),
        chat=table.chat,
        from_user=User(id=123456, is_bot=True, first_name="Dice"),
        text=sent.text,
        reply_markup=sent.reply_markup,
    )
    table.message_id += 1
    message = Message(
        message_id=table.message_id,
        date=datetime.now(UTC),
        chat=table.chat,
        from_user=author,
        text=text,
        reply_to_message=replied,
        entities=[MessageEntity(type="bot_command", offset=0, length=len(text.split()[0]))],
    )
    await table.feed(message=message)


async def test_the_challenged_player_answers_with_a_pool_from_their_sheet(table: Table) -> None:
    """«they … roll their own pool» — typed by trait names in reply."""
    boris = player(2, "Boris")
    await give_sheet(table, boris.id)
    await table.say(ANNA, "/vs 4 6 @someone")
    first = table.session.messages[-1]
    await reply_to_bot(table, ANNA, "/vs ловк+драка 7", first)
    assert table.session.sent[-1].text == "Этот вызов адресован не вам."
    await table.say(ANNA, "/vs 4 6 нпс")  # a new challenge, this time to the Storyteller
    second = table.session.messages[-1]
    await reply_to_bot(table, boris, "/vs ловк+драка 7", second)
    assert table.session.sent[-1].text == "Этот вызов адресован не вам."
    table.session.admins.add(boris.id)
    await reply_to_bot(table, boris, "/vs ловк+драка 7", second)
    assert table.session.edits, table.session.sent[-1].text
    text = table.session.edits[-1].text
    assert "НПС: Ловкость 3 + Драка 2 → 5к10, сложность 7" in text
    assert ("Побеждает" in text) or ("Ничья" in text)
    assert table.session.edits[-1].message_id == second.message_id
    log = await table.store.recent_rolls(table.chat.id)
    assert [len(e["faces"]) for e in log] == [5, 4, 4]


async def test_the_wizard_spends_willpower_off_the_sheet(table: Table) -> None:
    await give_sheet(table, ANNA.id, wp=(2, 5))
    await table.say(ANNA, "/r")
    wizard = table.session.messages[-1].message_id

    def data(action: RollAction, x: int = 0) -> str:
        edits = table.session.edits
        markup = edits[-1].reply_markup if edits else table.session.sent[-1].reply_markup
        for button in buttons(markup):
            parsed = RollCallback.unpack(button.callback_data or "")
            if parsed.a is action and (x == 0 or parsed.x == x):
                return button.callback_data or ""
        raise AssertionError(action)

    shown = [b.text for b in buttons(table.session.sent[-1].reply_markup)]
    assert shown[:2] == ["Ловкость 3", "Драка 2"]  # the sheet's traits, not numbers
    dexterity = catalogue(SheetSystem.MAGE).index(Attribute.DEXTERITY)
    brawl = catalogue(SheetSystem.MAGE).index(Ability.BRAWL)
    await table.tap(ANNA, data(RollAction.TRAIT, dexterity), wizard)
    await table.tap(ANNA, data(RollAction.TRAIT, brawl), wizard)
    assert "Ловкость 3 + Драка 2 → 5к10, сложность 6" in table.session.edits[-1].text
    await table.tap(ANNA, data(RollAction.WILLPOWER), wizard)
    await table.tap(ANNA, data(RollAction.ROLL), wizard)
    result = table.session.edits[-1].text
    assert "Ловкость 3 + Драка 2 → 5к10" in result
    assert "Сила Воли: осталось 1 из 5" in result
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.willpower_current == 1


async def test_a_missing_sheet_gets_one_example_not_two(table: Table) -> None:
    """The refusal already says what to type (/set …); the command's own example would be a
    second «Пример:» under one error."""
    for line in ("/r ловк+драка 6", "/team ловк+драка 6", "/ext ловк+драка 6 5"):
        await table.say(player(9, "Глеб"), line)
        said = table.session.sent[-1].text
        assert said.count("Пример:") == 1, said
        assert "/set" in said


async def test_a_name_of_several_words_as_the_sheet_prints_it(table: Table) -> None:
    """«/r сила воли 8»: the trait as the sheet writes it, space and all."""
    await table.say(player(8, "Ира"), "/set сила воли 5 ловкость 2")
    await table.say(player(8, "Ира"), "/r сила воли 8")
    said = table.session.sent[-1].text
    assert "Сила Воли 5 → 5к10, сложность 8" in said, said
    await table.say(player(8, "Ира"), "/r сила воли + ловкость 7")
    assert "Сила Воли 5 + Ловкость 2" in table.session.sent[-1].text


async def test_dice_added_or_taken_on_any_pool(table: Table) -> None:
    """«ловк+драка-1», «+2» after a typed pool, «+1к»: the result shows the sum; a bare «+2»
    is never a threshold (that keeps its word: пор2, t2)."""
    ira = player(8, "Ира")
    await table.say(ira, "/set ловкость 3 драка 2")
    await table.say(ira, "/r ловк+драка-1 6")
    assert "Ловкость 3 + Драка 2 − 1 → 4к10, сложность 6" in table.session.sent[-1].text
    await table.say(ira, "/r ловк+драка 6 +1к")
    assert "Ловкость 3 + Драка 2 + 1 → 6к10" in table.session.sent[-1].text
    await table.say(ira, "/r 7 6 +2")
    said = table.session.sent[-1].text
    assert "7 + 2 → 9к10, сложность 6" in said
    assert "пороговое" not in said
    await table.say(ira, "/r 2 6 -3")
    assert "кубиков не осталось" in table.session.sent[-1].text.casefold()


def wizard_data(table: Table, action: RollAction, x: int | None = None) -> str:
    edits = table.session.edits
    markup = edits[-1].reply_markup if edits else table.session.sent[-1].reply_markup
    for button in buttons(markup):
        parsed = RollCallback.unpack(button.callback_data or "")
        if parsed.a is action and (x is None or parsed.x == x):
            return button.callback_data or ""
    raise AssertionError(action)


async def test_a_recent_pool_with_willpower_in_three_taps(table: Table) -> None:
    """docs/product.md's two-tap bar: after /r, the pool rolled before, Willpower, «Бросить»."""
    await give_sheet(table, ANNA.id, wp=(3, 5))
    await table.say(ANNA, "/r ловк+драка 7")
    await table.say(ANNA, "/r")
    opened = table.session.sent[-1]
    assert buttons(opened.reply_markup)[0].text == "⭐ Ловкость + Драка"
    wizard = table.session.messages[-1].message_id
    await table.tap(ANNA, wizard_data(table, RollAction.RECENT, 0), wizard)
    await table.tap(ANNA, wizard_data(table, RollAction.WILLPOWER), wizard)
    await table.tap(ANNA, wizard_data(table, RollAction.ROLL), wizard)
    result = table.session.edits[-1].text
    assert "Ловкость 3 + Драка 2 → 5к10" in result
    assert "Сила Воли: осталось 2 из 5" in result


async def test_the_wizard_adds_dice_and_feels_the_wounds(table: Table) -> None:
    await give_sheet(table, ANNA.id, wp=None)
    await table.say(ANNA, "/dmg 2 л")
    await table.say(ANNA, "/r")
    wizard = table.session.messages[-1].message_id
    dexterity = catalogue(SheetSystem.MAGE).index(Attribute.DEXTERITY)
    await table.tap(ANNA, wizard_data(table, RollAction.TRAIT, dexterity), wizard)
    await table.tap(ANNA, wizard_data(table, RollAction.MODIFIER, 10 + 2), wizard)
    text = table.session.edits[-1].text
    assert "Ловкость 3 + 2" in text
    assert "1 за раны" in text
    assert "→ 4к10" in text
    await table.tap(ANNA, wizard_data(table, RollAction.ROLL), wizard)
    assert len(faces(table.session.edits[-1].text)) == 4


async def test_the_storyteller_rolls_an_npc_sheet_by_name(table: Table) -> None:
    table.session.admins.add(BORIS.id)
    await table.say(BORIS, "/npc Старый страж: выносливость 3 бдительность 2 восприятие 2")
    await table.say(BORIS, "/r старый страж вын 6")
    text = table.session.sent[-1].text
    assert text.startswith("🎲 Старый страж: Выносливость 3 → 3к10, сложность 6")
    await table.say(BORIS, "/r Старый страж восп+бдит 7")
    assert "Восприятие 2 + Бдительность 2 → 4к10, сложность 7" in table.session.sent[-1].text
    await table.say(ANNA, "/r старый страж вын 6")
    assert "только Рассказчик" in table.session.sent[-1].text
    await table.say(ANNA, "/r 5 6")  # a number is never an NPC
    assert len(faces(table.session.sent[-1].text)) == 5


async def test_the_storyteller_opposes_a_player_with_an_npc_by_name(table: Table) -> None:
    """/vs as the NPC: its sheet's pool and its name on the result, not an anonymous «НПС»."""
    table.session.admins.add(BORIS.id)
    await table.say(BORIS, "/npc Страж: ловкость 3 драка 2 восприятие 2")
    await table.say(BORIS, "/vs страж ловк+драка 6 @anna")
    text = table.session.sent[-1].text
    assert "Страж — @anna" in text
    assert "Ловкость 3 + Драка 2 → 5к10" in text
    await table.say(ANNA, "/vs страж 6 @boris")
    assert "только Рассказчик" in table.session.sent[-1].text
    await table.say(BORIS, "/vs страж 6")  # nobody to oppose
    assert "Кому вы бросаете вызов?" in table.session.sent[-1].text


async def test_the_storyteller_answers_a_challenge_for_an_npc_by_name(table: Table) -> None:
    table.session.admins.add(BORIS.id)
    await table.say(BORIS, "/npc Страж: ловкость 3 драка 2 восприятие 2")
    await table.say(ANNA, "/vs 4 6 нпс")
    challenge = table.session.messages[-1]
    await reply_to_bot(table, BORIS, "/vs страж восп 7", challenge)
    text = table.session.edits[-1].text
    assert "Страж: Восприятие 2 → 2к10, сложность 7" in text
    assert "НПС" not in text


async def test_the_wizard_offers_the_automatic_success_for_a_sheet_pool(table: Table) -> None:
    """§A.6 holds for a pool built from the sheet as for a typed one: 5 dice at difficulty 5."""
    await give_sheet(table, ANNA.id)
    await table.say(ANNA, "/r")
    wizard = table.session.messages[-1].message_id

    def data(action: RollAction, x: int = 0) -> str | None:
        edits = table.session.edits
        markup = edits[-1].reply_markup if edits else table.session.sent[-1].reply_markup
        for button in buttons(markup):
            parsed = RollCallback.unpack(button.callback_data or "")
            if parsed.a is action and (x == 0 or parsed.x == x):
                return button.callback_data or ""
        return None

    dexterity = catalogue(SheetSystem.MAGE).index(Attribute.DEXTERITY)
    brawl = catalogue(SheetSystem.MAGE).index(Ability.BRAWL)
    await table.tap(ANNA, data(RollAction.TRAIT, dexterity) or "", wizard)
    await table.tap(ANNA, data(RollAction.TRAIT, brawl) or "", wizard)
    await table.tap(ANNA, data(RollAction.DIFFICULTY, 5) or "", wizard)
    auto = data(RollAction.AUTO)
    assert auto is not None
    await table.tap(ANNA, auto, wizard)
    result = table.session.edits[-1].text
    assert "Ловкость 3 + Драка 2 → 5к10, сложность 5" in result
    assert "Автоуспех" in result
    log = await table.store.recent_rolls(table.chat.id)
    assert log[0]["outcome"] == "auto_success"
