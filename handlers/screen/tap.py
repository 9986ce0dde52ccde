"""The screen's buttons as one pure step (bot/runner.py): what each press changes on the
screen, and which change of the campaign it leaves for once it is stored (``effects``).

Only whoever runs the campaign now presses (the role may have moved since the screen was
drawn); a character is named by their place in the roster as drawn, so a press means whom
its button showed; a change the sheet cannot take (no Willpower left, a dead character
healed) is refused before anything is stored.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup, User

from bot.runner import Actor, Advance, Delegate, Known, Outcome, Reading, Tap, Who, refuse
from handlers.screen import effects, view
from handlers.screen.callbacks import ScreenAction, ScreenCallback
from handlers.screen.flow import Did, Panel, ScreenFlow
from handlers.screen.table import Campaign, Character, read_campaign
from rules import health
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.health import DamageType
from rules.sheet import (
    Sheet,
    is_vampire,
    set_health,
    spend_blood,
    spend_quintessence,
    spend_willpower,
)
from table.store import Flow

DAMAGE = {
    ScreenAction.BASHING: DamageType.BASHING,
    ScreenAction.LETHAL: DamageType.LETHAL,
    ScreenAction.AGGRAVATED: DamageType.AGGRAVATED,
}
SPENDS = {
    ScreenAction.WILLPOWER: Did.WILLPOWER,
    ScreenAction.QUINTESSENCE: Did.QUINTESSENCE,
    ScreenAction.BLOOD: Did.BLOOD,
}


async def read(reading: Reading[ScreenFlow, ScreenCallback]) -> Campaign:
    state = reading.state
    return await read_campaign(reading.store, state.where, state.title, state.asked())


def _invalid(field: str) -> RulesInputError:
    return RulesInputError(ErrorCode.RANGE, field, "not a button of this screen")


def _damage(kind: DamageType) -> effects.Change:
    def change(sheet: Sheet) -> Sheet:
        hurt = health.apply_damage(sheet.health, kind, 1, undead=is_vampire(sheet))
        return set_health(sheet, hurt.track)

    return change


def _heal(sheet: Sheet) -> Sheet:
    return set_health(sheet, health.heal(sheet.health, 1))


def _spend(action: ScreenAction, known: Known[Campaign]) -> effects.Change:
    profile = known.read.profile
    if action is ScreenAction.WILLPOWER:
        return lambda sheet: spend_willpower(sheet, 1)
    if action is ScreenAction.QUINTESSENCE:
        return lambda sheet: spend_quintessence(sheet, 1, profile)
    return lambda sheet: spend_blood(sheet, 1)


def _words(action: ScreenAction) -> tuple[effects.Words, effects.Words]:
    """What the player is told, and what the chronicle keeps."""
    kind = DAMAGE.get(action)
    if kind is not None:
        return (
            lambda: view.told_damage_text(kind),
            lambda: view.event_damage_text(kind),
        )
    if action is ScreenAction.HEAL:
        return view.told_heal_text, view.event_heal_text
    did = SPENDS[action]
    return (lambda: view.told_spend_text(did)), (lambda: view.event_spend_text(did))


def _change_of(action: ScreenAction, known: Known[Campaign]) -> effects.Change:
    kind = DAMAGE.get(action)
    if kind is not None:
        return _damage(kind)
    if action is ScreenAction.HEAL:
        return _heal
    return _spend(action, known)


def _change(
    state: ScreenFlow, action: ScreenAction, target: Character, known: Known[Campaign]
) -> Outcome[ScreenFlow]:
    change = _change_of(action, known)
    sheet = target.working  # a copy with no sheet of its own: the one its first change writes
    if sheet is None:
        return refuse(view.refused_text)
    try:
        change(sheet)  # what the sheet cannot take is refused now, before anything is stored
    except RulesInputError:
        return refuse(view.refused_text)
    kind = DAMAGE.get(action)
    did = Did.DAMAGE if kind else Did.HEAL if action is ScreenAction.HEAL else SPENDS[action]
    after = state.model_copy(
        update={"did": did, "did_to": target.name, "did_what": kind.value if kind else None}
    )
    told, event = _words(action)
    asked = effects.SheetChange(known.read, target, change, told, event, after)
    return Delegate(run=lambda s: effects.change_sheet(s, asked))


def _secret(
    state: ScreenFlow,
    index: int,
    target: Character,
    actor: Actor,
    known: Known[Campaign],
    rng: Rng | None,
) -> Outcome[ScreenFlow]:
    if state.pool is None or not 0 <= state.pool < len(view.POOLS):
        raise _invalid("pool")
    if not 0 <= index < len(view.DIFFICULTIES):
        raise _invalid("difficulty")
    after = state.model_copy(
        update={"panel": Panel.CHARACTER, "did": Did.SECRET, "did_to": target.name}
    )
    asked = effects.SecretRoll(
        known.read,
        target,
        User(id=actor.id, is_bot=False, first_name=actor.name),
        view.pool_traits(state.pool),
        view.DIFFICULTIES[index],
        known.features,
        rng,
        after,
    )
    return Delegate(run=lambda s: effects.secret_roll(s, asked))


def _ask(
    state: ScreenFlow,
    index: int,
    target: Character,
    actor: Actor,
    known: Known[Campaign],
) -> Outcome[ScreenFlow]:
    """The roll asked of the player in the campaign (``bot.roll_requests.ASK_ROLL``)."""
    if state.pool is None or not 0 <= state.pool < len(view.POOLS):
        raise _invalid("pool")
    if not 0 <= index < len(view.DIFFICULTIES):
        raise _invalid("difficulty")
    if target.user_id is None:
        return refuse(view.only_players_asked_text)
    after = state.model_copy(
        update={
            "panel": Panel.CHARACTER,
            "asking": False,
            "did": Did.REQUEST,
            "did_to": target.name,
            "request_to": target.key,
            "request_pool": state.pool,
            "request_difficulty": view.DIFFICULTIES[index],
        }
    )
    asked = effects.RollRequest(
        known.read,
        target,
        actor,
        view.pool_traits(state.pool),
        view.DIFFICULTIES[index],
        known.features,
        after,
    )
    return Delegate(run=lambda s: effects.request_roll(s, asked))


def _panels(
    state: ScreenFlow, action: ScreenCallback, target: Character
) -> Outcome[ScreenFlow] | None:
    """The secret roll's and the request's panels: which pool, then which difficulty."""
    a = action.a
    if a is ScreenAction.SECRET:
        return Advance(
            state=state.model_copy(update={"panel": Panel.POOL, "did": None, "asking": False})
        )
    if a is ScreenAction.REQUEST:
        if target.user_id is None:
            return refuse(view.only_players_asked_text)
        return Advance(
            state=state.model_copy(update={"panel": Panel.POOL, "did": None, "asking": True})
        )
    if a is ScreenAction.POOL:
        if not 0 <= action.i < len(view.POOLS):
            raise _invalid("i")
        return Advance(state=state.model_copy(update={"panel": Panel.DIFFICULTY, "pool": action.i}))
    return None


def step(
    state: ScreenFlow,
    action: ScreenCallback,
    actor: Actor,
    known: Known[Campaign],
    rng: Rng | None,
) -> Outcome[ScreenFlow]:
    campaign = known.read
    if not campaign.runs(actor.id):
        return refuse(view.not_storyteller_text)
    a = action.a
    fresh = state.model_copy(update={"roster": tuple(c.key for c in campaign.everyone)})
    if a is ScreenAction.REFRESH:
        return Advance(state=fresh, answer=view.refreshed_text, alert=False)
    if a is ScreenAction.BACK:  # a secret roll's panels go back to the character, it to all
        inner = state.panel in (Panel.POOL, Panel.DIFFICULTY)
        panel = Panel.CHARACTER if inner else Panel.MAIN
        return Advance(state=fresh.model_copy(update={"panel": panel, "did": None}))
    if a is ScreenAction.CHOOSE:
        if not 0 <= action.i < len(state.roster):
            raise _invalid("i")
        chosen = campaign.find(state.roster[action.i])
        if chosen is None:
            return Advance(state=fresh, answer=view.gone_text)
        return Advance(
            state=fresh.model_copy(
                update={"panel": Panel.CHARACTER, "target": chosen.key, "did": None}
            )
        )
    target = campaign.find(state.target)
    if target is None or state.panel is Panel.MAIN:
        return Advance(state=fresh.model_copy(update={"panel": Panel.MAIN}), answer=view.gone_text)
    if a in DAMAGE or a is ScreenAction.HEAL or a in SPENDS:
        return _change(state, a, target, known)
    opened = _panels(state, action, target)
    if opened is not None:
        return opened
    if state.asking:
        return _ask(state, action.i, target, actor, known)
    return _secret(state, action.i, target, actor, known, rng)


def draw(
    flow: Flow, state: ScreenFlow, known: Known[Campaign]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.read, known.locale)


TAP: Tap[ScreenFlow, ScreenCallback, Campaign] = Tap(
    model=ScreenFlow,
    callback=ScreenCallback,
    step=step,
    view=draw,
    who=Who.OWNER,
    system=None,
    read=read,
)
