"""Joining, leaving and restarting a d6 round (§D.7): the steps the chat's tracker takes
besides act/hold/defend."""

from __future__ import annotations

import random

import pytest

from rules.d6 import Combatant, act, join, leave, restart, start_round
from rules.errors import RulesInputError


def test_a_newcomer_takes_their_place_by_their_dice() -> None:
    state = start_round([Combatant(id="a", alacrity=2)], faces={"a": [4, 3]})
    assert state.up is not None
    assert state.up.actor == "a"
    state = join(state, Combatant(id="b", alacrity=3), faces=[6, 1, 1])
    assert [f.sheet.id for f in state.fighters] == ["a", "b"]
    assert state.up is not None
    assert state.up.actor == "b"
    assert state.up.value == 6
    with pytest.raises(RulesInputError):
        join(state, Combatant(id="b"), faces=[1, 1, 1])


def test_leaving_hands_the_turn_on_and_the_last_cannot_leave() -> None:
    state = start_round(
        [Combatant(id="a", alacrity=1), Combatant(id="b", alacrity=1)],
        faces={"a": [6], "b": [2]},
    )
    state = leave(state, "a")
    assert state.up is not None
    assert state.up.actor == "b"
    with pytest.raises(RulesInputError):
        leave(state, "b")


def test_a_round_cut_short_is_no_round_of_inactivity() -> None:
    rng = random.Random(3)
    state = start_round([Combatant(id="a", hero=True, weakness=2)], faces={"a": [5, 5, 5]})
    fresh, ended = restart(state, rng=rng)
    assert fresh.number == 2
    assert not ended.inactive
    assert len(fresh.fighters[0].remaining) == 3
    spent = act(act(act(state, "a"), "a"), "a")
    fresh, ended = restart(spent, rng=rng)
    assert not ended.inactive
    assert fresh.up is not None
