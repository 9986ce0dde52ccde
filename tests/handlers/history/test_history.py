"""``/log`` and ``/stats`` through the Dispatcher, and their words."""

from __future__ import annotations

import re
from typing import Any

from aiogram.utils.i18n import I18n

from bot import hidden_rolls
from bot.names import NAME_MAX
from handlers.history import view
from table import stats
from table.store import LOG_CAP, HiddenRecord
from tests.handlers.conftest import GROUP, Table, buttons, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
EMMA = player(3, "Emma", "en")


def record(seq: int, revealed: bool) -> HiddenRecord:
    return HiddenRecord(
        seq=seq,
        chat_id=GROUP.id,
        owner_id=9,
        name="Mira",
        profile="mage",
        pool=3,
        payload="p",
        nonce="n",
        commitment="c",
        result={
            "faces": [10, 6, 1],
            "difficulty": 6,
            "threshold": 0,
            "willpower": False,
            "raw_successes": 2,
            "ones": 1,
            "net": 1,
            "successes": 1,
            "outcome": "success",
            "botch_severity": 0,
            "degree": "marginal",
        },
        revealed=revealed,
    )


async def test_log_lists_recent_rolls_newest_first(table: Table) -> None:
    await table.say(ANNA, "/r 7 6")
    await table.say(BORIS, "/r 3 8")
    await table.say(BORIS, "/log")
    text = table.session.sent[-1].text
    lines = text.splitlines()
    assert lines[0] == "📜 <b>Последние броски</b>"
    assert lines[1].startswith("Boris: 3к10, сложность 8 → <b>")
    assert lines[2].startswith("Anna: 7к10, сложность 6 → <b>Успех</b>, 2 успеха (")
    logged = await table.store.recent_rolls(GROUP.id)
    faces = " ".join(str(f) for f in sorted(logged[1]["faces"], reverse=True))
    assert lines[2].endswith(f"({faces})")


async def test_log_of_an_empty_chat(table: Table) -> None:
    await table.say(EMMA, "/log")
    assert table.session.sent[-1].text == "No rolls here yet."


async def test_log_shows_at_most_fifteen_rolls(table: Table) -> None:
    for _ in range(18):
        await table.say(ANNA, "/r 2 6")
    await table.say(ANNA, "/log")
    assert len(table.session.sent[-1].text.splitlines()) == 1 + view.LOG_LINES


async def test_stats_counts_per_player_and_judges_the_dice(table: Table) -> None:
    for _ in range(3):
        await table.say(ANNA, "/r 10 6")
    await table.say(BORIS, "/r 5 6")
    await table.say(BORIS, "/stats")
    text = table.session.sent[-1].text
    expected = stats.chat_stats(await table.store.recent_rolls(GROUP.id))
    anna = next(p for p in expected.players if p.user_id == ANNA.id)
    mean = f"{anna.mean_successes:.1f}".replace(".", ",")
    assert text.startswith("📊 <b>Статистика за всю игру: 4 броска</b>")
    assert f"Anna: 3 броска, в среднем {mean} успеха за бросок" in text
    assert "Boris: 1 бросок, " in text
    assert "<b>Честны ли кубики?</b>" in text
    fair = expected.dice[10]
    assert f"к10: кубиков {fair.total}, в среднем" in text
    counts = " ".join(f"{face}:{n}" for face, n in enumerate(fair.counts, start=1))
    assert f"<code>{counts}</code>" in text
    assert "Пока мало кубиков, чтобы судить: для проверки нужно хотя бы 50 кубиков" in text


async def test_stats_of_a_crowded_log_fit_one_message(table: Table) -> None:
    # More rolls than the log keeps, by 70 players with Telegram's longest names: one
    # message, most active first, every roll of the game counted.
    for n in range(LOG_CAP + 10):
        roller = player(100 + n % 70, "Я" * 60 + f"{n % 70:04d}")
        await table.say(roller, "/r 10 6")
    await table.say(ANNA, "/stats")
    text = table.session.sent[-1].text
    assert text.startswith(f"📊 <b>Статистика за всю игру: {LOG_CAP + 10} бросков</b>")
    assert f"к10: кубиков {10 * (LOG_CAP + 10)}," in text
    assert len(text) <= 4096
    # Each name is drawn cut to bot.names.NAME_MAX characters, the cut marked.
    assert text.count("Я" * (NAME_MAX - 1) + "…") == view.PLAYERS_SHOWN
    assert "Я" * NAME_MAX not in text
    assert "…и ещё 45 игроков" in text
    assert "<b>Честны ли кубики?</b>" in text


async def test_stats_of_an_empty_chat(table: Table) -> None:
    await table.say(ANNA, "/stats")
    assert table.session.sent[-1].text == "Пока нечего считать: бросков не было."


