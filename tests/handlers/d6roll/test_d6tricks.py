"""The tricks of docs/rules.md §D.12 that are actions of their own and change a later roll, through
the Dispatcher with dealt dice: «/r 3 разгон» helps the next attack, «/r 3 оборона» the next
defence, «/r 3 прицел 1» the next turn (G-D17), «/r 3 побег» hinders whoever attacks the
escapee. Each waits on the sheet, is spent by the roll it helps and lost on any other action."""

from __future__ import annotations

import pytest
from aiogram.types import User

from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback
from handlers.d6roll.callbacks import D6Action, D6Callback
from rules.d6.combat import Edge, Trick
from rules.sheet import SheetSystem
from table.store import log_key
from tests.handlers.conftest import Table, buttons, flows, player
from tests.handlers.dealt import Strict

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
EMMA = player(3, "Emma", "en")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    return table


def deal(table: Table, faces: list[int]) -> None:
    table.rng = Strict(list(faces))  # type: ignore[assignment]


async def edges_of(table: Table, who: User) -> tuple[Edge, ...]:
    sheet = await table.store.load_sheet(table.chat.id, who.id, SheetSystem.D6)
    return sheet.edges if sheet is not None else ()


def faces_line(text: str) -> str:
    return text.splitlines()[1]


def attack_faces(text: str) -> int:
    """How many dice the attack line of an /atk message shows."""
    return len(text.splitlines()[1].split(":")[-1].split("—")[0].split())


def press(markup: object, action: AttackAction, x: int | None = None) -> str:
    for button in buttons(markup):
        data = D6AttackCallback.unpack(button.callback_data or "")
        if data.a is action and (x is None or data.x == x):
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def reply_to(table: Table, author: User, replied_author: User, text: str) -> None:
    """``author`` says ``text`` as a reply to a message of ``replied_author``."""
    await table.say(author, text, reply_to=replied_author, replied_text="убегаю")


async def test_a_run_up_helps_the_next_attack_once(d6: Table) -> None:
    """Атака с разгона: S3 «преимущество для следующего действия, если этим действием будет
    атаковать противника» — two measures of the run-up, then an attack of 4 rolls 6 dice."""
    deal(d6, [5, 6, 1])
    await d6.say(ANNA, "/r 3 разгон")
    text = d6.session.sent[-1].text
    assert "🐎 Разгон: +2 к следующему действию, если это атака" in text
    assert "⏳ Записано в лист: это учтёт следующая атака (/atk)." in text
    assert await edges_of(d6, ANNA) == (Edge(trick=Trick.CHARGE, advantage=2),)
    await d6.say(ANNA, "/sheet")
    assert "<b>Наготове</b>: разгон +2 к следующей атаке" in d6.session.sent[-1].text
    deal(d6, [1] * 6)
    await d6.say(ANNA, "/atk 4")
    text = d6.session.sent[-1].text
    assert "4 + разгон 2: " in text
    assert attack_faces(text) == 6
    assert await edges_of(d6, ANNA) == ()  # spent
    deal(d6, [1] * 4)
    await d6.say(ANNA, "/atk 4")
    assert attack_faces(d6.session.sent[-1].text) == 4


