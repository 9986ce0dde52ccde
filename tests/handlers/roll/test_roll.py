"""``/r`` end to end through the Dispatcher: results, hints, the wizard, «Ещё раз»."""

from __future__ import annotations

import re

import pytest

from handlers.roll.callbacks import RollAction, RollCallback
from rules import d10, probability, profiles
from table.store import flow_key, log_key
from tests.handlers.conftest import Table, buttons, flows, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
EMMA = player(3, "Emma", "en")
MAGE = profiles.get("mage")


def faces_of(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", text.splitlines()[1])]


def action_data(markup: object, action: RollAction, x: int | None = None) -> str:
    for button in buttons(markup):
        data = button.callback_data or ""
        parsed = RollCallback.unpack(data)
        if parsed.a is action and (x is None or parsed.x == x):
            return data
    raise AssertionError(f"no {action} button")


async def test_simple_roll_shows_seven_faces_and_successes(table: Table) -> None:
    await table.say(ANNA, "/r 7 6")
    [sent] = table.session.sent
    faces = faces_of(sent.text)
    assert len(faces) == 7
    assert faces == sorted(faces, reverse=True)
    result = d10.resolve(faces, 6, MAGE)
    lines = sent.text.splitlines()
    assert lines[0].startswith("🎲 Anna: 7к10, сложность 6")
    for face in faces:
        if face >= 6:
            assert f"<b>{face}</b>" in lines[1]
        if face == 1:
            assert "<s>1</s>" in lines[1]
    expected = {
        d10.Outcome.SUCCESS: r"<b>\w+ успех</b>",  # «Средний успех: 2 успеха»
        d10.Outcome.FAILURE: "<b>Неудача</b>",
        d10.Outcome.BOTCH: "<b>Провал</b>",
    }[result.outcome]
    assert re.match(expected, lines[2])
    if result.successes:
        assert re.search(rf"\b{result.successes} успех(а|ов)?\b", lines[2])
    log = await table.store.recent_rolls(table.chat.id)
    assert log[0]["faces"] == sorted(faces, reverse=True) or sorted(log[0]["faces"]) == sorted(
        faces
    )
    assert log[0]["successes"] == result.successes


async def test_plural_and_degree_words(table: Table) -> None:
    """Seeded dice give a 2-success roll: «Средний успех: 2 успеха» (§A.5)."""
    await table.say(ANNA, "/r 7 6")
    assert "<b>Средний успех</b>: 2 успеха" in table.session.sent[0].text


async def test_willpower_and_threshold_are_shown(table: Table) -> None:
    await table.say(ANNA, "/r 7 8 св пор1")
    head = table.session.sent[0].text.splitlines()[0]
    assert "сложность 8 (сложно)" in head
    assert "пороговое значение 1" in head
    assert "Сила Воли" in head
    await table.say(ANNA, "/r 7 8 wp t1")
    assert table.session.sent[1].text.splitlines()[0] == head


async def test_default_difficulty_is_the_profiles(table: Table) -> None:
    await table.say(ANNA, "/r 5")
    assert "5к10, сложность 6" in table.session.sent[0].text


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("/r 0", "Запас кубиков — от 1 до 50."),
        ("/r 999", "Запас кубиков — от 1 до 50."),
        ("/r 7 11", "В этой игре сложность — от 4 до 10."),
        ("/r 7 3", "В этой игре сложность — от 4 до 10."),  # S4 «со сложностью [4-10]»
        ("/r 7 1", "В этой игре сложность — от 4 до 10."),
        ("/r abc", "«abc» — в этой игре нет такой черты."),  # a word is a trait name
        ("/r 7 6 t-1", "«t-1»: пороговое значение пишется"),
        ("/r 7 6 t51", "Пороговое значение — от 0 до 50."),
        ("/r 7 6 5", "«5»: чисел должно быть не больше двух"),
        ("/r 7 x1", "«x1» — непонятно"),
        ("/r 7 6 wp wp", "«wp» указано дважды."),
    ],
)
async def test_bad_input_gets_a_hint_with_an_example(table: Table, text: str, says: str) -> None:
    await table.say(ANNA, text)
    [sent] = table.session.sent
    assert says in sent.text
    assert "Пример: /r 7 6 (7 кубиков, сложность 6)" in sent.text
    assert sent.reply_markup is None
    assert await flows(table.store) == {}
    assert await table.store.redis.llen(log_key(table.chat.id)) == 0


async def test_english_player_reads_english(table: Table) -> None:
    await table.say(EMMA, "/r 7 6")
    text = table.session.sent[0].text
    assert "Emma: 7d10, difficulty 6 (standard)" in text
    assert "<b>Moderate success</b>: 2 successes" in text
    await table.say(EMMA, "/r 7 99")
    assert "The difficulty must be from 4 to 10 in this game." in table.session.sent[1].text


async def test_chat_language_overrides_the_players(table: Table) -> None:
    await table.store.update_chat(table.chat.id, locale="en")
    await table.say(ANNA, "/r 7 6")
    assert "difficulty 6" in table.session.sent[0].text


