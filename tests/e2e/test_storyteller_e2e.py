"""The Storyteller at the table, end to end: the real ``python -m bot`` against the fake Bot API
and a real redis-server.

The proof that a hidden roll does not leak reads the fake server's record of every call the
bot made with the group's chat id, whatever the method: until ``/reveal`` no text, keyboard
or button answer there holds a face, a success count, an outcome word, the pool or the
difficulty. The reveal is then checked the way a player would: the published line is hashed
with ``hashlib`` and must equal the commitment posted at roll time.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from localapi.server import ApiCall, ChatMessage, FakeBotApi, FakeChat, FakeUser
from rules import d10, profiles
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
COMMITMENT = re.compile(r"[0-9a-f]{64}")
FACES_LINE = re.compile(r"^(?:10|[1-9])(?: (?:10|[1-9]))*$", re.MULTILINE)
RESULT_WORDS = ("Успех", "Неудача", "Провал", "успех", "к10", "сложност")


def faces_in(message: ChatMessage) -> list[int]:
    lines = FACES_LINE.findall(message.text)
    assert len(lines) == 1, message.text
    return [int(face) for face in lines[0].split()]


def shown_strings(call: ApiCall) -> list[str]:
    """What a group member could read from a call: its text and its keyboard."""
    strings = [str(call.params.get(key, "")) for key in ("text", "caption")]
    markup = call.params.get("reply_markup")
    if isinstance(markup, str):
        markup = json.loads(markup)
    if isinstance(markup, dict):
        for row in markup.get("inline_keyboard", []):
            for button in row:
                strings += [str(button.get(k, "")) for k in ("text", "url")]
                # Flow ids carry digits by chance; what matters is that no reveal or
                # campaign button, which name the hidden roll, is ever shown in a group.
                assert not str(button.get("callback_data", "")).startswith(("hr:", "hc:"))
    return [s for s in strings if s]


def assert_group_learned_nothing(api: FakeBotApi, group: FakeChat) -> None:
    for call in api.calls_for_chat(group):
        for text in shown_strings(call):
            for word in RESULT_WORDS:
                assert word not in text, (call.method, text)
            rest = COMMITMENT.sub("", text)
            rest = re.sub(r"№\d+|SHA-256|https://t\.me/\w+\?start=st", "", rest)
            assert not re.search(r"\d", rest), (call.method, text)
    # Every answer to a tap by someone at this table, in the group or in private (the
    # session's other tables share the fake API).
    people = {*group.members, *group.admins, *([group.owner.id] if group.owner else [])}
    ours = {q.id for q in api.callback_queries.values() if q.user_id in people}
    for call in api.calls_to("answerCallbackQuery"):
        if call.params.get("callback_query_id") not in ours:
            continue
        text = str(call.params.get("text", ""))
        assert not re.search(r"\d", text), text


async def claim(api: FakeBotApi, group: FakeChat, user: FakeUser) -> None:
    command = api.send_text(group, user, "/st")
    await api.wait_for_message(group, after=command, containing="Рассказчик", timeout=WAIT)


async def test_hidden_roll_reveal_log_and_stats(
    fake_api: FakeBotApi, bot_process: BotLauncher
) -> None:
    anya = fake_api.add_user("Аня")
    boris = fake_api.add_user("Борис")
    group = fake_api.add_group("Стол", owner=anya, members=[boris])
    await bot_process.start(timeout=STARTUP)
    private = fake_api.open_private_chat(anya)
    await claim(fake_api, group, anya)

    command = fake_api.send_text(group, anya, "/h 7 6")
    posted = await fake_api.wait_for_message(
        group, after=command, containing="тайный бросок №1", timeout=WAIT
    )
    found = COMMITMENT.search(posted.text)
    assert found is not None
    commitment = found.group()
    result = await fake_api.wait_for_message(private, containing="Тайный бросок №1", timeout=WAIT)
    faces = faces_in(result)
    assert len(faces) == 7
    assert commitment in result.text
    assert posted.reply_markup is None

    refused = fake_api.send_text(group, boris, "/reveal")
    await fake_api.wait_for_message(group, after=refused, containing="только Рассказчик")
    asked = fake_api.send_text(group, boris, "/log")
    log = await fake_api.wait_for_message(group, after=asked, containing="Последние броски")
    assert "тайный бросок №1" in log.text
    asked = fake_api.send_text(group, boris, "/stats")
    await fake_api.wait_for_message(group, after=asked, containing="Пока нечего считать")
    assert_group_learned_nothing(fake_api, group)

    reveal = fake_api.send_text(group, anya, "/reveal")
    published = await fake_api.wait_for_message(
        group, after=reveal, containing="раскрыт:", timeout=WAIT
    )
    assert faces_in(published) == faces
    line = next(x for x in published.text.splitlines() if x.startswith("sdb-hidden-v1|"))
    assert hashlib.sha256(line.encode("ascii")).hexdigest() == commitment
    assert f"printf '%s' '{line}' | sha256sum" in published.text
    opened = d10.resolve(faces, 6, profiles.get("mage"))
    if opened.successes:
        assert f"{opened.successes} успех" in published.text

    roll = fake_api.send_text(group, boris, "/r 5 6")
    await fake_api.wait_for_message(group, after=roll, containing="Борис")
    asked = fake_api.send_text(group, boris, "/log")
    log = await fake_api.wait_for_message(group, after=asked, containing="Последние броски")
    assert "раскрыт №1" in log.text
    asked = fake_api.send_text(group, boris, "/stats")
    stats = await fake_api.wait_for_message(group, after=asked, containing="Статистика")
    # the campaign's counters: the hidden roll from its reveal on, Борис's roll as it was made
    assert "Статистика за всю игру: 2 броска" in stats.text
    assert "Аня: 1 бросок" in stats.text
    assert "Борис: 1 бросок" in stats.text
    assert "к10: кубиков 12" in stats.text
    fake_api.assert_no_duplicate_sends()


async def test_without_a_private_chat_the_group_gets_a_link_and_nothing_else(
    fake_api: FakeBotApi, bot_process: BotLauncher
) -> None:
    anya = fake_api.add_user("Аня")
    boris = fake_api.add_user("Борис")
    group = fake_api.add_group("Стол", owner=anya, members=[boris])
    await bot_process.start(timeout=STARTUP)
    await claim(fake_api, group, anya)

    command = fake_api.send_text(group, anya, "/h 7 6")
    notice = await fake_api.wait_for_message(
        group, after=command, containing="откройте личный чат", timeout=WAIT
    )
    [button] = notice.buttons
    assert button["url"] == f"https://t.me/{fake_api.bot.username}?start=st"
    refused = [c for c in fake_api.calls_to("sendMessage") if c.chat_id == anya.id]
    assert [c.status for c in refused] == [403]
    assert not any("тайный бросок №" in m.text for m in group.messages)
    assert_group_learned_nothing(fake_api, group)

    private = fake_api.open_private_chat(anya)
    start = fake_api.send_text(private, anya, "/start st")
    await fake_api.wait_for_message(private, after=start, containing="Готово", timeout=WAIT)
    again = fake_api.send_text(group, anya, "/h 3 6")
    await fake_api.wait_for_message(group, after=again, containing="тайный бросок №2")
    await fake_api.wait_for_message(private, containing="Тайный бросок №2")
    assert_group_learned_nothing(fake_api, group)


async def test_an_anonymous_admin_claims_and_rolls_from_the_private_chat(
    fake_api: FakeBotApi, bot_process: BotLauncher
) -> None:
    owner = fake_api.add_user("Олег")
    vera = fake_api.add_user("Вера")
    group = fake_api.add_group("Хроника", owner=owner, anonymous_admins=[vera])
    await bot_process.start(timeout=STARTUP)

    command = fake_api.send_text(group, vera, "/st")
    prompt = await fake_api.wait_for_message(group, after=command, containing="анонимно")
    query = fake_api.press(group, vera, prompt, "🎭 Я Рассказчик")
    await fake_api.wait_for_callback_answer(query, timeout=WAIT)
    await fake_api.wait_for(lambda: "Вера теперь Рассказчик" in prompt.text, timeout=WAIT)

    private = fake_api.open_private_chat(vera)
    ask = fake_api.send_text(private, vera, "/h")
    offer = await fake_api.wait_for_message(private, after=ask, containing="Выберите кампанию")
    query = fake_api.press(private, vera, offer, "Хроника")
    await fake_api.wait_for_callback_answer(query, timeout=WAIT)
    await fake_api.wait_for(lambda: offer.text.startswith("Кампания: «Хроника»"), timeout=WAIT)

    roll = fake_api.send_text(private, vera, "/h 6 7")
    result = await fake_api.wait_for_message(private, after=roll, containing="Тайный бросок №1")
    posted = await fake_api.wait_for_message(group, containing="Вера бросает втайне")
    assert len(faces_in(result)) == 6
    assert_group_learned_nothing(fake_api, group)

    query = fake_api.press(private, vera, result, "📢 Раскрыть")
    answer = await fake_api.wait_for_callback_answer(query, timeout=WAIT)
    assert answer.text == "Раскрыто в группе."
    published = await fake_api.wait_for_message(group, after=posted, containing="раскрыт:")
    assert faces_in(published) == faces_in(result)
    assert fake_api.unanswered_callback_queries() == []
