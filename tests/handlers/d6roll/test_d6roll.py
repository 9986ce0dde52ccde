"""``/r`` in a d6 chat through the Dispatcher (docs/rules.md §D.2–§D.4): the typed chance, powers
from the sheet, luck, the wizard's live odds and the special effort."""

from __future__ import annotations

import re

import pytest

from bot import hidden_rolls
from handlers.d6roll.callbacks import D6Action, D6Callback
from rules.d6 import probability
from rules.d6.chance import DifficultyKind
from rules.sheet import SheetSystem
from table import stats
from table.store import log_key
from tests.handlers.conftest import Table, buttons, flows, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
EMMA = player(3, "Emma", "en")


def faces_of(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d", text.splitlines()[1])]


def data_of(markup: object, action: D6Action, x: int | None = None) -> str:
    for button in buttons(markup):
        data = button.callback_data or ""
        parsed = D6Callback.unpack(data)
        if parsed.a is action and (x is None or parsed.x == x):
            return data
    raise AssertionError(f"no {action} button")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    return table


async def sheet_of(table: Table, user_id: int = 1):  # type: ignore[no-untyped-def]
    return await table.store.load_sheet(table.chat.id, user_id, SheetSystem.D6)


async def test_a_typed_chance_shows_its_faces_and_offers_the_special_effort(d6: Table) -> None:
    """The outside contract: /r 4 shows 4 faces and a button «Особое усилие»."""
    await d6.say(ANNA, "/r 4 2")
    sent = d6.session.sent[-1]
    lines = sent.text.splitlines()
    assert lines[0] == "🎲 Anna: шанс 4к6, нужно мер успеха: 2"
    faces = faces_of(sent.text)
    assert len(faces) == 4
    assert all(1 <= f <= 6 for f in faces)
    measures = sum(1 for f in faces if f >= 5)
    expected = "Успех" if measures >= 2 else ("Фиаско" if measures == 0 else "Недостаточно")
    assert lines[2].startswith(f"<b>{expected}</b>")
    [entry] = await d6.store.recent_rolls(d6.chat.id)
    assert entry["measures"] == measures
    if measures < 4:
        assert any("Особое усилие" in b.text for b in buttons(sent.reply_markup))


@pytest.mark.parametrize("text", ["/r 0", "/r 31", "/r 4 wp 3", "/r 4 11", "/r 4 2 1"])
async def test_bad_input_gets_the_d6_hint_and_changes_nothing(d6: Table, text: str) -> None:
    await d6.say(ANNA, text)
    assert "Игра d6: /r 4" in d6.session.sent[-1].text
    assert await flows(d6.store) == {}
    assert await d6.store.redis.llen(log_key(d6.chat.id)) == 0


async def test_powers_weakness_luck_and_wounds_make_the_chance(d6: Table) -> None:
    await d6.say(ANNA, "/set\nСила 2\nЛовкость 1\nСлабость 1\nКубики удачи 2")
    await d6.say(ANNA, "/r сила+ловк 2 удача 1 слаб")
    sent = d6.session.sent[-1].text
    assert "шанс 3к6 (Сила 2 + Ловкость 1 − слабость 1 + удача 1)" in sent
    assert len(faces_of(sent)) == 3
    sheet = await sheet_of(d6)
    assert sheet is not None
    assert sheet.luck == 1
    await d6.say(ANNA, "/r сила удача 2")
    assert "удачи на листе: 1" in d6.session.sent[-1].text.casefold()
    sheet = await sheet_of(d6)
    assert sheet is not None
    assert sheet.luck == 1


async def test_an_unknown_power_names_the_close_ones(d6: Table) -> None:
    await d6.say(ANNA, "/set\nОгнестрел 3")
    await d6.say(ANNA, "/r огнестрл")
    text = d6.session.sent[-1].text
    assert "нет силы «огнестрл»" in text
    assert "Огнестрел" in text
    assert await flows(d6.store) == {}


async def test_the_special_effort_rerolls_below_five_and_writes_the_wound(d6: Table) -> None:
    await d6.say(ANNA, "/set\nСила 3")
    for _ in range(20):  # a roll with a die below 5 (almost every one)
        await d6.say(ANNA, "/r сила")
        sent = d6.session.sent[-1]
        if sent.reply_markup is not None:
            break
    mid = d6.session.messages[-1].message_id
    before = faces_of(sent.text)
    await d6.tap(BORIS, data_of(sent.reply_markup, D6Action.EFFORT, 0), mid)
    assert d6.session.answers[-1].show_alert
    await d6.tap(ANNA, data_of(sent.reply_markup, D6Action.EFFORT, 0), mid)
    prices = d6.session.edits[-1].reply_markup
    assert [b.text for b in buttons(prices)][:3] == [
        "Телесная рана 1",
        "Душевная рана 3",
        "Воспоминание",
    ]
    physical = data_of(prices, D6Action.EFFORT, 1)
    await d6.tap(ANNA, physical, mid)
    edit = d6.session.edits[-1]
    after = faces_of(edit.text)
    assert len(after) == len(before)
    kept = sorted(f for f in before if f >= 5)  # a measure is never rerolled
    assert all(kept.count(f) <= after.count(f) for f in kept)
    assert "💪 Особое усилие за телесную рану 1" in edit.text
    assert edit.reply_markup is None
    await d6.tap(ANNA, physical, mid)  # a double tap pays once
    sheet = await sheet_of(d6)
    assert sheet is not None
    assert [(w.kind, w.magnitude) for w in sheet.wounds] == [(DifficultyKind.PHYSICAL_WOUND, 1)]
    kinds = [e.get("kind") for e in await d6.store.recent_rolls(d6.chat.id)]
    assert kinds.count("effort") == 1
    await d6.say(ANNA, "/r сила")  # the wound is felt from the next action
    assert "шанс 2к6 (Сила 3 − раны 1)" in d6.session.sent[-1].text
    # /stats counts the effort's rerolled dice once, and not the kept ones again
    await d6.say(BORIS, "/stats")
    text = d6.session.sent[-1].text
    logged = hidden_rolls.merge_history(await d6.store.recent_rolls(d6.chat.id), {})
    fair = stats.chat_stats(logged).dice[6]
    counts = " ".join(f"{face}:{n}" for face, n in enumerate(fair.counts, start=1))
    assert f"к6: кубиков {fair.total}, в среднем" in text
    assert f"<code>{counts}</code>" in text
    rolls = len(logged) - 1  # the effort is not a roll of its own
    assert f"Anna: {rolls} брос" in text


async def test_the_wizard_builds_the_chance_from_the_sheet_with_live_odds(d6: Table) -> None:
    await d6.say(ANNA, "/set\nСила 2\nЛовкость 1\nКубики удачи 1")
    await d6.say(ANNA, "/r")
    opened = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    texts = [b.text for b in buttons(opened.reply_markup)]
    assert "Сила 2" in texts
    assert "Ловкость 1" in texts
    assert "🍀1" in texts
    await d6.tap(ANNA, data_of(opened.reply_markup, D6Action.POWER, 0), mid)
    edit = d6.session.edits[-1]
    await d6.tap(ANNA, data_of(edit.reply_markup, D6Action.POWER, 1), mid)
    edit = d6.session.edits[-1]
    await d6.tap(ANNA, data_of(edit.reply_markup, D6Action.LUCK, 1), mid)
    edit = d6.session.edits[-1]
    assert "Шанс: Сила 2 + Ловкость 1 + удача 1 = 4" in edit.text
    success = probability.p_success(4, 1)
    assert f"{float(success) * 100:.1f}".replace(".", ",") in edit.text
    await d6.tap(ANNA, data_of(edit.reply_markup, D6Action.ROLL), mid)
    rolled = d6.session.edits[-1]
    assert len(faces_of(rolled.text)) == 4
    sheet = await sheet_of(d6)
    assert sheet is not None
    assert sheet.luck == 0
    await d6.tap(ANNA, data_of(edit.reply_markup, D6Action.ROLL), mid)  # the old button
    sheet = await sheet_of(d6)
    assert sheet is not None
    assert sheet.luck == 0
    assert await d6.store.redis.llen(log_key(d6.chat.id)) == 1


async def test_the_wizard_without_a_sheet_offers_a_chance(d6: Table) -> None:
    await d6.say(EMMA, "/r")
    opened = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    await d6.tap(EMMA, data_of(opened.reply_markup, D6Action.CHANCE, 5), mid)
    edit = d6.session.edits[-1]
    assert "Chance: 5 = 5" in edit.text
    assert "Success" in edit.text
    await d6.tap(EMMA, data_of(edit.reply_markup, D6Action.ROLL), mid)
    assert len(faces_of(d6.session.edits[-1].text)) == 5


async def test_help_in_a_d6_chat_shows_the_d6_roll(d6: Table) -> None:
    await d6.say(ANNA, "/help")
    text = d6.session.sent[-1].text
    assert "/r 4 — шанс в 4 кубика" in text
    assert "Особое усилие" in text
    assert "/r 3 разгон · оборона · прицел 1 · побег — уловка" in text
    assert "сложность" not in text.split("\n")[1]
    assert len(text.splitlines()) <= 17  # one line more since inline mode (@bot 7 6)


async def test_prob_in_a_d6_chat_gives_the_exact_measures(d6: Table) -> None:
    await d6.say(ANNA, "/prob 3 2")
    text = d6.session.sent[-1].text
    assert "шанс 3к6, нужно мер успеха: 2" in text
    success = float(probability.p_success(3, 2))
    assert f"Успех: {success * 100:.1f}%".replace(".", ",") in text
    assert "Фиаско:" in text
    assert "с особым усилием" in text
    await d6.say(ANNA, "/prob 7 6 wp")
    assert "/prob 4 2" in d6.session.sent[-1].text


class _Dealt:
    """d6 faces in the order given."""

    def __init__(self, faces: list[int]) -> None:
        self.faces = faces

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)

    def random(self) -> float:
        return 0.5


