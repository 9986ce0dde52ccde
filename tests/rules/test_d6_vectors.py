"""docs/rules.md §E.2 "d6 system" vectors G-D01..G-D20, one test each, plus the initiative
example."""

from __future__ import annotations

import random

import pytest

from rules import d6, profiles
from rules.d6 import Difficulty, DifficultyKind
from rules.errors import ErrorCode, RulesInputError


class FixedRng:
    """An rng that always answers ``value`` and counts how often it was asked."""

    def __init__(self, value: int) -> None:
        self.value = value
        self.calls = 0

    def randint(self, a: int, b: int) -> int:
        self.calls += 1
        assert a <= self.value <= b
        return self.value


class NoRng:
    def randint(self, a: int, b: int) -> int:
        raise AssertionError("rng must not be used without a full tie")


GENERAL = DifficultyKind.GENERAL
PHYSICAL = DifficultyKind.PHYSICAL_WOUND
MENTAL = DifficultyKind.MENTAL_WOUND


def test_initiative_order_public_example() -> None:
    order = d6.initiative_order({"A": [6, 6, 2], "B": [6, 5, 5], "C": [5, 5, 4]}, rng=NoRng())
    assert order == [
        ("A", 6),
        ("A", 6),
        ("B", 6),
        ("B", 5),
        ("C", 5),
        ("B", 5),
        ("C", 5),
        ("C", 4),
        ("A", 2),
    ]


def test_g_d01_chance_arithmetic_with_max_mental_wound() -> None:
    c = d6.chance(
        [2, 3, 1],
        weakness=2,
        weakness_applies=True,
        difficulties=[
            Difficulty(kind=GENERAL, magnitude=1),
            Difficulty(kind=PHYSICAL, magnitude=1),
            Difficulty(kind=MENTAL, magnitude=1),
            Difficulty(kind=MENTAL, magnitude=2),
        ],
        advantages=[1],
        luck_spent=1,
        luck_available=1,
    )
    assert (c.value, c.dice, c.status) == (2, 2, d6.ChanceStatus.OK)
    assert (c.powers, c.weakness, c.difficulties, c.advantages) == (6, 2, 4, 1)
    assert c.luck_delta == -1
    # With the AMB-D1 switch off, both mental wounds count: 6 − 2 − 5 + 1 + 1 = 1.
    summed = profiles.get("d6").d6.model_copy(update={"mental_wounds_max_only": False})
    p = profiles.get("d6").model_copy(update={"d6": summed})
    c2 = d6.chance(
        [2, 3, 1],
        weakness=2,
        weakness_applies=True,
        difficulties=[
            Difficulty(kind=GENERAL, magnitude=1),
            Difficulty(kind=PHYSICAL, magnitude=1),
            Difficulty(kind=MENTAL, magnitude=1),
            Difficulty(kind=MENTAL, magnitude=2),
        ],
        advantages=[1],
        luck_spent=1,
        profile=p,
    )
    assert c2.value == 1


def test_g_d02_chance_zero_is_impossible_and_luck_lifts_it() -> None:
    zero = d6.chance([1, 1], difficulties=[Difficulty(magnitude=2)])
    assert zero.status is d6.ChanceStatus.IMPOSSIBLE
    assert zero.reason is d6.ImpossibleReason.NOT_POSITIVE
    assert (zero.value, zero.dice) == (0, 0)
    lucky = d6.chance([1, 1], difficulties=[Difficulty(magnitude=2)], luck_spent=1)
    assert (lucky.status, lucky.dice, lucky.luck_delta) == (d6.ChanceStatus.OK, 1, -1)
    # No power at all: help makes it possible unless the GM forbids it (§D.2).
    assert d6.chance([], advantages=[1]).dice == 1
    strict = profiles.get("d6").model_copy(
        update={"d6": profiles.get("d6").d6.model_copy(update={"no_power_impossible": True})}
    )
    no_power = d6.chance([], advantages=[1], profile=strict)
    assert no_power.reason is d6.ImpossibleReason.NO_POWER
    with pytest.raises(RulesInputError) as e:
        d6.chance([1], luck_spent=2, luck_available=1)
    assert e.value.code is ErrorCode.RANGE


def test_g_d03_measures_are_fives_and_sixes() -> None:
    r = d6.roll(5, faces=[1, 5, 6, 4, 6])
    assert (r.measures, r.gain, r.outcome) == (3, 3, d6.D6Outcome.SUCCESS)


