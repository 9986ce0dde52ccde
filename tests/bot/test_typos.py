"""Mistyped commands get the line that was meant (docs/product.md §5; the two-tap issue's list)."""

from __future__ import annotations

import pytest

from bot.typos import meant

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
