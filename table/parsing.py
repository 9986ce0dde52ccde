"""Reading the words players type after a command (docs/product.md §2 "Simple roll").

At the table nobody reads a manual, so the grammar is small and forgiving about case and
order: the first number is the pool (запас кубиков), the second the difficulty (сложность),
``wp``/``св`` spends Willpower (Сила Воли, §A.7), and the threshold (пороговое значение, §A.8)
is ``t2``, ``пор2`` or ``+2``. This module only reads the syntax; the ranges belong to the
rules and the chat's profile, which the handler checks through ``rules`` so that a profile
with a 4–10 difficulty range (S4) refuses a 3 in the same words as the rules do.

Every command reads its line the same way: :func:`tokenize` splits it into words once, and a
word is looked up in the command's :class:`Grammar`, a table of keyword → what it sets
(:class:`Keyword`: a flag, or a field that takes the number after it). The spellings live in
``table.vocabulary``, so a new keyword is a row of a table; what no table knows is a number or a
name, which each command's parser places by its own order.

Pure: no aiogram, no words shown to anyone (problems are enum codes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from rules.d6.chance import DifficultyKind
from rules.d6.combat import Manoeuvre, Trick
from rules.health import DamageType
from table import typos, vocabulary

# A number is at most a few ASCII digits: Python's int() would accept "٧" or a 4000-digit
# string, and neither is something a player meant as a pool.
_NUMBER = re.compile(r"[0-9]{1,6}", re.ASCII)
# The threshold keeps an explicit word (``пор2``, ``t2``, ``thr2``): a bare «+2» adds dice.
_THRESHOLD = re.compile(r"(?:thr|t|пор)(-?[0-9]{1,6})", re.ASCII | re.IGNORECASE)
_THRESHOLD_LIKE = re.compile(r"(?:thr|t|пор)[-=]?[0-9-]", re.ASCII | re.IGNORECASE)
# Dice added to or taken from a pool (§A.2 bonuses and penalties): «+2», «-1», «+1к», «+1d».
_DICE = re.compile(r"([+\-−][0-9]{1,2})(?:к|d|k)?", re.IGNORECASE)
DICE_MODIFIER_MAX = 10
# A keyword with its number glued on, as the table rolls split it: «до5» → «до», «5».
_KEYWORD_NUMBER = re.compile(r"([^\W\d_]+)([0-9]{1,6})")


class Problem(StrEnum):
    """Why a line could not be read; the bot turns each into one localised hint."""

    POOL_MISSING = "pool_missing"
    NOT_A_NUMBER = "not_a_number"
    THRESHOLD_SYNTAX = "threshold_syntax"
    TOO_MANY_NUMBERS = "too_many_numbers"
    REPEATED = "repeated"


class ArgumentsError(ValueError):
    """A line that is not a roll; ``token`` is what the player typed wrong (may be empty)."""

    def __init__(self, problem: Problem, token: str = "") -> None:
        self.problem = problem
        self.token = token
        super().__init__(f"{problem.value}: {token!r}")


# --- The tokenizer and the keyword tables -----------------------------------------------------


def tokenize(
    text: str | None, *, traits: bool = False, glued: bool = False, minus: bool = False
) -> list[str]:
    """The words of a typed line, split the one way every command splits it.

    ``traits`` holds a pool by trait names together as one word (:func:`join_trait_expressions`:
    «ловкость + драка» → «ловкость+драка»); ``glued`` splits a keyword from the number glued
    to it («до5» → «до», «5»: the table rolls); ``minus`` reads the typographic «−» as «-»
    (the d6 line, where a difficulty is typed «−1»). A word typed with letters of both
    scripts is read in one (``cв`` with a Latin «c» is «св», ``table.typos.unmix``)."""
    line = typos.unmix((text or "").replace("−", "-") if minus else text or "")
    words = (join_trait_expressions(line) if traits else line).split()
    if not glued:
        return words
    out: list[str] = []
    for word in words:
        match = _KEYWORD_NUMBER.fullmatch(word)
        out.extend(match.groups() if match is not None else (word,))
    return out


class Repeat(Enum):
    """What a keyword typed a second time in one line does."""

    REFUSE = "refuse"  # the line is refused (Problem.REPEATED), naming the word
    AGAIN = "again"  # it sets its field again: the last one typed wins
    IGNORE = "ignore"  # it is no keyword the second time: the line reads it as any other word


@dataclass(frozen=True)
class Keyword:
    """One row of a command's table: the field a word sets, and how.

    A flag sets ``key`` to ``value``. A keyword with a ``number`` (the pattern its value must
    match as the next word) sets ``key`` to that number, or to the number glued on where the
    command's :class:`Grammar` allows it («удача1»); with no number there it sets ``alone``,
    and refuses the line when ``alone`` is None."""

    key: str
    value: object = True
    number: re.Pattern[str] | None = None
    alone: int | None = None
    repeat: Repeat = Repeat.REFUSE


def keyword_table(*rows: tuple[Iterable[str], Keyword]) -> Mapping[str, Keyword]:
    """Every spelling of each row's words → its keyword; one spelling may mean one thing."""
    table: dict[str, Keyword] = {}
    for spellings, keyword in rows:
        for word in spellings:
            if word in table:
                raise ValueError(f"{word!r} is two keywords")
            table[word] = keyword
    return table


