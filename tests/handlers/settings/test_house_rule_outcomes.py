"""Every house rule changes what the chat shows (docs/product.md "/rules", docs/rules.md §F).

For each switch of the catalogue the same chat is played twice with the same dealt dice:
once under the book, once after the Storyteller typed ``/rules set key=value``. What the bot
shows (messages, edits, alerts) must differ beyond the house-rule tag itself, at the place the
case names. A switch added to the rules without a case here fails, and so does a switch the
chat ignores: every switch a Storyteller can flip changes something a table sees.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage
from aiogram.types import Chat as TelegramChat
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from bot.house_rules import BY_KEY, CATALOGUE, Switch, label
from tests.handlers.conftest import Table, player
from tests.handlers.dealt import Dealt

PLAYERS = {"A": player(1, "Аня"), "B": player(2, "Борис"), "V": player(3, "Вера")}
STORYTELLER = PLAYERS["A"]  # the chat's administrator
TAG = "🏠"
BOOK_CHAT, HOUSE_CHAT = -1001, -1002  # one table (the fast store), two chats


@dataclass(frozen=True)
class Case:
    """One switch's proof: ``value`` as typed, the chat's ``steps``, and a piece of what the
    chat shows under the book (``book``) and under the house rule (``house``), each absent
    from what the other run shows last. ``tagged``: the house run's result names the switch
    in its tag.

    A step is ``B /r 3 6`` (Борис says it; A is the Storyteller, V is Вера), ``deal 7 1 1``
    (the next dice), ``tap V Label`` (Вера presses the newest button whose text contains
    Label; ``=Label`` for the exact text).
    """

    value: str
    steps: tuple[str, ...]
    book: str
    house: str
    game: str = "mage"
    tagged: bool = True


# Two fighters with sheets, in the round (Борис 6 + 5 = 11, Вера 5 + 6 = 11).
SHEETS = (
    "B /set ловкость 4 смекалка 2 драка 3 сила 2 выносливость 2 уклонение 1",
    "V /set ловкость 2 смекалка 3 уклонение 2 выносливость 1",
)
FIGHT = (*SHEETS, "deal 5 1 6", "B /init", "V /init")  # Вера's /init rolls twice: to open, to join


def dice(*faces: int) -> str:
    return "deal " + " ".join(str(f) for f in faces)


def strike(
    *taps: str, before: tuple[str, ...] = (), panel: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """Борис strikes Вера with his fists: 7 dice at difficulty 6 for 2 bashing dice and one
    die more per success after the first; Вера dodges with 4 dice and soaks with 1. The
    ``panel`` taps (manoeuvre, weapon, modifiers) come before Вера's button, which rolls."""
    return (*FIGHT, *before, "B /atk", *panel, "tap B Вера", *taps)


# 7 hits, no dodge: 8 damage dice, then Вера's soak, all rolled in her one tap
HIT = ("tap V =🏃 Уклонение",)
# Аня casts a vulgar Sphere 3 before witnesses (+4 Paradox), then its Backlash: 7 7 7 1.
PARADOX_4 = (
    "A /set арете 3 выносливость 2",
    dice(9, 9, 2),
    "A /m 3 вульг свид",
    dice(7, 7, 1, 7, *[7] * 12),
)
ONE_LEVEL = HIT  # with dice for one success of damage, none of soak
# Declarations done: Борис acts first (the tie goes to his Dexterity + Wits), Вера after him.
RESOLVE = ("tap A Заявки", "tap V Заявлено", "tap B Заявлено")
# Вера (Willpower 3) interrupts Борис's action, before she has acted.
INTERRUPT = ("V /set сила воли 3", *FIGHT, *RESOLVE, "tap V Прерывание")
# Борис is knocked down when his turn comes; he stands up with 5 dice (Ловкость 4 + Атлетизм 1).
KNOCKED_DOWN = (
    "B /set атлетизм 1",
    *FIGHT,
    "tap A Состояния",
    "tap A =Борис",
    "tap A Борис: нокдаун",
    "tap A Назад",
    *RESOLVE,
)


