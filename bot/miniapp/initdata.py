"""Telegram's ``initData``: who opened the Mini App, signed with the bot's token.

Telegram signs the launch parameters it hands a Mini App: ``secret_key =
HMAC_SHA256(key="WebAppData", msg=bot_token)`` and ``hash = hex(HMAC_SHA256(key=secret_key,
msg=data_check_string))``, where the data-check string is every received field but ``hash``,
``key=value`` sorted by key and joined by newlines. Only the bot (which knows the token) and
Telegram can make a valid one, so a page's request that carries it speaks for that user; an
old one is refused, so a leaked string does not work for ever. Pure: no aiohttp, no store.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import parse_qsl, urlencode

from table.scope import Campaign

MAX_AGE = 86_400  # a day: older launch data is refused
HEADER = "X-Telegram-Init-Data"


class Refusal(StrEnum):
    MISSING = "missing"  # no hash, no user or no auth_date
    FORGED = "forged"  # the hash does not match (another token, a changed field)
    EXPIRED = "expired"


class InitDataError(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.value)
        self.refusal = refusal


@dataclass(frozen=True)
class WebAppUser:
    id: int
    first_name: str
    username: str | None
    language_code: str | None


@dataclass(frozen=True)
class InitData:
    user: WebAppUser
    auth_date: int
    start_param: str | None


def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash")


def sign(fields: dict[str, str], token: str) -> str:
    """The query string Telegram would hand the page for ``fields`` (tests, the playground)."""
    digest = hmac.new(
        secret_key(token), data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    return urlencode({**fields, "hash": digest})


def verify(raw: str, token: str, *, now: float | None = None, max_age: int = MAX_AGE) -> InitData:
    """The launch data if Telegram signed it with ``token`` less than ``max_age`` ago; else
    :class:`InitDataError` saying why. Nothing in ``raw`` is trusted before the hash matches."""
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError(Refusal.MISSING) from None
    fields = dict(pairs)
    given = fields.get("hash")
    if not given or "auth_date" not in fields or "user" not in fields:
        raise InitDataError(Refusal.MISSING)
    expected = hmac.new(
        secret_key(token), data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    if not hmac.compare_digest(expected, given.lower()):
        raise InitDataError(Refusal.FORGED)
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        who = WebAppUser(
            id=int(user["id"]),
            first_name=str(user.get("first_name") or user["id"]),
            username=user.get("username") if isinstance(user.get("username"), str) else None,
            language_code=user.get("language_code")
            if isinstance(user.get("language_code"), str)
            else None,
        )
    except (ValueError, KeyError, TypeError):
        raise InitDataError(Refusal.MISSING) from None
    clock = time.time() if now is None else now
    if clock - auth_date > max_age:
        raise InitDataError(Refusal.EXPIRED)
    return InitData(user=who, auth_date=auth_date, start_param=fields.get("start_param") or None)


def encode_campaign(campaign: int | Campaign) -> str:
    """A campaign as ``startapp`` may carry it (``A-Za-z0-9_-``, at most 64): ``g100123`` for
    the group -100123's own game (a forum's General), ``g100123t45`` for its topic 45,
    ``p42`` for a private chat."""
    where = campaign if isinstance(campaign, Campaign) else Campaign(campaign)
    chat = where.chat_id
    code = f"g{-chat}" if chat < 0 else f"p{chat}"
    return code if where.thread_id is None else f"{code}t{where.thread_id}"


def decode_campaign(text: str | None) -> Campaign | None:
    """The campaign :func:`encode_campaign` wrote; None for anything else (a private chat has
    no topics, and General is never a thread: Telegram's id 1 names it)."""
    if not text or len(text) > 40 or text[0] not in "gp":
        return None
    chat, marked, thread = text[1:].partition("t")
    if not chat.isdigit() or (marked and not thread.isdigit()):
        return None
    chat_id = -int(chat) if text[0] == "g" else int(chat)
    if not marked:
        return Campaign(chat_id)
    if chat_id > 0 or int(thread) <= 1:
        return None
    return Campaign(chat_id, int(thread))
