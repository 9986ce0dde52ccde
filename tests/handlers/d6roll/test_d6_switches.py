"""The d6 roll's house-rule words through the Dispatcher (docs/rules.md §D.2–§D.4): a chance with
no fitting power (``/r 0``, «Без силы»), a success without a roll (``/r авто``) and a special
effort with nothing to reroll, each as the book reads it and as the chat's switch turns it."""

from __future__ import annotations

import pytest
from aiogram.types import User

from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback
from handlers.d6project.callbacks import ProjectAction, ProjectCallback
from handlers.d6roll.callbacks import D6Action, D6Callback
from rules.d6.chance import DifficultyKind
from rules.sheet import SheetSystem
from table.store import log_key
from tests.handlers.conftest import Table, buttons, flows, player
from tests.handlers.d6roll.test_d6roll import data_of
from tests.handlers.dealt import Dealt

ANNA = player(1, "Аня")  # the Storyteller
BORIS = player(2, "Борис")
VERA = player(3, "Вера")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(ANNA.id)
    return table


async def house(table: Table, rule: str) -> None:
    await table.say(ANNA, f"/rules set {rule}")
    assert "изменены" in table.session.sent[-1].text, table.session.sent[-1].text


def last_text(table: Table) -> str:
    return table.session.sent[-1].text or ""


# ----- no fitting power (§D.2, d6.no_power_impossible) ---------------------------------------


async def test_no_power_with_help_and_luck_is_rolled_by_the_book(d6: Table) -> None:
    await d6.say(BORIS, "/set\nСила 2\nКубики удачи 2")
    d6.rng = Dealt(5, 2, 6)
    await d6.say(BORIS, "/r 0 +2 удача 1")
    text = last_text(d6)
    assert "шанс 3к6 (без силы + 2 + удача 1)" in text
    assert "🏠" not in text
    sheet = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    assert sheet is not None
    assert sheet.luck == 1  # the luck die is spent whatever comes of it


async def test_no_power_alone_is_a_chance_of_zero(d6: Table) -> None:
    await d6.say(BORIS, "/r 0")
    assert "без силы: шанс 0 или меньше" in last_text(d6)
    assert await flows(d6.store) == {}
    assert await d6.store.redis.llen(log_key(d6.chat.id)) == 0


async def test_the_house_rule_refuses_no_power_even_with_help_and_keeps_the_luck(
    d6: Table,
) -> None:
    await house(d6, "d6.no_power_impossible=on")
    await d6.say(BORIS, "/set\nКубики удачи 2")
    await d6.say(BORIS, "/r 0 +1 удача 2")
    text = last_text(d6)
    assert "без подходящей силы это не удастся — не помогут ни друзья, ни удача" in text
    assert "🏠 Без силы — никак: да" in text
    assert await flows(d6.store) == {}
    sheet = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    assert sheet is not None
    assert sheet.luck == 2
    await d6.say(BORIS, "/r 2 +1")  # a chance the player counted from powers still rolls
    assert "шанс 3к6" in last_text(d6)


async def test_the_wizard_offers_no_power_and_only_the_roller_presses(d6: Table) -> None:
    await d6.say(BORIS, "/set\nСила 2\nКубики удачи 1")
    await d6.say(BORIS, "/r")
    opened = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    assert "🚫 Без силы" in [b.text for b in buttons(opened.reply_markup)]
    no_power = data_of(opened.reply_markup, D6Action.CHANCE, 0)
    await d6.tap(ANNA, no_power, mid)  # not Аня's roll
    assert d6.session.answers[-1].show_alert
    assert not d6.session.edits
    await d6.tap(BORIS, no_power, mid)
    edit = d6.session.edits[-1]
    assert "без силы: шанс 0 или меньше" in edit.text
    assert "✅ 🚫 Без силы" in [b.text for b in buttons(edit.reply_markup)]
    assert all("Бросить" not in b.text for b in buttons(edit.reply_markup))
    await d6.tap(BORIS, data_of(edit.reply_markup, D6Action.LUCK, 1), mid)
    edit = d6.session.edits[-1]
    assert "Шанс: без силы + удача 1 = 1" in edit.text
    shown = D6Callback.unpack(data_of(edit.reply_markup, D6Action.CHANCE, 0))
    forged = D6Callback(f=shown.f, v=shown.v, a=D6Action.CHANCE, x=99)
    await d6.tap(BORIS, forged.pack(), mid)
    assert d6.session.answers[-1].show_alert
    d6.rng = Dealt(6)
    await d6.tap(BORIS, data_of(edit.reply_markup, D6Action.ROLL), mid)
    assert "шанс 1к6 (без силы + удача 1)" in d6.session.edits[-1].text


