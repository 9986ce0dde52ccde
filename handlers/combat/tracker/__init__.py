"""``/init``: initiative and the round tracker, one live message per chat
(docs/rules.md §B.1–§B.2)."""