@dataclass(frozen=True)
class Grammar:
    """A command's keywords and how its lines spell them: ``strip`` is the punctuation a
    keyword may trail («вульг,»); ``stem`` finds the keyword in a word with its number glued on
    and ``glued`` that number (group 1), read from the word as typed when ``glued_as_typed``;
    ``missing`` is the problem of a keyword whose number is not there."""

    table: Mapping[str, Keyword]
    strip: str = ""
    stem: re.Pattern[str] | None = None
    glued: re.Pattern[str] | None = None
    glued_as_typed: bool = False
    missing: Problem = Problem.POOL_MISSING

    def words(self) -> frozenset[str]:
        return frozenset(self.table)

    def _find(self, key: str) -> Keyword | None:
        keyword = self.table.get(key)
        if keyword is not None or self.stem is None:
            return keyword
        stem = self.stem.fullmatch(key)
        keyword = self.table.get(stem.group(1)) if stem is not None else None
        return keyword if keyword is not None and keyword.number is not None else None

    def read(self, words: list[str], i: int, found: dict[str, Any]) -> int | None:
        """Apply ``words[i]`` to ``found`` if it is one of the keywords: the index of the last
        word it used (its number's, when that is the next word); None when it is no keyword
        here, for the command to read it as a number or a name."""
        word = words[i]
        key = word.casefold().rstrip(self.strip) if self.strip else word.casefold()
        keyword = self._find(key)
        if keyword is None:
            return None
        if keyword.key in found and keyword.repeat is not Repeat.AGAIN:
            if keyword.repeat is Repeat.IGNORE:
                return None
            raise ArgumentsError(Problem.REPEATED, word)
        if keyword.number is None:
            found[keyword.key] = keyword.value
            return i
        glued = None
        if self.glued is not None:
            glued = self.glued.fullmatch(word.casefold() if self.glued_as_typed else key)
        if glued is not None:
            found[keyword.key] = int(glued.group(1))
            return i
        if i + 1 < len(words) and keyword.number.fullmatch(words[i + 1]):
            found[keyword.key] = int(words[i + 1])
            return i + 1
        if keyword.alone is None:
            raise ArgumentsError(self.missing, word)
        found[keyword.key] = keyword.alone
        return i


# /r: «св» spends Willpower once per roll; «сложность 7» names the difficulty.
ROLL = Grammar(
    keyword_table(
        (vocabulary.ROLL_WILLPOWER, Keyword("willpower")),
        (vocabulary.DIFFICULTY, Keyword("difficulty", number=_NUMBER)),
    ),
    missing=Problem.NOT_A_NUMBER,
)
# /vs 6 7 до 5 нпс: a race to five successes against a non-player.
OPPOSED = Grammar(
    keyword_table(
        (vocabulary.RACE, Keyword("race_to", number=_NUMBER)),
        (vocabulary.NPC, Keyword("npc")),
    ),
    missing=Problem.NOT_A_NUMBER,
)
# /team 7 цель 5: the team's target.
TEAM = Grammar(
    keyword_table((vocabulary.TARGET, Keyword("target", number=_NUMBER))),
    missing=Problem.NOT_A_NUMBER,
)


class RollArguments(BaseModel):
    """What was typed; ``difficulty`` None means the profile's default (S1 «…равна 6»).

    ``traits`` is a pool named by the character sheet's traits (``ловк+драка``), resolved by
    the bot against the player's sheet; then ``pool`` is 0 and the only number typed is the
    difficulty.
    """

    model_config = ConfigDict(frozen=True)

    pool: int
    difficulty: int | None = None
    willpower: bool = False
    threshold: int = 0
    traits: str | None = None
    dice: int = 0  # dice added (or, negative, taken) on top of the pool: «ловк+драка-1»

    def with_dice_in_pool(self) -> RollArguments:
        """A typed pool with its «+2» added in, for the rolls that show no source."""
        return self.model_copy(update={"pool": self.pool + self.dice, "dice": 0})


# A pool by trait names: letters, with «+» between the traits and «.»/«-» inside a name
# (``темн.иск``); no digits, so «t2», «+2» and «7» keep their meaning.
_TRAIT_EXPRESSION = re.compile(
    r"[^\W\d_][^\W\d]*(?:[.\-][^\W\d_]+)*(?:\+[^\W\d_][^\W\d]*(?:[.\-][^\W\d_]+)*)*"
)
# «ловкость + драка» is one pool: spaces around a «+» between two letters are dropped.
_PLUS_BETWEEN_NAMES = re.compile(r"(?<=[^\W\d_])\s*\+\s*(?=[^\W\d_])")


# Keywords that follow a pool and are not part of a trait's name.
_KEYWORDS = ROLL.words() | OPPOSED.words() | TEAM.words()


def join_trait_expressions(text: str | None) -> str:
    """One token per pool: «ловкость + драка» → «ловкость+драка», and a name of several
    words as the sheet prints it («сила воли») held together with «_», which the trait
    names read as a space (``table.traits.normalise``); keywords stay apart."""
    joined = _PLUS_BETWEEN_NAMES.sub("+", text or "")
    words = joined.split()
    out: list[str] = []
    for word in words:
        if (
            out
            and (_TRAIT_EXPRESSION.fullmatch(word) or _GLUED_DICE.fullmatch(word))
            and _LETTERS_END.search(out[-1])
            and word.split("+", 1)[0].casefold() not in _KEYWORDS
            and out[-1].rsplit("+", 1)[-1].casefold() not in _KEYWORDS
        ):
            out[-1] += "_" + word
        else:
            out.append(word)
    return " ".join(out)


_LETTERS_END = re.compile(r"(?:^|\+)[^\W\d_][^\W\d]*$")


@dataclass
class _RollLine:
    """What a ``/r`` line has said so far, as its words are read in order."""

    allow_traits: bool
    numbers: list[int]
    found: dict[str, Any]
    traits: str | None = None
    dice: int = 0

    def pool_named(self) -> bool:
        return bool(self.numbers) or self.traits is not None

    def names_may_come(self) -> bool:
        """A pool by names may still be typed: none yet, and at most the difficulty before."""
        return self.allow_traits and self.traits is None and len(self.numbers) <= 1


def parse_roll_arguments(text: str | None, *, allow_traits: bool = False) -> RollArguments:
    """Read ``7 8 wp t1`` (any order after the numbers' own order); raise ArgumentsError.

    With ``allow_traits`` a word names the pool by the sheet's traits (``ловк+драка 7``);
    commands that cannot read a sheet keep calling a word «not a number»."""
    line = _RollLine(allow_traits, [], {})
    words = tokenize(text, traits=allow_traits)
    i = 0
    while i < len(words):
        used = ROLL.read(words, i, line.found)
        if used is None:
            _read_roll_word(line, words[i])
            used = i
        i = used + 1
    _place_difficulty(line)
    threshold = line.found.get("threshold", 0)
    willpower = line.found.get("willpower", False)
    if line.traits is not None:
        return RollArguments(
            pool=0,
            difficulty=line.numbers[0] if line.numbers else None,
            willpower=willpower,
            threshold=threshold,
            traits=line.traits,
            dice=line.dice,
        )
    if not line.numbers:
        raise ArgumentsError(Problem.POOL_MISSING)
    return RollArguments(
        pool=line.numbers[0],
        difficulty=line.numbers[1] if len(line.numbers) > 1 else None,
        willpower=willpower,
        threshold=threshold,
        dice=line.dice,
    )


