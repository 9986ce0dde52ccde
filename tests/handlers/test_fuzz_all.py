"""Every feature at once under random input (docs/product.md §5).

The per-feature property tests feed one handler; this module drives the real Dispatcher with
every router of ``handlers.all_features()`` behind the whole middleware chain, so a command or
a button that one feature refuses cannot fall through to another feature and break there.

Three claims, each checked on everything the bot tried to send:

1. any text after any command the bot knows, from anyone, in the group or in private, is
   answered without a handler failure, and every reply fits Telegram's limits (4096
   characters after HTML parsing, well-formed HTML, 64-byte callback_data, 200-character
   callback answers); a command whose argument is plainly out of range gets one short
   answer in the player's language and leaves Redis as it was;
2. every button of every message the bot sends in each feature's sample scenes
   (tests/handlers/scenes.py), pressed, and any callback_data — random, or a forgery or
   mutation of those real buttons — is answered exactly once, and a tap that is refused
   leaves every Redis key as it was (only the update-dedupe markers ``sdb:upd:*`` and
   ``sdb:done:*`` and the records of what the bot sent may appear); a closed flow never
   changes, and a button drawn
   at an older version changes its flow only for a presser who has not acted on it since;
3. random interleavings of real taps by several players, with double taps and re-delivered
   updates: a double tap and a re-delivery change nothing, a flow's version never goes back,
   a closed flow never reopens and no tap logs more than one roll.

Each example builds its own table (fakeredis, recording session) on its own event loop, so
hypothesis can shrink freely. The checks that read flows read them under today's keys
(``table.store.flow_key``), and a self-test runs each against a deliberately broken guard.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from aiogram.client.default import Default
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackQueryFilter
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageReplyMarkup,
    EditMessageText,
    SendMessage,
    TelegramMethod,
)
from aiogram.types import (
    CallbackQuery,
    Chat,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    User,
)
from aiogram.utils.i18n import I18n
from fakeredis import FakeAsyncRedis, FakeServer
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from bot import fallback
from bot.retype import RetypeCallback, RetypeFlow
from handlers import FEATURES, all_features
from handlers.hidden.view import START_PAYLOAD
from localapi.server import (
    MAX_CALLBACK_ANSWER_LENGTH,
    MAX_CALLBACK_DATA_BYTES,
    MAX_TEXT_LENGTH,
    ApiError,
    rendered_text,
)
from table.store import PREFIX, Store, flow_key, log_key
from tests.handlers.conftest import GROUP, Table, fresh_store, make_table, player
from tests.handlers.scenes import (
    CALLBACK_FACTORIES,
    SCENES,
    Button,
    Line,
    Scene,
    drawn_buttons,
    flow_of,
    owner_id,
    play,
    press_everything,
    unpacked,
)
from tests.handlers.scenes import tap as press

ANNA = player(1, "Anna")  # a chat administrator who claims the Storyteller's role
BORIS = player(2, "Boris")  # a player
VERA = player(3, "Vera", "en")  # a player with an English client
EMMA = player(4, "Emma", "en")  # an administrator who is not the Storyteller
DICE = User(id=123456, is_bot=True, first_name="Dice")  # the bot itself (the token's id)
ANONYMOUS = User(id=1087968824, is_bot=True, first_name="Group", username="GroupAnonymousBot")
BOT_NAME = "dice_bot"  # what the recording session's getMe answers
PLAYERS = (ANNA, BORIS, VERA, EMMA)
# An update's journal while it runs, and its id among the chat's finished updates after.
UPDATE_MARKERS = (f"{PREFIX}:upd:", f"{PREFIX}:done:")
# What the bot said, not what the game holds: the newest message it sent in a chat and whom
# each of its messages is about (a refusal is a message too).
SENT_RECORDS = (f"{PREFIX}:sent:", f"{PREFIX}:about:")

APOLOGIES = (
    "Что-то пошло не так",
    "Не получилось разобрать",
    "Хранилище бота",
    "Something went wrong",
    "That input is not valid",
    "The dice table's memory",
)
CYRILLIC = re.compile("[а-яА-ЯёЁ]")


FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def known_commands() -> list[str]:
    """Every command some router answers, plus the menu's: a new feature is fuzzed at once."""
    names = {command.name for feature in FEATURES for command in feature.commands}
    for router in fallback.routers(all_features()):
        for handler in router.message.handlers:
            for flt in handler.filters or ():
                if isinstance(flt.callback, Command):
                    names.update(c for c in flt.callback.commands if isinstance(c, str))
    return sorted(names)


COMMAND_NAMES = known_commands()


# --- the table --------------------------------------------------------------------------------


def private_chat(user: User) -> Chat:
    return Chat(id=user.id, type="private", first_name=user.first_name)


