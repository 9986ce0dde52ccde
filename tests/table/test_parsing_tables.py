"""The typed-line grammar as tables (table.parsing): one tokenizer, a keyword table per command.

The tricky lines of every command in Russian and English, what each bad line is refused
with (the problem, the word named, and the sentence a player reads in either language), and
the tables themselves: every spelling of ``table.vocabulary`` reads as its keyword, and a new
keyword is one row."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from aiogram.utils.i18n import I18n
from pydantic import BaseModel

from bot import render
from bot.i18n import LOCALES_DIR, load_i18n
from rules import profiles
from rules.d6.chance import DifficultyKind
from rules.d6.combat import Manoeuvre
from rules.health import DamageType
from table import vocabulary
from table.parsing import (
    D6,
    MAGICK,
    ArgumentsError,
    Grammar,
    Keyword,
    Problem,
    Repeat,
    keyword_table,
    parse_d6_arguments,
    parse_d6_attack_arguments,
    parse_d6_odds_arguments,
    parse_d6_preparation,
    parse_d6_wound_arguments,
    parse_extended_arguments,
    parse_health_arguments,
    parse_init_arguments,
    parse_magick_arguments,
    parse_multi_arguments,
    parse_opposed_arguments,
    parse_project_arguments,
    parse_roll_arguments,
    parse_team_arguments,
    tokenize,
)

Parser = Callable[[str], BaseModel]
PARSERS: dict[str, Parser] = {
    "r": parse_roll_arguments,
    "r-sheet": lambda text: parse_roll_arguments(text, allow_traits=True),
    "ext": parse_extended_arguments,
    "vs": parse_opposed_arguments,
    "team": parse_team_arguments,
    "multi": parse_multi_arguments,
    "dmg": lambda text: parse_health_arguments(text, damage=True),
    "init": parse_init_arguments,
    "m": parse_magick_arguments,
    "d6": parse_d6_arguments,
    "project": parse_project_arguments,
    "d6dmg": lambda text: parse_d6_wound_arguments(text, damage=True),
    "d6heal": lambda text: parse_d6_wound_arguments(text, damage=False),
    "d6prob": parse_d6_odds_arguments,
    "d6atk": parse_d6_attack_arguments,
}


@pytest.mark.parametrize(
    ("command", "text", "expected"),
    [
        ("r", "7 6 св пор2", {"pool": 7, "difficulty": 6, "willpower": True, "threshold": 2}),
        ("r", "WP 7 thr1 8", {"pool": 7, "difficulty": 8, "willpower": True, "threshold": 1}),
        ("r-sheet", "ловкость + драка 7 св", {"traits": "ловкость+драка", "difficulty": 7}),
        ("r-sheet", "Dex+Brawl-1 6 wp", {"traits": "Dex+Brawl", "difficulty": 6, "dice": -1}),
        ("r-sheet", "сила воли 8", {"traits": "сила_воли", "difficulty": 8}),
        ("ext", "7 +1 6 10 5", {"pool": 7, "difficulty": 6, "target": 10, "max_rolls": 5}),
        ("vs", "6 7 до5 нпс @bob", {"pool": 6, "race_to": 5, "npc": True, "mention": "bob"}),
        ("vs", "ловк+драка-1 7 to 3 NPC", {"traits": "ловк+драка", "dice": -1, "race_to": 3}),
        ("team", "7 6 цель 5", {"pool": 7, "difficulty": 6, "target": 5}),
        ("team", "Dex+Brawl 6 target4", {"traits": "Dex+Brawl", "difficulty": 6, "target": 4}),
        ("multi", "ловк+драка 6 7", {"repeated": True, "traits": ("ловк+драка", None, None)}),
        ("dmg", "npc Гуль 3л", {"levels": 3, "kind": DamageType.LETHAL, "npc": "Гуль"}),
        ("dmg", "2 b", {"levels": 2, "kind": DamageType.BASHING}),
        ("init", "npc Охранник 6 х3", {"base": 6, "npc": "Охранник", "copies": 3}),
        ("m", "3 вульг свид кв 2 мод -1 св", {"level": 3, "quintessence": 2, "modifier": -1}),
        ("m", "vulgar 2 wit q2 mod+1 wp", {"level": 2, "vulgar": True, "witnesses": True}),
        ("m", "3 вульг совп", {"level": 3, "vulgar": False}),  # the last one typed wins
        ("m", "материя арете 4 цель 10", {"sphere": "материя", "arete": 4, "target": 10}),
        ("d6", "сила+ловкость 2 удача 1 слаб −1", {"powers": ("сила", "ловкость"), "luck": 1}),
        ("d6", "strength+agility luck1 weak -1", {"required": 1, "weakness": True, "modifier": -1}),
        ("d6", "3 прицел", {"chance": 3, "aim": 0}),
        ("d6", "3 aim 2", {"chance": 3, "aim": 2}),
        ("d6", "4 -3 замысел 2", {"chance": 4, "modifier": -3, "relief": 2}),
        ("d6", "глухая оборона 3", {"chance": 3, "full_defence": True}),
        ("d6", "Удача1, 4 побег.", {"chance": 4, "luck": 1, "escape": True}),
        ("d6", "авто", {"auto": True, "chance": None}),
        ("d6", "удача1234", {"powers": ("удача1234",)}),  # too long to be luck: a power's name
        ("project", "5 действий 3 Крепость", {"scope": 5, "actions": 3, "title": "Крепость"}),
        ("project", "12 actions 2", {"scope": 12, "actions": 2, "title": ""}),
        ("project", "5 Мост действий 3", {"actions": None, "title": "Мост действий 3"}),
    ],
)
def test_tricky_lines(command: str, text: str, expected: dict[str, Any]) -> None:
    parsed = PARSERS[command](text).model_dump()
    assert {key: parsed[key] for key in expected} == expected


@pytest.mark.parametrize(
    ("command", "text", "problem", "token"),
    [
        ("r", "7 6 5", Problem.TOO_MANY_NUMBERS, "5"),
        ("r", "7 wp св", Problem.REPEATED, "св"),
        ("r", "7 6 t-1", Problem.THRESHOLD_SYNTAX, "t-1"),
        ("r", "7 сила", Problem.NOT_A_NUMBER, "сила"),
        ("vs", "6 нпс NPC", Problem.REPEATED, "NPC"),
        ("vs", "6 до", Problem.NOT_A_NUMBER, "до"),
        ("vs", "до 5", Problem.POOL_MISSING, ""),
        ("team", "7 цель 5 target 6", Problem.REPEATED, "target"),
        ("ext", "7 6", Problem.POOL_MISSING, ""),
        ("m", "кв 2", Problem.POOL_MISSING, "кв 2"),
        ("m", "3 кв", Problem.POOL_MISSING, "кв"),
        ("m", "6", Problem.NOT_A_NUMBER, "6"),
        ("d6", "удача 1 luck 2", Problem.REPEATED, "luck"),
        ("d6", "3 прицел побег", Problem.REPEATED, "escape"),  # one trick per action
        ("d6", "авто удача 1", Problem.REPEATED, "luck"),  # nothing rolled, nothing spent
        ("d6", "4 удача", Problem.POOL_MISSING, "удача"),
        ("d6", "сила 2 3", Problem.TOO_MANY_NUMBERS, "3"),
        ("d6", "31", Problem.NOT_A_NUMBER, "31"),
        ("d6", "+", Problem.NOT_A_NUMBER, "+"),
        ("project", "Крепость 5", Problem.POOL_MISSING, "Крепость"),
        ("project", "5 действий", Problem.POOL_MISSING, "действий"),
        ("project", "31", Problem.NOT_A_NUMBER, "31"),
        ("project", "5 действий 11", Problem.NOT_A_NUMBER, "11"),
    ],
)
def test_bad_lines(command: str, text: str, problem: Problem, token: str) -> None:
    with pytest.raises(ArgumentsError) as caught:
        PARSERS[command](text)
    assert (caught.value.problem, caught.value.token) == (problem, token)


@pytest.fixture(scope="module")
def i18n() -> I18n:
    return load_i18n(LOCALES_DIR, "ru")


@pytest.mark.parametrize(
    ("command", "text", "ru", "en"),
    [
        (
            "r",
            "7 6 5",
            "«5»: чисел должно быть не больше двух — запас кубиков и сложность.",
            "«5»: only two numbers are expected, the pool and the difficulty.",
        ),
        ("r", "7 wp св", "«св» указано дважды.", "«св» is given twice."),
        (
            "r",
            "7 6 t=2",
            "«t=2»: пороговое значение пишется как пор2 или t2 (число от 0 до 50).",
            "«t=2»: write the threshold as t2 (a number from 0 to 50).",
        ),
        (
            "vs",
            "6 до",
            "«до» — непонятно: запас кубиков и сложность пишутся числами.",
            "«до» is not understood: the pool and the difficulty are numbers.",
        ),
        ("team", "7 target 5 цель 6", "«цель» указано дважды.", "«цель» is given twice."),
        (
            "r",
            "св",
            "Сколько кубиков? Укажите запас числом от 1 до 50.",
            "How many dice? Give the pool as a number from 1 to 50.",
        ),
    ],
)
def test_bad_lines_read_the_same_in_both_languages(
    i18n: I18n, command: str, text: str, ru: str, en: str
) -> None:
    """The sentence a player reads for a refused line (bot.render), in each language."""
    with pytest.raises(ArgumentsError) as caught:
        PARSERS[command](text)
    profile = profiles.get(profiles.DEFAULT)
    problem, token = caught.value.problem, caught.value.token
    with i18n.context():
        with i18n.use_locale("ru"):
            assert render.problem_sentence(problem, token, profile) == ru
        with i18n.use_locale("en"):
            assert render.problem_sentence(problem, token, profile) == en


@pytest.mark.parametrize(
    ("grammar", "spellings", "key", "line"),
    [
        (D6, vocabulary.LUCK, "luck", "4 {} 1"),
        (D6, vocabulary.RELIEF, "relief", "4 -3 {} 2"),
        (D6, vocabulary.AIM, "aim", "4 {} 1"),
        (D6, vocabulary.WEAKNESS, "weakness", "сила {}"),
        (D6, vocabulary.ESCAPE, "escape", "4 {}"),
        (D6, vocabulary.CHARGE, "charge", "4 {}"),
        (D6, vocabulary.FULL_DEFENCE, "full_defence", "4 {}"),
        (D6, vocabulary.AUTO, "auto", "{}"),
        (MAGICK, vocabulary.VULGAR, "vulgar", "3 {}"),
        (MAGICK, vocabulary.WITNESSES, "witnesses", "3 {}"),
        (MAGICK, vocabulary.WILLPOWER_WORDS, "willpower", "3 {}"),
        (MAGICK, vocabulary.QUINTESSENCE, "quintessence", "3 {} 2"),
        (MAGICK, vocabulary.MODIFIER, "modifier", "3 {} 2"),
        (MAGICK, vocabulary.ARETE, "arete", "3 {} 2"),
        (MAGICK, vocabulary.TARGET, "target", "3 {} 2"),
    ],
)
def test_every_spelling_in_the_vocabulary_is_a_row(
    grammar: Grammar, spellings: frozenset[str], key: str, line: str
) -> None:
    """Each spelling of ``table.vocabulary`` is in its command's table and reads as its field,
    in any case."""
    parse = parse_d6_arguments if grammar is D6 else parse_magick_arguments
    for word in sorted(spellings):
        assert grammar.table[word].key == key
        parsed = parse(line.format(word.upper())).model_dump()
        assert parsed[key] not in (None, 0, False), word


def test_a_new_keyword_is_one_row() -> None:
    """The parser's loop knows no word: a grammar with one more row reads it."""
    found: dict[str, Any] = {}
    rows = keyword_table(
        (("бонус", "bonus"), Keyword("bonus", number=re.compile("[0-9]"))),
        (("тихо",), Keyword("quiet", repeat=Repeat.AGAIN)),
    )
    grammar = Grammar(rows, stem=re.compile(r"(\w+?)[0-9]"), glued=re.compile(r"\w+?([0-9])"))
    words = tokenize("бонус 3 тихо BONUS7 тихо")
    assert grammar.read(words, 0, found) == 1  # the number after it is used
    assert grammar.read(words, 2, found) == 2
    assert found == {"bonus": 3, "quiet": True}
    with pytest.raises(ArgumentsError) as caught:
        grammar.read(words, 3, found)  # glued on, typed a second time
    assert (caught.value.problem, caught.value.token) == (Problem.REPEATED, "BONUS7")
    assert grammar.read(words, 4, found) == 4  # a flag may be said again
    assert grammar.read(["7"], 0, found) is None  # no keyword: the command reads it


