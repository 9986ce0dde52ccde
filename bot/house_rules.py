"""House rules: the switches of ``rules.profiles`` a table may flip per chat (docs/product.md
"/rules", docs/rules.md §A.0 and §F).

The catalogue is read off the :class:`~rules.profiles.Profile` model itself, so a switch added
to the rules is a house rule at once: booleans, enums and the bounded numbers, grouped as the
table thinks of them (dice and Willpower; extended, opposed and teamwork; combat and health;
magick; d6). Structural columns (the game system, the difficulty bounds, the pool's sanity
limit) are not house rules. A chat keeps only its overrides (``ChatSettings.switches``); a
switch back at the profile's value is dropped, so "changed" always means "differs from the
book the table chose".
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n.context import get_i18n
from pydantic import BaseModel, ValidationError

from bot.house_rules_text import SWITCHES, VALUES
from rules import profiles
from rules.profiles import GameSystem, Profile
from table import vocabulary
from table.traits import normalise

EXPORT_MARK = "sdb-rules-v1"
SwitchValue = bool | int | str


class Group(StrEnum):
    DICE = "dice"
    TABLE = "table"
    COMBAT = "combat"
    MAGICK = "magick"
    D6 = "d6"
    VAMPIRE = "vampire"


_TOP_GROUPS: dict[str, Group] = {
    "botch_rule": Group.DICE,
    "threshold_rule": Group.DICE,
    "auto_success": Group.DICE,
    "auto_success_costs_wp": Group.DICE,
    "wp_auto_success": Group.DICE,
    "wp_cancellable_by_ones": Group.DICE,
    "wp_prevents_botch": Group.DICE,
    "wp_eaten_by_threshold": Group.DICE,
    "zero_ability": Group.DICE,
    "multiple_actions": Group.TABLE,
    "max_declared_actions": Group.TABLE,
    "retry_penalty": Group.TABLE,
    "extended_botch": Group.TABLE,
    "team_botch": Group.TABLE,
}
_NESTED_GROUPS = {
    "combat": Group.COMBAT,
    "magick": Group.MAGICK,
    "d6": Group.D6,
    "vampire": Group.VAMPIRE,
}

# The numbers a table may choose, where a number is a switch (a difficulty is one of §A.4's).
_INT_DOMAINS: dict[str, tuple[int, int]] = {
    "max_declared_actions": (1, 10),
    "combat.lethal_worsens_from_row": (1, 7),
    "combat.immobilized_auto_hit_successes": (1, 5),  # an automatic hit is one at least
    "vampire.aggravated_heal_blood": (1, 10),
    "magick.natural_witness_difficulty_extra": (0, 3),
    "magick.natural_witness_paradox_extra": (0, 3),
    "magick.modifier_cap": (1, 5),
    "magick.quintessence_max_per_roll": (0, 5),
    "magick.wheel_size": (10, 30),
    "d6.auto_success_gain": (0, 3),
    "d6.no_weakness_penalty": (1, 5),
    "d6.inactivity_wound_supporting": (1, 5),
}
DIFFICULTY_DOMAIN = (2, 10)


@dataclass(frozen=True)
class Switch:
    """One house rule: its key (``botch_rule``, ``combat.soak_difficulty``), its group and the
    values it may take, in the order a button steps through them."""

    key: str
    group: Group
    values: tuple[SwitchValue, ...]

    @property
    def leaf(self) -> str:
        return self.key.rpartition(".")[2]

    def parse(self, text: str) -> SwitchValue | None:
        """A typed value (``on``/``off``, ``да``/``нет``, an enum's name in English or its
        Russian word, a number), or None if not one of this switch's values."""
        word = text.strip().casefold()
        if isinstance(self.values[0], bool):
            if word in _TRUE:
                return True
            if word in _FALSE:
                return False
            return None
        if isinstance(self.values[0], int):
            if word.lstrip("-").isdecimal() and len(word) <= 3 and int(word) in self.values:
                return int(word)
            return None
        if word in self.values:
            return word
        return _VALUE_WORDS.get(typed_key(word)) if typed_key(word) in _VALUE_WORDS else None


_TRUE = vocabulary.YES
_FALSE = vocabulary.NO


def typed_key(text: str) -> str:
    """How a typed name is compared: case, «ё», and «_» or «-» between words ignored."""
    return "_".join(normalise(text).split())


