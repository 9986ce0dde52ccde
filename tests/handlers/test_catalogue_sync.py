"""The catalogues cover the code: every string the code passes to gettext is translated.

``test_catalogues`` checks the catalogues against ``messages.pot``; this checks ``messages.pot``
and both ``.po`` files against the code itself, so a string added without running the README's
extract/update commands fails here instead of reaching players in English.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]


def _extracted() -> set[str]:
    ids: set[str] = set()
    for folder in ("bot", "handlers"):
        for _file, _line, message, _comments, _context in extract_from_dir(
            ROOT / folder,
            method_map=[("**.py", "python")],
            keywords={"_": None, "__": None},
        ):
            ids.add(message[0] if isinstance(message, (tuple, list)) else message)
    ids.discard("")
    return ids


def _catalogue_ids(path: Path, locale: str | None = None) -> dict[str, tuple[str, ...]]:
    with path.open("rb") as handle:
        catalogue = read_po(handle, locale=locale)
    found: dict[str, tuple[str, ...]] = {}
    for message in catalogue:
        if not message.id or message.fuzzy:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        found[key] = tuple(s or "" for s in strings)
    return found


def test_template_holds_every_string_of_the_code() -> None:
    template = _catalogue_ids(ROOT / "locales" / "messages.pot")
    missing = sorted(_extracted() - set(template))
    assert missing == [], "run the extract command of README 'Translations'"


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_every_string_of_the_code_is_translated(locale: str) -> None:
    po = _catalogue_ids(ROOT / "locales" / locale / "LC_MESSAGES" / "messages.po", locale)
    untranslated = sorted(
        msgid for msgid in _extracted() if msgid not in po or not all(s.strip() for s in po[msgid])
    )
    assert untranslated == []
