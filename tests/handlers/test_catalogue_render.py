"""Every message of both catalogues, rendered with sample values as the bot renders it.

A translation can pass "is translated" and still read badly at the table: a placeholder
renamed or left out, a `{name}` shown raw, «..» or « ,» where two pieces meet, a button whose
label is only an emoji, or a <b> never closed or a stray < (every message is sent as HTML,
and Telegram then refuses the whole of it). docs/product.md §6 (Russian that reads as written by a
person).

The whole catalogue is one test per language, naming every offending msgid in one failure,
rather than one test per message.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Message
from babel.messages.pofile import read_po

from localapi.server import ApiError, parse_html

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ("ru", "en")
SAMPLES = {"n": 5, "count": 5, "k": 2, "d": 7, "total": 12}
DOUBLED = re.compile(r"(?<![.])\.\.(?![.])|,,|;;|::|!!|\?\?|\s[,;:!?](?!\S*[/=])|\(\s|\s\)|  ")
TAG = re.compile(r"</?([a-z]+)[^>]*>")
LABEL = re.compile(r"\w", re.UNICODE)


def _messages(locale: str) -> Iterator[Message]:
    with (ROOT / "locales" / locale / "LC_MESSAGES" / "messages.po").open("rb") as po:
        for message in read_po(po, locale=locale):
            if message.id:
                yield message


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


def _render(text: str) -> str:
    values = {name: SAMPLES.get(name, "Аня") for name in _fields(text)}
    return text.format(**values)


def _forms(message: Message) -> list[tuple[str, str]]:
    """(msgid, msgstr) per form: a plural's every form against the plural msgid."""
    if isinstance(message.id, tuple):
        plural = message.id[1]
        return [(message.id[0] if i == 0 else plural, s) for i, s in enumerate(message.string)]
    return [(message.id, message.string)]


CATALOGUES = {locale: list(_messages(locale)) for locale in LOCALES}


def problems(message: Message) -> list[str]:
    """What is wrong with one catalogue entry as the chat would show it."""
    found_problems: list[str] = []
    for msgid, msgstr in _forms(message):
        if not msgstr.strip():
            return ["empty translation"]
        if not LABEL.search(msgstr):
            found_problems.append(f"a label with no word: {msgstr!r}")
        # The same placeholders as the code passes; a plural form may leave its number out
        # («одна дверь» for 1), but never invent one.
        try:
            expected, found = _fields(msgid), _fields(msgstr)
        except ValueError as error:
            found_problems.append(f"{msgstr!r} does not format: {error}")
            continue
        if isinstance(message.id, tuple):
            allowed = _fields(message.id[0]) | _fields(message.id[1])
            if not found <= allowed:
                found_problems.append(f"{msgstr!r} invents {found - allowed}")
        elif found != expected:
            found_problems.append(f"{msgstr!r} has {found}, the code passes {expected}")
        try:
            rendered = _render(msgstr)
        except (ValueError, IndexError) as error:
            found_problems.append(f"{msgstr!r} does not format: {error}")
            continue
        if "{" in rendered or "}" in rendered:
            found_problems.append(f"a placeholder left in {rendered!r}")
        if DOUBLED.search(rendered):
            found_problems.append(f"doubled punctuation or spacing: {rendered!r}")
        if sorted(TAG.findall(msgstr)) != sorted(TAG.findall(msgid)):
            found_problems.append(f"tags differ from the code's: {msgstr!r}")
        opened = [t for t in TAG.findall(msgstr) if f"</{t}>" not in msgstr]
        if opened:
            found_problems.append(f"unclosed tags {opened} in {msgstr!r}")
        try:
            parse_html(rendered)
        except ApiError as error:
            found_problems.append(f"Telegram refuses {rendered!r}: {error}")
    return found_problems


@pytest.mark.parametrize("locale", LOCALES)
def test_every_message_renders_cleanly(locale: str) -> None:
    offending = [
        f"{str(message.id)!r}: {'; '.join(found)}"
        for message in CATALOGUES[locale]
        if (found := problems(message))
    ]
    assert not offending, f"{len(offending)} {locale} messages:\n" + "\n".join(offending)


@pytest.mark.parametrize(
    ("msgid", "msgstr", "says"),
    [
        ("{name} rolls", "{имя} бросает", "the code passes"),
        ("{name} rolls", "Бросает", "the code passes"),
        ("Done.", "Готово..", "doubled"),
        ("A, b", "А , б", "doubled"),
        ("Roll", "🎲", "no word"),
        ("<b>Sheet</b>", "<b>Лист", "tags"),
        ("Ok {n}", "Ок {n", "does not format"),
        ("Ok", "", "empty"),
        ("1 < 2", "1 < 2", "Telegram refuses"),
    ],
)
def test_the_check_catches_what_it_is_for(msgid: str, msgstr: str, says: str) -> None:
    found = problems(Message(msgid, msgstr))
    assert any(says in p for p in found), found


def test_the_catalogues_are_read() -> None:
    assert all(len(messages) > 400 for messages in CATALOGUES.values())


def test_one_failure_names_every_offending_message(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = [Message("Done.", "Готово.."), Message("<b>Sheet</b>", "<b>Лист"), *CATALOGUES["ru"]]
    monkeypatch.setitem(CATALOGUES, "ru", broken)
    with pytest.raises(AssertionError) as failure:
        test_every_message_renders_cleanly("ru")
    assert "2 ru messages" in str(failure.value)
    assert "'Done.'" in str(failure.value)
    assert "'<b>Sheet</b>'" in str(failure.value)
