"""The catalogues: complete Russian, correct plurals, no Russian hard-coded in the code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from aiogram.utils.i18n import I18n
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "locales"
CYRILLIC = re.compile("[А-Яа-яЁё]")
GETTEXT_NAMES = {"_", "__", "gettext", "ngettext", "lazy_gettext"}
# Words players TYPE (input, not output) and a language's own name: not translatable text.
ALLOWED = {
    ("table/parsing.py", "св"),
    # Table-roll keywords (/vs 6 7 до 5 нпс, /team 7 цель 5) are syntax, like «св».
    ("table/parsing.py", "до"),
    ("table/parsing.py", "цель"),
    ("table/parsing.py", "нпс"),
    ("table/parsing.py", "нпц"),
    # Damage letters of the seeds (ударный, летальный, тяжёлый): /dmg 3 л.
    ("table/parsing.py", "у"),
    ("table/parsing.py", "л"),
    ("table/parsing.py", "т"),
    ("table/parsing.py", "[0-9]{1,6}[ултbla]"),
    ("table/parsing.py", "(?:thr|t|пор)(-?[0-9]{1,6})"),
    ("table/parsing.py", "(?:thr|t|пор)[-=]?[0-9-]"),
    # Dice on top of a pool: «+1к» (к for кубик) beside «+1d».
    ("table/parsing.py", "([+\\-−][0-9]{1,2})(?:к|d|k)?"),
    ("bot/render.py", "Русский"),
}
# The trait vocabulary is the grammar of what players type (`/r ловк+драка`, pasted sheets):
# every Russian and English spelling must be in the code to be recognised, whatever the
# chat's language, so it is data of the parser rather than translatable text.
VOCABULARY_FILES = {"table/traits.py", "table/vocabulary.py", "table/typos.py"}


def catalogue(locale: str):  # type: ignore[no-untyped-def]
    with (LOCALES / locale / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=locale)


def template_ids() -> list[object]:
    with (LOCALES / "messages.pot").open("rb") as pot:
        return [m.id for m in read_po(pot) if m.id]


def untranslated(po, ids: list[object], locale: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Every msgid of the template the catalogue lacks, leaves fuzzy or empty, or (in Russian)
    leaves in English: all of them, so one failure names them all."""
    found = []
    for msgid in ids:
        message = po.get(msgid)
        if message is None:
            found.append(f"{msgid!r}: missing")
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy:
            found.append(f"{msgid!r}: fuzzy")
        elif not all(s.strip() for s in strings):
            found.append(f"{msgid!r}: empty")
        elif locale == "ru" and not all(CYRILLIC.search(s) or s.startswith("/") for s in strings):
            found.append(f"{msgid!r}: not Russian")
    return found


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_every_message_is_translated(locale: str) -> None:
    ids = template_ids()
    assert len(ids) > 50
    offending = untranslated(catalogue(locale), ids, locale)
    assert not offending, f"{len(offending)} {locale} messages:\n" + "\n".join(offending)


def test_the_translation_check_names_every_gap() -> None:
    po = Catalog(locale="ru")
    po.add("Done", "Готово")
    po.add("Roll", "")
    po.add("Sheet", "Лист", flags=["fuzzy"])
    po.add("Health", "Health")
    found = untranslated(po, ["Done", "Roll", "Sheet", "Health", "Luck"], "ru")
    assert found == [
        "'Roll': empty",
        "'Sheet': fuzzy",
        "'Health': not Russian",
        "'Luck': missing",
    ]


def test_placeholders_survive_translation() -> None:
    offending = []
    for message in catalogue("ru"):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(re.findall(r"\{\w+\}", ids[0]))
        offending += [
            f"{message.id!r}: {s!r}" for s in strings if set(re.findall(r"\{\w+\}", s)) != wanted
        ]
    assert not offending, "\n".join(offending)


# The d6 game's own texts call the one who runs it «сценарист», in English the GM; the World of
# Darkness word must not leak into a message only the d6 game's features say.
WOD_WORD = {"ru": "Рассказчик", "en": "Storyteller"}


def wod_word_in_d6(po, locale: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Every message said only by d6 features (handlers/d6*) whose text, or English source,
    names the Storyteller."""
    found = []
    for message in po:
        sources = [path for path, _line in message.locations]
        if not message.id or not sources or not all(p.startswith("handlers/d6") for p in sources):
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        said = [*strings, *(ids if locale == "en" else ())]
        if any(WOD_WORD[locale] in text for text in said):
            found.append(f"{message.id!r}")
    return found


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_d6_messages_name_the_gm_in_the_d6_words(locale: str) -> None:
    offending = wod_word_in_d6(catalogue(locale), locale)
    assert not offending, "\n".join(offending)


def test_the_d6_word_check_catches_the_storyteller() -> None:
    po = Catalog(locale="en")
    po.add("Only the GM adds NPCs", "Only the GM adds NPCs", [("handlers/d6roll/view.py", 1)])
    po.add("the Storyteller's NPC", "the GM's NPC", [("handlers/d6combat/view.py", 2)])
    po.add("Ask the Storyteller", "Ask the Storyteller", [("handlers/roll/view.py", 3)])
    assert wod_word_in_d6(po, "en") == ['"the Storyteller\'s NPC"']


@pytest.mark.parametrize(
    ("n", "word"),
    [
        (1, "1 успех"),
        (2, "2 успеха"),
        (5, "5 успехов"),
        (11, "11 успехов"),
        (21, "21 успех"),
        (22, "22 успеха"),
        (25, "25 успехов"),
        (111, "111 успехов"),
        (104, "104 успеха"),
    ],
)
def test_russian_plurals(i18n: I18n, n: int, word: str) -> None:
    text = i18n.gettext("{n} success", "{n} successes", n=n, locale="ru").format(n=n)
    assert text == word
    english = i18n.gettext("{n} success", "{n} successes", n=n, locale="en").format(n=n)
    assert english == f"{n} success" + ("" if n == 1 else "es")


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _translated(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if isinstance(node.func, ast.Attribute):
                name = node.func.attr
            if name in GETTEXT_NAMES:
                ids.update(id(arg) for arg in node.args)
    return ids


def test_no_cyrillic_literal_outside_gettext() -> None:
    found = []
    for path in sorted([*ROOT.glob("bot/**/*.py"), *ROOT.glob("handlers/**/*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree) | _translated(tree)
        relative = path.relative_to(ROOT).as_posix()
        if relative in VOCABULARY_FILES:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in skip
                and CYRILLIC.search(node.value)
                and (relative, node.value) not in ALLOWED
            ):
                found.append((relative, node.lineno, node.value))
    assert found == []


def test_the_scan_would_catch_a_hard_coded_word() -> None:
    tree = ast.parse('x = "Успех"\ny = _("Success")\n')
    skip = _docstrings(tree) | _translated(tree)
    bad = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and id(n) not in skip and CYRILLIC.search(str(n.value))
    ]
    assert bad == ["Успех"]