class Who:
    """Someone who speaks: a user, in a chat, maybe on behalf of the chat (anonymous admin)."""

    def __init__(self, user: User, chat: Chat = GROUP, sender_chat: Chat | None = None) -> None:
        self.user = user
        self.chat = chat
        self.sender_chat = sender_chat

    def __repr__(self) -> str:
        on_behalf = " as the group" if self.sender_chat else ""
        return f"Who({self.user.first_name}{on_behalf} in {self.chat.type})"


SPEAKERS = (
    Who(ANNA),
    Who(BORIS),
    Who(VERA),
    Who(EMMA),
    Who(ANONYMOUS, sender_chat=GROUP),
    Who(BORIS, private_chat(BORIS)),
    Who(ANNA, private_chat(ANNA)),
)


@dataclass
class Watch:
    """What went wrong while the bot worked: error-middleware records."""

    records: list[logging.LogRecord] = field(default_factory=list)


class _Collect(logging.Handler):
    def __init__(self, watch: Watch) -> None:
        super().__init__(logging.WARNING)
        self.watch = watch

    def emit(self, record: logging.LogRecord) -> None:
        self.watch.records.append(record)


@contextmanager
def watching() -> Iterator[Watch]:
    """Records of ``bot.middlewares`` at WARNING and above: a handler failure or an unhandled
    rules input error or a storage error, each of which means a player got an apology."""
    watch = Watch()
    collector = _Collect(watch)
    logger = logging.getLogger("bot.middlewares")
    logger.addHandler(collector)
    try:
        yield watch
    finally:
        logger.removeHandler(collector)


async def say(
    table: Table,
    who: Who,
    text: str,
    reply_to: User | str | None = None,
) -> None:
    """``who`` writes ``text``; ``reply_to`` is a player whose message it answers, or the text
    of a bot's message it answers (a paste under a 📜 sheet)."""
    table.message_id += 1
    first = text.split()[0] if text.split() else ""
    entities = (
        [MessageEntity(type="bot_command", offset=0, length=len(first))]
        if text.startswith("/") and first
        else None
    )
    replied = None
    if reply_to is not None:
        replied = Message(
            message_id=table.message_id,
            date=datetime.now(UTC),
            chat=who.chat,
            from_user=reply_to if isinstance(reply_to, User) else DICE,
            text="my turn" if isinstance(reply_to, User) else reply_to,
        )
        table.message_id += 1
    message = Message(
        message_id=table.message_id,
        date=datetime.now(UTC),
        chat=who.chat,
        from_user=who.user,
        sender_chat=who.sender_chat,
        text=text,
        entities=entities,
        reply_to_message=replied,
    )
    await table.feed(message=message)


async def tap(table: Table, user: User, data: str, chat_id: int, message_id: int) -> str:
    """Press ``data`` under the bot's message; returns the callback query's id."""
    return await press(table, user, Button(data, chat_id, message_id))


def _offer(stored: dict[str, Any]) -> bool:
    """A flow of the buttons that offer what a mistyped line may have meant."""
    return stored.get("kind") == RetypeFlow.kind


async def snapshot(store: Store) -> dict[str, Any]:
    """Every key and its value except the update-dedupe markers and the sent records."""
    redis = store.redis
    state: dict[str, Any] = {}
    keys = [str(key) for key in await redis.keys("*")]  # decode_responses=True
    for key in sorted(keys):
        if key.startswith((*UPDATE_MARKERS, *SENT_RECORDS)):
            continue
        kind = await redis.type(key)
        if kind == "string":
            state[key] = await redis.get(key)
        elif kind == "hash":
            state[key] = await redis.hgetall(key)
        elif kind == "list":
            state[key] = await redis.lrange(key, 0, -1)
        elif kind == "set":
            state[key] = sorted(await redis.smembers(key))
        elif kind == "zset":
            state[key] = await redis.zrange(key, 0, -1, withscores=True)
        else:  # pragma: no cover - the Store uses none other
            state[key] = kind
    return state


def markups(call: TelegramMethod[Any]) -> InlineKeyboardMarkup | None:
    markup = getattr(call, "reply_markup", None)
    return markup if isinstance(markup, InlineKeyboardMarkup) else None


def parse_mode(call: SendMessage | EditMessageText) -> str | None:
    """The call's own parse_mode; aiogram's ``Default`` is the Bot's, which is HTML for every
    Bot (bot.app.make_bot)."""
    return "HTML" if isinstance(call.parse_mode, Default) else call.parse_mode


