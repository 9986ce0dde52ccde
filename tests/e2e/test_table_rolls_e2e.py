"""Extended, opposed, team and multiple-action rolls, end to end.

The real ``python -m bot`` against the fake Bot API and a redis-server; several players in
one supergroup press the buttons of one message each. What a player reads is checked
against the rules: the faces the chat shows are resolved again with ``rules.d10`` and the
totals the bot announces must be the rules' (§A.9, §A.11, §A.12, §A.13).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from aiogram.filters.callback_data import CallbackData

from handlers.extended.callbacks import ExtAction, ExtCallback
from handlers.multi.callbacks import MultiAction, MultiCallback
from handlers.opposed.callbacks import VsAction, VsCallback
from handlers.teamwork.callbacks import TeamAction, TeamCallback
from handlers.wizard.callbacks import SetupAction, SetupCallback
from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser
from rules import contests, d10, profiles
from tests.e2e.conftest import BotLauncher

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

MAGE = profiles.get("mage")
STARTUP = 30.0
QUIET = 0.4


def faces_lines(text: str) -> list[list[int]]:
    """Every roll's faces in a message as the chat shows it (HTML already rendered), in
    order: one line each, «… → outcome»."""
    found = []
    for line in text.splitlines():
        line = re.sub(r"^\S+: \d+к10 · |^\d+\. ", "", line)
        match = re.match(r"^((?:10|[1-9])(?: (?:10|[1-9]))*) → [^\W\d]", line)
        if match:
            found.append([int(f) for f in match.group(1).split()])
    return found


def ru_successes(n: int) -> str:
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} успех"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return f"{n} успеха"
    return f"{n} успехов"


@dataclass
class Table:
    api: FakeBotApi
    launcher: BotLauncher
    chat: FakeChat
    anya: FakeUser
    boris: FakeUser
    vera: FakeUser
    master: FakeUser

    async def say(
        self, user: FakeUser, text: str, reply_to: ChatMessage | None = None
    ) -> ChatMessage:
        typed = self.api.send_text(self.chat, user, text, reply_to=reply_to)
        return await self.api.wait_for_message(self.chat, after=typed, timeout=10)

    def data(self, message: ChatMessage, factory: type[CallbackData], **match: object) -> str:
        for button in message.buttons:
            raw = button.get("callback_data")
            if raw is None or not raw.startswith(factory.__prefix__ + ":"):
                continue
            parsed = factory.unpack(raw)
            if all(getattr(parsed, k) == v for k, v in match.items()):
                return str(raw)
        raise LookupError(f"no {match} button; the message shows {message.button_texts}")

    async def tap(self, user: FakeUser, message: ChatMessage, data: str) -> str:
        """A tap that changes the message: waits for its answer and its edit."""
        edits = message.edits
        query = self.api.press(self.chat, user, message, data)
        await self.api.wait_for_callback_answer(query, timeout=10)
        await self.api.wait_for(lambda: message.edits > edits, timeout=10)
        return query

    async def refused(self, user: FakeUser, message: ChatMessage, data: str) -> str:
        """A tap that must change nothing: returns the alert it got."""
        edits, text = message.edits, message.text
        query = self.api.press(self.chat, user, message, data)
        answer = await self.api.wait_for_callback_answer(query, timeout=10)
        await asyncio.sleep(QUIET)
        assert message.edits == edits
        assert message.text == text
        assert answer.show_alert is True
        return answer.text or ""

    async def settle(self) -> None:
        await asyncio.sleep(QUIET)
        queries = [q for q in self.api.callback_queries.values() if q.chat_id == self.chat.id]
        assert all(q.answer is not None for q in queries)
        self.api.assert_no_duplicate_sends()
        refused = [
            c
            for c in self.api.calls_for_chat(self.chat)
            if not c.ok and c.response is not None and c.status != 429
        ]
        assert refused == []
        assert self.launcher.current.running, self.launcher.logs()


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    """The session's bot process: a fresh supergroup per test costs nothing."""
    return shared_world


@pytest_asyncio.fixture(loop_scope="session")
async def table(world: BotLauncher) -> AsyncIterator[Table]:
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    boris = api.add_user("Борис", language_code="ru", username="boris")
    vera = api.add_user("Вера", language_code="ru")
    chat = api.add_group("Хроника", owner=master, members=[anya, boris, vera])
    yield Table(api, world, chat, anya, boris, vera, master)
    print(world.logs())