def test_g_d04_fiasco_and_shortfall() -> None:
    assert d6.roll(3, faces=[1, 2, 3]).outcome is d6.D6Outcome.FIASCO
    short = d6.roll(2, required=2, faces=[5, 1])
    assert (short.outcome, short.measures) == (d6.D6Outcome.SHORTFALL, 1)


def test_g_d05_special_effort() -> None:
    first = d6.roll(3, faces=[5, 2, 3])
    effort = d6.special_effort(first, d6.EffortFuel.MENTAL, new_faces=[6, 1])
    assert effort.result.faces == (5, 6, 1)
    assert effort.result.rerolled == (1, 2)
    assert (effort.result.measures, effort.result.outcome) == (2, d6.D6Outcome.SUCCESS)
    assert effort.wound == Difficulty(kind=MENTAL, magnitude=3)
    assert not effort.noop
    with pytest.raises(RulesInputError) as again:
        d6.special_effort(effort.result, d6.EffortFuel.MEMORY, new_faces=[6])
    assert again.value.code is ErrorCode.SPECIAL_EFFORT_USED
    armour = d6.roll(3, faces=[5, 2, 3], armour=True)
    with pytest.raises(RulesInputError) as on_armour:
        d6.special_effort(armour, d6.EffortFuel.PHYSICAL, new_faces=[6, 6])
    assert on_armour.value.code is ErrorCode.NOT_ALLOWED
    full = d6.special_effort(d6.roll(3, faces=[5, 6, 6]), d6.EffortFuel.PHYSICAL, new_faces=[])
    assert full.noop
    assert full.result.faces == (5, 6, 6)
    assert full.wound == Difficulty(kind=PHYSICAL, magnitude=1)


def test_g_d06_contests() -> None:
    a = d6.contest({"A": 3, "B": 1})
    assert (a.winner, a.gain, a.tie, a.fiasco) == ("A", 2, False, ())
    t = d6.contest({"A": 2, "B": 2})
    assert (t.winner, t.gain, t.tie, t.fiasco) == (None, 0, True, ())
    z = d6.contest({"A": 0, "B": 0})
    assert (z.tie, z.fiasco) == (True, ("A", "B"))
    b = d6.contest({"A": 0, "B": 2})
    assert (b.winner, b.gain, b.fiasco) == ("B", 2, ("A",))


def test_g_d07_project_fiasco_at_zero_survives_then_completes() -> None:
    p = d6.new_project(5)
    seen = []
    for m in (2, 0, 4, 3):
        p = d6.project_step(p, m, weakness=2)
        seen.append(p.readiness)
    assert seen == [2, 0, 4, 7]
    assert (p.status, p.gain) == (d6.ProjectStatus.COMPLETE, 2)


def test_g_d08_project_fails_below_zero() -> None:
    fiasco = d6.roll(2, faces=[1, 2])
    weak = d6.project_step(d6.new_project(3), fiasco, weakness=2)
    assert (weak.readiness, weak.status) == (-2, d6.ProjectStatus.FAILED)
    none = d6.project_step(d6.new_project(3), fiasco, weakness=None)
    assert (none.readiness, none.status) == (-3, d6.ProjectStatus.FAILED)
    p = d6.project_step(d6.new_project(3), 1, weakness=1)
    p = d6.project_step(p, 0, weakness=1)
    assert (p.readiness, p.status) == (0, d6.ProjectStatus.IN_PROGRESS)
    with pytest.raises(RulesInputError) as e:
        d6.project_step(weak, 3, weakness=2)
    assert e.value.code is ErrorCode.STATE