def check_calls(calls: list[TelegramMethod[Any]], watch: Watch) -> None:
    """Telegram's limits on every outgoing call, and no apology anywhere."""
    assert not watch.records, [r.getMessage() for r in watch.records]
    for call in calls:
        if isinstance(call, SendMessage | EditMessageText):
            text = call.text or ""
            assert not text.startswith(APOLOGIES), text
            try:
                shown, _ = rendered_text(text, parse_mode(call), None)
            except ApiError as error:  # pragma: no cover - the assertion's message
                raise AssertionError(f"{error}: {text!r}") from None
            assert shown.strip(), "an empty message"
            assert len(shown) <= MAX_TEXT_LENGTH, len(shown)
        if isinstance(call, AnswerCallbackQuery) and call.text is not None:
            assert not call.text.startswith(APOLOGIES), call.text
            assert len(call.text) <= MAX_CALLBACK_ANSWER_LENGTH, call.text
        if isinstance(call, SendMessage | EditMessageText | EditMessageReplyMarkup):
            markup = markups(call)
            for row in markup.inline_keyboard if markup else ():
                for button in row:
                    assert button.text
                    if button.callback_data is not None:
                        size = len(button.callback_data.encode())
                        assert 1 <= size <= MAX_CALLBACK_DATA_BYTES, button.callback_data


PROFILES = ("mage", "mage-revised", "dark-ages", "d6")
LOCALES = (None, "ru", "en")  # None: each player's own client language


async def open_table(
    i18n: I18n, seed: int = 7, profile: str = "mage", locale: str | None = None
) -> Table:
    """A campaign in progress under ``profile``: a Storyteller and two sheets."""
    table = make_table(fresh_store(), i18n, seed)
    table.session.admins.update({ANNA.id, EMMA.id})
    if profile != "mage" or locale is not None:
        await table.store.update_chat(GROUP.id, profile=profile, locale=locale)
    await say(table, Who(ANNA), "/st")
    for who in (Who(ANNA), Who(BORIS)):
        await say(table, who, "/set ловкость 3 драка 2 восприятие 2 бдительность 1 сила воли 5")
    return table


CAST = {"st": ANNA, "p": BORIS, "q": VERA, "e": EMMA}


async def open_scenes(i18n: I18n, scenes: list[Scene], seed: int = 7) -> Table:
    """A table where ``scenes`` were played by Anna (the Storyteller), Boris and Vera, with
    Emma an administrator beside them."""
    table = make_table(fresh_store(), i18n, seed)
    for scene in scenes:
        await play(table, scene, CAST)
    return table


@dataclass
class Played:
    """A scene's table as its play left it — Redis's keys, what the bot sent and drew, the
    die's state, the next update's and message's numbers — to be set again at a fresh table.
    A scene plays the same every time (the die is seeded) but for the ids drawn from the
    operating system (flows, hidden rolls), so its snapshot is one of its plays."""

    keys: dict[Any, tuple[Any, int]]  # each key: what DUMP gave and its PTTL
    calls: list[Any]
    admins: set[int]
    next_message_id: int
    messages: list[Message]
    keyboards: dict[int, Any]
    rng: Any
    update_id: int
    message_id: int

    @classmethod
    async def of(cls, table: Table, raw: FakeAsyncRedis) -> Played:
        keys = {key: (await raw.dump(key), await raw.pttl(key)) for key in await raw.keys("*")}
        session = table.session
        return cls(
            keys,
            list(session.calls),
            set(session.admins),
            session.next_message_id,
            list(session.messages),
            dict(session.keyboards),
            table.rng.getstate(),
            table.update_id,
            table.message_id,
        )

    async def table(self, i18n: I18n) -> Table:
        server = FakeServer()
        raw = FakeAsyncRedis(server=server)
        for key, (dumped, ttl) in self.keys.items():
            await raw.restore(key, max(ttl, 0), dumped)
        await raw.aclose()
        table = make_table(Store(FakeAsyncRedis(server=server, decode_responses=True)), i18n)
        session = table.session
        session.calls[:] = self.calls
        session.admins |= self.admins
        session.next_message_id = self.next_message_id
        session.messages[:] = self.messages
        session.keyboards.update(self.keyboards)
        table.rng.setstate(self.rng)
        table.update_id, table.message_id = self.update_id, self.message_id
        return table


_PLAYED: dict[int, Played] = {}


async def scene_table(i18n: I18n, scene: Scene) -> Table:
    """``open_scenes(i18n, [scene])``, played once per test process and set again from its
    snapshot after that (:class:`Played`): the tap properties draw a dozen examples of each
    scene, and playing it again each time was most of their time."""
    played = _PLAYED.get(id(scene))  # the scenes are the module's own, alive for the run
    if played is not None:
        return await played.table(i18n)
    server = FakeServer()
    table = make_table(Store(FakeAsyncRedis(server=server, decode_responses=True)), i18n)
    await play(table, scene, CAST)
    raw = FakeAsyncRedis(server=server)
    _PLAYED[id(scene)] = await Played.of(table, raw)
    await raw.aclose()
    return table


