"""What the Mini App page draws: a sheet as groups of rated traits, its trackers and labels,
in the reader's language (the page itself holds no words of its own). Called inside an
I18n locale context (:mod:`bot.miniapp.server`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiogram.utils.i18n import gettext as _

from bot import rolling
from rules import probability
from rules.actions import PoolStatus
from rules.d6 import probability as d6_probability
from rules.d6.chance import DifficultyKind
from rules.errors import RulesInputError
from rules.health import TRACK_SIZE, wound_penalty
from rules.profiles import Profile
from rules.sheet import (
    Ability,
    Attribute,
    Discipline,
    Sheet,
    SheetSystem,
    Stat,
    TraitCode,
    Virtue,
    catalogue,
    trait_range,
)
from rules.spheres import Sphere
from table.traits import Lang, display_name


def lang_of(locale: str | None) -> Lang:
    return "ru" if (locale or "").lower().startswith("ru") else "en"


def _groups() -> list[tuple[str, type[Any]]]:
    return [
        (_("Attributes"), Attribute),
        (_("Abilities"), Ability),
        (_("Spheres"), Sphere),
        (_("Virtues"), Virtue),
        (_("Disciplines"), Discipline),
    ]


def _value(sheet: Sheet, code: TraitCode) -> int:
    if isinstance(code, Sphere):
        return sheet.spheres.get(code.value, 0)
    return sheet.traits.get(code.value, 0)


def _trait(sheet: Sheet, code: TraitCode, lang: Lang, value: int | None = None) -> dict[str, Any]:
    low, high = trait_range(code, supernatural=sheet.supernatural)
    return {
        "code": code.value,
        "name": display_name(code, lang, sheet.system),
        "value": _value(sheet, code) if value is None else value,
        "min": low,
        "max": min(high, 10),
        "rollable": isinstance(code, (Attribute, Ability, Sphere, Virtue, Discipline))
        or code in (Stat.WILLPOWER, Stat.ARETE, Stat.HUMANITY),
    }


def draw(sheet: Sheet, profile: Profile, lang: Lang) -> dict[str, Any]:
    system = sheet.system
    drawn: dict[str, Any] = {"system": system.value, "groups": _trait_groups(sheet, lang)}
    if system is not SheetSystem.D6:  # the d6 game counts wounds as difficulties instead
        drawn["health"] = _health(sheet)
        drawn["willpower"] = {
            "name": display_name(Stat.WILLPOWER, lang, system),
            "permanent": sheet.willpower or 0,
            "current": sheet.willpower_current
            if sheet.willpower_current is not None
            else (sheet.willpower or 0),
        }
    if system is SheetSystem.MAGE:
        drawn["wheel"] = {
            "quintessence": sheet.quintessence,
            "paradox": sheet.paradox,
            "size": profile.magick.wheel_size,
        }
    if system is SheetSystem.DARK_AGES:
        drawn["blood"] = sheet.blood or 0
    if system is SheetSystem.D6:
        drawn["d6"] = _d6(sheet)
    return drawn


def _trait_groups(sheet: Sheet, lang: Lang) -> list[dict[str, Any]]:
    """The sheet's traits by group in the catalogue's order, empty groups left out, then the
    system's own advantage (Arete, Humanity) as a group of its own."""
    system = sheet.system
    codes = catalogue(system)
    groups: list[dict[str, Any]] = []
    for title, kind in _groups():
        traits = [_trait(sheet, c, lang) for c in codes if isinstance(c, kind)]
        if traits:
            groups.append({"title": title, "traits": traits})
    stats: list[dict[str, Any]] = []
    if system is SheetSystem.MAGE:
        stats.append(_trait(sheet, Stat.ARETE, lang, sheet.arete or 0))
    if system is SheetSystem.DARK_AGES:
        stats.append(_trait(sheet, Stat.HUMANITY, lang, sheet.humanity or 0))
    if stats:
        groups.append({"title": _("Advantages"), "traits": stats})
    return groups


def _health(sheet: Sheet) -> dict[str, Any]:
    """The health track padded to its full length, with the penalty it gives now, so the
    page draws the track without knowing the rules."""
    penalty = wound_penalty(sheet.health)
    return {
        "boxes": [b.value for b in sheet.health.boxes]
        + [""] * (TRACK_SIZE - len(sheet.health.boxes)),
        "dead": sheet.health.dead,
        "penalty": penalty.penalty,
        "can_act": penalty.can_act,
        "levels": _levels(),
        "penalties": [0, -1, -1, -2, -2, -5, None],
    }