_VALUE_WORDS = {typed_key(ru): value for value, ru in vocabulary.HOUSE_RULE_VALUES.items()}
_NAME_WORDS = {typed_key(ru): key for key, ru in vocabulary.HOUSE_RULE_NAMES.items()}


def _values(key: str, annotation: Any, default: Any) -> tuple[SwitchValue, ...] | None:
    if annotation is bool:
        return (True, False)
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return tuple(m.value for m in annotation)
    if annotation is int:
        lo, hi = _INT_DOMAINS.get(key, DIFFICULTY_DOMAIN if key.endswith("difficulty") else (0, 0))
        if hi == 0:
            return None
        return tuple(range(lo, hi + 1))
    return None


def _walk(model: type[BaseModel], prefix: str, group: Group | None) -> list[Switch]:
    found: list[Switch] = []
    for name, field in model.model_fields.items():
        key = prefix + name
        if not prefix and name in _NESTED_GROUPS:
            annotation = field.annotation
            assert isinstance(annotation, type)
            assert issubclass(annotation, BaseModel)
            found += _walk(annotation, name + ".", _NESTED_GROUPS[name])
            continue
        switch_group = group if prefix else _TOP_GROUPS.get(name)
        if switch_group is None:
            continue
        values = _values(key, field.annotation, field.default)
        if values is not None:
            found.append(Switch(key=key, group=switch_group, values=values))
    return found


CATALOGUE: tuple[Switch, ...] = tuple(_walk(Profile, "", None))
BY_KEY: dict[str, Switch] = {s.key: s for s in CATALOGUE}


def groups_for(profile: Profile) -> tuple[Group, ...]:
    """The groups that mean something in the chat's game: the d6 game has its own; magick
    only where there are mages."""
    if profile.system is GameSystem.D6:
        return (Group.D6,)
    shown = [Group.DICE, Group.TABLE, Group.COMBAT]
    if profile.name in ("mage", "mage-revised"):
        shown.append(Group.MAGICK)
    else:
        shown.append(Group.VAMPIRE)  # §B.13: the Kindred are Dark Ages'
    return tuple(shown)


def find_group(word: str) -> Group | None:
    """A group by its English name (``combat``) or its Russian word (``бой``)."""
    key = typed_key(word)
    for group in Group:
        if key in (group.value, typed_key(vocabulary.HOUSE_RULE_GROUPS[group.value])):
            return group
    return None


def switches_of(group: Group) -> tuple[Switch, ...]:
    return tuple(s for s in CATALOGUE if s.group is group)


def find(name: str) -> Switch | None:
    """A switch by its Russian name (``провал``), its key, its last part when that is unique
    (``soak_difficulty``), or without ``_rule`` (``botch`` for ``botch_rule``)."""
    word = name.strip().casefold()
    if typed_key(word) in _NAME_WORDS:
        return BY_KEY[_NAME_WORDS[typed_key(word)]]
    if word in BY_KEY:
        return BY_KEY[word]
    for candidate in (word, word + "_rule"):
        leaves = [s for s in CATALOGUE if s.leaf == candidate]
        if len(leaves) == 1:
            return leaves[0]
    return None


# The JSON form of recent profiles, by identity: a roll asks for a dozen switches of the same
# profile, and dumping the whole model for each was a tenth of a roll's CPU (bench/e2e.py).
# The weak reference tells a live profile from a new one that reuses a dead one's id.
_DUMPS: dict[int, tuple[weakref.ref[Profile], dict[str, Any]]] = {}
_DUMPS_KEPT = 256


def profile_json(profile: Profile) -> dict[str, Any]:
    """``profile.model_dump(mode="json")``, made once per profile object (frozen, so it never
    changes); the caller must not change what it gets."""
    known = _DUMPS.get(id(profile))
    if known is not None and known[0]() is profile:
        return known[1]
    if len(_DUMPS) >= _DUMPS_KEPT:
        _DUMPS.clear()
    dumped: dict[str, Any] = profile.model_dump(mode="json")
    _DUMPS[id(profile)] = (weakref.ref(profile), dumped)
    return dumped


def value_of(profile: Profile, switch: Switch) -> SwitchValue:
    data: Any = profile_json(profile)
    for part in switch.key.split("."):
        data = data[part]
    value: SwitchValue = data
    return value


