"""The bounds of S4's numbers, and the chat's combat switches (docs/rules.md §B, AMB-B2)."""

from __future__ import annotations

from rules.profiles import (
    CombatOptions,
    Profile,
    check_profile,
)

TRAIT_MAX = 10
WEAPON_DAMAGE_MAX = 10
AMMO_MAX = 1000
STAND_UP_INITIATIVE = -2  # S4 «Чтобы сразу подняться - Ловкость + Атлетизм, с -2 к инициативе»
BLIND_FIRE_CHECK_DIFFICULTY = 8  # S4 «Восприятие+Осведомлённость (сложность 8)»
BURST_ROUNDS = 3  # S4 «тратится 3 патрона»


def _options(profile: Profile) -> CombatOptions:
    return check_profile(profile).combat
