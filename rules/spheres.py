"""The nine Spheres and what each level can do: reference-card DATA (docs/rules.md §C.16).

This is the one place in ``rules`` that stores words, on purpose: the house sheet's Sphere
table (S4 «Уровень Сферы») is reference text the bot shows verbatim on a card, not a result
of any rule. The Russian is copied from S4 as written (typos included, e.g. «Переместится»,
«Ближнюю Умбры»); the English is docs/rules.md §C.16's gloss. Logic never reads these strings:
rules code only uses :class:`Sphere` and the level numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum, StrEnum
from types import MappingProxyType
from typing import NamedTuple

from rules.errors import ErrorCode, RulesInputError, check_int


class Sphere(StrEnum):
    """The nine Spheres in the order of the S4 table (G.4)."""

    CORRESPONDENCE = "correspondence"  # Связи
    ENTROPY = "entropy"  # Энтропия
    FORCES = "forces"  # Силы
    LIFE = "life"  # Жизнь
    MATTER = "matter"  # Материя
    MIND = "mind"  # Разум
    PRIME = "prime"  # Основы
    SPIRIT = "spirit"  # Дух
    TIME = "time"  # Время


class SphereLevel(IntEnum):
    """Dots in a Sphere; an Effect's difficulty and Paradox use the highest one (§C.2)."""

    INITIATE = 1  # ● Новичок
    APPRENTICE = 2  # ●● Ученик
    DISCIPLE = 3  # ●●● Посвященный
    ADEPT = 4  # ●●●● Адепт
    MASTER = 5  # ●●●●● Мастер


class SphereText(NamedTuple):
    ru: str
    en: str


SPHERE_NAMES: Mapping[Sphere, SphereText] = MappingProxyType(
    {
        Sphere.CORRESPONDENCE: SphereText("Связи", "Correspondence"),
        Sphere.ENTROPY: SphereText("Энтропия", "Entropy"),
        Sphere.FORCES: SphereText("Силы", "Forces"),
        Sphere.LIFE: SphereText("Жизнь", "Life"),
        Sphere.MATTER: SphereText("Материя", "Matter"),
        Sphere.MIND: SphereText("Разум", "Mind"),
        Sphere.PRIME: SphereText("Основы", "Prime"),
        Sphere.SPIRIT: SphereText("Дух", "Spirit"),
        Sphere.TIME: SphereText("Время", "Time"),
    }
)

LEVEL_NAMES: Mapping[SphereLevel, SphereText] = MappingProxyType(
    {
        SphereLevel.INITIATE: SphereText("Новичок", "Initiate"),
        SphereLevel.APPRENTICE: SphereText("Ученик", "Apprentice"),
        SphereLevel.DISCIPLE: SphereText("Посвященный", "Disciple"),
        SphereLevel.ADEPT: SphereText("Адепт", "Adept"),
        SphereLevel.MASTER: SphereText("Мастер", "Master"),
    }
)

