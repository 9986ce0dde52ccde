"""The screen's line of a roll it asked for, pure, in both languages."""

from __future__ import annotations

from dataclasses import replace

from bot.roll_requests import Answer
from handlers.screen.table import Requested
from handlers.screen.view import requested_line
from rules import d10
from rules.actions import PoolStatus
from rules.profiles import HOUSE_MAGE
from tests.handlers.screen.test_tap import CAMPAIGN, SCREEN
from tests.handlers.stepping import speaking

ASKED = SCREEN.model_copy(
    update={"request": "r1", "request_to": "u:1", "request_pool": 0, "request_difficulty": 7}
)
ROLLED = d10.resolve([9, 8, 3, 1], 7, HOUSE_MAGE)


def line(requested: Requested | None, lang: str) -> str | None:
    with speaking(lang):
        return requested_line(ASKED, replace(CAMPAIGN, requested=requested), lang)


def test_waiting_then_the_result_then_closed() -> None:
    waiting = Requested("Аня", None, closed=False)
    assert line(waiting, "ru") == ("📣 Аня: Восприятие+Бдительность, сложность 7 — ждём броска")
    assert (
        line(waiting, "en") == "📣 Аня: Perception+Alertness, difficulty 7 — waiting for the roll"
    )
    rolled = line(Requested("Аня", Answer(PoolStatus.ROLL, ROLLED), closed=False), "ru")
    assert rolled is not None
    assert rolled.startswith("📣 Аня: Восприятие+Бдительность, сложность 7: ")
    assert rolled.endswith("<b>9</b> <b>8</b> 3 <s>1</s> — <b>Успех</b>: 1 успех")  # a 1 takes one
    assert line(
        Requested("Аня", None, closed=True),
        "en",
    ).endswith("the request is closed")
    failed = line(Requested("Аня", Answer(PoolStatus.AUTO_FAILURE, None), closed=True), "ru")
    assert failed is not None
    assert failed.endswith("<b>Неудача</b> — 0 в Способности")
    assert line(None, "ru") is None
