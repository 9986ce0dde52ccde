"""Health drawn for each state of a wound and a track without a bot (ARCHITECTURE.md: a view is
a pure function of its state); test_health.py types the commands that reach them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiogram.utils.i18n import I18n

from handlers.combat.health import view
from handlers.combat.health.callbacks import HealthAction, HealthCallback
from handlers.combat.health.flow import WoundFlow
from rules import profiles
from rules.combat.damage import tally
from rules.health import DamageType, HealthTrack

MAGE = profiles.get("mage")
WOUND = WoundFlow(
    name="Том & Джерри",
    user_id=1,
    damage=DamageType.LETHAL,
    levels=3,
    dice=2,
    before=HealthTrack(),
    after=HealthTrack.parse("LLL"),
)


@pytest.fixture(autouse=True)
def russian(i18n: I18n) -> Iterator[None]:
    with i18n.context(), i18n.use_locale("ru"):
        yield


def test_a_wound_not_yet_soaked_offers_the_soak_and_the_care_it_needs() -> None:
    lines = view.wound_text(WOUND, WOUND.after, MAGE).splitlines()
    assert lines[0] == "💥 Том &amp; Джерри получает 3 уровня летального урона."
    assert lines[1] == "🛡 Том &amp; Джерри может поглотить урон: 2к10."
    assert lines[2].startswith("<b>Здоровье</b>: Травмы")
    assert lines[-1].startswith("🩺 Летальные раны ухудшаются")
    markup = view.wound_keyboard("W1", 1, 2)
    [[button]] = markup.inline_keyboard
    assert button.text == "🛡 Поглотить (2к10)"
    assert button.callback_data is not None
    assert HealthCallback.unpack(button.callback_data) == HealthCallback(
        f="W1", v=1, a=HealthAction.SOAK
    )


def test_a_soaked_wound_shows_the_roll_and_what_it_left() -> None:
    soaked = WOUND.model_copy(update={"soak": tally([7, 2], 6), "kept": 2})
    lines = view.wound_text(soaked, HealthTrack.parse("LL"), MAGE).splitlines()
    assert lines[1] == "🛡 Поглощение: <b>7</b> 2 — 1 успех → 2 уровня летального урона."
    whole = WOUND.model_copy(update={"soak": tally([7, 8], 6), "kept": 0})
    text = view.wound_text(whole, HealthTrack(), MAGE)
    assert "→ урон полностью поглощён." in text
    assert "<b>Здоровье</b>: Здоров" in text
    assert "🩺" not in text


def test_healing_and_the_track_alive_or_dead() -> None:
    healed = view.healed_text("Аня", 2, HealthTrack.parse("B"), MAGE).splitlines()
    assert healed[0] == "🩹 Аня восстанавливает 2 уровня."
    assert healed[-1] == "Следующий уровень заживёт через 1 час."
    assert view.hp_text("Аня <x>", HealthTrack(), MAGE).splitlines() == [
        "<b>Аня &lt;x&gt;</b>",
        "<b>Здоровье</b>: Здоров [· · · · · · ·]",
    ]
    dead = view.hp_text("Аня", HealthTrack((), dead=True), MAGE)
    assert dead.endswith("☠️ Мёртв.")
    assert "заживёт" not in dead


def test_the_track_says_what_a_doctor_saves_and_the_care_it_needs() -> None:
    """§B.12: the times assume first aid and rest; Medicine 2 or 4 heals a row or two faster,
    «Калека» needs regular care, «Без Сознания» constant care. The time itself stays last."""
    wounded = view.hp_text("Аня", HealthTrack.parse("LLLL"), MAGE).splitlines()
    assert wounded[-3:-1] == [
        "🧑‍⚕️ У врача, с лекарствами и уходом, заживёт быстрее: за 1 неделю при Медицине 2; "
        "за 3 дня при Медицине 4.",
        "Следующий уровень заживёт через 1 месяц.",
    ]
    crippled = view.hp_text("Аня", HealthTrack.parse("LLLLLL"), MAGE)
    assert "🛏 С «Калеки» без регулярного медицинского ухода до конца не поправиться." in crippled
    out = view.hp_text("Аня", HealthTrack.parse("LLLLLLL"), MAGE)
    assert "постоянный надзор и уход" in out
    assert "регулярного" not in out
    beaten = view.hp_text("Аня", HealthTrack.parse("BBBBB"), MAGE)
    assert "⚠️ Ударный урон от «Увечий» и ниже" in beaten
    # an hour whatever the care: no doctor's line, no care
    assert view.hp_text("Аня", HealthTrack.parse("BB"), MAGE).splitlines()[-1] == (
        "Следующий уровень заживёт через 1 час."
    )
    assert "🧑‍⚕️" not in view.hp_text("Аня", HealthTrack.parse("LLBB"), MAGE)
