"""``/dmg``, ``/heal`` and ``/hp`` in a d6 chat: physical and mental wounds on the sheet
(docs/rules.md §D.1–§D.2), the difficulties every later chance counts."""
