"""Character sheets (rules.sheet): catalogue, ranges, Willpower, the wheel, pools, d6 powers."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import presets
from rules.actions import PoolStatus
from rules.d6.chance import ChanceStatus, DifficultyKind
from rules.errors import ErrorCode, RulesInputError
from rules.health import DamageType, HealthTrack, ImpossibleReason, apply_damage, track_of
from rules.profiles import D6, DARK_AGES, HOUSE_MAGE, MAGE_REVISED, MagickOptions
from rules.sheet import (
    ATTRIBUTES,
    DARK_AGES_ABILITIES,
    MAGE_ABILITIES,
    PARADOX_MAX,
    Ability,
    Attribute,
    D6Field,
    Sheet,
    SheetSystem,
    Stat,
    add_paradox,
    add_wound,
    catalogue,
    clear_trait,
    d6_chance,
    default_profile,
    from_json,
    gain_quintessence,
    heal_wound,
    new_sheet,
    pool_from_traits,
    regain_willpower,
    remove_paradox,
    set_health,
    set_power,
    set_supernatural,
    set_trait,
    set_wheel,
    set_willpower,
    spend_luck,
    spend_quintessence,
    spend_willpower,
    system_of,
    to_json,
    trait_code,
    trait_range,
)
from rules.spheres import Sphere

FAST = settings(max_examples=150, deadline=None)


def mage(**traits: int) -> Sheet:
    sheet = new_sheet(SheetSystem.MAGE)
    for code, value in traits.items():
        sheet = set_trait(sheet, code, value)
    return sheet


def raises(code: ErrorCode) -> Any:
    return pytest.raises(RulesInputError, match=code.value)


# ----- catalogue -----


def test_nine_attributes_and_thirty_dark_ages_abilities() -> None:
    # S1 «…что в результате дает нам 270 вариантов» = 9 Attributes × 30 Abilities.
    assert len(ATTRIBUTES) == 9
    assert len(DARK_AGES_ABILITIES) == 30 == presets.DARK_AGES_ABILITY_COUNT
    assert len(set(DARK_AGES_ABILITIES)) == 30


def test_dark_ages_sheet_has_every_ability_s1_rolls() -> None:
    for entry in presets.PRESETS:
        assert entry.ability in DARK_AGES_ABILITIES
    for named in (Ability.ARCHERY, Ability.INTIMIDATION, Ability.OCCULT):  # S1 glossary
        assert named in DARK_AGES_ABILITIES


def test_mage_sheet_has_the_house_sheet_abilities() -> None:
    # S4 rolls «Ловкость + Уклонение», «Огн. Оружие/Метание», «Фехтование», «Скрытность»,
    # «Бдительность», «Осведомлённость», «Драка», «Атлетизм», «Медицина».
    for named in (
        Ability.DODGE,
        Ability.FIREARMS,
        Ability.THROWING,
        Ability.MELEE,
        Ability.STEALTH,
        Ability.ALERTNESS,
        Ability.AWARENESS,
        Ability.BRAWL,
        Ability.ATHLETICS,
        Ability.MEDICINE,
    ):
        assert named in MAGE_ABILITIES
    assert len(set(MAGE_ABILITIES)) == len(MAGE_ABILITIES)


def test_catalogues_per_system() -> None:
    mage_codes = catalogue(SheetSystem.MAGE)
    assert set(Sphere) <= set(mage_codes)
    assert {Stat.WILLPOWER, Stat.ARETE, Stat.QUINTESSENCE, Stat.PARADOX} <= set(mage_codes)
    assert Stat.HUMANITY not in mage_codes
    da = catalogue(SheetSystem.DARK_AGES)
    assert Stat.HUMANITY in da
    assert Stat.ARETE not in da
    assert Sphere.FORCES not in da
    assert catalogue(SheetSystem.D6) == (D6Field.WEAKNESS, D6Field.LUCK, D6Field.ALACRITY)


def test_presets_use_the_sheet_codes() -> None:
    assert presets.Attribute is Attribute
    assert presets.Ability is Ability


def test_trait_code_unknown_and_not_allowed() -> None:
    assert trait_code("dexterity") is Attribute.DEXTERITY
    with raises(ErrorCode.UNKNOWN_KEY):
        trait_code("charm")
    with raises(ErrorCode.NOT_ALLOWED):
        trait_code("arete", SheetSystem.DARK_AGES)
    with raises(ErrorCode.TYPE):
        trait_code(3)


def test_system_of_profiles() -> None:
    assert system_of(HOUSE_MAGE) is SheetSystem.MAGE
    assert system_of(MAGE_REVISED) is SheetSystem.MAGE
    assert system_of(DARK_AGES) is SheetSystem.DARK_AGES
    assert system_of(DARK_AGES.model_copy(update={"team_botch": "ruins_all"})) is (
        SheetSystem.DARK_AGES
    )
    assert system_of(D6) is SheetSystem.D6
    assert default_profile(SheetSystem.MAGE) is HOUSE_MAGE


# ----- ranges (S0 «…минимальное значение, равное 0, и максимальное, равное 5») -----


def test_attribute_and_ability_range_0_to_5() -> None:
    sheet = mage(dexterity=0, brawl=5)
    assert sheet.rating(Attribute.DEXTERITY) == 0
    assert sheet.rating("brawl") == 5
    with raises(ErrorCode.RANGE):
        set_trait(sheet, Attribute.DEXTERITY, 6)
    with raises(ErrorCode.RANGE):
        set_trait(sheet, Ability.BRAWL, -1)


def test_supernatural_sheet_goes_to_10() -> None:
    # S0 «некоторые сверхъестественные чудовища могут иметь значения Черт выше 5»
    sheet = set_supernatural(new_sheet(SheetSystem.MAGE), True)
    sheet = set_trait(sheet, Attribute.STRENGTH, 8)
    assert sheet.rating(Attribute.STRENGTH) == 8
    with raises(ErrorCode.RANGE):
        set_trait(sheet, Attribute.STRENGTH, 11)
    with raises(ErrorCode.RANGE):  # switching back off would leave an impossible rating
        set_supernatural(sheet, False)


@pytest.mark.parametrize("code", [Stat.WILLPOWER, Stat.ARETE])
def test_willpower_and_arete_1_to_10(code: Stat) -> None:
    # S0 «Арете и Сила Воли имеют максимальный уровень, равный 10»
    sheet = set_trait(new_sheet(SheetSystem.MAGE), code, 10)
    assert sheet.rating(code) == 10
    for bad in (0, 11):
        with raises(ErrorCode.RANGE):
            set_trait(sheet, code, bad)


def test_humanity_on_dark_ages_only() -> None:
    sheet = set_trait(new_sheet(SheetSystem.DARK_AGES), Stat.HUMANITY, 7)
    assert sheet.humanity == 7
    with raises(ErrorCode.RANGE):
        set_trait(sheet, Stat.HUMANITY, 11)
    with raises(ErrorCode.NOT_ALLOWED):
        set_trait(new_sheet(SheetSystem.MAGE), Stat.HUMANITY, 7)
    with raises(ErrorCode.NOT_ALLOWED):
        set_trait(sheet, Sphere.FORCES, 1)


def test_spheres_0_to_5() -> None:
    sheet = set_trait(new_sheet(SheetSystem.MAGE), Sphere.FORCES, 5)
    assert sheet.spheres == {"forces": 5}
    with raises(ErrorCode.RANGE):
        set_trait(sheet, Sphere.TIME, 6)


def test_trait_range_table() -> None:
    assert trait_range(Attribute.WITS) == (0, 5)
    assert trait_range(Ability.DODGE, supernatural=True) == (0, 10)
    assert trait_range(Stat.HUMANITY) == (1, 10)
    assert trait_range(Sphere.MIND) == (0, 5)
    assert trait_range(D6Field.WEAKNESS) == (0, 5)


@pytest.mark.parametrize("bad", [True, 3.0, "3", None])
def test_values_must_be_real_ints(bad: Any) -> None:
    with raises(ErrorCode.TYPE):
        set_trait(new_sheet(SheetSystem.MAGE), Attribute.DEXTERITY, bad)


def test_clear_trait() -> None:
    sheet = clear_trait(mage(dexterity=3, forces=2), "dexterity")
    assert sheet.rating("dexterity") is None
    assert clear_trait(sheet, Sphere.FORCES).spheres == {}
    with raises(ErrorCode.NOT_ALLOWED):
        clear_trait(sheet, Stat.WILLPOWER)


def test_sheet_is_frozen() -> None:
    sheet = mage(dexterity=3)
    with pytest.raises(Exception, match="frozen"):
        sheet.arete = 3  # type: ignore[misc]
    set_trait(sheet, "dexterity", 4)
    assert sheet.rating("dexterity") == 3


# ----- Willpower (§A.7) -----


def test_first_willpower_rating_starts_full() -> None:
    sheet = set_trait(new_sheet(SheetSystem.MAGE), Stat.WILLPOWER, 7)
    assert (sheet.willpower, sheet.willpower_current) == (7, 7)


def test_willpower_current_follows_a_full_rating_and_is_kept_otherwise() -> None:
    full = set_willpower(new_sheet(SheetSystem.MAGE), 5)
    assert set_willpower(full, 7).willpower_current == 7  # a corrected typo
    spent = set_willpower(full, 5, 3)
    assert set_willpower(spent, 7).willpower_current == 3
    assert set_willpower(spent, 2).willpower_current == 2  # never above the rating
    with raises(ErrorCode.RANGE):
        set_willpower(full, 5, 6)


def test_spend_willpower_until_empty() -> None:
    sheet = set_willpower(new_sheet(SheetSystem.MAGE), 2)
    sheet = spend_willpower(spend_willpower(sheet))
    assert sheet.willpower_current == 0
    assert sheet.willpower == 2
    with raises(ErrorCode.WP_UNAVAILABLE):
        spend_willpower(sheet)
    with raises(ErrorCode.WP_UNAVAILABLE):  # no rating at all
        spend_willpower(new_sheet(SheetSystem.MAGE))


def test_regain_willpower_capped_by_rating() -> None:
    sheet = set_willpower(new_sheet(SheetSystem.DARK_AGES), 6, 1)
    assert regain_willpower(sheet, 3).willpower_current == 4
    assert regain_willpower(sheet, 10).willpower_current == 6
    with raises(ErrorCode.STATE):
        regain_willpower(new_sheet(SheetSystem.DARK_AGES))


@FAST
@given(
    rating=st.integers(1, 10),
    ops=st.lists(st.tuples(st.booleans(), st.integers(0, 10)), max_size=30),
)
def test_willpower_never_below_zero_nor_above_rating(
    rating: int, ops: list[tuple[bool, int]]
) -> None:
    sheet = set_willpower(new_sheet(SheetSystem.MAGE), rating)
    for spend, points in ops:
        before = sheet.willpower_current
        assert before is not None
        if not spend:
            sheet = regain_willpower(sheet, points)
        elif points == 0:
            with raises(ErrorCode.RANGE):
                spend_willpower(sheet, points)
        elif before < points:
            with raises(ErrorCode.WP_UNAVAILABLE):
                spend_willpower(sheet, points)
        else:
            sheet = spend_willpower(sheet, points)
            assert sheet.willpower_current == before - points
        current = sheet.willpower_current
        assert current is not None
        assert 0 <= current <= rating


# ----- Quintessence and Paradox (§C.11) -----


def test_set_wheel_checks_the_shared_track() -> None:
    sheet = set_wheel(new_sheet(SheetSystem.MAGE), quintessence=12, paradox=8)
    assert (sheet.quintessence, sheet.paradox) == (12, 8)
    with raises(ErrorCode.STATE):  # 13 + 8 > 20 boxes
        set_trait(sheet, Stat.QUINTESSENCE, 13)
    # S4 «место на треке не ограничивают максимальное кол-во Парадокса»
    assert set_wheel(new_sheet(SheetSystem.MAGE), paradox=30).paradox == 30
    with raises(ErrorCode.RANGE):
        set_trait(new_sheet(SheetSystem.MAGE), Stat.PARADOX, PARADOX_MAX + 1)


def test_wheel_size_from_profile() -> None:
    big = HOUSE_MAGE.model_copy(update={"magick": MagickOptions(wheel_size=25)})
    assert set_trait(new_sheet(SheetSystem.MAGE), Stat.QUINTESSENCE, 25, big).quintessence == 25
    with raises(ErrorCode.RANGE):
        set_trait(new_sheet(SheetSystem.MAGE), Stat.QUINTESSENCE, 25)


def test_spend_quintessence() -> None:
    sheet = set_wheel(new_sheet(SheetSystem.MAGE), quintessence=3)
    assert spend_quintessence(sheet, 2).quintessence == 1
    with raises(ErrorCode.QUINT_LIMIT):
        spend_quintessence(sheet, 4)


def test_paradox_burns_quintessence() -> None:
    # S4 «Парадокс сжигает Квинтэссенцию в квадратах, где ему нужно место на треке.»
    sheet = set_wheel(new_sheet(SheetSystem.MAGE), quintessence=15, paradox=3)
    after = add_paradox(sheet, 4)
    assert (after.quintessence, after.paradox) == (13, 7)
    assert remove_paradox(after, 10).paradox == 0


def test_gained_quintessence_fills_free_boxes_only() -> None:
    sheet = set_wheel(new_sheet(SheetSystem.MAGE), quintessence=10, paradox=8)
    assert gain_quintessence(sheet, 5).quintessence == 12


def test_wheel_only_on_mage_sheets() -> None:
    with raises(ErrorCode.NOT_ALLOWED):
        add_paradox(new_sheet(SheetSystem.DARK_AGES), 1)
    with raises(ErrorCode.NOT_ALLOWED):
        set_trait(new_sheet(SheetSystem.DARK_AGES), Stat.QUINTESSENCE, 1)


# ----- pools (§A.2 with §B.9) -----


def test_pool_from_two_traits() -> None:
    pool = pool_from_traits(mage(dexterity=3, brawl=2), [Attribute.DEXTERITY, Ability.BRAWL])
    assert (pool.dice, pool.status, pool.missing, pool.wound_penalty) == (5, PoolStatus.ROLL, (), 0)
    assert pool.rollable
    assert pool.ratings == (3, 2)


def test_pool_codes_as_strings() -> None:
    assert pool_from_traits(mage(dexterity=3, brawl=2), ["dexterity", "brawl"]).dice == 5


def test_zero_ability_per_profile() -> None:
    # S4 «0 в Способности - автоматически [Неудача], если ГМ не решит иначе.»
    sheet = mage(dexterity=3, brawl=0)
    house = pool_from_traits(sheet, ["dexterity", "brawl"], HOUSE_MAGE)
    assert house.status is PoolStatus.AUTO_FAILURE
    assert house.dice == 0
    assert pool_from_traits(sheet, ["dexterity", "brawl"], HOUSE_MAGE, gm_override=True).dice == 3
    revised = pool_from_traits(sheet, ["dexterity", "brawl"], MAGE_REVISED)
    assert revised.status is PoolStatus.ROLL
    assert revised.dice == 3


def test_unset_traits_count_as_zero_and_are_reported() -> None:
    pool = pool_from_traits(mage(dexterity=3), ["dexterity", "brawl"], MAGE_REVISED)
    assert pool.missing == (Ability.BRAWL,)
    assert pool.dice == 3
    empty = pool_from_traits(new_sheet(SheetSystem.MAGE), ["perception"])
    assert empty.status is PoolStatus.IMPOSSIBLE
    assert empty.reason is ImpossibleReason.POOL_EMPTY


def test_three_traits_is_too_many() -> None:
    # S0 «не бывает случаев, когда набор кубиков собирается из более, чем двух Черт»
    with raises(ErrorCode.TOO_MANY_TRAITS):
        pool_from_traits(mage(dexterity=3, brawl=2, wits=2), ["dexterity", "brawl", "wits"])


def test_same_trait_twice_and_spheres_are_not_pools() -> None:
    sheet = mage(dexterity=3, forces=2)
    with raises(ErrorCode.NOT_ALLOWED):
        pool_from_traits(sheet, ["dexterity", "dexterity"])
    with raises(ErrorCode.NOT_ALLOWED):
        pool_from_traits(sheet, [Sphere.FORCES])
    with raises(ErrorCode.NOT_ALLOWED):
        pool_from_traits(new_sheet(SheetSystem.D6), ["dexterity"])


def test_bonuses_and_penalties() -> None:
    sheet = mage(dexterity=3, brawl=2)
    assert pool_from_traits(sheet, ["dexterity", "brawl"], bonuses=[2], penalties=[1]).dice == 6


def test_wound_penalty_applied() -> None:
    # S4 «Ранен» row: Раны −2 (four boxes).
    sheet = set_health(mage(dexterity=3, brawl=2), track_of(["L", "L", "B", "B"]))
    pool = pool_from_traits(sheet, ["dexterity", "brawl"])
    assert (pool.base, pool.wound_penalty, pool.dice) == (5, -2, 3)


def test_wounds_can_empty_the_pool_and_incapacitation_forbids_acting() -> None:
    crippled = apply_damage(HealthTrack(), DamageType.LETHAL, 6).track  # Калека −5
    sheet = set_health(mage(dexterity=3, brawl=2), crippled)
    pool = pool_from_traits(sheet, ["dexterity", "brawl"])
    assert pool.status is PoolStatus.IMPOSSIBLE
    assert pool.reason is ImpossibleReason.POOL_EMPTY
    out = set_health(sheet, apply_damage(crippled, DamageType.LETHAL, 1).track)
    pool = pool_from_traits(out, ["dexterity"])
    assert pool.reason is ImpossibleReason.INCAPACITATED
    assert pool.dice == 0


def test_willpower_roll_is_not_wound_penalised() -> None:
    # AMB-B17: wounds reduce action pools and Arete, not Willpower rolls.
    sheet = set_health(set_willpower(new_sheet(SheetSystem.MAGE), 5), track_of(["L"] * 4))
    assert pool_from_traits(sheet, [Stat.WILLPOWER]).dice == 5
    arete = set_health(set_trait(new_sheet(SheetSystem.MAGE), Stat.ARETE, 4), track_of(["L"] * 4))
    assert pool_from_traits(arete, [Stat.ARETE]).dice == 2


def test_humanity_pool_on_dark_ages() -> None:
    sheet = set_trait(new_sheet(SheetSystem.DARK_AGES), Stat.HUMANITY, 6)
    assert pool_from_traits(sheet, ["humanity"]).dice == 6


def test_supernatural_ratings_reach_the_pool() -> None:
    sheet = set_trait(set_supernatural(new_sheet(SheetSystem.MAGE), True), "strength", 8)
    assert pool_from_traits(sheet, ["strength"]).dice == 8


# ----- d6 sheets (§D.1) -----


def test_d6_powers() -> None:
    sheet = set_power(new_sheet(SheetSystem.D6), "  Огненный   шар ", 2)
    assert sheet.powers[0].name == "Огненный шар"
    assert sheet.powers[0].level == 2
    sheet = set_power(sheet, "огненный шар", 3)  # same power, any case
    assert len(sheet.powers) == 1
    assert sheet.powers[0].level == 3
    assert sheet.power("ОГНЕННЫЙ ШАР") is not None
    assert set_power(sheet, "Огненный шар", 0).powers == ()
    for bad_level in (4, -1):
        with raises(ErrorCode.RANGE):
            set_power(sheet, "Полёт", bad_level)
    for bad_name in ("", "   ", "a+b", "x: y", "12", "a" * 41):
        with raises(ErrorCode.RANGE):
            set_power(sheet, bad_name, 1)
    with raises(ErrorCode.NOT_ALLOWED):
        set_power(new_sheet(SheetSystem.MAGE), "Полёт", 1)


def test_d6_weakness_luck_and_wounds() -> None:
    sheet = set_trait(new_sheet(SheetSystem.D6), D6Field.WEAKNESS, 3)
    assert sheet.weakness == 3
    assert set_trait(sheet, D6Field.WEAKNESS, 0).weakness is None
    with raises(ErrorCode.RANGE):
        set_trait(sheet, D6Field.WEAKNESS, 6)
    sheet = set_trait(sheet, D6Field.LUCK, 2)
    assert spend_luck(sheet, 2).luck == 0
    with raises(ErrorCode.RANGE):
        spend_luck(sheet, 3)
    sheet = add_wound(sheet, DifficultyKind.PHYSICAL_WOUND, 2)
    assert heal_wound(sheet, 0).wounds == ()
    with raises(ErrorCode.RANGE):
        add_wound(sheet, DifficultyKind.GENERAL, 1)
    with raises(ErrorCode.RANGE):
        heal_wound(sheet, 1)


def test_d6_chance_from_the_sheet() -> None:
    # S2: powers sum, weakness and wounds subtract, luck adds; mental wounds: the worst only.
    sheet = new_sheet(SheetSystem.D6)
    sheet = set_power(set_power(sheet, "Огонь", 3), "Полёт", 2)
    sheet = set_trait(set_trait(sheet, D6Field.WEAKNESS, 2), D6Field.LUCK, 1)
    sheet = add_wound(sheet, DifficultyKind.PHYSICAL_WOUND, 1)
    sheet = add_wound(
        add_wound(sheet, DifficultyKind.MENTAL_WOUND, 1), DifficultyKind.MENTAL_WOUND, 2
    )
    c = d6_chance(sheet, ["огонь", "ПОЛЁТ"], weakness_applies=True, luck_spent=1)
    assert (c.value, c.status, c.luck_delta) == (3 + 2 - 2 - 1 - 2 + 1, ChanceStatus.OK, -1)
    with raises(ErrorCode.RANGE):
        d6_chance(sheet, ["огонь"], luck_spent=2)
    with raises(ErrorCode.UNKNOWN_KEY):
        d6_chance(sheet, ["вода"])
    assert d6_chance(sheet, ["полёт"]).status is ChanceStatus.IMPOSSIBLE  # 2 − 1 − 2 ≤ 0


def test_d6_sheet_has_no_d10_traits() -> None:
    with raises(ErrorCode.NOT_ALLOWED):
        set_trait(new_sheet(SheetSystem.D6), Attribute.DEXTERITY, 2)
    with raises(ErrorCode.NOT_ALLOWED):
        set_health(new_sheet(SheetSystem.D6), track_of(["B"]))


# ----- storage -----


def test_json_round_trip() -> None:
    sheet = set_wheel(mage(dexterity=3, forces=2, arete=3), quintessence=5, paradox=2)
    sheet = set_health(set_willpower(sheet, 7, 4), track_of(["B", "L"]))
    text = to_json(sheet)
    assert '"health":"LB"' in text
    assert from_json(text) == sheet
    d6 = add_wound(set_power(new_sheet("d6"), "Огонь", 2), DifficultyKind.MENTAL_WOUND, 1)
    assert from_json(to_json(d6)) == d6


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ('{"system":"mage","traits":{"dexterity":"3"}}', ErrorCode.STATE),
        ('{"system":"mage","traits":{"dexterity":true}}', ErrorCode.STATE),
        ('{"system":"mage","traits":{"dexterity":9}}', ErrorCode.RANGE),
        ('{"system":"mage","traits":{"charm":1}}', ErrorCode.UNKNOWN_KEY),
        ('{"system":"dark-ages","arete":3}', ErrorCode.NOT_ALLOWED),
        ('{"system":"mage","willpower":3}', ErrorCode.STATE),
        ('{"system":"mage","quintessence":-1}', ErrorCode.RANGE),
        ('{"system":"mage","health":"QQ"}', ErrorCode.UNKNOWN_KEY),
        (
            '{"system":"d6","powers":[{"name":"a","level":1},{"name":"A","level":2}]}',
            ErrorCode.STATE,
        ),
        ('{"system":"chess"}', ErrorCode.STATE),
        ("not json", ErrorCode.STATE),
        ("[]", ErrorCode.STATE),
    ],
)
def test_bad_stored_sheets(data: str, code: ErrorCode) -> None:
    with raises(code):
        from_json(data)


_CODES = [c for c in catalogue(SheetSystem.MAGE)] + list(DARK_AGES_ABILITIES) + ["nope", 3]


@FAST
@given(
    system=st.sampled_from(list(SheetSystem)),
    code=st.sampled_from(_CODES),
    value=st.one_of(st.integers(-5, 120), st.booleans(), st.floats(), st.none(), st.text()),
)
def test_set_trait_raises_only_rules_errors(system: SheetSystem, code: Any, value: Any) -> None:
    sheet = new_sheet(system)
    codes: set[ErrorCode] = set()
    try:
        after = set_trait(sheet, code, value)
    except RulesInputError as exc:
        codes.add(exc.code)
    else:
        assert after.rating(code) == (value or None if code is D6Field.WEAKNESS else value)
    assert codes <= {
        ErrorCode.TYPE,
        ErrorCode.RANGE,
        ErrorCode.STATE,
        ErrorCode.UNKNOWN_KEY,
        ErrorCode.NOT_ALLOWED,
    }


@FAST
@given(st.text(max_size=200))
def test_from_json_raises_only_rules_errors(data: str) -> None:
    with contextlib.suppress(RulesInputError):
        from_json(data)


@FAST
@given(
    codes=st.lists(st.sampled_from(_CODES), max_size=3),
    bonus=st.integers(-2, 60),
    dex=st.integers(0, 5),
)
def test_pool_from_traits_raises_only_rules_errors(codes: list[Any], bonus: int, dex: int) -> None:
    sheet = mage(dexterity=dex, brawl=2, forces=1)
    try:
        pool = pool_from_traits(sheet, codes, bonuses=[bonus])
    except RulesInputError as exc:
        error: ErrorCode | None = exc.code
    else:
        error = None
        assert pool.dice >= 0
        assert (pool.dice > 0) == pool.rollable
    assert error in {
        None,
        ErrorCode.TYPE,
        ErrorCode.RANGE,
        ErrorCode.UNKNOWN_KEY,
        ErrorCode.NOT_ALLOWED,
        ErrorCode.TOO_MANY_TRAITS,
    }


def test_paradox_and_quintessence_are_not_pools() -> None:
    sheet = set_wheel(new_sheet(SheetSystem.MAGE), quintessence=3, paradox=3)
    for code in (Stat.PARADOX, Stat.QUINTESSENCE):
        with raises(ErrorCode.NOT_ALLOWED):
            pool_from_traits(sheet, [code])


def test_d6_alacrity_is_on_the_d6_sheet_only() -> None:
    sheet = set_trait(new_sheet(SheetSystem.D6), D6Field.ALACRITY, 4)
    assert sheet.alacrity == 4
    assert sheet.rating(D6Field.ALACRITY) == 4
    assert set_trait(sheet, D6Field.ALACRITY, 0).alacrity is None
    with pytest.raises(RulesInputError):
        set_trait(sheet, D6Field.ALACRITY, 21)
    with pytest.raises(RulesInputError):
        set_trait(new_sheet(SheetSystem.MAGE), D6Field.ALACRITY, 3)
