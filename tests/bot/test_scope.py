"""The update's scope (bot/scope.py): one explicit value per update, handed on by argument,
never found by the running task."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.types import CallbackQuery, Chat, Message, Update, User

from bot.scope import bind, scope_of, scoped_bot
from table.scope import Actor, Campaign, Scope
from table.store import Store, Subject
from table.store.base import tag

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("table", "bot", "handlers", "rules")
TOKEN = "42:TEST"


def _product_lines(pattern: str) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{number}"
        for package in PRODUCT
        for path in sorted((ROOT / package).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(pattern, line)
    ]


def test_no_product_module_keeps_per_update_state_in_a_context_variable() -> None:
    # aiogram's own i18n keeps its locale in one; that is the library's, not ours.
    assert _product_lines(r"\bContextVar\b|\bcontextvars\b") == []


def test_no_product_module_finds_the_update_by_its_running_task() -> None:
    assert _product_lines(r"\bcurrent_task\(\).*(scope|context)|bot\.context\b") == []


def test_a_campaign_is_its_chat_until_a_topic_is_its_own() -> None:
    assert Campaign(-100).key == "-100"
    assert Campaign(-100, 7).key == "-100:7"
    assert Campaign(-100) == Campaign(-100, None)
    assert tag(Campaign(-100)) == tag(-100) == "{-100}"  # a chat's keys stay where they are
    assert tag(Campaign(-100, 7)) == "{-100:7}"
    with pytest.raises(AttributeError):
        Campaign(-100).chat_id = 5  # type: ignore[misc]


def test_an_understood_note_gathers_until_the_line_is_hushed() -> None:
    scope = Scope()
    scope.note_understood(-100, "a")
    scope.note_understood(-100, "b")
    assert scope.understood == (-100, "a\nb")
    scope.hush()
    scope.note_understood(-100, "c")
    assert (scope.understood, scope.hushed) == (None, True)


def test_what_is_sent_inside_about_is_about_its_subject_then_the_outer_one() -> None:
    roller = Subject(user_id=7, name="Bo", username=None)
    scope = Scope(subject=roller)
    with scope.about(None):
        assert scope.subject is None
    assert scope.subject == roller


def test_an_unbound_store_sees_a_fresh_empty_scope_each_time() -> None:
    store = Store.__new__(Store)
    store._scope = None
    store.scope.actor = Actor(42, "Ann")
    assert store.scope == Scope()


def test_a_bound_store_is_a_view_on_the_same_client() -> None:
    store = Store.__new__(Store)
    store._scope = None
    store.redis = object()  # type: ignore[assignment]
    scope = Scope(actor=Actor(7, "Bo"))
    bound = store.bound(scope)
    assert bound.scope is scope
    assert bound.redis is store.redis
    assert store.scope == Scope()  # the shared one stays unbound


async def test_an_update_bound_to_its_bot_calls_through_it_and_back() -> None:
    shared = Bot(TOKEN)
    scope = Scope(actor=Actor(7, "Bo"))
    bot = scoped_bot(shared, scope)
    assert scope_of(bot) is scope
    assert scope_of(shared) is None
    assert bot.session is shared.session
    assert bot.id == shared.id
    user = User(id=7, is_bot=False, first_name="Bo")
    chat = Chat(id=-100, type="supergroup")
    message = Message(message_id=3, date=0, chat=chat, from_user=user, text="/r 5")
    query = CallbackQuery(id="q", from_user=user, chat_instance="c", message=message, data="x")
    update = Update(update_id=1, callback_query=query)
    bind(update, bot)
    assert query.bot is bot
    assert message.bot is bot
    assert user.bot is bot
    assert message.answer("hi").bot is bot
    bind(update, shared)
    assert query.bot is shared
    assert message.bot is shared
    await shared.session.close()


async def test_two_updates_running_at_once_see_each_their_own() -> None:
    shared = Bot(TOKEN)
    first, second = scoped_bot(shared, Scope(command=(-1, 1))), scoped_bot(shared, Scope())
    assert scope_of(first) is not scope_of(second)
    assert scope_of(first).command == (-1, 1)  # type: ignore[union-attr]
    assert scope_of(second).command is None  # type: ignore[union-attr]
    await shared.session.close()
