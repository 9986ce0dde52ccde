"""Property tests of the d6 system (docs/rules.md §D): initiative, chance, roll, contests,
errors."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import d6
from rules.d6 import Difficulty, DifficultyKind
from rules.errors import ErrorCode, RulesInputError

FAST = settings(max_examples=150, deadline=None)

faces_st = st.lists(st.integers(1, 6), min_size=1, max_size=5)
dice_st = st.dictionaries(st.sampled_from("ABCDEF"), faces_st, min_size=1, max_size=5)


@FAST
@given(dice=dice_st, seed=st.integers(0, 2**16))
def test_initiative_order_is_a_permutation_in_descending_order(
    dice: dict[str, list[int]], seed: int
) -> None:
    order = d6.initiative_order(dice, rng=random.Random(seed))
    expected = Counter((pid, f) for pid, fs in dice.items() for f in fs)
    assert Counter(order) == expected
    values = [v for _, v in order]
    assert values == sorted(values, reverse=True)


@FAST
@given(dice=dice_st, seed=st.integers(0, 2**16))
def test_initiative_order_depends_on_rng_only_through_full_ties(
    dice: dict[str, list[int]], seed: int
) -> None:
    a = d6.initiative_order(dice, rng=random.Random(seed))
    b = d6.initiative_order(dice, rng=random.Random(seed + 1))
    if a != b:
        # Some step had several candidates with identical count and other dice.
        state = d6.start_round(
            [d6.Combatant(id=k, alacrity=len(v)) for k, v in dice.items()],
            faces=dice,
            rng=random.Random(seed),
        )
        flips = []
        while state.up is not None:
            flips.append(state.up.coin_flip)
            state = d6.act(state, state.up.actor, random.Random(seed))
        assert any(flips)


@FAST
@given(
    dice=st.dictionaries(st.sampled_from("ABCD"), faces_st, min_size=2, max_size=4),
    moves=st.lists(st.tuples(st.integers(0, 3), st.sampled_from("ahd")), max_size=40),
    seed=st.integers(0, 2**16),
)
def test_live_round_conserves_dice_and_orders_non_holders(
    dice: dict[str, list[int]], moves: list[tuple[int, str]], seed: int
) -> None:
    """Drive a round with random acts, holds and defences; dice are never created or lost,
    every act spends the actor's highest die, and fighters who never held act in descending
    order (holders may cut in higher: §D.8)."""
    rng = random.Random(seed)
    ids = list(dice)
    state = d6.start_round(
        [d6.Combatant(id=k, alacrity=len(v)) for k, v in dice.items()], faces=dice, rng=rng
    )
    ever_held: set[str] = set()
    never_held_values: list[int] = []
    for who_i, move in moves:
        who = ids[who_i % len(ids)]
        before = {f.sheet.id: f for f in state.fighters}
        try:
            if move == "a":
                top = before[who].remaining[0] if before[who].remaining else None
                state = d6.act(state, who, rng)
                assert state.log[-1].value == top
                if who not in ever_held and top is not None:
                    never_held_values.append(top)
            elif move == "h":
                state = d6.hold(state, who, rng)
                ever_held.add(who)
            else:
                state, defence = d6.defend(state, who, rng=rng)
                assert defence.die == before[who].remaining[0]
        except RulesInputError as e:
            refused: ErrorCode | None = e.code
        else:
            refused = None
        if refused is not None:
            assert refused in (ErrorCode.NOT_ALLOWED, ErrorCode.STATE)
            assert {f.sheet.id: f for f in state.fighters} == before
        for f in state.fighters:
            assert sorted(f.remaining + f.aside) == sorted(dice[f.sheet.id])
            assert list(f.remaining) == sorted(f.remaining, reverse=True)
        if state.up is not None:
            ready = [f for f in state.fighters if f.remaining and not f.holding]
            assert state.up.value == max(f.remaining[0] for f in ready)
    assert never_held_values == sorted(never_held_values, reverse=True)


mental = st.integers(1, 5).map(lambda m: Difficulty(kind=DifficultyKind.MENTAL_WOUND, magnitude=m))
other = st.builds(
    Difficulty,
    kind=st.sampled_from([DifficultyKind.GENERAL, DifficultyKind.PHYSICAL_WOUND]),
    magnitude=st.integers(1, 5),
)


@FAST
@given(
    powers=st.lists(st.integers(1, 3), max_size=5),
    weakness=st.one_of(st.none(), st.integers(1, 5)),
    applies=st.booleans(),
    mentals=st.lists(mental, max_size=3),
    others=st.lists(other, max_size=3),
    advantages=st.lists(st.integers(1, 4), max_size=3),
    luck=st.integers(0, 3),
)
def test_chance_arithmetic(
    powers: list[int],
    weakness: int | None,
    applies: bool,
    mentals: list[Difficulty],
    others: list[Difficulty],
    advantages: list[int],
    luck: int,
) -> None:
    applies = applies and weakness is not None
    c = d6.chance(
        powers,
        weakness=weakness,
        weakness_applies=applies,
        difficulties=[*others, *mentals],
        advantages=advantages,
        luck_spent=luck,
        luck_available=3,
    )
    expected = (
        sum(powers)
        - (weakness if applies and weakness is not None else 0)
        - sum(d.magnitude for d in others)
        - max((d.magnitude for d in mentals), default=0)
        + sum(advantages)
        + luck
    )
    assert c.value == expected
    assert (c.status is d6.ChanceStatus.OK) == (expected > 0)
    assert c.dice == max(0, expected)
    assert c.luck_delta == -luck


@FAST
@given(faces=st.lists(st.integers(1, 6), min_size=1, max_size=12), seed=st.integers(0, 999))
def test_special_effort_never_loses_a_measure(faces: list[int], seed: int) -> None:
    first = d6.roll(len(faces), faces=faces)
    assert first.measures == sum(1 for f in faces if f >= 5)
    effort = d6.special_effort(first, d6.EffortFuel.MEMORY, rng=random.Random(seed))
    assert effort.wound is None
    assert effort.result.measures >= first.measures
    for i, f in enumerate(faces):
        if f >= 5:
            assert effort.result.faces[i] == f
        else:
            assert i in effort.result.rerolled


@FAST
@given(st.dictionaries(st.sampled_from("ABCDE"), st.integers(0, 8), min_size=2, max_size=5))
def test_contest_winner_and_gain(measures: dict[str, int]) -> None:
    r = d6.contest(measures)
    ranked = sorted(measures.values(), reverse=True)
    if ranked[0] == ranked[1]:
        assert r.tie
        assert r.winner is None
        assert r.gain == 0
    else:
        assert r.winner is not None
        assert measures[r.winner] == ranked[0]
        assert r.gain == ranked[0] - ranked[1]
    assert set(r.fiasco) == {k for k, v in measures.items() if v == 0}


junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=3),
    st.lists(st.one_of(st.integers(-2, 8), st.booleans(), st.text(max_size=1)), max_size=4),
    st.dictionaries(st.text(max_size=2), st.lists(st.integers(-1, 7), max_size=3), max_size=3),
)


def _only_rules_errors(fn: Any, *args: Any, **kwargs: Any) -> None:
    with contextlib.suppress(RulesInputError):
        fn(*args, **kwargs)


@FAST
@given(a=junk, b=junk, c=junk)
def test_invalid_inputs_raise_rules_input_error_only(a: Any, b: Any, c: Any) -> None:
    _only_rules_errors(d6.chance, a, luck_spent=b)
    _only_rules_errors(d6.chance, [1], weakness=b, weakness_applies=c)
    _only_rules_errors(d6.roll, a, faces=b)
    _only_rules_errors(d6.roll, 2, required=a, faces=c)
    _only_rules_errors(d6.apply_preparation, a, b)
    _only_rules_errors(d6.initiative_order, a, rng=random.Random(0))
    _only_rules_errors(d6.contest, a)
    _only_rules_errors(d6.resolve_attack, a, b, c)
    _only_rules_errors(d6.defend_eligibility, a, c, b)
    _only_rules_errors(d6.project_step, d6.new_project(3), a, b)
    _only_rules_errors(d6.durability_loss, a, b)
    _only_rules_errors(d6.aim, a, b)
    _only_rules_errors(d6.shove, a)


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: d6.roll(3, faces=[1, 2]), ErrorCode.FACES_LEN),
        (lambda: d6.roll(2, faces=[1, 7]), ErrorCode.FACE_VALUE),
        (lambda: d6.roll(0), ErrorCode.RANGE),
        (lambda: d6.roll(True), ErrorCode.TYPE),
        (lambda: d6.chance([4]), ErrorCode.RANGE),
        (lambda: d6.chance([1], weakness=6, weakness_applies=True), ErrorCode.RANGE),
        (lambda: d6.chance([1], weakness_applies=True), ErrorCode.STATE),
        (lambda: d6.contest({"A": 1}), ErrorCode.RANGE),
        (lambda: d6.initiative_order({"A": [0]}), ErrorCode.FACE_VALUE),
        (lambda: d6.initiative_order({"A": []}), ErrorCode.RANGE),
        (lambda: d6.apply_preparation([3, 3], 2, plan=[(0, 2), (1, 1)]), ErrorCode.RANGE),
        (lambda: d6.special_effort(d6.auto_success(), d6.EffortFuel.MEMORY), ErrorCode.NOT_ALLOWED),
        (lambda: d6.new_challenge(3, 1, ["H", "H"]), ErrorCode.RANGE),
        (
            lambda: d6.spend_gain(
                2, [d6.GainShare(target="X", use=d6.GainUse.DIFFICULTY, amount=2)]
            ),
            ErrorCode.NOT_ALLOWED,
        ),
        (
            lambda: d6.spend_gain(
                3, [d6.GainShare(target="X", use=d6.GainUse.MENTAL_WOUND, amount=2)]
            ),
            ErrorCode.RANGE,
        ),
    ],
)
def test_specific_error_codes(call: Any, code: ErrorCode) -> None:
    with pytest.raises(RulesInputError) as e:
        call()
    assert e.value.code is code


def test_round_tracker_flow_with_holder_cutting_in() -> None:
    """A holds a 6, B acts on 5, A cuts in with the 6 and B defends at the same initiative."""
    state = d6.start_round(
        [d6.Combatant(id="A", alacrity=2), d6.Combatant(id="B", alacrity=2)],
        faces={"A": [6, 1], "B": [5, 3]},
    )
    assert state.up == d6.Turn(actor="A", value=6)
    state = d6.hold(state, "A")
    assert state.up == d6.Turn(actor="B", value=5)
    with pytest.raises(RulesInputError):
        d6.hold(state, "A")  # only the fighter who is up may start holding
    state = d6.act(state, "A")  # a holder may act at any moment
    assert state.log[-1] == d6.Step(
        actor="A", kind=d6.StepKind.ACT, value=6, was_holder=True, attack=True
    )
    state, defence = d6.defend(state, "B")
    assert (defence.die, defence.slowness) == (5, 0)
    assert state.up == d6.Turn(actor="B", value=3)
    state = d6.act(state, "B")
    state = d6.act(state, "A")
    assert state.up is None
    fresh, ended = d6.next_round(state, faces={"A": [2, 2], "B": [4, 4]})
    assert not ended.inactive
    assert ended.wounds == {}
    assert (fresh.number, fresh.waiting_forbidden) == (2, False)
    assert fresh.up == d6.Turn(actor="B", value=4)


def test_end_round_refuses_while_someone_is_up() -> None:
    state = d6.start_round([d6.Combatant(id="A", alacrity=1)], faces={"A": [3]})
    with pytest.raises(RulesInputError) as e:
        d6.end_round(state)
    assert e.value.code is ErrorCode.STATE


def test_preparation_in_the_round_changes_who_goes_first() -> None:
    state = d6.start_round(
        [d6.Combatant(id="A", alacrity=2), d6.Combatant(id="B", alacrity=2)],
        faces={"A": [4, 1], "B": [5, 2]},
    )
    assert state.up is not None
    assert state.up.actor == "B"
    state = d6.prepare(state, "A", 2)
    assert state.up == d6.Turn(actor="A", value=6)
    moved = d6.act(state, "A")
    with pytest.raises(RulesInputError) as e:
        d6.prepare(moved, "B", 1)
    assert e.value.code is ErrorCode.STATE


def test_slow_defence_of_others_switch() -> None:
    from rules import profiles

    base = profiles.get("d6")
    strict = base.model_copy(
        update={"d6": base.d6.model_copy(update={"slow_defence_of_others": False})}
    )
    state = d6.start_round(
        [d6.Combatant(id="X", alacrity=1), d6.Combatant(id="D", alacrity=1)],
        faces={"X": [6], "D": [2]},
    )
    state = d6.act(state, "X")
    with pytest.raises(RulesInputError) as e:
        d6.defend(state, "D", protecting="ally", profile=strict)
    assert e.value.code is ErrorCode.NOT_ALLOWED
    _, defence = d6.defend(state, "D", protecting="ally", profile=base)
    assert defence.slowness == 4


def test_poison_needs_a_body_hit_and_uses_the_final_gain() -> None:
    hit = d6.resolve_attack(4, {"D": 1})
    assert d6.poison_wound(hit, hit_body=True) == Difficulty(
        kind=DifficultyKind.PHYSICAL_WOUND, magnitude=3
    )
    assert d6.poison_wound(hit, hit_body=False) is None
    assert d6.poison_wound(d6.resolve_attack(2, armour_measures=2), hit_body=True) is None


def test_armour_roll_with_no_measures_is_not_a_fiasco() -> None:
    r = d6.roll(2, faces=[1, 4], armour=True)
    assert r.outcome is d6.D6Outcome.NO_MEASURES


def test_auto_success_gain_for_projects() -> None:
    p = d6.project_step(d6.new_project(2), d6.auto_success(), weakness=None)
    assert p.readiness == 1


def test_holder_cannot_cut_in_below_the_value_up() -> None:
    """B held a 6, A holds a 3; once B rejoins with a 5 up, A's held 3 may not cut in."""
    state = d6.start_round(
        [d6.Combatant(id="A", alacrity=1), d6.Combatant(id="B", alacrity=2)],
        faces={"A": [3], "B": [6, 5]},
    )
    state = d6.hold(state, "B")
    state = d6.hold(state, "A")
    assert state.up is None
    state = d6.act(state, "B")
    assert state.up == d6.Turn(actor="B", value=5)
    with pytest.raises(RulesInputError) as e:
        d6.act(state, "A")
    assert e.value.code is ErrorCode.NOT_ALLOWED
    state = d6.act(state, "B")
    assert state.up is None
    assert d6.act(state, "A").log[-1].value == 3


