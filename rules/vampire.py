"""Vampires in a Dark Ages fight: soak, blood, healing, the bite, Potence and Celerity
(docs/rules.md §B.13).

S1 is the rules chapter of Vampire: the Dark Ages and names the blood pool and the
Disciplines but not what they do to wounds; S4 only says that «атаки когтями, клыками и
способностями чудищ (вампиры, оборотни и т.д.)» deal aggravated damage. What a vampire is
made of here is the book's usual reading, each variant a switch of
:class:`rules.profiles.VampireOptions`. Whether a character is a vampire is on their sheet
(:func:`rules.sheet.is_vampire`), never a chat-wide setting: a mortal in the same chat stays
mortal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from rules.errors import ErrorCode, RulesInputError, check_int, check_type
from rules.health import TRACK_SIZE, DamageType, HealthTrack
from rules.profiles import VampireOptions

# The book's Generation table: (the largest blood pool, the blood a turn may spend).
GENERATIONS: Mapping[int, tuple[int, int]] = MappingProxyType(
    {
        4: (50, 10),
        5: (40, 8),
        6: (30, 6),
        7: (20, 4),
        8: (15, 3),
        9: (14, 2),
        10: (13, 1),
        11: (12, 1),
        12: (11, 1),
        13: (10, 1),
    }
)
GENERATION_MIN = min(GENERATIONS)
GENERATION_MAX = max(GENERATIONS)
DEFAULT_GENERATION = 12  # a newly Embraced Dark Ages character; also a sheet with blood only
BLOOD_PER_LEVEL = 1  # one blood point mends one bashing or lethal level


def _generation(generation: int | None) -> int:
    if generation is None:
        return DEFAULT_GENERATION
    return check_int(generation, "generation", GENERATION_MIN, GENERATION_MAX)


def blood_pool_max(generation: int | None) -> int:
    """The most blood a vampire of ``generation`` holds."""
    return GENERATIONS[_generation(generation)][0]


def blood_per_turn(generation: int | None) -> int:
    """The most blood a vampire of ``generation`` may spend in one turn (healing included)."""
    return GENERATIONS[_generation(generation)][1]


# ----- Torpor -----


def torpid(track: HealthTrack) -> bool:
    """A vampire's track at «Без Сознания» (§B.13, torpor [P]): not unconscious but in
    torpor, which bashing and lethal past it only prolong (:func:`rules.health.apply_damage`
    with ``undead``); a level mended with blood wakes them. Final Death is the dead track."""
    check_type(track, HealthTrack, "track")
    return not track.dead and len(track.boxes) >= TRACK_SIZE


# ----- Healing with blood -----


@dataclass(frozen=True)
class BloodHealing:
    """What spending blood mended: the track after, the levels, the blood and Willpower it
    cost, and whether the per-turn limit of the Generation stopped it short."""

    track: HealthTrack
    levels: int
    blood: int
    willpower: int = 0
    limited: bool = False


def heal_with_blood(
    track: HealthTrack,
    levels: int,
    blood: int,
    generation: int | None = None,
    *,
    spent_this_turn: int = 0,
) -> BloodHealing:
    """Mend up to ``levels`` bashing or lethal levels at one blood point each, from the lowest
    box up, never more than the pool holds (``blood``) nor than the Generation lets a turn
    spend (``spent_this_turn`` already spent). Aggravated boxes are left: they heal only
    with :func:`heal_aggravated_with_blood`."""
    check_type(track, HealthTrack, "track")
    want = check_int(levels, "levels", 1, TRACK_SIZE)
    have = check_int(blood, "blood", 0, 100)
    limit = blood_per_turn(generation)
    used = check_int(spent_this_turn, "spent_this_turn", 0, 100)
    if track.dead:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "track", "the dead do not heal")
    mendable = sum(1 for box in track.boxes if box is not DamageType.AGGRAVATED)
    allowed = max(0, limit - used)
    mended = min(want, mendable, have // BLOOD_PER_LEVEL, allowed)
    limited = allowed < min(want, mendable, have // BLOOD_PER_LEVEL)
    if mended <= 0:
        return BloodHealing(track, 0, 0, 0, limited)
    boxes = track.boxes[: len(track.boxes) - mended]
    return BloodHealing(HealthTrack(boxes), mended, mended * BLOOD_PER_LEVEL, 0, limited)


def heal_aggravated_with_blood(
    track: HealthTrack,
    blood: int,
    options: VampireOptions | None = None,
    *,
    willpower: int | None = None,
) -> BloodHealing:
    """Mend one aggravated level: ``aggravated_heal_blood`` points (five in the book) and a
    day's rest, and a Willpower point where the table plays it so. Without the blood or the
    Willpower it is ``E_RANGE`` / ``E_WP_UNAVAILABLE``, and nothing changes."""
    opts = VampireOptions() if options is None else check_type(options, VampireOptions, "options")
    check_type(track, HealthTrack, "track")
    have = check_int(blood, "blood", 0, 100)
    cost = check_int(opts.aggravated_heal_blood, "aggravated_heal_blood", 1, 10)
    if track.dead:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "track", "the dead do not heal")
    if DamageType.AGGRAVATED not in track.boxes:
        raise RulesInputError(ErrorCode.STATE, "track", "no aggravated wound")
    if have < cost:
        raise RulesInputError(ErrorCode.RANGE, "blood", f"{have} < {cost}")
    wp = 1 if opts.aggravated_heal_willpower else 0
    if wp and (willpower or 0) < wp:
        raise RulesInputError(ErrorCode.WP_UNAVAILABLE, "willpower", "no Willpower to spend")
    last = len(track.boxes) - 1 - track.boxes[::-1].index(DamageType.AGGRAVATED)
    boxes = track.boxes[:last] + track.boxes[last + 1 :]
    return BloodHealing(HealthTrack(boxes), 1, cost, wp)


# ----- Celerity -----


@dataclass(frozen=True)
class CelerityActions:
    """Extra actions of Celerity this turn and the blood they cost; they come on top of the
    declared ones, with full pools, and are never split themselves."""

    extra: int
    blood: int


def celerity_actions(
    celerity: int, wanted: int, blood: int, *, generation: int | None = None
) -> CelerityActions:
    """Up to ``celerity`` extra actions a turn, a blood point each; asking for more than the
    Discipline gives (``E_RANGE`` on ``wanted``), than the pool pays (on ``blood``), or —
    with the ``generation`` given — than the Generation lets a turn spend (on ``generation``)
    changes nothing."""
    dots = check_int(celerity, "celerity", 0, 10)
    extra = check_int(wanted, "wanted", 0, 10)
    have = check_int(blood, "blood", 0, 100)
    if extra > dots:
        raise RulesInputError(ErrorCode.RANGE, "wanted", f"{extra} > Celerity {dots}")
    cost = extra
    if cost > have:
        raise RulesInputError(ErrorCode.RANGE, "blood", f"{have} < {cost}")
    if generation is not None and cost > blood_per_turn(generation):
        limit = blood_per_turn(generation)
        raise RulesInputError(ErrorCode.RANGE, "generation", f"{cost} > {limit} a turn")
    return CelerityActions(extra, cost)


# ----- Potence -----


def potence_damage(potence: int, options: VampireOptions | None = None) -> tuple[int, int]:
    """What Potence adds to a melee attack's damage: ``(dice, automatic successes)``."""
    opts = VampireOptions() if options is None else check_type(options, VampireOptions, "options")
    dots = check_int(potence, "potence", 0, 10)
    return (dots, 0) if opts.potence_as_dice else (0, dots)


def halved_bashing(levels: int, kind: DamageType, options: VampireOptions | None = None) -> int:
    """Bashing that got through a vampire's soak, halved and rounded down (§B.13)."""
    opts = VampireOptions() if options is None else check_type(options, VampireOptions, "options")
    n = check_int(levels, "levels", 0, 100)
    return n // 2 if kind is DamageType.BASHING and opts.bashing_halved else n
