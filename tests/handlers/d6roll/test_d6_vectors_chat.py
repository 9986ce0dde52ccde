"""G-D vectors of docs/rules.md §E.2 through the chat, with the dice dealt: G-D02 (a chance of 0,
and luck), G-D03 (measures), G-D04 (fiasco, shortfall), G-D05 (the special effort), G-D06
(contests), G-D07–G-D09 (projects and a challenge), G-D17 (an aim and the attack it helps),
G-D19 (an unfinished project easing a later difficulty), G-D20 (helplessness, and a luck die
lifting it). The others run in the feature tests beside this one."""

from __future__ import annotations

import pytest
from aiogram.types import User

from handlers.d6project.callbacks import ProjectAction, ProjectCallback
from handlers.d6roll.callbacks import D6Action
from rules.d6.chance import DifficultyKind
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.d6roll.test_d6roll import data_of
from tests.handlers.dealt import Strict

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    return table


async def test_g_d02_a_chance_of_nothing_and_a_luck_die(d6: Table) -> None:
    await d6.say(ANNA, "/set\nСила 1\nСлабость 1\nКубики удачи 1")
    await d6.say(ANNA, "/r сила слаб")
    assert "шанс 0 или меньше" in d6.session.sent[-1].text
    await d6.say(ANNA, "/r сила слаб удача 1")
    assert "шанс 1к6" in d6.session.sent[-1].text


@pytest.mark.parametrize(
    ("line", "faces", "says"),
    [
        ("/r 5", [1, 5, 6, 4, 6], "<b>Успех</b>: 3 меры успеха"),  # G-D03
        ("/r 3", [1, 2, 3], "<b>Фиаско</b>"),  # G-D04
        ("/r 2 2", [5, 1], "<b>Недостаточно</b>: 1 мера успеха"),  # G-D04, AMB-D3
    ],
)
async def test_g_d03_g_d04_measures_fiasco_and_shortfall(
    d6: Table, line: str, faces: list[int], says: str
) -> None:
    d6.rng = Strict(list(faces))  # type: ignore[assignment]
    await d6.say(ANNA, line)
    assert says in d6.session.sent[-1].text


async def test_g_d05_a_special_effort_for_a_mental_wound(d6: Table) -> None:
    """5,2,3 → the 2 and the 3 rerolled to 6 and 1: 5,6,1, two measures, a mental wound 3
    after the action."""
    await d6.say(ANNA, "/set\nСила 3")
    d6.rng = Strict([5, 2, 3, 6, 1])  # type: ignore[assignment]
    await d6.say(ANNA, "/r сила")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    await d6.tap(ANNA, data_of(sent.reply_markup, D6Action.EFFORT, 0), mid)
    await d6.tap(ANNA, data_of(d6.session.edits[-1].reply_markup, D6Action.EFFORT, 2), mid)
    text = d6.session.edits[-1].text
    assert "2 меры успеха" in text
    assert "Особое усилие за душевную рану 3" in text
    sheet = await d6.store.load_sheet(d6.chat.id, ANNA.id, SheetSystem.D6)
    assert sheet is not None
    assert [(w.kind, w.magnitude) for w in sheet.wounds] == [(DifficultyKind.MENTAL_WOUND, 3)]


@pytest.mark.parametrize(
    ("faces", "says"),
    [
        ([5, 6, 6, 5, 1, 1], "Побеждает Anna, выигрыш 2."),  # 3:1
        ([5, 6, 1, 5, 6, 1], "Ничья:"),  # 2:2
        ([1, 2, 3, 1, 2, 3], "Фиаско: Anna, Соперник 1"),  # 0:0, a tie and both fiascoes
        ([1, 2, 3, 5, 6, 1], "Побеждает Соперник 1, выигрыш 2."),  # 0:2, A's fiasco
    ],
)
async def test_g_d06_a_contest_against_an_opponent_at_once(
    d6: Table, faces: list[int], says: str
) -> None:
    d6.rng = Strict(list(faces))  # type: ignore[assignment]
    await d6.say(ANNA, "/vs 3 3")
    assert says in d6.session.sent[-1].text


async def test_g_d07_a_project_through_a_fiasco_to_its_gain(d6: Table) -> None:
    """Scope 5, weakness 2; measures 2, 0 (a fiasco: −2), 4, 3 → R 2, 0, 4, 7: done, gain 2."""
    await d6.say(ANNA, "/set\nСила 2\nСлабость 2")
    faces = [5, 6, 1, 1, 1, 1, 1, 1, 5, 5, 6, 6, 5, 6, 6, 1]  # 2, 0, 4, 3 measures
    d6.rng = Strict(faces)  # type: ignore[assignment]
    await d6.say(ANNA, "/project 5")
    readiness = await project_rolls(d6, 4, 4)
    assert "2 из 5" in readiness[0]
    assert "0 из 5" in readiness[1]
    assert "4 из 5" in readiness[2]
    assert "Готово! Выигрыш 2." in readiness[3]


async def project_rolls(
    d6: Table, chance: int, rolls: int, who: list[User] | None = None
) -> list[str]:
    """Press the chance ``rolls`` times under the last project message (by ``who`` in turn,
    Anna by default): each step's text."""
    mid = d6.session.messages[-1].message_id
    texts = []
    for k in range(rolls):
        shown = d6.session.edits[-1].reply_markup if d6.session.edits else None
        markup = shown or d6.session.sent[-1].reply_markup
        data = next(
            b.callback_data or ""
            for b in buttons(markup)
            if (p := ProjectCallback.unpack(b.callback_data or "")).a is ProjectAction.ROLL
            and p.x == chance
        )
        await d6.tap(who[k % len(who)] if who else ANNA, data, mid)
        texts.append(d6.session.edits[-1].text)
    return texts