async def test_a_run_up_is_lost_on_any_other_action(d6: Table) -> None:
    """S3 «если он сам решит предпринять какое-то другое действие, то преимущество
    потеряется»: a plain roll in between, or a defence, and the attack is back to its dice."""
    deal(d6, [5, 6, 1, 2, 2])
    await d6.say(ANNA, "/r 3 разгон")
    await d6.say(ANNA, "/r 2")
    assert "разгон" not in d6.session.sent[-1].text
    assert await edges_of(d6, ANNA) == ()
    deal(d6, [5, 6, 1, 1, 1, 1])
    await d6.say(ANNA, "/r 3 разгон")
    await d6.say(BORIS, "/atk 2")
    mid = d6.session.messages[-1].message_id
    await d6.tap(ANNA, press(d6.session.sent[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    assert "Anna защищается: " in d6.session.edits[-1].text  # one die, no «+ разгон»
    assert await edges_of(d6, ANNA) == ()


async def test_full_defence_helps_the_next_defence(d6: Table) -> None:
    """Глухая оборона: the gain is an advantage for the next action if it is a defence; the
    defence of 1 die rolls 3, and the next defence is back to 1."""
    deal(d6, [6, 5])
    await d6.say(BORIS, "/r 2 оборона")
    assert "🛡 Глухая оборона: +2 к следующему действию, если это защита" in (
        d6.session.sent[-1].text
    )
    deal(d6, [1, 1, 1, 6, 6, 1])
    await d6.say(ANNA, "/atk 3")
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, press(d6.session.sent[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    text = d6.session.edits[-1].text
    assert "🛡 Boris защищается (1 + глухая оборона 2): <b>6</b> <b>6</b> 1 — 2 меры" in text
    assert await edges_of(d6, BORIS) == ()
    await d6.tap(BORIS, press(d6.session.edits[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    assert d6.session.answers[-1].show_alert  # one response per attack, and nothing rolled
    deal(d6, [1, 1, 1, 5])
    await d6.say(ANNA, "/atk 3")
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, press(d6.session.sent[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    assert "🛡 Boris защищается: <b>5</b> — 1 мера" in d6.session.edits[-1].text


async def test_full_defence_is_lost_when_the_next_action_is_an_attack(d6: Table) -> None:
    deal(d6, [6, 5, 1, 1])
    await d6.say(BORIS, "/r 2 оборона")
    await d6.say(BORIS, "/atk 2")
    assert "оборона" not in d6.session.sent[-1].text.splitlines()[1]
    assert attack_faces(d6.session.sent[-1].text) == 2
    assert await edges_of(d6, BORIS) == ()


@pytest.mark.parametrize(
    ("aim", "faces", "label", "dice"),
    [
        # G-D17: the target's difficulty 1 and three measures: cancelled, +2 on the next turn.
        ("прицел 1", [5, 6, 6], "4 + прицел 2: ", 6),
        # One measure against a difficulty of 3: the attack carries what is left, −2.
        ("прицел 3", [5, 1, 1], "4 − цель 2 после прицела: ", 2),
    ],
)
async def test_g_d17_the_aim_changes_the_next_attack(
    d6: Table, aim: str, faces: list[int], label: str, dice: int
) -> None:
    deal(d6, faces)
    await d6.say(ANNA, f"/r 3 {aim}")
    assert "🎯 Прицеливание:" in d6.session.sent[-1].text
    deal(d6, [1] * dice)
    await d6.say(ANNA, "/atk 4")
    text = d6.session.sent[-1].text
    assert label in text
    assert attack_faces(text) == dice
    deal(d6, [1] * 4)
    await d6.say(ANNA, "/atk 4")  # S3 «после атаки персонажу вновь придётся прицелиться»
    assert attack_faces(d6.session.sent[-1].text) == 4


async def test_an_aim_serves_the_next_plain_roll_too(d6: Table) -> None:
    """«на следующий ход»: a shot at a small thing rolled with /r takes the aim as well."""
    deal(d6, [6, 6, 1, 1, 1, 1, 1])
    await d6.say(ANNA, "/r 2 прицел")
    await d6.say(ANNA, "/r 3")
    text = d6.session.sent[-1].text
    assert "шанс 5к6 (3 + прицел 2)" in text
    assert await edges_of(d6, ANNA) == ()


async def test_an_escape_hinders_whoever_attacks_the_escapee(d6: Table) -> None:
    """Побег: S3 «все твои меры успеха станут трудностью для тех, кто попытается тебя
    атаковать» — an /atk in reply to the escapee's message rolls two dice fewer, also after
    the escapee defended, until the escapee takes another action."""
    deal(d6, [5, 6, 1])
    await d6.say(ANNA, "/r 3 побег")
    assert "⏳ Записано в лист: это учтёт атака (/atk) ответом на сообщение беглеца." in (
        d6.session.sent[-1].text
    )
    await d6.say(ANNA, "/sheet")
    sheet = d6.session.sent[-1].text
    assert "<b>Наготове</b>: побег (−2 нападающим)" in sheet
    assert "Беспомощ" not in sheet  # a sheet with no powers yet is no helpless character
    deal(d6, [1, 1, 1])
    await reply_to(d6, BORIS, ANNA, "/atk 5")
    text = d6.session.sent[-1].text
    assert "5 − побег 2: " in text
    assert attack_faces(text) == 3
    mid = d6.session.messages[-1].message_id
    deal(d6, [1])
    await d6.tap(ANNA, press(d6.session.sent[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    assert await edges_of(d6, ANNA) == (Edge(trick=Trick.ESCAPE, difficulty=2),)
    deal(d6, [1, 1, 1, 1, 1])
    await d6.say(BORIS, "/atk 5")  # not in reply: the escapee is not named
    assert attack_faces(d6.session.sent[-1].text) == 5
    deal(d6, [1, 1])
    await d6.say(ANNA, "/r 2")  # she stops running
    assert await edges_of(d6, ANNA) == ()
    deal(d6, [1] * 5)
    await reply_to(d6, BORIS, ANNA, "/atk 5")
    assert attack_faces(d6.session.sent[-1].text) == 5


async def test_a_special_effort_on_a_run_up_changes_what_waits(d6: Table) -> None:
    """§D.4 on a trick's roll: the rerolled measures are what the run-up leaves."""
    deal(d6, [5, 1, 1])
    await d6.say(ANNA, "/r 3 разгон")
    assert await edges_of(d6, ANNA) == (Edge(trick=Trick.CHARGE, advantage=1),)
    mid = d6.session.messages[-1].message_id

    def effort(markup: object, x: int) -> str:
        for button in buttons(markup):
            data = D6Callback.unpack(button.callback_data or "")
            if data.a is D6Action.EFFORT and data.x == x:
                return button.callback_data or ""
        raise AssertionError("no effort button")

    await d6.tap(ANNA, effort(d6.session.sent[-1].reply_markup, 0), mid)
    deal(d6, [6, 6])
    await d6.tap(ANNA, effort(d6.session.edits[-1].reply_markup, 3), mid)  # for a memory
    assert "🐎 Разгон: +3" in d6.session.edits[-1].text
    assert await edges_of(d6, ANNA) == (Edge(trick=Trick.CHARGE, advantage=3),)


async def test_a_fiasco_leaves_nothing_waiting_and_ends_the_old_trick(d6: Table) -> None:
    deal(d6, [5, 6, 1, 1])
    await d6.say(ANNA, "/r 2 разгон")
    await d6.say(ANNA, "/r 2 оборона")
    assert "🛡 Глухая оборона: преимущества нет." in d6.session.sent[-1].text
    assert "⏳" not in d6.session.sent[-1].text
    assert await edges_of(d6, ANNA) == ()


@pytest.mark.parametrize(
    "line", ["/r 3 разгон оборона", "/r 3 прицел 1 побег", "/atk 4 разгон", "/atk 3 побег"]
)
async def test_one_trick_per_roll_and_none_on_an_attack(d6: Table, line: str) -> None:
    await d6.say(ANNA, line)
    text = d6.session.sent[-1].text
    assert "/r 3 разгон" in text  # the hint names where the tricks are rolled
    assert await flows(d6.store) == {}
    assert await d6.store.redis.llen(log_key(d6.chat.id)) == 0
    assert await d6.store.load_sheet(d6.chat.id, ANNA.id, SheetSystem.D6) is None


async def test_in_english(d6: Table) -> None:
    await d6.store.update_chat(d6.chat.id, locale="en")
    deal(d6, [6, 6, 1, 1, 1, 1])
    await d6.say(EMMA, "/r 2 charge")
    text = d6.session.sent[-1].text
    assert "🐎 Run-up: +2 to the next action if it is an attack" in text
    await d6.say(EMMA, "/atk 2")
    assert "2 + run-up 2: " in d6.session.sent[-1].text


async def test_the_wizard_counts_an_aim_and_spends_it(d6: Table) -> None:
    deal(d6, [6, 6])
    await d6.say(ANNA, "/r 2 прицел")
    await d6.say(ANNA, "/r")
    mid = d6.session.messages[-1].message_id

    def data(markup: object, action: D6Action, x: int = 0) -> str:
        for button in buttons(markup):
            parsed = D6Callback.unpack(button.callback_data or "")
            if parsed.a is action and parsed.x == x:
                return button.callback_data or ""
        raise AssertionError(f"no {action} button")

    await d6.tap(ANNA, data(d6.session.sent[-1].reply_markup, D6Action.CHANCE, 3), mid)
    assert "Шанс: 3 + прицел 2 = 5" in d6.session.edits[-1].text
    deal(d6, [1] * 5)
    await d6.tap(ANNA, data(d6.session.edits[-1].reply_markup, D6Action.ROLL), mid)
    assert "шанс 5к6 (3 + прицел 2)" in d6.session.edits[-1].text
    assert await edges_of(d6, ANNA) == ()
