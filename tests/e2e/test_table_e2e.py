"""A table at play, end to end: the real ``python -m bot`` against the fake Bot API and Redis.

Why these scenarios (docs/product.md §2, §5): a group of players taps one
wizard message, some of them twice, some on someone else's roll, while the bot restarts and
Telegram answers 429. Each test checks what the chat shows (the fake server's view, the one a
player has) and what the bot did to get there (the calls it made), and ends with the
invariant every test must keep: every callback query was answered, nothing was sent twice,
and the bot made no call Telegram would have refused.

The expected numbers come from the rules core (the exact odds of ``rules.probability`` and
the outcome of ``rules.d10.resolve`` for the faces the chat shows); the expected words come
from the catalogues in ``locales/``.
"""

from __future__ import annotations

import asyncio
import copy
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from babel.numbers import format_decimal
from redis.asyncio import Redis

from handlers.roll.callbacks import RollAction, RollCallback
from localapi.server import (
    ApiCall,
    CallbackQueryRecord,
    ChatMessage,
    FakeBotApi,
    FakeChat,
    FakeUser,
)
from rules import d10, probability, profiles
from table.store import Store
from tests.e2e.conftest import BotLauncher

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

PROFILE = profiles.get("mage")  # a new chat's profile (ChatSettings.profile)
DEFAULT_DIFFICULTY = PROFILE.default_difficulty
QUIET = 0.4  # how long "nothing more happens" is watched after the last expected call
STARTUP = 30.0  # seconds for `python -m bot` to import and poll on a busy shared machine

# What the players read, from locales/{ru,en}/LC_MESSAGES/messages.po.
OUTCOMES = {
    "ru": {
        d10.Outcome.SUCCESS: "Успех",
        d10.Outcome.FAILURE: "Неудача",
        d10.Outcome.BOTCH: "Провал",
    },
    "en": {
        d10.Outcome.SUCCESS: "Success",
        d10.Outcome.FAILURE: "Failure",
        d10.Outcome.BOTCH: "Botch",
    },
}


def ru_successes(n: int) -> str:
    """Russian plural forms (1 успех, 2 успеха, 5 успехов, 11 успехов, 21 успех)."""
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} успех"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return f"{n} успеха"
    return f"{n} успехов"


def en_successes(n: int) -> str:
    return f"{n} success" if n == 1 else f"{n} successes"


def percent(p: float, locale: str) -> str:
    """A chance as the wizard shows it: one decimal in the reader's format, "<0,1%" if tiny."""
    if 0 < p < 0.001:
        return "<" + format_decimal(0.1, format="0.0", locale=locale) + "%"
    return format_decimal(p * 100, format="0.0", locale=locale) + "%"


def chances_ru(pool: int, difficulty: int, willpower: bool) -> str:
    odds = probability.d10(pool, difficulty, PROFILE, willpower=willpower)
    return f"Шанс успеха {percent(odds.success, 'ru')}, провала {percent(odds.botch, 'ru')}"


def chances_en(pool: int, difficulty: int, willpower: bool) -> str:
    odds = probability.d10(pool, difficulty, PROFILE, willpower=willpower)
    return (
        f"Chance of success {percent(odds.success, 'en')}, of a botch {percent(odds.botch, 'en')}"
    )


@dataclass(frozen=True)
class Shown:
    """A roll result as the chat shows it: the three lines of ``render.roll_result_text``."""

    head: str
    faces: tuple[int, ...]
    outcome_line: str


def parse_result(message: ChatMessage) -> Shown:
    lines = message.text.split("\n")
    assert len(lines) == 3, f"a result has three lines, got {message.text!r}"
    faces = tuple(int(word) for word in lines[1].split())
    return Shown(lines[0], faces, lines[2])


