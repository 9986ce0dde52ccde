"""Character sheets: the trait catalogue and the pure operations on one sheet (docs/product.md
"Character sheet"; docs/rules.md §A.2 ranges, §A.7 Willpower, §B.9 health, §C.11 the wheel, §D.1
the d6 entities).

A sheet is a frozen value: every operation returns a new :class:`Sheet` or raises
:class:`~rules.errors.RulesInputError`, so the bot can try a change, show the refusal and keep
the old sheet. Traits are codes (enum values); their Russian and English names, and the
reading of what players type, live in ``table/traits.py``.

Ranges follow S0 «За исключением Арете, Квинтэссенции, Парадокса и Силы Воли, все Черты имеют
минимальное значение, равное 0, и максимальное, равное 5 … некоторые сверхъестественные
чудовища могут иметь значения Черт выше 5» and «Арете и Сила Воли имеют максимальный уровень,
равный 10»: Attributes and Abilities 0–5 (to 10 on a ``supernatural`` sheet), Willpower, Arete
and Humanity 1–10, Spheres 0–5 (●…●●●●● of the S4 table), Quintessence and Paradox on the S4
wheel of :mod:`rules.magick`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    ValidationError,
    model_validator,
)

from rules import magick
from rules.actions import MORTAL_TRAIT_MAX, TRAIT_MAX, PoolStatus, Trait, TraitKind, build_pool
from rules.combat.situation import Condition
from rules.d6.chance import (
    LUCK_MAX,
    POWER_MAX,
    WEAKNESS_MAX,
    WEAKNESS_MIN,
    WOUND_KINDS,
    Advantage,
    Chance,
    Difficulty,
    DifficultyKind,
    chance,
    wound,
)
from rules.d6.combat import Edge, check_edges
from rules.d6.initiative import ALACRITY_MAX
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    check_sequence,
    parse_enum,
)
from rules.health import HealthTrack, ImpossibleReason, PoolKind, penalised_pool
from rules.profiles import D6, DARK_AGES, HOUSE_MAGE, GameSystem, Profile
from rules.spheres import Sphere, SphereLevel
from rules.vampire import GENERATION_MAX, GENERATION_MIN, blood_pool_max, torpid

# ---------------------------------------------------------------------------------------------
# The trait catalogue


class SheetSystem(StrEnum):
    """Which sheet a character has: the trait list differs per game, not per house rule."""

    MAGE = "mage"  # profiles "mage" (S4 house sheet) and "mage-revised" (S0)
    DARK_AGES = "dark-ages"  # S1
    D6 = "d6"  # S2/S3: free-form powers instead of traits


class Attribute(StrEnum):
    """The nine Attributes; S1 «Каждый из Атрибутов можно совместить с любой из Способностей,
    что в результате дает нам 270 вариантов» is nine of them times thirty Abilities."""

    STRENGTH = "strength"  # Сила
    DEXTERITY = "dexterity"  # Ловкость
    STAMINA = "stamina"  # Выносливость
    CHARISMA = "charisma"  # Обаяние
    MANIPULATION = "manipulation"  # Манипулирование
    APPEARANCE = "appearance"  # Внешность
    PERCEPTION = "perception"  # Восприятие
    INTELLIGENCE = "intelligence"  # Интеллект
    WITS = "wits"  # Смекалка (S4) / Сообразительность (S1)


class Ability(StrEnum):
    """Every Ability of either d10 sheet; :data:`MAGE_ABILITIES` and
    :data:`DARK_AGES_ABILITIES` say which game has which. One code per Ability, whichever book
    names it: S4's «Уклонение» and S1's «Уворот» are both ``DODGE`` (docs/rules.md §G.2)."""

    ACADEMICS = "academics"  # Академические знания
    ACTING = "acting"  # Актерство (S1)
    ALERTNESS = "alertness"  # Бдительность
    ANIMAL_KEN = "animal_ken"  # Знание животных (S1)
    ARCHERY = "archery"  # Стрельба из лука (S1)
    ART = "art"  # Искусство
    ATHLETICS = "athletics"  # Атлетизм
    AWARENESS = "awareness"  # Осведомлённость (S4)
    BRAWL = "brawl"  # Драка
    COMPUTER = "computer"  # Компьютеры (S0)
    COSMOLOGY = "cosmology"  # Космология
    CRAFTS = "crafts"  # Ремесло
    DODGE = "dodge"  # Уклонение (S4) / Уворот (S1)
    DRIVE = "drive"  # Вождение
    EMPATHY = "empathy"  # Эмпатия
    ENIGMAS = "enigmas"  # Загадки
    ESOTERICA = "esoterica"  # Эзотерика
    ETIQUETTE = "etiquette"  # Этикет
    EXPRESSION = "expression"  # Экспрессия (S0)
    FIREARMS = "firearms"  # Огн. Оружие (S4)
    HEARTH_WISDOM = "hearth_wisdom"  # Народная мудрость
    HERBALISM = "herbalism"  # Травничество (S1)
    INTIMIDATION = "intimidation"  # Запугивание
    INVESTIGATION = "investigation"  # Расследование
    LARCENY = "larceny"  # Воровство (S1)
    LAW = "law"  # Правоведение (S1)
    LEADERSHIP = "leadership"  # Лидерство
    LINGUISTICS = "linguistics"  # Лингвистика (S1)
    MARTIAL_ARTS = "martial_arts"  # Боевые искусства
    MEDICINE = "medicine"  # Медицина (S4)
    MEDITATION = "meditation"  # Медитация
    MELEE = "melee"  # Фехтование (S4)
    MUSIC = "music"  # Музыка (S1)
    OCCULT = "occult"  # Оккультизм
    POLITICS = "politics"  # Политика (S1)
    RESEARCH = "research"  # Исследования
    RIDE = "ride"  # Верховая езда (S1)
    SCIENCE = "science"  # Наука
    SENESCHAL = "seneschal"  # Сенешаль
    STEALTH = "stealth"  # Скрытность (S4) / Маскировка (S1)
    STREETWISE = "streetwise"  # Уличное чутьё
    SUBTERFUGE = "subterfuge"  # Хитрость
    SURVIVAL = "survival"  # Выживание
    TECHNOLOGY = "technology"  # Техника (S0)
    THROWING = "throwing"  # Метание (S4)


class Stat(StrEnum):
    """The traits S0 exempts from the 0–5 range, rated by their own nature (and Humanity, S1's
    «первичная характеристика» with temporary points like Willpower)."""

    WILLPOWER = "willpower"  # Сила Воли
    ARETE = "arete"  # Арете («Арте» in S4)
    HUMANITY = "humanity"  # Человечность (S1)
    BLOOD = "blood"  # a vampire's blood pool (S1): points held, spent, never rolled
    GENERATION = "generation"  # «Поколение»: what makes the sheet a vampire's (§B.13)
    QUINTESSENCE = "quintessence"  # Квинтэссенция
    PARADOX = "paradox"  # Парадокс


class Virtue(StrEnum):
    """The Virtues of a Dark Ages vampire, rolled alone (a frenzy, the Rötschreck, a
    degeneration). S1 names none of them; these are the book's five, in the Russian words
    the translations of Vampire use (``table.traits``). A Road swaps Conscience for Conviction
    and Self-Control for Instincts, so a sheet holds whichever its character follows."""

    CONSCIENCE = "conscience"  # Совесть
    CONVICTION = "conviction"  # Убеждённость
    SELF_CONTROL = "self_control"  # Самоконтроль
    INSTINCTS = "instincts"  # Инстинкты
    COURAGE = "courage"  # Храбрость


class Discipline(StrEnum):
    """A Dark Ages vampire's Disciplines (S1 only says «Дисциплины»): the book's list, rated
    like a trait and rolled alone or beside another trait as their powers say."""

    ANIMALISM = "animalism"  # Анимализм
    AUSPEX = "auspex"  # Прорицание
    CELERITY = "celerity"  # Стремительность
    CHIMERSTRY = "chimerstry"  # Химерия
    DEMENTATION = "dementation"  # Помешательство
    DOMINATE = "dominate"  # Доминирование
    FORTITUDE = "fortitude"  # Стойкость
    MORTIS = "mortis"  # Мортис
    OBFUSCATE = "obfuscate"  # Затемнение
    OBTENEBRATION = "obtenebration"  # Власть над тенью
    POTENCE = "potence"  # Мощь
    PRESENCE = "presence"  # Присутствие
    PROTEAN = "protean"  # Превращение
    QUIETUS = "quietus"  # Смерть
    SERPENTIS = "serpentis"  # Серпентис
    THAUMATURGY = "thaumaturgy"  # Тауматургия
    VICISSITUDE = "vicissitude"  # Изменчивость


class D6Field(StrEnum):
    """The fixed numbers of a d6 sheet besides its named powers (docs/rules.md §D.1)."""

    WEAKNESS = "weakness"  # слабость, 1–5 or none
    LUCK = "luck"  # кубики удачи
    ALACRITY = "alacrity"  # Расторопность, the initiative dice (§D.7); heroes have 3


TraitCode = Attribute | Ability | Virtue | Discipline | Sphere | Stat | D6Field
# The ratings kept in a sheet's ``traits``: what a pool adds up from.
RATED = (Attribute, Ability, Virtue, Discipline)

ATTRIBUTES: tuple[Attribute, ...] = tuple(Attribute)

# Mage: the Ascension Revised's Talents, Skills and Knowledges, plus what the house sheet S4
# rolls that Revised dropped: «Ловкость + Уклонение», «Огн. Оружие/Метание».
MAGE_ABILITIES: tuple[Ability, ...] = (
    # Talents
    Ability.ALERTNESS,
    Ability.ART,
    Ability.ATHLETICS,
    Ability.AWARENESS,
    Ability.BRAWL,
    Ability.DODGE,
    Ability.EMPATHY,
    Ability.EXPRESSION,
    Ability.INTIMIDATION,
    Ability.LEADERSHIP,
    Ability.STREETWISE,
    Ability.SUBTERFUGE,
    # Skills
    Ability.CRAFTS,
    Ability.DRIVE,
    Ability.ETIQUETTE,
    Ability.FIREARMS,
    Ability.MARTIAL_ARTS,
    Ability.MEDITATION,
    Ability.MELEE,
    Ability.RESEARCH,
    Ability.STEALTH,
    Ability.SURVIVAL,
    Ability.TECHNOLOGY,
    Ability.THROWING,
    # Knowledges
    Ability.ACADEMICS,
    Ability.COMPUTER,
    Ability.COSMOLOGY,
    Ability.ENIGMAS,
    Ability.ESOTERICA,
    Ability.INVESTIGATION,
    Ability.LAW,
    Ability.MEDICINE,
    Ability.OCCULT,
    Ability.POLITICS,
    Ability.SCIENCE,
)

# The thirty Abilities of the Vampire: the Dark Ages sheet (S1's 270 = 9 × 30). S1 names twenty
# of them in its examples and glossary; the rest complete the book's sheet.
DARK_AGES_ABILITIES: tuple[Ability, ...] = (
    # Talents
    Ability.ACTING,
    Ability.ALERTNESS,
    Ability.ATHLETICS,
    Ability.BRAWL,
    Ability.DODGE,
    Ability.EMPATHY,
    Ability.INTIMIDATION,
    Ability.LARCENY,
    Ability.LEADERSHIP,
    Ability.SUBTERFUGE,
    # Skills
    Ability.ANIMAL_KEN,
    Ability.ARCHERY,
    Ability.CRAFTS,
    Ability.ETIQUETTE,
    Ability.HERBALISM,
    Ability.MELEE,
    Ability.MUSIC,
    Ability.RIDE,
    Ability.STEALTH,
    Ability.SURVIVAL,
    # Knowledges
    Ability.ACADEMICS,
    Ability.HEARTH_WISDOM,
    Ability.INVESTIGATION,
    Ability.LAW,
    Ability.LINGUISTICS,
    Ability.MEDICINE,
    Ability.OCCULT,
    Ability.POLITICS,
    Ability.SCIENCE,
    Ability.SENESCHAL,
)

SPHERES: tuple[Sphere, ...] = tuple(Sphere)

_CATALOGUE: dict[SheetSystem, tuple[TraitCode, ...]] = {
    SheetSystem.MAGE: (
        *ATTRIBUTES,
        *MAGE_ABILITIES,
        Stat.WILLPOWER,
        Stat.ARETE,
        *SPHERES,
        Stat.QUINTESSENCE,
        Stat.PARADOX,
    ),
    SheetSystem.DARK_AGES: (
        *ATTRIBUTES,
        *DARK_AGES_ABILITIES,
        Stat.WILLPOWER,
        Stat.HUMANITY,
        *Virtue,
        Stat.GENERATION,
        Stat.BLOOD,
        *Discipline,
    ),
    SheetSystem.D6: (D6Field.WEAKNESS, D6Field.LUCK, D6Field.ALACRITY),
}

_ALL_CODES: dict[str, TraitCode] = {
    c.value: c
    for kind in (Attribute, Ability, Virtue, Discipline, Sphere, Stat, D6Field)
    for c in kind
}


def catalogue(system: SheetSystem) -> tuple[TraitCode, ...]:
    """Every fixed trait a sheet of ``system`` holds, in the order a sheet lists them."""
    return _CATALOGUE[_system(system)]


def trait_code(value: object, system: SheetSystem | None = None) -> TraitCode:
    """A trait code from its enum member or stored string.

    An unknown string is ``E_UNKNOWN_KEY``; a real trait that the ``system``'s sheet does not
    have (Arete on a Dark Ages sheet) is ``E_NOT_ALLOWED``.
    """
    if not isinstance(value, str):
        raise RulesInputError(ErrorCode.TYPE, "code", f"expected str, got {type(value).__name__}")
    code = _ALL_CODES.get(value)
    if code is None:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "code", repr(value))
    if system is not None and code not in _CATALOGUE[_system(system)]:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "code", f"{code.value} on a {system} sheet")
    return code


def system_of(profile: Profile) -> SheetSystem:
    """The sheet a chat's profile uses; a copied profile keeps its name, so house variants of
    a built-in profile keep its sheet."""
    if not isinstance(profile, Profile):
        raise RulesInputError(ErrorCode.TYPE, "profile", "expected Profile")
    if profile.system is GameSystem.D6:
        return SheetSystem.D6
    return SheetSystem.DARK_AGES if profile.name == DARK_AGES.name else SheetSystem.MAGE


_DEFAULT_PROFILE = {
    SheetSystem.MAGE: HOUSE_MAGE,
    SheetSystem.DARK_AGES: DARK_AGES,
    SheetSystem.D6: D6,
}


def default_profile(system: SheetSystem) -> Profile:
    """The profile used when an operation is given none (the wheel size, the zero rule)."""
    return _DEFAULT_PROFILE[_system(system)]


def _system(value: object) -> SheetSystem:
    if isinstance(value, SheetSystem):
        return value
    if isinstance(value, str):
        try:
            return SheetSystem(value)
        except ValueError:
            raise RulesInputError(ErrorCode.UNKNOWN_KEY, "system", repr(value)) from None
    raise RulesInputError(ErrorCode.TYPE, "system", f"expected str, got {type(value).__name__}")


# ---------------------------------------------------------------------------------------------
# Ranges

STAT_MIN = 1
STAT_MAX = 10  # S0 «Арете и Сила Воли имеют максимальный уровень, равный 10»; Humanity too (S1)
SPHERE_MAX = int(SphereLevel.MASTER)
# S4 «место на треке не ограничивают максимальное кол-во Парадокса»: no rule caps it, so this
# is only a bound against typing accidents.
PARADOX_MAX = 100
BLOOD_MAX = 50  # the largest blood pool of the eldest generations; more is a typo
QUINTESSENCE_MAX = 100  # the wheel of the chat's profile is the real limit (§C.11)
POWER_NAME_MAX = 40
POWERS_MAX = 30
WOUNDS_MAX = 30
# Separators of the bot's text formats (pools "a+b", blocks "a 1, b 2", "x 5/7", "a: 1",
# "a = 1", "a — 1"), so that every sheet can be written out as text and read back.
_POWER_NAME_FORBIDDEN = frozenset(",;:/+=—–\n\r\t")


def trait_range(code: TraitCode, *, supernatural: bool = False) -> tuple[int, int]:
    """The ``(min, max)`` a rating of ``code`` may take on a sheet.

    Quintessence and Paradox are bounded by the wheel as a pair (:func:`set_wheel`); the
    numbers here are their single-value bounds. A d6 weakness of 0 means "none" (§D.1).
    """
    check_bool(supernatural, "supernatural")
    if isinstance(code, (Attribute, Ability)):
        return 0, TRAIT_MAX if supernatural else MORTAL_TRAIT_MAX
    if isinstance(code, Virtue):
        return 0, MORTAL_TRAIT_MAX
    if isinstance(code, Discipline):
        return 0, TRAIT_MAX
    if code is Stat.BLOOD:
        return 0, BLOOD_MAX
    if code is Stat.GENERATION:
        return GENERATION_MIN, GENERATION_MAX
    if isinstance(code, Sphere):
        return 0, SPHERE_MAX
    if code in (Stat.WILLPOWER, Stat.ARETE, Stat.HUMANITY):
        return STAT_MIN, STAT_MAX
    if code is Stat.QUINTESSENCE:
        return 0, QUINTESSENCE_MAX
    if code is Stat.PARADOX:
        return 0, PARADOX_MAX
    if code is D6Field.WEAKNESS:
        return 0, WEAKNESS_MAX
    if code is D6Field.ALACRITY:
        return 0, ALACRITY_MAX
    return 0, LUCK_MAX


# ---------------------------------------------------------------------------------------------
# The sheet


class _Frozen(BaseModel):
    # strict: a stored "3" or 3.0 or true is a corrupt sheet, not a rating (§0.2, check_int).
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Power(_Frozen):
    """A d6 power («сила»): a name the player chooses and its level («ступень») 1–3 (S2)."""

    name: str
    level: int


def _track(value: Any) -> HealthTrack:
    if isinstance(value, HealthTrack):
        return value
    return HealthTrack.parse(value)


# Stored as the short code health.py defines ("LBB", "…X" for dead).
Track = Annotated[
    HealthTrack,
    PlainValidator(_track),
    PlainSerializer(lambda t: t.code, return_type=str),
]


class Sheet(_Frozen):
    """One character's sheet. Build it with :func:`new_sheet` and change it with the functions
    of this module; load stored JSON with :func:`from_json` (never ``Sheet(...)`` on untrusted
    data: pydantic would raise its own error type instead of ``RulesInputError``).

    ``traits`` holds Attributes and Abilities that were set (an absent one counts as 0 in a
    pool and is reported as missing). ``willpower`` is the permanent rating (постоянная),
    ``willpower_current`` the temporary points (временная) spent and regained in play. The d6
    fields are empty on a d10 sheet and the d10 fields empty on a d6 sheet.
    """

    system: SheetSystem
    supernatural: bool = False
    traits: dict[str, int] = {}
    spheres: dict[str, int] = {}
    willpower: int | None = None
    willpower_current: int | None = None
    arete: int | None = None
    humanity: int | None = None
    blood: int | None = None
    generation: int | None = None
    quintessence: int = 0
    paradox: int = 0
    health: Track = HealthTrack()
    powers: tuple[Power, ...] = ()
    weakness: int | None = None
    # The weakness's own word on the character's sheet («Слабость: Жадность 2»), kept to
    # be shown back; the rules only ever use its number (§D.1).
    weakness_name: str | None = None
    luck: int = 0
    alacrity: int | None = None  # None: the S3 default (3 for a hero)
    wounds: tuple[Difficulty, ...] = ()
    # §D.12 tricks declared by a roll of their own and waiting on the character's next action
    # (a run-up, full defence, an aim) or hindering their attackers (an escape).
    edges: tuple[Edge, ...] = ()
    # §B.8 conditions the round tracker put on the character; they travel with the sheet so
    # every roll of the character sees them (rules.combat.situation.own_action).
    conditions: tuple[Condition, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> Sheet:
        validate(self)
        return self

    def rating(self, code: TraitCode | str) -> int | None:
        """The rating of a fixed trait, ``None`` while unset (Willpower: the permanent one)."""
        key = trait_code(code, self.system)
        if isinstance(key, RATED):
            return self.traits.get(key.value)
        if isinstance(key, Sphere):
            return self.spheres.get(key.value)
        values: dict[TraitCode, int | None] = {
            Stat.WILLPOWER: self.willpower,
            Stat.ARETE: self.arete,
            Stat.HUMANITY: self.humanity,
            Stat.BLOOD: self.blood,
            Stat.GENERATION: self.generation,
            Stat.QUINTESSENCE: self.quintessence,
            Stat.PARADOX: self.paradox,
            D6Field.WEAKNESS: self.weakness,
            D6Field.LUCK: self.luck,
            D6Field.ALACRITY: self.alacrity,
        }
        return values[key]

    def power(self, name: str) -> Power | None:
        """The power of that name, compared as the player would (case and spacing ignored)."""
        key = _power_key(name)
        return next((p for p in self.powers if _power_key(p.name) == key), None)


def new_sheet(system: SheetSystem | str) -> Sheet:
    """An empty sheet of ``system``."""
    return Sheet(system=_system(system))


def _check_sheet(sheet: object) -> Sheet:
    if not isinstance(sheet, Sheet):
        raise RulesInputError(ErrorCode.TYPE, "sheet", "expected Sheet")
    return sheet


def validate(sheet: Sheet) -> Sheet:
    """Check every invariant of a sheet; the one place that says what a valid sheet is."""
    sheet = _check_sheet(sheet)
    system = _system(sheet.system)
    check_bool(sheet.supernatural, "supernatural")
    d10 = system is not SheetSystem.D6
    for key, value in sheet.traits.items():
        code = trait_code(key, system)
        if not isinstance(code, RATED):
            raise RulesInputError(ErrorCode.STATE, f"traits.{key}", "not a rated trait")
        check_int(value, f"traits.{key}", *trait_range(code, supernatural=sheet.supernatural))
    for key, value in sheet.spheres.items():
        code = trait_code(key, system)
        if not isinstance(code, Sphere):
            raise RulesInputError(ErrorCode.STATE, f"spheres.{key}", "not a Sphere")
        check_int(value, f"spheres.{key}", 0, SPHERE_MAX)
    _check_optional_stat(sheet, Stat.WILLPOWER, sheet.willpower, "willpower")
    _check_optional_stat(sheet, Stat.ARETE, sheet.arete, "arete")
    _check_optional_stat(sheet, Stat.HUMANITY, sheet.humanity, "humanity")
    _check_optional_stat(sheet, Stat.BLOOD, sheet.blood, "blood")
    _check_optional_stat(sheet, Stat.GENERATION, sheet.generation, "generation")
    if (sheet.willpower is None) != (sheet.willpower_current is None):
        raise RulesInputError(ErrorCode.STATE, "willpower_current", "set without the rating")
    if sheet.willpower is not None:
        check_int(sheet.willpower_current, "willpower_current", 0, sheet.willpower)
    if system is SheetSystem.MAGE:
        # Whether both fit the wheel depends on the chat's wheel size (a profile switch), so
        # the operations that take a profile check that; a stored sheet only needs sane numbers.
        check_int(sheet.quintessence, "quintessence", 0, QUINTESSENCE_MAX)
        check_int(sheet.paradox, "paradox", 0, PARADOX_MAX)
    elif sheet.quintessence or sheet.paradox:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "quintessence", f"on a {system} sheet")
    if not isinstance(sheet.health, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "health", "expected HealthTrack")
    if not d10 and sheet.health != HealthTrack():
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "health", "d6 sheets track wounds")
    if not d10 and sheet.conditions:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "conditions", "a d10 combat rule")
    _check_d6(sheet, system)
    return sheet


def _check_optional_stat(sheet: Sheet, code: Stat, value: int | None, field: str) -> None:
    if value is None:
        return
    if code not in _CATALOGUE[sheet.system]:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, field, f"on a {sheet.system} sheet")
    check_int(value, field, *trait_range(code))


def _check_d6(sheet: Sheet, system: SheetSystem) -> None:
    """A d6 sheet holds only the d6 game's parts, and any other sheet none of them: the two
    kinds of sheet share one model, so nothing else keeps them apart."""
    if system is not SheetSystem.D6:
        _check_no_d6_parts(sheet, system)
        return
    if sheet.traits or sheet.spheres:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "traits", "a d6 sheet has powers")
    for stat in ("willpower", "arete", "humanity"):
        if getattr(sheet, stat) is not None:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, stat, "on a d6 sheet")
    _check_d6_powers(sheet)
    _check_d6_weakness(sheet)
    check_int(sheet.luck, "luck", 0, LUCK_MAX)
    if sheet.alacrity is not None:
        check_int(sheet.alacrity, "alacrity", 1, ALACRITY_MAX)
    _check_d6_wounds(sheet)
    check_edges(sheet.edges)


def _check_no_d6_parts(sheet: Sheet, system: SheetSystem) -> None:
    if (
        sheet.powers
        or sheet.weakness is not None
        or sheet.weakness_name is not None
        or sheet.luck
        or sheet.wounds
        or sheet.alacrity is not None
        or sheet.edges
    ):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "powers", f"on a {system} sheet")


def _check_d6_powers(sheet: Sheet) -> None:
    """At most :data:`POWERS_MAX` powers, each named in its normal form and once: a power is
    found by its name, so two that fold to the same key could never both be rolled."""
    if len(sheet.powers) > POWERS_MAX:
        raise RulesInputError(ErrorCode.RANGE, "powers", f"more than {POWERS_MAX}")
    seen: set[str] = set()
    for i, p in enumerate(sheet.powers):
        if _power_name(p.name) != p.name:
            raise RulesInputError(ErrorCode.STATE, f"powers[{i}].name", "not normalised")
        check_int(p.level, f"powers[{i}].level", 1, POWER_MAX)
        key = _power_key(p.name)
        if key in seen:
            raise RulesInputError(ErrorCode.STATE, f"powers[{i}].name", "duplicate power")
        seen.add(key)


def _check_d6_weakness(sheet: Sheet) -> None:
    if sheet.weakness is not None:
        check_int(sheet.weakness, "weakness", WEAKNESS_MIN, WEAKNESS_MAX)
    if sheet.weakness_name is not None:
        if sheet.weakness is None:
            raise RulesInputError(ErrorCode.STATE, "weakness_name", "a name without a weakness")
        if _power_name(sheet.weakness_name) != sheet.weakness_name:
            raise RulesInputError(ErrorCode.STATE, "weakness_name", "not normalised")


def _check_d6_wounds(sheet: Sheet) -> None:
    if len(sheet.wounds) > WOUNDS_MAX:
        raise RulesInputError(ErrorCode.RANGE, "wounds", f"more than {WOUNDS_MAX}")
    for i, w in enumerate(sheet.wounds):
        if not isinstance(w, Difficulty) or w.kind not in WOUND_KINDS:
            raise RulesInputError(ErrorCode.STATE, f"wounds[{i}]", "not a wound")
        wound(w.kind, w.magnitude)


def _update(sheet: Sheet, **changes: Any) -> Sheet:
    return validate(sheet.model_copy(update=changes))


# ---------------------------------------------------------------------------------------------
# Storage


def to_json(sheet: Sheet) -> str:
    """The stored form (compact JSON, the health track as its code string)."""
    return _check_sheet(sheet).model_dump_json()


def from_json(data: str | bytes) -> Sheet:
    """A stored sheet; anything that is not a valid sheet is ``RulesInputError`` (``E_STATE``
    unless a rule names a more precise code)."""
    if not isinstance(data, (str, bytes)):
        raise RulesInputError(ErrorCode.TYPE, "data", "expected JSON text")
    try:
        return Sheet.model_validate_json(data)
    except ValidationError as exc:
        raise _unwrap(exc) from None


def _unwrap(exc: ValidationError) -> RulesInputError:
    for err in exc.errors():
        inner = (err.get("ctx") or {}).get("error")
        if isinstance(inner, RulesInputError):
            return inner
    errors = exc.errors()
    if not errors:
        return RulesInputError(ErrorCode.STATE, "sheet", "invalid")
    where = ".".join(str(p) for p in errors[0]["loc"]) or "sheet"
    return RulesInputError(ErrorCode.STATE, where, errors[0]["type"])


# ---------------------------------------------------------------------------------------------
# Setting traits


def set_trait(
    sheet: Sheet, code: TraitCode | str, value: int, profile: Profile | None = None
) -> Sheet:
    """Set one fixed trait, validated by the ranges of :func:`trait_range`.

    Willpower sets the permanent rating (:func:`set_willpower` explains what happens to the
    current points); Quintessence and Paradox are checked on the wheel together with the other
    one (:func:`set_wheel`); a d6 weakness of 0 removes it.
    """
    sheet = _check_sheet(sheet)
    key = trait_code(code, sheet.system)
    check_int(value, "value")
    if isinstance(key, RATED):
        check_int(value, key.value, *trait_range(key, supernatural=sheet.supernatural))
        return _update(sheet, traits={**sheet.traits, key.value: value})
    if isinstance(key, Sphere):
        check_int(value, key.value, 0, SPHERE_MAX)
        return _update(sheet, spheres={**sheet.spheres, key.value: value})
    if key is Stat.WILLPOWER:
        return set_willpower(sheet, value)
    if key in (Stat.ARETE, Stat.HUMANITY, Stat.BLOOD, Stat.GENERATION):
        check_int(value, key.value, *trait_range(key))
        return _update(sheet, **{key.value: value})
    if key is Stat.QUINTESSENCE:
        return set_wheel(sheet, quintessence=value, profile=profile)
    if key is Stat.PARADOX:
        return set_wheel(sheet, paradox=value, profile=profile)
    if key is D6Field.WEAKNESS:
        check_int(value, key.value, 0, WEAKNESS_MAX)
        name = sheet.weakness_name if value else None
        return _update(sheet, weakness=value or None, weakness_name=name)
    if key is D6Field.ALACRITY:
        check_int(value, key.value, 0, ALACRITY_MAX)
        return _update(sheet, alacrity=value or None)
    check_int(value, key.value, 0, LUCK_MAX)
    return _update(sheet, luck=value)


def clear_trait(sheet: Sheet, code: TraitCode | str) -> Sheet:
    """Remove an Attribute, Ability or Sphere from the sheet (it counts as unset again)."""
    sheet = _check_sheet(sheet)
    key = trait_code(code, sheet.system)
    if isinstance(key, RATED):
        return _update(sheet, traits={k: v for k, v in sheet.traits.items() if k != key.value})
    if isinstance(key, Sphere):
        return _update(sheet, spheres={k: v for k, v in sheet.spheres.items() if k != key.value})
    raise RulesInputError(ErrorCode.NOT_ALLOWED, "code", f"{key.value} is set, not cleared")


def set_supernatural(sheet: Sheet, supernatural: bool) -> Sheet:
    """Allow ratings above 5 (S0 «некоторые сверхъестественные чудовища могут иметь значения
    Черт выше 5»); switching it off with such a rating on the sheet is ``E_RANGE``."""
    sheet = _check_sheet(sheet)
    return _update(sheet, supernatural=check_bool(supernatural, "supernatural"))


# ---------------------------------------------------------------------------------------------
# Willpower (§A.7)


def set_willpower(sheet: Sheet, permanent: int, current: int | None = None) -> Sheet:
    """Set the permanent rating and, optionally, the temporary points.

    Without ``current``: a first rating starts full; if the points were full they follow the
    new rating (a player correcting a typo); otherwise they stay, but never above the rating.
    """
    sheet = _check_sheet(sheet)
    if Stat.WILLPOWER not in _CATALOGUE[sheet.system]:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "willpower", f"on a {sheet.system} sheet")
    check_int(permanent, "willpower", STAT_MIN, STAT_MAX)
    if current is None:
        old, points = sheet.willpower, sheet.willpower_current
        current = permanent if old is None or points is None or points >= old else points
        current = min(current, permanent)
    check_int(current, "willpower_current", 0, permanent)
    return _update(sheet, willpower=permanent, willpower_current=current)


def spend_willpower(sheet: Sheet, points: int = 1) -> Sheet:
    """Spend temporary Willpower; without the points it is ``E_WP_UNAVAILABLE`` and the
    sheet never goes below 0. Whether the spend is allowed this turn (S0 «только один раз за
    ход») is :func:`rules.actions.spend_willpower`'s check, made by the roll before this."""
    sheet = _check_sheet(sheet)
    check_int(points, "points", 1, STAT_MAX)
    have = sheet.willpower_current or 0
    if have < points:
        raise RulesInputError(ErrorCode.WP_UNAVAILABLE, "willpower_current", f"{have} < {points}")
    return _update(sheet, willpower_current=have - points)


