"""Trait names in Russian and English, and the reading of what players type for them.

``rules`` knows traits only as codes (:mod:`rules.sheet`); this module is the language side:
the name a sheet shows in each language, the synonyms and abbreviations players use, and the
resolver behind ``/set ловкость 3``, ``/r ловк+драка 7`` and a pasted block of a sheet.

How a name is read (:func:`resolve`): case is ignored, «ё» is «е», dots, hyphens and
underscores are spaces (``Огн. Оружие`` = ``огн оружие`` = ``огн_оружие``). An exact name,
synonym or abbreviation wins; otherwise every typed word must begin the matching word of one
name (``сил вол`` → Сила Воли) and the prefix must point to one trait only. ``сил`` could be
Сила, Сила Воли or Силы, so it is refused with those three as candidates, while ``сила`` is
exactly Strength. Prefixes shorter than two letters are not guessed.

``св`` and ``wp`` are abbreviations of Willpower here. In ``/r 7 8 св`` the roll grammar
(``table/parsing.py``) reads a standalone ``св`` as "spend Willpower" before any trait
lookup; this module only sees ``св`` where a trait name is expected (``/set св 5``, a pool
``сила_воли`` or ``св`` joined by ``+``). To roll Willpower alone in ``/r`` type ``воля``.

Pure: no aiogram. Problems are codes and exceptions carrying candidates; the localised
sentences are the handlers' job.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile
from rules.sheet import (
    Ability,
    Attribute,
    D6Field,
    Discipline,
    Sheet,
    SheetSystem,
    Stat,
    TraitCode,
    Virtue,
    catalogue,
    set_power,
    set_trait,
    set_weakness,
    set_wheel,
    set_willpower,
    trait_code,
)
from rules.spheres import SPHERE_NAMES, Sphere
from table.typos import unmix

Lang = Literal["ru", "en"]
LANGS: tuple[Lang, ...] = ("ru", "en")


@dataclass(frozen=True)
class TraitNames:
    """A trait's shown name per language and every other spelling a player may type."""

    ru: str
    en: str
    aliases: tuple[str, ...] = ()


def _n(ru: str, en: str, *aliases: str) -> TraitNames:
    return TraitNames(ru, en, aliases)