# --- 1. random text after every command --------------------------------------------------------

numbers = st.sampled_from(["0", "999", "-1", str(10**30), "11", "7", "6", "3", "10", "1", "2"])
words = st.sampled_from(
    [
        "wp",
        "св",
        "t1",
        "+2",
        "пор3",
        "ловк",
        "ловкость",
        "ловк+драка",
        "dex",
        "dexterity",
        "dex+brawl",
        "восп+бдит",
        "perc+alert",
        "с",
        "s",
        "d",
        "сила",
        "xyzzy",
        "флюгегехаймен",
        "all",
        "ru",
        "en",
        "mage",
        "d6",
        "dark-ages",
        "mage-revised",
        "@Boris",
        "<b>",
        "</b>",
        "&",
        "&amp;",
        "<i>x</i>",
        "<",
        ">",
        "\n",
        "set",
        "npc",
        "Громила",
    ]
)
long_text = st.builds(
    lambda char, size: char * size, st.sampled_from("я<&x9 "), st.integers(4000, 5000)
)
arguments = st.one_of(
    st.lists(st.one_of(numbers, words), max_size=6).map(" ".join),
    st.text(max_size=40),
    long_text,
)
command_forms = st.builds(
    lambda name, suffix: f"/{name}{suffix}",
    st.sampled_from([*COMMAND_NAMES, "start"]),
    st.sampled_from(["", f"@{BOT_NAME}", "@other_bot"]),
)
command_text = st.one_of(
    st.builds(
        lambda c, a, sep: c + sep + a, command_forms, arguments, st.sampled_from([" ", "\n"])
    ),
    command_forms,
    st.just(f"/start {START_PAYLOAD}"),
)
speakers = st.sampled_from(SPEAKERS)
# Plain text matters too: a paste answering a sheet, table talk, a reply to a roll.
said_text = st.one_of(command_text, arguments)
replies = st.sampled_from(
    [None, None, VERA, "📜 Vera: Ловкость 3", "🎭 Громила: Сила 4", "🎲 Boris: 7к10"]
)


@settings(FUZZ, max_examples=150)
@given(
    st.lists(st.tuples(speakers, said_text, replies), min_size=1, max_size=3),
    st.sampled_from(PROFILES),
    st.sampled_from(LOCALES),
)
def test_any_command_with_any_arguments_is_answered_within_telegram_limits(
    i18n: I18n, said: list[tuple[Who, str, User | str | None]], profile: str, locale: str | None
) -> None:
    async def scenario() -> None:
        table = await open_table(i18n, profile=profile, locale=locale)
        start = len(table.session.calls)
        with watching() as watch:
            for who, text, reply_to in said:
                await say(table, who, text, reply_to=reply_to)
        check_calls(table.session.calls[start:], watch)

    asyncio.run(scenario())


# Each template has one slot that no rules profile accepts; the whole command must be refused.
BAD_POOLS = ("0", "999", "-1", str(10**30))
# «-1» after a pool takes a die (/r 5 -1); «-100» is no difficulty and no modifier.
BAD_DIFFICULTIES = ("11", "0", "-100", "999", str(10**30))
BAD_TRAITS = ("xyzzy", "флюгегехаймен", "с", "s")  # unknown, and prefixes of several traits
TEMPLATES = (
    "/r {pool} 6",
    "/r 5 {difficulty}",
    "/r {trait}+драка 6",
    "/prob {pool} 6",
    "/prob 5 {difficulty}",
    "/ext {pool} 6 10",
    "/ext 5 {difficulty} 10",
    "/ext {trait} 6 10",
    "/team {pool} 6",
    "/vs {pool} 6",  # said in reply to Boris: a challenge
    "/vs 5 {difficulty}",
    "/team 5 {difficulty}",
    "/multi {pool} 6",
    "/h {pool} 6",
    "/h 5 {difficulty}",
    "/set ловкость {rating}",  # 0 is a rating a trait may have
    "/set {trait} 3",
    "/ask {trait} 6",
    "/ask ловк+драка {difficulty}",
)


