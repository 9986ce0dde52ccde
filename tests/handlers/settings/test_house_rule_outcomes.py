"""Every house rule changes what the chat shows (PRODUCT.md "/rules", RULES.md §F).

For each switch of the catalogue the same chat is played twice with the same dealt dice:
once under the book, once after the Storyteller typed ``/rules set key=value``. What the bot
shows (messages, edits, alerts) must differ beyond the house-rule tag itself, at the place the
case names. A switch added to the rules without a case here fails, and so does a switch the
chat ignores; a switch that no chat action plays yet is listed in ``NOT_IN_CHAT`` with why.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from bot.house_rules import BY_KEY, CATALOGUE, Switch, label
from tests.handlers.conftest import Table, fresh_store, make_table, player

PLAYERS = {"A": player(1, "Аня"), "B": player(2, "Борис"), "V": player(3, "Вера")}
STORYTELLER = PLAYERS["A"]  # the chat's administrator
TAG = "🏠"


class Dealt(random.Random):
    """The faces given, in order, for every die the bot asks for; then a seeded die."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(11)
        self.faces = faces

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0) if self.faces else super().randint(a, b)


@dataclass(frozen=True)
class Case:
    """One switch's proof: ``value`` as typed, the chat's ``steps``, and a piece of what the
    chat shows under the book (``book``) and under the house rule (``house``), each absent
    from the other run. ``tagged``: the house run's result names the switch in its tag.

    A step is ``B /r 3 6`` (Борис says it; A is the Storyteller, V is Вера), ``deal 7 1 1``
    (the next dice), ``tap V Label`` (Вера presses the newest button whose text contains
    Label; ``=Label`` for the exact text).
    """

    value: str
    steps: tuple[str, ...]
    book: str
    house: str
    game: str = "mage"
    tagged: bool = True


# Two fighters with sheets, in the round (Борис 6 + 5 = 11, Вера 5 + 6 = 11).
FIGHT = (
    "B /set ловкость 4 смекалка 2 драка 3 сила 2 выносливость 2 уклонение 1",
    "V /set ловкость 2 смекалка 3 уклонение 2 выносливость 1",
    "deal 5 1 6",  # Вера's /init rolls once to open a round, once to join this one
    "B /init",
    "V /init",
)


def attack(*faces: int) -> tuple[str, ...]:
    """Борис strikes Вера with his fists (7 dice at difficulty 6, 2 bashing)."""
    return (
        *FIGHT,
        "deal " + " ".join(str(f) for f in faces),
        "B /atk",
        "tap B Вера",
    )


CASES: dict[str, Case] = {
    # ----- dice and Willpower (§A.4–§A.8) -----
    "botch_rule": Case(
        "net_negative",
        ("deal 7 1 1", "B /r 3 6"),
        book="<b>Неудача</b>",
        house="<b>Провал</b> (единиц: 2)",
    ),
    "threshold_rule": Case(
        "off",
        ("deal 2 2 2 2 2 2 2 2 2 2", "B /r 5 9", "tap B Ещё раз"),
        book="сложность 9 (очень сложно), пороговое значение 1 · попытка 2",
        house="сложность 10 · попытка 2",
    ),
    "auto_success": Case(
        "off",
        ("B /r", "tap B =6", "tap B Автоуспех"),
        book="<b>Автоуспех</b>: 1 успех",
        house="(no button Автоуспех)",
        tagged=False,
    ),
    "auto_success_costs_wp": Case(
        "on",
        ("B /set сила воли 3", "B /r", "tap B =6", "tap B Автоуспех"),
        book="<b>Автоуспех</b>: 1 успех — Минимальный\n—",
        house="Сила Воли: осталось 2 из 3",
    ),
    "wp_auto_success": Case(
        "off",
        ("deal 2 2 2", "B /r 3 6 wp"),
        book="Сила Воли\n2 2 2\n<b>Успех</b>: 1 успех",
        house="не даёт автоматический успех",
        tagged=False,
    ),
    "wp_cancellable_by_ones": Case(
        "on",
        ("deal 7 1 1", "B /r 3 6 wp"),
        book="<b>Успех</b>: 1 успех",
        house="<b>Неудача</b>",
    ),
    "wp_prevents_botch": Case(
        "off",
        ("deal 1 2 2", "B /r 3 6 wp t1"),
        book="<b>Неудача</b>",
        house="<b>Провал</b> (единиц: 1)",
    ),
    "wp_eaten_by_threshold": Case(
        "off",
        ("deal 7 2 2", "B /r 3 6 wp t2"),
        book="<b>Неудача</b>",
        house="<b>Успех</b>: 1 успех",
    ),
    "zero_ability": Case(
        "attribute_only",
        ("deal 8 8 8", "B /set ловкость 3", "B /r ловкость+драка"),
        book="С 0 в Способности действие не удаётся без броска",
        house="<b>8</b> <b>8</b> <b>8</b>",
    ),
    # ----- extended, opposed, teamwork, several actions (§A.9–§A.13) -----
    "multiple_actions": Case(
        "split_pool",
        ("deal " + "7 " * 16, "B /multi 8 3 5"),
        book="3. 5 →",
        house="8 кубиков делятся между действиями",
    ),
    "max_declared_actions": Case(
        "2",
        ("deal " + "7 " * 16, "B /multi 6 7 7"),
        book="3. 7 → 2к10",
        house="от 2 до 2 действий",
        tagged=False,
    ),
    "retry_penalty": Case(
        "none",
        ("deal 2 2 2 2 2 2", "B /r 3 6", "tap B Ещё раз"),
        book="сложность 7 (немного сложно) · попытка 2",
        house="сложность 6 (стандартно) · попытка 2",
    ),
    "extended_botch": Case(
        "keep",
        ("deal 7 7 7 1 2 2", "B /ext 3 6 10", "tap B Бросить"),
        book="все накопленные успехи потеряны",
        house="накопленные успехи сохраняются",
    ),
    "team_botch": Case(
        "ruins_all",
        ("deal 7 7 1 2 2 1", "B /team 3 6 цель 5", "tap V Помочь", "tap V =3"),
        book="→ <b>Провал</b>\n▰▰▱▱▱▱▱▱▱▱ 1/5",
        house="Провал разрушает все усилия команды",
    ),
}