# Index 0 is level ● (Новичок), index 4 is level ●●●●● (Мастер).
_LEVELS: dict[Sphere, tuple[SphereText, ...]] = {
    Sphere.CORRESPONDENCE: (
        SphereText(
            ru="Точное чувство пространства, определить своё местоположение",
            en="precise sense of space, locate oneself",
        ),
        SphereText(
            ru="Почувствовать или прикоснуться на расстоянии, блокировать чужое воздействие",
            en="sense or touch at a distance, block others' effects",
        ),
        SphereText(
            ru="Переместиться в пространстве, наблюдать за несколькими местами",
            en="teleport, watch several places",
        ),
        SphereText(
            ru="Создать порталы или карманные измерения",
            en="portals, pocket dimensions",
        ),
        SphereText(
            ru="Изменение длин и объемов, наложение и разделение пространства",
            en="alter lengths and volumes, overlay or split space",
        ),
    ),
    Sphere.ENTROPY: (
        SphereText(
            ru="Восприятие определенных вероятностей",
            en="sense probabilities",
        ),
        SphereText(
            ru="Оценка и малое воздействие на вероятности",
            en="assess and slightly nudge probability",
        ),
        SphereText(
            ru="Навлечь/уберечь от предсказуемых неудач и везений, поломок вещей",
            en="bring on or avert predictable luck and breakdowns",
        ),
        SphereText(
            ru="Воздействие на течение жизни живых существ",
            en="affect the life-course of living beings",
        ),
        SphereText(
            ru="Контроль чужой судьбы, вероятности появления мыслей и идей",
            en="control fate and the probability of thoughts and ideas",
        ),
    ),
    Sphere.FORCES: (
        SphereText(
            ru="Восприятие физических сил",
            en="perceive forces",
        ),
        SphereText(
            ru="Малое воздействие на физические силы",
            en="minor control",
        ),
        SphereText(
            ru="Ограниченное преобразование и направление физических сил",
            en="limited transformation and direction",
        ),
        SphereText(
            ru="Заметное воздействие на группы физических сил",
            en="significant control of groups of forces",
        ),
        SphereText(
            ru="Колоссальное направление и преобразование групп физических сил",
            en="colossal control",
        ),
    ),
    Sphere.LIFE: (
        SphereText(
            ru="Анализ и восприятие живого",
            en="sense and analyse life",
        ),
        SphereText(
            ru="Исцеление себя, воздействие на простые организмы",
            en="heal self, affect simple organisms",
        ),
        SphereText(
            ru=(
                "Ограниченные изменения собственного и чужих организмов, "
                "преобразование простых организмов в новые"
            ),
            en="limited changes to own and others' bodies; transform simple organisms",
        ),
        SphereText(
            ru="Преобразование своего организма в новый, манипуляции над чужим организмом",
            en="transform own body, manipulate others' bodies",
        ),
        SphereText(
            ru="Неограниченный контроль над организмами, создание новых организмов",
            en="unlimited control, create new organisms",
        ),
    ),
    Sphere.MATTER: (
        SphereText(
            ru="Анализ свойств неживой материи",
            en="analyse matter",
        ),
        SphereText(
            ru="Преобразовать простую и инертную материю",
            en="transmute simple inert matter",
        ),
        SphereText(
            ru="Изменение формы объектов, ограниченное изменение свойств материи",
            en="reshape objects, limited property changes",
        ),
        SphereText(
            ru="Изменение и создание сложных составных объектов",
            en="alter or create complex composite objects",
        ),
        SphereText(
            ru=(
                "Неограниченное изменение и добавление любых свойств, создание новых "
                "объектов с ними"
            ),
            en="unlimited property changes, create new objects",
        ),
    ),
    Sphere.MIND: (
        SphereText(
            ru="Восприятие эмоций, усиление собственного разума",
            en="sense emotions, empower own mind",
        ),
        SphereText(
            ru="Чтение поверхностных мыслей, передача эмоций",
            en="surface thoughts, project emotions",
        ),
        SphereText(
            ru="Чтение мыслей, телепатия, переход в мир снов",
            en="read minds, telepathy, enter dreams",
        ),
        SphereText(
            ru=("Подчинение и изменение разума, защита чужого разума, переход в Астральную Умбру"),
            en="control and alter minds, shield others, Astral Umbra",
        ),
        SphereText(
            ru=(
                "Отделение сознания от тела, полное изменение чужого сознания, "
                "создание нового сознания"
            ),
            en="mind from body, total rewrite, create a mind",
        ),
    ),
    Sphere.PRIME: (
        SphereText(
            ru=(
                "Ощутить Узел и Квинтэссенцию, удержать Квинтэссенцию у себя сверх "
                'уровня Аватара, "сжечь" здоровье в обмен на Квинтэссенцию'
            ),
            en=(
                "sense Nodes and Quintessence, hold Quintessence above Avatar rating,"
                " burn health for Quintessence"
            ),
        ),
        SphereText(
            ru=(
                "Зачаровать предмет, поддержать созданное другими Сферами, создать Амулет из Сосуда"
            ),
            en="enchant an item, fuel other Spheres' creations, make a charm from a vessel",
        ),
        SphereText(
            ru=(
                "Временно зачаровать существо, перекачать Квинтэссенцию из Амулетов и"
                " Сосудов, создать Артефактов из Сосудов, создать Амулетов из живых "
                "Сосудов"
            ),
            en=(
                "temporarily enchant a being, draw Quintessence from charms and "
                "vessels, make Artifacts from vessels, make charms from living "
                "vessels"
            ),
        ),
        SphereText(
            ru=(
                "Растворение объектов, создание неживых Сосудов, создание Артефактов "
                "из живых Сосудов, восстановление Квинтэссенции в месте с резонансом,"
                ' создание "камней душ"'
            ),
            en=(
                "unmake objects, create inanimate vessels, Artifacts from living "
                'vessels, regain Quintessence at a resonant place, "soulstones"'
            ),
        ),
        SphereText(
            ru=(
                "Растворение живых существ, сжигание Парадокса, создание живых "
                "Сосудов, постоянное зачарование существ, восстановление "
                "Квинтэссенции от Аватара в любом месте"
            ),
            en=(
                "unmake living beings, burn Paradox, create living vessels, permanent"
                " enchantment of beings, regain Quintessence from the Avatar anywhere"
            ),
        ),
    ),
    Sphere.SPIRIT: (
        SphereText(
            ru="Чувствовать Ближнюю Умбру, видеть духов",
            en="sense the Near Umbra, see spirits",
        ),
        SphereText(
            ru=(
                "Воздействовать на предметы и существ из Умбры, дать увидеть духов и Ближнюю Умбры"
            ),
            en="touch Umbral things, let others see spirits",
        ),
        SphereText(
            ru=("Переместится в Умбру, создать эфемерный предмет или силу, пробудить/усыпить духа"),
            en="step into the Umbra, create ephemera, wake or lull spirits",
        ),
        SphereText(
            ru="Воздействовать на Барьер, создать врата в Умбру, призыв и контроль духов",
            en="affect the Barrier, gates, summon and bind spirits",
        ),
        SphereText(
            ru=(
                "Неограниченно перемещаться по Умбре, воздействовать на умбральные "
                "тела духов, создание Миров, воздействовать на чужие Аватары"
            ),
            en=(
                "travel the Umbra freely, affect spirits' bodies, create Realms, "
                "affect others' Avatars"
            ),
        ),
    ),
    Sphere.TIME: (
        SphereText(
            ru="Точное чувство времени, чувство искажения времени",
            en="precise time sense, sense time distortion",
        ),
        SphereText(
            ru="Посмотреть в прошлое и будущее, создать помехи для наблюдений сквозь время",
            en="postcognition and precognition, block time-sight",
        ),
        SphereText(
            ru=(
                "Изменять течение времени в конкретном месте и для конкретного "
                "существа, немного закольцевать или перемотать время"
            ),
            en="alter the flow locally or for one being, small loops and rewinds",
        ),
        SphereText(
            ru=(
                "Задержать активацию Эффектов до определённого момента, закольцевать "
                "или заморозить время для объекта"
            ),
            en='delay ("hang") Effects, loop or freeze time for an object',
        ),
        SphereText(
            ru="Перемещение мага, вещей и Эффектов во времени, выход из потока времени",
            en="time travel for the mage, objects and Effects; step out of time",
        ),
    ),
}

SPHERE_LEVELS: Mapping[Sphere, tuple[SphereText, ...]] = MappingProxyType(_LEVELS)


def sphere(value: Sphere | str, field: str = "sphere") -> Sphere:
    """A Sphere from its enum or code; anything else is ``E_UNKNOWN_KEY`` (§0.3)."""
    if isinstance(value, Sphere):
        return value
    if not isinstance(value, str):
        raise RulesInputError(ErrorCode.TYPE, field, f"expected str, got {type(value).__name__}")
    try:
        return Sphere(value.strip().lower())
    except ValueError:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, field, repr(value)) from None


def level_text(which: Sphere | str, level: int) -> SphereText:
    """What one level of one Sphere allows, for a reference card (S4 table, §C.16)."""
    key = sphere(which)
    check_int(level, "level", SphereLevel.INITIATE, SphereLevel.MASTER)
    return SPHERE_LEVELS[key][level - 1]
