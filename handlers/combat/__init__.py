"""The d10 fight: the round tracker, the attack panel and health (docs/rules.md §B)."""