@settings(FUZZ, max_examples=120)
@given(
    st.sampled_from(TEMPLATES),
    st.sampled_from(BAD_POOLS),
    st.sampled_from(BAD_DIFFICULTIES),
    st.sampled_from(BAD_TRAITS),
    st.sampled_from([ANNA, VERA]),
    st.sampled_from(["", f"@{BOT_NAME}"]),
)
def test_out_of_range_input_gets_one_short_localised_answer_and_changes_nothing(
    i18n: I18n, template: str, pool: str, difficulty: str, trait: str, user: User, at: str
) -> None:
    command, _, rest = template.partition(" ")
    text = f"{command}{at} " + rest.format(
        pool=pool, difficulty=difficulty, trait=trait, rating=pool if pool != "0" else "999"
    )

    async def scenario() -> None:
        table = await open_table(i18n)
        before = await snapshot(table.store)
        start = len(table.session.calls)
        with watching() as watch:
            await say(table, Who(user), text, reply_to=BORIS if command == "/vs" else None)
        calls = table.session.calls[start:]
        check_calls(calls, watch)
        replies = [c for c in calls if isinstance(c, SendMessage)]
        assert len(replies) == 1, [c.__api_method__ for c in calls]
        [reply] = replies
        assert int(reply.chat_id) == GROUP.id  # nothing went to anyone's private chat
        # a name the bot is unsure of is offered back as buttons, one per reading, kept in
        # a flow of their own (bot/retype.py): that is all it may add
        offered = reply.reply_markup.inline_keyboard if reply.reply_markup else []
        assert all(RetypeCallback.unpack(b.callback_data or "") for r in offered for b in r)
        shown, _ = rendered_text(reply.text, parse_mode(reply), None)
        assert len(shown) <= 600, shown
        if not CYRILLIC.search(text):  # no Russian trait name to echo
            assert bool(CYRILLIC.search(shown)) == (user.language_code == "ru"), shown
        after = await snapshot(table.store)
        kept = {k: v for k, v in after.items() if not (isinstance(v, dict) and _offer(v))}
        assert kept == before, text

    asyncio.run(scenario())


# --- 2. random callback_data on real messages -----------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """How to spoil a real button's data; applied once the table exists."""

    index: int
    op: str
    part: int
    payload: str


mutations = st.builds(
    Mutation,
    st.integers(0, 10_000),
    st.sampled_from(
        ["replace", "bump", "truncate", "append", "drop", "swap-flow", "prefix", "same"]
    ),
    st.integers(0, 10),
    st.one_of(
        st.sampled_from(["0", "-1", "999", str(10**30), "", "x", "go", "end", "я", "<b>", "&"]),
        st.text(max_size=8),
    ),
)
PREFIXES = (*sorted({factory.__prefix__ for factory in CALLBACK_FACTORIES}), "zz")


def mutate(buttons: list[Button], how: Mutation) -> Button:
    button = buttons[how.index % len(buttons)]
    parts = button.data.split(":")
    at = how.part % len(parts)
    data = button.data
    if how.op == "replace":
        parts[at] = how.payload
        data = ":".join(parts)
    elif how.op == "bump" and parts[at].lstrip("-").isdigit():
        parts[at] = str(int(parts[at]) + (1 if how.part % 2 else -1))
        data = ":".join(parts)
    elif how.op == "truncate":
        data = button.data[: how.part * len(button.data) // 11]
    elif how.op == "append":
        data = button.data + how.payload
    elif how.op == "drop":
        data = ":".join(parts[:at] + parts[at + 1 :])
    elif how.op == "swap-flow":
        other = buttons[(how.index + how.part + 1) % len(buttons)].data.split(":")
        if len(parts) > 1 and len(other) > 1:
            parts[1] = other[1]
        data = ":".join(parts)
    elif how.op == "prefix":
        parts[0] = PREFIXES[how.part % len(PREFIXES)]
        data = ":".join(parts)
    return Button(data, button.chat_id, button.message_id)


@dataclass(frozen=True)
class FlowMark:
    """What the checks read of a stored flow: its version, whether it is closed, and who
    moved it on at which version (``actors``, the store's «version:user» list)."""

    version: int
    closed: bool
    actors: tuple[tuple[int, int], ...]

    def acted_since(self, version: int, user_id: int) -> bool:
        return any(made > version and actor == user_id for made, actor in self.actors)


def flow_marks(state: dict[str, Any]) -> dict[str, FlowMark]:
    """Every flow of a snapshot by its key (``table.store.flow_key``: ``sdb:flow:{CHAT}:ID``)."""
    marks = {}
    for key, value in state.items():
        if key.startswith(f"{PREFIX}:flow:") and isinstance(value, dict) and "version" in value:
            pairs = (pair.split(":") for pair in str(value.get("actors", "")).split())
            marks[key] = FlowMark(
                int(value["version"]),
                value.get("closed", "0") == "1",
                tuple((int(made), int(actor)) for made, actor in pairs),
            )
    return marks


async def press_and_check(
    table: Table, user: User, button: Button, watch: Watch
) -> tuple[dict[str, Any], dict[str, Any], list[TelegramMethod[Any]]]:
    """One tap with every per-tap invariant; returns the state before and after and the calls."""
    before = await snapshot(table.store)
    start = len(table.session.calls)
    query_id = await tap(table, user, button.data, button.chat_id, button.message_id)
    after = await snapshot(table.store)
    calls = table.session.calls[start:]
    check_calls(calls, watch)
    answers = [c for c in calls if isinstance(c, AnswerCallbackQuery)]
    assert [a.callback_query_id for a in answers] == [query_id], button.data
    old, new = flow_marks(before), flow_marks(after)
    for key, mark in old.items():
        assert key in new, f"flow {key} vanished"
        assert new[key].version >= mark.version, "a flow's version went back"
        assert not (mark.closed and not new[key].closed), "a closed flow reopened"
    rolls = len(after.get(log_key(GROUP.id), [])) - len(before.get(log_key(GROUP.id), []))
    assert rolls in (0, 1), rolls
    if currently_in_test_context():  # statistics for hypothesis; not when pressed in turn
        event("a tap changed the state" if after != before else "a tap changed nothing")
        if answers[0].show_alert:
            event("refused with an alert")
    if after != before:
        # Only a well-formed button of some feature may change anything, it must show its
        # effect to the players, and a refusal (an alert) never comes with a change.
        assert not answers[0].show_alert, f"a refusal changed something: {button.data}"
        parsed = unpacked(button.data)
        assert parsed is not None, button.data
        tapped = flow_of(button.data)
        key = flow_key(button.chat_id, tapped) if tapped is not None else None
        if key is not None and before.get(key) != after.get(key):
            assert key in old, f"a tap made flow {key} out of nothing"
            mark = old[key]
            assert not mark.closed, "a closed flow changed"
            drawn_at = getattr(parsed, "v", None)
            if isinstance(drawn_at, int):
                assert drawn_at <= mark.version, "a button never drawn changed a flow"
                assert not mark.acted_since(drawn_at, user.id), "a stale version changed a flow"
        shown = [c for c in calls if not isinstance(c, AnswerCallbackQuery)]
        assert shown or answers[0].text, "a silent change"
    return before, after, calls


def feature_prefixes() -> dict[str, tuple[str, ...]]:
    """Each feature with buttons, and the callback_data prefixes its router answers."""
    found: dict[str, tuple[str, ...]] = {}
    for feature in FEATURES:
        prefixes = {
            flt.callback.callback_data.__prefix__
            for router in feature.make_router().chain_tail  # a feature may include routers
            for handler in router.callback_query.handlers
            for flt in handler.filters or ()
            if isinstance(flt.callback, CallbackQueryFilter)
        }
        if prefixes:
            found[feature.name] = tuple(sorted(prefixes))
    return found


FEATURE_PREFIXES = feature_prefixes()


def random_data(prefixes: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=64),
        st.builds(
            lambda prefix, rest: f"{prefix}:{rest}",
            st.sampled_from(prefixes),
            st.text(alphabet="0123456789:-abxyzgopjendwcx", max_size=30),
        ),
    )


