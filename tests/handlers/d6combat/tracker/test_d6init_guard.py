"""«Защитить товарища» on the d6 tracker through the Dispatcher (docs/rules.md §D.9, S3 «защищать
себя или товарища»): the defender names whom they protect, sets aside their highest die, and a
slow defence of another is the chat's house rule (AMB-D8, ``d6.slow_defence_of_others``)."""

from __future__ import annotations

import pytest

from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from handlers.d6combat.tracker.flow import Panel
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.d6combat.tracker.test_d6init import last_screen, press, state_of
from tests.handlers.dealt import Dealt

ANNA = player(1, "Аня")  # the Storyteller
BORIS = player(2, "Борис")
VERA = player(3, "Вера")
GLEB = player(4, "Глеб")  # not in the fight


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(ANNA.id)
    return table


async def ghoul_strikes(table: Table) -> int:
    """The ghoul (a 6) acts first; Борис has a 2, Вера a 3. The tracker's message."""
    table.rng = Dealt(6, 2, 3)
    await table.say(ANNA, "/init npc Гуль 1")
    await table.say(BORIS, "/init 1")
    await table.say(VERA, "/init 1")
    mid = table.session.messages[-1].message_id
    _text, markup = last_screen(table)
    await table.tap(ANNA, press(markup, D6InitAction.ACT), mid)
    return mid


def named(markup: object, text: str) -> str:
    for button in buttons(markup):
        if button.text == text:
            return button.callback_data or ""
    raise AssertionError(f"no button {text}")


def names_in(markup: object) -> list[str]:
    return [b.text for b in buttons(markup)]


async def test_a_slow_defender_protects_a_teammate_by_the_book(d6: Table) -> None:
    mid = await ghoul_strikes(d6)
    _text, markup = last_screen(d6)
    assert "🤝 Защитить товарища" in names_in(markup)
    await d6.tap(BORIS, press(markup, D6InitAction.GUARD, -1), mid)
    text, picker = last_screen(d6)
    assert "🤝 Кого защищает ваш персонаж? Нажмите на имя." in text
    assert names_in(picker) == ["Борис", "Вера", "↩ Назад"]  # not the ghoul who struck
    await d6.tap(BORIS, press(picker, D6InitAction.GUARD, 2), mid)
    text, _markup = last_screen(d6)
    assert "Борис защищает товарища (Вера) и откладывает 2. Неспешная защита: −4." in text
    state = await state_of(d6)
    assert state.panel is Panel.NONE
    assert state.round is not None
    boris = next(f for f in state.round.fighters if f.sheet.id == "u2")
    assert boris.aside == (2,)
    await d6.tap(BORIS, press(picker, D6InitAction.GUARD, 2), mid)  # a double press
    assert (await state_of(d6)).round == state.round


async def test_the_house_rule_refuses_a_slow_defence_of_another(d6: Table) -> None:
    await d6.say(ANNA, "/rules set d6.slow_defence_of_others=off")
    mid = await ghoul_strikes(d6)
    _text, markup = last_screen(d6)
    await d6.tap(BORIS, press(markup, D6InitAction.GUARD, -1), mid)
    _text, picker = last_screen(d6)
    before = await state_of(d6)
    await d6.tap(BORIS, press(picker, D6InitAction.GUARD, 2), mid)
    alert = d6.session.answers[-1]
    assert alert.show_alert
    assert alert.text is not None
    assert alert.text.startswith("Неспешно защищать здесь можно только себя")
    assert "🏠 Неспешная защита других: нет" in alert.text
    assert (await state_of(d6)).round == before.round
    await d6.tap(BORIS, press(picker, D6InitAction.GUARD, 1), mid)  # himself: slow is fine
    text, _markup = last_screen(d6)
    assert "Борис защищается и откладывает 2. Неспешная защита: −4." in text