def _place_difficulty(line: _RollLine) -> None:
    """«сложность 7» is the number the order would have made the difficulty."""
    difficulty = line.found.pop("difficulty", None)
    if difficulty is None:
        return
    if len(line.numbers) == (0 if line.traits is not None else 1):
        line.numbers.append(difficulty)
    elif not line.numbers:
        raise ArgumentsError(Problem.POOL_MISSING)
    else:
        raise ArgumentsError(Problem.TOO_MANY_NUMBERS, str(difficulty))


def _read_roll_word(line: _RollLine, token: str) -> None:
    if line.names_may_come():
        glued = _GLUED_DICE.fullmatch(token)
        if glued is not None:  # «ловк+драка-1»: the names, then the dice they gain or lose
            token = glued.group(1)
            line.dice += _signed(glued.group(2))
        named = _GLUED_NUMBER.fullmatch(token)
        if named is not None and not _THRESHOLD.fullmatch(token.casefold()):
            # «ловкость+фехтование7»: the names, then the number typed without a space
            _read_roll_word(line, named.group(1))
            _read_roll_word(line, named.group(2))
            return
    word = token.casefold()
    if line.pool_named() and (modifier := _DICE.fullmatch(word)) is not None:
        # only after a pool: «/r -1 6» is a pool of −1, out of range, not six dice less one
        line.dice += _signed(modifier.group(1))
        if abs(line.dice) > DICE_MODIFIER_MAX:
            raise ArgumentsError(Problem.NOT_A_NUMBER, token)
    elif _NUMBER.fullmatch(word):
        if len(line.numbers) == (1 if line.traits is not None else 2):
            raise ArgumentsError(Problem.TOO_MANY_NUMBERS, token)
        line.numbers.append(int(word))
    elif (match := _THRESHOLD.fullmatch(word)) is not None:
        if "threshold" in line.found:
            raise ArgumentsError(Problem.REPEATED, token)
        if int(match.group(1)) < 0:
            raise ArgumentsError(Problem.THRESHOLD_SYNTAX, token)
        line.found["threshold"] = int(match.group(1))
    elif _THRESHOLD_LIKE.match(word):
        raise ArgumentsError(Problem.THRESHOLD_SYNTAX, token)
    elif line.names_may_come() and _TRAIT_EXPRESSION.fullmatch(token):
        # «/r ловк+драка 7»: a number already typed before the names is the difficulty.
        line.traits = token
    else:
        raise ArgumentsError(Problem.NOT_A_NUMBER, token)


def _signed(text: str) -> int:
    return int(text.replace("−", "-"))


_GLUED_NUMBER = re.compile(  # a name of three letters at least: «x1», «ab1» are no names
    r"([^\W\d_]{3}[^\W\d]*(?:[.\-][^\W\d_]+)*(?:\+[^\W\d_][^\W\d]*(?:[.\-][^\W\d_]+)*)*)"
    r"([0-9]{1,2})"
)
_GLUED_DICE = re.compile(
    r"([^\W\d_][^\W\d]*(?:[.\-][^\W\d_]+)*(?:\+[^\W\d_][^\W\d]*(?:[.\-][^\W\d_]+)*)*)"
    r"([+\-−][0-9]{1,2})"
)


# --- Table rolls: /ext, /vs, /team, /multi ---------------------------
# The same forgiving shape as /r: numbers in a fixed order, a few keywords in any order. A
# keyword that takes a number accepts it glued («до5») or as the next word («до 5»).

_ACTION = re.compile(r"([0-9]{1,6})/([0-9]{1,6})", re.ASCII)


class ExtendedArguments(BaseModel):
    """``/ext 7 6 10 [5]``: pool, difficulty, target successes and an optional roll limit."""

    model_config = ConfigDict(frozen=True)

    pool: int
    difficulty: int
    target: int
    max_rolls: int | None = None
    traits: str | None = None  # the pool by the sheet's traits (then ``pool`` is 0)
    dice: int = 0  # dice added or taken on top of the pool


class OpposedArguments(BaseModel):
    """``/vs 6 7 [до 5] [нпс] [@name]``: the challenger's pool and difficulty; ``race_to`` makes
    it an extended opposed roll; ``npc`` marks the Storyteller's side as a non-player."""

    model_config = ConfigDict(frozen=True)

    pool: int
    difficulty: int | None = None
    race_to: int | None = None
    npc: bool = False
    mention: str | None = None
    traits: str | None = None
    dice: int = 0


class TeamArguments(BaseModel):
    """``/team 7 [6] [цель 5]``: the leader's pool and difficulty and the team's target."""

    model_config = ConfigDict(frozen=True)

    pool: int
    difficulty: int | None = None
    target: int | None = None
    traits: str | None = None
    dice: int = 0


class MultiArguments(BaseModel):
    """``/multi 6 7 7`` or ``/multi 6/7 7/8``: each declared action's pool, optionally with
    its own difficulty, in the declared order (for a split pool: the pool, then the parts).
    ``dice`` are the dice each action gains or loses («ловк+драка-1», «6 +1»); ``repeated``
    says the line was one sheet pool followed by difficulties (``ловк+драка 6 7``), read as
    that pool once per difficulty."""

    model_config = ConfigDict(frozen=True)

    actions: tuple[tuple[int, int | None], ...]
    traits: tuple[str | None, ...] = ()  # per action: its pool by the sheet's traits
    dice: tuple[int, ...] = ()
    repeated: bool = False

    def as_repeated(self) -> MultiArguments:
        """The ``repeated`` reading: the first (sheet) pool once per number after it, each
        number its difficulty."""
        difficulties = [pool for pool, _d in self.actions[1:]]
        return MultiArguments(
            actions=tuple((0, d) for d in difficulties),
            traits=(self.traits[0],) * len(difficulties),
            dice=(self.dice[0],) * len(difficulties),
        )