# Russian names follow the seeds where they name the trait (S4 for Mage, S1 for Dark Ages,
# docs/rules.md §G.2); the book-specific one is shown per system through _SHOWN below.
NAMES: Mapping[TraitCode, TraitNames] = {
    Attribute.STRENGTH: _n("Сила", "Strength", "str"),
    Attribute.DEXTERITY: _n("Ловкость", "Dexterity", "dex"),
    Attribute.STAMINA: _n("Выносливость", "Stamina", "sta"),
    Attribute.CHARISMA: _n("Обаяние", "Charisma", "Харизма", "cha"),
    Attribute.MANIPULATION: _n("Манипулирование", "Manipulation", "Манипуляция", "man"),
    Attribute.APPEARANCE: _n("Внешность", "Appearance", "Привлекательность", "app"),
    Attribute.PERCEPTION: _n("Восприятие", "Perception", "per"),
    Attribute.INTELLIGENCE: _n("Интеллект", "Intelligence", "int"),
    Attribute.WITS: _n("Смекалка", "Wits", "Сообразительность", "wit"),
    Ability.ACADEMICS: _n("Академические знания", "Academics", "Академия"),
    Ability.ACTING: _n("Актёрство", "Acting", "Актерство", "Performance"),
    Ability.ALERTNESS: _n("Бдительность", "Alertness", "Внимательность"),
    Ability.ANIMAL_KEN: _n("Знание животных", "Animal Ken"),
    Ability.ARCHERY: _n("Стрельба из лука", "Archery"),
    Ability.ART: _n("Искусство", "Art"),
    Ability.ATHLETICS: _n("Атлетизм", "Athletics", "Атлетика"),
    Ability.AWARENESS: _n("Осведомлённость", "Awareness"),
    Ability.BRAWL: _n("Драка", "Brawl", "Рукопашный бой", "Рукопашная"),
    Ability.COMPUTER: _n("Компьютеры", "Computer", "Компьютер", "Computers", "Информатика"),
    Ability.COSMOLOGY: _n("Космология", "Cosmology"),
    Ability.CRAFTS: _n("Ремесло", "Crafts", "Ремёсла"),
    Ability.DODGE: _n("Уклонение", "Dodge", "Уворот"),
    Ability.DRIVE: _n("Вождение", "Drive"),
    Ability.EMPATHY: _n("Эмпатия", "Empathy"),
    Ability.ENIGMAS: _n("Загадки", "Enigmas", "Энигмы", "Энигма", "Головоломки"),
    Ability.ESOTERICA: _n("Эзотерика", "Esoterica"),
    Ability.ETIQUETTE: _n("Этикет", "Etiquette"),
    Ability.EXPRESSION: _n("Экспрессия", "Expression", "Выразительность", "Самовыражение"),
    Ability.FIREARMS: _n("Огнестрельное оружие", "Firearms", "Огн. Оружие", "Стрельба"),
    Ability.HEARTH_WISDOM: _n("Народная мудрость", "Hearth Wisdom"),
    Ability.HERBALISM: _n("Травничество", "Herbalism"),
    Ability.INTIMIDATION: _n("Запугивание", "Intimidation", "Устрашение"),
    Ability.INVESTIGATION: _n("Расследование", "Investigation", "Расследования"),
    Ability.LARCENY: _n("Воровство", "Larceny"),
    Ability.LAW: _n("Правоведение", "Law", "Право", "Закон", "Юриспруденция"),
    Ability.LEADERSHIP: _n("Лидерство", "Leadership"),
    Ability.LINGUISTICS: _n("Лингвистика", "Linguistics", "Языки"),
    Ability.MARTIAL_ARTS: _n("Боевые искусства", "Martial Arts"),
    Ability.MEDICINE: _n("Медицина", "Medicine"),
    Ability.MEDITATION: _n("Медитация", "Meditation"),
    Ability.MELEE: _n("Фехтование", "Melee", "Ближний бой", "Холодное оружие"),
    Ability.MUSIC: _n("Музыка", "Music"),
    Ability.OCCULT: _n("Оккультизм", "Occult"),
    Ability.POLITICS: _n("Политика", "Politics"),
    Ability.RESEARCH: _n("Исследования", "Research", "Исследование"),
    Ability.RIDE: _n("Верховая езда", "Ride", "Riding"),
    Ability.SCIENCE: _n("Наука", "Science", "Науки"),
    Ability.SENESCHAL: _n("Сенешаль", "Seneschal", "Управление хозяйством"),
    Ability.STEALTH: _n("Скрытность", "Stealth", "Маскировка", "Незаметность"),
    Ability.STREETWISE: _n("Уличное чутьё", "Streetwise", "Знание улиц", "Уличная мудрость"),
    Ability.SUBTERFUGE: _n("Хитрость", "Subterfuge", "Обман"),
    Ability.SURVIVAL: _n("Выживание", "Survival"),
    Ability.TECHNOLOGY: _n("Техника", "Technology", "Технологии"),
    Ability.THROWING: _n("Метание", "Throwing"),
    # S4 names the Spheres «Связи … Основы» (rules.spheres); the others are the usual
    # translations players bring from other books.
    Sphere.CORRESPONDENCE: _n(
        *SPHERE_NAMES[Sphere.CORRESPONDENCE], "Связь", "Соответствие", "Соответствия"
    ),
    Sphere.ENTROPY: _n(*SPHERE_NAMES[Sphere.ENTROPY]),
    Sphere.FORCES: _n(*SPHERE_NAMES[Sphere.FORCES]),
    Sphere.LIFE: _n(*SPHERE_NAMES[Sphere.LIFE]),
    Sphere.MATTER: _n(*SPHERE_NAMES[Sphere.MATTER], "Вещество"),
    Sphere.MIND: _n(*SPHERE_NAMES[Sphere.MIND]),
    Sphere.PRIME: _n(
        *SPHERE_NAMES[Sphere.PRIME],
        "Первоосновы",
        "Первооснова",
        "Основа",
        "Первичное",
        "Первичность",
        "Первоначало",
        "Первоначала",
    ),
    Sphere.SPIRIT: _n(*SPHERE_NAMES[Sphere.SPIRIT]),
    Sphere.TIME: _n(*SPHERE_NAMES[Sphere.TIME]),
    Stat.WILLPOWER: _n("Сила Воли", "Willpower", "св", "wp", "Воля", "Will"),
    Stat.ARETE: _n("Арете", "Arete", "Арте"),  # «Арте» sic in S4
    Stat.HUMANITY: _n(
        "Человечность",
        "Humanity",
        "Путь Человечности",
        "Дорога Человечности",
        "Road of Humanity",
        "Path of Humanity",
    ),
    Stat.BLOOD: _n(
        "Запас крови", "Blood Pool", "Кровь", "Blood", "Пул крови", "Очки крови", "Blood points"
    ),
    Stat.GENERATION: _n("Поколение", "Generation", "Пок", "Gen"),
    # S1 names neither the Virtues nor the Disciplines: the words of the Russian
    # translations of Vampire, and the other ones players bring from them.
    Virtue.CONSCIENCE: _n("Совесть", "Conscience"),
    Virtue.CONVICTION: _n("Убеждённость", "Conviction", "Убеждение"),
    Virtue.SELF_CONTROL: _n("Самоконтроль", "Self-Control", "Самообладание"),
    Virtue.INSTINCTS: _n("Инстинкты", "Instincts", "Инстинкт", "Instinct"),
    Virtue.COURAGE: _n("Храбрость", "Courage", "Смелость", "Мужество"),
    Discipline.ANIMALISM: _n("Анимализм", "Animalism"),
    Discipline.AUSPEX: _n("Прорицание", "Auspex", "Ауспекс", "Ясновидение"),
    Discipline.CELERITY: _n("Стремительность", "Celerity", "Быстрота", "Скорость"),
    Discipline.CHIMERSTRY: _n("Химерия", "Chimerstry", "Химеристика", "Наваждение"),
    Discipline.DEMENTATION: _n("Помешательство", "Dementation", "Деменция", "Безумие"),
    Discipline.DOMINATE: _n("Доминирование", "Dominate", "Подчинение"),
    Discipline.FORTITUDE: _n("Стойкость", "Fortitude"),
    Discipline.MORTIS: _n("Мортис", "Mortis", "Некромантия"),
    Discipline.OBFUSCATE: _n("Затемнение", "Obfuscate", "Сокрытие"),
    Discipline.OBTENEBRATION: _n(
        "Власть над тенью", "Obtenebration", "Обтенебрация", "Власть над тьмой"
    ),
    Discipline.POTENCE: _n("Мощь", "Potence", "Могущество"),
    Discipline.PRESENCE: _n("Присутствие", "Presence", "Величие"),
    Discipline.PROTEAN: _n("Превращение", "Protean", "Протеан", "Оборотничество", "Метаморфозы"),
    Discipline.QUIETUS: _n("Квиетус", "Quietus", "Смерть"),
    Discipline.SERPENTIS: _n("Серпентис", "Serpentis"),
    Discipline.THAUMATURGY: _n("Тауматургия", "Thaumaturgy", "Магия крови"),
    Discipline.VICISSITUDE: _n("Изменчивость", "Vicissitude", "Вицисситуд"),
    Stat.QUINTESSENCE: _n("Квинтэссенция", "Quintessence", "Квинта", "Quint"),
    Stat.PARADOX: _n("Парадокс", "Paradox"),
    D6Field.WEAKNESS: _n("Слабость", "Weakness", "Слабости"),
    D6Field.LUCK: _n("Кубики удачи", "Luck dice", "Удача", "Luck", "Кубы удачи"),
    D6Field.ALACRITY: _n("Расторопность", "Alacrity"),
}

