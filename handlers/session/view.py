"""What ``/session`` says: the commitment at the start, the seed at the end (table/fairness.py)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot import render
from rules.profiles import Profile
from table.store.sessions import SessionRecord


def started_text(record: SessionRecord) -> str:
    return "\n".join(
        [
            "🎬 <b>" + _("Session {n} has begun.").format(n=record.number) + "</b>",
            _("Until it ends, every die comes from a secret seed, fixed before the first roll."),
            _("SHA-256 of its seed:") + f" <code>{record.commitment}</code>",
            _("/session end reveals the seed, and anyone can check every roll against it."),
        ]
    )


def running_text(record: SessionRecord) -> str:
    return "\n".join(
        [
            "🎬 " + _("Session {n} is already running.").format(n=record.number),
            _("SHA-256 of its seed:") + f" <code>{record.commitment}</code>",
            _("End it with /session end."),
        ]
    )


def ended_text(record: SessionRecord) -> str:
    return "\n".join(
        [
            "🏁 <b>" + _("Session {n} is over.").format(n=record.number) + "</b>",
            _("The seed of its dice:") + f" <code>{record.seed}</code>",
            _("Its SHA-256, posted at the start:") + f" <code>{record.commitment}</code>",
            _(
                "/chronicle sends the session with every roll's proof; "
                "docs/verify_session.py checks it."
            ),
        ]
    )


def none_running_text() -> str:
    return _("No session is running. Start one with /session start.")


def status_text(record: SessionRecord | None) -> str:
    if record is None:
        return none_running_text() + "\n" + usage_text()
    return running_text(record)


def usage_text() -> str:
    return _(
        "Example: /session start — a session begins, its dice from a committed seed; "
        "/session end — it ends and the seed is revealed"
    )


def unknown_word_text(word: str) -> str:
    return (
        _("I don't know «{word}» here.").format(word=render.shown_word(word)) + "\n" + usage_text()
    )


def group_only_text() -> str:
    return _("A session is played in the group: send /session start there.")


def help_line(profile: Profile) -> str:
    return _("/session start, /session end — provably fair dice; /chronicle — the session's record")
