"""A shared message several people press keeps one language (bot/i18n.py): no line mixes the
words of the player who joined in Russian with an English redraw, or the other way round."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from aiogram.types import Message, MessageEntity, User

from handlers.teamwork.callbacks import TeamAction, TeamCallback
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Аня")
BORIS = player(2, "Борис")
JOHN = player(7, "John", "en")
LATIN = re.compile("[A-Za-z]{3,}")


def data(markup: object, **match: object) -> str:
    for button in buttons(markup):
        parsed = TeamCallback.unpack(button.callback_data or "")
        if all(getattr(parsed, k) == v for k, v in match.items()):
            return button.callback_data or ""
    raise AssertionError(match)


async def join_by_reply(table: Table, user: User, text: str, mid: int) -> None:
    """``user`` types ``text`` in reply to the team's message (its buttons come along)."""
    team_text, markup = shown(table, mid)
    replied = Message(
        message_id=mid,
        date=datetime.now(UTC),
        chat=table.chat,
        from_user=User(id=123456, is_bot=True, first_name="Dice"),
        text=team_text,
        reply_markup=markup,
    )
    table.message_id += 1
    await table.feed(
        message=Message(
            message_id=table.message_id,
            date=datetime.now(UTC),
            chat=table.chat,
            from_user=user,
            text=text,
            entities=[MessageEntity(type="bot_command", offset=0, length=5)],
            reply_to_message=replied,
        )
    )


def shown(table: Table, mid: int) -> tuple[str, object]:
    message = next(m for m in table.session.messages if m.message_id == mid)
    text, markup = message.text or "", message.reply_markup
    for edit in table.session.edits:
        if edit.message_id == mid:
            text, markup = edit.text, edit.reply_markup
    return text, markup


async def test_a_russian_team_stays_russian_when_an_english_player_helps(table: Table) -> None:
    await table.say(BORIS, "/dmg 2 л")  # wounded helpers: «за раны» on their lines
    await table.say(JOHN, "/dmg 2 л")
    await table.say(ANNA, "/team 3 6 цель 12")
    mid = table.session.messages[-1].message_id
    await join_by_reply(table, BORIS, "/team 5", mid)
    await join_by_reply(table, JOHN, "/team 5", mid)  # his command, the team's language
    await table.tap(ANNA, data(shown(table, mid)[1], a=TeamAction.JOIN), mid)
    await table.tap(JOHN, data(shown(table, mid)[1], a=TeamAction.JOIN), mid)  # his tap too
    text, markup = shown(table, mid)
    assert text.count("за раны") == 2
    assert "John" in text
    words = LATIN.findall(re.sub(r"<[^>]+>|John", "", text))
    assert words == [], text
    labels = " ".join(b.text for b in buttons(markup))
    assert LATIN.findall(labels) == []
