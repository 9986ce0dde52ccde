"""The words about sheets that the core and several features share: trait names in the
reader's language, a refused trait name with its candidates, the player who has no sheet
yet, and the health line of §B.9 (docs/product.md "Character sheet").

Trait names come from :mod:`table.traits` (Russian names follow the seeds: S4 for Mage, S1
for Dark Ages); the words around them from the Babel catalogues.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __
from babel.support import LazyProxy

from rules.combat.situation import Condition
from rules.health import DamageType, HealthLevel, HealthTrack, wound_penalty
from rules.sheet import SheetSystem, TraitCode
from rules.vampire import torpid
from table.traits import Lang, NameProblem, TraitNameError, display_name

# The marker every sheet message starts with, the «no sheet yet» answers too: a reply to such
# a message with lines of traits writes them (handlers/sheet recognises its messages by it).
SHEET_MARK = "📜"

# What a refusal quotes back of the player's text, and how many refused lines it lists: a
# 4000-character word or a 2000-line paste must still get a reply Telegram accepts.
ECHO_MAX = 40


TRACK_BOXES = 7


_BOX = {DamageType.BASHING: "/", DamageType.LETHAL: "X", DamageType.AGGRAVATED: "✱"}


_LEVELS: dict[HealthLevel, LazyProxy] = {
    HealthLevel.HEALTHY: __("Healthy"),
    HealthLevel.BRUISED: __("Bruised"),
    HealthLevel.HURT: __("Hurt"),
    HealthLevel.INJURED: __("Injured"),
    HealthLevel.WOUNDED: __("Wounded"),
    HealthLevel.MAULED: __("Mauled"),
    HealthLevel.CRIPPLED: __("Crippled"),
    HealthLevel.INCAPACITATED: __("Incapacitated"),
    HealthLevel.DEAD: __("Dead"),
}


def lang_of(locale: str) -> Lang:
    return "en" if locale == "en" else "ru"


def trait_name(code: TraitCode, lang: Lang, system: SheetSystem) -> str:
    return escape(display_name(code, lang, system))


def wounds_text(wound_penalty: int) -> str:
    """The one form every roll and health line shows the wound penalty in (§B.9): «−1 за
    раны», with a real minus whichever sign the caller keeps the penalty in."""
    return _("{n} for wounds").format(n=f"−{abs(wound_penalty)}")


def torpor_text() -> str:
    """§B.13: a vampire at «Без Сознания» is in torpor, not unconscious."""
    return "💤 " + _("Torpor")


def health_line(track: HealthTrack, *, vampire: bool = False) -> str:
    """§B.9: the level reached, its dice penalty, and the seven boxes (/ bashing, X lethal,
    ✱ aggravated, as S4 marks them); a vampire at «Без Сознания» lies in torpor (§B.13)."""
    row = wound_penalty(track)
    boxes = [_BOX[b] for b in track.boxes] + ["·"] * (TRACK_BOXES - len(track.boxes))
    level = str(_LEVELS[row.level])
    if vampire and torpid(track):
        state = torpor_text() + " — " + _("cannot act until blood mends a level")
    elif not row.can_act:
        state = level + " — " + _("cannot act")
    elif row.penalty:
        state = f"{level} ({wounds_text(row.penalty)})"
    else:
        state = level
    return "<b>" + _("Health") + f"</b>: {state} [{' '.join(boxes)}]"


WHEEL_SIZE = 20  # AMB-C13: the house sheet does not give it; the profiles' default


def wheel_track(quintessence: int, paradox: int, size: int = WHEEL_SIZE) -> str:
    """§C.11: one track, Quintessence ◆ from one end, Paradox ✶ from the other («с конца»),
    free boxes · between; Paradox beyond the track is still counted in the numbers."""
    shown = min(paradox, size)
    free = max(0, size - quintessence - shown)
    return "<code>" + "◆" * quintessence + "·" * free + "✶" * shown + "</code>"


def health_tag(track: HealthTrack, *, vampire: bool = False) -> str:
    """The health line cut to one tag for a list (the round tracker): nothing while healthy,
    else the level with its penalty and the boxes (§B.9); a vampire's torpor (§B.13)."""
    row = wound_penalty(track)
    if not track.boxes and not track.dead:
        return ""
    level = str(_LEVELS[row.level])
    if vampire and torpid(track):
        level = torpor_text()
    boxes = "".join(_BOX[b] for b in track.boxes)
    if not row.can_act:
        return f"🩸 {level} [{boxes}]"
    penalty = f", {wounds_text(row.penalty)}" if row.penalty else ""
    return f"🩸 {level}{penalty} [{boxes}]"


