"""The d6 tracker drawn for each of its states without a bot (ARCHITECTURE.md: a view is a pure
function of the flow's state); test_d6init.py presses the buttons that reach them."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from handlers.d6combat.tracker import view
from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from handlers.d6combat.tracker.flow import D6InitFlow, Member, Panel, npc_key, player_key
from rules import profiles
from rules.d6 import initiative as d6i
from table.store import Flow

D6 = profiles.get("d6")
ANNA, BANDIT = player_key(1), npc_key("Бандит <1>")
FLOW = Flow(id="D1", kind="d6init", chat_id=-5, owner_id=1, version=3, data={}, locale="ru")
FIGHT = d6i.start_round(
    [d6i.Combatant(id=ANNA, alacrity=3, hero=True), d6i.Combatant(id=BANDIT, alacrity=2)],
    faces={ANNA: [5, 5, 2], BANDIT: [3, 2]},
)
STATE = D6InitFlow(
    round=FIGHT,
    members={ANNA: Member(name="Аня & Co", user_id=1), BANDIT: Member(name="Бандит <1>")},
)


@pytest.fixture(autouse=True)
def russian(i18n: I18n) -> Iterator[None]:
    with i18n.context(), i18n.use_locale("ru"):
        yield


def pressed(markup: InlineKeyboardMarkup | None) -> list[tuple[str, D6InitAction, int, int]]:
    assert markup is not None
    found = []
    for row in markup.inline_keyboard:
        for button in row:
            assert button.callback_data is not None
            data = D6InitCallback.unpack(button.callback_data)
            assert (data.f, data.v) == (FLOW.id, FLOW.version)
            found.append((button.text, data.a, data.x, data.y))
    return found


def test_an_empty_fight_invites_the_players() -> None:
    text, markup = view.draw(FLOW, D6InitFlow(), D6)
    assert text.startswith("⚔️ Бой открыт, в нём пока никого нет.")
    assert [a for _t, a, _x, _y in pressed(markup)] == [D6InitAction.JOIN, D6InitAction.END]


def test_the_round_shows_each_fighters_dice_and_who_is_up() -> None:
    text, markup = view.draw(FLOW, STATE, D6)
    assert text.splitlines() == [
        "⚔️ Раунд 1 · инициатива d6",
        "▶ <b>Аня &amp; Co</b>: 🎲 5 5 2",
        "<b>Бандит &lt;1&gt;</b>: 🎲 3 2",
        "Ходит: Аня &amp; Co (кубик 5)",
    ]
    actions = [a for _t, a, _x, _y in pressed(markup)]
    assert actions[:3] == [D6InitAction.ATTACK, D6InitAction.ACT, D6InitAction.HOLD]
    assert D6InitAction.DEFEND not in actions  # nobody has acted: nothing to defend against


def test_the_targets_of_an_attack_are_named() -> None:
    text, markup = view.draw(FLOW, STATE.model_copy(update={"panel": Panel.TARGET}), D6)
    assert text.splitlines()[-1] == "⚔️ Кого атакует Аня &amp; Co? Нажмите на имя."
    assert pressed(markup) == [
        ("🎯 Бандит <1>", D6InitAction.ATTACK, 0, 1),
        ("↩ Назад", D6InitAction.PANEL, 0, -1),
    ]


def test_after_an_action_the_die_is_set_aside_and_a_defence_is_offered() -> None:
    acted = d6i.act(FIGHT, ANNA, random.Random(1))
    note = view.acted_note("Аня & Co", 5)
    text, markup = view.draw(FLOW, STATE.model_copy(update={"round": acted, "note": note}), D6)
    assert "▶ <b>Аня &amp; Co</b>: 🎲 5 2 · отложены: 5" in text
    assert text.splitlines()[-1] == note
    assert ("🛡 Защита", D6InitAction.DEFEND, 1, -1) in pressed(markup)


def test_the_storyteller_picks_an_npc_to_defend() -> None:
    _text, markup = view.draw(FLOW, STATE.model_copy(update={"panel": Panel.DEFEND}), D6)
    assert pressed(markup) == [
        ("Бандит <1>", D6InitAction.DEFEND, 0, 1),
        ("↩ Назад", D6InitAction.PANEL, 0, -1),
    ]


def test_the_fight_over_has_no_buttons() -> None:
    text, markup = view.draw(FLOW, STATE.model_copy(update={"ended": True}), D6)
    assert text.splitlines()[0] == "🏁 Бой окончен (раунд 1)."
    assert markup is None
