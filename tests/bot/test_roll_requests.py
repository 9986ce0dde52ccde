"""A request's answer read back by the feature that asked it (bot/roll_requests.py)."""

from __future__ import annotations

from bot.roll_requests import answer_in
from rules import d10, profiles
from rules.actions import PoolStatus

ROLLED = d10.resolve([9, 8, 3], 6, profiles.HOUSE_MAGE)


def test_the_players_answer_or_none_while_they_have_not_rolled() -> None:
    data = {
        "answers": [
            {"user_id": 2, "status": "auto_failure"},
            {"user_id": 1, "status": "roll", "result": ROLLED.model_dump(mode="json")},
        ]
    }
    answer = answer_in(data, 1)
    assert answer is not None
    assert answer.status is PoolStatus.ROLL
    assert answer.result == ROLLED
    failed = answer_in(data, 2)
    assert failed is not None
    assert failed.result is None
    assert answer_in(data, 3) is None
    assert answer_in({"answers": []}, 1) is None


def test_anything_else_stored_reads_as_no_answer() -> None:
    assert answer_in(None, 1) is None
    assert answer_in({"answers": "x"}, 1) is None
    assert answer_in({"answers": [{"user_id": 1, "status": "nonsense"}]}, 1) is None
    assert answer_in({"answers": [{"user_id": 1, "status": "roll", "result": {"x": 1}}]}, 1) is None