CASES: dict[str, Case] = {
    # ----- dice and Willpower (§A.4–§A.8) -----
    "botch_rule": Case(
        "net_negative",
        ("deal 7 1 1", "B /r 3 6"),
        book="<b>Неудача</b>",
        house="<b>Провал</b> (единиц: 2)",
    ),
    "threshold_rule": Case(
        "off",
        ("deal 2 2 2 2 2 2 2 2 2 2", "B /r 5 9", "tap B Ещё раз"),
        book="сложность 9 (очень сложно), пороговое значение 1 · попытка 2",
        house="сложность 10 · попытка 2",
    ),
    "auto_success": Case(
        "off",
        ("B /r", "tap B =6", "tap B Автоуспех"),
        book="<b>Автоуспех</b>: 1 успех",
        house="(no button Автоуспех)",
        tagged=False,
    ),
    "auto_success_costs_wp": Case(
        "on",
        ("B /set сила воли 3", "B /r", "tap B =6", "tap B Автоуспех"),
        book="<b>Автоуспех</b>: 1 успех\n—",
        house="Сила Воли: осталось 2 из 3",
    ),
    "wp_auto_success": Case(
        "off",
        ("deal 2 2 2", "B /r 3 6 wp"),
        book="Сила Воли\n2 2 2\n<b>Минимальный успех</b>: 1 успех",
        house="не даёт автоматический успех",
        tagged=False,
    ),
    "wp_cancellable_by_ones": Case(
        "on",
        ("deal 7 1 1", "B /r 3 6 wp"),
        book="<b>Минимальный успех</b>: 1 успех",
        house="<b>Неудача</b>",
    ),
    "wp_prevents_botch": Case(
        "off",
        ("deal 1 2 2", "B /r 3 6 wp t1"),
        book="<b>Неудача</b>",
        house="<b>Провал</b> (единиц: 1)",
    ),
    "wp_eaten_by_threshold": Case(
        "off",
        ("deal 7 2 2", "B /r 3 6 wp t2"),
        book="<b>Неудача</b>",
        house="<b>Минимальный успех</b>: 1 успех",
    ),
    "zero_ability": Case(
        "attribute_only",
        ("deal 8 8 8", "B /set ловкость 3", "B /r ловкость+драка"),
        book="С 0 в Способности действие не удаётся без броска",
        house="<b>8</b> <b>8</b> <b>8</b>",
    ),
    # ----- extended, opposed, teamwork, several actions (§A.9–§A.13) -----
    "multiple_actions": Case(
        "split_pool",
        ("deal " + "7 " * 16, "B /multi 8 3 5"),
        book="3. 5 →",
        house="8 кубиков делятся между действиями",
    ),
    "max_declared_actions": Case(
        "2",
        ("deal " + "7 " * 16, "B /multi 6 7 7"),
        book="3. 7 → 2к10",
        house="от 2 до 2 действий",
        tagged=False,
    ),
    "retry_penalty": Case(
        "none",
        ("deal 2 2 2 2 2 2", "B /r 3 6", "tap B Ещё раз"),
        book="сложность 7 (немного сложно) · попытка 2",
        house="сложность 6 (стандартно) · попытка 2",
    ),
    "extended_botch": Case(
        "keep",
        ("deal 7 7 7 1 2 2", "B /ext 3 6 10", "tap B Бросок №2"),
        book="все накопленные успехи потеряны",
        house="накопленные успехи сохраняются",
    ),
    "team_botch": Case(
        "ruins_all",
        ("deal 7 7 1 2 2 1", "B /team 3 6 цель 5", "tap V Помочь", "tap V =3"),
        book="→ <b>Провал</b>\n▰▰▱▱▱▱▱▱▱▱ 1/5",
        house="Провал разрушает все усилия команды",
    ),
    # ----- combat and health (§B) -----
    "combat.initiative_tie_by_dex_wits": Case(
        "off",
        (*SHEETS, dice(5, 1, 6, 900, 1), "B /init", "V /init", "tap A Заявки"),
        book="1. Борис — <b>11</b> (6+🎲5)\n2. ✍️ Вера",
        house="1. Вера — <b>11</b> (5+🎲6)\n2. ✍️ Борис",  # the coin breaks the tie
    ),
    "combat.wound_penalty_on_initiative": Case(
        "on",
        (*SHEETS, "B /dmg 2 b", dice(5), "B /init"),
        book="Борис — <b>11</b>",
        house="Борис — <b>10</b>",
    ),
    "combat.attack_difficulty": Case(
        "7",
        strike(before=(dice(6, 6, 6, 6, 6, 6, 6),)),
        book="— 7 успехов",
        house="— 0 успехов",
    ),
    "combat.defence_subtracts": Case(
        "off",
        strike(*HIT, before=(dice(8, 8, 8, 8, 8, 8, 8, 9, 9, 2, 2),)),
        book="Попадание: 5 успехов сверх защиты",
        house="Попадание: 7 успехов",
    ),
    "combat.extra_successes_add_damage": Case(
        "off",
        strike(*HIT, before=(dice(*[8] * 7, 2, 2, 2, 2, *[7] * 8),)),
        book="— 8 успехов",
        house="Урон: <b>7</b> <b>7</b> — 2 успеха",
    ),
    "combat.damage_difficulty": Case(
        "8",
        strike(*HIT, before=(dice(*[8] * 7, 2, 2, 2, 2, *[7] * 8),)),
        book="— 8 успехов",
        house="Урон: 7 7 7 7 7 7 7 7 — 0 успехов",
    ),
    "combat.soak_difficulty": Case(
        "8",
        strike(*HIT, before=(dice(*[8] * 7, 2, 2, 2, 2, *[7] * 9),)),
        book="Поглощение: <b>7</b> — 1 успех",
        house="Поглощение: 7 — 0 успехов",
    ),
    "combat.damage_ones_cancel": Case(
        "on",
        strike(*HIT, before=(dice(*[8] * 7, 2, 2, 2, 2, *[7] * 6, 1, 1),)),
        book="— 6 успехов",
        house="— 4 успеха",
    ),
    "combat.soak_ones_cancel": Case(
        "on",
        strike(
            *HIT,
            before=("V /set выносливость 2", dice(*[8] * 7, 2, 2, 2, 2, *[7] * 8, 7, 1)),
        ),
        book="Поглощение: <b>7</b> 1 — 1 успех",
        house="Поглощение: <b>7</b> 1 — 0 успехов",
    ),
    "combat.stamina_soaks_lethal": Case(
        "on",
        # a lethal 🗡1: Вера's dodge rolls the damage and, under the house rule, her soak
        strike(*HIT, before=(dice(*[8] * 7, 2, 2, 2, 2, *[7] * 8),), panel=("tap B 🗡1",)),
        book="Вера получает 7 уровней летального урона",
        house="Поглощение: <b>7</b> — 1 успех",
    ),
    "combat.swap_rear_flank": Case(
        "on",
        strike(panel=("tap B в лоб",)),  # front → flank
        book="Удар (Драка): 9к10",
        house="Удар (Драка): 8к10",
    ),
    "combat.interruption_difficulty": Case(
        "8",
        (*INTERRUPT, dice(7, 7, 2), "tap V 🎲 Вера"),
        book="Вера прерывает: заявленные действия",
        house="Прервать не удалось: Вера действует как заявлено",
    ),
    "combat.interruption_by_wp_spend": Case(
        "off",
        (*INTERRUPT, "tap V −1 Сила Воли"),
        book="Сила Воли: осталось 2 из 3",
        house="Только броском Силы Воли на сложности 6",
    ),
    "combat.desperate_defence_cumulative": Case(
        "off",
        strike("tap V Отчаянное уклонение", before=(dice(*[8] * 7, 2, 2, 2, 2),)),
        book="(отчаянное уклонение): 2 2 2 2 —",
        house="(отчаянное уклонение): 2 2 2 —",
    ),
    "combat.stun_inclusive": Case(
        "on",
        strike(*HIT, before=(dice(*[8] * 7, 2, 2, 2, 2, 7, *[2] * 8),)),
        book="получает 1 уровень ударного урона.\n",
        house="Контузия: уровней не меньше, чем Выносливость",
    ),
    "combat.stun_per_turn": Case(
        "on",
        strike(
            *ONE_LEVEL,
            "B /atk",
            "tap B Вера",
            *ONE_LEVEL,
            before=(dice(*[*[8] * 7, 2, 2, 2, 2, 7, *[2] * 7, 2] * 2),),
        ),
        book="получает 1 уровень ударного урона.\n<b>Здоровье</b>: Ушибы",
        house="Контузия: за ход уровней больше, чем Выносливость",
    ),
    "combat.free_move_bracket_is_half": Case(
        "off",
        # 1 → 2 → 3 → 5 → 10 m on the panel, before the target's button (a die less per
        # metre leaves no dice to roll at 10 m); Борис has Dexterity 4
        (*FIGHT, "B /atk", *["tap B 🏃"] * 5),
        book="Модификаторы: перемещение 10 м\n🎯 Нажмите на цель",
        house="Дальше 8 м свободного перемещения: это отдельное действие.",
    ),
    "combat.immobilized_auto_hit_successes": Case(
        "3",
        strike(
            before=(
                "tap A Состояния",
                "tap A =Вера",
                "tap A полное обездвиживание",
                dice(2, 2, 2, 2, 2, 2, 2),
            ),
        ),
        book="Автоматическое попадание: 1 успех.",
        house="Автоматическое попадание: 3 успеха.",
    ),
    "combat.ambush_victim_defends": Case(
        "on",
        strike(before=(dice(8, 8, 8, 8, 8, 8, 8),), panel=("tap B засада",)),
        book="Засада: цель не защищается.",
        house="Вера защищается",
    ),
    # Борис shoots Вера blind: the book rolls Perception + Awareness (4 dice at difficulty 8)
    # first and finds nothing; the house rolls the shot itself (6 dice at difficulty 9).
    "combat.blind_fire_gated": Case(
        "off",
        strike(
            before=(
                "B /set огнестрельное оружие 2 восприятие 3 осведомлённость 1",
                dice(2, 2, 2, 2, 9, 9),
            ),
            panel=("tap B Дальний бой", "tap B вслепую"),
        ),
        book="Восприятие + Осведомлённость: 2 2 2 2 — 0 успехов",
        house="Атака: <b>9</b> <b>9</b> 2 2 2 2 — 2 успеха",
    ),
    "combat.stand_up_difficulty": Case(
        "8",
        (*KNOCKED_DOWN, dice(7, 2, 2, 2, 2), "tap B Встать"),
        book="Борис сразу на ногах и сохраняет действие",
        house="Сразу не вышло: Борис поднимается, но на это уходит всё действие",
    ),
    "combat.stand_up_botch_soakable": Case(
        "on",
        (*KNOCKED_DOWN, dice(1, 2, 2, 2, 2, 7, 7), "tap B Встать"),
        book="Борис получает 1 уровень ударного урона, без поглощения",
        house="поглощение: <b>7</b> <b>7</b> — 2 успеха",
    ),
    "combat.stabilise_difficulty": Case(
        "8",
        ("B /dmg 3 l",),
        book="Интеллект + Медицина, сложность 6",
        house="Интеллект + Медицина, сложность 8",
    ),
    "combat.lethal_worsens_from_row": Case(
        "2",
        ("B /dmg 2 l",),
        book="заживёт через 3 дня.\n—",
        house="ухудшаются на уровень в день",
    ),
    "combat.lethal_worsening_by_track_level": Case(
        "on",
        ("B /dmg 2 b", "B /dmg 1 l"),
        book="заживёт через 1 час.\n—",
        house="ухудшаются на уровень в день",
    ),
    # ----- magick (§C) -----
    "magick.natural_witness_difficulty_extra": Case(
        "2",
        ("A /set арете 3", dice(9, 9, 2), "A /m 3 совп свид"),
        book="Арете 3к10, сложность 6",
        house="Арете 3к10, сложность 8",
    ),
    "magick.natural_witness_paradox_extra": Case(
        "2",
        ("A /set арете 3", dice(9, 9, 2), "A /m 3 совп свид"),
        book="Квинтэссенция 0 · Парадокс 0",
        house="🌀 Парадокс +2",
    ),
    "magick.modifier_cap": Case(
        "1",
        ("A /set арете 3", dice(9, 9, 2), "A /m 3 мод 3"),
        book="сложность 9",
        house="сложность 7",
    ),
    "magick.quintessence_counts_in_cap": Case(
        "off",
        ("A /set арете 3 квинтэссенция 2", dice(9, 9, 2), "A /m 3 вульг мод -3 кв 2"),
        book="Квинтэссенция (2) ничего не снизила: предел ±3.",
        # outside the cap one point takes 4 to the floor of 3; the second is not spent
        house="сложность 3 (легко), Квинтэссенция 1",
    ),
    "magick.quintessence_max_per_roll": Case(
        "1",
        ("A /set арете 3 квинтэссенция 2", dice(9, 9, 2), "A /m 3 кв 2"),
        book="Квинтэссенция 2\n<b>9</b>",
        house="на один бросок — не больше 1",
        tagged=False,
    ),
    "magick.resonance_both_allowed": Case(
        "off",
        ("A /set арете 3", "A /m", "tap A Модификаторы", "tap A подходящий", "tap A противоп"),
        book="подходящий Резонанс −1, противоположный Резонанс +1",
        house="Эти строки не сочетаются",
        tagged=False,
    ),
    "magick.wound_penalty_on_arete": Case(
        "off",
        ("A /set арете 3", "A /dmg 2 b", dice(9, 9, 2), "A /m 1"),
        book="Арете 2к10",
        house="Арете 3к10",
    ),
    "magick.magnitude_is_separate_cost": Case(
        "on",
        (
            "A /set арете 3",
            dice(9, 9, 2),
            "A /m 1",
            "tap A Распределить",
            "tap A урон",
            "tap A урон",
        ),
        book="урон: 2 → 4 уровня здоровья",
        house="Все успехи уже распределены",
    ),
    "magick.forces_damage_without_damage_successes": Case(
        "off",
        (
            "A /set арете 5 силы 2",
            dice(9, 9, 2, 2, 2),
            "A /m силы 2",
            "tap A Распределить",
            "tap A наносит урон",
        ),
        book="урон: 0 → 1 уровень здоровья",
        house="урон: 0 → 0 уровней здоровья",
    ),
    "magick.botched_ritual_adds_rolls": Case(
        "off",
        ("A /set арете 3", dice(7, 7, 2, 1, 2, 2), "A /m 1 вульг цель 6", "tap A Следующий"),
        book="🌀 Парадокс +4",
        house="🌀 Парадокс +2",
    ),
    "magick.backlash_ones_cancel": Case(
        "on",
        (*PARADOX_4, "tap A Отдача"),
        book="разряжено: 3, на треке остаётся: 1",
        house="разряжено: 2, на треке остаётся: 2",
    ),
    "magick.backlash_soakable_below_tier5": Case(
        "off",
        (*PARADOX_4, "tap A Отдача"),
        book="Поглощение: 2к10, сложность 6",
        house="Потеряно уровней здоровья: 3 (не поглощается)",
    ),
    "magick.backlash_difficulty": Case(
        "8",
        (*PARADOX_4, "tap A Отдача"),
        book="4к10 Парадокса, сложность 6",
        house="4к10 Парадокса, сложность 8",
    ),
    "magick.wheel_size": Case(
        "10",
        ("A /set арете 3", dice(9, 9, 2), "A /m 1"),
        book="<code>····················</code>",
        house="<code>··········</code>\n",
    ),
    "magick.area_counts_mage": Case(
        "on",
        (
            "A /set арете 3",
            dice(9, 9, 2),
            "A /m 1",
            "tap A Распределить",
            "tap A маг тоже в зоне",
            "tap A цели",
            "tap A цели",
        ),
        book="цели: 2 → маг и ещё 2 цели",
        house="цели: 2 → маг и ещё 1 цель",
    ),
    "magick.permanent_duration_rule": Case(
        "ten_on_duration",
        ("A /set арете 3", dice(9, 9, 2), "A /m 1", "tap A Распределить", "tap A навсегда"),
        book="длительность: 0 → навсегда",
        house="(навсегда — 10 успехов на длительность)",
    ),
    "magick.correspondence_better_link": Case(
        "off",
        (
            "A /set арете 3 связи 3",
            dice(9, 9, 2),
            "A /m связи 3",
            "tap A 📍 Связи",
            "tap A 📍3",
            "tap A 🔗1",
        ),
        book="Нужно успехов на расстояние: 1 — решает лучшая связь",
        house="Нужно успехов на расстояние: 3 — дотянуться нужно через обе",
    ),
    "magick.haunt_unit": Case(
        "weeks",
        (*PARADOX_4, "tap A Отдача"),
        book="Мороки будут преследовать мага 1 день",
        house="Мороки будут преследовать мага 1 неделю",
    ),
    "magick.barrier_adjustment": Case(
        "successes",
        ("A /set арете 2", "A /barrier", "tap A =+1"),
        book="сложность 8 · нужно успехов: 4",
        house="сложность 7 · нужно успехов: 5",
    ),
    "magick.barrier_damage_per": Case(
        "failed_die",
        ("A /set арете 2", "A /barrier", dice(2, 3), "tap A Пересечь"),
        book="непоглощаемого летального урона — 1",
        house="непоглощаемого летального урона — 2",
    ),
    # ----- vampires in a Dark Ages fight (§B.13) -----
    "vampire.bashing_halved": Case(
        "off",
        # Вера is a vampire: Борис's fists deal 8 bashing, her one soak die takes 1, 7 through
        strike(
            *HIT,
            before=("V /set поколение 12", dice(*[8] * 7, 2, 2, 2, 2, *[7] * 8, 7)),
        ),
        book="Вера получает 3 уровня ударного урона",
        house="Вера получает 7 уровней ударного урона",
        game="dark-ages",
    ),
    "vampire.potence_as_dice": Case(
        "on",
        strike(before=("B /set поколение 12 мощь 2",), panel=()),
        book="урон 2к10 +2 успеха (Мощь)",
        house="урон 4к10",
        game="dark-ages",
    ),
    "vampire.aggravated_heal_blood": Case(
        "3",
        ("V /set поколение 12 кровь 10", "V /dmg 1 т", "V /heal"),
        book="Потрачено крови: 5.",
        house="Потрачено крови: 3.",
        game="dark-ages",
    ),
    "vampire.aggravated_heal_willpower": Case(
        "on",
        ("V /set поколение 12 кровь 10 сила воли 3", "V /dmg 1 т", "V /heal"),
        book="нужен ещё день отдыха",
        house="нужны ещё очко Силы Воли и день отдыха",
        game="dark-ages",
    ),
    # ----- the d6 game (§D) -----
    "d6.mental_wounds_max_only": Case(
        "off",
        (
            "B /set сила 3 ловкость 1",
            "B /dmg 2 душ",
            "B /dmg 1 душ",
            dice(5, 5),
            "B /r сила+ловкость",
        ),
        book="шанс 2к6 (сила 3 + ловкость 1 − раны 2)",
        house="шанс 1к6 (сила 3 + ловкость 1 − раны 3)",
        game="d6",
    ),
    # Борис's needle: three measures, Вера's defence one — a gain of 2; the book's wound is the
    # final gain (AMB-D11), the house's the attacker's measures.
    "d6.poison_uses_final_gain": Case(
        "off",
        (dice(6, 6, 5, 1), "B /atk 4", dice(5), "tap V =🛡1", "tap B Итог", "tap B Яд"),
        book="получает телесную рану 2",
        house="получает телесную рану 3",
        game="d6",
        tagged=False,
    ),
    "d6.shortfall_is_fiasco": Case(
        "on",
        (dice(5, 1), "B /r 2 2"),
        book="<b>Недостаточно</b>: 1 мера успеха",
        house="<b>Фиаско</b>",
        game="d6",
    ),
    "d6.no_weakness_penalty": Case(
        "1",
        (dice(2, 2), "B /r 2"),
        book="Осложнение: рана тяжестью 3",
        house="Осложнение: рана тяжестью 1",
        game="d6",
    ),
    "d6.inactivity_wound_supporting": Case(
        "1",
        ("A /init npc Гуль 1", "tap A Выжидать", "tap A Новый раунд"),
        book="<b>Гуль</b>: 🎲 5 · на взводе −3",
        house="<b>Гуль</b>: 🎲 5 · на взводе −1",
        game="d6",
    ),
    "d6.preparation_split": Case(
        "off",
        (dice(4, 5, 2), "B /init 3", "B /init подг 3"),
        book="<b>Борис</b>: 🎲 6 6 2",
        house="<b>Борис</b>: 🎲 6 4 2",
        game="d6",
    ),
    # Борис has no power that fits, only Вера's help (+2): the book lets him roll, the house
    # rule says not to bother (S2 «даже пробовать не стоит»).
    "d6.no_power_impossible": Case(
        "on",
        (dice(5, 2), "B /r 0 +2"),
        book="шанс 2к6 (без силы + 2)",
        house="без подходящей силы это не удастся",
        game="d6",
    ),
    # The ghoul's 6 strikes Вера; Борис, holding a 2, protects her: slow by 4 (AMB-D8).
    "d6.slow_defence_of_others": Case(
        "off",
        (
            dice(6, 2, 3),
            "A /init npc Гуль 1",
            "B /init 1",
            "V /init 1",
            "tap A Действовать",
            "tap B Защитить товарища",
            "tap B =Вера",
        ),
        book="Борис защищает товарища (Вера) и откладывает 2. Неспешная защита: −4.",
        house="Неспешно защищать здесь можно только себя",
        game="d6",
    ),
    # A success without a roll (S2 «бросать кубики не нужно») counts as the house's gain.
    "d6.auto_success_gain": Case(
        "2",
        ("B /r авто",),
        book="выигрыш считается равным 1",
        house="выигрыш считается равным 2",
        game="d6",
    ),
    # Both dice are measures: the book lets Борис pay a memory for an effort that rerolls
    # nothing (AMB-D14); the house rule offers no effort then.
    "d6.special_effort_noop_allowed": Case(
        "off",
        (dice(5, 6), "B /r 2", "tap B Особое усилие", "tap B Воспоминание"),
        book="перебрасывать нечего: цена уплачена",
        house="(no button Особое усилие)",
        game="d6",
    ),
    "d6.multi_side_contests": Case(
        "off",
        (dice(5, 5, 5, 5, 1, 1, 5, 1), "B /vs 4 3 2"),
        book="🏆 Побеждает Борис, выигрыш 3.",
        house="только две стороны",
        game="d6",
        tagged=False,
    ),
}