# Where the two books name one trait differently, each sheet shows its own book's word.
_SHOWN: Mapping[tuple[SheetSystem, TraitCode], str] = {
    (SheetSystem.DARK_AGES, Attribute.WITS): "Сообразительность",  # S1
    (SheetSystem.DARK_AGES, Ability.DODGE): "Уворот",  # S1
    (SheetSystem.DARK_AGES, Ability.STEALTH): "Маскировка",  # S1
}


def display_name(code: TraitCode, lang: Lang, system: SheetSystem = SheetSystem.MAGE) -> str:
    """The name a sheet of ``system`` shows for ``code`` in ``lang``."""
    names = NAMES[code]
    if lang == "en":
        return names.en
    return _SHOWN.get((system, code), names.ru)


def said_name(code: TraitCode, typed: str, lang: Lang, system: SheetSystem) -> str:
    """The name to answer with: the player's own word when they wrote one of the trait's
    names in full, in the reader's language («Могущество 2» is answered «Могущество», though
    the book says «Мощь»); the sheet's name for a prefix, an abbreviation («ловк», «св»), a
    word of the other language or a stored code (``self_control``)."""
    key = normalise(typed)
    if len(key) > 3 and key != normalise(code.value):
        for spelling in _spellings(code):
            cyrillic = bool(_CYRILLIC.search(spelling))
            if normalise(spelling) == key and cyrillic == (lang == "ru"):
                return spelling
    return display_name(code, lang, system)


_CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


def normalise(text: str) -> str:
    """The form names are compared in: casefolded, ё→е, ``._-`` as spaces, single spaces,
    each word in one script (``cила`` with a Latin «c» is «сила», ``table.typos.unmix``)."""
    folded = unmix(text).casefold().replace("ё", "е")
    return " ".join(re.sub(r"[._\-]", " ", folded).split())


# ---------------------------------------------------------------------------------------------
# Resolving one name


class NameProblem(StrEnum):
    EMPTY = "empty"
    UNKNOWN = "unknown"  # candidates: the closest spellings, maybe none
    AMBIGUOUS = "ambiguous"  # candidates: every trait the prefix fits
    NOT_ON_SHEET = "not_on_sheet"  # candidates: the one trait, which another game's sheet has


class TraitNameError(ValueError):
    """A name that is not one trait; ``candidates`` are codes to offer the player."""

    def __init__(self, problem: NameProblem, text: str, candidates: Iterable[TraitCode] = ()):
        self.problem = problem
        self.text = text
        self.candidates: tuple[TraitCode, ...] = tuple(candidates)
        listed = ", ".join(c.value for c in self.candidates)
        super().__init__(f"{problem.value}: {text!r}" + (f" ({listed})" if listed else ""))


MIN_PREFIX = 2
MAX_CANDIDATES = 6
NAME_MAX = 64  # longer text is no trait name; spares the fuzzy match a 4096-character message


@dataclass(frozen=True)
class _Index:
    exact: Mapping[str, TraitCode]
    spellings: tuple[tuple[tuple[str, ...], TraitCode], ...]  # (words of a spelling, code)
    order: Mapping[TraitCode, int]  # sheet order, for listing candidates


def _spellings(code: TraitCode) -> tuple[str, ...]:
    names = NAMES[code]
    return (names.ru, names.en, *names.aliases)