def test_g_d09_challenge_completes_or_runs_out_of_time() -> None:
    ch = d6.new_challenge(5, 2, ["H1", "H2"])
    seen = []
    for who, m in (("H1", 2), ("H2", 0), ("H1", 3), ("H2", 1)):
        ch = d6.challenge_step(ch, who, m, weakness=1)
        seen.append(ch.project.readiness)
    assert seen == [2, 1, 4, 5]
    assert (ch.project.status, ch.project.gain) == (d6.ProjectStatus.COMPLETE, 0)

    slow = d6.new_challenge(5, 2, ["H1", "H2"])
    for who in ("H1", "H2", "H1", "H2"):
        slow = d6.challenge_step(slow, who, 1, weakness=1)
    assert slow.project.readiness == 4
    assert slow.project.status is d6.ProjectStatus.FAILED_TIME
    assert slow.actions_left == {"H1": 0, "H2": 0}

    spent = d6.new_challenge(5, 1, ["H1", "H2"])
    spent = d6.challenge_step(spent, "H1", 1, weakness=1)
    with pytest.raises(RulesInputError) as e:
        d6.challenge_step(spent, "H1", 1, weakness=1)
    assert e.value.code is ErrorCode.NOT_ALLOWED
    personal = d6.new_challenge(3, 2, ["H1", "H2"], personal_owner="H1")
    with pytest.raises(RulesInputError) as e2:
        d6.challenge_step(personal, "H2", 2, weakness=1)
    assert e2.value.code is ErrorCode.NOT_ALLOWED


def test_g_d10_initiative_tie_breaks_use_set_aside_dice() -> None:
    state = d6.start_round(
        [d6.Combatant(id=x) for x in "ABC"],
        faces={"A": [6, 6, 2], "B": [6, 5, 5], "C": [5, 5, 4]},
        rng=NoRng(),
    )
    steps = []
    while state.up is not None:
        steps.append(f"{state.up.actor}{state.up.value}")
        assert state.up.coin_flip == ()
        state = d6.act(state, state.up.actor, rng=NoRng())
    assert steps == ["A6", "A6", "B6", "B5", "C5", "B5", "C5", "C4", "A2"]


def test_g_d11_full_tie_is_a_coin_flip() -> None:
    heads = FixedRng(1)
    assert d6.initiative_order({"A": [4, 2], "B": [4, 2]}, rng=heads) == [
        ("A", 4),
        ("B", 4),
        ("A", 2),
        ("B", 2),
    ]
    assert heads.calls == 2  # at 4 and again at 2: each full tie is flipped
    tails = FixedRng(2)
    state = d6.start_round(
        [d6.Combatant(id="A", alacrity=2), d6.Combatant(id="B", alacrity=2)],
        faces={"A": [4, 2], "B": [4, 2]},
        rng=tails,
    )
    assert state.up == d6.Turn(actor="B", value=4, coin_flip=("A", "B"))


def test_g_d12_preparation() -> None:
    assert d6.apply_preparation([4, 5, 2], 3).dice == (6, 6, 2)
    assert d6.apply_preparation([3, 3, 3], 2).dice == (5, 3, 3)
    six = d6.apply_preparation([6, 6, 1], 4)
    assert (six.dice, six.wasted) == ((6, 6, 5), 0)
    assert d6.apply_preparation([6, 6], 2).wasted == 2
    assert d6.apply_preparation([4, 1], 3, plan=[(0, 3)]) == d6.Preparation(dice=(6, 1), wasted=1)
    with pytest.raises(RulesInputError) as e:
        d6.apply_preparation([4, 5, 2], -1)
    assert e.value.code is ErrorCode.RANGE


def test_g_d13_defence_slowness() -> None:
    slow = d6.defend_eligibility(5, False, [3, 1])
    assert (slow.allowed, slow.slowness, slow.die) == (True, 2, 3)
    assert d6.defend_eligibility(5, False, [5]).slowness == 0
    assert d6.defend_eligibility(2, True, [1]).slowness == 0
    assert not d6.defend_eligibility(5, False, []).allowed

    # The same through the live round: the defender sets aside 3 and is «неспешный» 2.
    state = d6.start_round(
        [d6.Combatant(id="A", alacrity=1), d6.Combatant(id="D", alacrity=2)],
        faces={"A": [5], "D": [3, 1]},
    )
    state = d6.act(state, "A")
    state, defence = d6.defend(state, "D")
    assert defence.slowness == 2
    assert defence.difficulty == Difficulty(kind=DifficultyKind.SLOWNESS, magnitude=2)
    d = next(f for f in state.fighters if f.sheet.id == "D")
    assert (d.remaining, d.aside) == ((1,), (3,))
    with pytest.raises(RulesInputError) as e:
        d6.defend(state, "D")
    assert e.value.code is ErrorCode.NOT_ALLOWED  # one response per attack (AMB-D7)

    # A holder's attack: «считается, что у них одинаковая инициатива».
    held = d6.start_round(
        [d6.Combatant(id="A", alacrity=1), d6.Combatant(id="D", alacrity=1)],
        faces={"A": [2], "D": [1]},
    )
    held = d6.hold(held, "A")
    assert held.up is not None
    assert held.up.actor == "D"
    held = d6.act(held, "A")
    _, defence2 = d6.defend(held, "D")
    assert (defence2.slowness, defence2.die) == (0, 1)