def regain_willpower(sheet: Sheet, points: int = 1) -> Sheet:
    """Regain temporary Willpower, never above the permanent rating."""
    sheet = _check_sheet(sheet)
    check_int(points, "points", 0, STAT_MAX)
    if sheet.willpower is None or sheet.willpower_current is None:
        raise RulesInputError(ErrorCode.STATE, "willpower", "no rating on the sheet")
    return _update(sheet, willpower_current=min(sheet.willpower, sheet.willpower_current + points))


# ---------------------------------------------------------------------------------------------
# The blood pool (S1)


def is_vampire(sheet: Sheet) -> bool:
    """A vampire is whoever has a Generation or a blood pool on a Dark Ages sheet (§B.13):
    the sheet decides, so a mortal in a vampire's chat soaks and heals as a mortal."""
    sheet = _check_sheet(sheet)
    if sheet.system is not SheetSystem.DARK_AGES:
        return False
    return sheet.generation is not None or sheet.blood is not None


def in_torpor(sheet: Sheet) -> bool:
    """§B.13 torpor [P]: a vampire brought to «Без Сознания» is not unconscious but in torpor
    (damage past it by bashing or lethal keeps them there, :func:`rules.health.apply_damage`
    with ``undead``); blood that mends a level (``/heal``) wakes them, and at 0 blood they
    lie until the Storyteller feeds them. The fight passes them over."""
    return is_vampire(sheet) and torpid(sheet.health)


