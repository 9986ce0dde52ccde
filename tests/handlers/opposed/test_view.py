"""The opposed roll's message drawn without a bot: the second side choosing its pool and
difficulty, a race to a number of successes, the winner, cancelled."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.opposed import view
from handlers.opposed.flow import OpposedFlow, Party
from rules import d10, profiles
from rules.contests import Side
from table.store import Flow
from tests.handlers.views import buttons, labels, prefixes, speaking

MAGE = profiles.HOUSE_MAGE
FLOW = Flow(id="F", kind="vs", chat_id=-1, owner_id=1, version=3, data={})
ANYA = Party(user_id=1, name="Аня", pool=5, difficulty=6)
BORIS = Party(username="boris", name="Борис <Б>", difficulty=6)
POOLS = [str(n) for n in range(1, 16)]


def roll(*faces: int) -> d10.D10Result:
    return d10.resolve(list(faces), 6, MAGE)


def test_the_other_side_chooses_pool_and_difficulty(i18n: I18n) -> None:
    waiting = OpposedFlow(a=ANYA, b=BORIS, roll_a=roll(9, 8, 3, 2, 1))
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, waiting, MAGE)
    assert text.splitlines() == [
        "⚔️ <b>Противостояние</b>: Аня — Борис &lt;Б&gt;",
        "Аня: 5к10, сложность 6 (стандартно)",
        "<b>9</b> <b>8</b> 3 2 <s>1</s> → <b>Успех</b>: 1 успех",
        "Борис &lt;Б&gt;: выберите запас кубиков и сложность и бросайте.",
    ]
    # No pool chosen yet: no roll button; the difficulty in force is marked.
    assert labels(keyboard) == [
        *POOLS,
        "🎯4",
        "🎯5",
        "[🎯6]",
        "🎯7",
        "🎯8",
        "🎯9",
        "🎯10",
        "⏹ Отменить",
    ]
    assert prefixes(keyboard) == {"o"}
    chosen = waiting.model_copy(update={"b": BORIS.model_copy(update={"pool": 4})})
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, chosen, MAGE)
    assert text.splitlines()[0] == "⚔️ <b>Opposed roll</b>: Аня — Борис &lt;Б&gt;"
    assert "[4]" in labels(keyboard)
    assert buttons(keyboard)[-2:] == [
        ("🎲 Roll: Борис <Б>", "o:F:3:gb:0"),
        ("⏹ Cancel", "o:F:3:cx:0"),
    ]


def test_a_race_shows_the_rounds_and_both_roll_buttons(i18n: I18n) -> None:
    race = OpposedFlow(
        a=ANYA,
        b=BORIS.model_copy(update={"pool": 4}),
        race_to=3,
        rounds=((2, 1, 2, 1),),
        total_a=2,
        total_b=1,
    )
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, race, MAGE)
    assert text.splitlines()[:2] == [
        "⚔️ <b>Противостояние</b>: Аня — Борис &lt;Б&gt; · до 3 успехов",
        "Раунд 1: Аня 2, Борис &lt;Б&gt; 1 · счёт 2:1",
    ]
    assert buttons(keyboard) == [
        ("🎲 Бросает Аня", "o:F:3:ga:0"),
        ("🎲 Бросает Борис <Б>", "o:F:3:gb:0"),
        ("⏹ Отменить", "o:F:3:cx:0"),
    ]


def test_finished_and_cancelled_have_no_buttons(i18n: I18n) -> None:
    won = OpposedFlow(
        a=ANYA,
        b=BORIS.model_copy(update={"pool": 2}),
        roll_a=roll(9, 8, 7, 3, 2),
        roll_b=roll(7, 2),
        finished=True,
        winner=Side.A,
        net=2,
    )
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, won, MAGE)
        cancelled, none = view.draw(FLOW, OpposedFlow(a=ANYA, b=BORIS, cancelled=True), MAGE)
    assert keyboard is None
    assert none is None
    assert text.splitlines()[-1] == "🏆 <b>Побеждает Аня с перевесом в 2 успеха</b>"
    assert cancelled.endswith("\n⏹ Отменено.")
    with speaking(i18n, "en"):
        text, _keyboard = view.draw(FLOW, won, MAGE)
    assert text.splitlines()[-2:] == [
        "<b>7</b> 2 → <b>Success</b>: 1 success",
        "🏆 <b>Аня wins by 2 successes</b>",
    ]
