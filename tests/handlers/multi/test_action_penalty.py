"""/multi shows what §A.9 takes off each action, through the Dispatcher.

S4 «…уменьшенное на общее кол-во действий + номер действия в порядке проверок - 1»: 6, 7, 7
become 3, 3, 2, and the message says by how much each.
"""

from __future__ import annotations

from tests.handlers.conftest import Table, player

ANNA = player(1, "Аня")


async def test_the_message_shows_each_actions_penalty(table: Table) -> None:
    await table.say(ANNA, "/multi 6 7 7")
    lines = table.session.sent[-1].text.splitlines()
    assert lines[0].endswith("штраф за несколько действий: −3, −4, −5")
    assert lines[1].startswith("1. 6 → 3к10, сложность 6")
    assert lines[2].startswith("2. 7 → 3к10")
    assert lines[3].startswith("3. 7 → 2к10")


async def test_one_action_has_no_penalty_to_show(table: Table) -> None:
    await table.say(ANNA, "/multi 6")
    assert "штраф" not in table.session.sent[-1].text