def _markups(call: SendMessage | EditMessageText) -> InlineKeyboardMarkup | None:
    markup = call.reply_markup
    return markup if isinstance(markup, InlineKeyboardMarkup) else None


class Chat:
    """One group chat at a table, and the transcript of what the bot showed in it."""

    def __init__(self, table: Table, chat_id: int) -> None:
        self.table = table
        table.chat = TelegramChat(id=chat_id, type="supergroup", title="Chronicle")
        self.shown: list[str] = []
        self.start = self.seen = len(table.session.calls)  # this chat's calls begin here
        self.ids: dict[int, int] = {}  # call index → message id, for sent messages

    def record(self) -> None:
        calls = self.table.session.calls
        sent = iter(self.table.session.messages)
        by_call: dict[int, int] = {}
        for k, call in enumerate(calls):
            if isinstance(call, SendMessage):
                by_call[k] = next(sent).message_id
        self.ids = by_call
        for call in calls[self.seen :]:
            if isinstance(call, (SendMessage, EditMessageText)):
                self.shown.append(call.text or "")
            elif isinstance(call, AnswerCallbackQuery) and call.text:
                self.shown.append(call.text)
        self.seen = len(calls)

    def button(self, wanted: str) -> tuple[str, int] | None:
        """The newest button whose text contains ``wanted`` (``=text``: is exactly it)."""
        exact = wanted.startswith("=")
        wanted = wanted.removeprefix("=")
        calls = self.table.session.calls
        for k in range(len(calls) - 1, self.start - 1, -1):
            call = calls[k]
            if not isinstance(call, (SendMessage, EditMessageText)):
                continue
            markup = _markups(call)
            if markup is None:
                continue
            for row in markup.inline_keyboard:
                for button in row:
                    if (button.text == wanted) if exact else (wanted in button.text):
                        mid = call.message_id if isinstance(call, EditMessageText) else self.ids[k]
                        assert mid is not None
                        return button.callback_data or "", mid
        return None

    async def step(self, line: str) -> None:
        word, _space, rest = line.partition(" ")
        if word == "deal":
            self.table.rng = Dealt([int(f) for f in rest.split()], seed=11)
            return
        if word == "tap":
            who, _space, wanted = rest.partition(" ")
            found = self.button(wanted)
            if found is None:
                self.shown.append(f"(no button {wanted.removeprefix('=')})")
                return
            await self.table.tap(PLAYERS[who], found[0], found[1])
        else:
            await self.table.say(PLAYERS[word], rest)
        self.record()


