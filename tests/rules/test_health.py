"""Health track, death, stun, penalties, healing: docs/rules.md §B.9–§B.12, §E.2 G-B07..G-B11."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import profiles
from rules.d10 import resolve
from rules.errors import ErrorCode, RulesInputError
from rules.health import (
    TRACK_SIZE,
    CareNeed,
    DamageEvent,
    DamageType,
    DoctorTime,
    Duration,
    HealthLevel,
    HealthTrack,
    ImpossibleReason,
    Mobility,
    PoolKind,
    PoolStatus,
    TimeUnit,
    apply_damage,
    care_needs,
    doctor_times,
    heal,
    heal_time,
    healing_plan,
    is_stabilised,
    is_stunned,
    needs_stabilising,
    penalised_pool,
    stun_skipped_turns,
    stunned_in_turn,
    track_of,
    worsen_untreated,
    wound_penalty,
)
from rules.profiles import CombatOptions, MagickOptions

B, L, A = DamageType.BASHING, DamageType.LETHAL, DamageType.AGGRAVATED
HOUSE = profiles.get("mage")


def t(code: str) -> HealthTrack:
    return HealthTrack.parse(code)


# ----- G-B07 -----


def test_g_b07_lethal_goes_above_bashing() -> None:
    """G-B07: [B,B] + 1 L → [L,B,B], level 3 Травмы, penalty −1."""
    result = apply_damage(t("BB"), L, 1)
    assert result.track.boxes == (L, B, B)
    assert result.track.level is HealthLevel.INJURED
    penalty = wound_penalty(result.track)
    assert penalty.penalty == -1
    assert penalty.can_act
    assert penalty.mobility is Mobility.HALF_RUN


# ----- G-B08 overflow and death -----


def test_g_b08_bashing_overflow_becomes_lethal() -> None:
    """G-B08: [B×7] + B → [L,B×6] (S4 «опять заполняются сверху, но уже Летальным»)."""
    result = apply_damage(t("B" * 7), B, 1)
    assert result.track.code == "L" + "B" * 6
    assert not result.track.dead
    assert result.events == (DamageEvent.UPGRADED,)


def test_g_b08_full_lethal_aggravated_track_dies_on_bashing() -> None:
    """G-B08: [A,L×6] + B → DEAD (S4 «получит ещё урона (любого типа), то он умирает»)."""
    result = apply_damage(t("A" + "L" * 6), B, 1)
    assert result.track.dead
    assert result.track.level is HealthLevel.DEAD
    assert DamageEvent.DIED in result.events


def test_g_b08_lethal_upgrades_last_bashing_box() -> None:
    """G-B08: [L×6,B] + L → [L×7] (AMB-B9), alive."""
    result = apply_damage(t("L" * 6 + "B"), L, 1)
    assert result.track.code == "L" * 7
    assert not result.track.dead


def test_g_b08_full_lethal_track_dies() -> None:
    """G-B08: [L×7] + B → DEAD."""
    assert apply_damage(t("L" * 7), B, 1).track.dead


def test_g_b08_three_lethal_on_five_boxes() -> None:
    """G-B08: [L,B,B,B,B] + 3L → [L,L,L,L,B,B,B]."""
    result = apply_damage(t("LBBBB"), L, 3)
    assert result.track.code == "LLLLBBB"
    assert (result.filled, result.upgraded) == (2, 1)
    assert DamageEvent.INCAPACITATED in result.events


def test_g_b08_nine_bashing_from_healthy() -> None:
    """G-B08: [] + 9B → [L,L,B×5]."""
    result = apply_damage(HealthTrack(), B, 9)
    assert result.track.code == "LLBBBBB"
    assert result.track.level is HealthLevel.INCAPACITATED


def test_aggravated_on_full_bashing_track_upgrades_to_aggravated() -> None:
    """AMB-B9: an aggravated level on a full track with bashing turns a box aggravated."""
    assert apply_damage(t("B" * 7), A, 1).track.code == "A" + "B" * 6


def test_damage_is_marked_most_severe_first() -> None:
    """S4 «Сначала отмечается (сверху вниз) наиболее тяжкий урон» whatever the order of hits."""
    track = apply_damage(apply_damage(t("BB"), A, 1).track, L, 1).track
    assert track.code == "ALBB"
    assert track_of(["B", "A", "L", "B"]).code == "ALBB"


def test_death_stops_marking_and_dead_cannot_be_damaged_again() -> None:
    result = apply_damage(t("LLLLLLB"), A, 5)
    assert result.track.dead
    assert result.upgraded == 1
    with pytest.raises(RulesInputError) as err:
        apply_damage(result.track, B, 1)
    assert err.value.code is ErrorCode.NOT_ALLOWED


# ----- G-B09 penalties -----


def test_g_b09_penalties_by_level() -> None:
    """G-B09: 3 boxes −1 / 6 boxes −5 / pool 4 at 6 boxes → IMPOSSIBLE / 7 boxes no actions."""
    assert wound_penalty(t("BBB")).penalty == -1
    assert wound_penalty(t("BBBBBB")).penalty == -5
    crippled = penalised_pool(t("BBBBBB"), 4)
    assert crippled.status is PoolStatus.IMPOSSIBLE
    assert crippled.reason is ImpossibleReason.POOL_EMPTY
    assert crippled.dice == 0
    out = wound_penalty(t("BBBBBBB"))
    assert not out.can_act
    assert out.level is HealthLevel.INCAPACITATED
    assert penalised_pool(t("BBBBBBB"), 9).reason is ImpossibleReason.INCAPACITATED


def test_penalty_table_matches_s4() -> None:
    """S4: Синяки −, Ушибы −1, Травмы −1, Раны −2, Увечья −2, Калека −5."""
    expected = [0, 0, -1, -1, -2, -2, -5]
    assert [wound_penalty(t("B" * n)).penalty for n in range(7)] == expected
    mob = [wound_penalty(t("L" * n)).mobility for n in range(8)]
    assert mob[4] is Mobility.WALK_ONLY
    assert mob[5] is Mobility.HOBBLE
    assert mob[6] is Mobility.CRAWL
    assert mob[7] is Mobility.NONE


def test_penalty_applies_to_actions_and_arete_but_not_soak() -> None:
    """AMB-B17 / AMB-C5: action pools and Arete lose dice; soak, damage, Backlash don't."""
    hurt = t("LLLL")  # Раны, −2
    assert penalised_pool(hurt, 5).dice == 3
    assert penalised_pool(hurt, 5, kind=PoolKind.ARETE).dice == 3
    no_arete = MagickOptions(wound_penalty_on_arete=False)
    assert penalised_pool(hurt, 5, no_arete, PoolKind.ARETE).dice == 5
    for kind in (PoolKind.SOAK, PoolKind.DAMAGE, PoolKind.BACKLASH, PoolKind.WILLPOWER):
        assert penalised_pool(hurt, 5, kind=kind).dice == 5
    out = t("LLLLLLL")
    assert penalised_pool(out, 3, kind=PoolKind.SOAK).status is PoolStatus.OK
    assert penalised_pool(out, 3, kind=PoolKind.WILLPOWER).status is PoolStatus.IMPOSSIBLE
    dead = apply_damage(out, L, 1).track
    assert penalised_pool(dead, 3, kind=PoolKind.SOAK).reason is ImpossibleReason.DEAD


