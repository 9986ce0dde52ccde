"""Names safe to draw (bot/names.py): nobody appears as somebody else."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from bot.names import ELLIPSIS, NAME_MAX, TITLE_MAX, clean_name, clean_update

RLO, PDF, LRM, ZWSP, ZWJ, BOM = "\u202e", "\u202c", "\u200e", "\u200b", "\u200d", "\ufeff"
FSI, PDI = "\u2068", "\u2069"


@pytest.mark.parametrize(
    ("given", "drawn"),
    [
        ("Аня", "Аня"),
        ("Анна Каренина", "Анна Каренина"),
        (f"А{ZWSP}ня", "Аня"),  # looks like Аня: it is Аня
        (f"{RLO}янА{PDF}", "янА"),  # the override is gone: drawn as typed
        (f"Аня{RLO} :3 успеха", "Аня :3 успеха"),
        (f"{LRM}{BOM}Борис{ZWJ}", "Борис"),
        ("Вера\nСтрелок\tБ", "Вера Стрелок Б"),
        ("  Гоша  ", "Гоша"),
        ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),  # a family stays one emoji
        ("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", None),  # Scotland
        ("❤️", "❤️"),
        ("Zа\u0301\u0301\u0301\u0301\u0301lgo", "Zа\u0301\u0301lgo"),
        ("José", "José"),
    ],
)
def test_a_name_is_drawn_without_what_hides_or_turns_it(given: str, drawn: str | None) -> None:
    assert clean_name(given) == (given if drawn is None else drawn)


@pytest.mark.parametrize("invisible", [ZWSP * 3, f"{RLO}{PDF}", "\u3164", "\u2800\u2800", " "])
def test_a_name_with_nothing_visible_is_the_fallback(invisible: str) -> None:
    assert clean_name(invisible) == "?"
    assert clean_name(invisible, fallback="@anya") == "@anya"


def test_a_name_written_right_to_left_is_drawn_in_an_isolate() -> None:
    """Hebrew or Arabic stays as it is, inside an isolate: it can turn nothing around it."""
    assert clean_name("שרה") == f"{FSI}שרה{PDI}"
    assert clean_name(f"{RLO}שרה") == f"{FSI}שרה{PDI}"
    assert clean_name(f"{FSI}שרה{PDI}{PDI}{PDI}") == f"{FSI}שרה{PDI}"


def test_a_long_name_is_cut() -> None:
    cut = clean_name("Я" * 64)
    assert len(cut) == NAME_MAX
    assert cut.endswith(ELLIPSIS)
    assert len(clean_name("Т" * 200, TITLE_MAX)) == TITLE_MAX


@pytest.mark.parametrize(
    "name",
    [
        "Аня",
        f"{RLO}янА",
        "שרה" * 20,
        "Я" * 64,
        f"a{ZWJ}b",
        "x\u0301\u0301\u0301",
        "👨\u200d👩\u200d👧" * 20,
    ],
)
def test_cleaning_twice_changes_nothing(name: str) -> None:
    once = clean_name(name)
    assert clean_name(once) == once
    assert not any(unicodedata.category(c) == "Cf" and c not in (FSI, PDI, ZWJ) for c in once)


def test_every_name_of_an_update_is_cleaned_in_place() -> None:
    raw: dict[str, Any] = {
        "update_id": 1,
        "message": {
            "message_id": 5,
            "date": 1,
            "chat": {"id": -100, "type": "supergroup", "title": f"Стол{RLO}"},
            "from": {"id": 7, "is_bot": False, "first_name": f"{RLO}Мастер", "last_name": ZWSP},
            "sender_chat": {"id": -100, "type": "supergroup", "title": f"{ZWSP}Стол"},
            "reply_to_message": {
                "message_id": 4,
                "date": 1,
                "chat": {"id": -100, "type": "supergroup", "title": "Стол"},
                "from": {"id": 8, "is_bot": False, "first_name": ZWSP, "username": "anya"},
            },
            "text": f"/r 5 6 {RLO}",
        },
    }
    assert clean_update(raw)
    message = raw["message"]
    assert message["chat"]["title"] == "Стол"
    assert message["from"]["first_name"] == "Мастер"
    assert message["from"]["last_name"] == ""
    assert message["sender_chat"]["title"] == "Стол"
    assert message["reply_to_message"]["from"]["first_name"] == "@anya"
    assert message["text"] == f"/r 5 6 {RLO}"  # what was typed is the command's own
    assert not clean_update(raw)
