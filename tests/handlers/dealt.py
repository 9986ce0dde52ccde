"""Dice a test deals: the bot's dice come from an injected random source (docs/product.md §5), so a
test that decides the outcome hands it the faces, in the order the bot asks for dice."""

from __future__ import annotations

import random
from collections.abc import Iterable


def _faces(faces: tuple[int | list[int], ...]) -> list[int]:
    """``Dealt(6, 2, 5)`` or ``Dealt([6, 2, 5])``; a list given is used as it is, so a test
    may look at what is left of it."""
    if len(faces) == 1 and isinstance(faces[0], list):
        return faces[0]
    return [f for f in faces if isinstance(f, int)]


class Dealt(random.Random):
    """The faces given, in order, for every die the bot asks for; then a die seeded with
    ``seed``, so a test that deals only the dice it cares about stays repeatable."""

    def __init__(self, *faces: int | list[int], seed: int = 5) -> None:
        super().__init__(seed)
        self.faces = _faces(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0) if self.faces else super().randint(a, b)


class Strict:
    """Exactly the faces given: a die more than the test dealt is an error in the test, and a
    tie of the d6 initiative is settled by ``random()`` at 0.5."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = faces if isinstance(faces, list) else list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)

    def random(self) -> float:
        return 0.5