def check_result(
    shown: Shown,
    *,
    pool: int,
    difficulty: int,
    willpower: bool,
    locale: str,
) -> d10.D10Result:
    """The faces are the pool's dice, high to low, and the verdict is what the rules say."""
    assert len(shown.faces) == pool, shown
    assert all(1 <= face <= 10 for face in shown.faces), shown
    assert list(shown.faces) == sorted(shown.faces, reverse=True), shown
    expected = d10.resolve(shown.faces, difficulty, PROFILE, willpower=willpower)
    word = OUTCOMES[locale][expected.outcome]
    if expected.outcome is d10.Outcome.SUCCESS:  # named by its degree: «Средний успех: …»
        head = shown.outcome_line.split(":")[0].casefold()
        assert head.endswith(word.casefold()), (shown, expected)
    else:
        assert shown.outcome_line.startswith(word), (shown, expected)
    if expected.outcome is d10.Outcome.SUCCESS:
        count = ru_successes if locale == "ru" else en_successes
        assert f": {count(expected.successes)}" in shown.outcome_line, (shown, expected)
    return expected


def unexpected_errors(calls: list[ApiCall], *, restarted_at: float = 0.0) -> list[str]:
    """Calls the server refused other than the 429s a test injected: each is a bot bug.

    A long poll that was still open on the server when its process stopped is answered 409
    once the next process polls; nobody reads that answer, so it is not the bot's doing. A
    repeated tap redraws its message in case the first redraw was lost (bot/runner.py), and
    "message is not modified" is Telegram's answer when it was not: a success for the bot.
    """
    refused = []
    for call in calls:
        if call.ok or call.response is None or call.status == 429:
            continue
        if call.method == "getUpdates" and call.status == 409 and call.at < restarted_at:
            continue
        description = str(call.response.get("description"))
        if call.method == "editMessageText" and "message is not modified" in description:
            continue
        refused.append(f"{call.method}: {call.response.get('description')}")
    return refused


def applied(api: FakeBotApi, method: str, chat: FakeChat) -> list[ApiCall]:
    return [c for c in api.calls_for_chat(chat) if c.method == method and c.applied]


def bot_messages(api: FakeBotApi, chat: FakeChat) -> list[ChatMessage]:
    return [m for m in chat.messages if m.sender_id == api.bot.id]


@dataclass
class Table:
    """A fresh supergroup at play: the storyteller, three Russian-speaking players and an
    English-speaking guest. Tests share one bot process, so each gets its own chat and
    players, and judges only the calls made since it began."""

    api: FakeBotApi
    launcher: BotLauncher
    chat: FakeChat
    anya: FakeUser
    boris: FakeUser
    vera: FakeUser
    john: FakeUser
    first_call: int
    restarted_at: float = 0.0

    async def say(self, user: FakeUser, text: str) -> ChatMessage:
        """A player types a command; returns the bot's next message in the chat."""
        typed = self.api.send_text(self.chat, user, text)
        return await self.api.wait_for_message(self.chat, after=typed)

    def button(self, message: ChatMessage, action: RollAction, x: int = 0) -> str:
        """The callback_data of a roll button by meaning (action and value), not by its label:
        labels are decoration that may change or repeat (pool 8 and difficulty 8)."""
        for button in message.buttons:
            data = button.get("callback_data")
            if data is None or not data.startswith(RollCallback.__prefix__ + ":"):
                continue
            parsed = RollCallback.unpack(data)
            if parsed.a is action and (x == 0 or parsed.x == x):
                return str(data)
        raise LookupError(f"no {action} {x} button; the message shows {message.button_texts}")

    async def tap(
        self, user: FakeUser, message: ChatMessage, action: RollAction, x: int = 0
    ) -> str:
        """A tap that changes the message: waits for its answer and for the edit."""
        edits = message.edits
        query = self.api.press(self.chat, user, message, self.button(message, action, x))
        await self.api.wait_for_callback_answer(query)
        await self.api.wait_for(lambda: message.edits > edits)
        return query

    def queries(self) -> list[CallbackQueryRecord]:
        return [q for q in self.api.callback_queries.values() if q.chat_id == self.chat.id]

    async def settle(self) -> None:
        """Scenario 7 and the table's invariants, checked at the end of every test."""
        await asyncio.sleep(QUIET)
        await self.api.wait_for(lambda: all(q.answer is not None for q in self.queries()))
        self.api.assert_no_duplicate_sends()
        calls = self.api.calls[self.first_call :]
        assert unexpected_errors(calls, restarted_at=self.restarted_at) == []
        assert self.launcher.current.running, self.launcher.logs()


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    """The session's bot process; scenario 7 is checked over the whole session on the way
    out, beside each test's own check of its chat."""
    return shared_world