async def play(table: Table, case: Case, switch: Switch | None) -> str:
    """The chat of ``case`` under the book (``switch`` None) or the house rule, in a chat of
    its own at ``table``; what the bot showed after the Storyteller's setup, each message or
    alert followed by «—»."""
    chat = Chat(table, BOOK_CHAT if switch is None else HOUSE_CHAT)
    table.rng = Dealt([], seed=11)  # dice no step deals come out the same in both chats
    if case.game != "mage":
        await chat.step(f"A /rules {case.game}")
    if switch is not None:
        await chat.step(f"A /rules set {switch.key}={case.value}")
        assert "изменены" in chat.shown[-1], chat.shown[-1]
    chat.shown.clear()
    for line in case.steps:
        await chat.step(line)
    return "".join(shown + "\n—\n" for shown in chat.shown)


def last(transcript: str) -> str:
    """What the chat shows last: the final message, edit or alert."""
    return transcript.removesuffix("\n—\n").rpartition("\n—\n")[2]


def untagged(transcript: str) -> str:
    return "\n".join(line for line in transcript.splitlines() if TAG not in line)


@pytest.mark.parametrize("switch", CATALOGUE, ids=lambda s: s.key)
async def test_each_switch_changes_what_the_chat_shows(
    table: Table, i18n: I18n, switch: Switch
) -> None:
    assert switch.key in CASES, f"no chat case for the house rule {switch.key}"
    case = CASES[switch.key]
    table.session.admins.add(STORYTELLER.id)
    book = await play(table, case, None)
    house = await play(table, case, switch)
    assert case.book in book, book
    assert case.house in house, house
    # each piece tells the two endings apart
    assert case.book not in last(house), house
    assert case.house not in last(book), book
    assert untagged(book) != untagged(house)
    assert TAG not in book, book
    if case.tagged:
        with i18n.context(), i18n.use_locale("ru"):
            name = label(switch)
        tags = [line for line in house.splitlines() if TAG in line]
        assert any(name in line for line in tags), (name, tags)


def test_the_cases_and_the_exceptions_name_real_switches() -> None:
    assert set(CASES) == set(BY_KEY)
    for key, case in CASES.items():
        assert BY_KEY[key].parse(case.value) is not None, key
