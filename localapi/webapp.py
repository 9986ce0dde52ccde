"""Mini App launch data as Telegram makes it, for the playground (localapi knows the token).

Telegram opens a Mini App with ``#tgWebAppData=<initData>`` in its URL, where initData is a
query string signed with the bot's token: ``secret_key = HMAC_SHA256("WebAppData", token)``,
``hash = hex(HMAC_SHA256(secret_key, data_check_string))`` over the other fields, sorted by
key, ``key=value`` joined by newlines. Written here apart from the bot's own check, as
Telegram's side of the handshake.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import quote, urlencode

from localapi.server import FakeUser

THEME = {
    "bg_color": "#ffffff",
    "text_color": "#1b1b1b",
    "hint_color": "#8a8a8a",
    "link_color": "#2a7ab8",
    "button_color": "#2a7ab8",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f1f1f4",
}


def start_param(chat_id: int, thread_id: int | None = None) -> str:
    """The campaign as a group's direct link carries it in ``startapp``: ``g100`` for -100,
    ``g100t7`` for its forum topic 7."""
    code = f"g{-chat_id}" if chat_id < 0 else f"p{chat_id}"
    return code if thread_id is None else f"{code}t{thread_id}"


def init_data(
    user: FakeUser,
    token: str,
    chat_id: int,
    *,
    auth_date: int | None = None,
    thread_id: int | None = None,
) -> str:
    person: dict[str, object] = {"id": user.id, "first_name": user.first_name, "is_bot": False}
    if user.username:
        person["username"] = user.username
    if user.language_code:
        person["language_code"] = user.language_code
    fields = {
        "user": json.dumps(person, ensure_ascii=False, separators=(",", ":")),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "start_param": start_param(chat_id, thread_id),
        "chat_type": "private" if chat_id > 0 else "supergroup",
        "chat_instance": str(abs(chat_id) * 7919),
    }
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields, quote_via=quote)


def launch_fragment(data: str) -> str:
    """What follows ``#`` in the URL Telegram opens a Mini App at."""
    return urlencode(
        {
            "tgWebAppData": data,
            "tgWebAppVersion": "8.0",
            "tgWebAppPlatform": "web",
            "tgWebAppThemeParams": json.dumps(THEME, separators=(",", ":")),
        },
        quote_via=quote,
    )