def base_profile(profile_name: str) -> Profile:
    return profiles.get(profile_name)


class HouseRuleError(ValueError):
    """A switch or value that is not one; ``switch`` is set when only the value was wrong."""

    def __init__(self, name: str, switch: Switch | None = None) -> None:
        super().__init__(name)
        self.name = name
        self.switch = switch


def with_switch(
    profile_name: str, switches: dict[str, SwitchValue], switch: Switch, value: SwitchValue
) -> dict[str, SwitchValue]:
    """The chat's overrides after setting ``switch``; a value equal to the profile's own drops
    the override. The result is checked against the profile model (nothing invalid is kept)."""
    base = base_profile(profile_name)
    updated = {k: v for k, v in switches.items() if k != switch.key}
    if value_of(base, switch) != value:
        updated[switch.key] = value
    _check(base, updated)
    return updated


def _check(base: Profile, switches: dict[str, SwitchValue]) -> None:
    data = base.model_dump()
    for key, value in switches.items():
        section, _dot, name = key.partition(".")
        if name:
            data[section] = {**data[section], name: value}
        else:
            data[section] = value
    try:
        Profile.model_validate(data)
    except ValidationError as error:
        raise HouseRuleError(str(error)) from None


def kept_on_switch(
    new_profile: str, switches: dict[str, SwitchValue]
) -> tuple[dict[str, SwitchValue], list[str]]:
    """Switching the game: the overrides that still apply (their group is the new game's and
    they differ from its book), and the keys dropped."""
    base = base_profile(new_profile)
    allowed = set(groups_for(base))
    kept: dict[str, SwitchValue] = {}
    dropped: list[str] = []
    for key, value in switches.items():
        switch = BY_KEY.get(key)
        if switch is None or switch.group not in allowed:
            dropped.append(key)
        elif value_of(base, switch) != value:
            kept[key] = value
    return kept, dropped


def reset(switches: dict[str, SwitchValue], group: Group | None = None) -> dict[str, SwitchValue]:
    if group is None:
        return {}
    return {k: v for k, v in switches.items() if k in BY_KEY and BY_KEY[k].group is not group}


def _russian() -> bool:
    return get_i18n().current_locale != "en"


def typed_name(switch: Switch) -> str:
    """The name a player types for the switch, in the chat's language: ``провал`` in
    Russian, ``botch`` in English (the key's last part, unique, without ``_rule``)."""
    if _russian():
        return vocabulary.HOUSE_RULE_NAMES[switch.key]
    return switch.leaf.removesuffix("_rule")


def text_value(value: SwitchValue) -> str:
    """A value as a player types it, in the chat's language (``да``, ``после_отмены``)."""
    if isinstance(value, bool):
        if _russian():
            return vocabulary.HOUSE_RULE_YES if value else vocabulary.HOUSE_RULE_NO
        return "on" if value else "off"
    if isinstance(value, str) and _russian():
        return vocabulary.HOUSE_RULE_VALUES.get(value, value)
    return str(value)


def export_line(switches: dict[str, SwitchValue]) -> str:
    """The table's house rules as one line another chat can import (in the words of the
    chat that exports; the import reads either language)."""
    pairs = " ".join(
        f"{typed_name(BY_KEY[k])}={text_value(v)}"
        for k, v in sorted(switches.items())
        if k in BY_KEY
    )
    return f"{EXPORT_MARK} {pairs}".strip()


def parse_assignments(words: list[str]) -> list[tuple[Switch, SwitchValue]]:
    """``botch=net_negative``, ``wp_auto_success=off`` (or ``key value`` pairs), a name or a
    value of several words as the catalogue shows them with spaces (``провал=без успехов``,
    ``единицы против св=нет``); the first bad name or value raises :class:`HouseRuleError`."""
    found: list[tuple[Switch, SwitchValue]] = []
    i = 0
    while i < len(words):
        if words[i] == EXPORT_MARK:
            i += 1
            continue
        i, name, value = _named(words, i)
        switch = find(name)
        if switch is None:
            raise HouseRuleError(name)
        parsed = switch.parse(value)
        # «без успехов»: the words after the value while they make one of its values
        for more in range(1, _WORDS_MAX):
            if parsed is not None or i + more >= len(words) or "=" in words[i + more]:
                break
            parsed = switch.parse(" ".join([value, *words[i + 1 : i + more + 1]]))
            if parsed is not None:
                i += more
        if parsed is None:
            raise HouseRuleError(value, switch)
        found.append((switch, parsed))
        i += 1
    return found