@pytest_asyncio.fixture(loop_scope="session")
async def table(world: BotLauncher) -> AsyncIterator[Table]:
    api = world.api
    storyteller = api.add_user("Мастер", language_code="ru")
    anya = api.add_user("Аня", language_code="ru", username="anya")
    boris = api.add_user("Борис", language_code="ru")
    vera = api.add_user("Вера", language_code="ru-RU")
    john = api.add_user("John", language_code="en", username="john")
    chat = api.add_group("Маг: Восхождение", owner=storyteller, members=[anya, boris, vera, john])
    assert world.current.running, world.logs()
    yield Table(api, world, chat, anya, boris, vera, john, first_call=len(api.calls))
    # Shown by pytest only when the test failed: what the bot said is the first clue.
    print(world.logs())


async def test_second_player_rolls_through_the_wizard_in_one_message(table: Table) -> None:
    api, chat = table.api, table.chat
    first = await table.say(table.anya, "/r 3 6")
    check_result(parse_result(first), pool=3, difficulty=6, willpower=False, locale="ru")

    wizard = await table.say(table.boris, "/r")
    texts = [wizard.text]
    assert "Выберите запас кубиков." in wizard.text
    assert "Бросить" not in " ".join(wizard.button_texts)  # no roll before a pool

    await table.tap(table.boris, wizard, RollAction.POOL, 5)
    texts.append(wizard.text)
    assert f"5к10, сложность {DEFAULT_DIFFICULTY}" in wizard.text
    assert chances_ru(5, DEFAULT_DIFFICULTY, False) in wizard.text
    assert "[5]" in wizard.button_texts
    assert "🎲 Бросить" in wizard.button_texts

    await table.tap(table.boris, wizard, RollAction.DIFFICULTY, 8)
    texts.append(wizard.text)
    assert "5к10, сложность 8" in wizard.text
    assert chances_ru(5, 8, False) in wizard.text
    assert "[🎯8]" in wizard.button_texts

    await table.tap(table.boris, wizard, RollAction.WILLPOWER)
    texts.append(wizard.text)
    assert "5к10, сложность 8" in wizard.text
    assert "Сила Воли" in wizard.text
    assert chances_ru(5, 8, True) in wizard.text
    assert "✅ Сила Воли" in wizard.button_texts

    await table.tap(table.boris, wizard, RollAction.ROLL)
    texts.append(wizard.text)
    shown = parse_result(wizard)
    assert shown.head.startswith("🎲 Борис: 5к10, сложность 8")
    assert shown.head.endswith("Сила Воли")
    result = check_result(shown, pool=5, difficulty=8, willpower=True, locale="ru")
    retry_offered = result.outcome in (d10.Outcome.FAILURE, d10.Outcome.BOTCH)
    # «Ещё раз» only after a failure (§A.10); the wizard's own buttons are gone.
    assert ("🔁 Ещё раз" in wizard.button_texts) == retry_offered, wizard.button_texts
    assert "🎲 Бросить" not in wizard.button_texts
    assert not any(label.strip("[]🎯").isdigit() for label in wizard.button_texts)

    await table.settle()
    # One message, redrawn in place: every step changed its text, and it was the only message
    # the bot sent for the wizard (the other one is Аня's roll).
    assert len(set(texts)) == len(texts) == 5, texts
    assert [m.message_id for m in bot_messages(api, chat)] == [
        first.message_id,
        wizard.message_id,
    ]
    assert len(applied(api, "sendMessage", chat)) == 2
    edits = applied(api, "editMessageText", chat)
    assert [c.params["message_id"] for c in edits] == [wizard.message_id] * 4
    assert wizard.edits == 4