async def test_under_the_house_rule_a_die_as_high_still_protects_another(d6: Table) -> None:
    await d6.say(ANNA, "/rules set d6.slow_defence_of_others=off")
    d6.rng = Dealt(5, 6, 3)  # Борис is up with a 6 and holds it; the ghoul strikes with a 5
    await d6.say(ANNA, "/init npc Гуль 1")
    await d6.say(BORIS, "/init 1")
    await d6.say(VERA, "/init 1")
    mid = d6.session.messages[-1].message_id
    _text, markup = last_screen(d6)
    await d6.tap(BORIS, press(markup, D6InitAction.HOLD), mid)
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.ACT), mid)
    _text, markup = last_screen(d6)
    await d6.tap(BORIS, press(markup, D6InitAction.GUARD, -1), mid)
    _text, picker = last_screen(d6)
    await d6.tap(BORIS, press(picker, D6InitAction.GUARD, 2), mid)
    text, _markup = last_screen(d6)
    assert "Борис защищает товарища (Вера) и откладывает 6." in text
    assert "Неспешная защита: −" not in text.split("откладывает 6.")[1]


async def test_strangers_forged_and_stale_presses_change_nothing(d6: Table) -> None:
    mid = await ghoul_strikes(d6)
    _text, markup = last_screen(d6)
    await d6.tap(GLEB, press(markup, D6InitAction.GUARD, -1), mid)
    assert d6.session.answers[-1].text == "Вас нет в этом бою: /init — вступить."
    await d6.tap(BORIS, press(markup, D6InitAction.GUARD, -1), mid)
    _text, picker = last_screen(d6)
    before = await state_of(d6)
    await d6.tap(GLEB, press(picker, D6InitAction.GUARD, 2), mid)
    assert d6.session.answers[-1].show_alert
    shown = D6InitCallback.unpack(press(picker, D6InitAction.GUARD, 2))
    for y in (0, 9):  # the ghoul who struck, and nobody
        forged = D6InitCallback(f=shown.f, v=shown.v, a=D6InitAction.GUARD, x=shown.x, y=y)
        await d6.tap(VERA, forged.pack(), mid)
        assert d6.session.answers[-1].show_alert
    assert (await state_of(d6)).round == before.round
    await d6.tap(VERA, press(picker, D6InitAction.PANEL), mid)  # anyone in the fight goes back
    text, markup = last_screen(d6)
    assert "Кого защищает" not in text
    assert "🤝 Защитить товарища" in names_in(markup)
    assert (await state_of(d6)).panel is Panel.NONE


async def test_two_fighters_have_no_teammate_to_protect(d6: Table) -> None:
    d6.rng = Dealt(6, 2)
    await d6.say(ANNA, "/init npc Гуль 1")
    await d6.say(BORIS, "/init 1")
    mid = d6.session.messages[-1].message_id
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.ACT), mid)
    _text, markup = last_screen(d6)
    assert "🛡 Защита" in names_in(markup)
    assert "🤝 Защитить товарища" not in names_in(markup)


async def test_the_storyteller_has_an_npc_protect_another(d6: Table) -> None:
    d6.rng = Dealt(2, 3, 6)  # Гуль 1 a 2, Гуль 2 a 3, Борис a 6
    await d6.say(ANNA, "/init npc Гуль 1 x2")
    await d6.say(BORIS, "/init 1")
    mid = d6.session.messages[-1].message_id
    _text, markup = last_screen(d6)
    await d6.tap(BORIS, press(markup, D6InitAction.ACT), mid)
    _text, markup = last_screen(d6)
    guard = press(markup, D6InitAction.GUARD, -1)
    await d6.tap(VERA, guard, mid)  # neither in the fight nor the Storyteller
    assert d6.session.answers[-1].text == "Вас нет в этом бою: /init — вступить."
    await d6.tap(ANNA, guard, mid)
    text, picker = last_screen(d6)
    assert "🤝 Кто защищает товарища? Нажмите на имя." in text
    assert names_in(picker) == ["Гуль 1", "Гуль 2", "↩ Назад"]
    await d6.tap(BORIS, named(picker, "Гуль 2"), mid)  # the Storyteller's choice
    assert d6.session.answers[-1].text == "Это делает только сценарист."
    await d6.tap(ANNA, named(picker, "Гуль 2"), mid)
    text, picker = last_screen(d6)
    assert "🤝 Кого защищает Гуль 2? Нажмите на имя." in text
    assert names_in(picker) == ["Гуль 1", "Гуль 2", "↩ Назад"]  # not Борис, who struck
    await d6.tap(ANNA, named(picker, "Гуль 1"), mid)
    text, _markup = last_screen(d6)
    assert "Гуль 2 защищает товарища (Гуль 1) и откладывает 3. Неспешная защита: −3." in text
    state = await state_of(d6)
    assert state.panel is Panel.NONE
    assert state.guard_by is None