def spend_blood(sheet: Sheet, points: int) -> Sheet:
    """Spend points of the blood pool; more than the sheet holds (or a sheet without a pool)
    is ``E_RANGE`` and leaves the sheet as it was."""
    sheet = _check_sheet(sheet)
    if Stat.BLOOD not in _CATALOGUE[sheet.system]:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "blood", f"on a {sheet.system} sheet")
    check_int(points, "points", 1, BLOOD_MAX)
    have = sheet.blood
    if have is None:
        raise RulesInputError(ErrorCode.STATE, "blood", "no blood pool on the sheet")
    if have < points:
        raise RulesInputError(ErrorCode.RANGE, "blood", f"{have} < {points}")
    return _update(sheet, blood=have - points)


def gain_blood(sheet: Sheet, points: int) -> Sheet:
    """Blood drunk: added to the pool, never above what the Generation holds (§B.13) or, with
    no Generation written, the sheet's range (a typo, not a feast)."""
    sheet = _check_sheet(sheet)
    if Stat.BLOOD not in _CATALOGUE[sheet.system]:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "blood", f"on a {sheet.system} sheet")
    check_int(points, "points", 1, BLOOD_MAX)
    top = BLOOD_MAX if sheet.generation is None else blood_pool_max(sheet.generation)
    now = sheet.blood or 0
    return _update(sheet, blood=max(now, min(top, now + points)))