OWNER = player(0, "the flow's owner")  # stands for whoever owns the button's flow
tappers = st.sampled_from([OWNER, ANNA, BORIS, VERA, EMMA, player(9, "Stranger")])


async def owner_of(store: Store, button: Button) -> User:
    """The player who opened the flow behind ``button``, so a spoiled tap is not refused only
    for being someone else's; Anna for a button of no flow or of a flow that is gone."""
    owner = await owner_id(store, button.chat_id, button.data)
    return next((p for p in PLAYERS if p.id == owner), ANNA)


def test_every_feature_with_buttons_has_a_scene() -> None:
    """The real buttons come from the scenes: a feature without one would go unpressed."""
    assert set(FEATURE_PREFIXES) <= set(SCENES)


@pytest.mark.parametrize("feature", sorted(SCENES))
def test_every_button_of_every_scene_is_answered_once_and_consistently(
    i18n: I18n, feature: str
) -> None:
    """Every button of every message the bot sends in the feature's scenes, and of every
    message those presses draw, pressed by its flow's owner (else the Storyteller)."""

    async def scenario() -> list[Button]:
        pressed: list[Button] = []
        for scene in SCENES[feature]:
            table = await open_scenes(i18n, [scene])
            with watching() as watch:

                async def checked(table: Table, user: User, button: Button) -> None:
                    await press_and_check(table, user, button, watch)

                pressed += await press_everything(table, CAST, checked)
        return pressed

    pressed = asyncio.run(scenario())
    own = [b for b in pressed if b.data.split(":")[0] in FEATURE_PREFIXES.get(feature, ())]
    assert own or feature not in FEATURE_PREFIXES or feature in CHATLESS, (
        f"{feature}'s scenes draw none of its buttons"
    )


# Features whose buttons a scene in one group cannot draw, and where they are pressed instead.
CHATLESS = {
    "inline": "«🎲 Бросить» hangs under an inline message, which has no chat, and the campaign "
    "chooser needs two groups: tests/handlers/inline presses both, forged and stale too",
}


SCENE_CASES = [(feature, scene) for feature in sorted(SCENES) for scene in SCENES[feature]]