async def test_the_wizards_no_power_under_the_house_rule_says_why(d6: Table) -> None:
    await house(d6, "d6.no_power_impossible=on")
    await d6.say(BORIS, "/r")
    opened = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, data_of(opened.reply_markup, D6Action.CHANCE, 0), mid)
    edit = d6.session.edits[-1]
    await d6.tap(BORIS, data_of(edit.reply_markup, D6Action.MODIFIER, 10 + 2), mid)
    edit = d6.session.edits[-1]
    assert "без подходящей силы это не удастся" in edit.text
    assert all("Бросить" not in b.text for b in buttons(edit.reply_markup))


# ----- a success without a roll (§D.3, AMB-D2, d6.auto_success_gain) ------------------------


@pytest.mark.parametrize(
    ("typed", "head"),
    [
        ("/r авто", "✅ Борис: без броска\n"),
        ("/r 3 авто", "✅ Борис: без броска (3)\n"),
        ("/r сила авто", "✅ Борис: без броска (Сила 2)\n"),
        ("/r auto", "✅ Борис: без броска\n"),
    ],
)
async def test_a_success_without_a_roll_rolls_nothing_and_counts_one(
    d6: Table, typed: str, head: str
) -> None:
    await d6.say(BORIS, "/set\nСила 2")
    await d6.say(BORIS, typed)
    text = last_text(d6)
    assert text.startswith(head), text
    assert "<b>Автоуспех</b>: выигрыш считается равным 1" in text
    assert d6.session.sent[-1].reply_markup is None  # no dice, no special effort
    assert await d6.store.redis.llen(log_key(d6.chat.id)) == 0


async def test_the_house_gain_of_a_success_without_a_roll(d6: Table) -> None:
    await house(d6, "d6.auto_success_gain=3")
    await d6.say(BORIS, "/r авто")
    text = last_text(d6)
    assert "выигрыш считается равным 3" in text
    assert "🏠 Выигрыш успеха без броска: 3" in text
    await d6.say(BORIS, "/r 2")  # a rolled result does not own up to it
    assert "Выигрыш успеха без броска" not in last_text(d6)


@pytest.mark.parametrize(
    "typed", ["/r авто удача 1", "/r 0 авто", "/r 3 2 авто", "/r авто -1", "/r авто разгон"]
)
async def test_a_success_without_a_roll_takes_nothing_that_a_roll_spends(
    d6: Table, typed: str
) -> None:
    await d6.say(BORIS, typed)
    assert "Игра d6: /r 4" in last_text(d6)
    assert await flows(d6.store) == {}


@pytest.mark.parametrize(
    ("typed", "usage"),
    [
        ("/vs авто", "/vs 4"),
        ("/vs 3 авто", "/vs 4"),
        ("/ask сила авто", "/ask"),
        ("/h 3 авто", "/h 4"),
    ],
)
async def test_rolls_that_need_dice_refuse_a_success_without_a_roll(
    d6: Table, typed: str, usage: str
) -> None:
    await d6.say(ANNA, "/st")  # /ask and /h are the Storyteller's
    await d6.say(ANNA, typed)
    assert usage in last_text(d6)
    assert await flows(d6.store) == {}
    assert await d6.store.redis.llen(log_key(d6.chat.id)) == 0