def _words(text: str | None) -> list[str]:
    """A table roll's words: pools by names held together, glued keyword-numbers split."""
    return tokenize(text, traits=True, glued=True)


def _pool_traits(words: list[str]) -> tuple[str | None, list[str]]:
    """A first word naming the pool by traits (``ловк+драка``, or with its dice glued on:
    ``ловк+драка-1``) takes the pool's place."""
    if (
        words
        and (_TRAIT_EXPRESSION.fullmatch(words[0]) or _GLUED_DICE.fullmatch(words[0]))
        and not _is_keyword(words[0])
    ):
        return words[0], words[1:]
    return None, words


def _pool_dice(traits: str | None, words: list[str]) -> tuple[str | None, list[str], int]:
    """Dice added to or taken from a table roll's pool (§A.2), as on ``/r``: glued to the
    traits (``ловк+драка-1``) or a signed number after the pool (``/ext 7 +1 6 10``); a
    signed number before any pool stays a (bad) pool."""
    dice = 0
    if traits is not None and (glued := _GLUED_DICE.fullmatch(traits)) is not None:
        traits, dice = glued.group(1), _signed(glued.group(2))
    rest: list[str] = []
    for i, word in enumerate(words):
        signed = _DICE.fullmatch(word.casefold())
        if signed is not None and (traits is not None or i > 0):
            dice += _signed(signed.group(1))
            continue
        rest.append(word)
    if abs(dice) > DICE_MODIFIER_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(dice))
    return traits, rest, dice


def _is_keyword(word: str) -> bool:
    return word.casefold() in _KEYWORDS


def parse_extended_arguments(text: str | None) -> ExtendedArguments:
    traits, words, dice = _pool_dice(*_pool_traits(_words(text)))
    numbers: list[int] = [0] if traits is not None else []
    for word in words:
        if not _NUMBER.fullmatch(word):
            raise ArgumentsError(Problem.NOT_A_NUMBER, word)
        if len(numbers) == 4:
            raise ArgumentsError(Problem.TOO_MANY_NUMBERS, word)
        numbers.append(int(word))
    if len(numbers) < 3:
        raise ArgumentsError(Problem.POOL_MISSING)
    return ExtendedArguments(
        pool=numbers[0],
        difficulty=numbers[1],
        target=numbers[2],
        max_rolls=numbers[3] if len(numbers) == 4 else None,
        traits=traits,
        dice=dice,
    )


def parse_opposed_arguments(text: str | None) -> OpposedArguments:
    pool, difficulty, traits, dice, found = _table_line(text, OPPOSED, mentions=True)
    return OpposedArguments(pool=pool, difficulty=difficulty, traits=traits, dice=dice, **found)


def _table_line(
    text: str | None, grammar: Grammar, *, mentions: bool = False
) -> tuple[int, int | None, Any, Any, dict[str, Any]]:
    """A table roll's line (``/vs``, ``/team``): a pool by number or trait names, then an
    optional difficulty, the grammar's keywords and, where ``mentions``, one @player:
    (pool, difficulty, traits, dice, the keywords found)."""
    traits, words, dice = _pool_dice(*_pool_traits(_words(text)))
    numbers: list[int] = [0] if traits is not None else []
    found: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        used = grammar.read(words, i, found)
        if used is not None:
            i = used
        elif _NUMBER.fullmatch(word):
            _table_number(numbers, word, 2)
        elif mentions and word.startswith("@") and len(word) > 1 and "mention" not in found:
            found["mention"] = word[1:]
        else:
            raise ArgumentsError(Problem.NOT_A_NUMBER, word)
        i += 1
    if not numbers:
        raise ArgumentsError(Problem.POOL_MISSING)
    return numbers[0], numbers[1] if len(numbers) > 1 else None, traits, dice, found


def _table_number(numbers: list[int], word: str, most: int) -> None:
    """The next of a table roll's numbers, in their fixed order."""
    if len(numbers) == most:
        raise ArgumentsError(Problem.TOO_MANY_NUMBERS, word)
    numbers.append(int(word))


def parse_team_arguments(text: str | None) -> TeamArguments:
    pool, difficulty, traits, dice, found = _table_line(text, TEAM)
    return TeamArguments(pool=pool, difficulty=difficulty, traits=traits, dice=dice, **found)


MAX_ACTIONS_TYPED = 10


def parse_multi_arguments(text: str | None) -> MultiArguments:
    actions: list[tuple[int, int | None]] = []
    traits: list[str | None] = []
    dice: list[int] = []
    for word in tokenize(text, traits=True):
        signed = _DICE.fullmatch(word.casefold())
        if signed is not None and actions:  # «6 +1»: the dice of the action before it
            dice[-1] += _signed(signed.group(1))
            if abs(dice[-1]) > DICE_MODIFIER_MAX:
                raise ArgumentsError(Problem.NOT_A_NUMBER, word)
            continue
        if len(actions) == MAX_ACTIONS_TYPED:
            raise ArgumentsError(Problem.TOO_MANY_NUMBERS, word)
        named, _slash, difficulty = word.partition("/")
        glued = _GLUED_DICE.fullmatch(named)
        extra = _signed(glued.group(2)) if glued is not None else 0
        if glued is not None:
            named = glued.group(1)
        if _NUMBER.fullmatch(word):
            actions.append((int(word), None))
        elif (match := _ACTION.fullmatch(word)) is not None:
            actions.append((int(match.group(1)), int(match.group(2))))
        elif _TRAIT_EXPRESSION.fullmatch(named) and (not _slash or _NUMBER.fullmatch(difficulty)):
            actions.append((0, int(difficulty) if _slash else None))
            traits.append(named)
            dice.append(extra)
            continue
        else:
            raise ArgumentsError(Problem.NOT_A_NUMBER, word)
        traits.append(None)
        dice.append(0)
    if not actions:
        raise ArgumentsError(Problem.POOL_MISSING)
    return MultiArguments(
        actions=tuple(actions),
        traits=tuple(traits),
        dice=tuple(dice),
        repeated=_repeated_action(actions, traits, dice),
    )