async def test_extended_roll_across_taps(table: Table) -> None:
    message = await table.say(table.anya, "/ext 4 6 6 8")
    assert message.text.startswith("⏳ Длительное действие — Аня")
    roll = table.data(message, ExtCallback, a=ExtAction.ROLL)
    assert "Это не ваш бросок." in await table.refused(table.boris, message, roll)
    while message.buttons:
        await table.tap(table.anya, message, table.data(message, ExtCallback, a=ExtAction.ROLL))
    # The whole record is in the one message; replay it through the rules (§A.11).
    rolls = [d10.resolve(faces, 6, MAGE) for faces in faces_lines(message.text)]
    assert 1 <= len(rolls) <= 8
    total = 0
    for result in rolls:
        total = 0 if result.outcome is d10.Outcome.BOTCH else total + result.successes
    if total >= 6:
        assert "✅ Готово!" in message.text
    else:
        assert len(rolls) == 8
        assert "⌛ Время вышло:" in message.text
    assert f" {total}/6" in message.text
    await table.settle()


async def test_opposed_roll_by_reply(table: Table) -> None:
    sneaking = table.api.send_text(table.chat, table.boris, "Борис крадётся мимо стражи")
    message = await table.say(table.anya, "/vs 5 6", reply_to=sneaking)
    assert "Противостояние: Аня — Борис" in message.text
    pool = table.data(message, VsCallback, a=VsAction.POOL, x=4)
    assert "Этот вызов адресован не вам." in await table.refused(table.vera, message, pool)
    await table.tap(table.boris, message, pool)
    await table.tap(
        table.boris, message, table.data(message, VsCallback, a=VsAction.DIFFICULTY, x=7)
    )
    roll_b = table.data(message, VsCallback, a=VsAction.ROLL_B)
    await table.tap(table.boris, message, roll_b)
    faces_a, faces_b = faces_lines(message.text)
    assert len(faces_a) == 5
    assert len(faces_b) == 4
    verdict = contests.opposed(d10.resolve(faces_a, 6, MAGE), d10.resolve(faces_b, 7, MAGE))
    if verdict.winner is None:
        assert "Ничья" in message.text
    else:
        name = "Аня" if verdict.winner is contests.Side.A else "Борис"
        assert f"Побеждает {name} с перевесом в {verdict.net} успех" in message.text
    assert message.buttons == []
    await table.settle()


async def test_teamwork_collects_each_helpers_roll(table: Table) -> None:
    message = await table.say(table.anya, "/team 3 6 цель 4")
    assert message.text.startswith("🤝 Работа в команде — Аня")
    for helper, pool in ((table.boris, 2), (table.vera, 5)):
        await table.tap(helper, message, table.data(message, TeamCallback, a=TeamAction.JOIN))
        assert f"{helper.first_name}: выберите запас кубиков ниже." in message.text
        await table.tap(
            helper, message, table.data(message, TeamCallback, a=TeamAction.POOL, x=pool)
        )
    finish = table.data(message, TeamCallback, a=TeamAction.FINISH)
    assert "тот, кто её начал" in await table.refused(table.boris, message, finish)
    await table.tap(table.anya, message, finish)
    lines = faces_lines(message.text)
    assert [len(f) for f in lines] == [3, 2, 5]
    results = [d10.resolve(f, 6, MAGE) for f in lines]
    team = contests.teamwork(results, MAGE, 4)
    assert f"Вместе: {ru_successes(team.total)}" in message.text
    assert message.text.count("→ Провал") == sum(r.outcome is d10.Outcome.BOTCH for r in results)
    assert ("✅ Команда достигла цели." in message.text) == team.reached
    await table.settle()


async def test_multiple_actions_roll_in_order(table: Table) -> None:
    message = await table.say(table.anya, "/multi 6 7 7")
    assert "1. 6 → 3к10" in message.text
    assert "2. 7 → 3к10" in message.text
    assert "3. 7 → 2к10" in message.text
    stop = table.data(message, MultiCallback, a=MultiAction.STOP)
    assert "Это не ваш бросок." in await table.refused(table.boris, message, stop)
    for k in range(3):
        await table.tap(table.anya, message, table.data(message, MultiCallback, x=k))
    assert [len(f) for f in faces_lines(message.text)] == [3, 3, 2]
    assert "✅ Все действия брошены." in message.text
    await table.settle()


async def test_rolls_from_the_sheet_spend_willpower(table: Table) -> None:
    """/set fills the sheet, /r names traits, «св» spends a
    point off the sheet, and at 0 the roll is refused and the wizard has no toggle."""
    await table.say(table.anya, "/set ловкость 3 драка 2 сила воли 1/5")
    message = await table.say(table.anya, "/r ловк+драка 7 св")
    assert message.text.startswith("🎲 Аня: Ловкость 3 + Драка 2 → 5к10, сложность 7")
    assert "Сила Воли: осталось 0 из 5" in message.text
    [faces] = [
        [int(f) for f in line.split()]
        for line in message.text.splitlines()
        if re.fullmatch(r"(?:10|[1-9])(?: (?:10|[1-9]))*", line)
    ]
    result = d10.resolve(faces, 7, MAGE, willpower=True)
    assert result.outcome is not d10.Outcome.BOTCH  # Willpower's success prevents a botch
    refused = await table.say(table.anya, "/r 5 6 св")
    assert "не осталось Силы Воли (0 из 5)" in refused.text
    wizard = await table.say(table.anya, "/r")
    assert not any("Сила Воли" in label for label in wizard.button_texts)
    boris = await table.say(table.boris, "/r ловк+драка 7")
    assert "нет листа персонажа" in boris.text or "/set" in boris.text
    await table.settle()


