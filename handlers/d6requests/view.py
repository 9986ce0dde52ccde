"""A d6 roll request on screen: what the Storyteller asks, each player's chance, faces and
measures (§D.2–§D.3)."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from handlers.d6requests.callbacks import D6RequestAction, D6RequestCallback
from handlers.d6requests.flow import D6RequestState
from table.store import Flow


def request_text(state: D6RequestState, *, closed: bool) -> str:
    asked = " + ".join(escape(p) for p in state.powers)
    head = "📣 " + _("{asker} asks for a roll: {powers}").format(
        asker=escape(state.asker), powers=asked
    )
    if state.required > 1:
        head += ", " + _("measures needed: {n}").format(n=state.required)
    lines = [head]
    for answer in state.answers:
        lines.append(
            f"<b>{escape(answer.name)}</b> ({answer.label}): "
            + render.d6_faces_text(answer.result)
            + " — "
            + render.d6_outcome_line(answer.result)
        )
    lines.append(_("Closed.") if closed else _("Each player rolls from their own sheet."))
    return "\n".join(lines)


def keyboard(flow: Flow) -> InlineKeyboardMarkup:
    def data(action: D6RequestAction) -> D6RequestCallback:
        return D6RequestCallback(f=flow.id, v=flow.version, a=action)

    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                table_text.button("🎲 " + _("Roll!"), data(D6RequestAction.ROLL)),
                table_text.button("🔒 " + _("Close"), data(D6RequestAction.CLOSE)),
            ]
        ]
    )


def usage_text() -> str:
    return _(
        "A d6 roll request: /ask strength+agility — each player rolls the chance their sheet "
        "gives; /ask strength 2 — when 2 measures are needed."
    )


def already_rolled_text() -> str:
    return _("You have already rolled for this request.")


def only_asker_text() -> str:
    return _("The one who asked or the GM closes the request.")