def _build_index(system: SheetSystem) -> _Index:
    codes = list(catalogue(system))
    exact: dict[str, TraitCode] = {}
    spellings: list[tuple[tuple[str, ...], TraitCode]] = []
    for code in codes:
        for spelling in _spellings(code):
            key = normalise(spelling)
            other = exact.setdefault(key, code)
            if other is not code:
                raise AssertionError(f"{key!r} names both {other} and {code} in {system}")
            spellings.append((tuple(key.split()), code))
    return _Index(exact, tuple(spellings), {c: i for i, c in enumerate(codes)})


_INDEX: dict[SheetSystem, _Index] = {s: _build_index(s) for s in SheetSystem}


def _prefix_fits(typed: list[str], words: tuple[str, ...]) -> bool:
    return len(typed) <= len(words) and all(
        w.startswith(t) for t, w in zip(typed, words, strict=False)
    )


def resolve(text: str, system: SheetSystem) -> TraitCode:
    """The trait a player means by ``text`` on a sheet of ``system``; see the module doc.

    Raises :class:`TraitNameError`: ``EMPTY``; ``AMBIGUOUS`` with every trait the prefix
    fits, in sheet order; ``NOT_ON_SHEET`` with the trait when it is another game's (Arete on
    a Dark Ages sheet); else ``UNKNOWN`` with near spellings, if any.
    """
    if not isinstance(text, str):
        raise TraitNameError(NameProblem.EMPTY, "")
    index = _INDEX[_as_system(system)]
    key = normalise(text)
    if not key:
        raise TraitNameError(NameProblem.EMPTY, text)
    if len(key) > NAME_MAX:
        raise TraitNameError(NameProblem.UNKNOWN, text)
    if key in index.exact:
        return index.exact[key]
    typed = key.split()
    found: set[TraitCode] = set()
    if len(typed[0]) >= MIN_PREFIX:
        found = {code for words, code in index.spellings if _prefix_fits(typed, words)}
    if len(found) == 1:
        return found.pop()
    if found:
        ordered = sorted(found, key=lambda c: index.order[c])
        raise TraitNameError(NameProblem.AMBIGUOUS, text, ordered)
    for other in _INDEX.values():
        if key in other.exact:
            raise TraitNameError(NameProblem.NOT_ON_SHEET, text, (other.exact[key],))
    raise TraitNameError(NameProblem.UNKNOWN, text, _near(key, index))


def _as_system(system: object) -> SheetSystem:
    try:
        return SheetSystem(str(system))
    except ValueError:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "system", repr(system)) from None


def _near(key: str, index: _Index) -> list[TraitCode]:
    codes: list[TraitCode] = []
    for spelling in close_spellings(key, index.exact):
        code = index.exact[spelling]
        if code not in codes:
            codes.append(code)
    return codes[:MAX_CANDIDATES]


CONFIDENT_MIN = 5  # a word this long with one slip in it means the one name a slip away


def corrected(text: str, system: SheetSystem) -> TraitCode | None:
    """The trait a mistyped name certainly means: one slip away (a letter wrong, missing,
    extra or two swapped) from a spelling of that trait and of no other, in a word of five
    letters at least («ловкасть» → Ловкость); None when unsure, for the player to choose."""
    index = _INDEX[_as_system(system)]
    key = normalise(text) if isinstance(text, str) else ""
    if len(key) < CONFIDENT_MIN or len(key) > NAME_MAX or key in index.exact:
        return None
    near = {index.exact[s] for s in index.exact if slips(key, s, 1) <= 1}
    return near.pop() if len(near) == 1 else None


def typos_allowed(word: str) -> int:
    """How many slips a suggestion may be away from what was typed: one in a short word, two
    in a long one. A looser measure offered «Скрытность?» for «Сущность» (four letters
    apart), which helps nobody at the table."""
    return 1 if len(word) <= 5 else 2


def slips(a: str, b: str, limit: int) -> int:
    """The letters typed wrong, missing, extra or swapped between ``a`` and ``b`` (the
    optimal string alignment distance), counted only up to ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, row = row, current
    return row[-1]


def close_spellings(key: str, spellings: Iterable[str]) -> list[str]:
    """The spellings a typo away from ``key``, nearest first (see :func:`typos_allowed`)."""
    limit = typos_allowed(key)
    scored = [(slips(key, s, limit), s) for s in spellings]
    return [s for d, s in sorted((d, s) for d, s in scored if d <= limit)][: MAX_CANDIDATES * 2]


class PowerNameError(TraitNameError):
    """Like :class:`TraitNameError` for a d6 sheet's own power names."""

    def __init__(self, problem: NameProblem, text: str, power_candidates: tuple[str, ...]):
        super().__init__(problem, text)
        self.power_candidates = power_candidates


