"""The attack panel drawn for each stage of an attack without a bot (ARCHITECTURE.md: a view
is a pure function of the flow's state); test_attack.py plays the taps that reach them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from handlers.combat.attack import view
from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.attack.flow import (
    RANGED,
    AttackFlow,
    Defence,
    Desperate,
    Guard,
    Past,
    Reach,
    Side,
    Stage,
)
from rules import profiles
from rules.combat.damage import tally
from rules.combat.manoeuvres import Manoeuvre
from rules.combat.situation import Cover
from rules.d10 import resolve
from rules.health import DamageType, HealthTrack
from table.store import Flow

MAGE = profiles.get("mage")
ANNA = Side(key="u1", name="Аня", user_id=1, ratings={"dexterity": 3, "brawl": 2, "strength": 2})
GHOUL = Side(key="n:Гуль <1>", name="Гуль <1>", ratings={"stamina": 2, "dodge": 1})
FLOW = Flow(id="A1", kind="atk", chat_id=-5, owner_id=1, version=2, data={}, locale="ru")
SETUP = AttackFlow(attacker=ANNA, targets=(GHOUL,))
ROLLED = SETUP.model_copy(
    update={"target": 0, "stage": Stage.DEFENCE, "attack": resolve([8, 9, 2, 3, 4], 6, MAGE)}
)


@pytest.fixture(autouse=True)
def russian(i18n: I18n) -> Iterator[None]:
    with i18n.context(), i18n.use_locale("ru"):
        yield


def pressed(markup: InlineKeyboardMarkup | None) -> list[tuple[str, AtkAction, int]]:
    assert markup is not None
    found = []
    for row in markup.inline_keyboard:
        for button in row:
            assert button.callback_data is not None
            data = AtkCallback.unpack(button.callback_data)
            assert (data.f, data.v) == (FLOW.id, FLOW.version)
            found.append((button.text, data.a, data.x))
    return found


def test_setup_shows_the_plan_and_offers_manoeuvres_targets_and_weapons() -> None:
    text, markup = view.draw(FLOW, SETUP, MAGE)
    lines = text.splitlines()
    assert lines[0] == "⚔️ <b>Атака</b>: Аня → …"
    assert lines[1] == "Удар (Драка): 5к10, сложность 6 · урон 2к10, ударный"
    assert lines[2].startswith("🎯 ")
    buttons = pressed(markup)
    assert ("🎯 Гуль <1>", AtkAction.TARGET, 0) in buttons
    assert ("[Удар]", AtkAction.MANOEUVRE, 0) in buttons
    assert buttons[-1] == ("✖ Отменить", AtkAction.CANCEL, 0)


def test_the_rolled_attack_asks_the_target_for_a_defence() -> None:
    text, markup = view.draw(FLOW, ROLLED, MAGE)
    assert "Аня → Гуль &lt;1&gt;" in text
    assert "Атака: <b>9</b> <b>8</b> 4 3 2 — 2 успеха" in text
    assert text.splitlines()[-1].startswith("🛡 Гуль &lt;1&gt; защищается")
    defences = [(action, x) for _text, action, x in pressed(markup)]
    assert defences == [
        *((AtkAction.DEFEND, x) for x in (1, 2, 3, 4, 0)),
        (AtkAction.CANCEL, 0),  # an attack nobody answers never holds the fight
    ]


def test_a_target_with_no_declared_defence_is_offered_the_interruption() -> None:
    text, markup = view.draw(FLOW, ROLLED.model_copy(update={"guard": Guard.INTERRUPT}), MAGE)
    assert "✋ Гуль &lt;1&gt;: защита не заявлена." in text
    buttons = pressed(markup)
    assert {action for _t, action, _x in buttons} == {
        AtkAction.INTERRUPT,
        AtkAction.DEFEND,
        AtkAction.CANCEL,
    }
    assert buttons[-2] == ("Без защиты", AtkAction.DEFEND, 0)
    assert buttons[-1] == ("✖ Отменить", AtkAction.CANCEL, 0)


def test_a_desperate_defender_keeps_to_it() -> None:
    held = (Desperate(key=GHOUL.key, defence=Defence.DESPERATE_DODGE, met=1),)
    text, _markup = view.draw(FLOW, ROLLED.model_copy(update={"desperate": held}), MAGE)
    assert text.splitlines()[-1] == (
        "🛡 Гуль &lt;1&gt; — в отчаянной защите на этот ход (отчаянное уклонение): 2-я атака за ход."
    )


def test_a_defended_attack_is_a_miss_and_the_panel_closes() -> None:
    missed = ROLLED.model_copy(
        update={
            "stage": Stage.DONE,
            "defence": Defence.DODGE,
            "defence_roll": resolve([9, 9], 6, MAGE),
        }
    )
    text, markup = view.draw(FLOW, missed, MAGE)
    assert text.splitlines()[-2:] == [
        "Защита (уклонение): <b>9</b> <b>9</b> — 2 успеха",
        "🛡 Промах.",
    ]
    assert markup is None


def test_a_hit_shows_damage_soak_and_the_health_it_left() -> None:
    hit = ROLLED.model_copy(
        update={
            "stage": Stage.DONE,
            "defence": Defence.NONE,
            "net": 2,
            "damage": tally([6, 7, 2], 6),
            "soak": tally([2, 3], 6),
            "levels": 2,
            "damage_kind": DamageType.BASHING,
            "track_after": HealthTrack.parse("BB"),
        }
    )
    text, markup = view.draw(FLOW, hit, MAGE)
    assert "🎯 Попадание: 2 успеха сверх защиты." in text
    assert "Урон: <b>7</b> <b>6</b> 2 — 2 успеха" in text
    assert "Поглощение: 3 2 — 0 успехов" in text
    assert "🩸 Гуль &lt;1&gt; получает 2 уровня ударного урона." in text
    assert markup is None


def test_earlier_attacks_stay_above_and_a_cancelled_one_says_so() -> None:
    past = Past(attacker="Вера & Co", target="Гуль <1>", manoeuvre=Manoeuvre.STRIKE, hit=False)
    text, markup = view.draw(
        FLOW, SETUP.model_copy(update={"stage": Stage.CANCELLED, "history": (past,)}), MAGE
    )
    lines = text.splitlines()
    assert "Вера &amp; Co" in lines[0]
    assert lines[-1] == "✖ Атака отменена."
    assert markup is None


def test_the_house_line_names_only_what_shaped_this_attack() -> None:
    """A changed rule of the care of wounds never shaped an attack; its soak difficulty did."""
    care = MAGE.model_copy(
        update={"combat": MAGE.combat.model_copy(update={"stabilise_difficulty": 8})}
    )
    soak = MAGE.model_copy(update={"combat": MAGE.combat.model_copy(update={"soak_difficulty": 7})})
    untouched, _keys = view.draw(FLOW, ROLLED, care)
    tagged, _keys = view.draw(FLOW, ROLLED, soak)
    assert "🏠" not in untouched
    assert "🏠" in tagged


def _difficulty(text: str) -> int:
    return int(text.splitlines()[1].split("сложность ")[1].split()[0])


def test_the_shooters_own_cover_and_a_called_shot_raise_the_difficulty() -> None:
    """§B.7 S4: «Стрельба из укрытия» partial free, full +1, added to the target's cover;
    a body part +1…+3 by its size, in melee too; the panel names both."""
    shot = SETUP.model_copy(
        update={"reach": Reach.RANGED, "manoeuvre": RANGED[0], "weapon": 4, "target": 0}
    )
    base, markup = view.draw(FLOW, shot, MAGE)
    labels = [text for text, _a, _x in pressed(markup)]
    assert "🏠 я без укрытия" in labels
    assert "🎯 часть тела: нет" in labels
    partial, _keys = view.draw(FLOW, shot.model_copy(update={"own_cover": Cover.PARTIAL}), MAGE)
    assert _difficulty(partial) == _difficulty(base)
    assert "стреляет из частичного укрытия" in partial
    full = shot.model_copy(update={"own_cover": Cover.FULL, "cover": Cover.PARTIAL, "called": 1})
    text, markup = view.draw(FLOW, full, MAGE)
    assert _difficulty(text) == _difficulty(base) + 1 + 1 + 1
    assert "стреляет из полного укрытия" in text
    assert "в часть тела +1" in text
    labels = [text for text, _a, _x in pressed(markup)]
    assert "🏠 я в полном укрытии" in labels
    assert "🎯 часть тела +1" in labels
    # in melee a called blow counts; the shooter's cover does not
    blow = SETUP.model_copy(update={"own_cover": Cover.FULL, "called": 1, "target": 0})
    plain, _keys = view.draw(FLOW, SETUP.model_copy(update={"target": 0}), MAGE)
    assert _difficulty(view.draw(FLOW, blow, MAGE)[0]) == _difficulty(plain) + 1
