"""Trait names (table.traits): resolution, pool expressions, pasted blocks and their export."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import ErrorCode, RulesInputError
from rules.profiles import HOUSE_MAGE, MagickOptions
from rules.sheet import (
    Ability,
    Attribute,
    D6Field,
    Discipline,
    Sheet,
    SheetSystem,
    Stat,
    Virtue,
    catalogue,
    new_sheet,
    set_power,
    set_trait,
    set_wheel,
    set_willpower,
    trait_range,
)
from rules.spheres import Sphere
from table.traits import (
    NAMES,
    BlockProblem,
    NameProblem,
    PowerNameError,
    TraitNameError,
    apply_block,
    display_name,
    export_sheet,
    normalise,
    parse_block,
    parse_pool_expression,
    parse_power_expression,
    resolve,
    resolve_power,
)

FAST = settings(max_examples=100, deadline=None)
D10 = (SheetSystem.MAGE, SheetSystem.DARK_AGES)
MAGE, DA, D6 = SheetSystem.MAGE, SheetSystem.DARK_AGES, SheetSystem.D6


def every(system: SheetSystem) -> list[tuple[SheetSystem, object]]:
    return [(system, code) for code in catalogue(system)]


ALL_CODES = every(MAGE) + every(DA) + every(D6)


# ----- full names, case, ё -----


@pytest.mark.parametrize(("system", "code"), ALL_CODES)
def test_every_trait_by_its_full_names(system: SheetSystem, code: object) -> None:
    names = NAMES[code]  # type: ignore[index]
    for spelling in (names.ru, names.en, *names.aliases):
        assert resolve(spelling, system) is code
        assert resolve(spelling.upper(), system) is code
        assert resolve(f"  {spelling.lower()}  ", system) is code
    for lang in ("ru", "en"):
        assert resolve(display_name(code, lang, system), system) is code  # type: ignore[arg-type]


def test_yo_and_ye_are_the_same_letter() -> None:
    assert resolve("Осведомлённость", MAGE) is Ability.AWARENESS
    assert resolve("осведомленность", MAGE) is Ability.AWARENESS
    assert resolve("Полёт".replace("Полёт", "уличное чутье"), MAGE) is Ability.STREETWISE
    assert normalise("  Огн.  ОРУЖИЁ_x ") == "огн оружие x"


def test_no_spelling_names_two_traits_in_one_system() -> None:
    for system in SheetSystem:
        seen: dict[str, object] = {}
        for code in catalogue(system):
            names = NAMES[code]
            for spelling in (names.ru, names.en, *names.aliases):
                key = normalise(spelling)
                assert seen.setdefault(key, code) is code, (system, key)


def test_every_catalogued_trait_has_names() -> None:
    for system in SheetSystem:
        for code in catalogue(system):
            assert NAMES[code].ru
            assert NAMES[code].en


# ----- prefixes and ambiguity -----


@pytest.mark.parametrize(
    ("text", "system", "code"),
    [
        ("ловк", MAGE, Attribute.DEXTERITY),
        ("драк", MAGE, Ability.BRAWL),
        ("драк", DA, Ability.BRAWL),
        ("сила", MAGE, Attribute.STRENGTH),  # exact wins over the prefix of «Сила Воли»
        ("силы", MAGE, Sphere.FORCES),
        ("сила воли", MAGE, Stat.WILLPOWER),
        ("сил вол", MAGE, Stat.WILLPOWER),
        ("СИЛА   ВОЛИ", DA, Stat.WILLPOWER),
        ("сила_воли", MAGE, Stat.WILLPOWER),
        ("св", MAGE, Stat.WILLPOWER),  # exact abbreviation beats the prefix of «Связи»
        ("wp", DA, Stat.WILLPOWER),
        ("воля", MAGE, Stat.WILLPOWER),
        ("связ", MAGE, Sphere.CORRESPONDENCE),
        ("огн оружие", MAGE, Ability.FIREARMS),
        ("Огн. Оружие", MAGE, Ability.FIREARMS),
        ("огн", MAGE, Ability.FIREARMS),
        ("фехт", MAGE, Ability.MELEE),
        ("метан", MAGE, Ability.THROWING),
        ("уклон", MAGE, Ability.DODGE),
        ("уворот", MAGE, Ability.DODGE),
        ("смекалка", DA, Attribute.WITS),
        ("сообр", MAGE, Attribute.WITS),
        ("арте", MAGE, Stat.ARETE),  # S4's spelling
        ("первооснова", MAGE, Sphere.PRIME),
        ("основы", MAGE, Sphere.PRIME),
        ("квинт", MAGE, Stat.QUINTESSENCE),
        ("человеч", DA, Stat.HUMANITY),
        ("dex", MAGE, Attribute.DEXTERITY),
        ("str", MAGE, Attribute.STRENGTH),  # not Streetwise
        ("int", DA, Attribute.INTELLIGENCE),  # not Intimidation or Investigation
        ("intim", DA, Ability.INTIMIDATION),
        ("animal k", DA, Ability.ANIMAL_KEN),
        ("самоконтроль", DA, Virtue.SELF_CONTROL),
        ("кровь", DA, Stat.BLOOD),
        ("стремительность", DA, Discipline.CELERITY),
        ("совесть", DA, Virtue.CONSCIENCE),
        ("храбрость", DA, Virtue.COURAGE),
        ("мед", DA, Ability.MEDICINE),
        ("удача", D6, D6Field.LUCK),
        ("слаб", D6, D6Field.WEAKNESS),
    ],
)
def test_resolves(text: str, system: SheetSystem, code: object) -> None:
    assert resolve(text, system) is code


@pytest.mark.parametrize(
    ("text", "system", "candidates"),
    [
        ("сил", MAGE, (Attribute.STRENGTH, Stat.WILLPOWER, Sphere.FORCES)),
        ("сил", DA, (Attribute.STRENGTH, Stat.WILLPOWER)),
        ("мед", MAGE, (Ability.MEDITATION, Ability.MEDICINE)),
        ("ма", MAGE, (Attribute.MANIPULATION, Ability.STEALTH, Sphere.MATTER)),  # Маскировка
    ],
)
def test_ambiguous_prefix_lists_candidates_in_sheet_order(
    text: str, system: SheetSystem, candidates: tuple[object, ...]
) -> None:
    with pytest.raises(TraitNameError) as info:
        resolve(text, system)
    assert info.value.problem is NameProblem.AMBIGUOUS
    assert info.value.candidates == candidates


def test_unknown_name_offers_close_spellings() -> None:
    with pytest.raises(TraitNameError) as info:
        resolve("лвкость", MAGE)
    assert info.value.problem is NameProblem.UNKNOWN
    assert info.value.candidates[0] is Attribute.DEXTERITY
    with pytest.raises(TraitNameError) as info:
        resolve("qwertyuiop", MAGE)
    assert info.value.candidates == ()


def test_one_letter_is_not_guessed() -> None:
    with pytest.raises(TraitNameError) as info:
        resolve("ж", MAGE)  # Жизнь is the only Ж, still not guessed
    assert info.value.problem is NameProblem.UNKNOWN


def test_trait_of_another_game() -> None:
    with pytest.raises(TraitNameError) as info:
        resolve("Арете", DA)
    assert info.value.problem is NameProblem.NOT_ON_SHEET
    assert info.value.candidates == (Stat.ARETE,)
    with pytest.raises(TraitNameError) as info:
        resolve("Человечность", MAGE)
    assert info.value.candidates == (Stat.HUMANITY,)


@pytest.mark.parametrize("text", ["", "   ", "..", "+"])
def test_empty_names(text: str) -> None:
    with pytest.raises(TraitNameError) as info:
        resolve(text.strip("+"), MAGE)
    assert info.value.problem is NameProblem.EMPTY


def test_unknown_system() -> None:
    with pytest.raises(RulesInputError, match="E_UNKNOWN_KEY"):
        resolve("ловкость", "chess")  # type: ignore[arg-type]


@pytest.mark.parametrize("system", list(SheetSystem))
def test_every_prefix_resolves_to_its_trait_or_lists_it(system: SheetSystem) -> None:
    for code in catalogue(system):
        names = NAMES[code]
        for spelling in (names.ru, names.en):
            word = normalise(spelling).split()[0]
            for end in range(2, len(word) + 1):
                found = _attempt(word[:end], system)
                if isinstance(found, TraitNameError):
                    assert found.problem is NameProblem.AMBIGUOUS
                    assert code in found.candidates
                else:
                    # An exact spelling of another trait may win («сила» before «Сила Воли»).
                    assert found is code or normalise(word[:end]) in _exact_of(found)


def _attempt(text: str, system: SheetSystem) -> object:
    try:
        return resolve(text, system)
    except TraitNameError as exc:
        return exc


def _exact_of(code: object) -> set[str]:
    names = NAMES[code]  # type: ignore[index]
    return {normalise(s) for s in (names.ru, names.en, *names.aliases)}


# ----- display names -----


def test_display_names_follow_each_book() -> None:
    assert display_name(Attribute.WITS, "ru", MAGE) == "Смекалка"  # S4
    assert display_name(Attribute.WITS, "ru", DA) == "Сообразительность"  # S1
    assert display_name(Ability.DODGE, "ru", MAGE) == "Уклонение"
    assert display_name(Ability.DODGE, "ru", DA) == "Уворот"
    assert display_name(Ability.STEALTH, "ru", DA) == "Маскировка"
    assert display_name(Sphere.PRIME, "ru", MAGE) == "Основы"
    assert display_name(Stat.WILLPOWER, "en", MAGE) == "Willpower"


# ----- pool expressions -----


def test_pool_expression() -> None:
    assert parse_pool_expression("ловк+драка", MAGE) == [Attribute.DEXTERITY, Ability.BRAWL]
    assert parse_pool_expression(" Восприятие + Бдительность ", DA) == [
        Attribute.PERCEPTION,
        Ability.ALERTNESS,
    ]
    assert parse_pool_expression("сила воли", MAGE) == [Stat.WILLPOWER]


def test_pool_expression_too_many_traits() -> None:
    with pytest.raises(RulesInputError, match="E_TOO_MANY_TRAITS"):
        parse_pool_expression("ловк+драка+сила", MAGE)
    with pytest.raises(RulesInputError, match="E_TOO_MANY_TRAITS"):
        parse_pool_expression("нет+такой+черты", MAGE)  # counted before names are read


def test_pool_expression_bad_parts() -> None:
    with pytest.raises(TraitNameError) as info:
        parse_pool_expression("ловк+", MAGE)
    assert info.value.problem is NameProblem.EMPTY
    with pytest.raises(TraitNameError) as info:
        parse_pool_expression("ловк+сил", MAGE)
    assert info.value.problem is NameProblem.AMBIGUOUS


def test_powers_by_prefix() -> None:
    powers = ["Огненный шар", "Огненная стена", "Полёт"]
    assert resolve_power("полет", powers) == "Полёт"
    assert resolve_power("огненный ш", powers) == "Огненный шар"
    assert parse_power_expression("пол+огненная", powers) == ["Полёт", "Огненная стена"]
    with pytest.raises(PowerNameError) as info:
        resolve_power("огн", powers)
    assert info.value.problem is NameProblem.AMBIGUOUS
    assert info.value.power_candidates == ("Огненный шар", "Огненная стена")
    with pytest.raises(PowerNameError) as info:
        resolve_power("полоть", powers)
    assert info.value.problem is NameProblem.UNKNOWN
    assert info.value.power_candidates == ("Полёт",)


# ----- pasted blocks -----

BLOCK = """Ловкость 3
Драка: 2
Сила Воли 5/7
Арете 3, Силы 2
"""


def test_the_issue_block() -> None:
    result = apply_block(new_sheet(MAGE), BLOCK)
    assert result.errors == ()
    sheet = result.sheet
    assert sheet.rating(Attribute.DEXTERITY) == 3
    assert sheet.rating(Ability.BRAWL) == 2
    assert (sheet.willpower_current, sheet.willpower) == (5, 7)
    assert sheet.arete == 3
    assert sheet.spheres == {"forces": 2}
    assert [e.line for e in result.applied] == [1, 2, 3, 4, 4]


def test_block_separators_and_dots() -> None:
    parsed = parse_block("Ловкость — 3; Драка=2\nСмекалка ●●●○○\nОгн. Оружие:4", MAGE)
    assert parsed.errors == ()
    assert [(e.code, e.value) for e in parsed.entries] == [
        (Attribute.DEXTERITY, 3),
        (Ability.BRAWL, 2),
        (Attribute.WITS, 3),
        (Ability.FIREARMS, 4),
    ]


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ("Ловкость три", BlockProblem.BAD_NUMBER),
        ("Ловкость -3", BlockProblem.BAD_NUMBER),
        ("Ловкость 3.5", BlockProblem.BAD_NUMBER),
        ("Сила Воли пять", BlockProblem.BAD_NUMBER),
        ("Драка: два", BlockProblem.BAD_NUMBER),
        ("Ловкость", BlockProblem.MISSING_VALUE),
        ("Сила Воли", BlockProblem.MISSING_VALUE),
        ("Сила:", BlockProblem.MISSING_VALUE),
        ("Лвкасть 3", BlockProblem.UNKNOWN_NAME),  # two slips: only suggested
        ("Лвкость три", BlockProblem.UNKNOWN_NAME),
        ("3", BlockProblem.UNKNOWN_NAME),
        ("сил 2", BlockProblem.AMBIGUOUS_NAME),
        ("Человечность 7", BlockProblem.NOT_ON_SHEET),
    ],
)
def test_block_line_errors(item: str, problem: BlockProblem) -> None:
    parsed = parse_block(f"Ловкость 3\n{item}", MAGE)
    assert len(parsed.entries) == 1
    assert [(e.line, e.text, e.problem) for e in parsed.errors] == [(2, item, problem)]


def test_block_errors_carry_candidates() -> None:
    (error,) = parse_block("сил 2", MAGE).errors
    assert error.candidates == (Attribute.STRENGTH, Stat.WILLPOWER, Sphere.FORCES)


def test_rules_refusals_are_per_line() -> None:
    result = apply_block(new_sheet(MAGE), "Ловкость 9\nДрака 2\nЛовкость 3/5\nСила Воли 8/7")
    assert result.sheet.rating(Ability.BRAWL) == 2
    assert result.sheet.rating(Attribute.DEXTERITY) is None
    assert [(e.line, e.problem, e.error) for e in result.errors] == [
        (1, BlockProblem.REJECTED, ErrorCode.RANGE),
        (3, BlockProblem.REJECTED, ErrorCode.RANGE),
        (4, BlockProblem.REJECTED, ErrorCode.RANGE),
    ]


def test_quintessence_and_paradox_are_set_together() -> None:
    # A paste with Paradox 15 before Quintessence 5 would overflow the 20-box wheel in order.
    sheet = set_wheel(new_sheet(MAGE), quintessence=12)
    result = apply_block(sheet, "Парадокс 15\nКвинтэссенция 5")
    assert result.errors == ()
    assert (result.sheet.quintessence, result.sheet.paradox) == (5, 15)
    bad = apply_block(sheet, "Парадокс 15\nКвинтэссенция 6")
    assert [(e.line, e.error) for e in bad.errors] == [(1, ErrorCode.STATE), (2, ErrorCode.STATE)]
    assert bad.sheet == sheet


def test_block_honours_the_profile_wheel() -> None:
    big = HOUSE_MAGE.model_copy(update={"magick": MagickOptions(wheel_size=25)})
    assert apply_block(new_sheet(MAGE), "Квинтэссенция 25", big).sheet.quintessence == 25


def test_d6_block_makes_powers() -> None:
    result = apply_block(
        new_sheet(D6), "Огненный шар 2\nПолёт: 1\nСлабость 3\nКубики удачи 2\nУдар 2 3"
    )
    assert result.errors == ()
    sheet = result.sheet
    assert [(p.name, p.level) for p in sheet.powers] == [
        ("Огненный шар", 2),
        ("Полёт", 1),
        ("Удар 2", 3),
    ]
    assert (sheet.weakness, sheet.luck) == (3, 2)
    bad = apply_block(sheet, "Огонь 4\nТьма\nВода x")
    assert [(e.line, e.problem, e.error) for e in bad.errors] == [
        (1, BlockProblem.REJECTED, ErrorCode.RANGE),
        (2, BlockProblem.MISSING_VALUE, None),
        (3, BlockProblem.MISSING_VALUE, None),
    ]


# ----- export and round trip -----


def test_export_in_both_languages() -> None:
    sheet = apply_block(new_sheet(MAGE), BLOCK).sheet
    assert export_sheet(sheet, "ru") == "Ловкость 3\nДрака 2\nСила Воли 5/7\nАрете 3\nСилы 2"
    assert export_sheet(sheet, "en") == "Dexterity 3\nBrawl 2\nWillpower 5/7\nArete 3\nForces 2"
    full = set_willpower(sheet, 7, 7)
    assert "Сила Воли 7" in export_sheet(full, "ru").splitlines()


def _mage_like(system: SheetSystem) -> st.SearchStrategy[Sheet]:
    codes = [c for c in catalogue(system) if not isinstance(c, Stat)]

    @st.composite
    def build(draw: st.DrawFn) -> Sheet:
        sheet = new_sheet(system)
        for code in draw(st.lists(st.sampled_from(codes), unique=True, max_size=12)):
            sheet = set_trait(sheet, code, draw(st.integers(*trait_range(code))))
        if draw(st.booleans()):
            rating = draw(st.integers(1, 10))
            sheet = set_willpower(sheet, rating, draw(st.integers(0, rating)))
        other = Stat.ARETE if system is MAGE else Stat.HUMANITY
        if draw(st.booleans()):
            sheet = set_trait(sheet, other, draw(st.integers(1, 10)))
        if system is MAGE:
            paradox = draw(st.integers(0, 30))
            quint = draw(st.integers(0, max(0, 20 - paradox)))
            sheet = set_wheel(sheet, quintessence=quint, paradox=paradox)
        return sheet

    return build()


_NAME_ALPHABET = "абвгдеёжзиклмнопрстуфхцчшщыьэюяАБВГДЕЁabcdefghXYZ0123456789 -'"
_RESERVED = {normalise(s) for c in catalogue(D6) for s in (NAMES[c].ru, NAMES[c].en)} | {
    normalise(a) for c in catalogue(D6) for a in NAMES[c].aliases
}


@st.composite
def _d6_sheets(draw: st.DrawFn) -> Sheet:
    sheet = new_sheet(D6)
    names = draw(
        st.lists(
            st.text(_NAME_ALPHABET, min_size=1, max_size=20).filter(
                lambda n: any(ch.isalpha() for ch in n) and normalise(n) not in _RESERVED
            ),
            max_size=6,
            unique_by=lambda n: " ".join(n.split()).casefold().replace("ё", "е"),
        )
    )
    for name in names:
        sheet = set_power(sheet, name, draw(st.integers(1, 3)))
    sheet = set_trait(sheet, D6Field.WEAKNESS, draw(st.integers(0, 5)))
    return set_trait(sheet, D6Field.LUCK, draw(st.integers(0, 10)))


SHEETS = st.one_of(_mage_like(MAGE), _mage_like(DA), _d6_sheets())


@FAST
@given(sheet=SHEETS, lang=st.sampled_from(["ru", "en"]))
def test_export_parse_round_trip(sheet: Sheet, lang: str) -> None:
    text = export_sheet(sheet, lang)  # type: ignore[arg-type]
    result = apply_block(new_sheet(sheet.system), text)
    assert result.errors == ()
    assert result.sheet == sheet
    assert export_sheet(result.sheet, lang) == text  # type: ignore[arg-type]


@FAST
@given(sheet=SHEETS)
def test_a_sheet_read_in_one_language_exports_in_the_other(sheet: Sheet) -> None:
    english = apply_block(new_sheet(sheet.system), export_sheet(sheet, "en")).sheet
    assert export_sheet(english, "ru") == export_sheet(sheet, "ru")


@FAST
@given(text=st.text(max_size=300), system=st.sampled_from(list(SheetSystem)))
def test_any_text_is_read_without_exceptions(text: str, system: SheetSystem) -> None:
    sheet = new_sheet(system)
    result = apply_block(sheet, text)
    lines = text.splitlines()
    for error in result.errors:
        assert 1 <= error.line <= len(lines)
    if not result.applied:
        assert result.sheet == sheet


@FAST
@given(text=st.text(max_size=60))
def test_resolve_raises_only_name_errors(text: str) -> None:
    found = _attempt(text, MAGE)
    if isinstance(found, TraitNameError):
        if found.problem is NameProblem.NOT_ON_SHEET:
            assert found.candidates[0] not in catalogue(MAGE)
        else:
            assert all(c in catalogue(MAGE) for c in found.candidates)
    else:
        assert found in catalogue(MAGE)


def test_long_lines_stay_fast() -> None:
    # The value is searched from the end, so a 4096-character message is linear work.
    parsed = parse_block("Ловкость" + " " * 4000 + "x3", MAGE)
    assert len(parsed.errors) == 1


def test_a_name_one_slip_from_one_trait_is_read_as_it() -> None:
    """A confident correction (:func:`bot.traits.corrected`) is an entry, marked with what
    was typed so the answer says how it was read; an unsure one stays an error."""
    parsed = parse_block("Лвкость 3\nЛвкасть 2", SheetSystem.MAGE)
    assert [(e.code, e.value, e.typed) for e in parsed.entries] == [
        (Attribute.DEXTERITY, 3, "Лвкость")
    ]
    assert [e.problem for e in parsed.errors] == [BlockProblem.UNKNOWN_NAME]
