"""Dark Ages example rolls as data, for ``/roll`` suggestions (docs/rules.md §A.16).

S1 «Ниже приведены примеры бросков на действия, чаще всего выполняемые в процессе игры»: each
entry is an Attribute + Ability pair and a difficulty, some with what a number of successes
buys. Traits (the sheet's codes, :mod:`rules.sheet`), situations and notes are codes; their
Russian and English names live in ``table/traits.py`` and ``locales/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.errors import ErrorCode, RulesInputError, check_int
from rules.sheet import DARK_AGES_ABILITIES, Ability, Attribute

__all__ = [
    "DARK_AGES_ABILITY_COUNT",
    "PRESETS",
    "Ability",
    "Attribute",
    "Note",
    "NoteCode",
    "Preset",
    "Situation",
    "note_for",
    "preset",
]


DARK_AGES_ABILITY_COUNT = len(DARK_AGES_ABILITIES)  # the V:DA sheet; S1's 270 = 9 × 30


class Situation(StrEnum):
    BALLAD_FOR_LORD = "ballad_for_lord"
    FIND_RARE_HERB = "find_rare_herb"
    INTIMIDATE_BY_MIGHT = "intimidate_by_might"
    LEAP_FROM_TOWER = "leap_from_tower"
    SPOT_ARCHER = "spot_archer"
    RAISE_PEASANTS = "raise_peasants"
    IMPRESS_MAIDEN = "impress_maiden"
    HORSE_OVER_LOG = "horse_over_log"
    DODGE_CROSSBOW = "dodge_crossbow"
    RECOGNISE_FAERIE_GLADE = "recognise_faerie_glade"
    TRANSLATE_MANUSCRIPT = "translate_manuscript"
    POISON_CUP = "poison_cup"
    PROVE_FIEF = "prove_fief"
    MOUNT_STRANGE_HORSE = "mount_strange_horse"
    FEIGN_DEATH = "feign_death"
    SNEAK_INTO_HOUSE = "sneak_into_house"
    UNDERSTAND_MESSENGER = "understand_messenger"
    KNIFE_NOT_ARROW = "knife_not_arrow"
    ALLY_NOBLES = "ally_nobles"
    HIDE_FROM_MOB = "hide_from_mob"  # Anatole's worked example (T-24), not in S1's list


class NoteCode(StrEnum):
    """What a number of successes buys, where S1 says so."""

    DUCKED_INTO_COVER = "ducked_into_cover"  # 1: «просто нырнули под какое-то прикрытие»
    CROUCHED_BEHIND_LEDGE = "crouched_behind_ledge"  # 2: «скорчиться за небольшим выступом»
    UNSEEN_NO_PERCEPTION_ROLL = "unseen_no_perception_roll"  # 3: «у толпы нет … броска»
    UNDERSTANDS_EVERYTHING = "understands_everything"  # 3: «вы поймете все»
    SUPPORT_WITHOUT_TROOPS = "support_without_troops"  # 1: «своих людей вам не дадут»
    NOBLES_JOIN_BATTLE = "nobles_join_battle"  # 5: «сами присоединятся к вам на поле битвы»


@dataclass(frozen=True)
class Note:
    successes: int
    code: NoteCode


@dataclass(frozen=True)
class Preset:
    situation: Situation
    attribute: Attribute
    ability: Ability
    difficulty: int
    notes: tuple[Note, ...] = ()


PRESETS: tuple[Preset, ...] = (
    Preset(Situation.BALLAD_FOR_LORD, Attribute.CHARISMA, Ability.MUSIC, 7),
    Preset(Situation.FIND_RARE_HERB, Attribute.PERCEPTION, Ability.HERBALISM, 8),
    Preset(Situation.INTIMIDATE_BY_MIGHT, Attribute.STRENGTH, Ability.INTIMIDATION, 7),
    Preset(Situation.LEAP_FROM_TOWER, Attribute.DEXTERITY, Ability.ATHLETICS, 5),
    Preset(Situation.SPOT_ARCHER, Attribute.PERCEPTION, Ability.ALERTNESS, 9),
    Preset(Situation.RAISE_PEASANTS, Attribute.CHARISMA, Ability.LEADERSHIP, 8),
    Preset(Situation.IMPRESS_MAIDEN, Attribute.APPEARANCE, Ability.ETIQUETTE, 8),
    Preset(Situation.HORSE_OVER_LOG, Attribute.MANIPULATION, Ability.RIDE, 7),
    Preset(Situation.DODGE_CROSSBOW, Attribute.WITS, Ability.DODGE, 6),
    Preset(Situation.RECOGNISE_FAERIE_GLADE, Attribute.PERCEPTION, Ability.OCCULT, 8),
    Preset(Situation.TRANSLATE_MANUSCRIPT, Attribute.INTELLIGENCE, Ability.ACADEMICS, 6),
    Preset(Situation.POISON_CUP, Attribute.DEXTERITY, Ability.LARCENY, 8),
    Preset(Situation.PROVE_FIEF, Attribute.MANIPULATION, Ability.LAW, 6),
    Preset(Situation.MOUNT_STRANGE_HORSE, Attribute.MANIPULATION, Ability.ANIMAL_KEN, 7),
    Preset(Situation.FEIGN_DEATH, Attribute.STAMINA, Ability.ACTING, 7),
    Preset(Situation.SNEAK_INTO_HOUSE, Attribute.DEXTERITY, Ability.STEALTH, 6),
    Preset(
        Situation.UNDERSTAND_MESSENGER,
        Attribute.PERCEPTION,
        Ability.LINGUISTICS,
        9,
        (Note(3, NoteCode.UNDERSTANDS_EVERYTHING),),
    ),
    Preset(Situation.KNIFE_NOT_ARROW, Attribute.PERCEPTION, Ability.INVESTIGATION, 9),
    Preset(
        Situation.ALLY_NOBLES,
        Attribute.MANIPULATION,
        Ability.POLITICS,
        7,
        (Note(1, NoteCode.SUPPORT_WITHOUT_TROOPS), Note(5, NoteCode.NOBLES_JOIN_BATTLE)),
    ),
    Preset(
        Situation.HIDE_FROM_MOB,
        Attribute.DEXTERITY,
        Ability.STEALTH,
        7,
        (
            Note(1, NoteCode.DUCKED_INTO_COVER),
            Note(2, NoteCode.CROUCHED_BEHIND_LEDGE),
            Note(3, NoteCode.UNSEEN_NO_PERCEPTION_ROLL),
        ),
    ),
)

_BY_SITUATION = {p.situation: p for p in PRESETS}


def preset(situation: Situation | str) -> Preset:
    """The preset for a situation code; an unknown code is ``E_UNKNOWN_KEY``."""
    try:
        return _BY_SITUATION[Situation(situation)]
    except ValueError:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "situation", str(situation)) from None


def note_for(entry: Preset, successes: int) -> NoteCode | None:
    """The best note the successes reach: S1's thresholds are minimums, so 3 successes on the
    nobles still only win their support without troops (the five-success note is not reached)."""
    if not isinstance(entry, Preset):
        raise RulesInputError(ErrorCode.TYPE, "entry", "expected Preset")
    check_int(successes, "successes", 0)
    reached = [n for n in entry.notes if successes >= n.successes]
    return max(reached, key=lambda n: n.successes).code if reached else None