def _repeated_action(
    actions: list[tuple[int, int | None]], traits: list[str | None], dice: list[int]
) -> bool:
    """«ловк+драка 6 7»: one sheet pool, then bare numbers that fit as difficulties — the
    same action at each of them, rather than a pool of traits beside pools of 6 and 7."""
    return (
        len(actions) >= 3
        and traits[0] is not None
        and actions[0][1] is None
        and all(t is None for t in traits[1:])
        and all(d is None and m == 0 for (_p, d), m in zip(actions[1:], dice[1:], strict=True))
        and all(2 <= p <= 10 for p, _d in actions[1:])
    )


# --- Health: /dmg, /heal, /hp (docs/rules.md §B.10–§B.12) --------------------------------------
# The damage type's letters (``vocabulary.BASHING``…): the seeds' «у», «л», «т», or b, l, a.

_DAMAGE_WORDS: Mapping[str, DamageType] = {
    **dict.fromkeys(vocabulary.BASHING, DamageType.BASHING),
    **dict.fromkeys(vocabulary.LETHAL, DamageType.LETHAL),
    **dict.fromkeys(vocabulary.AGGRAVATED, DamageType.AGGRAVATED),
}
_LEVELS_MAX = 20  # more than two full tracks is a typo


class NamedPlayer(BaseModel):
    """A player a line names by their name (``/dmg Борис 2 л``), as the chat's sheets know
    them: the handler finds them, the grammar only reads the rest."""

    model_config = ConfigDict(frozen=True)

    user_id: int
    name: str
    username: str | None = None


class HealthArguments(BaseModel):
    """``/dmg 3 л``, ``/dmg npc Гуль 2 у``, ``/heal [2]``, ``/hp [npc Гуль]``: how many levels
    (None: not given), the damage type (only /dmg), and the Storyteller's NPC by name or the
    player named."""

    model_config = ConfigDict(frozen=True)

    levels: int | None = None
    kind: DamageType | None = None
    npc: str | None = None
    player: NamedPlayer | None = None


def parse_health_arguments(text: str | None, *, damage: bool) -> HealthArguments:
    """Words in any order after an optional ``npc Имя``: a number of levels and, for damage,
    one of the type letters (glued too: «3л»)."""
    npc, words = _npc_prefix(tokenize(text), _is_health_word)
    levels: int | None = None
    kind: DamageType | None = None
    for word in words:
        folded = word.casefold()
        glued = re.fullmatch(r"([0-9]{1,6})([^\W\d_]+)", folded)
        parts = [glued.group(1), glued.group(2)] if glued else [folded]
        for part in parts:
            if re.fullmatch(r"[0-9]{1,6}", part) and levels is None:
                levels = int(part)
            elif damage and part in _DAMAGE_WORDS and kind is None:
                kind = _DAMAGE_WORDS[part]
            else:
                raise ArgumentsError(Problem.NOT_A_NUMBER, word)
    if levels is not None and not 1 <= levels <= _LEVELS_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(levels))
    if damage and (levels is None or kind is None):
        raise ArgumentsError(Problem.POOL_MISSING, text or "")
    return HealthArguments(levels=levels, kind=kind, npc=npc)


def _npc_prefix(
    words: list[str], is_argument: Callable[[str], bool]
) -> tuple[str | None, list[str]]:
    """The NPC an ``npc Имя`` in front names, and the command's own words left: the name is
    every word that cannot be one of them, wherever it stands after ``npc``."""
    if not words or words[0].casefold() not in vocabulary.NPC:
        return None, words
    name = [w for w in words[1:] if not is_argument(w)]
    if not name:
        raise ArgumentsError(Problem.NOT_A_NUMBER, words[0])
    return " ".join(name), [w for w in words[1:] if is_argument(w)]


def _is_health_word(word: str) -> bool:
    folded = word.casefold()
    return (
        bool(re.fullmatch(r"[0-9]{1,6}", folded))
        or folded in _DAMAGE_WORDS
        or bool(re.fullmatch(r"[0-9]{1,6}[ултbla]", folded))
    )


_COPIES = re.compile("[x\\u0445\\u00d7*]([0-9]{1,3})")  # x, Cyrillic х, ×
INIT_COPIES_MAX = 10
INIT_BASE_MAX = 20  # Ловкость + Смекалка, five dots each, with room for the supernatural


class InitArguments(BaseModel):
    """``/init``, ``/init 7``, ``/init npc Гуль 6 x3`` (§B.1): the base (Dexterity + Wits)
    when typed (else the sheet's), and for the Storyteller's NPCs their name and how many."""

    model_config = ConfigDict(frozen=True)

    base: int | None = None
    npc: str | None = None
    copies: int = 1


def parse_init_arguments(text: str | None) -> InitArguments:
    """Numbers, an optional ``npc Имя`` in front and a multiplier (``x3``, ``х3``, ``×3``)."""
    words = tokenize(text)
    npc: str | None = None
    copies = 1
    base: int | None = None
    if words and words[0].casefold() in vocabulary.NPC:
        rest = words[1:]
        name: list[str] = []
        for word in rest:
            folded = word.casefold()
            many = _COPIES.fullmatch(folded)
            if many is not None:
                copies = int(many.group(1))
            elif re.fullmatch(r"[0-9]{1,3}", folded):
                if base is not None:
                    raise ArgumentsError(Problem.TOO_MANY_NUMBERS, word)
                base = int(folded)
            elif base is not None:
                raise ArgumentsError(Problem.NOT_A_NUMBER, word)
            else:
                name.append(word)
        if not name:
            raise ArgumentsError(Problem.NOT_A_NUMBER, words[0])
        npc = " ".join(name)
    elif len(words) > 1:
        raise ArgumentsError(Problem.TOO_MANY_NUMBERS, words[1])
    elif words:
        if not re.fullmatch(r"[0-9]{1,3}", words[0]):
            raise ArgumentsError(Problem.NOT_A_NUMBER, words[0])
        base = int(words[0])
    if base is not None and base > INIT_BASE_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(base))
    if not 1 <= copies <= INIT_COPIES_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(copies))
    return InitArguments(base=base, npc=npc, copies=copies)


_SIGNED = re.compile(r"[+-]?[0-9]{1,2}")


def _magick_number(key: str) -> Keyword:
    # a second «кв 2» is no keyword: the line reads it as the Sphere's name and the level
    return Keyword(key, number=_SIGNED, repeat=Repeat.IGNORE)


