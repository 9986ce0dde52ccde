"""Roll requests into localised HTML (docs/product.md "Storyteller").

The Storyteller's «Бросьте Восприятие + Бдительность, сложность 8» is one message; each
player's roll from their own sheet becomes one line of it, so the table reads every result
in one place. Pure presentation: the handler decides, this module says it.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, rolling
from bot.sheet_text import candidates_text, lang_of
from handlers.requests.callbacks import RequestAction, RequestCallback
from handlers.requests.flow import RequestAnswer, RequestState
from rules.actions import PoolStatus
from rules.health import ImpossibleReason
from rules.profiles import Profile
from rules.sheet import SheetSystem, TraitCode
from table.traits import display_name


def pool_names(codes: Sequence[TraitCode], locale: str, system: SheetSystem) -> str:
    lang = lang_of(locale)
    return " + ".join(escape(display_name(c, lang, system)) for c in codes)


def _reason(reason: ImpossibleReason | None) -> str:
    if reason is ImpossibleReason.INCAPACITATED:
        return _("incapacitated, cannot act")
    if reason is ImpossibleReason.DEAD:
        return _("dead")
    return _("no dice left in the pool, the action is impossible")


def answer_line(answer: RequestAnswer) -> str:
    """«Борис: 4к10 (ранения −1): 9 8 3 1 — Успех: 1 успех»."""
    who = f"• {escape(answer.name)}: "
    if answer.status is PoolStatus.AUTO_FAILURE:
        # S4 «0 в Способности - автоматически [Неудача], если ГМ не решит иначе».
        return who + "<b>" + _("Failure") + "</b> — " + _("0 in the Ability")
    if answer.result is None:
        return who + _reason(answer.reason)
    result = answer.result
    head = _("{dice}d10").format(dice=answer.dice)
    if answer.penalty:
        head += " (" + rolling.wounds_text(answer.penalty) + ")"
    outcome = f"<b>{render.outcome_label(result.outcome)}</b>"
    if result.successes:
        outcome += ": " + render.successes_text(result.successes)
    return f"{who}{head}: {render.faces_html(result)} — {outcome}"


def request_text(
    state: RequestState, codes: Sequence[TraitCode], locale: str, profile: Profile, closed: bool
) -> str:
    pool = pool_names(codes, locale, state.system)
    if state.only is not None:
        head = "📣 " + _(
            "<b>{asker}</b> asks {player} for a roll: <b>{pool}</b>, difficulty {difficulty}"
        ).format(
            asker=escape(state.asker),
            player=mention(state.only, state.only_name or "?"),
            pool=pool,
            difficulty=state.difficulty,
        )
    else:
        head = "📣 " + _(
            "<b>{asker}</b> asks for a roll: <b>{pool}</b>, difficulty {difficulty}"
        ).format(asker=escape(state.asker), pool=pool, difficulty=state.difficulty)
    label = render.difficulty_label(state.difficulty, profile.labels)
    if label is not None:
        head += f" ({label})"
    lines = [head]
    lines.extend(answer_line(a) for a in state.answers)
    if closed and not (state.only is not None and state.answers):
        lines.append(_("The request is closed."))
    elif not state.answers:
        lines.append(_("Tap the button to roll from your character sheet."))
    return "\n".join(lines)


def mention(user_id: int, name: str) -> str:
    """The player named so that Telegram tells them they are asked."""
    return f'<a href="tg://user?id={user_id}">{escape(name)}</a>'


def request_keyboard(flow_id: str, *, one: bool = False) -> InlineKeyboardMarkup:
    """«Бросить» for the table, or for the one player asked (``one``), and «Закрыть»."""
    roll = RequestCallback(f=flow_id, a=RequestAction.ROLL).pack()
    close = RequestCallback(f=flow_id, a=RequestAction.CLOSE).pack()
    label = _("Roll now") if one else _("Roll from my sheet")
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text="🎲 " + label, callback_data=roll),
                InlineKeyboardButton(text="✖ " + _("Close"), callback_data=close),
            ]
        ]
    )


def asked_of_another_text(name: str) -> str:
    return _("This roll is asked of {name}.").format(name=name)


def ask_hint_text() -> str:
    return _(
        "Ask the table for a roll: /ask perc+alert 8 — each player taps once and rolls "
        "Perception + Alertness from their own sheet at difficulty 8."
    )


def ask_d10_only_text() -> str:
    return _("Roll requests are for the d10 games; this chat plays the d6 system.")


def only_storyteller_text() -> str:
    return _("Only the Storyteller asks the table for a roll.")


def already_rolled_text() -> str:
    return _("You have already rolled for this request.")


def no_sheet_text(codes: Sequence[TraitCode], locale: str, system: SheetSystem) -> str:
    names = candidates_text(codes, lang_of(locale), system)
    return _("You have no character sheet here yet. Set {names}: /set {example} 3").format(
        names=names, example=_example(codes, locale, system)
    )


def missing_traits_text(codes: Sequence[TraitCode], locale: str, system: SheetSystem) -> str:
    names = candidates_text(codes, lang_of(locale), system)
    return _("Your sheet has no {names}. Set it: /set {example} 3").format(
        names=names, example=_example(codes, locale, system)
    )


def _example(codes: Sequence[TraitCode], locale: str, system: SheetSystem) -> str:
    return display_name(codes[0], lang_of(locale), system).casefold()


def too_many_traits_text(limit: int) -> str:
    return _("A pool is at most {n} traits, joined by +: /ask perc+alert 8").format(n=limit)


def not_rolled_text() -> str:
    return _("That trait is not rolled as a pool (Spheres, Quintessence, Paradox).")


def only_asker_closes_text() -> str:
    return _("Only the Storyteller closes the request.")