@pytest.mark.parametrize("feature", sorted(FEATURE_PREFIXES))
@settings(FUZZ, max_examples=12)
@given(data=st.data())
def test_any_tap_on_any_feature_is_answered_once_and_a_refusal_changes_nothing(
    i18n: I18n, feature: str, data: st.DataObject
) -> None:
    """The one "every tap is answered once" property, for every feature's buttons: the real
    buttons of its scene, reached by a few real presses, forged or spoiled (another flow,
    another version, another action or number, cut short), the feature's prefix with garbage
    after it, or anything at all; pressed by the flow's owner, another player, an admin or a
    stranger."""
    prefixes = FEATURE_PREFIXES[feature]
    scene = data.draw(st.sampled_from(SCENES[feature]), label="scene")
    walk = data.draw(st.lists(st.tuples(st.integers(0, 10_000), tappers), max_size=4), "walk")
    spoil = data.draw(st.one_of(mutations, random_data((*prefixes, "zz"))), label="spoil")
    user = data.draw(tappers, label="user")

    async def scenario() -> None:
        table = await scene_table(i18n, scene)
        seen = drawn_buttons(table)
        with watching() as watch:
            for index, who in walk:  # real presses first: later screens, stale buttons
                shown = drawn_buttons(table)
                if not shown:
                    break
                real_button = shown[index % len(shown)]
                presser = await owner_of(table.store, real_button) if who is OWNER else who
                await press_and_check(table, presser, real_button, watch)
                seen += [b for b in drawn_buttons(table) if b not in seen]
            own = [b for b in seen if b.data.split(":")[0] in prefixes]
            # A scene of this game that draws none: forge onto the last message.
            real = own or seen or [Button(f"{prefixes[0]}:x", GROUP.id, table.message_id)]
            if isinstance(spoil, Mutation):
                original = real[spoil.index % len(real)]
                button = mutate(real, spoil)
            else:
                original = real[len(spoil) % len(real)]
                button = Button(spoil, original.chat_id, original.message_id)
            tapper = await owner_of(table.store, original) if user is OWNER else user
            await press_and_check(table, tapper, button, watch)

    asyncio.run(scenario())


# --- 3. sequences of real taps --------------------------------------------------------------

steps = st.lists(
    st.tuples(
        st.integers(0, 10_000),  # which button of those on screen
        st.sampled_from([OWNER, OWNER, ANNA, BORIS, VERA, EMMA]),
        st.sampled_from(["once", "double", "redeliver", "interrupt"]),
    ),
    min_size=1,
    max_size=12,
)
# What happens at the table between two taps and may pull the ground from under an open
# message: the game or the language switched, the Storyteller's role passed on, a sheet's
# Willpower spent to nothing, a trait dropped, a hidden roll revealed.
INTERRUPTIONS = (
    (ANNA, "/rules d6"),
    (ANNA, "/rules mage-revised"),
    (ANNA, "/rules dark-ages"),
    (ANNA, "/rules mage"),
    (ANNA, "/lang en"),
    (EMMA, "/st"),
    (ANNA, "/st"),
    (BORIS, "/set сила воли 0"),
    (BORIS, "/set ловкость 0 драка 0"),
    (ANNA, "/reveal"),
)


@settings(FUZZ, max_examples=40)
@given(steps, st.integers(0, 2**16), st.lists(st.sampled_from(SCENE_CASES), min_size=1, max_size=3))
def test_interleaved_real_taps_with_double_taps_keep_every_flow_consistent(
    i18n: I18n, plan: list[tuple[int, User, str]], seed: int, cases: list[tuple[str, Scene]]
) -> None:
    """Several features' scenes open at once, their real buttons pressed in any order."""

    async def scenario() -> None:
        table = await open_scenes(i18n, [scene for _feature, scene in cases], seed)
        with watching() as watch:
            for index, user, how in plan:
                if how == "interrupt":
                    speaker, text = INTERRUPTIONS[index % len(INTERRUPTIONS)]
                    start = len(table.session.calls)
                    await say(table, Who(speaker), text)
                    check_calls(table.session.calls[start:], watch)
                    continue
                shown = drawn_buttons(table)
                if not shown:
                    continue
                button = shown[index % len(shown)]
                if user is OWNER:
                    user = await owner_of(table.store, button)
                _, after, _ = await press_and_check(table, user, button, watch)
                if how == "double":  # the same finger again: the first tap did all the work
                    _, again, _ = await press_and_check(table, user, button, watch)
                    assert again == after, button.data
                elif how == "redeliver":  # Telegram re-sends the very same update
                    calls = len(table.session.calls)
                    update_id = table.update_id
                    table.update_id -= 1
                    await tap(table, user, button.data, button.chat_id, button.message_id)
                    assert table.update_id == update_id
                    assert len(table.session.calls) == calls
                    assert await snapshot(table.store) == after

    asyncio.run(scenario())