async def test_a_success_without_a_roll_checks_the_powers_named(d6: Table) -> None:
    await d6.say(BORIS, "/set\nСила 2")
    await d6.say(BORIS, "/r полёт авто")
    assert "нет силы «полёт»" in last_text(d6)


# ----- a special effort with nothing to reroll (§D.4, AMB-D14) -------------------------------


async def test_an_effort_with_nothing_to_reroll_warns_and_still_costs_its_price(d6: Table) -> None:
    await d6.say(BORIS, "/set\nСила 2")
    d6.rng = Dealt(6, 5)
    await d6.say(BORIS, "/r сила")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    effort = data_of(sent.reply_markup, D6Action.EFFORT, 0)
    await d6.tap(ANNA, effort, mid)  # not Аня's roll
    assert d6.session.answers[-1].show_alert
    await d6.tap(BORIS, effort, mid)
    prices = d6.session.edits[-1]
    assert "⚠️ На всех кубиках уже меры успеха: усилие ничего не перебросит" in prices.text
    await d6.tap(BORIS, data_of(prices.reply_markup, D6Action.EFFORT, 1), mid)
    done = d6.session.edits[-1].text
    assert "<b>6</b> <b>5</b>" in done
    assert (
        "💪 Особое усилие за телесную рану 1 · перебрасывать нечего: цена уплачена, кубики "
        "остались как были"
    ) in done
    sheet = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    assert sheet is not None
    assert [(w.kind, w.magnitude) for w in sheet.wounds] == [(DifficultyKind.PHYSICAL_WOUND, 1)]


async def test_the_house_rule_hides_an_effort_with_nothing_to_reroll(d6: Table) -> None:
    d6.rng = Dealt(6, 5)
    await d6.say(BORIS, "/r 2")
    offered = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    effort = data_of(offered.reply_markup, D6Action.EFFORT, 0)
    await house(d6, "d6.special_effort_noop_allowed=off")
    d6.rng = Dealt(6, 5)
    await d6.say(BORIS, "/r 2")
    assert d6.session.sent[-1].reply_markup is None
    assert "🏠 Усилие без перебросов: нет" in last_text(d6)
    await d6.tap(BORIS, effort, mid)  # the button drawn before the rule changed
    alert = d6.session.answers[-1]
    assert alert.show_alert
    assert alert.text is not None
    assert "перебрасывать нечего" in alert.text
    d6.rng = Dealt(6, 2)
    await d6.say(BORIS, "/r 2")  # a die below 5: the effort is offered as ever
    assert any("Особое усилие" in b.text for b in buttons(d6.session.sent[-1].reply_markup))


# ----- a project's progress without a roll (§D.6, AMB-D2) ------------------------------------


def project_button(markup: object, action: ProjectAction) -> str:
    for button in buttons(markup):
        if ProjectCallback.unpack(button.callback_data or "").a is action:
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def test_a_project_counts_an_action_without_a_roll_as_the_chats_gain(d6: Table) -> None:
    await d6.say(BORIS, "/project 3 Починить катер")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    assert "«Без броска», если ничто не мешает" in sent.text
    auto = project_button(sent.reply_markup, ProjectAction.AUTO)
    await d6.tap(ANNA, auto, mid)  # anyone at the table acts in a project
    edit = d6.session.edits[-1]
    assert "Готовность: 1 из 3" in edit.text
    assert "Аня: без броска — +1" in edit.text
    assert "🏠" not in edit.text
    assert await d6.store.redis.llen(log_key(d6.chat.id)) == 0  # nothing was rolled
    await d6.tap(ANNA, auto, mid)  # the same drawing again: counted once
    assert "Готовность: 1 из 3" in d6.session.edits[-1].text


