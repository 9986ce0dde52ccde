"""The middleware chain, fed real updates through a Dispatcher with a recording session.

What is checked is what a player would see: which API calls the bot made, in which language,
and that nothing a handler raises escapes ``feed_update``.
"""

from __future__ import annotations

import logging
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot, Dispatcher, F, Router
from aiogram.filters import Command
from aiogram.methods import AnswerCallbackQuery, SendMessage
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.app import create_dispatcher
from bot.i18n import LOCALES_DIR, compile_catalogues, load_i18n
from bot.middlewares import _given_up_text
from bot.scope import scope_of
from bot.settings import Settings
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import BotchRule, Profile
from table.scope import Actor, Scope
from table.store import ChatSettings, Store, chat_key
from table.store.journal import Dropped, Spent
from tests.bot.telegram_fakes import GROUP, TOKEN, make_bot, tap_update, text_update, user

STORAGE_EN = "The dice table's memory is unavailable right now. Please try again in a minute."
STORAGE_RU = "Память игрового стола сейчас недоступна. Попробуйте через минуту."
INVALID_EN = "That input is not valid. Send /help to see examples."
INVALID_RU = "Такой ввод не подходит. Отправьте /help, чтобы увидеть примеры."
BROKEN_EN = "Something went wrong on our side. Please try again."
BROKEN_RU = "У нас что-то сломалось. Попробуйте ещё раз."

PO_HEADER = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"
"""


def write_po(path: Path, pairs: dict[str, str]) -> Path:
    po = path / "ru" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f'\nmsgid "{k}"\nmsgstr "{v}"\n' for k, v in pairs.items())
    po.write_text(PO_HEADER + body, encoding="utf-8")
    return po


@pytest.fixture
def i18n(tmp_path: Path) -> I18n:
    locales = tmp_path / "locales"
    write_po(
        locales,
        {STORAGE_EN: STORAGE_RU, INVALID_EN: INVALID_RU, BROKEN_EN: BROKEN_RU, "Hi": "Привет"},
    )
    return load_i18n(locales, "ru")


def settings() -> Settings:
    return Settings(_env_file=None, bot_token=TOKEN, default_locale="ru")  # type: ignore[call-arg]


class Seen:
    """What the test handlers received."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []


def make_test_router(seen: Seen) -> Router:
    router = Router(name="test")

    @router.message(Command("echo"))
    async def echo(
        message: Message,
        store: Store,
        chat_settings: ChatSettings,
        profile: Profile,
        locale: str,
        settings: Settings,
        rng: Rng,
        scope: Scope,
        bot: Bot,
    ) -> None:
        seen.calls.append(
            {
                "scope": (
                    store.scope is scope is scope_of(bot) is scope_of(message.bot),
                    scope.actor,
                    scope.locale,
                    scope.command,
                    scope.journal,
                ),
                "store": store,
                "chat_settings": chat_settings,
                "profile": profile,
                "locale": locale,
                "settings": settings,
                "roll": rng.randint(1, 10),
            }
        )
        await message.answer(_("Hi"))

    @router.message(Command("boom"))
    async def boom(message: Message) -> None:
        raise RuntimeError("handler bug")

    @router.message(Command("bad"))
    async def bad(message: Message) -> None:
        raise RulesInputError(ErrorCode.RANGE, "pool", "0 < 1")

    @router.callback_query(F.data == "explode")
    async def explode(callback: CallbackQuery) -> None:
        raise RuntimeError("tap bug")

    @router.callback_query(F.data == "answer-then-explode")
    async def answer_then_explode(callback: CallbackQuery) -> None:
        await callback.answer("ok")
        raise RuntimeError("late tap bug")

    return router


@pytest.fixture
def seen() -> Seen:
    return Seen()


@pytest.fixture
def dispatcher(fake_store: Store, i18n: I18n, seen: Seen) -> Dispatcher:
    return create_dispatcher(settings(), fake_store, i18n, routers=[make_test_router(seen)])


def sent_texts(session: Any) -> list[str]:
    return [call.text for call in session.calls("sendMessage")]