def _d6(sheet: Sheet) -> dict[str, Any]:
    """The d6 sheet's powers, weakness, luck and wounds, with the wound kinds' words the
    page offers when a wound is added."""
    return {
        "powers": [{"name": p.name, "value": p.level} for p in sheet.powers],
        "weakness": sheet.weakness or 0,
        "luck": sheet.luck,
        "wounds": [
            {"kind": str(w.kind), "value": w.magnitude, "name": _wound_word(w.kind)}
            for w in sheet.wounds
        ],
        "kinds": {
            DifficultyKind.PHYSICAL_WOUND.value: _wound_word(DifficultyKind.PHYSICAL_WOUND),
            DifficultyKind.MENTAL_WOUND.value: _wound_word(DifficultyKind.MENTAL_WOUND),
        },
    }


def _wound_word(kind: DifficultyKind) -> str:
    if kind is DifficultyKind.PHYSICAL_WOUND:
        return _("physical wound")
    return _("mental wound")


def _levels() -> list[str]:
    return [
        _("Bruised"),
        _("Hurt"),
        _("Injured"),
        _("Wounded"),
        _("Mauled"),
        _("Crippled"),
        _("Incapacitated"),
    ]


def labels() -> dict[str, str]:
    """Every word the page shows, in the reader's language."""
    return {
        "health": _("Health"),
        "penalty": _("Wound penalty"),
        "bashing": _("Bashing"),
        "lethal": _("Lethal"),
        "aggravated": _("Aggravated"),
        "quintessence": _("Quintessence"),
        "paradox": _("Paradox"),
        "blood": _("Blood pool"),
        "spend": _("Spend"),
        "gain": _("Gain"),
        "roll": _("Roll"),
        "difficulty": _("Difficulty"),
        "threshold": _("Threshold"),
        "success": _("Success"),
        "botch": _("Botch"),
        "fiasco": _("Fiasco"),
        "pick": _("Tap traits to roll them"),
        "posted": _("The roll is posted in the chat"),
        "updated": _("The sheet was updated"),
        "refused": _("Not possible on this sheet"),
        "readonly": _("Read only"),
        "powers": _("Powers"),
        "weakness": _("Weakness"),
        "luck": _("Luck dice"),
        "wounds": _("Wounds"),
        "whose": _("Whose sheet"),
        "mine": _("My sheet"),
        "cannot_act": _("Cannot act"),
        "title": _("Character sheet"),
        "required": _("Measures required"),
    }


def read_only_note(name: str) -> str:
    """Said above a sheet another player reads, so nobody takes it for their own."""
    return _("{name}'s sheet: read only").format(name=name)


def pool_status(pool: rolling.Pool) -> str:
    return PoolStatus.ROLL.value if pool.dice > 0 else PoolStatus.IMPOSSIBLE.value


def odds(
    sheet: Sheet,
    profile: Profile,
    codes: Sequence[str],
    difficulty: int,
    willpower: bool,
    threshold: int,
) -> dict[str, Any]:
    """The pool the picked traits make on the sheet (wounds taken) and the exact chances of
    the roll, as ``/prob`` reckons them."""
    roller = rolling.Roller(0, 0, "")
    try:
        pool = rolling.pool_of(sheet, roller, profile, rolling.PoolAsk(traits="+".join(codes)))
    except rolling.PoolRefused as refused:
        return {"refused": refused.text}
    if pool.dice < 1:
        return {"refused": _("No dice to roll")}
    try:
        rated = pool.difficulty(difficulty, profile, threshold)
        law = probability.d10(pool.dice, rated.difficulty, profile, willpower, rated.threshold)
    except RulesInputError:
        return {"refused": _("No dice to roll")}
    return {
        "pool": pool.dice,
        "wound_penalty": pool.wound_penalty,
        "difficulty": rated.difficulty,
        "success": law.success,
        "botch": law.botch,
        "status": pool_status(pool),
    }


def d6_odds(
    sheet: Sheet,
    profile: Profile,
    owner: str,
    powers: Sequence[str],
    required: int,
    weakness: bool,
    luck: int,
) -> dict[str, Any]:
    """The chance the picked powers make (weakness, wounds and luck counted) and the exact
    odds of at least ``required`` measures and of a fiasco."""
    ask = rolling.D6Ask(powers=tuple(powers), weakness=weakness, luck=luck)
    try:
        pool = rolling.d6_pool_of(sheet, owner, profile, ask)
    except rolling.PoolRefused as refused:
        return {"refused": refused.text}
    if pool.dice < 1:
        return {"refused": _("No dice to roll")}
    return {
        "pool": pool.dice,
        "difficulty": required,
        "success": float(d6_probability.p_success(pool.dice, required)),
        "botch": float(d6_probability.p_fiasco(pool.dice)),
        "status": PoolStatus.ROLL.value,
    }


def refusal_text(status: int) -> str:
    """What the page says when the API refuses it."""
    if status == 401:
        return _("Open the sheet from Telegram: this page's launch data is missing or too old.")
    if status == 403:
        return _("This sheet is not yours to open here.")
    if status == 503:
        return _("The bot cannot reach its storage right now: try again in a minute.")
    return _("The page asked for something it cannot do: reload it.")
