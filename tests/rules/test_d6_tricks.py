"""The declared tricks of docs/rules.md §D.12 that wait for a later roll (S3 «Атака с разгона»,
«Глухая оборона», «Прицеливание», «Побег»): what each leaves, which roll it helps, and what
is spent or lost after an action."""

from __future__ import annotations

import pytest

from rules import d6
from rules.d6 import ActionKind, Edge, Trick
from rules.errors import ErrorCode, RulesInputError
from rules.sheet import SheetSystem, from_json, new_sheet, set_edges, to_json

ATTACK, DEFENCE, OTHER, TRICK = (
    ActionKind.ATTACK,
    ActionKind.DEFENCE,
    ActionKind.OTHER,
    ActionKind.TRICK,
)


def test_what_each_trick_leaves() -> None:
    assert d6.declare(Trick.CHARGE, 2) == Edge(trick=Trick.CHARGE, advantage=2)
    assert d6.declare(Trick.FULL_DEFENCE, 1) == Edge(trick=Trick.FULL_DEFENCE, advantage=1)
    # G-D17: a difficulty of 1 and three measures — cancelled, +2 on the next turn.
    assert d6.declare(Trick.AIM, 3, 1) == Edge(trick=Trick.AIM, advantage=2)
    assert d6.declare(Trick.AIM, 1, 3) == Edge(trick=Trick.AIM, difficulty=2)
    assert d6.declare(Trick.ESCAPE, 2) == Edge(trick=Trick.ESCAPE, difficulty=2)
    for trick in Trick:
        assert d6.declare(trick, 0) is None  # a fiasco leaves nothing waiting
    assert d6.declare(Trick.AIM, 2, 2) is None  # just cancelled: nothing left to carry
    with pytest.raises(RulesInputError) as e:
        d6.declare(Trick.CHARGE, 2, 1)
    assert e.value.code is ErrorCode.NOT_ALLOWED


@pytest.mark.parametrize(
    ("trick", "helps"),
    [
        (Trick.CHARGE, {ATTACK}),
        (Trick.FULL_DEFENCE, {DEFENCE}),
        (Trick.AIM, {ATTACK, OTHER}),
        (Trick.ESCAPE, set()),
    ],
)
def test_which_roll_a_trick_helps(trick: Trick, helps: set[ActionKind]) -> None:
    edge = Edge(trick=trick, advantage=2) if trick is not Trick.ESCAPE else None
    edge = edge or Edge(trick=trick, difficulty=2)
    for action in ActionKind:
        bonus, used = d6.edge_modifier([edge], action)
        if action in helps:
            assert (bonus, used) == (2, (edge,))
        else:
            assert (bonus, used) == (0, ())


def test_an_aim_brings_what_is_left_of_the_targets_difficulty() -> None:
    left = Edge(trick=Trick.AIM, difficulty=2)
    assert d6.edge_modifier([left], ATTACK) == (-2, (left,))
    charge = Edge(trick=Trick.CHARGE, advantage=3)
    aimed = Edge(trick=Trick.AIM, advantage=1)
    assert d6.edge_modifier([charge, aimed], ATTACK)[0] == 4


def test_an_action_spends_or_loses_what_waits() -> None:
    charge = Edge(trick=Trick.CHARGE, advantage=2)
    guard = Edge(trick=Trick.FULL_DEFENCE, advantage=1)
    fled = Edge(trick=Trick.ESCAPE, difficulty=2)
    assert d6.after_action([charge, fled], ATTACK) == ()
    assert d6.after_action([charge, guard, fled], DEFENCE) == (fled,)  # still running
    assert d6.after_action([guard], OTHER) == ()
    aim = Edge(trick=Trick.AIM, advantage=1)
    assert d6.after_action([charge, fled], TRICK, aim) == (aim,)
    with pytest.raises(RulesInputError):
        d6.after_action([], ATTACK, aim)
    with pytest.raises(RulesInputError) as e:
        d6.after_action([charge, charge], ATTACK)
    assert e.value.code is ErrorCode.STATE


def test_the_pursuers_difficulty() -> None:
    assert d6.pursuit([Edge(trick=Trick.ESCAPE, difficulty=3)]) == 3
    assert d6.pursuit([Edge(trick=Trick.CHARGE, advantage=3)]) == 0


def test_a_d6_sheet_keeps_them_and_a_d10_one_refuses() -> None:
    sheet = set_edges(new_sheet(SheetSystem.D6), [Edge(trick=Trick.AIM, advantage=2)])
    assert from_json(to_json(sheet)) == sheet
    with pytest.raises(RulesInputError) as e:
        set_edges(new_sheet(SheetSystem.MAGE), [Edge(trick=Trick.AIM, advantage=2)])
    assert e.value.code is ErrorCode.NOT_ALLOWED
    with pytest.raises(RulesInputError):
        set_edges(sheet, [Edge(trick=Trick.AIM, advantage=1)] * 2)


def test_a_defence_that_scores_nothing_is_a_fiasco_but_the_armour_is_not() -> None:
    from rules.d6.combat import resolve_attack

    outcome = resolve_attack(2, {"d1": 0, "d2": 1}, 0, attacker="a")
    assert outcome.defender_fiascoes == ("d1",)
    assert outcome.gain == 1
    assert not outcome.fiasco
    assert resolve_attack(2, {"d2": 1}, 0, attacker="a").defender_fiascoes == ()