# ---------------------------------------------------------------------------------------------
# Quintessence and Paradox (§C.11)


def _require_mage(sheet: Sheet, field: str) -> None:
    if sheet.system is not SheetSystem.MAGE:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, field, f"on a {sheet.system} sheet")


def _profile(sheet: Sheet, profile: Profile | None) -> Profile:
    if profile is None:
        return default_profile(sheet.system)
    if not isinstance(profile, Profile):
        raise RulesInputError(ErrorCode.TYPE, "profile", "expected Profile")
    return profile


def set_wheel(
    sheet: Sheet,
    *,
    quintessence: int | None = None,
    paradox: int | None = None,
    profile: Profile | None = None,
) -> Sheet:
    """Set Quintessence and/or Paradox as written on the wheel; both must fit its boxes
    (S4: they share one track, Paradox «с конца»), so a paste that sets both sets them here
    together rather than one after the other."""
    sheet = _check_sheet(sheet)
    _require_mage(sheet, "quintessence")
    q = sheet.quintessence if quintessence is None else quintessence
    p = sheet.paradox if paradox is None else check_int(paradox, "paradox", 0, PARADOX_MAX)
    w = magick.wheel(q, p, profile=_profile(sheet, profile))
    return _update(sheet, quintessence=w.quintessence, paradox=w.paradox)


