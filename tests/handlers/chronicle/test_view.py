"""The chronicle's story, pure: a fight's rolls told round by round (docs/product.md §2b)."""

from __future__ import annotations

from typing import Any

from handlers.chronicle.document import Part
from handlers.chronicle.view import Material, chronicle
from rules.profiles import HOUSE_MAGE
from table.store.sessions import SessionRecord
from tests.handlers.stepping import speaking

SESSION = SessionRecord(number=1, commitment="0" * 64, started=0.0)


def roll(name: str, kind: str, round_no: int | None = None, **more: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "user_id": 1,
        "name": name,
        "pool": 3,
        "difficulty": 6,
        "faces": [7, 2, 9],
        "successes": 2,
        "outcome": "success",
        "kind": kind,
        **more,
    }
    if round_no is not None:
        entry["round_no"] = round_no
    return entry


def fights_of(entries: list[dict[str, Any]], heading: str = "Fights") -> Part:
    material = Material(
        campaign="C",
        sessions=[SESSION],
        whole=False,
        entries=entries,
        hidden={},
        events=[],
        characters=[],
        profile=HOUSE_MAGE,
        language="en",
    )
    with speaking("en"):
        doc = chronicle(material)
    [part] = [p for p in doc.parts if p.heading == heading]
    return part


def text_of(item: list[tuple[str, str]]) -> str:
    return "".join(what for _kind, what in item)


def test_a_fights_rolls_are_told_round_by_round() -> None:
    fights = fights_of(
        [
            roll("Anna", "atk", 1),
            roll("Boris", "def", 1),
            roll("Anna", "dmg", 1),
            roll("Boris", "soak", 1),
            roll("Vera", "r"),  # an ordinary roll in between: not a fight's
            roll("Boris", "atk", 2),
        ]
    )
    lines = [text_of(item) for item in fights.items]
    assert len(lines) == 2
    first, second = lines
    assert first.startswith("Round 1: #1 Anna — attack: 3d10, difficulty 6")
    assert "; #2 Boris — defence: " in first
    assert "; #3 Anna — damage: " in first
    assert "; #4 Boris — soak: " in first
    assert second.startswith("Round 2: #6 Boris — attack: ")
    assert fights.items[0][0] == ("bold", "Round 1:")


def test_the_same_round_of_another_session_or_fight_starts_its_own_line() -> None:
    fights = fights_of(
        [
            roll("Anna", "atk", 1, ses=1),
            roll("Anna", "atk", 2, ses=1),
            roll("Anna", "atk", 1, ses=2),
        ]
    )
    assert [text_of(i).split(":")[0] for i in fights.items] == ["Round 1", "Round 2", "Round 1"]


def test_a_fights_roll_of_no_round_is_told_alone() -> None:
    fights = fights_of([roll("Anna", "init"), roll("Anna", "atk")])
    lines = [text_of(item) for item in fights.items]
    assert lines == [
        "#1 Anna — initiative: 3d10, difficulty 6 → Success, 2 successes",
        "#2 Anna — attack: 3d10, difficulty 6 → Success, 2 successes",
    ]


def test_a_ritual_given_up_tells_its_paradox_in_the_rolls_and_the_magick() -> None:
    given_up = {"user_id": 1, "name": "Anna", "kind": "abandoned", "paradox": 2, "ses": 1}
    entries = [roll("Anna", "effect", paradox=None), given_up]
    magick = fights_of(entries, heading="Magick")
    assert [text_of(i) for i in magick.items][1] == (
        "#2 Anna — ritual: given up before its target · Paradox gained: 2"
    )
    rolls = fights_of(entries, heading="Rolls")
    assert (
        text_of(rolls.items[1]) == "Anna (ritual) — given up before its target · Paradox gained: 2"
    )