_WORDS_MAX = 4  # the longest name or value of the catalogue, in words


def _named(words: list[str], i: int) -> tuple[int, str, str]:
    """The switch's name at ``words[i]`` (of several words when an «=» follows within
    reach) and its value: the index of the value's word, the name, the value."""
    name, eq, value = words[i].partition("=")
    if eq:
        return i, name, value
    if find(name) is None:
        for last in range(i + 1, min(i + _WORDS_MAX, len(words))):
            head, eq, value = words[last].partition("=")
            if eq and find(" ".join([*words[i:last], head])) is not None:
                return last, " ".join([*words[i:last], head]), value
    if i + 1 >= len(words):
        raise HouseRuleError(name)
    return i + 1, name, words[i + 1]


def label(switch: Switch) -> str:
    known = SWITCHES.get(switch.key)
    return str(known[0]) if known is not None else switch.leaf


def describe(switch: Switch) -> str:
    """One or two lines: the book's reading and the proposal it defaults to (docs/rules.md §F)."""
    known = SWITCHES.get(switch.key)
    return str(known[1]) if known is not None else ""


def shown_value(value: SwitchValue) -> str:
    if isinstance(value, bool):
        return _("on") if value else _("off")
    known = VALUES.get(str(value))
    return str(known) if known is not None else str(value)


# The d6 switches that change what a roll's result means (§D.2–§D.4).
_D6_ROLL_RULES = frozenset(
    {
        "d6.mental_wounds_max_only",
        "d6.no_power_impossible",
        "d6.shortfall_is_fiasco",
        "d6.special_effort_noop_allowed",
        "d6.no_weakness_penalty",  # the fiasco's complication of a hero without weakness
    }
)


# Single switches a result outside its own group depends on: a soak (§B.10) and the care
# lethal wounds need (§B.11), wherever a wound is shown.
SOAK_RULES = ("combat.soak_difficulty", "combat.soak_ones_cancel", "combat.stamina_soaks_lethal")
# What a vampire's wound also depends on (§B.13).
VAMPIRE_SOAK_RULES = ("vampire.bashing_halved",)
AGGRAVATED_HEAL_RULES = ("vampire.aggravated_heal_blood", "vampire.aggravated_heal_willpower")
CARE_RULES = (
    "combat.stabilise_difficulty",
    "combat.lethal_worsens_from_row",
    "combat.lethal_worsening_by_track_level",
)


def changed_dice_rules(
    profile: Profile, *also: Group, dice: bool = True, keys: tuple[str, ...] = ()
) -> list[Switch]:
    """The switches of a roll's meaning where the chat's profile differs from its book (dice
    and Willpower in the d10 games unless ``dice`` is off, the roll's own rules in d6, and the
    single switches ``keys`` a result also depends on): what a result must own up to."""
    try:
        base = base_profile(profile.name)
    except Exception:
        return []
    if profile is base:  # the book's own profile: nothing differs (most chats)
        return []
    if profile.system is GameSystem.D6:
        shown = [s for s in switches_of(Group.D6) if s.key in _D6_ROLL_RULES] if dice else []
    else:
        groups = (Group.DICE, *also) if dice else also
        shown = [s for g in groups for s in switches_of(g)]
    shown += [BY_KEY[k] for k in keys if BY_KEY[k] not in shown]
    return [s for s in shown if value_of(profile, s) != value_of(base, s)]


def house_tag(
    profile: Profile, *also: Group, dice: bool = True, keys: tuple[str, ...] = ()
) -> str | None:
    """«🏠 дом. правило: …» under a roll whose meaning a flipped switch changed: the dice and
    Willpower rules (unless ``dice`` is off: the tracker rolls no action), ``also`` the
    groups of the roll's own kind (the table rolls'), and ``keys`` the single switches of
    another group the result depends on (a retry's penalty, a wound's soak)."""
    changed = changed_dice_rules(profile, *also, dice=dice, keys=keys)
    if not changed:
        return None
    return "🏠 " + "; ".join(f"{label(s)}: {shown_value(value_of(profile, s))}" for s in changed)
