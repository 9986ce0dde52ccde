"""Languages: compiled catalogues and the choice of a locale for each update.

The bot speaks Russian first and English second (PRODUCT.md). A chat may pin its language;
otherwise each player is answered in the language of their Telegram client, so a group of
Russian speakers with one English-speaking guest still reads its own rolls comfortably.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from aiogram.types import TelegramObject, User
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n.middleware import I18nMiddleware
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.store import ChatSettings

log = logging.getLogger(__name__)

LOCALES = ("ru", "en")
DOMAIN = "messages"
LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"


def compile_catalogues(path: Path, domain: str = DOMAIN) -> list[Path]:
    """Compile every ``.po`` whose ``.mo`` is missing or older; return what was compiled.

    aiogram reads only ``.mo`` files; compiling at start-up means an edited translation can
    never be shadowed by a stale binary left over from an earlier build.
    """
    compiled = []
    for po_path in sorted(path.glob(f"*/LC_MESSAGES/{domain}.po")):
        mo_path = po_path.with_suffix(".mo")
        if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
            continue
        with po_path.open("rb") as po_file:
            catalog = read_po(po_file, locale=po_path.parent.parent.name)
        with mo_path.open("wb") as mo_file:
            write_mo(mo_file, catalog)
        compiled.append(mo_path)
    return compiled


def load_i18n(path: Path = LOCALES_DIR, default_locale: str = "ru") -> I18n:
    """aiogram's I18n over ``path``, with its catalogues compiled first."""
    path.mkdir(parents=True, exist_ok=True)
    for mo_path in compile_catalogues(path):
        log.info("compiled %s", mo_path)
    return I18n(path=path, default_locale=default_locale, domain=DOMAIN)


def user_locale(user: User | None, default_locale: str) -> str:
    """The locale of a player's Telegram client: any Russian variant is Russian, else English."""
    if user is None or not user.language_code:
        return default_locale
    return "ru" if user.language_code.lower().startswith("ru") else "en"


def choose_locale(chat_settings: ChatSettings | None, user: User | None, default: str) -> str:
    """The chat's pinned language wins; then the player's client; then DEFAULT_LOCALE."""
    if chat_settings is not None and chat_settings.locale in LOCALES:
        return chat_settings.locale
    return user_locale(user, default)


class ChatLocaleMiddleware(I18nMiddleware):
    """Sets the gettext locale for the handler and puts it in workflow data as ``locale``.

    Registered after the state middleware, so ``chat_settings`` is already loaded.
    """

    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        locale = choose_locale(
            data.get("chat_settings"), data.get("event_from_user"), self.i18n.default_locale
        )
        data["locale"] = locale
        return locale
