"""Languages: compiled catalogues and the choice of a locale for each update.

The bot speaks Russian first and English second (docs/product.md). A chat may pin its language
(/lang); otherwise a message is drawn in the language of whoever opened it, and keeps that
language for its whole life: the round tracker a Russian player opened stays Russian when an
English-speaking guest taps it (the flow stores its ``locale``). Only what the presser alone
sees — a toast or an alert — is in the presser's own language (:func:`own_language`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aiogram.types import TelegramObject, User
from aiogram.utils.i18n import I18n, get_i18n
from aiogram.utils.i18n.middleware import I18nMiddleware
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from table.scope import Scope
from table.store import ChatSettings, Flow, Store

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


def pinned_locale(chat_settings: ChatSettings | None) -> str | None:
    if chat_settings is not None and chat_settings.locale in LOCALES:
        return chat_settings.locale
    return None


@contextmanager
def _speaking(locale: str | None) -> Iterator[None]:
    try:
        i18n = get_i18n()
    except LookupError:  # outside an update (a pure view's test): the caller's locale stands
        yield
        return
    if locale not in LOCALES or locale == i18n.current_locale:
        yield
        return
    with i18n.use_locale(locale):
        yield


@contextmanager
def drawing(flow: Flow) -> Iterator[None]:
    """Draw ``flow``'s message in its own language: the chat's pinned one, else the one it
    was opened in (a Store bound to the update reads a flow with the pinned one,
    ``FlowStore._read_flow``). For a message this update did not open (a command that
    redraws the round tracker, a tap that also moves it)."""
    with _speaking(flow.locale):
        yield


@contextmanager
def own_language(own: str | None) -> Iterator[None]:
    """The sender's own language ``own`` (the chat's pinned one if any; the update's scope
    says it), for what only they see: a toast or an alert under a message drawn in another
    language."""
    with _speaking(own):
        yield


class ChatLocaleMiddleware(I18nMiddleware):
    """Sets the gettext locale for the handler and puts it in workflow data as ``locale``
    (``own_locale`` is the sender's, which differs on a tap on a message drawn in another
    language).

    A tap is handled in the language of the message it sits under: the flow its button names
    was read ahead (``button_flow``), so this costs no round-trip. Registered after the state
    middleware, so ``chat_settings`` is already loaded.
    """

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        chat_settings = data.get("chat_settings")
        pinned = pinned_locale(chat_settings)
        own = choose_locale(chat_settings, data.get("event_from_user"), self.i18n.default_locale)
        locale = own
        store, chat, flow_id = data.get("store"), data.get("event_chat"), data.get("button_flow")
        if pinned is None and isinstance(store, Store) and chat is not None and flow_id:
            shown = store.locale_ahead(chat.id, str(flow_id))
            if shown in LOCALES:
                locale = str(shown)
        data["locale"], data["own_locale"] = locale, own
        scope = data.get("scope")
        if isinstance(scope, Scope):  # the update's languages, for its Store and its Bot
            scope.pinned, scope.own, scope.locale = pinned, own, locale
        return await super().__call__(handler, event, data)

    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        locale = data.get("locale")
        if isinstance(locale, str):
            return locale
        return choose_locale(
            data.get("chat_settings"), data.get("event_from_user"), self.i18n.default_locale
        )