def test_a_spelling_means_one_thing() -> None:
    with pytest.raises(ValueError, match="two keywords"):
        keyword_table((("до",), Keyword("race_to")), (("до", "to"), Keyword("target")))


@pytest.mark.parametrize(
    ("text", "options", "words"),
    [
        ("ловкость + драка  7", {"traits": True}, ["ловкость+драка", "7"]),
        ("до5 цель10 нпс", {"glued": True}, ["до", "5", "цель", "10", "нпс"]),
        ("4 −1", {"minus": True}, ["4", "-1"]),
        ("4 −1", {}, ["4", "−1"]),
        (None, {}, []),
    ],
)
def test_one_tokenizer(text: str | None, options: dict[str, bool], words: list[str]) -> None:
    assert tokenize(text, **options) == words


# --- The d6 fight's lines on the one grammar ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "damage", "read"),
    [
        ("2 тел", True, (2, DifficultyKind.PHYSICAL_WOUND, None)),
        ("тел 2", True, (2, DifficultyKind.PHYSICAL_WOUND, None)),
        ("2тел", True, (2, DifficultyKind.PHYSICAL_WOUND, None)),  # glued
        ("3 mental", True, (3, DifficultyKind.MENTAL_WOUND, None)),
        ("npc Страж 1 душ", True, (1, DifficultyKind.MENTAL_WOUND, "Страж")),
        ("", False, (1, None, None)),
        ("2", False, (2, None, None)),
    ],
)
def test_a_d6_wound_line(text: str, damage: bool, read: tuple[object, ...]) -> None:
    args = parse_d6_wound_arguments(text, damage=damage)
    assert (args.number, args.kind, args.npc) == read