async def test_double_tap_applies_once(table: Table) -> None:
    api, chat = table.api, table.chat
    wizard = await table.say(table.vera, "/r")

    # The same pool button twice, back to back, from the same keyboard.
    pool_button = table.button(wizard, RollAction.POOL, 6)
    first = api.press(chat, table.vera, wizard, pool_button)
    second = api.press(chat, table.vera, wizard, pool_button)
    await api.wait_for_callback_answer(first)
    await api.wait_for_callback_answer(second)
    await asyncio.sleep(QUIET)
    assert wizard.edits == 1
    assert f"6к10, сложность {DEFAULT_DIFFICULTY}" in wizard.text

    # «Бросить» twice: one roll, one result.
    roll_button = table.button(wizard, RollAction.ROLL)
    first = api.press(chat, table.vera, wizard, roll_button)
    second = api.press(chat, table.vera, wizard, roll_button)
    await api.wait_for_callback_answer(first)
    await api.wait_for_callback_answer(second)
    await table.settle()

    assert wizard.edits == 2
    check_result(
        parse_result(wizard), pool=6, difficulty=DEFAULT_DIFFICULTY, willpower=False, locale="ru"
    )
    assert len(applied(api, "sendMessage", chat)) == 1  # the wizard itself
    assert len(applied(api, "editMessageText", chat)) == 2
    assert [m.message_id for m in bot_messages(api, chat)] == [wizard.message_id]
    # The roll was logged once: the state saw one roll, not two.
    client = Redis.from_url(table.launcher.redis.url)
    try:
        rolls = await Store(client).recent_rolls(chat.id)
    finally:
        await client.aclose()
    assert len(rolls) == 1
    assert rolls[0]["pool"] == 6
    assert rolls[0]["user_id"] == table.vera.id
    assert tuple(sorted(rolls[0]["faces"], reverse=True)) == parse_result(wizard).faces


async def test_another_players_tap_gets_an_alert_and_changes_nothing(table: Table) -> None:
    api, chat = table.api, table.chat
    wizard = await table.say(table.anya, "/r")
    await table.tap(table.anya, wizard, RollAction.POOL, 4)
    before = copy.deepcopy(wizard.data)
    calls_before = len(api.calls)

    # Борис (Russian) and John (English) both try Аня's wizard.
    for user, alert in (
        (table.boris, "Это не ваш бросок."),
        (table.john, "This is not your roll."),
    ):
        for action, x in ((RollAction.POOL, 9), (RollAction.ROLL, 0)):
            query = api.press(chat, user, wizard, table.button(wizard, action, x))
            answer = await api.wait_for_callback_answer(query)
            assert answer.show_alert is True
            assert answer.text == alert
    await asyncio.sleep(QUIET)
    assert wizard.data == before
    assert wizard.edits == 1
    made = [c.method for c in api.calls[calls_before:] if c.method != "getUpdates"]
    assert made == ["answerCallbackQuery"] * 4

    # The owner's wizard still works at the same version: the intruders moved nothing.
    await table.tap(table.anya, wizard, RollAction.ROLL)
    check_result(
        parse_result(wizard), pool=4, difficulty=DEFAULT_DIFFICULTY, willpower=False, locale="ru"
    )
    await table.settle()


async def test_bot_restarted_mid_wizard_continues(table: Table) -> None:
    api, chat, launcher = table.api, table.chat, table.launcher
    wizard = await table.say(table.boris, "/r")
    await table.tap(table.boris, wizard, RollAction.POOL, 7)
    assert f"7к10, сложность {DEFAULT_DIFFICULTY}" in wizard.text

    first_process = launcher.current
    assert await launcher.stop() == 0, launcher.logs()
    table.restarted_at = time.monotonic()
    await launcher.start(env=first_process.env, timeout=STARTUP)
    assert launcher.current is not first_process

    await table.tap(table.boris, wizard, RollAction.DIFFICULTY, 8)
    assert "7к10, сложность 8" in wizard.text
    assert chances_ru(7, 8, False) in wizard.text
    assert "[7]" in wizard.button_texts
    assert "[🎯8]" in wizard.button_texts

    await table.tap(table.boris, wizard, RollAction.ROLL)
    shown = parse_result(wizard)
    assert shown.head.startswith("🎲 Борис: 7к10, сложность 8")
    check_result(shown, pool=7, difficulty=8, willpower=False, locale="ru")
    await table.settle()
    assert wizard.edits == 3
    assert [m.message_id for m in bot_messages(api, chat)] == [wizard.message_id]