async def test_handlers_receive_the_workflow_data(
    dispatcher: Dispatcher, fake_store: Store, seen: Seen
) -> None:
    await fake_store.update_chat(
        GROUP.id,
        profile="dark-ages",
        switches={"threshold_rule": True, "no_such_rule": True, "botch_rule": "bogus"},
    )
    bot, session = make_bot()
    update = text_update("/echo")
    await dispatcher.feed_update(bot, update, rng=random.Random(3))
    [call] = seen.calls
    # a view on the shared Store, bound to the update's scope
    assert call["store"].redis is fake_store.redis
    assert call["store"] is not fake_store
    assert call["chat_settings"].profile == "dark-ages"
    profile = call["profile"]
    assert profile.name == "dark-ages"
    assert profile.threshold_rule is True  # the chat's switch, overriding dark-ages' False
    assert profile.botch_rule is BotchRule.NET_NEGATIVE  # the bogus value was ignored
    assert call["settings"].default_locale == "ru"
    assert call["roll"] == random.Random(3).randint(1, 10)
    assert sent_texts(session) == ["Hi"]  # the player's client is English
    same, actor, locale, command, journal = call["scope"]
    assert same  # what the handler is handed is what its Store and its Bot carry
    assert update.message is not None
    assert (actor.id, locale, command) == (7, "en", (GROUP.id, update.message.message_id))
    assert isinstance(actor, Actor)
    assert journal is not None
    assert fake_store.scope == Scope()  # the shared Store is bound to nothing


async def test_unknown_profile_falls_back(
    dispatcher: Dispatcher, fake_store: Store, seen: Seen
) -> None:
    await fake_store.redis.set(chat_key(-1001), '{"profile": "werewolf"}')
    bot, _ = make_bot()
    await dispatcher.feed_update(bot, text_update("/echo"))
    assert seen.calls[0]["profile"].name == "mage"


async def test_duplicate_update_is_handled_once(dispatcher: Dispatcher, seen: Seen) -> None:
    bot, session = make_bot()
    update = text_update("/echo", update_id=777)
    await dispatcher.feed_update(bot, update)
    await dispatcher.feed_update(bot, update)
    assert len(seen.calls) == 1
    assert len(session.calls("sendMessage")) == 1


@pytest.mark.parametrize(
    ("chat_locale", "language_code", "expected_locale", "expected_text"),
    [
        (None, "en", "en", "Hi"),
        (None, "ru", "ru", "Привет"),
        (None, "ru-RU", "ru", "Привет"),
        (None, "uk", "en", "Hi"),
        (None, None, "ru", "Привет"),  # no language in the client: DEFAULT_LOCALE
        ("en", "ru", "en", "Hi"),  # the chat's choice wins over the player's client
        ("ru", "en", "ru", "Привет"),
    ],
)
async def test_locale_choice(
    dispatcher: Dispatcher,
    fake_store: Store,
    seen: Seen,
    chat_locale: str | None,
    language_code: str | None,
    expected_locale: str,
    expected_text: str,
) -> None:
    if chat_locale is not None:
        await fake_store.update_chat(GROUP.id, locale=chat_locale)
    bot, session = make_bot()
    await dispatcher.feed_update(bot, text_update("/echo", from_user=user(language_code)))
    assert seen.calls[0]["locale"] == expected_locale
    assert sent_texts(session) == [expected_text]


async def test_handler_error_is_logged_and_answered(
    dispatcher: Dispatcher, caplog: pytest.LogCaptureFixture
) -> None:
    bot, session = make_bot()
    update = text_update("/boom", from_user=user("ru"), update_id=4242)
    with caplog.at_level(logging.ERROR, logger="bot.middlewares"):
        await dispatcher.feed_update(bot, update)
    assert any("4242" in r.getMessage() and r.exc_info for r in caplog.records)
    assert sent_texts(session) == [BROKEN_RU]


