"""``/init`` in a d6 chat: the die-spending initiative and its round tracker, one live message
per chat (docs/rules.md §D.7–§D.9)."""