async def test_each_player_reads_their_own_language(table: Table) -> None:
    api, chat = table.api, table.chat
    ru_roll = await table.say(table.anya, "/r 6 6")
    en_roll = await table.say(table.john, "/r 6 6")
    ru_shown, en_shown = parse_result(ru_roll), parse_result(en_roll)
    assert ru_shown.head.startswith("🎲 Аня: 6к10, сложность 6")
    assert en_shown.head.startswith("🎲 John: 6d10, difficulty 6")
    check_result(ru_shown, pool=6, difficulty=6, willpower=False, locale="ru")
    check_result(en_shown, pool=6, difficulty=6, willpower=False, locale="en")

    # "ru-RU" is Russian too.
    vera_help = await table.say(table.vera, "/help")
    john_help = await table.say(table.john, "/help")
    assert vera_help.text.startswith("Броски\n")
    assert "/r 7 8 — 7 кубиков, сложность 8" in vera_help.text
    assert "Текущая игра: Маг (домашние правила)" in vera_help.text
    assert john_help.text.startswith("Rolls\n")
    assert "/r 7 8 — 7 dice, difficulty 8" in john_help.text
    assert "Current game: Mage (house rules)" in john_help.text
    assert not any("\u0400" <= ch <= "\u04ff" for ch in john_help.text), john_help.text

    # The wizard too: the guest's buttons and odds are English, Вера's Russian.
    en_wizard = await table.say(table.john, "/r")
    assert "Choose the pool (number of dice)." in en_wizard.text
    assert "▫️ Willpower" in en_wizard.button_texts
    await table.tap(table.john, en_wizard, RollAction.POOL, 3)
    assert chances_en(3, DEFAULT_DIFFICULTY, False) in en_wizard.text
    assert "🎲 Roll!" in en_wizard.button_texts
    ru_wizard = await table.say(table.vera, "/r")
    assert "▫️ Сила Воли" in ru_wizard.button_texts
    await table.tap(table.vera, ru_wizard, RollAction.POOL, 3)
    assert chances_ru(3, DEFAULT_DIFFICULTY, False) in ru_wizard.text
    # The Russian odds use a decimal comma, the English a point.
    assert re.search(r"Шанс успеха \d+,\d%, провала (<)?\d+,\d%", ru_wizard.text)
    assert re.search(r"Chance of success \d+\.\d%, of a botch (<)?\d+\.\d%", en_wizard.text)
    await table.settle()
    assert len(applied(api, "sendMessage", chat)) == 6


async def test_injected_429s_lose_nothing_and_duplicate_nothing(table: Table) -> None:
    api, chat = table.api, table.chat
    api.fail_next("sendMessage", count=3, status=429, retry_after=1)
    players = [(table.anya, 2), (table.boris, 3), (table.john, 4), (table.vera, 5)]
    for user, pool in players:
        api.send_text(chat, user, f"/r {pool} 7")

    def results() -> list[ChatMessage]:
        return bot_messages(api, chat)

    await api.wait_for(lambda: len(results()) >= len(players), timeout=10)
    await asyncio.sleep(1.5)  # longer than retry_after: a late duplicate would show up here
    await table.settle()

    refused = [c for c in api.calls_for_chat(chat) if c.status == 429]
    assert len(refused) == 3
    assert all(c.response and c.response["parameters"]["retry_after"] == 1 for c in refused)
    sent = applied(api, "sendMessage", chat)
    assert len(sent) == len(players)
    heads = sorted(parse_result(m).head for m in results())
    assert heads == sorted(
        [
            "🎲 Аня: 2к10, сложность 7 (немного сложно)",
            "🎲 Борис: 3к10, сложность 7 (немного сложно)",
            "🎲 John: 4d10, difficulty 7 (challenging)",
            "🎲 Вера: 5к10, сложность 7 (немного сложно)",
        ]
    )
    by_name = {m.text.split(":", 1)[0]: parse_result(m) for m in results()}
    for user, pool in players:
        locale = "en" if user is table.john else "ru"
        shown = by_name[f"🎲 {user.first_name}"]
        check_result(shown, pool=pool, difficulty=7, willpower=False, locale=locale)
