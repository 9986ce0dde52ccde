"""A combat round end to end: the real ``python -m bot``, the fake Bot API, a real redis-server.

Three players and two NPCs roll initiative into one tracker, declare from the lowest
initiative up, act from the highest down; a wound taken mid-round costs a die on the next
roll and shows on the tracker line; two players pressing «Дальше» at once move the round
one step; a new round re-rolls everyone. The whole round sends the tracker once and edits
it in place (docs/product.md §5: about 20 messages a minute in a group).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio

from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser
from tests.e2e.conftest import BotLauncher
from tests.e2e.test_table_e2e import applied, bot_messages, unexpected_errors

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@dataclass
class Fight:
    api: FakeBotApi
    chat: FakeChat
    master: FakeUser
    players: dict[str, FakeUser]
    first_call: int

    async def say(self, user: FakeUser, text: str) -> ChatMessage:
        typed = self.api.send_text(self.chat, user, text)
        return await self.api.wait_for_message(self.chat, after=typed)

    async def typed(self, user: FakeUser, text: str, tracker: ChatMessage) -> None:
        """A command whose answer is an edit of the tracker, not a new message."""
        edits = tracker.edits
        self.api.send_text(self.chat, user, text)
        await self.api.wait_for(lambda: tracker.edits > edits)

    async def press(self, user: FakeUser, tracker: ChatMessage, label: str) -> str:
        data = next(b["callback_data"] for b in tracker.buttons if label in b["text"])
        edits = tracker.edits
        query = self.api.press(self.chat, user, tracker, data)
        await self.api.wait_for_callback_answer(query)
        await self.api.wait_for(lambda: tracker.edits > edits)
        return query


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    return shared_world


@pytest_asyncio.fixture(loop_scope="session")
async def fight(world: BotLauncher) -> AsyncIterator[Fight]:
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    players = {name: api.add_user(name, language_code="ru") for name in ("Аня", "Борис", "Вера")}
    chat = api.add_group(
        "Бой в переулке", owner=master, members=list(players.values()), bot_is_admin=True
    )
    yield Fight(api, chat, master, players, first_call=len(api.calls))
    print(world.logs())


def totals(text: str) -> dict[str, int]:
    """Name → total as the tracker lists them (the chat shows text without the HTML)."""
    found = re.findall(r"^\d+\. (?:[✍️▶✓]+\s*)?(.+?) — (\d+) \((\d+)\+🎲(\d+)\)", text, re.M)
    for _name, total, base, die in found:
        assert int(total) == int(base) + int(die)
    return {name: int(total) for name, total, _b, _d in found}


def marked(text: str, mark: str) -> str:
    found = re.search(mark + r"\s*(.+?) — ", text)
    assert found is not None, text
    return found.group(1)


async def test_a_round_of_combat_in_one_message(fight: Fight) -> None:
    api, chat, master = fight.api, fight.chat, fight.master
    anya, boris, vera = fight.players["Аня"], fight.players["Борис"], fight.players["Вера"]
    await fight.say(anya, "/set ловкость 3 смекалка 2 драка 3 сила 3")
    await fight.say(boris, "/set ловкость 2 смекалка 2")
    await fight.say(master, "/st")

    tracker = await fight.say(anya, "/init")
    assert "Бой" in tracker.text
    assert "раунд 1" in tracker.text
    await api.wait_for(lambda: tracker.message_id in chat.pinned)
    await fight.typed(boris, "/init", tracker)
    await fight.typed(vera, "/init 6", tracker)
    await fight.typed(master, "/init npc Гуль 4 x2", tracker)
    shown = totals(tracker.text)
    assert set(shown) == {"Аня", "Борис", "Вера", "Гуль 1", "Гуль 2"}
    assert list(shown.values()) == sorted(shown.values(), reverse=True)

    # Phase II: declarations from the lowest initiative up; each presses their own button,
    # the Storyteller presses for the NPCs.
    await fight.press(master, tracker, "Заявки")
    order = list(totals(tracker.text))
    declared = []
    for _ in range(5):
        name = marked(tracker.text, "✍️")
        declared.append(name)
        await fight.press(fight.players.get(name, master), tracker, "Заявлено")
    assert declared == list(reversed(order))

    # Phase III: from the highest down. Аня attacks a ghoul on the attack panel (the
    # Storyteller defends for it); she tries until a blow lands, the panel is reused.
    first = marked(tracker.text, "▶️")
    assert first == order[0]
    panel = await fight.say(anya, "/atk")
    assert "Аня →" in panel.text
    for _attempt in range(15):
        await fight.press(anya, panel, "🎯 Гуль 1")  # the target's button rolls the attack
        if "Без защиты" in " ".join(panel.button_texts):
            # Гуль 1 declared no defence: only an Interruption would buy one; it takes the hit.
            assert "✋" in " ".join(panel.button_texts)
            await fight.press(master, panel, "Без защиты")
        if "Урон:" in panel.text:  # damage and soak roll with the defence
            break
        await fight.typed(anya, "/atk", panel)  # a miss: the next attack on the same panel
    else:
        raise AssertionError("fifteen attacks and not one hit")
    assert not panel.buttons
    landed = re.search(r"получает (\d+)", panel.text)
    # A hit whose damage dice roll no success wounds nobody: «попадание срабатывает, урона нет».
    assert landed is not None or "урона нет" in panel.text, panel.text
    if landed is not None and int(landed.group(1)):
        await api.wait_for(lambda: re.search(r"Гуль 1 — .*🩸", tracker.text) is not None)

    # Борис is wounded mid-round and rolls one die less.
    await fight.say(boris, "/dmg 3 л")
    await api.wait_for(lambda: re.search(r"Борис — .*🩸", tracker.text) is not None)
    roll = await fight.say(boris, "/r 6 6")
    assert len(roll.text.split("\n")[1].split()) == 5
    assert "−1 за раны" in roll.text or "за раны" in roll.text

    # Аня's first attack, when hers was the action, moved the round on by itself.
    now = marked(tracker.text, "▶️")
    assert now == (order[1] if first == "Аня" else order[0])
    start = order.index(now)

    # Two players press «Дальше» on the same drawing at once: one step.
    data = next(b["callback_data"] for b in tracker.buttons if "Дальше" in b["text"])
    acting = fight.players.get(now, master)
    other = master if acting is not master else anya
    queries = [api.press(chat, acting, tracker, data), api.press(chat, other, tracker, data)]
    for query in queries:
        await api.wait_for_callback_answer(query)
    await asyncio.sleep(0.3)
    assert marked(tracker.text, "▶️") == order[start + 1]

    for name in order[start + 1 :]:
        assert marked(tracker.text, "▶️") == name
        await fight.press(fight.players.get(name, master), tracker, "Дальше")
    assert "Раунд окончен" in tracker.text

    before = totals(tracker.text)
    await fight.press(master, tracker, "Новый раунд")
    assert "раунд 2" in tracker.text
    assert set(totals(tracker.text)) == set(before)

    await fight.press(master, tracker, "Конец боя")
    assert "Бой окончен" in tracker.text
    assert not tracker.buttons
    await api.wait_for(lambda: tracker.message_id not in chat.pinned)

    await asyncio.sleep(0.3)
    trackers = [m for m in bot_messages(api, chat) if "Бой" in m.text]
    assert len(trackers) == 1  # one live message for the whole fight
    sends = [c for c in applied(api, "sendMessage", chat) if "⚔️" in c.params["text"]]
    assert len(sends) == 2  # the tracker and the attack panel: the rest were edits
    api.assert_no_duplicate_sends()
    assert unexpected_errors(api.calls[fight.first_call :]) == []


async def test_two_rolls_with_willpower_sent_at_once_in_a_fight_spend_one_point(
    fight: Fight,
) -> None:
    """docs/rules.md §A.7, once a turn: two rolls with Willpower sent at once by one fighter
    pay one point between them; the other is refused naming the turn, and nothing leaves the
    sheet for it. Outside the fight's roster the same player would spend both."""
    api, chat = fight.api, fight.chat
    vera = fight.players["Вера"]
    await fight.say(vera, "/set сила воли 3")
    tracker = await fight.say(vera, "/init 6")
    assert "Бой" in tracker.text
    first = api.send_text(chat, vera, "/r 3 6 св")
    api.send_text(chat, vera, "/r 4 6 св")
    await api.wait_for(
        lambda: len([m for m in bot_messages(api, chat) if m.message_id > first.message_id]) >= 2
    )
    answers = [m.text for m in bot_messages(api, chat) if m.message_id > first.message_id]
    paid = [t for t in answers if "Сила Воли: осталось 2 из 3" in t]
    refused = [t for t in answers if "уже потрачена в ходу 1" in t]
    assert len(paid) == 1, answers
    assert len(refused) == 1, answers
    assert unexpected_errors(api.calls[fight.first_call :]) == []