def resolve_power(text: str, powers: Iterable[str]) -> str:
    """The d6 power of the sheet (its name as written there) that ``text`` means, by the same
    exact-then-unambiguous-prefix rule as :func:`resolve`. Candidates are power names, so the
    error's ``candidates`` stay empty and ``power_candidates`` carries them."""
    names = list(powers)
    key = normalise(text) if isinstance(text, str) else ""
    if len(key) > NAME_MAX:
        raise PowerNameError(NameProblem.UNKNOWN, text, ())
    if not key:
        raise PowerNameError(NameProblem.EMPTY, text if isinstance(text, str) else "", ())
    by_key = {normalise(n): n for n in names}
    if key in by_key:
        return by_key[key]
    typed = key.split()
    found = [n for n in names if _prefix_fits(typed, tuple(normalise(n).split()))]
    if len(typed[0]) >= MIN_PREFIX and len(found) == 1:
        return found[0]
    if len(typed[0]) >= MIN_PREFIX and found:
        raise PowerNameError(NameProblem.AMBIGUOUS, text, tuple(found))
    near = close_spellings(key, by_key)[:MAX_CANDIDATES]
    raise PowerNameError(NameProblem.UNKNOWN, text, tuple(by_key[k] for k in near))


def parse_pool_expression(
    text: str, system: SheetSystem, *, max_traits: int = 2
) -> list[TraitCode]:
    """``ловк+драка`` → ``[DEXTERITY, BRAWL]``.

    More than ``max_traits`` parts is ``E_TOO_MANY_TRAITS`` (S0 «не бывает случаев, когда
    набор кубиков собирается из более, чем двух Черт»), checked before any name so the
    player learns the real problem first; each part then goes through :func:`resolve`.
    """
    parts = (text if isinstance(text, str) else "").split("+")
    if len(parts) > max_traits:
        raise RulesInputError(ErrorCode.TOO_MANY_TRAITS, "traits", f"{len(parts)} traits")
    return [resolve(part, system) for part in parts]


def parse_power_expression(text: str, powers: Iterable[str]) -> list[str]:
    """``огонь+полёт`` → the sheet's power names; S2 sums every power involved, so there is
    no two-trait limit here."""
    names = list(powers)
    return [resolve_power(part, names) for part in (text or "").split("+")]


# ---------------------------------------------------------------------------------------------
# A pasted block of a sheet


class BlockProblem(StrEnum):
    UNKNOWN_NAME = "unknown_name"
    AMBIGUOUS_NAME = "ambiguous_name"
    NOT_ON_SHEET = "not_on_sheet"
    MISSING_VALUE = "missing_value"
    BAD_NUMBER = "bad_number"
    REJECTED = "rejected"  # the rules refused the value; ``error`` has the code


@dataclass(frozen=True)
class BlockEntry:
    """One ``name value`` of a block: a fixed trait (``code``) or a d6 power (``power``).
    ``current`` is the first number of ``Сила Воли 5/7`` (current points / permanent);
    ``name`` the trait's name as the player wrote it, so the answer can say it back in their
    word («Могущество», not the book's «Мощь»); ``note`` a d6 weakness's own name
    («Слабость: Жадность 2»)."""

    line: int
    text: str
    value: int
    code: TraitCode | None = None
    power: str | None = None
    current: int | None = None
    name: str = ""
    note: str | None = None
    # A mistyped name read as ``code``: one slip from it and from no other trait
    # (:func:`corrected`), said back at the top of the answer («Поняли «ловкасть» как…»).
    typed: str | None = None


@dataclass(frozen=True)
class BlockError:
    line: int
    text: str
    problem: BlockProblem
    candidates: tuple[TraitCode, ...] = ()
    error: ErrorCode | None = None


@dataclass(frozen=True)
class ParsedBlock:
    entries: tuple[BlockEntry, ...]
    errors: tuple[BlockError, ...]


# The number ends an item: «Сила Воли 5/7», «Драка: 2», «Ловкость — 3», «Ловкость ●●●○○».
# Searching from the end keeps the reading linear in the line's length.
_VALUE = re.compile(
    r"(?:(?P<value>[0-9]{1,6})(?:\s*/\s*(?P<max>[0-9]{1,6}))?|(?P<dots>[●•⚫]+)\s*[○◦⚪]*)\s*$"
)
_NAME_END = re.compile(r"[\s:=—–]+$")
# «·» is what the bot's own sheet view puts between traits, so a copied view reads back too;
# a d6 power's own name may hold it, so there only «,» and «;» separate.
_SEPARATORS = re.compile(r"[,;·|]")
_D6_SEPARATORS = re.compile(r"[,;]")
_DECORATION = re.compile(r"^[\W_]+|[\W_]+$")
_LETTER = re.compile(r"[^\W\d_]")

