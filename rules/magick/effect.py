"""The procedure of an Effect (§C.1, S4 «Создание Эффекта»): its steps in order."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_int,
)
from rules.spheres import Sphere, SphereLevel, sphere

# ---------------------------------------------------------------------------------------------
# §C.1 Procedure (S4 «Создание Эффекта»)


class Step(StrEnum):
    """The five steps of S4 «Создание Эффекта», in order; the bot walks a player through them."""

    DESCRIBE = "describe"  # 1. Описание Эффекта
    CHOOSE_SPHERES = "choose_spheres"  # 2. Подбор необходимых Сфер
    SPEND = "spend"  # 3. Трата Квинтэссенции и/или Силы Воли (declared before the roll, S0)
    ROLL_ARETE = "roll_arete"  # 4. Бросок Арете («Арте» in S4 is a typo)
    GM_DESCRIBES = "gm_describes"  # 5. ГМ описывает результат


PROCEDURE: tuple[Step, ...] = tuple(Step)


class EffectAspect(StrEnum):
    """What step 1 asks the player to describe (S4 1a–1e)."""

    RESULT = "result"  # ожидаемый результат
    KIND = "kind"  # вид - естественный или вульгарный
    METHOD = "method"  # способ его создания
    MANIFESTATION = "manifestation"  # внешнее проявление
    DURATION = "duration"  # предполагаемая длительность


def highest_sphere_level(
    used: Mapping[Sphere | str, int], ratings: Mapping[Sphere | str, int]
) -> int:
    """``L`` of §C.1: the highest Sphere level an Effect uses, which the mage must possess.

    S4 step 2 «Подбор необходимых Сфер нужного уровня, если они есть у мага»: using a level
    above the mage's rating is ``E_RANGE``; a Sphere the mage lacks counts as rating 0.
    """
    if not isinstance(used, Mapping) or not used:
        raise RulesInputError(ErrorCode.RANGE, "spheres", "at least one Sphere is needed")
    if not isinstance(ratings, Mapping):
        raise RulesInputError(ErrorCode.TYPE, "ratings", "expected a mapping Sphere -> rating")
    have = {
        sphere(k, "ratings"): check_int(v, f"ratings[{k}]", 0, SphereLevel.MASTER)
        for k, v in ratings.items()
    }
    top = 0
    for k, v in used.items():
        key = sphere(k, "spheres")
        level = check_int(v, f"spheres[{key}]", SphereLevel.INITIATE, SphereLevel.MASTER)
        if level > have.get(key, 0):
            raise RulesInputError(
                ErrorCode.RANGE, f"spheres[{key}]", f"{level} > rating {have.get(key, 0)}"
            )
        top = max(top, level)
    return top
