"""/log and /stats drawn without a bot: a line per kind of roll, the pages and their buttons,
the statistics per player and the fairness of the dice."""

from __future__ import annotations

from typing import Any

from aiogram.utils.i18n import I18n

from handlers.history import view
from table import stats
from tests.handlers.views import buttons, speaking

D10 = {"name": "Аня", "pool": 5, "difficulty": 6, "outcome": "success", "successes": 2}
ENTRIES: list[dict[str, Any]] = [
    {**D10, "faces": [3, 9, 7, 1, 6]},
    {"name": "Борис", "sides": 6, "chance": 3, "measures": 2},
    {"name": "Рита", "hidden": True, "seq": 4},
    {
        "name": "Рита",
        "hidden": True,
        "seq": 3,
        "pool": 2,
        "difficulty": 6,
        "outcome": "botch",
        "successes": 0,
        "faces": [1, 2],
    },
]


def test_a_line_for_each_kind_of_roll(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        ru = [view.log_line(entry) for entry in ENTRIES]
    assert ru == [
        "Аня: 5к10, сложность 6 → <b>Успех</b>, 2 успеха (9 7 6 3 1)",
        "Борис: шанс 3к6 → 2 меры успеха",
        "🤫 Рита: тайный бросок №4",
        "📢 раскрыт №3 Рита: 2к10, сложность 6 → <b>Провал</b> (2 1)",
    ]
    with speaking(i18n, "en"):
        en = [view.log_line(entry) for entry in ENTRIES]
    assert en == [
        "Аня: 5d10, difficulty 6 → <b>Success</b>, 2 successes (9 7 6 3 1)",
        "Борис: chance 3d6 → 2 measures of success",
        "🤫 Рита: hidden roll #4",
        "📢 revealed #3 Рита: 2d10, difficulty 6 → <b>Botch</b> (2 1)",
    ]


def test_a_ritual_given_up_is_a_line_with_its_paradox(i18n: I18n) -> None:
    given_up = {"name": "Аня", "kind": "abandoned", "paradox": 2}
    with speaking(i18n, "ru"):
        assert view.log_line(given_up) == "✋ Аня: ритуал прерван → Парадокс +2"
        assert view.log_line({**given_up, "paradox": None}) == "✋ Аня: ритуал прерван"
    with speaking(i18n, "en"):
        assert view.log_line(given_up) == "✋ Аня: ritual given up → Paradox +2"
    counted = stats.chat_stats([given_up, {**D10, "user_id": 1, "faces": [3, 9, 7, 1, 6]}])
    assert [p.rolls for p in counted.players] == [1]  # no dice: /stats counts no roll


def test_pages_of_the_log_and_their_buttons(i18n: I18n) -> None:
    many = ENTRIES * 5  # 20 entries: a first page of 15, then 5 older
    with speaking(i18n, "ru"):
        first, shown = view.log_page(many)
        older, rest = view.log_page(many, 15)
        assert buttons(view.log_keyboard(0, shown, len(many))) == [("⬅ Раньше", "lg:15")]
        assert buttons(view.log_keyboard(15, rest, len(many))) == [("➡ Новее", "lg:0")]
        assert buttons(view.log_keyboard(10, 5, 30)) == [("⬅ Раньше", "lg:15"), ("➡ Новее", "lg:0")]
        assert view.log_keyboard(0, 3, 3) is None
        assert view.log_page([]) == ("Бросков здесь пока не было.", 0)
    assert (shown, rest) == (15, 5)
    assert first.splitlines()[0] == "📜 <b>Последние броски</b>"
    assert len(first.splitlines()) == 16
    assert older.splitlines()[0] == "📜 <b>Последние броски</b> · старее, с 16-го"
    with speaking(i18n, "en"):
        page, _shown = view.log_page(many, 10)
        assert buttons(view.log_keyboard(10, 10, 30)) == [("⬅ Older", "lg:20"), ("➡ Newer", "lg:0")]
        assert view.log_page([])[0] == "No rolls here yet."
    assert page.splitlines()[0] == "📜 <b>Recent rolls</b> · older, from 11"


def test_statistics_per_player_and_the_dice(i18n: I18n) -> None:
    rolls = [
        {**D10, "user_id": 1, "name": "Аня & <к>", "faces": [3, 9, 7, 1, 6]},
        {
            **D10,
            "user_id": 1,
            "name": "Аня & <к>",
            "outcome": "botch",
            "successes": 0,
            "faces": [1, 2, 4],
        },
        {
            **D10,
            "user_id": 2,
            "name": "Борис",
            "outcome": "failure",
            "successes": 0,
            "faces": [2, 4],
        },
    ]
    counted = stats.chat_stats(rolls)
    with speaking(i18n, "ru"):
        ru = view.stats_text(counted)
        assert view.stats_text(stats.chat_stats([])) == "Пока нечего считать: бросков не было."
    assert ru.splitlines() == [
        "📊 <b>Статистика за всю игру: 3 броска</b>",
        "Аня &amp; &lt;к&gt;: 2 броска, в среднем 1,0 успеха за бросок, 1 провал",
        "Борис: 1 бросок, в среднем 0,0 успеха за бросок",
        "",
        "<b>Честны ли кубики?</b>",
        "к10: кубиков 10, в среднем 3,90 (у честного кубика 5,5)",
        "<code>1:2 2:2 3:1 4:2 5:0 6:1 7:1 8:0 9:1 10:0</code>",
        "Пока мало кубиков, чтобы судить: для проверки нужно хотя бы 50 кубиков такого вида.",
    ]
    with speaking(i18n, "en"):
        en = view.stats_text(counted)
    assert en.splitlines()[:3] == [
        "📊 <b>Statistics of the whole game: 3 rolls</b>",
        "Аня &amp; &lt;к&gt;: 2 rolls, on average 1.0 successes per roll, 1 botch",
        "Борис: 1 roll, on average 0.0 successes per roll",
    ]
    assert "d10: 10 dice, average 3.90 (a fair die: 5.5)" in en