def test_merge_history_hides_until_revealed() -> None:
    marker = {"hidden": True, "seq": 1, "user_id": 9, "name": "Mira"}
    plain = {"user_id": 1, "name": "Anna", "pool": 2, "difficulty": 6, "faces": [3, 7]}
    d6 = {"user_id": 2, "name": "Boris", "system": "d6", "chance": 2, "faces": [5, 1]}
    d6["measures"] = 1
    hidden = hidden_rolls.merge_history([marker, plain, d6], {1: record(1, revealed=False)})
    assert hidden[0] == marker
    assert hidden[1] == plain
    assert (hidden[2]["successes"], hidden[2]["sides"]) == (1, 6)
    assert stats.tally(hidden) == stats.tally(hidden[1:])  # the marker counts for nothing

    shown = hidden_rolls.merge_history([marker], {1: record(1, revealed=True)})
    assert shown[0]["faces"] == [10, 6, 1]
    assert shown[0]["successes"] == 1
    counted = stats.chat_stats(shown)
    assert counted.rolls == 1
    assert counted.players[0].name == "Mira"


def test_a_damaged_or_foreign_entry_never_breaks_the_log(i18n: I18n) -> None:
    entries: list[dict[str, Any]] = [
        {"name": "Anna", "kind": "teamwork"},
        {"hidden": True, "seq": "x"},
        {"name": "<b>", "pool": True, "difficulty": 6, "outcome": "weird", "faces": ["a"]},
    ]
    with i18n.context(), i18n.use_locale("ru"):
        text = view.log_text(hidden_rolls.merge_history(entries, {}))
    lines = text.splitlines()
    assert lines[1] == "Anna"
    assert lines[2] == "🤫 ?: тайный бросок №x"
    assert lines[3] == "&lt;b&gt;"


def test_verdicts_in_words(i18n: I18n) -> None:
    fair = stats.fairness([10] * 10)
    loaded = stats.fairness([60] + [4] * 9)
    odd = stats.fairness([17, 3, 6, 5, 8, 5, 5, 4, 4, 3])
    few = stats.fairness([1, 2, 0, 0, 0, 0, 1, 0, 0, 0])
    assert fair.verdict is stats.Verdict.LOOKS_FAIR
    assert loaded.verdict is stats.Verdict.VERY_UNLIKELY
    assert odd.verdict is stats.Verdict.SUSPICIOUS, odd.p_value
    assert few.verdict is stats.Verdict.NOT_ENOUGH_DATA
    with i18n.context(), i18n.use_locale("ru"):
        assert view.verdict_sentence(fair) == (
            "Кубики выглядят честными: у честного кубика такой разброс граней — "
            "обычное дело (p = 1,000)."
        )
        assert view.verdict_sentence(loaded).startswith("Очень маловероятно для честного кубика")
        assert view.verdict_sentence(odd).startswith("Необычный разброс")
        assert "хотя бы 50 кубиков" in view.verdict_sentence(few)
    with i18n.context(), i18n.use_locale("en"):
        sentence = view.verdict_sentence(fair)
        assert sentence == (
            "The dice look fair: a fair die spreads its faces like this quite often (p = 1.000)."
        )
        assert re.search(r"p = 0\.0\d\d", view.verdict_sentence(odd))


async def test_english_log_and_stats(table: Table) -> None:
    await table.say(EMMA, "/r 4 6")
    await table.say(EMMA, "/log")
    assert table.session.sent[-1].text.startswith(
        "📜 <b>Recent rolls</b>\nEmma: 4d10, difficulty 6"
    )
    await table.say(EMMA, "/stats")
    text = table.session.sent[-1].text
    assert text.startswith(
        "📊 <b>Statistics of the whole game: 1 roll</b>\nEmma: 1 roll, on average "
    )
    assert "<b>Are the dice fair?</b>\nd10: 4 dice, average " in text
    assert "the check needs at least 50 dice of this kind." in text


async def test_a_long_log_fits_a_message_and_pages_back(table: Table) -> None:
    """docs/product.md §5: a message is at most 4096 characters; fifty-dice rolls by a long name
    make long lines, so a page holds what fits and «Раньше» shows the older ones."""
    long_name = player(77, "Александра-Виктория " * 3)
    for _ in range(30):
        await table.say(long_name, "/r 50 6")
    await table.say(long_name, "/log")
    first = table.session.sent[-1]
    assert len(first.text) <= 4096
    labels = [b.text for b in buttons(first.reply_markup)]
    assert labels == ["⬅ Раньше"]
    mid = table.session.messages[-1].message_id
    shown = first.text.count("\n")
    await table.tap(long_name, buttons(first.reply_markup)[0].callback_data or "", mid)
    page = table.session.edits[-1]
    assert len(page.text) <= 4096
    assert f"старее, с {shown + 1}-го" in page.text
    assert "➡ Новее" in [b.text for b in buttons(page.reply_markup)]
    await table.tap(long_name, "lg:999999", mid)
    assert table.session.answers[-1].show_alert