async def test_rules_input_error_gets_generic_answer(dispatcher: Dispatcher) -> None:
    bot, session = make_bot()
    await dispatcher.feed_update(bot, text_update("/bad", from_user=user("en")))
    assert sent_texts(session) == [INVALID_EN]


async def test_unanswered_callback_is_answered_once(dispatcher: Dispatcher) -> None:
    bot, session = make_bot()
    await dispatcher.feed_update(bot, tap_update("explode", from_user=user("ru"), query_id="q9"))
    answers = session.calls("answerCallbackQuery")
    assert len(answers) == 1
    answer = answers[0]
    assert isinstance(answer, AnswerCallbackQuery)
    assert (answer.callback_query_id, answer.show_alert, answer.text) == ("q9", True, BROKEN_RU)
    assert session.calls("sendMessage") == []


async def test_answered_callback_is_not_answered_again(dispatcher: Dispatcher) -> None:
    bot, session = make_bot()
    await dispatcher.feed_update(bot, tap_update("answer-then-explode"))
    answers = session.calls("answerCallbackQuery")
    assert [a.text for a in answers] == ["ok"]


async def test_failed_error_reply_does_not_escape(dispatcher: Dispatcher) -> None:
    from aiogram.exceptions import TelegramForbiddenError

    bot, session = make_bot()
    session.fail_next(
        "sendMessage", TelegramForbiddenError(method=SendMessage(chat_id=1, text="x"), message="no")
    )
    await dispatcher.feed_update(bot, text_update("/boom"))
    assert len(session.calls("sendMessage")) == 1


async def test_redis_down_then_back(redis_server: Any, i18n: I18n, seen: Seen) -> None:
    """Redis stops: the player hears it within 2 s; Redis returns: the bot just works."""
    store = Store.from_url(redis_server.url)
    try:
        dispatcher = create_dispatcher(settings(), store, i18n, routers=[make_test_router(seen)])
        bot, session = make_bot()
        await dispatcher.feed_update(bot, text_update("/echo"))
        assert len(seen.calls) == 1

        redis_server.stop()
        started = time.monotonic()
        await dispatcher.feed_update(bot, text_update("/echo", from_user=user("ru")))
        elapsed = time.monotonic() - started
        assert elapsed < 2.0
        assert sent_texts(session)[-1] == STORAGE_RU
        assert len(seen.calls) == 1

        # A tap while Redis is down gets an alert, not a hanging spinner.
        await dispatcher.feed_update(bot, tap_update("explode", from_user=user("en")))
        [alert] = session.calls("answerCallbackQuery")
        assert (alert.text, alert.show_alert) == (STORAGE_EN, True)

        redis_server.start()
        await dispatcher.feed_update(bot, text_update("/echo"))
        assert len(seen.calls) == 2
        assert sent_texts(session)[-1] == "Hi"
    finally:
        await store.close()


def test_catalogues_are_recompiled_only_when_stale(tmp_path: Path) -> None:
    po = write_po(tmp_path, {"Hi": "Привет"})
    mo = po.with_suffix(".mo")
    assert compile_catalogues(tmp_path) == [mo]
    assert compile_catalogues(tmp_path) == []
    write_po(tmp_path, {"Hi": "Здравствуйте"})
    later = time.time() + 5
    os.utime(po, (later, later))
    assert compile_catalogues(tmp_path) == [mo]
    translated = load_i18n(tmp_path, "ru").gettext("Hi", locale="ru")
    assert translated == "Здравствуйте"


def test_an_update_given_up_tells_only_what_its_drop_did() -> None:
    real = load_i18n(LOCALES_DIR, "ru")
    with real.context(), real.use_locale("ru"):
        paid = _given_up_text(Dropped([Spent("u:1:mage", {"willpower_current": 1})], True))
        wrote = _given_up_text(Dropped([], wrote=True))
        nothing = _given_up_text(Dropped([], wrote=False))
        finished = _given_up_text(None)
    assert "Всё потраченное вернулось на лист" in paid
    assert "потрачен" not in wrote
    assert "Изменения, если они были, сохранились" in wrote
    assert nothing == finished
    assert "отправьте команду снова" in nothing