# /m 3 вульг свид кв 2 мод -1 св: a flag may be typed again (the last «вульг»/«совп» wins); a
# number may be glued to its word («кв2») or follow it.
MAGICK = Grammar(
    keyword_table(
        (vocabulary.VULGAR, Keyword("vulgar", True, repeat=Repeat.AGAIN)),
        (vocabulary.COINCIDENTAL, Keyword("vulgar", False, repeat=Repeat.AGAIN)),
        (vocabulary.WITNESSES, Keyword("witnesses", repeat=Repeat.AGAIN)),
        (vocabulary.WILLPOWER_WORDS, Keyword("willpower", repeat=Repeat.AGAIN)),
        (vocabulary.QUINTESSENCE, _magick_number("quintessence")),
        (vocabulary.MODIFIER, _magick_number("modifier")),
        (vocabulary.ARETE, _magick_number("arete")),
        (vocabulary.TARGET, _magick_number("target")),
    ),
    strip=".,",
    stem=re.compile(r"(.*?)[+-]?[0-9]+"),
    glued=re.compile(r"[^\W\d_]+([+-]?[0-9]{1,2})"),
    glued_as_typed=True,
)
# The ranges a magick line's numbers must be in (§C.1–§C.4, §C.10), in the order checked.
_MAGICK_RANGES = {
    "level": (1, 5),
    "quintessence": (0, 10),
    "modifier": (-10, 10),
    "target": (1, 50),
    "arete": (1, 10),
}


class MagickArguments(BaseModel):
    """``/m 3 вульг свид кв 2 мод -1 св`` (§C.1–§C.4): the highest Sphere's level (or None:
    the sheet's rating of the Sphere named), vulgar or not, witnesses, Quintessence spent,
    the Storyteller's modifier, Willpower; ``sphere`` the words naming a Sphere, if any."""

    model_config = ConfigDict(frozen=True)

    level: int | None = None
    sphere: str | None = None
    vulgar: bool = False
    witnesses: bool = False
    quintessence: int = 0
    modifier: int = 0
    willpower: bool = False
    arete: int | None = None  # typed for an NPC (/h m 3 вульг арете 4); a player's is on the sheet
    target: int | None = None  # a ritual's successes to gather (/m 3 цель 10, §C.10)


def parse_magick_arguments(text: str | None) -> MagickArguments:
    """Keywords in any order; a number after «кв»/«мод» is theirs (also glued: «кв2»), the
    first other number is the level, other words name the Sphere."""
    words = tokenize(text)
    found: dict[str, Any] = {}
    name: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        used = MAGICK.read(words, i, found)
        folded = word.casefold().rstrip(".,")
        if used is not None:
            i = used
        elif re.fullmatch(r"[0-9]{1,2}", folded) and "level" not in found:
            found["level"] = int(folded)
        elif re.fullmatch(r"[^\W\d_]+", folded) and len(name) < 3:
            name.append(word)
        else:
            raise ArgumentsError(Problem.NOT_A_NUMBER, word)
        i += 1
    for key, (low, high) in _MAGICK_RANGES.items():
        if key in found and not low <= found[key] <= high:
            raise ArgumentsError(Problem.NOT_A_NUMBER, str(found[key]))
    if "level" not in found and not name:
        raise ArgumentsError(Problem.POOL_MISSING, text or "")
    return MagickArguments(sphere=" ".join(name) if name else None, **found)


# --- The d6 roll (§D.2–§D.3) -------------------------------------------

D6_CHANCE_MAX = 30  # what a chat shows as faces; S2's largest pools stay far below
D6_REQUIRED_MAX = 10
D6_MODIFIER_MAX = 10


class D6Arguments(BaseModel):
    """``/r 4``, ``/r 4 2``, ``/r сила+ловкость 2 удача 1 слаб -1``: a typed chance, or the
    sheet's powers named with ``+``; the measures required; luck dice to spend; whether the
    weakness applies; advantages (+N) and difficulties (−N) of the moment. A typed chance of
    0 is an action with no fitting power (``/r 0 +1 удача 1``: help and luck alone, §D.2);
    ``auto`` declares a success that needs no roll (``/r авто``, §D.3)."""

    model_config = ConfigDict(frozen=True)

    chance: int | None = None
    powers: tuple[str, ...] = ()
    required: int = 1
    luck: int = 0
    weakness: bool = False
    modifier: int = 0
    aim: int | None = None  # aiming at a target with this difficulty (§D.12 Прицеливание)
    relief: int = 0  # an unfinished project's readiness easing the difficulty (§D.6)
    escape: bool = False  # an escape: the measures become the pursuers' difficulty (§D.12)
    charge: bool = False  # a run-up: the measures help the next attack (§D.12)
    full_defence: bool = False  # full defence: the measures help the next defence (§D.12)
    auto: bool = False  # S2 «бросать кубики не нужно»: a success without a roll

    def trick(self) -> Trick | None:
        """The §D.12 trick this roll declares (at most one: the parser refuses two)."""
        if self.aim is not None:
            return Trick.AIM
        if self.escape:
            return Trick.ESCAPE
        if self.charge:
            return Trick.CHARGE
        if self.full_defence:
            return Trick.FULL_DEFENCE
        return None


def _d6_number(key: str, digits: int, alone: int | None = None) -> Keyword:
    return Keyword(key, number=re.compile(rf"[0-9]{{1,{digits}}}"), alone=alone)


def _d6_flag(key: str) -> Keyword:
    return Keyword(key, repeat=Repeat.AGAIN)


# /r сила+ловкость 2 удача 1 слаб -1: «удача N» spends luck dice, «замысел N» is an unfinished
# project's readiness (§D.6), «прицел N» the target's difficulty an aim cancels first (§D.12;
# alone: none); the number follows or is glued on («удача1»), and each is typed once.
D6 = Grammar(
    keyword_table(
        (vocabulary.LUCK, _d6_number("luck", 3)),
        (vocabulary.RELIEF, _d6_number("relief", 2)),
        (vocabulary.AIM, _d6_number("aim", 2, alone=0)),
        (vocabulary.WEAKNESS, _d6_flag("weakness")),
        (vocabulary.ESCAPE, _d6_flag("escape")),
        (vocabulary.CHARGE, _d6_flag("charge")),
        (vocabulary.AUTO, _d6_flag("auto")),
        (
            vocabulary.FULL_DEFENCE,
            _d6_flag("full_defence"),
        ),  # «глухая оборона»: two words, one trick
    ),
    strip=".,",
    stem=re.compile(r"([^\W\d_]+)[0-9]{1,3}"),
    glued=re.compile(r"[^\W\d_]+([0-9]{1,3})"),
)
_D6_TRICKS = ("aim", "escape", "charge", "full_defence")