def test_holder_cuts_in_only_with_an_attack_while_someone_is_up() -> None:
    state = d6.start_round(
        [d6.Combatant(id="A", alacrity=1), d6.Combatant(id="B", alacrity=1)],
        faces={"A": [6], "B": [4]},
    )
    state = d6.hold(state, "A")
    with pytest.raises(RulesInputError) as e:
        d6.act(state, "A", attack=False)
    assert e.value.code is ErrorCode.NOT_ALLOWED
    after_b = d6.act(state, "B", attack=False)
    assert after_b.up is None
    moved = d6.act(after_b, "A", attack=False)  # nobody is up: any action will do
    assert moved.log[-1] == d6.Step(
        actor="A", kind=d6.StepKind.ACT, value=6, was_holder=True, attack=False
    )


def test_a_defence_answers_the_named_attacker_after_the_round_went_on() -> None:
    """An attack answered on its own message after the next fighter acted: the defence
    responds to that attacker's action, its slowness by that attacker's die."""
    state = d6.start_round(
        [d6.Combatant(id=k, alacrity=1) for k in "ABC"],
        faces={"A": [6], "B": [5], "C": [2]},
    )
    state = d6.act(state, "A")
    state = d6.act(state, "B")
    state, defence = d6.defend(state, "C", attacker="A")
    assert state.log[-1].responds_to == 0
    assert defence.slowness == 4
    with pytest.raises(RulesInputError):
        d6.defend(state, "A", attacker="A")  # nobody answers their own action
