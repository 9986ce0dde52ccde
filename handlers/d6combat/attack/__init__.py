"""``/atk`` in a d6 chat: attack, defence, armour and the gain (docs/rules.md §D.9–§D.11)."""