# Switches no chat action plays yet: what would have to exist for the chat to show them.
NOT_IN_CHAT: dict[str, str] = {}


def _markups(call: SendMessage | EditMessageText) -> InlineKeyboardMarkup | None:
    markup = call.reply_markup
    return markup if isinstance(markup, InlineKeyboardMarkup) else None


class Chat:
    """A fresh table over its own fast store, and the transcript of what the bot showed."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.shown: list[str] = []
        self.seen = 0
        self.ids: dict[int, int] = {}  # call index → message id, for sent messages

    def record(self) -> None:
        calls = self.table.session.calls
        sent = iter(self.table.session.messages)
        by_call: dict[int, int] = {}
        for k, call in enumerate(calls):
            if isinstance(call, SendMessage):
                by_call[k] = next(sent).message_id
        self.ids = by_call
        for call in calls[self.seen :]:
            if isinstance(call, (SendMessage, EditMessageText)):
                self.shown.append(call.text or "")
            elif isinstance(call, AnswerCallbackQuery) and call.text:
                self.shown.append(call.text)
        self.seen = len(calls)

    def button(self, wanted: str) -> tuple[str, int] | None:
        """The newest button whose text contains ``wanted`` (``=text``: is exactly it)."""
        exact = wanted.startswith("=")
        wanted = wanted.removeprefix("=")
        calls = self.table.session.calls
        for k in range(len(calls) - 1, -1, -1):
            call = calls[k]
            if not isinstance(call, (SendMessage, EditMessageText)):
                continue
            markup = _markups(call)
            if markup is None:
                continue
            for row in markup.inline_keyboard:
                for button in row:
                    if (button.text == wanted) if exact else (wanted in button.text):
                        mid = (
                            call.message_id
                            if isinstance(call, EditMessageText)
                            else self.ids[k]
                        )
                        assert mid is not None
                        return button.callback_data or "", mid
        return None

    async def step(self, line: str) -> None:
        word, _space, rest = line.partition(" ")
        if word == "deal":
            self.table.rng = Dealt([int(f) for f in rest.split()])
            return
        if word == "tap":
            who, _space, wanted = rest.partition(" ")
            found = self.button(wanted)
            if found is None:
                self.shown.append(f"(no button {wanted.removeprefix('=')})")
                return
            await self.table.tap(PLAYERS[who], found[0], found[1])
        else:
            await self.table.say(PLAYERS[word], rest)
        self.record()


async def play(i18n: I18n, case: Case, switch: Switch | None) -> str:
    """The chat of ``case`` under the book (``switch`` None) or the house rule; what the
    bot showed after the Storyteller's setup, each message or alert followed by «—»."""
    store = fresh_store()
    try:
        chat = Chat(make_table(store, i18n))
        chat.table.session.admins.add(STORYTELLER.id)
        if case.game != "mage":
            await chat.step(f"A /rules {case.game}")
        if switch is not None:
            await chat.step(f"A /rules set {switch.key}={case.value}")
            assert "изменены" in chat.shown[-1], chat.shown[-1]
        chat.shown.clear()
        for line in case.steps:
            await chat.step(line)
        return "".join(shown + "\n—\n" for shown in chat.shown)
    finally:
        await store.close()


def untagged(transcript: str) -> str:
    return "\n".join(line for line in transcript.splitlines() if TAG not in line)


@pytest.mark.parametrize("switch", CATALOGUE, ids=lambda s: s.key)
async def test_each_switch_changes_what_the_chat_shows(i18n: I18n, switch: Switch) -> None:
    if switch.key in NOT_IN_CHAT:
        pytest.skip(NOT_IN_CHAT[switch.key])
    assert switch.key in CASES, f"no chat case for the house rule {switch.key}"
    case = CASES[switch.key]
    book = await play(i18n, case, None)
    house = await play(i18n, case, switch)
    assert case.book in book, book
    assert case.house in house, house
    assert case.book not in house, house
    assert case.house not in book, book
    assert untagged(book) != untagged(house)
    assert TAG not in book, book
    if case.tagged:
        with i18n.context(), i18n.use_locale("ru"):
            name = label(switch)
        tags = [line for line in house.splitlines() if TAG in line]
        assert any(name in line for line in tags), (name, tags)


def test_the_cases_and_the_exceptions_name_real_switches() -> None:
    assert set(CASES) <= set(BY_KEY)
    assert set(NOT_IN_CHAT) <= set(BY_KEY)
    assert not set(CASES) & set(NOT_IN_CHAT)
    assert all(reason.strip() for reason in NOT_IN_CHAT.values())
    for key, case in CASES.items():
        assert BY_KEY[key].parse(case.value) is not None, key