# The headings of a sheet as players paste it, in the books' words and the usual ones: a
# heading alone on its line is skipped, and one before a colon («Таланты: Бдительность 2»)
# is not part of the first trait's name. A word that is a trait of the sheet («Силы», the
# Sphere) is never a heading there.
SECTION_WORDS = frozenset(
    normalise(word)
    for word in (
        *("Атрибуты", "Физические", "Социальные", "Ментальные", "Умственные"),
        *("Способности", "Таланты", "Навыки", "Познания", "Знания", "Умения", "Сферы"),
        *("Дисциплины", "Добродетели", "Достоинства", "Преимущества", "Дополнения"),
        *("Предыстории", "Черты", "Характеристики", "Силы", "Личные силы", "Прочее"),
        *("Attributes", "Physical", "Social", "Mental", "Abilities", "Talents", "Skills"),
        *("Knowledges", "Spheres", "Disciplines", "Virtues", "Advantages", "Backgrounds"),
        *("Traits", "Powers", "Other"),
    )
)
_SEPARATOR_SPLIT = re.compile(r"\s*([:=—–])\s*")
_MISSING = BlockProblem.MISSING_VALUE
# A heading and the first item of its section on one line, whatever stands between them:
# «Физические: Сила 2», «Физические — Сила 2», «Физические... Сила 2», «Таланты - Драка 3».
_HEADING_BEFORE = re.compile(
    r"(?P<head>[^\W\d_]+(?:\s+[^\W\d_]+)?)\s*(?:[:—–]+|\s-+\s|\.{2,}|…)\s*(?P<rest>\S.*)"
)
# The number before the name: «9 поколение».
_VALUE_FIRST = re.compile(r"(?P<value>[0-9]{1,2})\s+(?P<name>[^\W\d_][^\d]*?)")

# What a section holds: under «Таланты» a name is an Ability, so a word that is a Talent
# there stays a Talent (no Virtue «Убеждённость» from «Убеждение» on the Talents line).
_SECTION_KINDS: Mapping[str, type[TraitCode]] = {
    **dict.fromkeys(
        (
            normalise(w)
            for w in (
                *("Атрибуты", "Физические", "Социальные", "Ментальные", "Умственные"),
                *("Attributes", "Physical", "Social", "Mental"),
            )
        ),
        Attribute,
    ),
    **dict.fromkeys(
        (
            normalise(w)
            for w in (
                *("Способности", "Таланты", "Навыки", "Познания", "Знания", "Умения"),
                *("Abilities", "Talents", "Skills", "Knowledges"),
            )
        ),
        Ability,
    ),
    **dict.fromkeys((normalise(w) for w in ("Сферы", "Spheres")), Sphere),
    **dict.fromkeys((normalise(w) for w in ("Дисциплины", "Disciplines")), Discipline),
    **dict.fromkeys((normalise(w) for w in ("Добродетели", "Virtues")), Virtue),
}


_SECTIONED = (Attribute, Ability, Sphere, Discipline, Virtue)


def parse_block(text: str, system: SheetSystem) -> ParsedBlock:
    """Read a pasted block: one or more ``name value`` per line, separated by commas or
    semicolons. Blank lines are skipped. On a d6 sheet every name that is not one of the
    fixed fields (weakness, luck dice, written in full) is a power of that name. A heading
    («Таланты», alone or before the first item) holds the names after it to its kind of
    trait until the next heading."""
    system = _as_system(system)
    entries: list[BlockEntry] = []
    errors: list[BlockError] = []
    section: type[TraitCode] | None = None
    for number, line in enumerate((text if isinstance(text, str) else "").splitlines(), 1):
        separators = _D6_SEPARATORS if system is SheetSystem.D6 else _SEPARATORS
        for raw in separators.split(line):
            item = raw.strip()
            if not item:
                continue
            if _is_heading(item, system):
                section = _SECTION_KINDS.get(normalise(_DECORATION.sub("", item)))
                continue
            item, heading = _after_heading(item, system)
            if heading is not None:
                section = _SECTION_KINDS.get(heading)
            result = _parse_labelled(number, item, system, section)
            if isinstance(result, BlockEntry):
                entries.append(result)
            else:
                errors.append(result)
    return ParsedBlock(tuple(entries), tuple(errors))


def _is_heading(item: str, system: SheetSystem) -> bool:
    """«Таланты:», «**Атрибуты**», «— Сферы —»: a section's heading without a value."""
    key = normalise(_DECORATION.sub("", item))
    return key in SECTION_WORDS and key not in _INDEX[system].exact


def _after_heading(item: str, system: SheetSystem) -> tuple[str, str | None]:
    """The item without the heading it starts with, and that heading (normalised)."""
    found = _HEADING_BEFORE.fullmatch(_DECORATION.sub("", item) if item[:1] in "*_" else item)
    if found is None:
        return item, None
    head = normalise(found["head"])
    if head not in SECTION_WORDS or head in _INDEX[system].exact:
        return item, None
    return found["rest"], head


def _parse_labelled(
    line: int, item: str, system: SheetSystem, section: type[TraitCode] | None = None
) -> BlockEntry | BlockError:
    """An item, or a label and the first item after it on one line: the words before the
    colon are a label when the words after it are a name and a value of their own. On a d6
    sheet «Слабость: Жадность 2» is the weakness with its own name."""
    label, colon, rest = item.partition(":")
    rest = rest.strip()
    match = _VALUE.search(rest) if colon else None
    if match is None or not _LETTER.search(rest[: match.start()]):
        return _parse_item(line, item, system, section)
    if system is SheetSystem.D6 and _INDEX[system].exact.get(normalise(label)) is (
        D6Field.WEAKNESS
    ):
        note = _NAME_END.sub("", rest[: match.start()]).strip()
        value, current = _value(match)
        return BlockEntry(line, item, value, D6Field.WEAKNESS, None, current, label, note)
    return _parse_item(line, rest, system, section)


