"""``/dmg``, ``/heal``, ``/hp``: health levels and their wound penalty
(docs/rules.md §B.9–§B.12)."""