def spend_quintessence(sheet: Sheet, points: int, profile: Profile | None = None) -> Sheet:
    """Spend Quintessence (§C.3); more than the sheet holds is ``E_QUINT_LIMIT``."""
    sheet = _check_sheet(sheet)
    _require_mage(sheet, "quintessence")
    w = magick.spend_quintessence(
        sheet.quintessence, sheet.paradox, points, profile=_profile(sheet, profile)
    )
    return _update(sheet, quintessence=w.quintessence)


def gain_quintessence(sheet: Sheet, points: int, profile: Profile | None = None) -> Sheet:
    """Gain Quintessence into free boxes; what finds no box is lost (the wheel's overflow)."""
    sheet = _check_sheet(sheet)
    _require_mage(sheet, "quintessence")
    change = magick.add_quintessence(
        sheet.quintessence, sheet.paradox, points, profile=_profile(sheet, profile)
    )
    return _update(sheet, quintessence=change.wheel.quintessence)


def add_paradox(sheet: Sheet, points: int, profile: Profile | None = None) -> Sheet:
    """Add Paradox; it burns the Quintessence in the boxes it needs (S4 «Парадокс сжигает
    Квинтэссенцию в квадратах, где ему нужно место на треке»)."""
    sheet = _check_sheet(sheet)
    _require_mage(sheet, "paradox")
    check_int(points, "points", 0, PARADOX_MAX - sheet.paradox)
    change = magick.add_paradox(
        sheet.quintessence, sheet.paradox, points, profile=_profile(sheet, profile)
    )
    return _update(sheet, quintessence=change.wheel.quintessence, paradox=change.wheel.paradox)


