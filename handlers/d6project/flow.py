"""A d6 project's flow (docs/rules.md §D.6): the project, and for a challenge each character's
actions used."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field

from rules.d6.projects import Project
from table.store import FlowState

KIND = "d6project"
HISTORY_KEPT = 6


class ProjectFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str = ""
    project: Project
    actions: int | None = None  # a challenge: actions per character (S2 «Вызов (размах, действия)»)
    used: dict[str, int] = Field(default_factory=dict)
    names: dict[str, str] = Field(default_factory=dict)
    history: tuple[str, ...] = ()  # the last actions, as shown (escaped)
    closed_unfinished: bool = False
    # an action counted without a roll: its gain is the chat's number for it (AMB-D2)
    auto_counted: bool = False
