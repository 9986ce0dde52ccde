"""What the screen starts a fighting NPC's first change from, pure (table/npcs.py's copies)."""

from __future__ import annotations

from handlers.screen.table import copy_base
from rules.health import DamageType, HealthTrack
from rules.sheet import SheetSystem, new_sheet, set_health, set_trait

SYSTEM = SheetSystem.MAGE


def test_a_copy_starts_from_its_groups_sheet_with_health_of_its_own() -> None:
    group = set_health(
        set_trait(new_sheet(SYSTEM), "dexterity", 3), HealthTrack((DamageType.LETHAL,))
    )
    base = copy_base("Охранник 2", {"охранник": group}, SYSTEM)
    assert base.traits == group.traits
    assert base.health.boxes == ()


def test_an_npc_of_no_group_with_a_sheet_starts_blank() -> None:
    assert copy_base("Охранник 2", {}, SYSTEM) == new_sheet(SYSTEM)
    assert copy_base("Гуль", {"охранник": new_sheet(SYSTEM)}, SYSTEM) == new_sheet(SYSTEM)