def condition_name(condition: Condition) -> str:
    """A §B.8 condition as the tracker line and a roll's tag name it."""
    if condition is Condition.PRONE:
        return _("knocked down")
    if condition is Condition.STUNNED:
        return _("stunned")
    if condition is Condition.IMMOBILIZED_PARTIAL:
        return _("partly immobilized")
    if condition is Condition.IMMOBILIZED_FULL:
        return _("immobilized")
    return _("blinded")


def no_sheet_text(owner: str, *, d6: bool = False) -> str:
    """Said under a roll that needs a sheet; the roll's own example follows it, so this one
    tells how to fill the sheet without a second «Пример:». It starts with the sheet's mark,
    so a paste in reply to it fills the sheet."""
    fill = (
        _(
            "Fill it in with /set fire 2 weakness 3, /set alone for buttons, or reply to this "
            "message with the sheet's lines."
        )
        if d6
        else _(
            "Fill it in with /set dexterity 3 brawl 2, /set alone for buttons, or reply to "
            "this message with the sheet's lines."
        )
    )
    return (
        f"{SHEET_MARK} "
        + _("{name} has no character sheet in this chat yet.").format(name=escape(owner))
        + "\n"
        + fill
    )


def set_example(*, d6: bool = False) -> str:
    """The example names the game's own traits: a d6 sheet has no Dexterity or Willpower."""
    if d6:
        return _(
            "Example: /set fire 2 weakness 3 — or /set alone for buttons; "
            "several lines at once: /sheet set, then one trait per line."
        )
    return _(
        "Example: /set dexterity 3 brawl 2 willpower 5/7 — or /set alone for buttons; "
        "several lines at once: /sheet set, then one trait per line."
    )


def empty_sheet_text(*, d6: bool = False) -> str:
    if d6:
        return _("The sheet is empty. Set traits: /set fire 2 weakness 3")
    return _("The sheet is empty. Set traits: /set dexterity 3 brawl 2")


def candidates_text(codes: Sequence[TraitCode], lang: Lang, system: SheetSystem) -> str:
    return ", ".join(trait_name(c, lang, system) for c in codes)


def echoed(text: str) -> str:
    """The player's words quoted in a refusal: cut to ``ECHO_MAX`` before escaping, so the
    cut never splits an HTML entity."""
    text = " ".join(text.split())
    return escape(text if len(text) <= ECHO_MAX else text[: ECHO_MAX - 1] + "…")


def name_problem_text(error: TraitNameError, lang: Lang, system: SheetSystem) -> str:
    """An unknown or ambiguous trait name, with the traits the player may have meant."""
    word = echoed(error.text)
    if error.problem is NameProblem.AMBIGUOUS:
        return _("«{word}» could be: {names}. Type more letters.").format(
            word=word, names=candidates_text(error.candidates, lang, system)
        )
    if error.problem is NameProblem.NOT_ON_SHEET:
        return _("This game's sheet has no {names}.").format(
            names=candidates_text(error.candidates, lang, system)
        )
    if error.candidates:
        return _("«{word}» is not a trait. Did you mean: {names}?").format(
            word=word, names=candidates_text(error.candidates, lang, system)
        )
    if not word:
        return _("A trait name is missing.")
    return _("«{word}» is not a trait of this game.").format(word=word)
