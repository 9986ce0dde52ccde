"""A session from start to end, with the real ``python -m bot`` against the fake Bot API and a
real redis-server: the commitment, rolls, the Storyteller's screen wounding a player who is
told privately, the seed revealed, the chronicle sent as documents, and
``docs/verify_session.py`` run over the Markdown — honest (exit 0) and with a die changed
(exit 1)."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser
from tests.e2e.conftest import BotLauncher, SharedLauncher

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

WAIT = 15.0
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
SPAN = re.compile(r"`s\d+ d10 (-?\d+:\d+#\d+) = ([0-9 ]+)`")
VERIFY = Path(__file__).resolve().parents[2] / "docs" / "verify_session.py"


@pytest.fixture
def fake_api(shared_world: BotLauncher) -> FakeBotApi:
    return shared_world.api


@pytest.fixture
def bot_process(shared_world: BotLauncher) -> SharedLauncher:
    return SharedLauncher(shared_world)


async def say(
    api: FakeBotApi, chat: FakeChat, user: FakeUser, text: str, **wait: str
) -> ChatMessage:
    typed = api.send_text(chat, user, text)
    return await api.wait_for_message(chat, after=typed, timeout=WAIT, **wait)


async def press(
    api: FakeBotApi, chat: FakeChat, user: FakeUser, message: ChatMessage, label: str
) -> None:
    button = next(b["text"] for b in message.buttons if label in b["text"])
    edits = message.edits
    query = api.press(chat, user, message, button)
    await api.wait_for_callback_answer(query, timeout=WAIT)
    await api.wait_for(lambda: message.edits > edits, WAIT)


def verify(path: Path) -> int:
    run = subprocess.run([sys.executable, str(VERIFY), str(path)], capture_output=True, check=False)
    return run.returncode


async def test_a_session_from_start_to_the_chronicle(
    fake_api: FakeBotApi, bot_process: BotLauncher, tmp_path: Path
) -> None:
    api = fake_api
    mira = api.add_user("Мира")
    anya = api.add_user("Аня")
    boris = api.add_user("Борис")
    group = api.add_group("Сессия", owner=mira, members=[anya, boris])
    await bot_process.start()
    mira_private = api.open_private_chat(mira)
    anya_private = api.open_private_chat(anya)
    await say(api, group, mira, "/st", containing="Рассказчик")
    await say(api, group, anya, "/set выносливость 2 сила воли 5 ловкость 3 драка 2")
    await say(api, group, boris, "/set сила воли 3")

    started = await say(api, group, mira, "/session start", containing="SHA-256")
    commitment = HEX64.findall(started.text)[0]
    await say(api, group, anya, "/r ловк+драка 6", containing="Аня")
    await say(api, group, boris, "/r 4 7", containing="Борис")

    screen = await say(api, mira_private, mira, "/screen", containing="Аня")
    assert "Борис" in screen.text
    await press(api, mira_private, mira, screen, "Аня")
    await press(api, mira_private, mira, screen, "+летальный")
    told = await api.wait_for_message(anya_private, containing="Сессия", timeout=WAIT)
    assert "летальн" in told.text
    await api.wait_for(lambda: "[X]" in screen.text or "−1" in screen.text, WAIT)
    # Борис never started the bot: the group is told once how to enable the notices
    await press(api, mira_private, mira, screen, "Назад")
    await press(api, mira_private, mira, screen, "Борис")
    await press(api, mira_private, mira, screen, "+ударный")
    await api.wait_for_message(group, containing="t.me/", timeout=WAIT)

    ended = await say(api, group, mira, "/session end", containing="Сессия 1 окончена")
    seed = next(h for h in HEX64.findall(ended.text) if h != commitment)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment

    asked = api.send_text(group, boris, "/chronicle")
    await api.wait_for(
        lambda: (
            sum(
                1
                for m in group.messages
                if m.message_id > asked.message_id and "document" in m.data
            )
            >= 2
        ),
        WAIT,
    )
    documents = {
        m.data["document"]["file_name"]: m.data["document"]["file_id"]
        for m in group.messages
        if m.message_id > asked.message_id and "document" in m.data
    }
    assert set(documents) == {"chronicle-session-1.md", "chronicle-session-1.html"}
    markdown_file = api.file_bytes(documents["chronicle-session-1.md"])
    page_file = api.file_bytes(documents["chronicle-session-1.html"])
    assert markdown_file is not None
    assert page_file is not None
    markdown = markdown_file.data.decode()
    assert "Аня" in markdown
    assert "Борис" in markdown
    assert "+1 уровень, летальный" in markdown  # the screen's change, in the chronicle
    assert page_file.data.decode().startswith("<!doctype html>")
    spans = SPAN.findall(markdown)
    assert len(spans) == 2
    honest = tmp_path / "chronicle.md"
    honest.write_text(markdown, encoding="utf-8")
    assert verify(honest) == 0
    where, dice = spans[0]
    faces = dice.split()
    faces[-1] = "1" if faces[-1] != "1" else "2"
    tampered = tmp_path / "tampered.md"
    tampered.write_text(
        markdown.replace(f"{where} = {dice}`", f"{where} = {' '.join(faces)}`"), encoding="utf-8"
    )
    assert verify(tampered) == 1