@dataclass
class _D6Line:
    """What a d6 line has said: its numbers and names in order, its keywords, its ± dice."""

    numbers: list[str]
    names: list[str]
    found: dict[str, Any]
    modifier: int = 0


def parse_d6_arguments(text: str | None) -> D6Arguments:
    """Keywords anywhere; a number after «удача» is its dice (also glued: «удача1»); words
    are power names, ``+`` between them; without powers the first number is the chance and the
    second the measures required, with powers the one number is the measures required."""
    words = tokenize(text, minus=True)
    line = _D6Line([], [], {})
    i = 0
    while i < len(words):
        used = D6.read(words, i, line.found)
        if used is None:
            _read_d6_word(line, words[i])
            used = i
        i = used + 1
    powers = tuple(
        " ".join(part.split()) for part in " ".join(line.names).split("+") if part.strip()
    )
    if line.names and not powers:
        raise ArgumentsError(Problem.NOT_A_NUMBER, line.names[0][:24])
    chance, required = _d6_chance(line, powers)
    _check_d6(line, chance, required)
    return D6Arguments(
        chance=chance, powers=powers, required=required, modifier=line.modifier, **line.found
    )


def _read_d6_word(line: _D6Line, word: str) -> None:
    folded = word.casefold().rstrip(".,")
    if re.fullmatch(r"[+-][0-9]{1,2}", folded):
        line.modifier += int(folded)
    elif re.fullmatch(r"[0-9]{1,3}", folded):
        line.numbers.append(folded)
    elif re.fullmatch(r"[0-9]+", folded):
        raise ArgumentsError(Problem.NOT_A_NUMBER, word[:12])
    else:
        line.names.append(word)


def _d6_chance(line: _D6Line, powers: tuple[str, ...]) -> tuple[int | None, int]:
    """The typed chance (None: the powers make it) and the measures required."""
    numbers = line.numbers
    if powers:
        if len(numbers) > 1:
            raise ArgumentsError(Problem.TOO_MANY_NUMBERS, numbers[1])
        return None, int(numbers[0]) if numbers else 1
    if not numbers and not line.found.get("auto"):  # «/r авто» needs no chance: nothing is rolled
        raise ArgumentsError(Problem.POOL_MISSING)
    if len(numbers) > 2:
        raise ArgumentsError(Problem.TOO_MANY_NUMBERS, numbers[2])
    return (
        int(numbers[0]) if numbers else None,
        int(numbers[1]) if len(numbers) > 1 else 1,
    )


def _check_d6(line: _D6Line, chance: int | None, required: int) -> None:
    if chance is not None and not 0 <= chance <= D6_CHANCE_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(chance))
    if not 1 <= required <= D6_REQUIRED_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(required))
    if abs(line.modifier) > D6_MODIFIER_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(line.modifier))
    tricks = [t for t in _D6_TRICKS if t in line.found]
    if len(tricks) > 1:  # one action, one trick (§D.12)
        raise ArgumentsError(Problem.REPEATED, tricks[1])
    if line.found.get("auto"):
        # Nothing is rolled, so nothing is spent or measured: no luck, trick, weakness,
        # difficulty or measures to reach (S2 «тебе никто не мешает»).
        spent = [k for k in ("luck", "relief", *tricks, "weakness") if k in line.found]
        if spent or line.modifier or required != 1 or chance == 0:
            raise ArgumentsError(Problem.REPEATED, spent[0] if spent else "auto")


# --- The d6 project (§D.6) ---------------------------------------------------------------------

PROJECT_SCOPE_MAX = 30
PROJECT_ACTIONS_MAX = 10
PROJECT_TITLE_MAX = 60
_TWO_DIGITS = re.compile(r"\d{1,2}")
# /project 5 действий 3 Крепость: a challenge's actions per character, right after the scope.
PROJECT = Grammar(keyword_table((vocabulary.ACTIONS, Keyword("actions", number=_TWO_DIGITS))))


class ProjectArguments(BaseModel):
    """``/project 5 [действий 3] [title]``: the scope (measures to gather), a challenge's
    actions per character (None: a project without a time limit), and its title."""

    model_config = ConfigDict(frozen=True)

    scope: int
    actions: int | None = None
    title: str = ""


def parse_project_arguments(text: str | None) -> ProjectArguments:
    """The scope first; «действий N» may follow it; every word after those is the title."""
    words = tokenize(text)
    if not words or not _TWO_DIGITS.fullmatch(words[0]):
        raise ArgumentsError(Problem.POOL_MISSING, words[0] if words else "")
    found: dict[str, Any] = {}
    used = PROJECT.read(words, 1, found) if len(words) > 1 else None
    scope, actions = int(words[0]), found.get("actions")
    if not 1 <= scope <= PROJECT_SCOPE_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, words[0])
    if actions is not None and not 1 <= actions <= PROJECT_ACTIONS_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(actions))
    title = " ".join(words[1 if used is None else used + 1 :])
    return ProjectArguments(scope=scope, actions=actions, title=title[:PROJECT_TITLE_MAX])


# --- The d6 fight's lines: /dmg, /heal, /init подг, /atk уловка; and /prob in d6 ----------------

_D6_WOUND_MAX = 99  # two digits: a wound's severity or the index of the wound healed
_D6_KINDS: Mapping[str, DifficultyKind] = {
    **dict.fromkeys(vocabulary.PHYSICAL, DifficultyKind.PHYSICAL_WOUND),
    **dict.fromkeys(vocabulary.MENTAL, DifficultyKind.MENTAL_WOUND),
}
# /dmg 2 тел: the wound's kind, typed once; a number glued to it reads as its severity («2тел»).
D6_WOUND = Grammar(
    keyword_table(
        (vocabulary.PHYSICAL, Keyword("kind", DifficultyKind.PHYSICAL_WOUND)),
        (vocabulary.MENTAL, Keyword("kind", DifficultyKind.MENTAL_WOUND)),
    ),
    missing=Problem.NOT_A_NUMBER,
)


