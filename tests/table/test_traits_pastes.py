"""Reading a sheet as players paste it (table.traits): headings, a label before the first trait,
the view's «·», the d6 weakness with its word, suggestions a typo away, the player's word."""

from __future__ import annotations

import pytest

from rules.sheet import (
    Ability,
    Attribute,
    D6Field,
    Discipline,
    SheetSystem,
    Sphere,
    Stat,
    Virtue,
    new_sheet,
)
from table.traits import (
    BlockProblem,
    TraitNameError,
    apply_block,
    corrected,
    export_sheet,
    parse_block,
    resolve,
    said_name,
    slips,
)

MAGE, DA, D6 = SheetSystem.MAGE, SheetSystem.DARK_AGES, SheetSystem.D6


def test_a_label_before_the_first_trait_and_headings_alone() -> None:
    parsed = parse_block("**Таланты**\nТаланты: Бдительность 2, Драка 3\n— Сферы —", MAGE)
    assert parsed.errors == ()
    assert [(e.code, e.value) for e in parsed.entries] == [
        (Ability.ALERTNESS, 2),
        (Ability.BRAWL, 3),
    ]


def test_a_trait_named_like_a_heading_is_still_a_trait() -> None:
    """«Силы» heads a d6 list of powers, but on a Mage sheet it is the Sphere."""
    parsed = parse_block("Силы: 2\nСилы", MAGE)
    assert [(e.code, e.value) for e in parsed.entries] == [(Sphere.FORCES, 2)]
    assert len(parsed.errors) == 1  # «Силы» alone: the value is missing


def test_the_sheet_views_separator_reads_back() -> None:
    parsed = parse_block("Физические: Сила 2 · Ловкость 3 · Выносливость 2", MAGE)
    assert [e.code for e in parsed.entries] == [
        Attribute.STRENGTH,
        Attribute.DEXTERITY,
        Attribute.STAMINA,
    ]


@pytest.mark.parametrize(
    "text", ["Слабость: Жадность 2", "Слабость Жадность 2", "Слабость:Жадность 2"]
)
def test_the_d6_weakness_with_its_word(text: str) -> None:
    result = apply_block(new_sheet(D6), text)
    assert result.errors == ()
    assert (result.sheet.weakness, result.sheet.weakness_name) == (2, "Жадность")
    assert export_sheet(result.sheet, "ru") == "Слабость: Жадность 2"
    again = apply_block(new_sheet(D6), export_sheet(result.sheet, "ru")).sheet
    assert again == result.sheet
    cleared = apply_block(result.sheet, "Слабость 0").sheet
    assert (cleared.weakness, cleared.weakness_name) == (None, None)


def test_d6_power_names_keep_their_middle_dot() -> None:
    result = apply_block(new_sheet(D6), "Огонь·Лёд 2")
    assert [(p.name, p.level) for p in result.sheet.powers] == [("Огонь·Лёд", 2)]


@pytest.mark.parametrize(
    ("typed", "system", "code"),
    [
        ("Первоосновы", MAGE, Sphere.PRIME),
        ("Внимательность", MAGE, Ability.ALERTNESS),
        ("Рукопашный бой", DA, Ability.BRAWL),
        ("Могущество", DA, Discipline.POTENCE),
        ("Кубы удачи", D6, D6Field.LUCK),
    ],
)
def test_the_names_players_bring(typed: str, system: SheetSystem, code: object) -> None:
    assert resolve(typed, system) is code


@pytest.mark.parametrize(
    ("typed", "offered"),
    [("Сущность", ()), ("Бдительнсоть", (Ability.ALERTNESS,)), ("Лвкость", (Attribute.DEXTERITY,))],
)
def test_suggestions_only_a_typo_away(typed: str, offered: tuple[object, ...]) -> None:
    with pytest.raises(TraitNameError) as info:
        resolve(typed, MAGE)
    assert info.value.candidates == offered


def test_slips_count_swaps_as_one() -> None:
    assert slips("бдительнсоть", "бдительность", 2) == 1
    assert slips("сущность", "скрытность", 2) == 3


def test_the_players_word_is_said_back() -> None:
    assert said_name(Discipline.POTENCE, "могущество", "ru", DA) == "Могущество"
    assert said_name(Attribute.DEXTERITY, "ловк", "ru", MAGE) == "Ловкость"
    assert said_name(Attribute.STRENGTH, "str", "ru", MAGE) == "Сила"
    assert said_name(Ability.BRAWL, "brawl", "ru", MAGE) == "Драка"  # the other language
    assert said_name(Discipline.POTENCE, "potence", "en", DA) == "Potence"
    assert said_name(Discipline.POTENCE, "могущество", "en", DA) == "Potence"


@pytest.mark.parametrize(
    "pasted",
    [
        "Физические — Сила 2, Ловкость 3",
        "Физические: Сила 2, Ловкость 3",
        "Физические... Сила 2, Ловкость 3",
        "Физические - Сила 2, Ловкость 3",
        "Сила-2; Ловкость-3",
        "Сила ●●○○○ · Ловкость ●●●○○",
        "Сила ⚫⚫⚪⚪⚪\nЛовкость ⚫⚫⚫⚪⚪",
        "2 Сила\n3 Ловкость",
        "Physical — Strength 2, Dexterity 3",
        "cила 2, Ловкоcть 3",  # a Latin «c» in each
    ],
)
def test_a_paste_as_people_write_it(pasted: str) -> None:
    parsed = parse_block(pasted, DA)
    assert parsed.errors == ()
    assert [(e.code, e.value) for e in parsed.entries] == [
        (Attribute.STRENGTH, 2),
        (Attribute.DEXTERITY, 3),
    ]


def test_the_road_is_humanity() -> None:
    for pasted in ("Путь Человечности: 7", "Дорога Человечности 7", "Road of Humanity: 7"):
        assert [(e.code, e.value) for e in parse_block(pasted, DA).entries] == [(Stat.HUMANITY, 7)]


def test_a_word_under_a_heading_is_of_its_kind() -> None:
    """«Убеждение» is a Virtue's other name, but on the Talents line it is no Virtue."""
    parsed = parse_block("Таланты: Убеждение 2, Драка 3\nДобродетели: Убеждение 4", DA)
    assert [(e.code, e.value) for e in parsed.entries] == [
        (Ability.BRAWL, 3),
        (Virtue.CONVICTION, 4),
    ]
    assert [e.text for e in parsed.errors] == ["Убеждение 2"]
    parsed = parse_block("Talents\nConviction 2\nVirtues\nConviction 3", DA)
    assert [(e.code, e.value) for e in parsed.entries] == [(Virtue.CONVICTION, 3)]
    # what every section's sheet has stays readable under any heading
    parsed = parse_block("Атрибуты\nСила 2\nСила Воли 5", DA)
    assert [e.code for e in parsed.entries] == [Attribute.STRENGTH, Stat.WILLPOWER]


def test_a_hyphen_with_a_space_is_still_a_minus() -> None:
    assert [e.problem for e in parse_block("Ловкость -3", DA).errors] == [BlockProblem.BAD_NUMBER]


def test_a_name_one_slip_from_one_trait_only_is_certain() -> None:
    assert corrected("ловкасть", MAGE) is Attribute.DEXTERITY
    assert corrected("Dexterty", MAGE) is Attribute.DEXTERITY  # a letter missing
    assert corrected("ловкость", MAGE) is None  # right as typed: nothing to correct
    assert corrected("сила", MAGE) is None  # too short to be sure
    assert corrected("скрытнсть", MAGE) is Ability.STEALTH
    assert corrected("ловкаааа", MAGE) is None  # more than one slip: ask instead
