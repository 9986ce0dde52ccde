"""End to end: character sheets and roll requests with the real ``python -m bot`` process, the
fake Bot API and a real redis-server, played by several users in a supergroup.

A player sets traits, rolls by their names (``/r ловк+драка 6``, Willpower spent off the
sheet), the Storyteller asks the table for a roll and two players answer from their sheets.
What the players see is checked against the rules: the faces printed are resolved again with
``rules.d10`` at the difficulty and must give the stated successes.
"""

from __future__ import annotations

import re

import pytest

from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser
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


MAGE = profiles.get("mage")


class Table:
    def __init__(self, api: FakeBotApi) -> None:
        self.rita = api.add_user("Рита", language_code="ru", username="rita_st")
        self.boris = api.add_user("Борис", language_code="ru", username="boris")
        self.vera = api.add_user("Вера", language_code="ru")
        self.emma = api.add_user("Emma", language_code="en")
        self.group: FakeChat = api.add_group(
            "Хроника", owner=self.rita, members=[self.boris, self.vera, self.emma]
        )


@pytest.fixture
def table(fake_api: FakeBotApi) -> Table:
    return Table(fake_api)


async def say(
    api: FakeBotApi, table: Table, user: FakeUser, text: str, **kw: object
) -> ChatMessage:
    sent = api.send_text(table.group, user, text, **kw)  # type: ignore[arg-type]
    return await api.wait_for_message(table.group, after=sent, timeout=10)


def answer_of(message: ChatMessage, name: str) -> str | None:
    return next((x for x in message.text.splitlines() if x.startswith(f"• {name}:")), None)


def check_roll(message: ChatMessage, pool: int, difficulty: int) -> None:
    """A /r result: one line of ``pool`` faces, and the successes they give stated (§A.4)."""
    [faces] = [
        [int(f) for f in line.split()]
        for line in message.text.splitlines()
        if re.fullmatch(r"(?:10|[1-9])(?: (?:10|[1-9]))*", line)
    ]
    assert len(faces) == pool
    result = d10.resolve(faces, difficulty, MAGE)
    if result.successes:
        stated = re.search(r"(\d+) успех", message.text)
        assert stated is not None, message.text
        assert int(stated.group(1)) == result.successes


def check_answer(line: str, pool: int, difficulty: int) -> None:
    """«• Борис: 5к10: 9 8 3 1 — Успех: 2 успеха»: the faces give what the line says."""
    head, rest = line.split(": ", 2)[1:]
    assert head == f"{pool}к10", line
    faces = [int(x) for x in re.findall(r"\d+", rest.split(" — ")[0])]
    assert len(faces) == pool
    result = d10.resolve(faces, difficulty, MAGE)
    if result.successes:
        stated = re.search(r"(\d+) успех", line)
        assert stated is not None, line
        assert int(stated.group(1)) == result.successes
    elif result.outcome is d10.Outcome.BOTCH:
        assert "Провал" in line
    else:
        assert "Неудача" in line


async def test_players_set_sheets_and_answer_the_storytellers_request(
    fake_api: FakeBotApi, bot_process: BotLauncher, table: Table
) -> None:
    await bot_process.start()
    group = table.group

    saved = await say(fake_api, table, table.boris, "/set восп 3 бдит 2 ловк 3 драка 2")
    assert saved.text == "✅ Борис — лист: Восприятие 3 · Бдительность 2 · Ловкость 3 · Драка 2"

    # An ambiguous prefix answers with the candidates and changes nothing.
    refused = await say(fake_api, table, table.vera, "/set сил 3")
    assert "«сил 3»: что именно — Сила, Сила Воли, Силы?" in refused.text

    # Vera pastes several lines as a reply to the /sheet set prompt.
    prompt = await say(fake_api, table, table.vera, "/sheet set")
    assert prompt.text.startswith("📜 Ответьте на это сообщение")
    pasted = await say(
        fake_api, table, table.vera, "Восприятие 2\nБдительность 1\nСила Воли 4/6", reply_to=prompt
    )
    assert pasted.text == "✅ Вера — лист: Восприятие 2 · Бдительность 1 · Сила Воли 4/6"

    # Export, edit, reply: the same text goes back in.
    exported = await say(fake_api, table, table.boris, "/sheet export")
    assert "Ловкость 3\nВосприятие 3\nБдительность 2\nДрака 2" in exported.text
    edited = exported.text.split("\n", 1)[1].replace("Ловкость 3", "Ловкость 4")
    back = await say(fake_api, table, table.boris, edited, reply_to=exported)
    assert "Ловкость 4" in back.text

    # Rolls by trait names come from the sheet (/r); Willpower spent on a
    # roll is taken off the sheet that /sheet then shows.
    rolled = await say(fake_api, table, table.boris, "/r ловк+драка 6")
    assert rolled.text.startswith("🎲 Борис: Ловкость 4 + Драка 2 → 6к10, сложность 6")
    check_roll(rolled, pool=6, difficulty=6)
    spent = await say(fake_api, table, table.vera, "/r восп+бдит 6 св")
    assert "Сила Воли: осталось 3 из 6" in spent.text
    own = await say(fake_api, table, table.vera, "/sheet")
    assert "Сила Воли: 3 из 6" in own.text

    # Another player may not look at Boris's sheet; the Storyteller (chat admin) may.
    peek = await say(fake_api, table, table.vera, "/sheet @boris")
    assert peek.text == "Чужие листы может смотреть только Рассказчик."
    view = await say(fake_api, table, table.rita, "/sheet @boris")
    assert view.text.startswith("📜 Борис — лист персонажа")
    assert "Физические: Ловкость 4" in view.text

    # The request: one message, one line per player, rolled from each one's own sheet.
    request = await say(fake_api, table, table.rita, "/ask восп+бдит 8")
    assert request.text.startswith("📣 Рита просит бросить: Восприятие + Бдительность, сложность 8")
    roll_button = request.button_texts[0]
    assert roll_button == "🎲 Бросить по листу"
    fake_api.press(group, table.boris, request, roll_button)
    await fake_api.wait_for(lambda: answer_of(request, "Борис") is not None, timeout=10)
    fake_api.press(group, table.vera, request, roll_button)
    await fake_api.wait_for(lambda: answer_of(request, "Вера") is not None, timeout=10)
    boris_line, vera_line = answer_of(request, "Борис"), answer_of(request, "Вера")
    assert boris_line is not None
    assert vera_line is not None
    check_answer(boris_line, pool=5, difficulty=8)
    check_answer(vera_line, pool=3, difficulty=8)

    # A second tap by Boris: an alert, nothing changes.
    shown = request.text
    again = fake_api.press(group, table.boris, request, roll_button)
    answer = await fake_api.wait_for_callback_answer(again, timeout=10)
    assert answer.show_alert
    assert answer.text == "Вы уже бросили по этому запросу."
    # Emma has no sheet: an alert with the /set hint, in her language.
    emma = fake_api.press(group, table.emma, request, roll_button)
    answer = await fake_api.wait_for_callback_answer(emma, timeout=10)
    assert answer.text is not None
    assert answer.text.startswith("You have no character sheet here yet.")
    assert "/set perception 3" in answer.text
    assert request.text == shown

    # Only the Storyteller closes it.
    close_button = request.button_texts[1]
    refused_close = fake_api.press(group, table.boris, request, close_button)
    answer = await fake_api.wait_for_callback_answer(refused_close, timeout=10)
    assert answer.text == "Закрыть запрос может только Рассказчик."
    closing = fake_api.press(group, table.rita, request, close_button)
    await fake_api.wait_for_callback_answer(closing, timeout=10)
    assert request.text.endswith("Запрос закрыт.")
    assert request.buttons == []
    assert answer_of(request, "Борис") == boris_line

    assert not fake_api.unanswered_callback_queries()
    fake_api.assert_no_duplicate_sends()