def test_g_d14_attack_defence_armour() -> None:
    a = d6.resolve_attack(4, {"D": 1}, armour_measures=2, attacker="X")
    assert (a.gain, a.hit, a.fiasco) == (1, True, False)
    assert d6.spend_gain(
        a.gain, [d6.GainShare(target="D", use=d6.GainUse.PHYSICAL_WOUND, amount=1)]
    )[0].difficulty == Difficulty(kind=PHYSICAL, magnitude=1)
    b = d6.resolve_attack(3, {"D": 4}, attacker="X")
    assert (b.gain, b.hit) == (0, False)
    assert b.defender_advantages == {
        "D": d6.Advantage(
            magnitude=1, use=d6.AdvantageUse.NEXT_ACTION_VS_FOE, one_shot=True, against="X"
        )
    }
    c = d6.resolve_attack(2, armour_measures=3)
    assert (c.gain, c.hit, c.fiasco) == (0, False, False)
    assert d6.resolve_attack(0).fiasco


def test_g_d15_break_item() -> None:
    assert d6.durability_loss(4, 2) == 2
    assert d6.durability_loss(2, 2) == 0
    effects = d6.spend_gain(
        4,
        [
            d6.GainShare(target="shield", use=d6.GainUse.ITEM, amount=3, threshold=2),
            d6.GainShare(target="D", use=d6.GainUse.PHYSICAL_WOUND, amount=1),
        ],
    )
    assert effects[0].durability_loss == 1


def test_g_d16_inactivity() -> None:
    state = d6.start_round(
        [
            d6.Combatant(id="hero", hero=True, weakness=2, alacrity=1),
            d6.Combatant(id="ally", alacrity=1),
        ],
        faces={"hero": [4], "ally": [3]},
    )
    state = d6.hold(state, "hero")
    state = d6.hold(state, "ally")
    assert state.up is None
    assert d6.holders(state) == ["hero", "ally"]
    fresh, ended = d6.next_round(state, faces={"hero": [5], "ally": [2]})
    assert ended.inactive
    assert ended.wounds == {
        "hero": Difficulty(kind=DifficultyKind.ON_EDGE, magnitude=2),
        "ally": Difficulty(kind=DifficultyKind.ON_EDGE, magnitude=3),
    }
    assert fresh.waiting_forbidden
    assert fresh.number == 2
    with pytest.raises(RulesInputError) as e:
        d6.hold(fresh, "hero")
    assert e.value.code is ErrorCode.NOT_ALLOWED


def test_g_d17_aiming() -> None:
    a = d6.aim(1, 3)
    assert a.difficulty_left == 0
    assert a.advantage == d6.Advantage(magnitude=2, use=d6.AdvantageUse.NEXT_TURN, one_shot=True)
    assert d6.aim(3, 1) == d6.Aim(difficulty_left=2, advantage=None)


def test_g_d18_shove() -> None:
    down, hurt = d6.shove(3)
    assert down == Difficulty(kind=DifficultyKind.KNOCKED_DOWN, magnitude=1)
    assert hurt == Difficulty(kind=PHYSICAL, magnitude=2)
    assert d6.shove(1) == (Difficulty(kind=DifficultyKind.KNOCKED_DOWN, magnitude=1), None)


def test_g_d19_unfinished_project_eases_a_difficulty() -> None:
    assert d6.unfinished_relief(3, 2) == 1
    assert d6.unfinished_relief(2, 5) == 0


def test_g_d20_helplessness() -> None:
    blocked = [
        d6.chance([1], difficulties=[Difficulty(magnitude=2)]),
        d6.chance([2], weakness=3, weakness_applies=True),
    ]
    assert d6.helpless(blocked, luck=0)
    assert not d6.helpless(blocked, luck=1)
    helped = [*blocked, d6.chance([1], difficulties=[Difficulty(magnitude=2)], advantages=[2])]
    assert not d6.helpless(helped, luck=0)


def test_rolling_with_rng_is_reproducible() -> None:
    a = d6.roll(6, rng=random.Random(7))
    b = d6.roll(6, rng=random.Random(7))
    assert a == b
    assert len(a.faces) == 6
