"""The sheet editor's buttons as one pure step (bot/runner.py): category → trait → value,
«Назад» and «Готово» in one message (docs/product.md "Character sheets").

The editor is its opener's alone: another player's press is told the sheet is not theirs
(and shown how to open their own). A value is checked against the sheet as read, and taken
onto it in the same transaction as the editor's step; a sheet changed since (a ``/set``
typed meanwhile) runs the press again on the sheet as it is now, so the message always shows
the sheet as stored.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from aiogram.types import InlineKeyboardMarkup

from bot import sheet_text
from bot.runner import (
    Actor,
    Advance,
    Known,
    Outcome,
    Reading,
    SheetMoved,
    Tap,
    refuse,
    repeat,
    spending,
)
from handlers.sheet import view as sheet_view
from handlers.sheet.callbacks import SheetAction, SheetCallback
from handlers.sheet.flow import EditorState
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile
from rules.sheet import Sheet, new_sheet, set_trait, set_willpower, system_of, trait_code
from table.store import Flow
from table.store.flows import SheetSpend


def editor_change(key: str, value: int, profile: Profile) -> Callable[[Sheet], Sheet]:
    """What a value button does: set a trait, or the temporary Willpower points (§A.7), which
    are checked against the permanent rating of the sheet as it is when the change applies."""

    def change(sheet: Sheet) -> Sheet:
        if key == sheet_view.WP_CURRENT:
            if sheet.willpower is None:
                raise RulesInputError(ErrorCode.STATE, "willpower", "no rating")
            return set_willpower(sheet, sheet.willpower, value)
        return set_trait(sheet, trait_code(key, sheet.system), value, profile)

    return change


def shown_sheet(state: EditorState, sheet: Sheet, profile: Profile) -> Sheet:
    """The sheet as the editor shows it: the one read, with the value the step just set."""
    if state.last is None:
        return sheet
    key, value = state.last
    return editor_change(key, value, profile)(sheet)


def _as_read(seen: Sheet, change: Callable[[Sheet], Sheet], sheet: Sheet) -> Sheet:
    """The value taken onto the sheet the step read; one that moved since runs it again."""
    if sheet != seen:
        raise SheetMoved
    return change(sheet)


def step(
    state: EditorState,
    data: SheetCallback,
    actor: Actor,
    known: Known[Sheet],
    rng: Rng | None,
) -> Outcome[EditorState]:
    flow, profile, sheet = known.flow, known.profile, known.read
    if actor.id != flow.owner_id:
        return refuse(sheet_view.not_your_sheet_text)
    if data.v != flow.version:  # the editor is its owner's alone: they pressed it already
        return repeat()
    if state.system is not system_of(profile):
        raise RulesInputError(ErrorCode.STATE, "system", "the chat's game changed")
    shown = state.model_copy(update={"last": None})
    action = data.a
    if action is SheetAction.CATEGORY:
        offered = {c.value: c for c in sheet_view.categories(state.system)}
        category = offered.get(data.k)
        if category is None:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, "category", data.k)
        return Advance(state=shown.model_copy(update={"category": category, "trait": None}))
    if action is SheetAction.TRAIT:
        lang = sheet_text.lang_of(known.locale)
        keys = (
            [] if state.category is None else sheet_view.editor_targets(state.category, sheet, lang)
        )
        if data.k not in {key for key, _label in keys}:
            raise RulesInputError(ErrorCode.STATE, "trait", data.k)
        return Advance(state=shown.model_copy(update={"trait": data.k}))
    if action is SheetAction.VALUE:
        return _value(state, data, known)
    if action is SheetAction.BACK:
        back = {"trait": None} if state.trait is not None else {"category": None}
        return Advance(state=shown.model_copy(update=back))
    return Advance(state=shown, close=True)


def _value(state: EditorState, data: SheetCallback, known: Known[Sheet]) -> Outcome[EditorState]:
    """A value for the chosen trait, refused here (before any write) when it does not fit."""
    if state.trait is None or data.k != state.trait:
        raise RulesInputError(ErrorCode.STATE, "value", data.k)
    if data.x not in sheet_view.target_choices(state.trait, known.read):
        raise RulesInputError(ErrorCode.RANGE, "value", str(data.x))
    change = editor_change(state.trait, data.x, known.profile)
    change(known.read)
    spend = SheetSpend(
        user_id=known.flow.owner_id,
        system=state.system,
        change=partial(_as_read, known.read, change),
        create=True,
    )
    after = state.model_copy(update={"trait": None, "last": (state.trait, data.x)})
    return Advance(state=after, spends=spending(spend))


def draw(
    flow: Flow, state: EditorState, known: Known[Sheet]
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The editor at its category and trait; «Готово» leaves the sheet shown without buttons."""
    lang = sheet_text.lang_of(known.locale)
    sheet = shown_sheet(state, known.read, known.profile)
    if flow.closed:
        return sheet_view.sheet_text(sheet, state.name, lang), None
    return editor_view(flow, state, sheet, known.locale)


def editor_view(
    flow: Flow, state: EditorState, sheet: Sheet, locale: str
) -> tuple[str, InlineKeyboardMarkup]:
    lang = sheet_text.lang_of(locale)
    trait = state.trait
    text = sheet_view.editor_text(sheet, state.name, lang, state.category, trait)
    markup = sheet_view.editor_keyboard(flow.id, flow.version, sheet, lang, state.category, trait)
    return text, markup


async def read(reading: Reading[EditorState, SheetCallback]) -> Sheet:
    """The editor owner's sheet as stored (a blank one until the first value is set)."""
    flow, system = reading.flow, reading.state.system
    return await reading.store.load_sheet(flow.chat_id, flow.owner_id, system) or new_sheet(system)


TAP: Tap[EditorState, SheetCallback, Sheet] = Tap(
    model=EditorState,
    callback=SheetCallback,
    step=step,
    view=draw,
    system=None,  # the editor works in every game, on the sheet of the game it was opened in
    read=read,
)