def _value(match: re.Match[str]) -> tuple[int, int | None]:
    """The rating and the current points (``5/7``) of an item's value."""
    if match["dots"]:
        return len(match["dots"]), None
    if match["max"] is not None:
        return int(match["max"]), int(match["value"])
    return int(match["value"]), None


def _parse_item(
    line: int, item: str, system: SheetSystem, section: type[TraitCode] | None = None
) -> BlockEntry | BlockError:
    match = _VALUE.search(item)
    head = item[: match.start()] if match is not None else item
    first = _VALUE_FIRST.fullmatch(item)
    if match is not None and _HYPHENED.search(head):
        head = head[:-1]  # «Сила-2»: a hyphen between the name and its number
    elif (match is None or not head) and first is not None:
        return _entry(line, item, system, section, first["name"], (int(first["value"]), None))
    # The number must stand apart from what precedes it: «Ловкость 3», «Ловкость:3» or
    # «Ловкость3», never «Ловкость -3» or «Ловкость 3.5» (read as bad numbers, not as 3 or 5).
    if match is None or not head or not (head[-1].isalpha() or _NAME_END.search(head)):
        return _unreadable(line, item, system)
    name = _NAME_END.sub("", head)
    if not name:
        return BlockError(line, item, BlockProblem.UNKNOWN_NAME)
    return _entry(line, item, system, section, name, _value(match))


_HYPHENED = re.compile(r"[^\W\d_]-$")


def _entry(
    line: int,
    item: str,
    system: SheetSystem,
    section: type[TraitCode] | None,
    name: str,
    rating: tuple[int, int | None],
) -> BlockEntry | BlockError:
    value, current = rating
    if system is SheetSystem.D6:
        fixed = _INDEX[system].exact.get(normalise(name))
        if fixed is None:
            return _d6_weakness(line, item, name, value, current) or BlockEntry(
                line, item, value, power=" ".join(name.split()), current=current
            )
        return BlockEntry(line, item, value, code=fixed, current=current, name=name)
    try:
        code = resolve(name, system) if section is None else _resolve_in(name, system, section)
    except TraitNameError as exc:
        fixed = corrected(name, system)
        if fixed is None or (section is not None and not isinstance(fixed, section)):
            return _name_error(line, item, exc)
        return BlockEntry(line, item, value, code=fixed, current=current, typed=name)
    return BlockEntry(line, item, value, code=code, current=current, name=name)


def _resolve_in(text: str, system: SheetSystem, section: type[TraitCode]) -> TraitCode:
    """:func:`resolve` among the traits of one section: a name of another kind (the Virtue
    «Убеждение» on the Talents line) is refused with the section's near spellings."""
    index = _INDEX[_as_system(system)]
    kept = {k: c for k, c in index.exact.items() if isinstance(c, section)}
    key = normalise(text)
    if key in kept:
        return kept[key]
    try:
        code = resolve(text, system)
    except TraitNameError as exc:
        inside = [c for c in exc.candidates if isinstance(c, section)]
        if exc.problem is NameProblem.AMBIGUOUS and len(inside) == 1:
            return inside[0]
        raise
    if isinstance(code, section) or not isinstance(code, _SECTIONED):
        return code  # Willpower, Humanity, blood: under any heading a sheet gives them
    near: list[TraitCode] = []
    for spelling in close_spellings(key, kept):
        if kept[spelling] not in near:
            near.append(kept[spelling])
    raise TraitNameError(NameProblem.UNKNOWN, text, near[:MAX_CANDIDATES])


def _d6_weakness(
    line: int, item: str, name: str, value: int, current: int | None
) -> BlockEntry | None:
    """«Слабость Жадность 2» without the colon: the weakness named after its word."""
    words = name.split()
    for cut in range(len(words) - 1, 0, -1):
        head = " ".join(words[:cut])
        if _INDEX[SheetSystem.D6].exact.get(normalise(head)) is D6Field.WEAKNESS:
            note = " ".join(words[cut:])
            return BlockEntry(line, item, value, D6Field.WEAKNESS, None, current, head, note)
    return None


def _unreadable(line: int, item: str, system: SheetSystem) -> BlockError:
    """An item without a clean number at its end: name the trait problem first when the name
    is wrong too, else say whether the number is missing or malformed."""
    parts = _SEPARATOR_SPLIT.split(item, maxsplit=1)
    if len(parts) == 3:
        name, rest = parts[0], parts[2].strip()
        if system is not SheetSystem.D6:
            try:
                resolve(name, system)
            except TraitNameError as exc:
                return _name_error(line, item, exc)
        return BlockError(line, item, BlockProblem.BAD_NUMBER if rest else _MISSING)
    if system is SheetSystem.D6:
        has_digit = any(ch.isdigit() for ch in item)
        return BlockError(line, item, BlockProblem.BAD_NUMBER if has_digit else _MISSING)
    words = item.split()
    try:
        resolve(item, system)
    except TraitNameError as whole:
        if len(words) == 1:
            return _name_error(line, item, whole)
        try:
            resolve(" ".join(words[:-1]), system)
        except TraitNameError as shorter:
            return _name_error(line, item, shorter)
        return BlockError(line, item, BlockProblem.BAD_NUMBER)
    return BlockError(line, item, _MISSING)