async def test_under_the_house_gain_a_challenge_action_without_a_roll_counts_more(
    d6: Table,
) -> None:
    await house(d6, "d6.auto_success_gain=2")
    await d6.say(BORIS, "/project 3 действий 1 Погоня")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, project_button(sent.reply_markup, ProjectAction.AUTO), mid)
    edit = d6.session.edits[-1]
    assert "Готовность: 2 из 3" in edit.text
    assert "Борис: без броска — +2" in edit.text
    assert "🏠 Выигрыш успеха без броска: 2" in edit.text
    await d6.tap(BORIS, project_button(edit.reply_markup, ProjectAction.AUTO), mid)
    assert d6.session.answers[-1].show_alert  # his one action is spent
    await d6.tap(ANNA, project_button(edit.reply_markup, ProjectAction.AUTO), mid)
    done = d6.session.edits[-1]
    assert "Готовность: 4 из 3" in done.text
    assert "✅ Готово! Выигрыш 1." in done.text
    assert done.reply_markup is None


# ----- an attack without a roll: a hit's gain buttons (§D.11, AMB-D2) ------------------------


async def attack_replying(table: Table, who: User, text: str, target: User) -> None:
    """``who`` types ``text`` in reply to a message of ``target``."""
    await table.say(who, text, reply_to=target)


def attack_button(markup: object, action: AttackAction, c: str = "") -> str:
    for button in buttons(markup):
        data = D6AttackCallback.unpack(button.callback_data or "")
        if data.a is action and (not c or data.c == c):
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def test_an_attack_without_a_roll_hits_at_once_with_the_gain_of_one(d6: Table) -> None:
    await d6.say(BORIS, "/set\nСила 2")
    await attack_replying(d6, BORIS, "/atk сила авто", ANNA)
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    assert "🗡 Борис атакует → Аня" in sent.text
    assert "✅ Сила 2: без броска, выигрыш считается равным 1" in sent.text
    assert "Попадание: выигрыш 1." in sent.text
    texts = [b.text for b in buttons(sent.reply_markup)]
    assert "Телесная рана 1" in texts
    assert all("🛡" not in t for t in texts)  # nobody defends against it
    physical = attack_button(sent.reply_markup, AttackAction.SPEND, c="p")
    await d6.tap(VERA, physical, mid)
    assert d6.session.answers[-1].show_alert  # the attacker (or the Storyteller) spends it
    await d6.tap(BORIS, physical, mid)
    sheet = await d6.store.load_sheet(d6.chat.id, ANNA.id, SheetSystem.D6)
    assert sheet is not None
    assert [(w.kind, w.magnitude) for w in sheet.wounds] == [(DifficultyKind.PHYSICAL_WOUND, 1)]
    assert await d6.store.redis.llen(log_key(d6.chat.id)) == 0  # no dice in the log


async def test_the_house_gain_of_an_attack_without_a_roll(d6: Table) -> None:
    await house(d6, "d6.auto_success_gain=3")
    await attack_replying(d6, BORIS, "/atk авто", ANNA)
    sent = d6.session.sent[-1]
    assert "✅ без броска, выигрыш считается равным 3" in sent.text
    assert "🏠 Выигрыш успеха без броска: 3" in sent.text
    assert "Телесная рана 3" in [b.text for b in buttons(sent.reply_markup)]
    await d6.say(BORIS, "/atk авто удача 1")
    assert "/atk авто — без броска" in last_text(d6)


async def test_stats_count_d6_rolls_and_an_efforts_fresh_dice_once(d6: Table) -> None:
    """/stats reads the d6 log lines (measures on d6, §D.3) and an effort's rerolls, not the
    dice it kept: counted again, kept 5s and 6s would make a fair die look loaded."""
    await d6.say(BORIS, "/set\nСила 2")
    d6.rng = Dealt(6, 2, 5)  # the roll: 6 2; the effort rerolls the 2 into a 5
    await d6.say(BORIS, "/r сила")
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, data_of(d6.session.sent[-1].reply_markup, D6Action.EFFORT, 0), mid)
    await d6.tap(BORIS, data_of(d6.session.edits[-1].reply_markup, D6Action.EFFORT, 1), mid)
    assert "Особое усилие" in d6.session.edits[-1].text
    await d6.say(BORIS, "/stats")
    text = last_text(d6)
    assert "1 бросок" in text, text
    assert "к6: кубиков 3" in text, text
    assert "<code>1:0 2:1 3:0 4:0 5:1 6:1</code>" in text, text
