"""Pure rules of the Storyteller d10 games and the d6 narrative system (docs/rules.md).

Where each section lives: §0 conventions and errors :mod:`rules.errors`, :mod:`rules.dice`;
§A.0 profiles :mod:`rules.profiles`; §A.1–§A.7 one d10 roll :mod:`rules.d10`; §A.2, §A.6,
§A.7, §A.9, §A.11 :mod:`rules.actions`; §A.3, §A.8, §A.10 :mod:`rules.difficulty`;
§A.12–§A.15 :mod:`rules.contests`; §A.16 :mod:`rules.presets`; exact d10 odds
:mod:`rules.probability`; §B.1–§B.8 :mod:`rules.combat`; §B.9–§B.12 :mod:`rules.health`;
§C :mod:`rules.magick` with the §C.16 Sphere cards in :mod:`rules.spheres`; §D
:mod:`rules.d6`; character sheets :mod:`rules.sheet`.
"""
