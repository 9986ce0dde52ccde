"""The ambush contest as one pure step (docs/rules.md §B.7).

S4 «Засада (соревнование Ловкость + Скрытность против Восприятие + Бдительность жертвы)
позволяет нанести атаку до начала боя»: both pools come from the sheets after wounds, at the
table's difficulty; :func:`rules.combat.ambush` says whether the ambusher won outright. The
step also decides who may ambush whom and when: only before round 1 is resolved, once per
ambusher per fight. The router reads the sheets, stores the step and shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from handlers.combat.ambush import view
from handlers.combat.tracker.callbacks import Panel
from handlers.combat.tracker.flow import InitFlow
from rules import combat, d10
from rules.combat.tracker import Fighter, Phase, Round
from rules.d10 import D10Result
from rules.dice import Rng
from rules.profiles import Profile
from rules.sheet import Ability, Attribute, Sheet, SheetPool, pool_from_traits, system_of
from table import npcs

Answer = Callable[[], str]

STEALTH = (Attribute.DEXTERITY, Ability.STEALTH)
WATCH = (Attribute.PERCEPTION, Ability.ALERTNESS)


class Refused(Exception):
    """The ambush is answered with ``text`` and nothing changes."""

    def __init__(self, text: Answer) -> None:
        super().__init__()
        self.text = text


@dataclass(frozen=True)
class Contest:
    """One ambush rolled: both sides' pools and rolls, and whether the ambusher attacks
    first (``won``) with the victim defending or not."""

    ambusher: Fighter
    victim: Fighter
    sneak_pool: SheetPool
    sneak: D10Result
    watch_pool: SheetPool
    watch: D10Result | None  # None: the victim's pool rolls nothing (no Alertness, wounds)
    won: bool
    victim_defends: bool


def pick(current: Round, words: Sequence[str], own: str, storyteller: bool) -> tuple[str, str]:
    """``ЖЕРТВА`` (the typer's own character ambushes) or, for the Storyteller, ``НПС
    ЖЕРТВА`` (any fighter first): the keys of the ambusher and the victim, each named by any
    part of the name that is theirs alone."""
    if not words:
        raise Refused(view.usage_text)
    if storyteller:  # for an NPC, or for a player's character as the tracker lets them
        found = _by_part(words, [f.name for f in current.fighters])
        if found is not None and found[1]:
            victim = _whole(found[1].split(), current)
            if victim is not None:
                return _key(current, found[0]), victim
    victim = _whole(words, current)
    if victim is None:
        raise Refused(lambda: view.no_victim_text(" ".join(words)))
    if current.fighter(own) is None:
        raise Refused(view.not_in_fight_text)
    return own, victim


def _by_part(words: Sequence[str], names: Sequence[str]) -> tuple[str, str] | None:
    try:
        return npcs.name_by_part(words, names)
    except npcs.AmbiguousName as ambiguous:
        found = ambiguous
        raise Refused(lambda: view.ambiguous_text(found.typed, found.names)) from None


def _whole(words: Sequence[str], current: Round) -> str | None:
    """The fighter whose name all of ``words`` are a part of, or None."""
    found = _by_part(words, [f.name for f in current.fighters])
    if found is None or found[1]:
        return None
    return _key(current, found[0])


def _key(current: Round, name: str) -> str:
    return next(f.key for f in current.fighters if f.name == name)


def contest(
    state: InitFlow,
    keys: tuple[str, str],
    sheets: Mapping[str, Sheet | None],
    profile: Profile,
    rng: Rng | None = None,
) -> Contest:
    """The ambush of ``keys`` (ambusher, victim) rolled from their ``sheets``; :class:`Refused`
    when it may not be made now or a sheet lacks what it rolls."""
    current = state.round
    ambusher, victim = current.fighter(keys[0]), current.fighter(keys[1])
    if ambusher is None or victim is None:
        raise Refused(view.not_in_fight_text)
    if ambusher.key == victim.key:
        raise Refused(view.self_text)
    if not before_the_fight(current):
        raise Refused(view.too_late_text)
    if ambusher.key in state.ambushed:
        raise Refused(lambda: view.already_text(ambusher.name))
    sneak_pool = _pool(ambusher.name, sheets.get(ambusher.key), STEALTH, profile)
    if not sneak_pool.rollable:
        raise Refused(lambda: view.cannot_sneak_text(ambusher.name))
    watch_pool = _pool(victim.name, sheets.get(victim.key), WATCH, profile)
    difficulty = profile.default_difficulty
    sneak = combat_roll(sneak_pool.dice, difficulty, profile, rng)
    if not watch_pool.rollable:
        # the victim rolls nothing and notices nothing: any success of the ambusher wins
        won = sneak.successes > 0
        defends = not won or profile.combat.ambush_victim_defends
        return Contest(ambusher, victim, sneak_pool, sneak, watch_pool, None, won, defends)
    watch = combat_roll(watch_pool.dice, difficulty, profile, rng)
    result = combat.ambush(sneak, watch, profile)
    return Contest(
        ambusher,
        victim,
        sneak_pool,
        sneak,
        watch_pool,
        watch,
        result.strikes_first,
        result.victim_defends,
    )


def after(state: InitFlow, contest: Contest) -> InitFlow:
    """The tracker once the ambush is made: the ambusher's one of the fight spent, and the
    tracker's ambush panel, if open, closed."""
    panel = Panel.NONE if state.panel is Panel.AMBUSH else state.panel
    spent = (*state.ambushed, contest.ambusher.key)
    return state.model_copy(update={"ambushed": spent, "panel": panel})


def before_the_fight(current: Round) -> bool:
    """Before phase I of round 1: while the fight gathers, or round 1's declarations."""
    if current.phase is Phase.GATHER:
        return current.number <= 1
    return current.phase is Phase.DECLARE and current.number == 1


def _pool(
    name: str, sheet: Sheet | None, traits: tuple[Attribute, Ability], profile: Profile
) -> SheetPool:
    if sheet is None:
        raise Refused(lambda: view.no_sheet_text(name))
    unset = [t for t in traits if sheet.rating(t) is None]
    if unset:
        raise Refused(lambda: view.unset_text(name, unset, system_of(profile)))
    return pool_from_traits(sheet, traits, profile)


def combat_roll(dice: int, difficulty: int, profile: Profile, rng: Rng | None) -> D10Result:
    return d10.roll(dice, difficulty, profile, rng=rng)
