"""``/ask`` in a d6 chat: the Storyteller's roll request of named powers (docs/rules.md §D.2)."""

from __future__ import annotations

from bot.features import Feature
from handlers.d6requests.router import make_router

FEATURE = Feature(name="d6requests", make_router=make_router)