@pytest.mark.parametrize(
    ("line", "faces", "says"),
    [
        # G-D17: the target's difficulty 1, three measures → cancelled and +2 next turn.
        ("/r 3 прицел 1", [5, 6, 6], "трудность цели 1 снята. +2 на следующий ход"),
        ("/r 3 прицел 3", [5, 6, 2], "трудность цели 3 снижена до 1."),
        ("/r 2 прицел", [6, 1], "Прицеливание: +1 на следующий ход"),
    ],
)
async def test_g_d17_aiming_through_the_chat(
    table: Table, line: str, faces: list[int], says: str
) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.rng = _Dealt(list(faces))  # type: ignore[assignment]
    await table.say(ANNA, line)
    assert "🎯 Прицеливание:" in table.session.sent[-1].text
    assert says in table.session.sent[-1].text


async def test_g_d19_an_unfinished_project_eases_a_difficulty(table: Table) -> None:
    """G-D19: an unfinished project of readiness 2 against a difficulty of 3 leaves 1."""
    await table.store.update_chat(table.chat.id, profile="d6")
    await table.say(ANNA, "/r 4 -3 замысел 2")
    text = table.session.sent[-1].text
    assert "шанс 3к6" in text  # 4 − 1
    assert "незавершённый замысел 2 смягчает −3 до −1" in text
    await table.say(ANNA, "/r 4 -2 замысел 3")
    assert "шанс 4к6" in table.session.sent[-1].text  # the difficulty is gone
    assert "незавершённый замысел 3 снимает −2" in table.session.sent[-1].text
    await table.say(ANNA, "/r 4 замысел 2")
    assert "нечего смягчать" in table.session.sent[-1].text


async def test_an_escape_turns_the_measures_into_the_pursuers_difficulty(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.rng = _Dealt([5, 6, 1])  # type: ignore[assignment]
    await table.say(ANNA, "/r 3 побег")
    text = table.session.sent[-1].text
    assert "🏃 Anna убегает: у атак преследователей трудность −2" in text
    assert "замысел размаха 2" in text
