"""A name with & < > reads as typed in every answer (the bot sends HTML; views escape once).

Every feature's sample scene (tests/handlers/scenes.py) is played by players named
«Том & Джерри <3>», «Ана <i>&</i>», «Вера &lt;3» (an entity typed as text) and «Эмма <&>»
beside an NPC «Гро & <м>», in a group titled «Хроника & <Мир>», and every button drawn is
pressed, by its owner and then by someone it is not for. Each message is read as Telegram
shows it: its HTML parsed the way the local Bot API server parses it (a stray < is
Telegram's "can't parse entities"), buttons and callback answers as plain text. Wherever a
name starts, all of it follows, unescaped; no &amp; or &lt; of an escape done twice is left
over.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from aiogram.client.default import Default
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageReplyMarkup,
    EditMessageText,
    SendMessage,
    TelegramMethod,
)
from aiogram.types import Chat, InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from localapi.server import ApiError, rendered_text
from tests.handlers.conftest import GROUP, Table, fresh_store, make_table, player
from tests.handlers.scenes import NPC, SCENES, STRANGER, WORD, play, press_everything

TOM = player(11, "Том & Джерри <3>")
ANA = player(12, "Ана <i>&</i>")
VERA = player(13, "Вера &lt;3", "en")
EMMA = player(14, "Эмма <&>")
CAST = {"st": ANA, "p": TOM, "q": VERA, "e": EMMA}
TITLE = "Хроника & <Мир>"
NAMES = (
    TOM.first_name,
    ANA.first_name,
    VERA.first_name,
    EMMA.first_name,
    NPC,
    STRANGER,
    WORD,
    TITLE,
)
# Where each name starts: the word no message says for any other reason.
STARTS = {name: name.split()[0] for name in NAMES}
LEFTOVERS = re.compile(r"&(?:amp|lt|gt|quot|#\d+|#x[0-9a-f]+);", re.IGNORECASE)
# Every command that quotes a name: each must show one of the names whole somewhere.
QUOTING = (
    "roll",
    "sheet",
    "combat",
    "teamwork",
    "opposed",
    "extended",
    "hidden",
    "requests",
    "history",
    "d6roll",
    "d6combat",
    "d6contest",
    "d6requests",
)


def shown(call: TelegramMethod[Any]) -> list[str]:
    """What a player reads from one call: the parsed text, the button labels, the toast."""
    texts: list[str] = []
    if isinstance(call, SendMessage | EditMessageText):
        mode = call.parse_mode
        # Every Bot is bot.app.make_bot's: aiogram's Default stands for its HTML.
        html = "HTML" if isinstance(mode, Default) else mode
        try:
            text, _entities = rendered_text(call.text or "", html, None)
        except ApiError as error:
            raise AssertionError(f"{error}: {call.text!r}") from None
        texts.append(text)
    if isinstance(call, AnswerCallbackQuery) and call.text:
        texts.append(call.text)
    markup = getattr(call, "reply_markup", None)
    if isinstance(call, SendMessage | EditMessageText | EditMessageReplyMarkup) and isinstance(
        markup, InlineKeyboardMarkup
    ):
        texts += [button.text for row in markup.inline_keyboard for button in row]
    return texts


def mangled(text: str) -> list[str]:
    """What is wrong with how ``text`` shows the names: an escape left over, a name cut at
    its first & or <."""
    found = []
    rest = text
    for name in sorted(NAMES, key=len, reverse=True):
        rest = rest.replace(name, "")
    for name, start in STARTS.items():
        at = rest.find(start)
        while at >= 0:
            tail = rest[at : at + len(name)]
            # A label may shorten a long name with «…»; it must still be the name's start.
            if not name.startswith(tail.split("…")[0]) or "…" not in tail:
                found.append(f"{name!r} shown as {rest[at : at + len(name) + 8]!r}")
            at = rest.find(start, at + 1)
    found += [f"an escape shown: {m!r}" for m in LEFTOVERS.findall(rest)]
    return found


def played(i18n: I18n, feature: str) -> Table:
    """A group where ``feature``'s scenes were played and every button pressed."""

    async def scenario() -> Table:
        table = make_table(fresh_store(), i18n)
        table.chat = Chat(id=GROUP.id, type="supergroup", title=TITLE)
        for scene in SCENES[feature]:
            await play(table, scene, CAST)
            await press_everything(table, CAST)
            # Then everything left on screen by an administrator who is not the Storyteller:
            # the refusals («it is Том & Джерри <3>'s turn») quote names too.
            await press_everything(table, CAST, by="e")
        return table

    return asyncio.run(scenario())


@pytest.mark.parametrize("feature", sorted(SCENES))
def test_every_answer_shows_the_names_as_typed(i18n: I18n, feature: str) -> None:
    table = played(i18n, feature)
    problems: list[str] = []
    seen: set[str] = set()
    for call in table.session.calls:
        for text in shown(call):
            problems += mangled(text)
            seen.update(name for name in NAMES if name in text)
    assert problems == []
    if feature in QUOTING:
        assert seen - {TITLE}, f"/{feature}'s scene never quoted a name"


def test_the_check_catches_an_escape_done_twice_or_none() -> None:
    assert mangled("Том &amp; Джерри &lt;3&gt; нет ран")
    assert mangled("🎲 Том ")  # cut where a stray «&» swallowed the rest
    assert mangled("Вера <3")  # the entity typed as text, unescaped by the bot
    assert mangled("Гро &amp; <м> атакует")
    assert not mangled("Том & Джерри <3> нет ран; Вера &lt;3 ждёт; Гро & <м>")
    assert not mangled("🎲 Том & Дж…")


def test_a_stray_tag_is_what_telegram_refuses() -> None:
    call = SendMessage(chat_id=1, text="🎲 Том & Джерри <3>: 3 успеха")
    with pytest.raises(AssertionError, match="can't parse entities"):
        shown(call)