# ----- G-B10 stun -----


def test_g_b10_stun_is_strictly_more_than_stamina() -> None:
    """G-B10: Stamina 3: 4 levels after soak → stunned; 3 levels → not."""
    assert is_stunned(4, 3)
    assert not is_stunned(3, 3)


def test_stun_options_and_turns() -> None:
    """AMB-B10 switches; S4 «пропускает текущий и следующий ход»."""
    assert is_stunned(3, 3, CombatOptions(stun_inclusive=True))
    assert not stunned_in_turn([2, 2], 3)
    assert stunned_in_turn([2, 2], 3, CombatOptions(stun_per_turn=True))
    assert stun_skipped_turns(4) == (4, 5)


# ----- G-B11 healing -----


def test_g_b11_healing_plan_mixed() -> None:
    """G-B11: healing_plan([L,B,B]) → 1 h, 1 h, 1 day (bottom-up)."""
    plan = healing_plan(track_of([L, B, B]))
    assert [s.duration for s in plan] == [
        Duration(1, TimeUnit.HOUR),
        Duration(1, TimeUnit.HOUR),
        Duration(1, TimeUnit.DAY),
    ]
    assert [(s.row, s.kind) for s in plan] == [(3, B), (2, B), (1, L)]


@pytest.mark.parametrize(
    ("shift", "expected"),
    [
        (0, [(1, TimeUnit.MONTH), (1, TimeUnit.WEEK), (3, TimeUnit.DAY), (1, TimeUnit.DAY)]),
        (1, [(1, TimeUnit.WEEK), (3, TimeUnit.DAY), (1, TimeUnit.DAY), (1, TimeUnit.DAY)]),
        (2, [(3, TimeUnit.DAY), (1, TimeUnit.DAY), (1, TimeUnit.DAY), (1, TimeUnit.DAY)]),
    ],
)
def test_g_b11_healing_plan_medical_shift(shift: int, expected: list[tuple[int, TimeUnit]]) -> None:
    """G-B11: healing_plan([L,L,L,L], 0/1/2) — «на 1 / 2 позиции быстрее»."""
    plan = healing_plan(t("LLLL"), shift)
    assert [(s.duration.amount, s.duration.unit) for s in plan] == expected


