"""The d6 contest drawn without a bot: waiting for an opponent, room for more sides or none,
the winner and every fiasco."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.d6contest import view
from handlers.d6contest.flow import ContestFlow, Side
from rules import d6
from table.store import Flow
from tests.handlers.views import buttons, labels, speaking

FLOW = Flow(id="F", kind="d6vs", chat_id=-1, owner_id=1, version=3, data={})
ANYA = Side(key="1", name="Аня & <к>", label="шанс 3", faces=(6, 5, 1), measures=2)
BORIS = Side(key="2", name="Борис", label="шанс 2", faces=(2, 1), measures=0)
CHANCES = [f"🎲{n}" for n in range(1, 9)]


def test_one_side_waits_for_an_opponent(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, ContestFlow(sides=(ANYA,)))
    assert text.splitlines() == [
        "⚔️ Состязание d6",
        "<b>Аня &amp; &lt;к&gt;</b> (шанс 3): <b>6</b> <b>5</b> 1 — 2 меры",
        "Кто против? Нажмите свой шанс, чтобы бросить.",
    ]
    assert labels(keyboard) == CHANCES  # no «Result» with one side
    assert buttons(keyboard)[0] == ("🎲1", "d6v:F:3:j:1")
    with speaking(i18n, "en"):
        text, _keyboard = view.draw(FLOW, ContestFlow(sides=(ANYA,)))
    assert text.splitlines()[0] == "⚔️ A d6 contest"
    assert text.splitlines()[-1] == "Who opposes? Press your chance to roll."


def test_two_sides_may_call_it_and_more_may_join_when_the_rules_allow(i18n: I18n) -> None:
    two = ContestFlow(sides=(ANYA, BORIS))
    with speaking(i18n, "ru"):
        full, only_result = view.draw(FLOW, two, 2)
        open_text, open_keyboard = view.draw(FLOW, two)
    assert full.splitlines()[-1] == "«Итог» подводит черту."
    assert buttons(only_result) == [("🏁 Итог", "d6v:F:3:r:0")]
    assert open_text.splitlines()[-1] == "Могут вступить и другие; «Итог» подводит черту."
    assert labels(open_keyboard) == [*CHANCES, "🏁 Итог"]
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, two, 2)
    assert text.splitlines()[-2:] == [
        "<b>Борис</b> (шанс 2): 2 1 — 0 measures",
        "«Result» calls it.",
    ]
    assert labels(keyboard) == ["🏁 Result"]


def test_the_outcome_names_the_winner_and_the_fiasco(i18n: I18n) -> None:
    done = ContestFlow(sides=(ANYA, BORIS), outcome=d6.contest({"1": 2, "2": 0}))
    tie = ContestFlow(
        sides=(ANYA, ANYA.model_copy(update={"key": "2", "name": "Вера"})),
        outcome=d6.contest({"1": 2, "2": 2}),
    )
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, done)
        tied, _none = view.draw(FLOW, tie)
    assert keyboard is None
    assert text.splitlines()[-2:] == [
        "🏆 Побеждает Аня &amp; &lt;к&gt;, выигрыш 2.",
        "Фиаско: Борис (осложнение — кто бы ни победил).",
    ]
    assert tied.splitlines()[-1].startswith("🤝 ")
    assert "Аня &amp; &lt;к&gt;, Вера" in tied
    with speaking(i18n, "en"):
        text, _keyboard = view.draw(FLOW, done)
    assert text.splitlines()[-2:] == [
        "🏆 Аня &amp; &lt;к&gt; wins, gain 2.",
        "Fiasco: Борис (a complication, whoever won).",
    ]
