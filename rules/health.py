"""The health track, damage, death, stun, wound penalties and healing (docs/rules.md §B.9–§B.12).

The track is S4's seven levels «Синяки … Без Сознания» plus «Мёртв». A frozen
:class:`HealthTrack` holds one damage type per filled box, always sorted the way S4 marks
them: «Сначала отмечается (сверху вниз) наиболее тяжкий урон, а потом полегче: (Тяжёлый Ж >
Летальный X > Ударный I)». Bashing that overflows a full track «опять заполняются сверху, но
уже Летальным» (the sheet's glyph I there is a slip for X, SLIP-5), and only a track full of
lethal and aggravated damage kills: «Если персонаж, доведённый до уровня здоровья Без
Сознания только Летальными и/или Тяжёлыми повреждениями, получит ещё урона (любого типа), то
он умирает».

The bot persists a track as its short code string (``"LBB"``) and applies
:func:`penalised_pool` to every later roll.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from types import MappingProxyType
from typing import Any

from rules.d10 import D10Result, Outcome
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    check_type,
    parse_enum,
)
from rules.profiles import CombatOptions, MagickOptions, combat_options, magick_options

TRACK_SIZE = 7
DEAD_MARK = "X"  # the stored code's suffix for «Мёртв»


class DamageType(StrEnum):
    """§B.10. The values are the Latin marks S4 gives (I/U, X/L, Ж/*/Т)."""

    BASHING = "B"  # Ударный
    LETHAL = "L"  # Летальный
    AGGRAVATED = "A"  # Тяжёлый


# Read-only: rules/ keeps no mutable module state (§0.2).
SEVERITY: Mapping[DamageType, int] = MappingProxyType(
    {
        DamageType.AGGRAVATED: 3,
        DamageType.LETHAL: 2,
        DamageType.BASHING: 1,
    }
)


class HealthLevel(IntEnum):
    """§B.9 rows; the value is the number of filled boxes. ``DEAD`` is «Мёртв», off the track."""

    HEALTHY = 0
    BRUISED = 1  # Синяки
    HURT = 2  # Ушибы
    INJURED = 3  # Травмы
    WOUNDED = 4  # Раны
    MAULED = 5  # Увечья
    CRIPPLED = 6  # Калека
    INCAPACITATED = 7  # Без Сознания
    DEAD = 8  # Мёртв


class Mobility(StrEnum):
    """§B.9 movement notes of each row."""

    NORMAL = "normal"
    HALF_RUN = "half_run"  # «Максимальная скорость бега уменьшена вдвое»
    WALK_ONLY = "walk_only"  # «не может бегать, только ходить»
    HOBBLE = "hobble"  # «только ковылять (до трёх метров за ход)»
    CRAWL = "crawl"  # «только ползти (один метр за ход)»
    NONE = "none"  # Без Сознания, Мёртв


# §B.9 table: dice penalty and movement for 0..6 filled boxes; 7 and dead cannot act.
_PENALTY = (0, 0, -1, -1, -2, -2, -5)
_MOBILITY = (
    Mobility.NORMAL,
    Mobility.NORMAL,
    Mobility.NORMAL,
    Mobility.HALF_RUN,
    Mobility.WALK_ONLY,
    Mobility.HOBBLE,
    Mobility.CRAWL,
)


def _sort_key(kind: DamageType) -> int:
    return -SEVERITY[kind]


def parse_damage_type(value: Any, field_name: str = "damage_type") -> DamageType:
    """A damage type from its enum member or its code ("B", "L", "A" in any case)."""
    return parse_enum(DamageType, value, field_name)


@dataclass(frozen=True)
class HealthTrack:
    """Filled boxes from the top (row 1) down, most severe first; ``dead`` is «Мёртв».

    A frozen dataclass rather than a pydantic model so that a bad stored track raises
    :class:`RulesInputError` (``E_STATE``) and not a validation error of another type.
    """

    boxes: tuple[DamageType, ...] = ()
    dead: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.boxes, tuple):
            raise RulesInputError(ErrorCode.TYPE, "boxes", "expected a tuple of DamageType")
        for i, box in enumerate(self.boxes):
            if not isinstance(box, DamageType):
                raise RulesInputError(ErrorCode.TYPE, f"boxes[{i}]", "expected DamageType")
        check_bool(self.dead, "dead")
        if len(self.boxes) > TRACK_SIZE:
            raise RulesInputError(ErrorCode.STATE, "boxes", f"more than {TRACK_SIZE} boxes")
        if list(self.boxes) != sorted(self.boxes, key=_sort_key):
            raise RulesInputError(ErrorCode.STATE, "boxes", "not ordered A before L before B")

    @classmethod
    def parse(cls, code: str) -> HealthTrack:
        """The stored form: box codes top-down (``"LBB"``), a trailing ``"X"`` for «Мёртв»."""
        if not isinstance(code, str):
            raise RulesInputError(ErrorCode.TYPE, "track", f"expected str, got {type(code)}")
        text = code.strip().upper()
        dead = text.endswith(DEAD_MARK)
        body = text[:-1] if dead else text
        boxes = tuple(parse_damage_type(c, f"track[{i}]") for i, c in enumerate(body))
        return cls(boxes, dead=dead)

    @property
    def code(self) -> str:
        return "".join(b.value for b in self.boxes) + (DEAD_MARK if self.dead else "")

    @property
    def level(self) -> HealthLevel:
        return HealthLevel.DEAD if self.dead else HealthLevel(len(self.boxes))

    def count(self, kind: DamageType) -> int:
        return self.boxes.count(kind)


def track_of(boxes: Sequence[DamageType | str]) -> HealthTrack:
    """Build a track from any box order (a GM entering wounds by hand), sorting it per S4."""
    if isinstance(boxes, (str, bytes)) or not isinstance(boxes, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "boxes", "expected a sequence of damage types")
    kinds = [parse_damage_type(b, f"boxes[{i}]") for i, b in enumerate(boxes)]
    return HealthTrack(tuple(sorted(kinds, key=_sort_key)))


class DamageEvent(StrEnum):
    """What happened while boxes were marked (§B.10); the bot narrates these codes."""

    FILLED = "filled"  # an empty box was marked
    UPGRADED = "upgraded"  # a full track: a bashing box became lethal/aggravated
    INCAPACITATED = "incapacitated"  # reached Без Сознания on this application
    DIED = "died"  # «Мёртв»
    TORPOR = "torpor"  # a vampire past «Без Сознания» by bashing or lethal: torpor (§B.13)


@dataclass(frozen=True)
class DamageResult:
    track: HealthTrack
    events: tuple[DamageEvent, ...]
    filled: int
    upgraded: int


def apply_damage(
    track: HealthTrack,
    kind: DamageType | str,
    levels: int,
    options: CombatOptions | None = None,
    *,
    undead: bool = False,
) -> DamageResult:
    """Mark ``levels`` boxes of ``kind`` (§B.10, AMB-B9).

    On a full track a bashing level turns the lowest bashing box lethal (S4 «опять
    заполняются сверху, но уже Летальным»); a lethal or aggravated level turns it into its own
    type [P]. A full track with no bashing box left is «доведённый до… Без Сознания только
    Летальными и/или Тяжёлыми», so any further level kills. ``options`` is accepted for a
    uniform call shape with the rest of §B; the overflow rule itself has no switch.

    ``undead``: a vampire's track (§B.13, torpor [P]): past «Без Сознания» bashing and lethal
    only keep them in torpor, an aggravated level turns a lighter box aggravated, and only a
    track of seven aggravated boxes taking more aggravated is Final Death («Мёртв»).
    """
    if not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    dtype = parse_damage_type(kind)
    check_int(levels, "levels", 0, 100)
    if options is not None and not isinstance(options, CombatOptions):
        raise RulesInputError(ErrorCode.TYPE, "options", "expected CombatOptions")
    if track.dead:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "track", "the character is dead")
    boxes = list(track.boxes)
    events: list[DamageEvent] = []
    filled = upgraded = 0
    dead = False
    for _ in range(levels):
        if len(boxes) < TRACK_SIZE:
            boxes.append(dtype)
            filled += 1
            _note(events, DamageEvent.FILLED)
        elif DamageType.BASHING in boxes:
            last = len(boxes) - 1 - boxes[::-1].index(DamageType.BASHING)
            boxes[last] = DamageType.LETHAL if dtype is DamageType.BASHING else dtype
            upgraded += 1
            _note(events, DamageEvent.UPGRADED)
        elif not undead:
            dead = True
            break
        elif dtype is DamageType.AGGRAVATED and DamageType.LETHAL in boxes:
            boxes[len(boxes) - 1 - boxes[::-1].index(DamageType.LETHAL)] = dtype
            upgraded += 1
            _note(events, DamageEvent.UPGRADED)
        elif dtype is DamageType.AGGRAVATED:
            dead = True
            break
        else:
            _note(events, DamageEvent.TORPOR)
        boxes.sort(key=_sort_key)
    if len(boxes) == TRACK_SIZE and len(track.boxes) < TRACK_SIZE:
        _note(events, DamageEvent.INCAPACITATED)
    if dead:
        _note(events, DamageEvent.DIED)
        return DamageResult(HealthTrack(tuple(boxes), dead=True), tuple(events), filled, upgraded)
    return DamageResult(HealthTrack(tuple(boxes)), tuple(events), filled, upgraded)


def _note(events: list[DamageEvent], event: DamageEvent) -> None:
    if event not in events:
        events.append(event)


@dataclass(frozen=True)
class WoundPenalty:
    """§B.9 row of a track: the dice penalty (≤ 0), whether actions are possible, movement."""

    level: HealthLevel
    penalty: int
    can_act: bool
    mobility: Mobility


def wound_penalty(track: HealthTrack) -> WoundPenalty:
    """S4 table «[Уровень Здоровья] [Штраф к кубикам]»; Без Сознания and Мёртв: «Невозможно»."""
    if not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    level = track.level
    if level >= HealthLevel.INCAPACITATED:
        # «Невозможно»: ``can_act`` decides; the penalty keeps Калека's −5 so it stays monotone.
        return WoundPenalty(level, _PENALTY[-1], False, Mobility.NONE)
    return WoundPenalty(level, _PENALTY[level], True, _MOBILITY[level])


class PoolKind(StrEnum):
    """Which roll a pool is for; AMB-B17 says which of them wounds reduce."""

    ACTION = "action"  # Attribute + Ability, attacks, defences
    ARETE = "arete"
    SOAK = "soak"
    DAMAGE = "damage"
    BACKLASH = "backlash"
    WILLPOWER = "willpower"


class PoolStatus(StrEnum):
    OK = "ok"
    IMPOSSIBLE = "impossible"


class ImpossibleReason(StrEnum):
    POOL_EMPTY = "pool_empty"  # S0 «Если набор кубиков уменьшается до нуля или ниже…»
    INCAPACITATED = "incapacitated"  # S4 «Действия невозможны»
    DEAD = "dead"


@dataclass(frozen=True)
class PenalisedPool:
    """The dice left after wounds; ``dice`` is 0 whenever ``status`` is ``IMPOSSIBLE``."""

    dice: int
    penalty: int
    status: PoolStatus
    reason: ImpossibleReason | None = None


_ACTS = frozenset({PoolKind.ACTION, PoolKind.ARETE, PoolKind.WILLPOWER})


def penalty_applies(kind: PoolKind, magick: MagickOptions) -> bool:
    """AMB-B17: action pools always, Arete by ``wound_penalty_on_arete`` (AMB-C5), no others.

    The Arete switch is the magick one because ``rules.magick.cast`` applies the same
    penalty itself; one switch keeps the two from disagreeing.
    """
    kind = parse_enum(PoolKind, kind, "kind")
    if kind is PoolKind.ACTION:
        return True
    return kind is PoolKind.ARETE and magick_options(magick, "magick").wound_penalty_on_arete


def penalised_pool(
    track: HealthTrack,
    base_pool: int,
    magick: MagickOptions | None = None,
    kind: PoolKind = PoolKind.ACTION,
) -> PenalisedPool:
    """The pool a wounded character actually rolls (§B.9 with §A.2's «не может предпринять»).

    Без Сознания forbids acting (actions, Arete, a Willpower roll) but soak, damage and
    Backlash rolls are not the character's actions, so they are never blocked by it.
    """
    opts = magick_options(magick, "magick")
    check_int(base_pool, "base_pool", 0, 100)
    kind = parse_enum(PoolKind, kind, "kind")
    wp = wound_penalty(track)
    if track.dead:
        return PenalisedPool(0, 0, PoolStatus.IMPOSSIBLE, ImpossibleReason.DEAD)
    if not wp.can_act and kind in _ACTS:
        return PenalisedPool(0, 0, PoolStatus.IMPOSSIBLE, ImpossibleReason.INCAPACITATED)
    penalty = wp.penalty if penalty_applies(kind, opts) else 0
    dice = base_pool + penalty
    if dice <= 0:
        return PenalisedPool(0, penalty, PoolStatus.IMPOSSIBLE, ImpossibleReason.POOL_EMPTY)
    return PenalisedPool(dice, penalty, PoolStatus.OK)


def is_stunned(levels: int, stamina: int, options: CombatOptions | None = None) -> bool:
    """§B.11 S4 «Если персонаж после поглощения получает урона больше своей Выносливости».

    ``levels`` is what one attack dealt after soak (AMB-B10); with ``stun_per_turn`` the caller
    passes the turn's total. ``stun_inclusive`` reads «больше» as ≥.
    """
    opts = combat_options(options)
    check_int(levels, "levels", 0, 100)
    check_int(stamina, "stamina", 0, 10)
    return levels >= stamina if opts.stun_inclusive else levels > stamina


def stunned_in_turn(
    levels_per_attack: Sequence[int], stamina: int, options: CombatOptions | None = None
) -> bool:
    """Stun over a whole turn: any single attack (default) or the turn's sum (AMB-B10)."""
    opts = combat_options(options)
    if isinstance(levels_per_attack, (str, bytes)) or not isinstance(levels_per_attack, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "levels_per_attack", "expected a sequence of int")
    levels = [
        check_int(x, f"levels_per_attack[{i}]", 0, 100) for i, x in enumerate(levels_per_attack)
    ]
    if opts.stun_per_turn:
        return is_stunned(sum(levels), stamina, opts)
    return any(is_stunned(x, stamina, opts) for x in levels)


def stun_skipped_turns(turn: int) -> tuple[int, int]:
    """S4 «пропускает текущий и следующий ход»: the rest of ``turn`` and the whole next one."""
    check_int(turn, "turn", 1, 10_000)
    return (turn, turn + 1)


# ----- Healing (§B.12) -----


class TimeUnit(StrEnum):
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"


@dataclass(frozen=True, order=True)
class Duration:
    amount: int
    unit: TimeUnit


_H, _D, _W, _M = TimeUnit.HOUR, TimeUnit.DAY, TimeUnit.WEEK, TimeUnit.MONTH

# S4 «Исцеление одного уровня Ударного Урона»: «От Синяков до Ран — Один час», Увечья 3 h,
# Калека 6 h, Без Сознания 12 h.
_HEAL_BASHING = (
    Duration(1, _H),
    Duration(1, _H),
    Duration(1, _H),
    Duration(1, _H),
    Duration(3, _H),
    Duration(6, _H),
    Duration(12, _H),
)
# S4 «Исцеления одного уровня Летального и Тяжёлого Урона»: 1 day, 3 days, 1 week, 1 month,
# 2 months, 3 months, 5 months.
_HEAL_LETHAL = (
    Duration(1, _D),
    Duration(3, _D),
    Duration(1, _W),
    Duration(1, _M),
    Duration(2, _M),
    Duration(3, _M),
    Duration(5, _M),
)


def heal_time(row: int, kind: DamageType | str, med_shift: int = 0) -> Duration:
    """Time to heal the box in ``row`` (1..7).

    Medical care heals «на 1 позицию быстрее» (Медицина 2) or «на 2 позиции» (Медицина 4):
    the time of the row ``max(1, row − shift)`` (AMB-B11).
    """
    check_int(row, "row", 1, TRACK_SIZE)
    dtype = parse_damage_type(kind)
    check_int(med_shift, "med_shift", 0, 2)
    table = _HEAL_BASHING if dtype is DamageType.BASHING else _HEAL_LETHAL
    return table[max(1, row - med_shift) - 1]


@dataclass(frozen=True)
class HealingStep:
    row: int
    kind: DamageType
    duration: Duration


def healing_plan(track: HealthTrack, med_shift: int = 0) -> tuple[HealingStep, ...]:
    """Box-by-box healing, bottom-up (AMB-B11): the sorted track heals bashing first."""
    if not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    check_int(med_shift, "med_shift", 0, 2)
    if track.dead:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "track", "the dead do not heal")
    return tuple(
        HealingStep(row, kind, heal_time(row, kind, med_shift))
        for row, kind in reversed(list(enumerate(track.boxes, start=1)))
    )


# S4 «Лечение врачом с Медициной 2 … на 1 позицию быстрее», «с Медициной 4 … на 2 позиции»:
# the doctor's Medicine and the rows it takes off the healing table.
DOCTOR_MEDICINE = ((2, 1), (4, 2))


@dataclass(frozen=True)
class DoctorTime:
    """The next level's time under a doctor with ``medicine`` dots, modern drugs and care."""

    medicine: int
    duration: Duration


def doctor_times(track: HealthTrack) -> tuple[DoctorTime, ...]:
    """What a doctor saves on the next level to heal (§B.12): the table's own times assume
    «основной первой помощи и отдых», a doctor's care heals a row or two faster. Only the times
    shorter than the one before are given, so a bruise or a bashing box up to «Раны» (an hour
    whatever the care) gives none."""
    if not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    if track.dead or not track.boxes:
        return ()
    step = healing_plan(track)[0]
    times: list[DoctorTime] = []
    last = step.duration
    for medicine, shift in DOCTOR_MEDICINE:
        faster = heal_time(step.row, step.kind, shift)
        if _hours(faster) < _hours(last):
            times.append(DoctorTime(medicine, faster))
            last = faster
    return tuple(times)


def _hours(time: Duration) -> int:
    # Duration's own order compares the unit's name; a month counts as 30 days here
    per = {TimeUnit.HOUR: 1, TimeUnit.DAY: 24, TimeUnit.WEEK: 168, TimeUnit.MONTH: 720}
    return time.amount * per[time.unit]


def heal(track: HealthTrack, levels: int = 1) -> HealthTrack:
    """Clear the lowest ``levels`` boxes (the order of :func:`healing_plan`)."""
    if not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    check_int(levels, "levels", 0, TRACK_SIZE)
    if track.dead:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "track", "the dead do not heal")
    return HealthTrack(track.boxes[: max(0, len(track.boxes) - levels)])


class CareNeed(StrEnum):
    """What the wounds demand beyond rest and first aid (§B.12)."""

    MEDICAL = "medical"  # «требует медицинского вмешательства» (untreated lethal worsens)
    REGULAR_CARE = "regular_care"  # «от уровня Калека требуется регулярный медицинский уход»
    CONSTANT_CARE = "constant_care"  # Без Сознания: «нужен постоянный надзор и уход»
    SEQUELAE_RISK = "sequelae_risk"  # bashing from Увечья without medical help


def needs_stabilising(track: HealthTrack, options: CombatOptions | None = None) -> bool:
    """S4 «Любое Летальное повреждение начиная с Травм требует медицинского вмешательства».

    Default reading: a lethal box sits in row 3 (Травмы) or lower. With
    ``lethal_worsening_by_track_level`` any lethal box counts once the track reaches that row.
    """
    opts = combat_options(options)
    check_type(track, HealthTrack, "track")
    row = check_int(opts.lethal_worsens_from_row, "lethal_worsens_from_row", 1, TRACK_SIZE)
    if track.dead:
        return False
    if opts.lethal_worsening_by_track_level:
        return DamageType.LETHAL in track.boxes and len(track.boxes) >= row
    return any(
        kind is DamageType.LETHAL and i >= row for i, kind in enumerate(track.boxes, start=1)
    )


def care_needs(track: HealthTrack, options: CombatOptions | None = None) -> frozenset[CareNeed]:
    if not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    needs: set[CareNeed] = set()
    if track.dead:
        return frozenset()
    if needs_stabilising(track, options):
        needs.add(CareNeed.MEDICAL)
    level = len(track.boxes)
    if level >= HealthLevel.CRIPPLED:
        needs.add(CareNeed.REGULAR_CARE)
    if level >= HealthLevel.INCAPACITATED:
        needs.add(CareNeed.CONSTANT_CARE)
    if any(
        k is DamageType.BASHING and i >= HealthLevel.MAULED for i, k in enumerate(track.boxes, 1)
    ):
        needs.add(CareNeed.SEQUELAE_RISK)
    return frozenset(needs)


def stabilise_difficulty(options: CombatOptions | None = None) -> int:
    """Difficulty of S4's «Броском Интеллект + Медицина повреждения можно стабилизировать»."""
    opts = combat_options(options)
    return check_int(opts.stabilise_difficulty, "stabilise_difficulty", 2, 10)


def is_stabilised(roll: D10Result, options: CombatOptions | None = None) -> bool:
    """One success at the stabilising difficulty stops the daily worsening (AMB-B11)."""
    if not isinstance(roll, D10Result):
        raise RulesInputError(ErrorCode.TYPE, "roll", "expected D10Result")
    if roll.difficulty < stabilise_difficulty(options):
        raise RulesInputError(ErrorCode.RANGE, "roll", "rolled below the stabilising difficulty")
    return roll.outcome in (Outcome.SUCCESS, Outcome.AUTO_SUCCESS) and roll.successes >= 1


def worsen_untreated(
    track: HealthTrack, days: int, options: CombatOptions | None = None
) -> DamageResult:
    """S4 «…иначе состояние повреждений ухудшается на 1 уровень здоровья в день».

    Each day without stabilisation adds one lethal level while :func:`needs_stabilising` holds.
    """
    opts = combat_options(options)
    check_type(track, HealthTrack, "track")
    check_int(days, "days", 0, 1000)
    current = DamageResult(track, (), 0, 0)
    events: list[DamageEvent] = []
    filled = upgraded = 0
    for _ in range(days):
        if current.track.dead or not needs_stabilising(current.track, opts):
            break
        current = apply_damage(current.track, DamageType.LETHAL, 1, opts)
        filled += current.filled
        upgraded += current.upgraded
        for event in current.events:
            _note(events, event)
    return DamageResult(current.track, tuple(events), filled, upgraded)