def test_heal_time_tables() -> None:
    """S4 tables: bashing Увечья 3 h, Калека 6 h, Без Сознания 12 h; lethal/aggravated 2, 3,
    5 months."""
    assert heal_time(5, B) == Duration(3, TimeUnit.HOUR)
    assert heal_time(6, B) == Duration(6, TimeUnit.HOUR)
    assert heal_time(7, B) == Duration(12, TimeUnit.HOUR)
    assert heal_time(5, A) == Duration(2, TimeUnit.MONTH)
    assert heal_time(6, L) == Duration(3, TimeUnit.MONTH)
    assert heal_time(7, L) == Duration(5, TimeUnit.MONTH)


def test_heal_removes_lowest_boxes_first() -> None:
    assert heal(t("ALBB"), 1).code == "ALB"
    assert heal(t("ALBB"), 3).code == "A"
    assert heal(t("AL"), 5).code == ""


def test_untreated_lethal_worsens_daily_until_stabilised() -> None:
    """S4 «Любое Летальное повреждение начиная с Травм… ухудшается на 1 уровень здоровья в день»."""
    assert not needs_stabilising(t("LLBB"))
    assert needs_stabilising(t("LLL"))
    assert needs_stabilising(t("LBB"), CombatOptions(lethal_worsening_by_track_level=True))
    worse = worsen_untreated(t("LLL"), 2)
    assert worse.track.code == "LLLLL"
    assert worsen_untreated(t("LLBB"), 5).track.code == "LLBB"
    assert worsen_untreated(t("LLLLLL"), 3).track.dead
    assert CareNeed.MEDICAL in care_needs(t("LLL"))


def test_stabilising_roll_and_care_needs() -> None:
    roll = resolve([6, 2, 3], 6, HOUSE)
    assert is_stabilised(roll)
    assert not is_stabilised(resolve([2, 3, 4], 6, HOUSE))
    with pytest.raises(RulesInputError):
        is_stabilised(resolve([6], 5, HOUSE))
    assert care_needs(t("BBBBBB")) == {CareNeed.REGULAR_CARE, CareNeed.SEQUELAE_RISK}
    assert CareNeed.CONSTANT_CARE in care_needs(t("LLLLLLL"))
    assert care_needs(t("BB")) == frozenset()


def test_a_doctor_heals_the_next_level_a_row_or_two_faster() -> None:
    """S4 «Лечение врачом с Медициной 2 … на 1 позицию быстрее», «с Медициной 4 … на 2»."""
    day, week = TimeUnit.DAY, TimeUnit.WEEK
    # «Раны» lethal: a month alone, a week with Medicine 2, three days with Medicine 4
    assert doctor_times(t("LLLL")) == (
        DoctorTime(2, Duration(1, week)),
        DoctorTime(4, Duration(3, day)),
    )
    # «Ушибы»: Medicine 4 can do no better than Medicine 2's one day
    assert doctor_times(t("LL")) == (DoctorTime(2, Duration(1, day)),)
    # the bashing on top heals first, in an hour whatever the care
    assert doctor_times(t("LLBB")) == ()
    assert doctor_times(t("BBBBB")) == (DoctorTime(2, Duration(1, TimeUnit.HOUR)),)
    assert doctor_times(t("L")) == ()
    assert doctor_times(HealthTrack()) == ()
    assert doctor_times(HealthTrack((), dead=True)) == ()
    with pytest.raises(RulesInputError):
        doctor_times("LL")  # type: ignore[arg-type]