def test_the_fuzzed_commands_cover_every_feature() -> None:
    """The command list comes from the routers, so a lost router would shrink the fuzz."""
    expected = {"r", "prob", "ext", "vs", "team", "multi", "set", "sheet", "ask", "rules"}
    expected |= {"lang", "st", "h", "reveal", "log", "stats", "help", "start", "npc"}
    assert expected <= set(COMMAND_NAMES)
    prefixes = {factory.__prefix__ for factory in CALLBACK_FACTORIES}
    expected_prefixes = {"r", "x", "o", "tm", "mu", "sh", "rq", "st", "hr", "ho", "hc"}
    assert expected_prefixes | {"lang", "prof"} <= prefixes


# --- the checks themselves ------------------------------------------------------------------
# Each flow check of press_and_check against a feature whose guard is deliberately broken: a
# handler ahead of every router that does something to whatever flow a tap names and answers.

SABOTAGE = {
    "advance": lambda redis, key: redis.hincrby(key, "version", 1),
    "rewind": lambda redis, key: redis.hincrby(key, "version", -1),
    "reopen": lambda redis, key: redis.hset(key, "closed", "0"),
    "delete": lambda redis, key: redis.delete(key),
}


def break_the_guard(table: Table, sabotage: str, alert: bool = False) -> None:
    async def unguarded(callback: CallbackQuery) -> None:
        flow = flow_of(callback.data or "")
        if flow is not None and callback.message is not None:
            await SABOTAGE[sabotage](table.store.redis, flow_key(callback.message.chat.id, flow))
        await callback.answer("ok", show_alert=alert)

    table.dispatcher.callback_query.register(unguarded)


async def borises_roll(i18n: I18n) -> tuple[Table, Button, str]:
    """A table where Boris rolled, one of his roll's buttons and its flow's key."""
    table = await open_scenes(i18n, [Scene("mage", (Line("p", "/r 5 6"),))])
    button = next(b for b in drawn_buttons(table) if flow_of(b.data) is not None)
    flow = flow_of(button.data)
    assert flow is not None
    return table, button, flow_key(button.chat_id, flow)


@pytest.mark.parametrize(
    ("setup", "sabotage", "alert", "caught"),
    [
        ("acted", "advance", False, "a stale version changed a flow"),
        ("closed", "advance", False, "a closed flow changed"),
        ("future", "advance", False, "a button never drawn changed a flow"),
        ("fresh", "advance", True, "a refusal changed something"),
        ("fresh", "rewind", False, "a flow's version went back"),
        ("closed", "reopen", False, "a closed flow reopened"),
        ("fresh", "delete", False, "vanished"),
        ("fresh", "advance", False, None),  # a plain step by its owner: nothing to catch
    ],
)
def test_each_flow_check_catches_a_broken_guard(
    i18n: I18n, setup: str, sabotage: str, alert: bool, caught: str | None
) -> None:
    async def scenario() -> None:
        table, button, key = await borises_roll(i18n)
        version = int(await table.store.redis.hget(key, "version"))
        if setup == "acted":  # Boris already moved the flow on from this button's drawing
            await table.store.redis.hset(
                key, mapping={"version": version + 1, "actors": f"{version + 1}:{BORIS.id}"}
            )
        elif setup == "closed":
            await table.store.redis.hset(key, "closed", "1")
        elif setup == "future":
            parsed = unpacked(button.data)
            forged = parsed.model_copy(update={"v": version + 5}).pack() if parsed else ""
            button = Button(forged, button.chat_id, button.message_id)
        break_the_guard(table, sabotage, alert)
        with watching() as watch:
            await press_and_check(table, BORIS, button, watch)

    if caught is None:
        asyncio.run(scenario())
    else:
        with pytest.raises(AssertionError, match=caught):
            asyncio.run(scenario())


def test_the_owner_is_read_from_todays_key(i18n: I18n) -> None:
    """A spoiled tap «by the owner» is pressed by whoever opened the flow: Vera for hers,
    not the fallback Anna (what a key without the chat's hash tag found, for every flow)."""

    async def scenario() -> tuple[User, User]:
        table = await open_scenes(i18n, [Scene("mage", (Line("q", "/r 5 6"),))])
        button = next(b for b in drawn_buttons(table) if flow_of(b.data) is not None)
        legacy = f"{PREFIX}:flow:{flow_of(button.data)}"
        assert not await table.store.redis.exists(legacy)
        return await owner_of(table.store, button), await owner_of(
            table.store, Button(button.data, button.chat_id + 1, button.message_id)
        )

    found, elsewhere = asyncio.run(scenario())
    assert found is VERA
    assert elsewhere is ANNA  # the same flow id in another chat is nobody's flow