def remove_paradox(sheet: Sheet, points: int) -> Sheet:
    """Paradox discharged (a Backlash, Prime 5 «сжигание Парадокса»), never below 0."""
    sheet = _check_sheet(sheet)
    _require_mage(sheet, "paradox")
    check_int(points, "points", 0, PARADOX_MAX)
    return _update(sheet, paradox=max(0, sheet.paradox - points))


# ---------------------------------------------------------------------------------------------
# Health (§B.9)


def set_conditions(sheet: Sheet, conditions: Iterable[Condition | str]) -> Sheet:
    """The character's §B.8 conditions now (in the table's order, each once)."""
    sheet = _check_sheet(sheet)
    wanted = {
        parse_enum(Condition, c, "conditions") for c in check_sequence(conditions, "conditions")
    }
    if wanted and sheet.system is SheetSystem.D6:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "conditions", "a d10 combat rule")
    return _update(sheet, conditions=tuple(c for c in Condition if c in wanted))


def set_health(sheet: Sheet, track: HealthTrack) -> Sheet:
    """Replace the health track (the result of :mod:`rules.health`'s damage and healing)."""
    sheet = _check_sheet(sheet)
    if not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    if sheet.system is SheetSystem.D6:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "health", "d6 sheets track wounds")
    return _update(sheet, health=track)