# ----- invalid input -----


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: HealthTrack.parse("BL"), ErrorCode.STATE),
        (lambda: HealthTrack.parse("BBBBBBBB"), ErrorCode.STATE),
        (lambda: HealthTrack.parse("BQ"), ErrorCode.UNKNOWN_KEY),
        (lambda: apply_damage(HealthTrack(), "Z", 1), ErrorCode.UNKNOWN_KEY),
        (lambda: apply_damage(HealthTrack(), B, -1), ErrorCode.RANGE),
        (lambda: apply_damage(HealthTrack(), B, True), ErrorCode.TYPE),
        (lambda: apply_damage(HealthTrack(), B, 1.0), ErrorCode.TYPE),  # type: ignore[arg-type]
        (lambda: healing_plan(HealthTrack(), 3), ErrorCode.RANGE),
        (lambda: heal_time(0, B), ErrorCode.RANGE),
        (lambda: penalised_pool(HealthTrack(), -1), ErrorCode.RANGE),
        (lambda: is_stunned(2, 11), ErrorCode.RANGE),
        (lambda: HealthTrack((B,), dead=1), ErrorCode.TYPE),  # type: ignore[arg-type]
        (lambda: HealthTrack(("B",)), ErrorCode.TYPE),  # type: ignore[arg-type]
    ],
)
def test_invalid_input_raises_rules_input_error(call: object, code: ErrorCode) -> None:
    with pytest.raises(RulesInputError) as err:
        call()  # type: ignore[operator]
    assert err.value.code is code


# ----- properties -----

kinds = st.sampled_from([B, L, A])
hits = st.lists(st.tuples(kinds, st.integers(0, 9)), max_size=8)


def _build(hs: list[tuple[DamageType, int]]) -> HealthTrack:
    track = HealthTrack()
    for kind, n in hs:
        if track.dead:
            break
        track = apply_damage(track, kind, n).track
    return track


def _load(track: HealthTrack) -> int:
    """Total damage weight: dead is worst; otherwise sum of severities."""
    return 100 if track.dead else sum({B: 1, L: 2, A: 3}[b] for b in track.boxes)


@settings(max_examples=150, deadline=None)
@given(hits, kinds, st.integers(0, 9))
def test_property_track_shape_and_monotone_damage(
    hs: list[tuple[DamageType, int]], kind: DamageType, n: int
) -> None:
    """Never more than 7 boxes; A before L before B; damage never lowers the total."""
    track = _build(hs)
    assert len(track.boxes) <= TRACK_SIZE
    rank = {A: 0, L: 1, B: 2}
    assert [rank[b] for b in track.boxes] == sorted(rank[b] for b in track.boxes)
    if track.dead:
        return
    after = apply_damage(track, kind, n).track
    assert _load(after) >= _load(track)
    assert len(after.boxes) >= len(track.boxes)
    if n > 0:
        assert _load(after) > _load(track)
    # a dead track is only ever reached from a full track without bashing
    if after.dead:
        assert len(after.boxes) == TRACK_SIZE
        assert B not in after.boxes


@settings(max_examples=150, deadline=None)
@given(hits, st.integers(0, 7))
def test_property_heal_then_same_damage_restores_level(
    hs: list[tuple[DamageType, int]], n: int
) -> None:
    """Healing n bashing-first boxes then taking the same boxes back restores the track."""
    track = _build(hs)
    if track.dead:
        return
    n = min(n, len(track.boxes))
    healed = heal(track, n)
    removed = track.boxes[len(track.boxes) - n :]
    again = healed
    for kind in removed:
        again = apply_damage(again, kind, 1).track
    assert again == track
    assert len(healing_plan(track)) == len(track.boxes)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 7), st.integers(0, 7), st.integers(1, 10))
def test_property_penalties_monotone(a: int, b: int, pool: int) -> None:
    """More boxes never gives a smaller penalty or more dice."""
    lo, hi = sorted((a, b))
    p_lo, p_hi = wound_penalty(t("B" * lo)), wound_penalty(t("B" * hi))
    assert p_hi.penalty <= p_lo.penalty
    assert p_lo.can_act or not p_hi.can_act
    assert penalised_pool(t("B" * hi), pool).dice <= penalised_pool(t("B" * lo), pool).dice


def test_property_random_codes_round_trip() -> None:
    """The bot stores ``track.code``; parsing it back gives the same track, dead or alive."""
    rng = random.Random(7)
    for _ in range(50):
        track = track_of([rng.choice("BLA") for _ in range(rng.randint(0, 7))])
        assert HealthTrack.parse(track.code) == track
        if track.level == HealthLevel.INCAPACITATED and B not in track.boxes:
            dead = apply_damage(track, B, 1).track
            assert dead.code == track.code + "X"
            assert HealthTrack.parse(dead.code) == dead
    assert HealthTrack.parse("x").dead
    killed = apply_damage(t("ALLLLLL"), B, 1).track
    assert killed.code == "ALLLLLLX"
    assert HealthTrack.parse("ALLLLLLX") == killed