def _name_error(line: int, item: str, exc: TraitNameError) -> BlockError:
    problem = {
        NameProblem.AMBIGUOUS: BlockProblem.AMBIGUOUS_NAME,
        NameProblem.NOT_ON_SHEET: BlockProblem.NOT_ON_SHEET,
    }.get(exc.problem, BlockProblem.UNKNOWN_NAME)
    return BlockError(line, item, problem, exc.candidates)


@dataclass(frozen=True)
class BlockResult:
    """The sheet with every readable, allowed entry applied, and what was refused. A handler
    that wants all-or-nothing saves ``sheet`` only when ``errors`` is empty."""

    sheet: Sheet
    applied: tuple[BlockEntry, ...]
    errors: tuple[BlockError, ...]


def apply_block(sheet: Sheet, text: str, profile: Profile | None = None) -> BlockResult:
    """Parse ``text`` for ``sheet``'s system and set each entry through :mod:`rules.sheet`.

    Quintessence and Paradox share the wheel, so they are set together after the rest; a
    refusal by the rules becomes a ``REJECTED`` error carrying the rules' code.
    """
    parsed = parse_block(text, sheet.system)
    errors = list(parsed.errors)
    applied: list[BlockEntry] = []
    wheel: dict[Stat, BlockEntry] = {}
    for entry in parsed.entries:
        if entry.code in (Stat.QUINTESSENCE, Stat.PARADOX):
            wheel[Stat(entry.code)] = entry
            continue
        try:
            sheet = _apply_entry(sheet, entry, profile)
        except RulesInputError as exc:
            named = (entry.code,) if entry.code is not None else ()
            errors.append(
                BlockError(entry.line, entry.text, BlockProblem.REJECTED, named, error=exc.code)
            )
        else:
            applied.append(entry)
    if wheel:
        q, p = wheel.get(Stat.QUINTESSENCE), wheel.get(Stat.PARADOX)
        try:
            for entry in wheel.values():
                if entry.current is not None:
                    raise RulesInputError(ErrorCode.RANGE, "value", "a single number")
            sheet = set_wheel(
                sheet,
                quintessence=None if q is None else q.value,
                paradox=None if p is None else p.value,
                profile=profile,
            )
        except RulesInputError as exc:
            errors.extend(
                BlockError(e.line, e.text, BlockProblem.REJECTED, error=exc.code)
                for e in wheel.values()
            )
        else:
            applied.extend(wheel.values())
    errors.sort(key=lambda e: e.line)
    return BlockResult(sheet, tuple(applied), tuple(errors))


def _apply_entry(sheet: Sheet, entry: BlockEntry, profile: Profile | None) -> Sheet:
    if entry.power is not None:
        _single(entry)
        return set_power(sheet, entry.power, entry.value)
    code = trait_code(entry.code, sheet.system)
    if code is D6Field.WEAKNESS:
        _single(entry)
        return set_weakness(sheet, entry.value, entry.note)
    if code is Stat.WILLPOWER:
        return set_willpower(sheet, entry.value, entry.current)
    _single(entry)
    return set_trait(sheet, code, entry.value, profile)


def _single(entry: BlockEntry) -> None:
    if entry.current is not None:
        raise RulesInputError(ErrorCode.RANGE, "value", "only Willpower takes current/permanent")


def export_sheet(sheet: Sheet, lang: Lang) -> str:
    """The sheet as the block :func:`apply_block` reads back, one trait per line in sheet
    order: ``Ловкость 3``, ``Сила Воли 5/7`` (current/permanent, or one number when full).

    Only what a player types is written: the health track and d6 wounds come from play, and
    the Storyteller's ``supernatural`` flag stays on the sheet the block is applied to.
    """
    lines: list[str] = []
    for code in catalogue(sheet.system):
        value = sheet.rating(code)
        if isinstance(code, D6Field):
            continue
        if value is None or (code in (Stat.QUINTESSENCE, Stat.PARADOX) and value == 0):
            continue
        name = display_name(code, lang, sheet.system)
        if code is Stat.WILLPOWER and sheet.willpower_current != value:
            lines.append(f"{name} {sheet.willpower_current}/{value}")
        else:
            lines.append(f"{name} {value}")
    if sheet.system is SheetSystem.D6:
        lines.extend(f"{p.name} {p.level}" for p in sheet.powers)
        if sheet.weakness is not None:
            name = display_name(D6Field.WEAKNESS, lang, sheet.system)
            if sheet.weakness_name is not None:
                name += f": {sheet.weakness_name}"
            lines.append(f"{name} {sheet.weakness}")
        if sheet.luck:
            lines.append(f"{display_name(D6Field.LUCK, lang, sheet.system)} {sheet.luck}")
        if sheet.alacrity is not None:
            name = display_name(D6Field.ALACRITY, lang, sheet.system)
            lines.append(f"{name} {sheet.alacrity}")
    return "\n".join(lines)