class D6WoundArguments(BaseModel):
    """``/dmg 2 тел``, ``/dmg npc Страж 1 душ``, ``/heal [2]``: the severity of a wound (or
    which wound heals, 1 the first), its kind (only /dmg), and the Storyteller's NPC."""

    model_config = ConfigDict(frozen=True)

    number: int = 1
    kind: DifficultyKind | None = None
    npc: str | None = None


_NUMBER_WORD = re.compile(r"([0-9]{1,2})([^\W\d_]+)")


def _is_d6_wound_word(word: str) -> bool:
    folded = word.casefold()
    return bool(_TWO_DIGITS.fullmatch(folded)) or folded in _D6_KINDS


def parse_d6_wound_arguments(text: str | None, *, damage: bool) -> D6WoundArguments:
    """Words in any order after an optional ``npc Имя``: one number and, for a wound, one
    kind; /dmg needs both. A glued «2тел» or «тел2» is the two words."""
    words: list[str] = []
    for word in tokenize(text, glued=True):
        glued = _NUMBER_WORD.fullmatch(word)
        words.extend(glued.groups() if glued is not None else (word,))
    npc, words = _npc_prefix(words, _is_d6_wound_word)
    if npc is not None:
        npc = npc[:40]
    found: dict[str, Any] = {}
    numbers: list[int] = []
    for i, word in enumerate(words):
        if D6_WOUND.read(words, i, found) is not None:
            if not damage:
                raise ArgumentsError(Problem.NOT_A_NUMBER, word)
        elif _TWO_DIGITS.fullmatch(word):
            if numbers:
                raise ArgumentsError(Problem.TOO_MANY_NUMBERS, word)
            numbers.append(int(word))
        else:
            raise ArgumentsError(Problem.NOT_A_NUMBER, word)
    if damage and (not numbers or "kind" not in found):
        raise ArgumentsError(Problem.POOL_MISSING, text or "")
    number = numbers[0] if numbers else 1
    if not 1 <= number <= _D6_WOUND_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(number))
    return D6WoundArguments(number=number, kind=found.get("kind"), npc=npc)


class D6OddsArguments(BaseModel):
    """``/prob 4 [2]`` in d6: the chance and the measures required."""

    model_config = ConfigDict(frozen=True)

    chance: int
    required: int = 1


def parse_d6_odds_arguments(text: str | None) -> D6OddsArguments:
    """One or two numbers: the chance (1–30) and the measures required (1–10)."""
    words = tokenize(text)
    if not words:
        raise ArgumentsError(Problem.POOL_MISSING)
    numbers: list[int] = []
    for word in words:
        if not re.fullmatch(r"[0-9]{1,3}", word):
            raise ArgumentsError(Problem.NOT_A_NUMBER, word)
        if len(numbers) == 2:
            raise ArgumentsError(Problem.TOO_MANY_NUMBERS, word)
        numbers.append(int(word))
    chance, required = numbers[0], numbers[1] if len(numbers) > 1 else 1
    if not 1 <= chance <= D6_CHANCE_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(chance))
    if not 1 <= required <= D6_REQUIRED_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(required))
    return D6OddsArguments(chance=chance, required=required)


PREPARATION_MAX = 20
# /init подг 2: a preparation's gain before anyone acts (§D.7), glued too («подг2»).
D6_INIT = Grammar(
    keyword_table((vocabulary.PREPARATION, Keyword("preparation", number=_TWO_DIGITS))),
    stem=re.compile(r"([^\W\d_]+)[0-9]{1,2}"),
    glued=re.compile(r"[^\W\d_]+([0-9]{1,2})"),
    missing=Problem.NOT_A_NUMBER,
)


def parse_d6_preparation(text: str | None) -> int | None:
    """``/init подг 2``: the gain of a preparation, or None when the line is no preparation
    (an ordinary ``/init``); a preparation with anything else, or out of 1–20, is refused."""
    words = tokenize(text)
    found: dict[str, Any] = {}
    if not words:
        return None
    used = D6_INIT.read(words, 0, found)
    if used is None:
        return None
    if used + 1 < len(words):
        raise ArgumentsError(Problem.TOO_MANY_NUMBERS, words[used + 1])
    gain: int = found["preparation"]
    if not 1 <= gain <= PREPARATION_MAX:
        raise ArgumentsError(Problem.NOT_A_NUMBER, str(gain))
    return gain


class D6AttackArguments(BaseModel):
    """``/atk 4 уловка трудность``: the attack's roll and the manoeuvre declared before it
    (§D.11); a trick of §D.12 is an action of its own, rolled with /r, so it is refused."""

    model_config = ConfigDict(frozen=True)

    roll: D6Arguments
    manoeuvre: Manoeuvre | None = None


_MANOEUVRES: Mapping[str, Manoeuvre] = {
    **dict.fromkeys(vocabulary.TRICK_DIFFICULTY, Manoeuvre.DIFFICULTY),
    **dict.fromkeys(vocabulary.TRICK_ADVANTAGE, Manoeuvre.ADVANTAGE),
}


def parse_d6_attack_arguments(text: str | None) -> D6AttackArguments:
    """The d6 roll's words, and «уловка» with its kind («трудность», «преимущество»)
    anywhere in the line, once."""
    words = tokenize(text, minus=True)
    manoeuvre: Manoeuvre | None = None
    rest: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.casefold() in vocabulary.TRICK:
            if manoeuvre is not None:
                raise ArgumentsError(Problem.REPEATED, word)
            kind = words[i + 1].casefold() if i + 1 < len(words) else ""
            if kind not in _MANOEUVRES:
                raise ArgumentsError(Problem.NOT_A_NUMBER, word)
            manoeuvre = _MANOEUVRES[kind]
            i += 2
            continue
        rest.append(word)
        i += 1
    roll = parse_d6_arguments(" ".join(rest))
    if roll.trick() is not None:
        raise ArgumentsError(Problem.NOT_A_NUMBER, " ".join(rest))
    return D6AttackArguments(roll=roll, manoeuvre=manoeuvre)
