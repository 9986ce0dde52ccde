"""The d6 game's fight: its tracker, attacks and wounds (docs/rules.md §D.1–§D.11)."""
