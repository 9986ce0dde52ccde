"""Paradox gained (§C.10) and the Quintessence/Paradox wheel (§C.11)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.d10 import Outcome
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
)
from rules.magick.limits import MAX_RITUAL_ROLLS, _outcome, _profile, _Value
from rules.profiles import Profile
from rules.spheres import SphereLevel

# ---------------------------------------------------------------------------------------------
# §C.10 Paradox gained (S4 «Накопление Парадокса»)


# (vulgar, witnesses, botched) -> (Paradox «сразу», Paradox «за уровень высшей Сферы»).
_PARADOX_TABLE: Mapping[tuple[bool, bool, bool], tuple[int, int]] = MappingProxyType(
    {
        # «Эффект успешный/неудачный»
        (False, False, False): (0, 0),
        (False, True, False): (0, 0),  # empty cell (AMB-C1)
        (True, False, False): (0, 1),
        (True, True, False): (1, 1),
        # «Эффект провальный»
        (False, False, True): (0, 1),
        (False, True, True): (0, 1),  # empty cell (AMB-C1)
        (True, False, True): (1, 1),
        (True, True, True): (2, 2),
    }
)


def paradox_gain(
    highest_sphere: int,
    vulgar: bool,
    witnesses: bool,
    outcome: Outcome | str,
    *,
    ritual_rolls: int = 0,
    profile: Profile | None = None,
) -> int:
    """Paradox an Effect earns, from the two S4 tables (success/failure and botch).

    «Эффект успешный/неудачный»: natural 0; vulgar L, with witnesses «1 Парадокс сразу + по 1
    за уровень высшей Сферы». «Эффект провальный»: natural L; vulgar 1 + L, with witnesses
    «2 Парадокса сразу + по 2 Парадоксу за уровень высшей Сферы». Empty natural/witness cells
    are merged with their neighbours (AMB-C1). A botched ritual adds «+1 Парадокс за каждый
    бросок» on top (AMB-C11), or replaces the table if the profile reads it so.
    """
    opts = _profile(profile).magick
    level = check_int(highest_sphere, "highest_sphere", SphereLevel.INITIATE, SphereLevel.MASTER)
    is_vulgar = check_bool(vulgar, "vulgar")
    seen = check_bool(witnesses, "witnesses")
    rolls = check_int(ritual_rolls, "ritual_rolls", 0, MAX_RITUAL_ROLLS)
    botch = _outcome(outcome) is Outcome.BOTCH
    flat, per_level = _PARADOX_TABLE[(is_vulgar, seen, botch)]
    gain = flat + per_level * level
    if seen and not is_vulgar:
        gain += opts.natural_witness_paradox_extra
    if botch and rolls > 0:
        gain = gain + rolls if opts.botched_ritual_adds_rolls else rolls
    return gain


# ---------------------------------------------------------------------------------------------
# §C.11 The Quintessence / Paradox wheel


class Wheel(_Value):
    """One track of ``size`` boxes: Quintessence fills from one end, Paradox from the other.

    S4 «Парадокс отмечается на одном треке с Квинтэссенцией, но с конца и против часовой
    стрелки.» Paradox may exceed the track («место на треке не ограничивают максимальное
    кол-во Парадокса»); Quintessence never shares a box with it.
    """

    quintessence: int
    paradox: int
    size: int

    @property
    def free(self) -> int:
        return max(0, self.size - self.paradox - self.quintessence)


class WheelChange(_Value):
    wheel: Wheel
    quintessence_burned: int  # Quintessence lost to incoming Paradox
    overflow: int  # Quintessence that found no free box


def wheel(quintessence: int, paradox: int, *, profile: Profile | None = None) -> Wheel:
    """A validated wheel; Quintessence in boxes Paradox already holds is ``E_STATE``."""
    size = _profile(profile).magick.wheel_size
    q = check_int(quintessence, "quintessence", 0, size)
    p = check_int(paradox, "paradox", 0)
    if q > max(0, size - p):
        raise RulesInputError(ErrorCode.STATE, "quintessence", f"{q} + {p} > {size} boxes")
    return Wheel(quintessence=q, paradox=p, size=size)


def add_paradox(
    quintessence: int, paradox: int, gain: int, *, profile: Profile | None = None
) -> WheelChange:
    """New Paradox goes on the track; it burns the Quintessence in boxes it needs.

    S4 «Парадокс сжигает Квинтэссенцию в квадратах, где ему нужно место на треке.»
    """
    before = wheel(quintessence, paradox, profile=profile)
    p = before.paradox + check_int(gain, "gain", 0)
    q = min(before.quintessence, max(0, before.size - p))
    after = Wheel(quintessence=q, paradox=p, size=before.size)
    return WheelChange(wheel=after, quintessence_burned=before.quintessence - q, overflow=0)


def add_quintessence(
    quintessence: int, paradox: int, amount: int, *, profile: Profile | None = None
) -> WheelChange:
    """Quintessence gained fills free boxes only; the rest is reported as ``overflow``."""
    before = wheel(quintessence, paradox, profile=profile)
    gained = check_int(amount, "amount", 0)
    kept = min(gained, before.free)
    after = Wheel(quintessence=before.quintessence + kept, paradox=before.paradox, size=before.size)
    return WheelChange(wheel=after, quintessence_burned=0, overflow=gained - kept)


def spend_quintessence(
    quintessence: int, paradox: int, amount: int, *, profile: Profile | None = None
) -> Wheel:
    """Quintessence spent (on a roll, §C.3) leaves the wheel; spending more is E_QUINT_LIMIT."""
    before = wheel(quintessence, paradox, profile=profile)
    spent = check_int(amount, "amount", 0)
    if spent > before.quintessence:
        raise RulesInputError(ErrorCode.QUINT_LIMIT, "amount", f"{spent} > {before.quintessence}")
    return Wheel(quintessence=before.quintessence - spent, paradox=before.paradox, size=before.size)
