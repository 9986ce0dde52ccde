"""Keywords of the typed lines — the roll (``/r 7 6 св``), the table rolls (``/vs 6 до 5 нпс``),
the magick line (``/m 3 вульг свид кв 2``, docs/rules.md §C), the d6 roll, the health line — and
the Russian names of the house rules (``/rules set провал=после_отмены``): the grammar of
what players type, in every spelling either language uses, whatever the chat's language; so
it is data of the parser, not translatable text (like the trait names of ``table.traits``)."""

from __future__ import annotations

# /r 7 6 св: Willpower on a roll. Only the short words: «воля» may be a trait's name there.
ROLL_WILLPOWER = frozenset({"wp", "св"})
# /r восприятие+бдительность сложность 7: the difficulty named, as a request for a roll says it.
DIFFICULTY = frozenset({"сложность", "сложн", "слож", "diff", "difficulty"})
# The table rolls (/vs 6 7 до 5 нпс, /team 7 цель 5): a race's length, the team's target.
RACE = frozenset({"до", "to"})
TARGET = frozenset({"цель", "target", "до", "to"})
# /dmg 3 л: the seeds' letters for ударный, летальный, тяжёлый, and the English b/l/a.
BASHING = frozenset({"у", "b"})
LETHAL = frozenset({"л", "l"})
AGGRAVATED = frozenset({"т", "a"})
EVERYONE = frozenset({"все", "всех", "всё", "all", "everyone"})  # «/hp все»: every fighter

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

# The d6 roll (/r сила+ловкость удача 1 слаб, docs/rules.md §D.2) and its initiative (/init подг 2).
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
# /lang свой: the chat's pinned language undone, each person reads the bot in their own.
LANG_PERSONAL = frozenset(
    {"own", "auto", "personal", "reset", "свой", "свои", "авто", "личный", "каждому", "сброс"}
)
# A house rule's yes and no (/rules set wp_auto_success=off).
YES = frozenset({"on", "true", "yes", "1", "да", "вкл"})
NO = frozenset({"off", "false", "no", "0", "нет", "выкл"})
# d6 wounds (/dmg 2 тел, /dmg 3 душ, docs/rules.md §D.1).
PHYSICAL = frozenset({"тел", "телесная", "телесн", "т", "physical", "phys", "p"})
MENTAL = frozenset({"душ", "душевная", "душевн", "д", "mental", "ment", "m"})
# A d6 manoeuvre declared before the attack roll (/atk 4 уловка трудность, docs/rules.md §D.11).
TRICK = frozenset({"уловка", "манёвр", "маневр", "trick", "manoeuvre", "maneuver"})
TRICK_DIFFICULTY = frozenset({"трудность", "трудн", "difficulty"})
TRICK_ADVANTAGE = frozenset({"преимущество", "преим", "advantage"})
NPC = frozenset({"npc", "нпс", "нпц"})  # /dmg npc Страж 2 тел
# /session start, /session закончить: a session of provably fair dice (table/fairness.py).
SESSION_START = frozenset(
    {"start", "begin", "open", "начать", "начало", "старт", "открыть", "начинаем"}
)
SESSION_END = frozenset(
    {"end", "stop", "finish", "close", "закончить", "конец", "завершить", "стоп", "закрыть"}
)
# /log session, /stats сессия 2: one session's rolls; /chronicle кампания: the whole campaign.
SESSION = frozenset({"session", "ses", "сессия", "сессии", "сессию", "сес"})
CAMPAIGN = frozenset({"campaign", "all", "кампания", "кампанию", "всё", "все", "вся", "игра"})

