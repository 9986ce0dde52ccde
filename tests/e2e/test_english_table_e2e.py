"""The table's features in English, end to end (docs/product.md: "in both languages").

The other E2E files play the table in Russian. Here three English-speaking players run one
session through the real ``python -m bot``: the Storyteller role, an extended roll, an
opposed roll, teamwork, multiple actions, a hidden roll and its reveal, ``/log`` and
``/stats``. Every word the bot puts in the group — texts, edits, buttons, alerts — must be
English: one Cyrillic letter means a string escaped the catalogues or the chat's language.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from aiogram.filters.callback_data import CallbackData

from handlers.extended.callbacks import ExtAction, ExtCallback
from handlers.multi.callbacks import MultiCallback
from handlers.opposed.callbacks import VsAction, VsCallback
from handlers.teamwork.callbacks import TeamAction, TeamCallback
from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser
from tests.e2e.conftest import BotLauncher, SharedLauncher

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@pytest.fixture
def fake_api(shared_world: BotLauncher) -> FakeBotApi:
    """The session's fake Bot API: this module's tests play in chats of their own."""
    return shared_world.api


@pytest.fixture
def bot_process(shared_world: BotLauncher) -> SharedLauncher:
    return SharedLauncher(shared_world)


STARTUP = 30.0
WAIT = 10.0
CYRILLIC = re.compile("[А-Яа-яЁё]")
COMMITMENT = re.compile(r"[0-9a-f]{64}")


def button(message: ChatMessage, factory: type[CallbackData], **match: object) -> str:
    """The callback_data of the button that means ``match`` (labels may change, meaning not)."""
    for item in message.buttons:
        raw = item.get("callback_data")
        if raw is None or not raw.startswith(factory.__prefix__ + ":"):
            continue
        parsed = factory.unpack(raw)
        if all(getattr(parsed, key) == value for key, value in match.items()):
            return str(raw)
    raise LookupError(f"no {match} button; the message shows {message.button_texts}")


async def tap(
    api: FakeBotApi, chat: FakeChat, user: FakeUser, message: ChatMessage, data: str
) -> None:
    edits = message.edits
    query = api.press(chat, user, message, data)
    await api.wait_for_callback_answer(query, timeout=WAIT)
    await api.wait_for(lambda: message.edits > edits, timeout=WAIT)


def group_words(api: FakeBotApi, chat: FakeChat) -> list[str]:
    """Everything a member of the group could read that the bot wrote."""
    words: list[str] = []
    for call in api.calls_for_chat(chat):
        words += [str(call.params.get(key, "")) for key in ("text", "caption")]
        markup = call.params.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        if isinstance(markup, dict):
            words += [b.get("text", "") for row in markup.get("inline_keyboard", []) for b in row]
    queries = {q for q, cb in api.callback_queries.items() if cb.chat_id == chat.id}
    for call in api.calls_to("answerCallbackQuery"):
        if call.params.get("callback_query_id") in queries:
            words.append(str(call.params.get("text", "")))
    return [w for w in words if w]


async def test_a_session_in_english(fake_api: FakeBotApi, bot_process: BotLauncher) -> None:
    api = fake_api
    ann = api.add_user("Ann", language_code="en")
    bob = api.add_user("Bob", language_code="en-GB", username="bob")
    cat = api.add_user("Cat", language_code="en")
    group = api.add_group("Table", owner=ann, members=[bob, cat])
    await bot_process.start(timeout=STARTUP)
    private = api.open_private_chat(ann)

    async def say(user: FakeUser, text: str, reply_to: ChatMessage | None = None) -> ChatMessage:
        typed = api.send_text(group, user, text, reply_to=reply_to)
        return await api.wait_for_message(group, after=typed, timeout=WAIT)

    claimed = await say(ann, "/st")
    assert "Ann is now the Storyteller of this chat." in claimed.text

    extended = await say(ann, "/ext 4 6 3 2")
    assert extended.text.startswith("⏳ Extended action — Ann")
    while extended.buttons and any(
        b.get("callback_data", "").startswith(ExtCallback.__prefix__) for b in extended.buttons
    ):
        try:
            data = button(extended, ExtCallback, a=ExtAction.ROLL)
        except LookupError:
            break
        await tap(api, group, ann, extended, data)
    assert "/3" in extended.text

    sneaking = api.send_text(group, bob, "Bob sneaks past the guards")
    opposed = await say(ann, "/vs 5 6", reply_to=sneaking)
    assert "Opposed roll: Ann — Bob" in opposed.text
    await tap(api, group, bob, opposed, button(opposed, VsCallback, a=VsAction.POOL, x=4))
    await tap(api, group, bob, opposed, button(opposed, VsCallback, a=VsAction.DIFFICULTY, x=7))
    await tap(api, group, bob, opposed, button(opposed, VsCallback, a=VsAction.ROLL_B))
    assert " wins" in opposed.text or "A tie" in opposed.text

    team = await say(ann, "/team 3 6 target 4")
    assert team.text.startswith("🤝 Teamwork — Ann")
    await tap(api, group, cat, team, button(team, TeamCallback, a=TeamAction.JOIN))
    await tap(api, group, cat, team, button(team, TeamCallback, a=TeamAction.POOL, x=3))
    await tap(api, group, ann, team, button(team, TeamCallback, a=TeamAction.FINISH))
    assert "Together: " in team.text

    multi = await say(bob, "/multi 6 7 7")
    assert "Multiple actions" in multi.text
    for k in range(3):
        await tap(api, group, bob, multi, button(multi, MultiCallback, x=k))
    assert "All actions are rolled." in multi.text

    hidden = await say(ann, "/h 7 6")
    assert "Ann rolled in secret: hidden roll #1." in hidden.text
    found = COMMITMENT.search(hidden.text)
    assert found is not None
    await api.wait_for_message(private, containing="#1", timeout=WAIT)
    revealed = await say(ann, "/reveal")
    assert "Hidden roll #1 revealed:" in revealed.text
    line = next(x for x in revealed.text.splitlines() if x.startswith("sdb-hidden-v1|"))
    assert hashlib.sha256(line.encode("ascii")).hexdigest() == found.group()

    log = await say(cat, "/log")
    assert "Recent rolls" in log.text
    assert "revealed #1" in log.text
    stats = await say(cat, "/stats")
    assert "Statistics of the whole game" in stats.text

    russian = [w for w in group_words(api, group) if CYRILLIC.search(w)]
    assert russian == []
    assert not api.unanswered_callback_queries()
    api.assert_no_duplicate_sends()