# ---------------------------------------------------------------------------------------------
# Pools from the sheet (§A.2 with §B.9)


@dataclass(frozen=True)
class SheetPool:
    """The dice a sheet gives for up to two traits, after wounds.

    ``base`` is the §A.2 sum (traits + bonuses − penalties), ``wound_penalty`` the §B.9 row's
    (≤ 0) and ``dice`` what to roll, 0 unless ``status`` is ``ROLL``. ``missing`` lists traits
    not set on the sheet, counted as 0, so the bot can ask for them instead of just failing.
    ``reason`` says why a wounded character cannot act (Без Сознания, Мёртв, an emptied pool).
    """

    codes: tuple[TraitCode, ...]
    ratings: tuple[int, ...]
    missing: tuple[TraitCode, ...]
    base: int
    wound_penalty: int
    dice: int
    status: PoolStatus
    reason: ImpossibleReason | None = None

    @property
    def rollable(self) -> bool:
        return self.status is PoolStatus.ROLL


def _pool_trait(sheet: Sheet, code: TraitCode) -> tuple[TraitKind, int | None]:
    if isinstance(code, Attribute):
        return TraitKind.ATTRIBUTE, sheet.traits.get(code.value)
    if isinstance(code, Ability):
        return TraitKind.ABILITY, sheet.traits.get(code.value)
    if code is Stat.WILLPOWER:
        # A Willpower roll rolls the permanent rating, not the points left (S0, §A.7).
        return TraitKind.ADVANTAGE, sheet.willpower
    if code is Stat.ARETE:
        return TraitKind.ADVANTAGE, sheet.arete
    if code is Stat.HUMANITY:
        return TraitKind.ADVANTAGE, sheet.humanity
    if isinstance(code, (Virtue, Discipline)):
        # Rolled alone like Humanity, or beside an Attribute as a power says; never the
        # zero-Ability rule, which speaks of Abilities only (§A.2).
        return TraitKind.ADVANTAGE, sheet.traits.get(code.value)
    # Spheres are never rolled (magick rolls Arete, §C.5) and Quintessence is only spent. S0
    # does roll Paradox alone («за исключением Силы Воли, Арете и Парадокса, вы никогда не
    # будете использовать в броске только одну Черту»), but that roll is the Backlash of
    # rules.magick.backlash, which takes the points itself and may exceed ten dice.
    raise RulesInputError(ErrorCode.NOT_ALLOWED, "codes", f"{code.value} is not rolled")


def pool_from_traits(
    sheet: Sheet,
    codes: Sequence[TraitCode | str],
    profile: Profile | None = None,
    *,
    bonuses: Sequence[int] = (),
    penalties: Sequence[int] = (),
    gm_override: bool = False,
) -> SheetPool:
    """The pool for «Атрибут + Способность» (or one trait) from the sheet.

    :func:`rules.actions.build_pool` applies §A.2: at most two traits (``E_TOO_MANY_TRAITS``),
    the zero-Ability rule of the profile (S4 «0 в Способности - автоматически [Неудача], если
    ГМ не решит иначе» gives ``AUTO_FAILURE``), an empty pool is ``IMPOSSIBLE``. Then
    :func:`rules.health.penalised_pool` takes the wound penalty (§B.9; Arete per AMB-C5, not a
    Willpower roll per AMB-B17).
    """
    sheet = _check_sheet(sheet)
    prof = _profile(sheet, profile)
    if sheet.system is SheetSystem.D6:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "codes", "a d6 sheet rolls its chance")
    if isinstance(codes, (str, bytes)) or not isinstance(codes, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "codes", "expected a sequence of trait codes")
    if len(codes) > prof.max_traits_per_pool:
        raise RulesInputError(ErrorCode.TOO_MANY_TRAITS, "codes", f"{len(codes)} traits")
    keys = tuple(trait_code(c, sheet.system) for c in codes)
    if len(set(keys)) != len(keys):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "codes", "the same trait twice")
    traits: list[Trait] = []
    missing: list[TraitCode] = []
    for key in keys:
        kind, value = _pool_trait(sheet, key)
        if value is None:
            missing.append(key)
        traits.append(Trait(kind, value or 0))
    pool = build_pool(
        traits,
        prof,
        bonuses=bonuses,
        penalties=penalties,
        allow_supernatural=sheet.supernatural,
        gm_override=gm_override,
    )
    ratings = tuple(t.value for t in traits)

    def result(
        dice: int, status: PoolStatus, penalty: int = 0, why: ImpossibleReason | None = None
    ) -> SheetPool:
        return SheetPool(keys, ratings, tuple(missing), pool.dice, penalty, dice, status, why)

    if pool.status is not PoolStatus.ROLL:
        return result(0, pool.status, why=_empty(pool.status))
    roll_kind = PoolKind.ACTION
    if Stat.ARETE in keys:
        roll_kind = PoolKind.ARETE
    elif keys == (Stat.WILLPOWER,):
        roll_kind = PoolKind.WILLPOWER
    after = penalised_pool(sheet.health, pool.dice, prof.magick, roll_kind)
    if after.reason is not None:
        return result(0, PoolStatus.IMPOSSIBLE, after.penalty, after.reason)
    return result(after.dice, PoolStatus.ROLL, after.penalty)


