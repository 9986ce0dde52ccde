"""/multi as players type it: dice added to an action, a sheet pool read once per difficulty,
the wounds on typed pools, and the wizard's per-action difficulty and cancel (§A.9)."""

from __future__ import annotations

from handlers.multi.callbacks import MultiAction, MultiCallback
from handlers.wizard.callbacks import SetupAction, SetupCallback
from rules.sheet import Ability, Attribute, Sheet, SheetSystem, set_trait
from tests.handlers.conftest import Table, buttons, flows, player
from tests.handlers.test_table_rolls import find, last_markup, last_text, sent_id

ANNA = player(1, "Anna")


async def give_sheet(table: Table, system: SheetSystem = SheetSystem.MAGE) -> None:
    def fill(sheet: Sheet) -> Sheet:
        return set_trait(set_trait(sheet, Attribute.DEXTERITY, 3), Ability.BRAWL, 2)

    await table.store.update_sheet(table.chat.id, ANNA.id, system, fill)


async def test_one_sheet_pool_and_two_numbers_are_two_actions_at_those_difficulties(
    table: Table,
) -> None:
    await give_sheet(table)
    await table.say(ANNA, "/multi ловк+драка 6 7")
    text = table.session.sent[-1].text
    assert "ℹ️ Прочитано как «ловк+драка» по разу на каждую сложность: 6, 7." in text
    assert "1. Ловкость 3 + Драка 2: 5 → 3к10, сложность 6" in text
    assert "2. Ловкость 3 + Драка 2: 5 → 2к10, сложность 7" in text
    assert "3." not in text


async def test_dice_added_or_taken_on_each_action(table: Table) -> None:
    await give_sheet(table)
    await table.say(ANNA, "/multi ловк+драка-1/7 6 +1")
    text = table.session.sent[-1].text
    assert "1. Ловкость 3 + Драка 2 − 1: 4 → 2к10, сложность 7" in text
    assert "2. 6 + 1: 7 → 4к10, сложность 6" in text
    await table.say(ANNA, "/multi 6 7 +11")
    assert "непонятно" in table.session.sent[-1].text


async def test_the_wound_penalty_reaches_typed_actions(table: Table) -> None:
    await table.say(ANNA, "/dmg 3 л")
    await table.say(ANNA, "/multi 6 6")
    text = table.session.sent[-1].text
    assert "1. 6 −1 за раны: 5 → 3к10, сложность 6" in text
    assert "2. 6 −1 за раны: 5 → 2к10, сложность 6" in text


async def test_a_split_pool_game_reads_two_numbers_that_are_not_parts_as_difficulties(
    table: Table,
) -> None:
    await table.store.update_chat(table.chat.id, profile="dark-ages")
    await give_sheet(table, SheetSystem.DARK_AGES)
    await table.say(ANNA, "/multi ловк+драка 3 2")  # 3 + 2 = 5: the parts, as always
    text = table.session.sent[-1].text
    assert "1. 3к10, сложность 6" in text
    assert "2. 2к10, сложность 6" in text
    await table.say(ANNA, "/multi ловк+драка 6 8")
    text = table.session.sent[-1].text
    assert "Как разделить 5 кубиков" in text
    assert "6, 8" in text
    markup = table.session.sent[-1].reply_markup
    await table.tap(ANNA, find(markup, MultiCallback, a=MultiAction.SPLIT, x=2), sent_id(table))
    text = last_text(table)
    assert "1. 2к10, сложность 6" in text
    assert "2. 3к10, сложность 8" in text


async def test_the_wizard_takes_a_difficulty_per_action(table: Table) -> None:
    await table.say(ANNA, "/multi")
    message_id = sent_id(table)

    async def tap(action: SetupAction, x: int = 0) -> None:
        data = find(last_markup(table), SetupCallback, a=action, x=x)
        await table.tap(ANNA, data, message_id)

    await tap(SetupAction.DIFFICULTY, 7)
    await tap(SetupAction.POOL, 6)
    await tap(SetupAction.DIFFICULTY, 8)
    await tap(SetupAction.POOL, 7)
    text = last_text(table)
    assert "1. 6 → 4к10, сложность 7" in text
    assert "2. 7 → 4к10, сложность 8" in text
    await tap(SetupAction.GO)
    text = last_text(table)
    assert "1. 6 → 4к10, сложность 7" in text
    assert "2. 7 → 4к10, сложность 8" in text


async def test_every_wizard_has_a_cancel(table: Table) -> None:
    for command in ("/multi", "/ext", "/team"):
        await table.say(ANNA, command)
        markup = table.session.sent[-1].reply_markup
        assert "✖ Отменить" in [b.text for b in buttons(markup)]
        await table.tap(ANNA, find(markup, SetupCallback, a=SetupAction.CANCEL), sent_id(table))
        assert table.session.edits[-1].text.endswith("✖ Отменено.")
        assert table.session.edits[-1].reply_markup is None
    stored = await flows(table.store)
    assert len(stored) == 3
    assert all(flow["closed"] == "1" for flow in stored.values()), stored
