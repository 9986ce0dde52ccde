"""``/atk``: an attack played out on the chat's attack panel (docs/rules.md §B.3–§B.10)."""