async def test_the_editor_sets_a_trait_in_one_message_in_english(
    fake_api: FakeBotApi, bot_process: BotLauncher, table: Table
) -> None:
    await bot_process.start()
    group = table.group
    editor = await say(fake_api, table, table.emma, "/set")
    assert "Choose what to change." in editor.text
    assert editor.button_texts[:2] == ["Attributes", "Abilities"]

    steps = [("Attributes", "Attributes: choose a trait."), ("Wits", "Wits: choose the value")]
    for button, expected in steps:
        fake_api.press(group, table.emma, editor, button)
        await fake_api.wait_for(lambda e=expected: e in editor.text, timeout=10)  # type: ignore[misc]

    # Someone else's tap on Emma's editor: an alert, nothing changes.
    before = editor.text
    foreign = fake_api.press(group, table.boris, editor, "4")
    answer = await fake_api.wait_for_callback_answer(foreign, timeout=10)
    assert answer.show_alert
    assert editor.text == before

    fake_api.press(group, table.emma, editor, "4")
    await fake_api.wait_for(lambda: "Mental: Wits 4" in editor.text, timeout=10)
    done = fake_api.press(group, table.emma, editor, "✅ Done")
    await fake_api.wait_for_callback_answer(done, timeout=10)
    assert editor.buttons == []
    assert "Mental: Wits 4" in editor.text

    sheet = await say(fake_api, table, table.emma, "/sheet")
    assert sheet.text.startswith("📜 Emma — character sheet")
    assert "Mental: Wits 4" in sheet.text
    bot_messages = [m for m in group.messages if m.sender_id == fake_api.bot.id]
    assert len(bot_messages) == 2  # the editor and the /sheet answer: edits happened in place
    assert not fake_api.unanswered_callback_queries()


async def test_the_storyteller_keeps_npcs_and_sees_every_sheet(
    fake_api: FakeBotApi, bot_process: BotLauncher, table: Table
) -> None:
    await bot_process.start()
    claimed = await say(fake_api, table, table.rita, "/st")
    assert "Рита" in claimed.text or "Рассказчик" in claimed.text

    await say(fake_api, table, table.boris, "/set сила 2 драка 1 св 3/5")
    npc = await say(fake_api, table, table.rita, "/npc Старый Страж: сила 4 драка 3")
    assert npc.text == "🎭 Старый Страж — лист: Сила 4 · Драка 3"
    refused = await say(fake_api, table, table.boris, "/npc Страж: сила 5")
    assert refused.text == "Листы персонажей Рассказчика ведёт только Рассказчик."

    roster = await say(fake_api, table, table.rita, "/sheet all")
    assert roster.text.splitlines() == [
        "📜 Борис: Сила 2 · Драка 1 · Сила Воли 3/5",
        "🎭 Старый Страж: Сила 4 · Драка 3",
    ]
    # Once the role is claimed, a player cannot ask the table for a roll.
    denied = await say(fake_api, table, table.boris, "/ask сила+драка 6")
    assert denied.text == "Просить стол о броске может только Рассказчик."
    request = await say(fake_api, table, table.rita, "/ask сила+драка 6")
    fake_api.press(table.group, table.boris, request, request.button_texts[0])
    await fake_api.wait_for(lambda: answer_of(request, "Борис") is not None, timeout=10)
    line = answer_of(request, "Борис")
    assert line is not None
    check_answer(line, pool=3, difficulty=6)