async def test_dark_ages_degree_words(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="dark-ages")
    await table.say(ANNA, "/r 7 6")
    text = table.session.sent[0].text
    assert "сложность 6 (стандартно)" in text  # S1's label, not S0's «Стандарт»
    assert "<b>Средний успех</b>: 2 успеха" in text


async def open_wizard(table: Table, user: object = ANNA) -> int:
    await table.say(ANNA, "/r")
    return table.session.messages[-1].message_id


async def test_wizard_taps_edit_one_message_and_show_the_odds(table: Table) -> None:
    wizard_id = await open_wizard(table)
    [opened] = table.session.sent
    assert "Выберите запас кубиков." in opened.text
    await table.tap(ANNA, action_data(opened.reply_markup, RollAction.POOL, 7), wizard_id)
    edit = table.session.edits[-1]
    odds = probability.d10(pool=7, difficulty=6, profile=MAGE)
    assert "7к10, сложность 6" in edit.text
    success = f"{odds.success * 100:.1f}".replace(".", ",")
    botch = f"{odds.botch * 100:.1f}".replace(".", ",")
    assert f"Шанс успеха {success}%, провала {botch}%" in edit.text
    labels = [b.text for b in buttons(edit.reply_markup)]
    assert "[7]" in labels
    assert "[🎯6]" in labels  # the default difficulty is preselected
    assert labels[15:22] == ["🎯4", "🎯5", "[🎯6]", "🎯7", "🎯8", "🎯9", "🎯10"]  # S4: 4–10

    await table.tap(ANNA, action_data(edit.reply_markup, RollAction.DIFFICULTY, 8), wizard_id)
    edit = table.session.edits[-1]
    await table.tap(ANNA, action_data(edit.reply_markup, RollAction.WILLPOWER), wizard_id)
    edit = table.session.edits[-1]
    odds = probability.d10(pool=7, difficulty=8, profile=MAGE, willpower=True)
    assert f"{odds.success * 100:.1f}".replace(".", ",") + "%" in edit.text
    assert "Сила Воли" in edit.text.splitlines()[1]

    await table.tap(ANNA, action_data(edit.reply_markup, RollAction.ROLL), wizard_id)
    result = table.session.edits[-1]
    assert len(faces_of(result.text)) == 7
    assert "сложность 8" in result.text
    assert "Сила Воли" in result.text
    assert len(table.session.sent) == 1  # never a stream of new messages
    assert {e.message_id for e in table.session.edits} == {wizard_id}
    assert all(a.show_alert is not True for a in table.session.answers)
    assert len(table.session.answers) == 4  # every tap answered exactly once


async def test_someone_elses_tap_is_refused_and_changes_nothing(table: Table) -> None:
    wizard_id = await open_wizard(table)
    before = await flows(table.store)
    data = action_data(table.session.sent[0].reply_markup, RollAction.POOL, 5)
    await table.tap(BORIS, data, wizard_id)
    [answer] = table.session.answers
    assert answer.show_alert is True
    assert answer.text == "Это не ваш бросок."
    assert table.session.edits == []
    assert await flows(table.store) == before


async def test_double_tap_applies_once(table: Table) -> None:
    wizard_id = await open_wizard(table)
    data = action_data(table.session.sent[0].reply_markup, RollAction.POOL, 5)
    await table.tap(ANNA, data, wizard_id)
    after_first = await flows(table.store)
    await table.tap(ANNA, data, wizard_id)
    assert await flows(table.store) == after_first
    [stored] = after_first.values()
    assert stored["version"] == "1"
    # The repeat redraws the message as it stands (Telegram: "not modified" when it was).
    assert len({(e.text, str(e.reply_markup)) for e in table.session.edits}) == 1
    assert len(table.session.answers) == 2
    assert table.session.answers[1].text == "Уже учтено."


async def test_double_tap_on_roll_rolls_once(table: Table) -> None:
    wizard_id = await open_wizard(table)
    await table.tap(
        ANNA, action_data(table.session.sent[0].reply_markup, RollAction.POOL, 5), wizard_id
    )
    roll = action_data(table.session.edits[-1].reply_markup, RollAction.ROLL)
    await table.tap(ANNA, roll, wizard_id)
    await table.tap(ANNA, roll, wizard_id)
    assert await table.store.redis.llen(log_key(table.chat.id)) == 1
    assert table.session.answers[-1].text == "Этот бросок закрыт."


