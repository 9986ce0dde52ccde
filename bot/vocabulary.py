"""Keywords of the typed magick line (``/m 3 вульг свид кв 2``, RULES.md §C): the grammar of
what players type, in every spelling either language uses, whatever the chat's language; so
it is data of the parser, not translatable text (like the trait names of ``bot.traits``)."""

from __future__ import annotations

VULGAR = frozenset({"вульг", "вульгарно", "вульгарный", "вульгарная", "вульгарное", "vulgar"})
COINCIDENTAL = frozenset(
    {"совп", "совпадение", "естеств", "естественно", "естественный", "естественная", "coinc"}
    | {"coincidental", "natural"}
)
WITNESSES = frozenset({"свид", "свидетели", "свидетель", "witnesses", "witness", "wit"})
QUINTESSENCE = frozenset({"кв", "квинт", "квинтэссенция", "q", "quint", "quintessence"})
MODIFIER = frozenset({"мод", "модификатор", "mod", "modifier"})
WILLPOWER_WORDS = frozenset({"св", "воля", "wp", "willpower"})
ARETE = frozenset({"арете", "арте", "arete"})
MAGICK = frozenset({"m", "м", "магия", "magick"})  # /h m …: a hidden Effect

# The d6 roll (/r сила+ловкость удача 1 слаб, RULES.md §D.2) and its initiative (/init подг 2).
LUCK = frozenset({"удача", "удачи", "уд", "luck"})
WEAKNESS = frozenset({"слаб", "слабость", "weak", "weakness"})
ESCAPE = frozenset({"побег", "бегство", "escape", "flee"})  # /r 4 побег (§D.12)
RELIEF = frozenset({"замысел", "проект", "project"})  # /r 4 -3 замысел 2: an unfinished one
AIM = frozenset({"прицел", "прицеливание", "прицелиться", "aim", "aiming"})  # /r 3 прицел 1
# /r 3 разгон: a run-up for the next attack; /r 3 оборона: full defence for the next one (§D.12)
CHARGE = frozenset({"разгон", "разгона", "разбег", "charge", "run-up", "runup"})
FULL_DEFENCE = frozenset({"оборона", "глухая", "стойка", "defence", "defense", "guard"})
# /r авто: a success that needs no roll (S2 «бросать кубики не нужно», §D.3)
AUTO = frozenset({"авто", "автоуспех", "auto", "automatic"})
PREPARATION = frozenset({"подг", "подготовка", "prep", "prepare", "preparation"})
ACTIONS = frozenset({"действий", "действия", "действие", "дейст", "actions", "action"})
# A house rule's yes and no (/rules set wp_auto_success=off).
YES = frozenset({"on", "true", "yes", "1", "да", "вкл"})
NO = frozenset({"off", "false", "no", "0", "нет", "выкл"})
# d6 wounds (/dmg 2 тел, /dmg 3 душ, RULES.md §D.1).
PHYSICAL = frozenset({"тел", "телесная", "телесн", "т", "physical", "phys", "p"})
MENTAL = frozenset({"душ", "душевная", "душевн", "д", "mental", "ment", "m"})
# A d6 manoeuvre declared before the attack roll (/atk 4 уловка трудность, RULES.md §D.11).
TRICK = frozenset({"уловка", "манёвр", "маневр", "trick", "manoeuvre", "maneuver"})
TRICK_DIFFICULTY = frozenset({"трудность", "трудн", "difficulty"})
TRICK_ADVANTAGE = frozenset({"преимущество", "преим", "advantage"})
NPC = frozenset({"npc", "нпс", "нпц"})  # /dmg npc Страж 2 тел
