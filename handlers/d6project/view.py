"""A d6 project on screen (docs/rules.md §D.6): readiness against scope, the last actions, and how
it ended — complete with its gain, failed, out of time, or left unfinished."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render, table_text
from handlers.d6project.callbacks import ProjectAction, ProjectCallback
from handlers.d6project.flow import ProjectFlow
from rules.d6.projects import ProjectStatus
from rules.profiles import Profile
from table.store import Flow

ROLL_CHANCES = range(1, 9)


def project_text(state: ProjectFlow) -> str:
    project = state.project
    if state.actions is None:
        head = "🛠 " + _("Project ({scope})").format(scope=project.scope)
    else:
        head = "⏳ " + _("Challenge ({scope}, {actions})").format(
            scope=project.scope, actions=state.actions
        )
    if state.title:
        head += f" — <b>{escape(state.title)}</b>"
    lines = [head, _("Readiness: {r} of {scope}").format(r=project.readiness, scope=project.scope)]
    if state.actions is not None and state.used:
        left = ", ".join(
            f"{escape(state.names.get(k, k))} {state.actions - n}" for k, n in state.used.items()
        )
        lines.append(_("Actions left: {who}").format(who=left))
    lines += list(state.history)
    if project.status is ProjectStatus.COMPLETE:
        lines.append("✅ " + _("Done! Gain {n}.").format(n=project.gain))
    elif project.status is ProjectStatus.FAILED and state.actions is not None:
        lines.append("❌ " + _("The challenge is failed: the readiness fell below zero."))
    elif project.status is ProjectStatus.FAILED:
        lines.append("❌ " + _("The project fails: the readiness fell below zero."))
    elif project.status is ProjectStatus.FAILED_TIME:
        lines.append("⌛ " + _("Time is up: the challenge is failed."))
        if project.readiness > 0:  # what was done still counts (S2 «Недоделанный замысел»)
            lines.append(
                _("Left unfinished: it can still ease a difficulty by {n}.").format(
                    n=project.readiness
                )
            )
    elif state.closed_unfinished:
        lines.append(
            _(
                "Left unfinished: it can still ease a difficulty by {n} — add «project {n}» to "
                "the roll: /r 4 -3 project {n}."
            ).format(n=project.readiness)
        )
    elif (
        state.actions is not None
        and state.used
        and all(n >= state.actions for n in state.used.values())
    ):
        lines.append(
            _(
                "Everyone who acted has spent their actions: more heroes may still act, "
                "or «Time is up»."
            )
        )
    else:
        lines.append(_("Each action: press your chance, or «No roll needed» when nothing hinders."))
    return "\n".join(lines)


def project_keyboard(flow: Flow, state: ProjectFlow) -> InlineKeyboardMarkup | None:
    if state.project.status is not ProjectStatus.IN_PROGRESS or state.closed_unfinished:
        return None

    def data(action: ProjectAction, x: int = 0) -> ProjectCallback:
        return ProjectCallback(f=flow.id, v=flow.version, a=action, x=x)

    rows = render.rows(
        [table_text.button(f"🎲{n}", data(ProjectAction.ROLL, n)) for n in ROLL_CHANCES], 8
    )
    rows.append([table_text.button("✅ " + _("No roll needed"), data(ProjectAction.AUTO))])
    stop = "⌛ " + _("Time is up") if state.actions is not None else "⏹ " + _("Stop here")
    rows.append([table_text.button(stop, data(ProjectAction.CLOSE))])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def draw(
    flow: Flow, state: ProjectFlow, profile: Profile | None = None
) -> tuple[str, InlineKeyboardMarkup | None]:
    text = project_text(state)
    if state.auto_counted and profile is not None:
        tag = house_rules.house_tag(profile, dice=False, keys=("d6.auto_success_gain",))
        if tag is not None:
            text += "\n" + escape(tag, quote=False)
    return text, project_keyboard(flow, state)


def auto_line(name: str, gain: int) -> str:
    """An action with no roll (S2 «бросать кубики не нужно»): its gain as the chat counts it."""
    return f"{escape(name)}: " + _("no roll needed") + f" — +{gain}"


def action_line(name: str, faces: str, measures: int, fiasco: int | None) -> str:
    if fiasco is not None:
        return f"{escape(name)}: {faces} — " + _("fiasco, readiness −{n}").format(n=fiasco)
    return f"{escape(name)}: {faces} — +{measures}"


def usage_text() -> str:
    return _(
        "A project: /project 5 — scope 5 (the measures it needs), a name may follow; "
        "/project 5 actions 2 — a challenge, two actions for each character."
    )


def d6_only_text() -> str:
    return _("Projects and challenges are the d6 game's (/rules d6); the d10 games use /ext.")


def no_actions_text() -> str:
    return _("Your actions in this challenge are spent.")


def project_closed_text() -> str:
    return _("This project is already over: the roll does not count toward it.")


def roll_usage_text() -> str:
    return _("In reply to a project: /r 4 — your chance, or /r power+power; the measures go to it.")


def no_luck_here_text() -> str:
    return _(
        "Luck dice and tricks waiting on the sheet are not spent on a project: "
        "roll without them, or press your chance under it."
    )


def only_opener_text() -> str:
    return _("The one who started it or the GM stops it.")


def help_line(_profile: object) -> str:
    return _("/project 5 — a project or a challenge (/project 5 actions 2)")
