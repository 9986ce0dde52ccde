"""The one-message wizard for the table rolls typed without numbers (docs/product.md §2)."""

from __future__ import annotations

from bot.features import Feature
from bot.wizard import OPEN_WIZARD
from handlers.wizard.router import make_router, open_wizard

FEATURE = Feature(name="wizard", make_router=make_router, provides={OPEN_WIZARD: open_wizard})
