"""The round tracker keeps the language it was opened in, whoever taps it (bot/i18n.py).

Outside contract: in a Russian group, an English-speaking player's tap on the round tracker
leaves its text in Russian.
"""

from __future__ import annotations

import re

from tests.handlers.combat.tracker.test_initiative import ANNA, BORIS, press, screen
from tests.handlers.conftest import Table, player

JOHN = player(7, "John", "en")
CYRILLIC = re.compile("[А-Яа-яЁё]")


async def test_an_english_tap_leaves_a_russian_tracker_russian(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/init 6")
    await table.say(BORIS, "/init 5")
    _mid, text, _markup = screen(table)
    assert text.startswith("⚔️ <b>Бой</b> · раунд 1")
    await press(table, JOHN, "Бросить инициативу")  # no sheet: John is asked for his base
    _mid, text, markup = screen(table)
    assert text.startswith("⚔️ <b>Бой</b> · раунд 1")
    assert "Combat" not in text
    assert "round" not in text
    assert "John" in text
    assert markup is not None
    await press(table, JOHN, "6")  # John's base from the tracker's buttons
    await table.say(JOHN, "/init 4")  # a command of his redraws the tracker too
    _mid, text, markup = screen(table)
    assert "John" in text
    assert text.startswith("⚔️ <b>Бой</b>")
    assert markup is not None
    labels = [b.text for row in markup.inline_keyboard for b in row]
    assert all(CYRILLIC.search(label) for label in labels if re.search("[A-Za-z]", label))
    assert not any("Roll initiative" in label for label in labels)


async def test_an_alert_for_the_english_presser_is_in_english(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/init 6")
    mid, _text, _markup = screen(table)
    await table.tap(JOHN, "init:garbled", mid)
    answer = table.session.answers[-1]
    assert answer.text
    assert not CYRILLIC.search(answer.text)


async def test_an_english_tracker_stays_english_for_a_russian_tap(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(JOHN, "/init 6")
    await table.say(ANNA, "/init 5")  # a Russian command redraws an English tracker
    await press(table, BORIS, "Roll initiative")
    _mid, text, _markup = screen(table)
    assert text.startswith("⚔️ <b>Combat</b> · round 1")
    assert not CYRILLIC.search(text.replace("Аня", "").replace("Борис", ""))


async def test_the_chats_language_wins(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/lang en")
    await table.say(ANNA, "/init 6")
    _mid, text, _markup = screen(table)
    assert text.startswith("⚔️ <b>Combat</b>")


async def test_a_refusal_on_a_russian_tracker_is_in_the_pressers_language(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/init 6")
    before = screen(table)
    await press(table, JOHN, "Заявки")  # only whoever runs the game starts the declarations
    answer = table.session.answers[-1]
    assert answer.show_alert
    assert answer.text
    assert "Storyteller" in answer.text
    assert screen(table) == before