def _empty(status: PoolStatus) -> ImpossibleReason | None:
    return ImpossibleReason.POOL_EMPTY if status is PoolStatus.IMPOSSIBLE else None


# ---------------------------------------------------------------------------------------------
# The d6 sheet (§D.1, §D.2)


def _power_name(name: object) -> str:
    if not isinstance(name, str):
        raise RulesInputError(ErrorCode.TYPE, "name", f"expected str, got {type(name).__name__}")
    clean = " ".join(name.split())
    if not 1 <= len(clean) <= POWER_NAME_MAX:
        raise RulesInputError(ErrorCode.RANGE, "name", f"1..{POWER_NAME_MAX} characters")
    if any(ch in _POWER_NAME_FORBIDDEN or not ch.isprintable() for ch in clean):
        raise RulesInputError(ErrorCode.RANGE, "name", "a separator or control character")
    if not any(ch.isalpha() for ch in clean):
        raise RulesInputError(ErrorCode.RANGE, "name", "no letter")
    return clean


def _power_key(name: str) -> str:
    return " ".join(name.split()).casefold().replace("ё", "е")


def _require_d6(sheet: Sheet, field: str) -> None:
    if sheet.system is not SheetSystem.D6:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, field, f"on a {sheet.system} sheet")


def set_power(sheet: Sheet, name: str, level: int) -> Sheet:
    """Add, re-rate or (level 0) remove a d6 power. S2 «Справа от названия каждой из них
    стоит цифра от 1 до 3»; names are the player's own, unique regardless of case."""
    sheet = _check_sheet(sheet)
    _require_d6(sheet, "powers")
    clean = _power_name(name)
    check_int(level, "level", 0, POWER_MAX)
    key = _power_key(clean)
    index = next((i for i, p in enumerate(sheet.powers) if _power_key(p.name) == key), None)
    powers = list(sheet.powers)
    if level == 0:
        if index is not None:
            del powers[index]
    elif index is None:
        if len(powers) >= POWERS_MAX:
            raise RulesInputError(ErrorCode.RANGE, "powers", f"more than {POWERS_MAX}")
        powers.append(Power(name=clean, level=level))
    else:
        powers[index] = Power(name=clean, level=level)
    return _update(sheet, powers=tuple(powers))


def set_weakness(sheet: Sheet, value: int, name: str | None = None) -> Sheet:
    """The weakness (S2 «от 1 до 5», 0 for none) with the word the character's sheet gives
    it, if any; the name is checked like a power's, and goes with a weakness of 0."""
    sheet = _check_sheet(sheet)
    _require_d6(sheet, "weakness")
    sheet = set_trait(sheet, D6Field.WEAKNESS, value)
    if name is None or sheet.weakness is None:
        return sheet
    return _update(sheet, weakness_name=_power_name(name))


def spend_luck(sheet: Sheet, dice: int) -> Sheet:
    """Luck dice are single-use (S2 «кубики удачи одноразовые»); more than held is
    ``E_RANGE``."""
    sheet = _check_sheet(sheet)
    _require_d6(sheet, "luck")
    check_int(dice, "dice", 0, sheet.luck)
    return _update(sheet, luck=sheet.luck - dice)


def add_wound(sheet: Sheet, kind: DifficultyKind, severity: int) -> Sheet:
    """A physical or mental wound («рана телесная / душевная») of ``severity``."""
    sheet = _check_sheet(sheet)
    _require_d6(sheet, "wounds")
    if not isinstance(kind, DifficultyKind):
        raise RulesInputError(ErrorCode.TYPE, "kind", "expected DifficultyKind")
    if len(sheet.wounds) >= WOUNDS_MAX:
        raise RulesInputError(ErrorCode.RANGE, "wounds", f"more than {WOUNDS_MAX}")
    return _update(sheet, wounds=(*sheet.wounds, wound(kind, severity)))


def heal_wound(sheet: Sheet, index: int) -> Sheet:
    """Remove the wound at ``index`` (as listed on the sheet)."""
    sheet = _check_sheet(sheet)
    _require_d6(sheet, "wounds")
    check_int(index, "index", 0, len(sheet.wounds) - 1)
    return _update(sheet, wounds=sheet.wounds[:index] + sheet.wounds[index + 1 :])


def set_edges(sheet: Sheet, edges: Sequence[Edge]) -> Sheet:
    """The tricks waiting on the character (§D.12), as :func:`rules.d6.combat.after_action`
    leaves them."""
    sheet = _check_sheet(sheet)
    _require_d6(sheet, "edges")
    return _update(sheet, edges=check_edges(edges))


def d6_chance(
    sheet: Sheet,
    powers: Iterable[str],
    *,
    weakness_applies: bool = False,
    difficulties: Sequence[Difficulty] = (),
    advantages: Sequence[int | Advantage] = (),
    luck_spent: int = 0,
    profile: Profile | None = None,
) -> Chance:
    """The chance (§D.2) of an action using the named powers of the sheet.

    The sheet's wounds always count (S2 «Если тебе мешают трудности, в том числе раны») on top
    of the situation's ``difficulties``; luck is limited by the dice the sheet holds. Spending
    them is :func:`spend_luck` after the roll.
    """
    sheet = _check_sheet(sheet)
    _require_d6(sheet, "powers")
    levels: dict[str, int] = {}
    for i, name in enumerate(check_sequence(powers, "powers")):
        power = sheet.power(_power_name(name))
        if power is None:
            raise RulesInputError(ErrorCode.UNKNOWN_KEY, f"powers[{i}]", repr(name))
        levels[_power_key(power.name)] = power.level
    if isinstance(difficulties, (str, bytes)) or not isinstance(difficulties, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "difficulties", "expected a sequence")
    return chance(
        levels,
        weakness=sheet.weakness,
        weakness_applies=weakness_applies,
        difficulties=(*sheet.wounds, *difficulties),
        advantages=advantages,
        luck_spent=luck_spent,
        luck_available=sheet.luck,
        profile=_profile(sheet, profile),
    )