@pytest.mark.parametrize(
    ("text", "damage", "problem"),
    [
        ("2", True, Problem.POOL_MISSING),
        ("тел", True, Problem.POOL_MISSING),
        ("2 3 тел", True, Problem.TOO_MANY_NUMBERS),
        ("2 тел душ", True, Problem.REPEATED),
        ("0 тел", True, Problem.NOT_A_NUMBER),
        ("2 тел", False, Problem.NOT_A_NUMBER),  # a heal takes no kind
        ("npc", True, Problem.NOT_A_NUMBER),
    ],
)
def test_a_d6_wound_line_refused(text: str, damage: bool, problem: Problem) -> None:
    with pytest.raises(ArgumentsError) as caught:
        parse_d6_wound_arguments(text, damage=damage)
    assert caught.value.problem is problem


def test_d6_odds_are_a_chance_and_the_measures() -> None:
    assert parse_d6_odds_arguments("4").model_dump() == {"chance": 4, "required": 1}
    assert parse_d6_odds_arguments("4 2").model_dump() == {"chance": 4, "required": 2}
    for text, problem in [
        ("", Problem.POOL_MISSING),
        ("4 2 1", Problem.TOO_MANY_NUMBERS),
        ("четыре", Problem.NOT_A_NUMBER),
        ("31", Problem.NOT_A_NUMBER),
        ("4 11", Problem.NOT_A_NUMBER),
    ]:
        with pytest.raises(ArgumentsError) as caught:
            parse_d6_odds_arguments(text)
        assert caught.value.problem is problem


def test_a_preparation_is_a_keyword_of_init() -> None:
    assert parse_d6_preparation("подг 2") == 2
    assert parse_d6_preparation("подг2") == 2
    assert parse_d6_preparation("prep 3") == 3
    assert parse_d6_preparation("npc Гуль 3") is None
    assert parse_d6_preparation("") is None
    for text in ("подг", "подг 21", "подг 2 3"):
        with pytest.raises(ArgumentsError):
            parse_d6_preparation(text)


def test_an_attack_declares_its_manoeuvre_anywhere() -> None:
    typed = parse_d6_attack_arguments("4 уловка трудность")
    assert (typed.roll.chance, typed.manoeuvre) == (4, Manoeuvre.DIFFICULTY)
    typed = parse_d6_attack_arguments("trick advantage сила+ловкость 2")
    assert (typed.roll.powers, typed.manoeuvre) == (("сила", "ловкость"), Manoeuvre.ADVANTAGE)
    assert parse_d6_attack_arguments("4").manoeuvre is None
    for text in ("4 уловка", "4 уловка сила", "4 разгон", "4 уловка трудность уловка трудность"):
        with pytest.raises(ArgumentsError):
            parse_d6_attack_arguments(text)
