"""``/prob``: the exact numbers of rules.probability, as a chart."""

from __future__ import annotations

import re

from rules import probability, profiles
from tests.handlers.conftest import Table, player

ANNA = player(1, "Anna")
EMMA = player(3, "Emma", "en")


def pct(p: float) -> str:
    return f"{p * 100:.1f}%"


async def test_prob_numbers_equal_the_rules(table: Table) -> None:
    await table.say(EMMA, "/prob 7 6")
    text = table.session.sent[-1].text
    mage = profiles.get("mage")
    odds = probability.d10(pool=7, difficulty=6, profile=mage)
    dark = probability.d10(
        pool=7, difficulty=6, profile=mage.model_copy(update={"botch_rule": "net_negative"})
    )
    assert f"Success: {pct(odds.success)}" in text
    assert f"Failure: {pct(odds.failure)}" in text
    assert f"Botch by the Mage rule (no successes and a 1): {pct(odds.botch)}" in text
    assert f"Botch by the Dark Ages rule (more 1s than successes): {pct(dark.botch)}" in text
    chart = re.search(r"<pre>(.*)</pre>", text, re.S)
    assert chart is not None
    rows = chart.group(1).splitlines()
    for k, row in enumerate(rows):
        assert row.startswith(f"{k:>2} ")
        p = odds.successes.get(k, 0.0)
        assert row.endswith(pct(p) if p >= 0.001 else "<0.1%")
    assert len(rows) <= 9  # 0–8 successes at most with 7 dice and no Willpower


async def test_prob_in_russian_with_willpower_and_threshold(table: Table) -> None:
    await table.say(ANNA, "/prob 6 7 св пор1")
    text = table.session.sent[-1].text
    odds = probability.d10(
        pool=6, difficulty=7, profile=profiles.get("mage"), willpower=True, threshold=1
    )
    assert "6к10, сложность 7 (немного сложно), пороговое значение 1, Сила Воли" in text
    assert "Успех: " + pct(odds.success).replace(".", ",") in text
    assert "Провал по правилу Мага" in text


async def test_prob_bad_input_gets_a_prob_example(table: Table) -> None:
    await table.say(ANNA, "/prob 7 12")
    text = table.session.sent[-1].text
    assert "В этой игре сложность — от 4 до 10." in text
    assert "Пример: /prob 7 6" in text
    await table.say(ANNA, "/prob")
    assert "Сколько кубиков?" in table.session.sent[-1].text