async def test_wizards_and_an_answer_from_the_sheet(table: Table) -> None:
    """/ext typed bare is a wizard in one message; a challenged player answers /vs in reply
    with a pool from their sheet."""
    wizard = await table.say(table.anya, "/ext")
    for action, x in ((SetupAction.POOL, 4), (SetupAction.TARGET, 3)):
        await table.tap(table.anya, wizard, table.data(wizard, SetupCallback, a=action, x=x))
    await table.tap(table.anya, wizard, table.data(wizard, SetupCallback, a=SetupAction.GO))
    assert wizard.text.startswith("⏳ Длительное действие — Аня")
    assert "4к10, сложность 6 (стандартно) · цель 3" in wizard.text

    await table.say(table.boris, "/set сообразительность 2 бдительность 3")
    sneaking = table.api.send_text(table.chat, table.boris, "Борис крадётся")
    challenge = await table.say(table.anya, "/vs 5 6", reply_to=sneaking)
    typed = table.api.send_text(table.chat, table.boris, "/vs сообр+бдит 7", reply_to=challenge)
    await table.api.wait_for(lambda: challenge.edits > 0, timeout=10)
    assert "Борис: Смекалка 2 + Бдительность 3 → 5к10, сложность 7" in challenge.text
    assert ("Побеждает" in challenge.text) or ("Ничья" in challenge.text)
    assert typed.message_id > challenge.message_id
    await table.settle()


async def test_what_players_typed_first_now_reads(table: Table) -> None:
    """The lines an evening of play saw refused, through the real process: mistyped
    commands, names as the sheet prints them, dice on a pool, one sheet pool at two
    difficulties, NPCs by name, and the Dark Ages traits (docs/product.md §5)."""
    # A capital or a glued number is the command as meant: it rolls at once.
    for typo, rolled in (("/R 7 6", "7к10, сложность 6"), ("/r8 6", "8к10, сложность 6")):
        answer = await table.say(table.anya, typo)
        assert answer.text.startswith(f"🎲 Аня: {rolled}"), (typo, answer.text)
    # A group in privacy mode never shows the bot «/к»: Telegram's commands are Latin. The
    # Russian layout is read where the bot sees it, as in the private chat.
    private = table.api.open_private_chat(table.anya)
    for typo, fixed in (("/к 7 6", "/r 7 6"), ("/кщдд 5 6", "/r 5 6"), ("r 4 6", "/r 4 6")):
        typed = table.api.send_text(private, table.anya, typo)
        answer = await table.api.wait_for_message(private, after=typed, timeout=10)
        assert fixed in answer.text, (typo, answer.text)
    await table.say(table.anya, "/set ловкость 3 драка 2 сила 2 сила воли 5")
    willpower = await table.say(table.anya, "/r сила воли 8")
    assert willpower.text.startswith("🎲 Аня: Сила Воли 5 → 5к10, сложность 8")
    less = await table.say(table.anya, "/r ловк+драка-1 6")
    assert "Ловкость 3 + Драка 2 − 1 → 4к10" in less.text
    more = await table.say(table.anya, "/r сила +2 6")
    assert "Сила 2 + 2 → 4к10, сложность 6" in more.text
    two = await table.say(table.anya, "/multi ловк+драка 6 7")
    assert "по разу на каждую сложность: 6, 7" in two.text
    assert "2. Ловкость 3 + Драка 2: 5 → 2к10, сложность 7" in two.text
    await table.say(table.master, "/npc Страж: выносливость 3 восприятие 2 бдительность 2")
    guard = await table.say(table.master, "/r страж вын 6")
    assert guard.text.startswith("🎲 Страж: Выносливость 3 → 3к10, сложность 6")
    sneaking = table.api.send_text(table.chat, table.vera, "Вера крадётся")
    contest = await table.say(table.master, "/vs страж восп+бдит 7", reply_to=sneaking)
    assert "Страж — Вера" in contest.text
    assert "Восприятие 2 + Бдительность 2 → 4к10" in contest.text
    await table.say(table.master, "/rules dark-ages")
    await table.say(table.boris, "/set самоконтроль 4 кровь 10 стремительность 2")
    frenzy = await table.say(table.boris, "/r самоконтроль 7")
    assert frenzy.text.startswith("🎲 Борис: Самоконтроль 4 → 4к10, сложность 7")
    await table.settle()
