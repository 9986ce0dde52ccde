"""The sheet editor's state, stored as its flow: whose sheet, which category and trait."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict

from handlers.sheet.callbacks import Category
from rules.sheet import (
    SheetSystem,
)
from table.store import FlowState

EDITOR = "sheet"


class EditorState(FlowState):
    """Where the editor is: a category chosen, then a trait; the sheet itself is in the Store."""

    kind: ClassVar[str] = EDITOR

    model_config = ConfigDict(frozen=True, extra="forbid")

    system: SheetSystem
    name: str
    category: Category | None = None
    trait: str | None = None
    last: tuple[str, int] | None = None  # the value just set (trait key, value): drawn at once
