"""The table rolls' wizard drawn without a bot: a pool and a target still to choose, ready to
roll, an opponent named, actions declared one by one, cancelled."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from bot.wizard import Opening, WizardChoice, WizardMode, WizardTarget
from handlers.wizard import view
from handlers.wizard.flow import SetupState
from rules import profiles
from rules.profiles import Profile
from table.store import Flow
from tests.handlers.views import buttons, labels, prefixes, rows, speaking

MAGE = profiles.HOUSE_MAGE
FLOW = Flow(id="W", kind="setup", chat_id=-1, owner_id=1, version=5, data={})
POOLS = [str(n) for n in range(1, 16)]
TARGETS = ["🏁3", "🏁5", "🏁7", "🏁10", "🏁15", "🏁20"]


def never(_choice: WizardChoice, _profile: Profile) -> Opening:
    raise AssertionError("drawing never opens the roll")


EXTENDED = WizardTarget(
    name="ext",
    title=lambda: "⏳ <b>Ext</b>",
    mode=lambda _profile: WizardMode.ONE_POOL,
    start=never,
    targets=True,
    target_required=True,
)
MULTI = WizardTarget(
    name="multi",
    title=lambda: "🔀 <b>Multi</b>",
    mode=lambda _profile: WizardMode.DECLARE,
    start=never,
    rolls_first=False,
)
OPPOSED = WizardTarget(
    name="vs", title=lambda: "⚔️ <b>Vs</b>", mode=lambda _profile: WizardMode.ONE_POOL, start=never
)
FRESH = SetupState(target_name="ext", roller="Аня & <к>", difficulty=6)


def test_nothing_chosen_yet(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, FRESH, EXTENDED, MAGE)
    assert text.splitlines() == [
        "⏳ <b>Ext</b> — Аня &amp; &lt;к&gt;",
        "Выберите запас кубиков.",
        "Сколько успехов нужно для длительного действия?",
    ]
    assert labels(keyboard) == [
        *POOLS,
        "🎯4",
        "🎯5",
        "[🎯6]",
        "🎯7",
        "🎯8",
        "🎯9",
        "🎯10",
        *TARGETS,
        "✖ Отменить",
    ]
    assert rows(keyboard)[0] == ["1", "2", "3", "4", "5"]
    assert buttons(keyboard)[-1] == ("✖ Отменить", "su:W:5:x:0")
    assert prefixes(keyboard) == {"su"}
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, FRESH, EXTENDED, MAGE)
    assert text.splitlines()[1:] == [
        "Choose the pool (number of dice).",
        "How many successes does the extended action need?",
    ]
    assert labels(keyboard)[-1] == "✖ Cancel"


def test_a_pool_shows_the_odds_and_a_target_makes_it_ready(i18n: I18n) -> None:
    pooled = FRESH.model_copy(update={"pool": 5})
    ready = pooled.model_copy(update={"target": 10})
    with speaking(i18n, "ru"):
        waiting, waiting_keys = view.draw(FLOW, pooled, EXTENDED, MAGE)
        text, keyboard = view.draw(FLOW, ready, EXTENDED, MAGE)
    assert waiting.splitlines()[1:] == [
        "5к10, сложность 6 (стандартно)",
        "Сколько успехов нужно для длительного действия?",
        "Шанс успеха 84,4%, провала 2,1%",
    ]
    assert "🎲 Бросить" not in labels(waiting_keys)  # the target is still missing
    assert text.splitlines()[2] == "цель 10"
    assert "[5]" in labels(keyboard)
    assert "[🏁10]" in labels(keyboard)
    assert buttons(keyboard)[-2:] == [("✖ Отменить", "su:W:5:x:0"), ("🎲 Бросить", "su:W:5:go:0")]
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, ready, EXTENDED, MAGE)
    assert text.splitlines()[2:] == ["target 10", "Chance of success 84.4%, of a botch 2.1%"]
    assert labels(keyboard)[-1] == "🎲 Roll!"


def test_an_opposed_roll_names_the_opponent(i18n: I18n) -> None:
    state = SetupState(target_name="vs", roller="Аня", difficulty=6, pool=4, opponent="Борис <Б>")
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, state, OPPOSED, MAGE)
    assert text.splitlines()[0] == "⚔️ <b>Vs</b> — Аня — Борис &lt;Б&gt;"
    assert not any(label.startswith("🏁") for label in labels(keyboard))  # no target to choose
    assert labels(keyboard)[-2:] == ["✖ Cancel", "🎲 Roll!"]


def test_actions_declared_one_by_one(i18n: I18n) -> None:
    state = SetupState(
        target_name="multi",
        mode=WizardMode.DECLARE,
        roller="Аня",
        difficulty=7,
        pools=(6, 5),
        difficulties=(6, 7),
    )
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, state, MULTI, MAGE)
    assert text.splitlines()[2:] == [
        "1. 6 → 4к10, сложность 6",
        "2. 5 → 2к10, сложность 7",
        "Следующее действие: сложность 7",
    ]
    assert labels(keyboard)[:2] == ["+1", "+2"]
    assert "[🎯7]" in labels(keyboard)
    assert buttons(keyboard)[-3:] == [
        ("✖ Отменить", "su:W:5:x:0"),
        ("↩", "su:W:5:un:0"),
        ("🎲 Бросить", "su:W:5:go:0"),
    ]
    with speaking(i18n, "en"):
        text, _keyboard = view.draw(FLOW, state, MULTI, MAGE)
    assert text.splitlines()[1] == (
        "Tap each action's pool in order; a difficulty applies to the pools tapped after it. "
        "Then «Roll!»."
    )


def test_cancelled(i18n: I18n) -> None:
    cancelled = FRESH.model_copy(update={"pool": 5, "cancelled": True})
    with speaking(i18n, "ru"):
        assert view.draw(FLOW, cancelled, EXTENDED, MAGE) == (
            "⏳ <b>Ext</b> — Аня &amp; &lt;к&gt;\n✖ Отменено.",
            None,
        )
    with speaking(i18n, "en"):
        text, _none = view.draw(FLOW, cancelled, EXTENDED, MAGE)
    assert text.endswith("\n✖ Cancelled.")
