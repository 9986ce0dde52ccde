"""A d6 project or challenge drawn without a bot: the readiness, the actions left, done,
failed, left unfinished, and the buttons while it goes on."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.d6project import view
from handlers.d6project.flow import ProjectFlow
from rules.d6.projects import Project, ProjectStatus
from table.store import Flow
from tests.handlers.views import buttons, labels, prefixes, speaking

FLOW = Flow(id="P", kind="d6project", chat_id=-1, owner_id=1, version=4, data={})
BRIDGE = ProjectFlow(
    title="Мост <через> реку",
    project=Project(scope=5, readiness=2),
    history=("Аня: <b>6</b> 5 → 2",),
)
CHALLENGE = ProjectFlow(
    project=Project(scope=4, readiness=1), actions=2, used={"1": 2}, names={"1": "Аня"}
)
CHANCES = [f"🎲{n}" for n in range(1, 9)]


def test_a_project_under_way(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, BRIDGE)
    assert text.splitlines() == [
        "🛠 Замысел (5) — <b>Мост &lt;через&gt; реку</b>",
        "Готовность: 2 из 5",
        "Аня: <b>6</b> 5 → 2",
        "Каждое действие: нажмите свой шанс или «Без броска», если ничто не мешает.",
    ]
    assert labels(keyboard) == [*CHANCES, "✅ Без броска", "⏹ Остановиться"]
    assert buttons(keyboard)[0] == ("🎲1", "d6p:P:4:r:1")
    assert buttons(keyboard)[-2:] == [
        ("✅ Без броска", "d6p:P:4:a:0"),
        ("⏹ Остановиться", "d6p:P:4:c:0"),
    ]
    assert prefixes(keyboard) == {"d6p"}
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, BRIDGE)
    assert text.splitlines()[:2] == [
        "🛠 Project (5) — <b>Мост &lt;через&gt; реку</b>",
        "Readiness: 2 of 5",
    ]
    assert labels(keyboard)[-2:] == ["✅ No roll needed", "⏹ Stop here"]


def test_a_challenge_counts_actions_and_ends_with_time(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, CHALLENGE)
    assert text.splitlines() == [
        "⏳ Вызов (4, 2)",
        "Готовность: 1 из 4",
        "Осталось действий: Аня 0",
        "Все, кто действовал, потратили свои действия: могут вступить ещё герои — "
        "или «Время вышло».",
    ]
    assert labels(keyboard)[-1] == "⌛ Время вышло"
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, CHALLENGE)
    assert text.splitlines()[:3] == [
        "⏳ Challenge (4, 2)",
        "Readiness: 1 of 4",
        "Actions left: Аня 0",
    ]
    assert buttons(keyboard)[-1] == ("⌛ Time is up", "d6p:P:4:c:0")


def test_ends_have_no_buttons(i18n: I18n) -> None:
    done = BRIDGE.model_copy(
        update={"project": Project(scope=5, readiness=6, status=ProjectStatus.COMPLETE, gain=1)}
    )
    failed = BRIDGE.model_copy(
        update={"project": Project(scope=5, readiness=-1, status=ProjectStatus.FAILED)}
    )
    late = CHALLENGE.model_copy(
        update={"project": Project(scope=4, readiness=2, status=ProjectStatus.FAILED_TIME)}
    )
    unfinished = BRIDGE.model_copy(update={"closed_unfinished": True})
    with speaking(i18n, "ru"):
        drawn = {
            name: view.draw(FLOW, state)
            for name, state in [
                ("done", done),
                ("failed", failed),
                ("late", late),
                ("unfinished", unfinished),
            ]
        }
    assert all(keyboard is None for _text, keyboard in drawn.values())
    assert drawn["done"][0].endswith("✅ Готово! Выигрыш 1.")
    assert drawn["failed"][0].endswith("\n❌ Замысел проваливается: готовность ушла ниже нуля.")
    assert drawn["late"][0].splitlines()[-2:] == [
        "⌛ Время вышло: вызов провален.",
        "Недоделанный замысел: он ещё может смягчить трудность на 2.",
    ]
    assert drawn["unfinished"][0].endswith("/r 4 -3 замысел 2.")
    with speaking(i18n, "en"):
        text, _none = view.draw(FLOW, late)
        unfinished_en, _none = view.draw(FLOW, unfinished)
    assert text.splitlines()[-2:] == [
        "⌛ Time is up: the challenge is failed.",
        "Left unfinished: it can still ease a difficulty by 2.",
    ]
    assert unfinished_en.endswith("add «project 2» to the roll: /r 4 -3 project 2.")
