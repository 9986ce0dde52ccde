"""What ``/notify`` says."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _


def state_text(quiet: bool) -> str:
    if quiet:
        return _("Notices are off: the Storyteller's changes to your sheet are not told to you.")
    return _("Notices are on: when the Storyteller changes your sheet, I tell you here in private.")


def usage_text() -> str:
    return _("Example: /notify off — no private notices; /notify on — notices again")