# House rules typed in Russian (/rules set провал=после_отмены): one name for every switch of
# bot.house_rules and one word for every value that is not a number or yes/no, shown in the
# Russian answers so the table types what it reads. Matching ignores case, «ё» and whether
# words are joined by «_», «-» or nothing else.
HOUSE_RULE_NAMES = {
    "botch_rule": "провал",
    "threshold_rule": "порог",
    "auto_success": "автоуспех",
    "auto_success_costs_wp": "автоуспех_за_св",
    "wp_auto_success": "св_успех",
    "wp_cancellable_by_ones": "единицы_против_св",
    "wp_prevents_botch": "св_от_провала",
    "wp_eaten_by_threshold": "порог_ест_св",
    "zero_ability": "ноль_в_способности",
    "multiple_actions": "несколько_действий",
    "max_declared_actions": "макс_действий",
    "retry_penalty": "повтор",
    "extended_botch": "провал_длительного",
    "team_botch": "провал_команды",
    "combat.initiative_tie_by_dex_wits": "ничья_инициативы",
    "combat.wound_penalty_on_initiative": "раны_в_инициативе",
    "combat.attack_difficulty": "сложность_атаки",
    "combat.defence_subtracts": "защита_вычитает",
    "combat.extra_successes_add_damage": "успехи_в_урон",
    "combat.damage_difficulty": "сложность_урона",
    "combat.soak_difficulty": "сложность_поглощения",
    "combat.damage_ones_cancel": "единицы_против_урона",
    "combat.soak_ones_cancel": "единицы_против_поглощения",
    "combat.stamina_soaks_lethal": "выносливость_от_летального",
    "combat.swap_rear_flank": "тыл_и_фланг",
    "combat.interruption_difficulty": "сложность_прерывания",
    "combat.interruption_by_wp_spend": "прерывание_за_св",
    "combat.desperate_defence_cumulative": "отчаянная_защита",
    "combat.free_move_bracket_is_half": "свободное_движение",
    "combat.stun_inclusive": "контузия_при_равенстве",
    "combat.stun_per_turn": "контузия_за_ход",
    "combat.stabilise_difficulty": "сложность_стабилизации",
    "combat.lethal_worsens_from_row": "ухудшение_с_ряда",
    "combat.lethal_worsening_by_track_level": "ухудшение_по_треку",
    "combat.blind_fire_gated": "стрельба_вслепую",
    "combat.immobilized_auto_hit_successes": "удар_по_обездвиженному",
    "combat.ambush_victim_defends": "защита_из_засады",
    "combat.stand_up_difficulty": "сложность_подъёма",
    "combat.stand_up_botch_soakable": "провал_подъёма",
    "magick.natural_witness_difficulty_extra": "свидетели_сложность",
    "magick.natural_witness_paradox_extra": "свидетели_парадокс",
    "magick.modifier_cap": "предел_модификаторов",
    "magick.quintessence_counts_in_cap": "квинтэссенция_в_пределе",
    "magick.quintessence_max_per_roll": "квинтэссенция_за_бросок",
    "magick.resonance_both_allowed": "оба_резонанса",
    "magick.wound_penalty_on_arete": "раны_в_арете",
    "magick.magnitude_is_separate_cost": "масштаб_отдельно",
    "magick.area_counts_mage": "маг_как_цель",
    "magick.permanent_duration_rule": "постоянный_эффект",
    "magick.forces_damage_without_damage_successes": "силы_уровень_сразу",
    "magick.correspondence_better_link": "лучшая_связь",
    "magick.botched_ritual_adds_rolls": "провал_ритуала",
    "magick.backlash_ones_cancel": "единицы_в_отдаче",
    "magick.backlash_soakable_below_tier5": "поглощение_отдачи",
    "magick.backlash_difficulty": "сложность_отдачи",
    "magick.wheel_size": "колесо",
    "magick.barrier_adjustment": "сдвиг_барьера",
    "magick.barrier_damage_per": "урон_барьера",
    "magick.haunt_unit": "срок_преследования",
    "d6.mental_wounds_max_only": "худшая_душевная",
    "d6.no_power_impossible": "без_силы",
    "d6.auto_success_gain": "выигрыш_без_броска",
    "d6.shortfall_is_fiasco": "нехватка_фиаско",
    "d6.no_weakness_penalty": "без_слабости",
    "d6.inactivity_wound_supporting": "на_взводе",
    "d6.preparation_split": "дробить_подготовку",
    "d6.slow_defence_of_others": "неспешная_защита",
    "d6.poison_uses_final_gain": "яд_по_выигрышу",
    "d6.special_effort_noop_allowed": "пустое_усилие",
    "d6.multi_side_contests": "много_сторон",
    "vampire.bashing_halved": "ударный_вдвое",
    "vampire.potence_as_dice": "мощь_кубиками",
    "vampire.aggravated_heal_blood": "кровь_на_тяжёлый",
    "vampire.aggravated_heal_willpower": "св_на_тяжёлый",
}
HOUSE_RULE_GROUPS = {
    "dice": "кубики",
    "table": "действия",
    "combat": "бой",
    "magick": "магия",
    "d6": "d6",
    "vampire": "вампиры",
}
HOUSE_RULE_YES, HOUSE_RULE_NO = "да", "нет"  # a switch's on and off, typed and shown in Russian
HOUSE_RULE_VALUES = {
    "raw_zero": "без_успехов",
    "net_negative": "после_отмены",
    "attribute_only": "только_атрибут",
    "auto_failure": "автонеудача",
    "cumulative": "по_кубику",
    "split_pool": "делить_запас",
    "escalating": "плюс_один",
    "escalating_triangular": "нарастающий",
    "none": "без_штрафа",
    "lose_all": "всё_сгорает",
    "keep": "остаётся",
    "member_only": "только_помощник",
    "ruins_all": "рушит_всё",
    "double_required": "вдвое",
    "ten_on_duration": "десять",
    "difficulty": "сложность",
    "successes": "успехи",
    "both": "оба",
    "failed_roll": "за_бросок",
    "failed_die": "за_кубик",
    "days": "дни",
    "weeks": "недели",
    "months": "месяцы",
    "years": "годы",
}

# Commands typed by their Russian name as well (a bot in privacy mode sees only Latin ones in
# groups, so the Latin name stays the one the help shows).
AMBUSH_COMMAND = "засада"
