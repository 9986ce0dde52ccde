"""The ``/r`` grammar (table.parsing): syntax only, ranges are the rules' business."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.parsing import ArgumentsError, Problem, RollArguments, parse_roll_arguments


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7", RollArguments(pool=7)),
        ("7 8", RollArguments(pool=7, difficulty=8)),
        ("7 8 wp", RollArguments(pool=7, difficulty=8, willpower=True)),
        ("7 8 СВ", RollArguments(pool=7, difficulty=8, willpower=True)),
        ("7 8 +2", RollArguments(pool=7, difficulty=8, dice=2)),  # dice, never a threshold
        ("7 8 пор2", RollArguments(pool=7, difficulty=8, threshold=2)),
        ("7 8 wp t1", RollArguments(pool=7, difficulty=8, willpower=True, threshold=1)),
        ("wp 7 T1 8", RollArguments(pool=7, difficulty=8, willpower=True, threshold=1)),
        ("0 1", RollArguments(pool=0, difficulty=1)),  # syntax fine; the rules refuse it
    ],
)
def test_reads_a_roll(text: str, expected: RollArguments) -> None:
    assert parse_roll_arguments(text) == expected


@pytest.mark.parametrize(
    ("text", "problem", "token"),
    [
        ("", Problem.POOL_MISSING, ""),
        (None, Problem.POOL_MISSING, ""),
        ("wp", Problem.POOL_MISSING, ""),
        ("abc", Problem.NOT_A_NUMBER, "abc"),
        ("7 -100", Problem.NOT_A_NUMBER, "-100"),
        ("7.5", Problem.NOT_A_NUMBER, "7.5"),
        ("٧", Problem.NOT_A_NUMBER, "٧"),  # an Arabic-Indic 7 is not a pool
        ("1234567", Problem.NOT_A_NUMBER, "1234567"),
        ("7 6 t-1", Problem.THRESHOLD_SYNTAX, "t-1"),
        ("7 6 t=2", Problem.THRESHOLD_SYNTAX, "t=2"),
        ("7 6 5", Problem.TOO_MANY_NUMBERS, "5"),
        ("7 wp св", Problem.REPEATED, "св"),
        ("7 t1 t2", Problem.REPEATED, "t2"),
    ],
)
def test_says_what_is_wrong(text: str | None, problem: Problem, token: str) -> None:
    with pytest.raises(ArgumentsError) as caught:
        parse_roll_arguments(text)
    assert caught.value.problem is problem
    assert caught.value.token == token


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_text_parses_or_names_a_problem(text: str) -> None:
    problem: Problem | None = None
    try:
        parsed = parse_roll_arguments(text)
    except ArgumentsError as error:
        problem = error.problem
    if problem is None:
        assert 0 <= parsed.pool <= 999_999
        assert parsed.threshold >= 0
    else:
        assert problem in Problem


@pytest.mark.parametrize(
    ("text", "traits", "difficulty", "willpower"),
    [
        ("ловк+драка 7", "ловк+драка", 7, False),
        ("ловкость + драка 7 св", "ловкость+драка", 7, True),
        ("Dex+Brawl", "Dex+Brawl", None, False),
        ("темн.иск+сообр 8", "темн.иск+сообр", 8, False),
        ("8 ловк", "ловк", 8, False),
    ],
)
def test_a_pool_by_trait_names(
    text: str, traits: str, difficulty: int | None, willpower: bool
) -> None:
    """docs/product.md §2: «/r ловкость+драка 8 from the sheet»; the number is the difficulty."""
    args = parse_roll_arguments(text, allow_traits=True)
    assert args.traits == traits
    assert args.difficulty == difficulty
    assert args.willpower is willpower
    assert args.pool == 0


def test_a_name_of_several_words_is_one_name() -> None:
    """«сила воли» as the sheet prints it; two names without «+» read as one name, which the
    sheet then refuses with its candidates (table.traits)."""
    assert parse_roll_arguments("сила воли 8", allow_traits=True).traits == "сила_воли"
    assert parse_roll_arguments("ловк драка", allow_traits=True).traits == "ловк_драка"
    assert parse_roll_arguments("ловк+драка св", allow_traits=True).willpower


def test_a_bare_plus_adds_dice_and_the_threshold_keeps_its_word() -> None:
    args = parse_roll_arguments("7 6 +2", allow_traits=True)
    assert (args.pool, args.difficulty, args.threshold, args.dice) == (7, 6, 0, 2)
    args = parse_roll_arguments("ловк+драка-1 6", allow_traits=True)
    assert (args.traits, args.difficulty, args.dice) == ("ловк+драка", 6, -1)
    args = parse_roll_arguments("сила +2 6 пор1", allow_traits=True)
    assert (args.traits, args.difficulty, args.dice, args.threshold) == ("сила", 6, 2, 1)
    assert parse_roll_arguments("ловк+драка 6 +1к", allow_traits=True).dice == 1


@pytest.mark.parametrize(
    ("text", "problem", "token"),
    [
        ("ab1", Problem.NOT_A_NUMBER, "ab1"),
        ("ловк+драка 7 8", Problem.TOO_MANY_NUMBERS, "8"),
    ],
)
def test_trait_pool_problems(text: str, problem: Problem, token: str) -> None:
    with pytest.raises(ArgumentsError) as caught:
        parse_roll_arguments(text, allow_traits=True)
    assert (caught.value.problem, caught.value.token) == (problem, token)


@pytest.mark.parametrize(
    ("text", "pool", "difficulty", "traits", "willpower"),
    [
        ("6 7 cв", 6, 7, None, True),  # a Latin «c»
        ("6 7 wр", 6, 7, None, True),  # a Cyrillic «р» in «wp»
        ("ловкость+фехтование7", 0, 7, "ловкость+фехтование", False),  # the number glued on
        ("dexterity+melee7 wp", 0, 7, "dexterity+melee", True),
        ("восприятие+бдительность сложность 7", 0, 7, "восприятие+бдительность", False),
        ("perception+alertness difficulty 7", 0, 7, "perception+alertness", False),
        ("6 сложность 8", 6, 8, None, False),
    ],
)
def test_a_roll_typed_on_a_phone(
    text: str, pool: int, difficulty: int, traits: str | None, willpower: bool
) -> None:
    args = parse_roll_arguments(text, allow_traits=True)
    assert (args.pool, args.difficulty, args.traits, args.willpower) == (
        pool,
        difficulty,
        traits,
        willpower,
    )


def test_a_named_difficulty_is_one_of_the_two_numbers() -> None:
    with pytest.raises(ArgumentsError) as caught:
        parse_roll_arguments("6 7 сложность 8", allow_traits=True)
    assert caught.value.problem is Problem.TOO_MANY_NUMBERS
    with pytest.raises(ArgumentsError) as caught:
        parse_roll_arguments("6 сложность", allow_traits=True)
    assert caught.value.problem is Problem.NOT_A_NUMBER