@pytest.mark.parametrize(
    ("weakness", "scope", "faces", "says"),
    [
        ("Слабость 2", 5, [1, 1], ["Замысел проваливается"]),  # R −2
        ("", 5, [1, 1], ["Замысел проваливается"]),  # no weakness: R −3
        ("Слабость 1", 3, [5, 1, 1, 1], ["1 из 3", "0 из 3"]),  # R 1 → 0, still going
    ],
)
async def test_g_d08_a_fiasco_costs_the_weakness(
    d6: Table, weakness: str, scope: int, faces: list[int], says: list[str]
) -> None:
    await d6.say(ANNA, "/set\nСила 2" + (f"\n{weakness}" if weakness else ""))
    d6.rng = Strict(list(faces))  # type: ignore[assignment]
    await d6.say(ANNA, f"/project {scope}")
    texts = await project_rolls(d6, 2, len(says))
    for text, said in zip(texts, says, strict=True):
        assert said in text


@pytest.mark.parametrize(
    ("faces", "says"),
    [
        # H1 2, H2 0 (a fiasco: −1), H1 3, H2 1 → R 2, 1, 4, 5: done with gain 0.
        ([5, 6, 1, 1, 1, 1, 5, 5, 6, 5, 1, 1], "Готово! Выигрыш 0."),
        # one measure each time → R 4 when all four actions are spent: time is up.
        ([5, 1, 1] * 4, "потратили свои действия"),
    ],
)
async def test_g_d09_a_challenge_of_two_heroes(d6: Table, faces: list[int], says: str) -> None:
    for hero in (ANNA, BORIS):
        await d6.say(hero, "/set\nСила 2\nСлабость 1")
    d6.rng = Strict(list(faces))  # type: ignore[assignment]
    await d6.say(ANNA, "/project 5 действий 2")
    texts = await project_rolls(d6, 3, 4, [ANNA, BORIS])
    assert says in texts[-1]
    if "потратили" in says:
        markup = d6.session.edits[-1].reply_markup
        stop = next(b for b in buttons(markup) if "Время вышло" in b.text)
        await d6.tap(BORIS, stop.callback_data or "", d6.session.messages[-1].message_id)
        assert d6.session.answers[-1].show_alert  # the opener's call, or the Storyteller's
        await d6.tap(ANNA, stop.callback_data or "", d6.session.messages[-1].message_id)
        assert "Время вышло: вызов провален." in d6.session.edits[-1].text


async def test_g_d17_an_aim_cancels_the_difficulty_and_helps_the_next_attack(d6: Table) -> None:
    """Target difficulty 1, three measures of aiming: cancelled, +2 on the next turn — the next
    attack of 3 rolls 5 dice; after it one aims again."""
    d6.rng = Strict([5, 6, 6, 6, 6, 1, 1, 1, 1, 1, 1])  # type: ignore[assignment]
    await d6.say(ANNA, "/r 3 прицел 1")
    text = d6.session.sent[-1].text
    assert "🎯 Прицеливание: трудность цели 1 снята. +2 на следующий ход" in text
    await d6.say(ANNA, "/atk 3")
    lines = d6.session.sent[-1].text.splitlines()
    assert lines[1] == "3 + прицел 2: <b>6</b> <b>6</b> 1 1 1 — 2 меры"
    await d6.say(ANNA, "/atk 3")
    assert d6.session.sent[-1].text.splitlines()[1].startswith("3: 1 1 1")


async def test_g_d19_an_unfinished_project_eases_a_later_difficulty(d6: Table) -> None:
    """A project left at readiness 2 says how to use it; against a difficulty of 3 it leaves
    1: a chance of 4 rolls 3 dice."""
    await d6.say(ANNA, "/set Сила 2")
    d6.rng = Strict([5, 6, 1, 1, 6, 6, 1])  # type: ignore[assignment]
    await d6.say(ANNA, "/project 5 Мост")
    texts = await project_rolls(d6, 4, 1)
    assert "2 из 5" in texts[0]
    mid = d6.session.messages[-1].message_id
    stop = next(
        b.callback_data or ""
        for b in buttons(d6.session.edits[-1].reply_markup)
        if ProjectCallback.unpack(b.callback_data or "").a is ProjectAction.CLOSE
    )
    await d6.tap(ANNA, stop, mid)
    assert "смягчить трудность на 2 — допишите к броску «замысел 2»: /r 4 -3 замысел 2" in (
        d6.session.edits[-1].text
    )
    await d6.say(ANNA, "/r 4 -3 замысел 2")
    text = d6.session.sent[-1].text
    assert "шанс 3к6 (4 − 1 (незавершённый замысел 2 смягчает −3 до −1))" in text
    assert text.splitlines()[1].count("6") == 2  # the dealt 6, 6, 1


async def test_g_d20_helpless_without_luck_and_not_with_a_luck_die(d6: Table) -> None:
    """Every chance ≤ 0 and no luck: helpless, said where the roll is refused; with a luck die
    the character rolls again."""
    await d6.say(ANNA, "/set\nСила 1\nЛовкость 1")
    await d6.say(ANNA, "/dmg 2 тел")
    assert "⛓ Беспомощ" in d6.session.sent[-1].text
    await d6.say(ANNA, "/r сила+ловкость")
    assert "шанс 0 или меньше" in d6.session.sent[-1].text
    assert "⛓ Беспомощ" in d6.session.sent[-1].text
    await d6.say(ANNA, "/set кубики удачи 1")
    d6.rng = Strict([5])  # type: ignore[assignment]
    await d6.say(ANNA, "/r сила+ловкость удача 1")
    text = d6.session.sent[-1].text
    assert "шанс 1к6" in text
    assert "<b>Успех</b>: 1 мера успеха" in text
    assert "Беспомощ" not in text
