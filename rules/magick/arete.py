"""The Arete roll (§C.5) and the magnitude of its successes (§C.6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from rules import d10
from rules.d10 import D10Result, Outcome, faces_or_roll
from rules.dice import Rng
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    parse_enum,
)
from rules.magick.difficulty import EffectDifficulty, ModifierInput, effect_difficulty
from rules.magick.limits import MAX_SUCCESSES, _profile, _Value
from rules.magick.paradox import paradox_gain
from rules.profiles import Profile, RollContext

# ---------------------------------------------------------------------------------------------
# §C.5 The Arete roll


class CastStatus(StrEnum):
    ROLLED = "rolled"
    IMPOSSIBLE = "impossible"  # wound penalties left no Arete dice (S0: pool 0 → no action)


class Casting(_Value):
    """One Arete roll for an Effect: its difficulty, the dice and the Paradox it earns."""

    status: CastStatus
    difficulty: EffectDifficulty
    pool: int
    roll: D10Result | None
    successes: int
    outcome: Outcome | None
    paradox: int


ARETE_MAX = 10  # S0 «Арете и Сила Воли имеют максимальный уровень, равный 10»


@dataclass(frozen=True)
class Spell:
    """An Effect as it is cast (S4 steps 2–4): the caster's Arete, the highest Sphere level it
    uses, vulgar or not, witnesses, the Storyteller's modifiers and the Quintessence spent
    (``quintessence_available``: what the caster holds, None when not checked), Willpower,
    the wound penalty, ``ritual_rolls`` — the rolls made so far in an extended casting, this
    one included (it only matters on a botch) — and whether a success is automatic."""

    arete: int
    highest_sphere: int
    vulgar: bool
    witnesses: bool
    modifiers: ModifierInput = ()
    quintessence: int = 0
    quintessence_available: int | None = None
    willpower: bool = False
    wound_penalty: int = 0
    ritual_rolls: int = 0
    auto_success: bool = False
    condition_difficulty: int = 0  # §B.8 on the caster (blinded: +2)


def cast(
    spell: Spell,
    *,
    faces: Sequence[int] | None = None,
    rng: Rng | None = None,
    profile: Profile | None = None,
) -> Casting:
    """Roll Arete for an Effect (S4 step 4) and report the Paradox of §C.10.

    Every profile forbids automatic success on Arete (AMB-C4: the roll's successes feed the
    allocation and its outcome the Paradox table), so ``auto_success=True`` is
    ``E_NOT_ALLOWED`` unless a group removes ``MAGICK`` from ``auto_success_forbidden``; then
    §A.6 applies (pool ≥ difficulty, no threshold, one success). Wound penalties take dice
    off Arete unless the profile says otherwise (AMB-C5).
    """
    if not isinstance(spell, Spell):
        raise RulesInputError(ErrorCode.TYPE, "spell", "expected a Spell")
    highest_sphere, vulgar, witnesses = spell.highest_sphere, spell.vulgar, spell.witnesses
    prof = _profile(profile)
    level = check_int(spell.arete, "arete", 1, ARETE_MAX)
    penalty = check_int(spell.wound_penalty, "wound_penalty", 0, ARETE_MAX)
    willpower = check_bool(spell.willpower, "willpower")
    diff = effect_difficulty(
        highest_sphere,
        vulgar,
        witnesses,
        spell.modifiers,
        spell.quintessence,
        quintessence_available=spell.quintessence_available,
        profile=prof,
        condition_difficulty=spell.condition_difficulty,
    )
    pool = level - (penalty if prof.magick.wound_penalty_on_arete else 0)
    if pool <= 0:
        return Casting(
            status=CastStatus.IMPOSSIBLE,
            difficulty=diff,
            pool=pool,
            roll=None,
            successes=0,
            outcome=None,
            paradox=0,
        )
    if check_bool(spell.auto_success, "auto_success"):
        return _auto_cast(diff, pool, highest_sphere, vulgar, witnesses, prof)
    dice = faces_or_roll(pool, faces, rng)
    result = d10.resolve(dice, diff.difficulty, prof, willpower, diff.threshold)
    paradox = paradox_gain(
        highest_sphere,
        vulgar,
        witnesses,
        result.outcome,
        ritual_rolls=spell.ritual_rolls,
        profile=prof,
    )
    return Casting(
        status=CastStatus.ROLLED,
        difficulty=diff,
        pool=pool,
        roll=result,
        successes=result.successes,
        outcome=result.outcome,
        paradox=paradox,
    )


def _auto_cast(
    diff: EffectDifficulty,
    pool: int,
    highest_sphere: int,
    vulgar: bool,
    witnesses: bool,
    profile: Profile,
) -> Casting:
    if not profile.auto_success or RollContext.MAGICK in profile.auto_success_forbidden:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "auto_success", "not on Arete (AMB-C4)")
    if pool < diff.difficulty or diff.threshold > 0:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "auto_success", "pool below difficulty")
    return Casting(
        status=CastStatus.ROLLED,
        difficulty=diff,
        pool=pool,
        roll=None,
        successes=1,
        outcome=Outcome.AUTO_SUCCESS,
        paradox=paradox_gain(
            highest_sphere, vulgar, witnesses, Outcome.AUTO_SUCCESS, profile=profile
        ),
    )


# ---------------------------------------------------------------------------------------------
# §C.6 Magnitude (S4 «Мощность Магии»)


class Magnitude(StrEnum):
    ORDINARY = "ordinary"  # Обычный: candle by touch, find someone, small flash, heal yourself
    COMPLEX = "complex"  # Сложный: strike with fire, compel someone, change appearance
    MIGHTY = "mighty"  # Могучий: knock down a wall, change a mind, summon a fantastic beast
    UNUSUAL = "unusual"  # Необычный: blow up a car, crowd of puppets, bind a mighty spirit
    GODLIKE = "godlike"  # Божественный: blow up a building, city asleep, change own Pattern


# (lowest, highest) successes needed; None = no upper bound («20+»). S4's ranges overlap at
# 10 and 20 (AMB-C6): the Storyteller fixes an exact number inside the row.
MAGNITUDE_SUCCESSES: Mapping[Magnitude, tuple[int, int | None]] = MappingProxyType(
    {
        Magnitude.ORDINARY: (1, 2),
        Magnitude.COMPLEX: (3, 4),
        Magnitude.MIGHTY: (5, 10),
        Magnitude.UNUSUAL: (10, 20),
        Magnitude.GODLIKE: (20, None),
    }
)


def magnitude_of(successes: int) -> Magnitude | None:
    """The grandest magnitude S successes can reach: the highest row whose floor is ≤ S.

    Because S4's rows overlap, 10 successes read as «Необычный» and 20 as «Божественный»
    (AMB-C6). Zero successes reach nothing.
    """
    s = check_int(successes, "successes", 0, MAX_SUCCESSES)
    found: Magnitude | None = None
    for kind, (low, _) in MAGNITUDE_SUCCESSES.items():
        if s >= low:
            found = kind
    return found


def check_required(magnitude: Magnitude | str, required: int) -> int:
    """The Storyteller's exact successes for an Effect must lie in its magnitude's row."""
    kind = parse_enum(Magnitude, magnitude, "magnitude")
    low, high = MAGNITUDE_SUCCESSES[kind]
    return check_int(required, "required", low, MAX_SUCCESSES if high is None else high)
