"""Mistyped commands get the line that was meant (docs/product.md §5; the two-tap issue's list)."""

from __future__ import annotations

import pytest

from table.typos import Reading, meant, read_line, tidy, unmix

KNOWN = {"r", "prob", "m", "init", "help"}


@pytest.mark.parametrize(
    ("typed", "line"),
    [
        ("/R 7 6", "/r 7 6"),
        ("/r7 6", "/r 7 6"),
        ("/к 7 6", "/r 7 6"),  # the Russian layout
        ("/кщдд 7 6", "/r 7 6"),  # «/roll» on the Russian layout
        ("/Roll 5", "/r 5"),
        ("/PROB 7 6", "/prob 7 6"),
    ],
)
def test_a_mistyped_command_reads_as_meant(typed: str, line: str) -> None:
    assert meant(typed, KNOWN, bot_username="dice_bot", slash=True) == line


@pytest.mark.parametrize(
    "typed",
    ["/kick me", "/r@other_bot 7 6", "привет", "/r 7 6", "", "/" + "x" * 300, "/ьбб"],
)
def test_what_is_not_ours_is_left_alone(typed: str) -> None:
    assert meant(typed, KNOWN, bot_username="dice_bot", slash=True) is None


def test_without_the_slash_only_in_a_private_chat() -> None:
    assert meant("r 7 6", KNOWN, bot_username="dice_bot", slash=True) is None
    assert meant("r 7 6", KNOWN, bot_username="dice_bot", slash=False) == "/r 7 6"
    assert meant("к 7 6", KNOWN, bot_username="dice_bot", slash=False) == "/r 7 6"


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("cв", "св"),  # a Latin «c» in Willpower's word
        ("cила", "сила"),
        ("ЛOВКОСТЬ", "ЛОВКОСТЬ"),  # a Latin «O» in capitals
        ("strеngth", "strength"),  # a Cyrillic «е» in an English word
        ("Dеxtеrity+Вrawl", "Dexterity+Brawl"),
        ("сила", "сила"),
        ("wp", "wp"),
        ("x3", "x3"),  # no word of two scripts: nothing to read otherwise
        ("сиlа", "сиlа"),  # a Latin «l» looks like no Cyrillic letter: left as typed
    ],
)
def test_a_word_is_read_in_one_script(typed: str, read: str) -> None:
    assert unmix(typed) == read


def test_signs_lose_their_spaces_but_dice_keep_theirs() -> None:
    assert tidy(" восприятие + бдительность сложность 7") == " восприятие+бдительность сложность 7"
    assert tidy(" set провал = без_успехов") == " set провал=без_успехов"
    assert tidy(" Сила : 3") == " Сила:3"
    assert tidy(" 6 +2 7") == " 6 +2 7"  # two dice more, not a pool «6+2»


@pytest.mark.parametrize(
    ("typed", "line", "said"),
    [
        ("/R 6 7", "/r 6 7", False),
        ("/Rules", "/rules", False),
        ("/к 6 7", "/r 6 7", True),  # the key where r is, on the Russian layout
        ("/r6 7", "/r 6 7", False),
        ("/blood2", "/blood 2", False),
        ("/r 6 7 cв", "/r 6 7 св", False),
        ("/set cила 4", "/set сила 4", False),
        ("/R@dice_bot 6 7", "/r@dice_bot 6 7", False),
        ("/r восприятие + бдительность 7", "/r восприятие+бдительность 7", False),
        ("/rules set провал = без успехов", "/rules set провал=без успехов", False),
    ],
)
def test_a_command_typed_on_a_phone_is_read_as_meant(typed: str, line: str, said: bool) -> None:
    known = KNOWN | {"rules", "blood", "set"}
    assert read_line(typed, known, bot_username="dice_bot") == Reading(line, said)


@pytest.mark.parametrize(
    "typed", ["/r 6 7", "/r@other_bot 6 7", "/weather", "/ьбб", "привет", "/" + "r" * 300]
)
def test_a_command_typed_right_or_not_ours_is_left_as_it_is(typed: str) -> None:
    assert read_line(typed, KNOWN, bot_username="dice_bot") is None
