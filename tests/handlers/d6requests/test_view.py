"""A d6 roll request drawn without a bot: what is asked, each answer, open or closed."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.d6requests import view
from handlers.d6requests.flow import D6Answer, D6RequestState
from rules import d6
from table.store import Flow
from tests.handlers.views import buttons, speaking

FLOW = Flow(id="F1", kind="d6request", chat_id=-5, owner_id=1, version=2, data={})
ANSWER = D6Answer(
    user_id=2, name="Аня", label="шанс 3", result=d6.roll(3, required=2, faces=(6, 5, 1))
)
ASKED = D6RequestState(powers=("сила", "ловкость"), required=2, asker="Мастер & <Я>")


def test_an_open_request_with_one_answer(i18n: I18n) -> None:
    state = ASKED.model_copy(update={"answers": (ANSWER,)})
    with speaking(i18n, "ru"):
        text = view.request_text(state, closed=False)
    assert text.splitlines() == [
        "📣 Мастер &amp; &lt;Я&gt; просит бросок: сила + ловкость, нужно мер успеха: 2",
        "<b>Аня</b> (шанс 3): <b>6</b> <b>5</b> 1 — <b>Успех</b>: 2 меры успеха · выигрыш 2",
        "Каждый бросает по своему листу.",
    ]
    with speaking(i18n, "en"):
        text = view.request_text(state, closed=True)
    assert text.splitlines()[1:] == [
        "<b>Аня</b> (шанс 3): <b>6</b> <b>5</b> 1 — <b>Success</b>: 2 measures of success · gain 2",
        "Closed.",
    ]


def test_one_measure_needed_is_not_said(i18n: I18n) -> None:
    state = ASKED.model_copy(update={"required": 1})
    with speaking(i18n, "ru"):
        text = view.request_text(state, closed=True)
    assert text == "📣 Мастер &amp; &lt;Я&gt; просит бросок: сила + ловкость\nЗакрыто."


def test_buttons_roll_and_close(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert buttons(view.keyboard(FLOW)) == [
            ("🎲 Бросить", "d6q:F1:2:r"),
            ("🔒 Закрыть", "d6q:F1:2:c"),
        ]
        assert "/ask" in view.usage_text()
    with speaking(i18n, "en"):
        assert buttons(view.keyboard(FLOW)) == [
            ("🎲 Roll!", "d6q:F1:2:r"),
            ("🔒 Close", "d6q:F1:2:c"),
        ]
        assert view.only_asker_text() == "The one who asked or the GM closes the request."