@pytest.mark.parametrize(
    "data",
    [
        "r",
        "r:::",
        "r:zzz:0:p:7",  # a flow that does not exist
        "r:{flow}:0:p:99",  # a pool no button offers
        "r:{flow}:0:d:3",  # below the house range 4–10
        "r:{flow}:0:d:-4",
        "r:{flow}:0:xx:1",
        "r:{flow}:0:re:0",  # a retry on a wizard
        "r:{flow}:0:go:0",  # roll before a pool is chosen
        "r:{flow}:0:au:0",  # auto-success with no pool
        "r:{flow}:abc:p:1",
        "prof:vampire",
        "lang:de",
        "",
        "\x00\xff",
    ],
)
async def test_garbled_callback_data_is_refused(table: Table, data: str) -> None:
    wizard_id = await open_wizard(table)
    [flow_id] = [k.split(":")[-1] for k in await flows(table.store)]
    before = await flows(table.store)
    await table.tap(ANNA, data.format(flow=flow_id), wizard_id)
    assert await flows(table.store) == before
    assert table.session.edits == []
    [answer] = table.session.answers
    assert answer.show_alert is True
    assert answer.text in ("Эта кнопка недействительна.", "Этот бросок закрыт.")
    assert len(table.session.sent) == 1  # no "something went wrong" message


async def test_auto_success_offered_when_pool_reaches_difficulty(table: Table) -> None:
    wizard_id = await open_wizard(table)
    markup = table.session.sent[0].reply_markup
    await table.tap(ANNA, action_data(markup, RollAction.POOL, 5), wizard_id)
    labels = [b.text for b in buttons(table.session.edits[-1].reply_markup)]
    assert not any("Автоуспех" in label for label in labels)  # 5 dice < difficulty 6
    await table.tap(
        ANNA, action_data(table.session.edits[-1].reply_markup, RollAction.POOL, 6), wizard_id
    )
    markup = table.session.edits[-1].reply_markup
    assert any("Автоуспех" in b.text for b in buttons(markup))
    await table.tap(ANNA, action_data(markup, RollAction.AUTO), wizard_id)
    text = table.session.edits[-1].text
    assert "<b>Автоуспех</b>: 1 успех" in text
    assert table.session.edits[-1].reply_markup is None
    [entry] = await table.store.recent_rolls(table.chat.id)
    assert entry["outcome"] == "auto_success"


async def fail_once(table: Table) -> tuple[str, int]:
    """Roll one die at difficulty 10 until it fails; return the retry button and its message."""
    for _attempt in range(50):
        await table.say(ANNA, "/r 1 10")
        sent = table.session.sent[-1]
        actions = {RollCallback.unpack(b.callback_data or "").a for b in buttons(sent.reply_markup)}
        if RollAction.RETRY in actions:
            data = action_data(sent.reply_markup, RollAction.RETRY)
            return data, table.session.messages[-1].message_id
        assert "<b>Успех</b>" in sent.text  # only a success offers no retry
        assert actions == {RollAction.EXTEND}  # but it can still be extended (§A.11)
    raise AssertionError("no failure in 50 rolls")


async def test_retry_raises_difficulty_and_works_once(table: Table) -> None:
    data, message_id = await fail_once(table)
    await table.tap(ANNA, data, message_id)
    new = table.session.sent[-1]
    # §A.10: the second attempt is one harder; a house base of 10 turns it into threshold 1.
    assert "сложность 10" in new.text
    assert "пороговое значение 1" in new.text
    assert "попытка 2" in new.text
    assert table.session.markup_edits[-1].message_id == message_id
    answers = len(table.session.answers)
    sent = len(table.session.sent)
    await table.tap(ANNA, data, message_id)
    assert table.session.answers[-1].text == "Этот бросок закрыт."
    assert len(table.session.answers) == answers + 1
    assert len(table.session.sent) == sent


async def test_retry_by_someone_else_is_refused(table: Table) -> None:
    data, message_id = await fail_once(table)
    flow_id = RollCallback.unpack(data).f
    before = await table.store.redis.hgetall(flow_key(table.chat.id, flow_id))
    await table.tap(BORIS, data, message_id)
    assert table.session.answers[-1].text == "Это не ваш бросок."
    assert await table.store.redis.hgetall(flow_key(table.chat.id, flow_id)) == before


async def test_no_auto_success_in_a_fight(table: Table) -> None:
    """S0 «не может быть использована в бою» (and S1's «драка»): while a round tracker is open
    the wizard of a Revised or Dark Ages chat offers no automatic success, and its button from
    before the fight does nothing. (The house sheet forbids it only for combat manoeuvres.)"""
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    wizard_id = await open_wizard(table)
    markup = table.session.messages[-1].reply_markup
    await table.tap(ANNA, action_data(markup, RollAction.POOL, 6), wizard_id)
    before = table.session.edits[-1].reply_markup
    assert any("Автоуспех" in b.text for b in buttons(before))
    await table.say(ANNA, "/init 4")
    await table.tap(ANNA, action_data(before, RollAction.POOL, 7), wizard_id)
    await table.tap(
        ANNA, action_data(table.session.edits[-1].reply_markup, RollAction.POOL, 6), wizard_id
    )
    labels = [b.text for b in buttons(table.session.edits[-1].reply_markup)]
    assert not any("Автоуспех" in label for label in labels)
    await table.tap(ANNA, action_data(before, RollAction.AUTO), wizard_id)
    assert await table.store.recent_rolls(table.chat.id) == []
