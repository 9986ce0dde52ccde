"""The round tracker drawn for each of its states without a bot: the view is a pure function
of the flow's state (ARCHITECTURE.md), so the text and the buttons are checked here, and the
taps that lead to each state in test_initiative.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from handlers.combat.tracker import view
from handlers.combat.tracker.callbacks import InitAction, InitCallback, Panel
from handlers.combat.tracker.flow import InitFlow, Note, NoteKind
from rules import profiles
from rules.combat import tracker
from rules.combat.situation import Condition
from rules.combat.tracker import Round
from rules.health import HealthTrack
from table.store import Flow

MAGE = profiles.get("mage")
ANNA = tracker.player_key(1)
GHOUL = tracker.npc_key("Гуль <1>")
FLOW = Flow(id="F1", kind="init", chat_id=-5, owner_id=1, version=4, data={}, locale="ru")


@pytest.fixture(autouse=True)
def russian(i18n: I18n) -> Iterator[None]:
    with i18n.context(), i18n.use_locale("ru"):
        yield


def two() -> Round:
    fight = tracker.join(Round(), key=ANNA, name="Аня", dex_wits=5, user_id=1, face=7)
    return tracker.join(fight, key=GHOUL, name="Гуль <1>", dex_wits=4, face=2)


def acting() -> Round:
    fight = tracker.start_declarations(two())
    for _ in range(2):
        declarer = fight.declarer()
        assert declarer is not None
        fight = tracker.declare(fight, declarer)
    return fight


def labels(markup: InlineKeyboardMarkup | None) -> list[list[str]]:
    assert markup is not None
    return [[button.text for button in row] for row in markup.inline_keyboard]


def actions(markup: InlineKeyboardMarkup | None) -> set[InitAction]:
    assert markup is not None
    found = set()
    for row in markup.inline_keyboard:
        for button in row:
            assert button.callback_data is not None
            data = InitCallback.unpack(button.callback_data)
            assert (data.f, data.v) == (FLOW.id, FLOW.version)
            found.add(data.a)
    return found


def test_gathering_lists_the_fighters_by_score_with_names_escaped() -> None:
    text, markup = view.draw(FLOW, InitFlow(round=two()), MAGE)
    lines = text.splitlines()
    assert lines[0] == "⚔️ <b>Бой</b> · раунд 1 · инициатива"
    assert lines[1] == "1. Аня — <b>12</b> (5+🎲7)"
    assert lines[2] == "2. Гуль &lt;1&gt; — <b>6</b> (4+🎲2)"
    assert "Бросайте инициативу" in text
    assert labels(markup)[:2] == [["🎲 Бросить инициативу"], ["▶️ Заявки"]]
    assert labels(markup)[-1] == ["⏹ Конец боя"]
    assert actions(markup) == {InitAction.ROLL, InitAction.START, InitAction.PANEL, InitAction.END}


def test_nobody_yet() -> None:
    text, markup = view.draw(FLOW, InitFlow(), MAGE)
    assert text.splitlines()[1] == "Пока никто не бросил."
    assert labels(markup)[0] == ["🎲 Бросить инициативу"]


def test_declarations_start_with_the_lowest_and_offer_a_defence() -> None:
    text, markup = view.draw(FLOW, InitFlow(round=tracker.start_declarations(two())), MAGE)
    assert "2. ✍️ Гуль &lt;1&gt;" in text
    assert "✍️ Гуль &lt;1&gt; заявляет действие" in text
    assert labels(markup)[0] == ["✅ Заявлено", "🛡 Защита", "➕ Ещё действие"]


def test_actions_mark_who_acts_with_health_and_offer_the_attack() -> None:
    state = InitFlow(round=acting(), health={ANNA: HealthTrack.parse("LL")})
    text, markup = view.draw(FLOW, state, MAGE)
    assert "1. ▶️ Аня — <b>12</b> (5+🎲7) · 🩸" in text
    assert "▶️ Аня действует." in text
    assert labels(markup)[0] == ["⚔️ Атака", "⏭ Дальше", "⏸ Отложить"]
    assert "✋ Прерывание" in labels(markup)[1]
    assert InitAction.STAND_UP not in actions(markup)


def test_a_prone_actor_may_stand_up() -> None:
    fallen = tracker.toggle_condition(acting(), ANNA, Condition.PRONE)
    _text, markup = view.draw(FLOW, InitFlow(round=fallen), MAGE)
    assert InitAction.STAND_UP in actions(markup)


def test_the_interruption_panel_lists_who_may_interrupt_and_the_table_difficulty() -> None:
    state = InitFlow(round=acting(), panel=Panel.INTERRUPT)
    text, markup = view.draw(FLOW, state, MAGE)
    assert "✋ Прерывание:" in text
    assert "сложности 6" in text
    assert labels(markup) == [
        ["🎲 Гуль <1>: бросок Силы Воли", "✨ Гуль <1>: −1 Сила Воли"],
        ["↩ Назад"],
    ]
    no_spend = MAGE.model_copy(
        update={"combat": MAGE.combat.model_copy(update={"interruption_by_wp_spend": False})}
    )
    _text, markup = view.draw(FLOW, state, no_spend)
    assert labels(markup)[0] == ["🎲 Гуль <1>: бросок Силы Воли"]


def test_panels_for_the_storyteller() -> None:
    npc = InitFlow(round=two(), panel=Panel.NPC)
    text, markup = view.draw(FLOW, npc, MAGE)
    assert "/init npc" in text
    assert InitAction.NPC_ADD in actions(markup)
    removing = InitFlow(round=two(), panel=Panel.REMOVE)
    assert labels(view.draw(FLOW, removing, MAGE)[1])[0] == ["✖ Аня", "✖ Гуль <1>"]
    picking = InitFlow(round=two(), panel=Panel.CONDITIONS)
    assert labels(view.draw(FLOW, picking, MAGE)[1])[0] == ["Аня", "Гуль <1>"]
    picked = picking.model_copy(update={"picked": GHOUL})
    assert InitAction.CONDITION in actions(view.draw(FLOW, picked, MAGE)[1])


def test_pending_players_choose_their_base() -> None:
    state = InitFlow(round=two(), pending=((3, "Вера & Co"),))
    text, markup = view.draw(FLOW, state, MAGE)
    assert "⏳ Вера &amp; Co:" in text
    assert InitAction.BASE in actions(markup)


def test_a_note_of_the_last_step_is_shown_until_the_next() -> None:
    note = Note(kind=NoteKind.INTERRUPT, name="Гуль <1>", ok=True, willpower_left=(2, 5))
    text, _markup = view.draw(FLOW, InitFlow(round=acting(), note=note), MAGE)
    assert "Гуль &lt;1&gt;" in view.note_text(note)
    assert view.note_text(note) in text


def test_the_round_over_and_the_fight_over() -> None:
    fight = acting()
    while fight.actor() is not None:
        fight = tracker.advance(fight)
    text, markup = view.draw(FLOW, InitFlow(round=fight), MAGE)
    assert "🏁" in text
    assert actions(markup) >= {InitAction.NEW_ROUND}
    text, markup = view.draw(FLOW, InitFlow(round=fight, ended=True), MAGE)
    assert text.endswith("⏹ Бой окончен.")
    assert markup is None
