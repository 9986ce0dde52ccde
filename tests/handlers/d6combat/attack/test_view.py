"""A d6 attack drawn for each of its states without a bot (ARCHITECTURE.md: a view is a pure
function of the flow's state); test_d6attack.py presses the buttons that reach them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from handlers.d6combat.attack import view
from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback, GainChoice
from handlers.d6combat.attack.flow import D6AttackFlow, Roll
from rules import profiles
from rules.d6.combat import resolve_attack
from table.store import Flow

D6 = profiles.get("d6")
FLOW = Flow(id="E1", kind="d6attack", chat_id=-5, owner_id=1, version=1, data={}, locale="ru")
ATTACK = Roll(key="u1", name="Аня & Co", user_id=1, faces=(6, 5, 2), measures=2)
BANDIT = Roll(key="n:бандит <1>", name="Бандит <1>", faces=(4,), measures=1)
ROLLED = D6AttackFlow(
    attack=ATTACK, label="Шанс 3", target_name="Бандит <1>", target_npc="Бандит <1>"
)
DEFENDED = ROLLED.model_copy(update={"defences": (BANDIT,)})


@pytest.fixture(autouse=True)
def russian(i18n: I18n) -> Iterator[None]:
    with i18n.context(), i18n.use_locale("ru"):
        yield


def actions(markup: InlineKeyboardMarkup | None) -> list[AttackAction]:
    assert markup is not None
    found = []
    for row in markup.inline_keyboard:
        for button in row:
            assert button.callback_data is not None
            data = D6AttackCallback.unpack(button.callback_data)
            assert (data.f, data.v) == (FLOW.id, FLOW.version)
            found.append(data.a)
    return found


def test_a_rolled_attack_waits_for_defences_armour_and_the_result() -> None:
    text, markup = view.draw(FLOW, ROLLED, D6)
    assert text.splitlines() == [
        "🗡 Аня &amp; Co атакует → Бандит &lt;1&gt;",
        "Шанс 3: <b>6</b> <b>5</b> 2 — 2 меры",
        "Защитники нажимают свой шанс; броня — после защиты или вместо неё; затем «Итог».",
    ]
    assert set(actions(markup)) == {AttackAction.DEFEND, AttackAction.ARMOUR, AttackAction.RESOLVE}


def test_a_defence_is_shown_under_the_attack() -> None:
    text, _markup = view.draw(FLOW, DEFENDED, D6)
    assert text.splitlines()[2] == "🛡 Бандит &lt;1&gt; защищается: 4 — 1 мера"


def test_a_hit_asks_the_attacker_to_spend_the_gain() -> None:
    hit = DEFENDED.model_copy(
        update={"outcome": resolve_attack(2, {BANDIT.key: 1}, None, attacker=ATTACK.key)}
    )
    text, markup = view.draw(FLOW, hit, D6)
    assert text.splitlines()[-2:] == [
        "⚔️ Попадание: выигрыш 1.",
        "Нападающий распоряжается выигрышем:",
    ]
    assert set(actions(markup)) == {AttackAction.SPEND}


def test_a_parried_attack_gives_the_defender_an_advantage_and_closes() -> None:
    parried = DEFENDED.model_copy(
        update={"outcome": resolve_attack(1, {BANDIT.key: 2}, None, attacker=ATTACK.key)}
    )
    text, markup = view.draw(FLOW, parried, D6)
    assert text.splitlines()[-2:] == [
        "Ран нет: защита и броня погасили всё (это не фиаско).",
        "Бандит &lt;1&gt;: преимущество +1 на следующее действие против нападавшего.",
    ]
    assert markup is None


def test_the_usage_names_the_gm_in_the_d6_words(i18n: I18n) -> None:
    """The d6 texts call the one who runs the game «сценарист»; in English, the GM."""
    with i18n.use_locale("en"):
        english = view.usage_text() + view.name_the_npc_text()
    assert "attacks the GM's NPC; the GM's /atk Ataman" in english
    assert "Storyteller" not in english
    russian = view.usage_text() + view.name_the_npc_text()
    assert "атака на НПС сценариста; сценарист пишет" in russian
    assert "Рассказчик" not in russian


def test_a_defence_with_no_measures_is_named_a_fiasco() -> None:
    flat = BANDIT.model_copy(update={"faces": (3,), "measures": 0})
    state = ROLLED.model_copy(
        update={
            "defences": (flat,),
            "outcome": resolve_attack(2, {flat.key: 0}, None, attacker=ATTACK.key),
        }
    )
    text, _markup = view.draw(FLOW, state, D6)
    assert "💥 Бандит &lt;1&gt;: фиаско в защите — будет осложнение." in text.splitlines()


def test_a_grapple_offers_the_gains_split_between_the_hold_and_the_wounds() -> None:
    hit = ROLLED.model_copy(update={"outcome": resolve_attack(3, {}, None, attacker=ATTACK.key)})
    _text, markup = view.draw(FLOW, hit, D6)
    assert markup is not None
    grapples = [
        (button.text, D6AttackCallback.unpack(button.callback_data or "").x)
        for row in markup.inline_keyboard
        for button in row
        if D6AttackCallback.unpack(button.callback_data or "").c == GainChoice.GRAPPLE
    ]
    assert grapples == [("Захват", 0), ("🤼 Захват −2 · рана 1", 2), ("🤼 Захват −3", 3)]


def test_a_grapple_with_more_in_the_hold_wounds_with_the_rest() -> None:
    from handlers.d6combat.attack.tap import wound_of
    from rules.d6.chance import DifficultyKind

    outcome = resolve_attack(3, {}, None, attacker=ATTACK.key)
    assert wound_of(GainChoice.GRAPPLE, outcome, D6, hold=2) == (DifficultyKind.PHYSICAL_WOUND, 1)
    assert wound_of(GainChoice.GRAPPLE, outcome, D6, hold=3) is None
    spent = ROLLED.model_copy(update={"outcome": outcome, "spent": GainChoice.GRAPPLE, "hold": 2})
    text, _markup = view.draw(FLOW, spent, D6)
    assert text.splitlines()[-1] == (
        "Захват: Бандит &lt;1&gt; в захвате (−2, пока держат). Раны: телесная рана 1."
    )
