"""Hidden rolls through the Dispatcher: ``/h``, ``/reveal``, the private chat.

The central promise is checked on every API call bound for the group: until ``/reveal``
nothing in any text, keyboard or button answer there carries a face, a count of successes,
an outcome word, the pool or the difficulty.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from typing import Any

import fakeredis
import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramForbiddenError
from aiogram.methods import (
    AnswerCallbackQuery,
    DeleteMessage,
    SendMessage,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import Chat, User
from aiogram.utils.i18n import I18n
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app import create_dispatcher, make_bot
from bot.settings import Settings
from handlers.hidden.callbacks import CampaignCallback, RevealCallback
from rules import d10, profiles
from table import commitment
from table.scope import Campaign
from table.store import Store, hidden_seq_key, log_key
from tests.handlers.conftest import (
    GROUP,
    TOKEN,
    RecordingSession,
    Table,
    buttons,
    player,
)

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
ANONYMOUS = User(id=1087968824, is_bot=True, first_name="Group", username="GroupAnonymousBot")
MAGE = profiles.get("mage")
GROUP_TEXT = re.compile(
    r"🤫 Anna бросает втайне: тайный бросок №(\d+)\.\n"
    r"Отпечаток SHA-256: <code>([0-9a-f]{64})</code>\n"
    r"После /reveal любой сможет проверить, что результат не подменили\."
)
OUTCOME_WORDS = ("Успех", "Неудача", "Провал", "Автоуспех", "успех", "Success", "Failure", "Botch")


class PrivacySession(RecordingSession):
    """Telegram's rule for private chats: the bot may write only to users who opened one."""

    def __init__(self) -> None:
        super().__init__()
        self.open_private: set[int] = set()

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - BaseSession's signature
    ) -> TelegramType:
        if (
            isinstance(method, SendMessage)
            and isinstance(method.chat_id, int)
            and method.chat_id > 0
            and method.chat_id not in self.open_private
        ):
            self.calls.append(method)
            raise TelegramForbiddenError(
                method=method, message="Forbidden: bot can't initiate conversation with a user"
            )
        return await super().make_request(bot, method, timeout)


@pytest.fixture
def table(fake_store: Store, i18n: I18n) -> Table:
    session = PrivacySession()
    bot = make_bot(TOKEN, session)
    dispatcher = create_dispatcher(Settings(_env_file=None), fake_store, i18n)
    return Table(dispatcher, bot, session, fake_store, i18n, rng=random.Random(11))


def session(table: Table) -> PrivacySession:
    assert isinstance(table.session, PrivacySession)
    return table.session


async def make_storyteller(table: Table, user: User = ANNA, private_open: bool = True) -> None:
    table.session.admins.add(user.id)
    await table.say(user, "/st")
    assert (await table.store.load_chat(GROUP.id)).storyteller_id == user.id
    if private_open:
        session(table).open_private.add(user.id)


def group_calls(table: Table) -> list[TelegramMethod[Any]]:
    """Every call that names the group, plus every answer to a tap (answers are shown to the
    presser in the group's window)."""
    found: list[TelegramMethod[Any]] = []
    for call in table.session.calls:
        chat_id = getattr(call, "chat_id", None)
        if chat_id == GROUP.id or isinstance(call, AnswerCallbackQuery):
            found.append(call)
    return found


def visible_strings(call: TelegramMethod[Any]) -> list[str]:
    strings: list[str] = []
    for name in ("text", "caption"):
        value = getattr(call, name, None)
        if isinstance(value, str):
            strings.append(value)
    markup = getattr(call, "reply_markup", None)
    if markup is not None:
        for button in buttons(markup):
            strings += [button.text, button.callback_data or "", button.url or ""]
    return strings


def assert_nothing_leaked(table: Table, faces: list[int]) -> None:
    """No result, pool or difficulty in anything bound for the group."""
    calls = group_calls(table)
    assert calls, "the group heard nothing at all"
    for call in calls:
        for text in visible_strings(call):
            for word in OUTCOME_WORDS:
                assert word not in text, (word, text)
            assert "к10" not in text, text
            assert "сложност" not in text, text
            # Only the roll's number and the commitment may carry digits.
            stripped = re.sub(r"<code>[0-9a-f]{64}</code>|№\d+", "", text)
            stripped = stripped.replace("SHA-256", "").replace("/reveal", "")
            stripped = re.sub(r"https://t\.me/\w+\?start=st", "", stripped)
            assert not re.search(r"\d", stripped), (stripped, faces)


def faces_of(text: str) -> list[int]:
    lines = [line for line in text.splitlines() if re.fullmatch(r"(<[bs]>)?\d+.*", line)]
    assert len(lines) == 1, text
    return [int(x) for x in re.findall(r"\d+", lines[0])]


async def test_hidden_roll_shows_the_group_only_a_commitment(table: Table) -> None:
    await make_storyteller(table)
    before = len(table.session.calls)
    await table.say(ANNA, "/h 7 6")
    new_calls = table.session.calls[before:]
    private = [c for c in new_calls if isinstance(c, SendMessage) and c.chat_id == ANNA.id]
    public = [c for c in new_calls if isinstance(c, SendMessage) and c.chat_id == GROUP.id]
    assert len(private) == 1
    assert len(public) == 1
    match = GROUP_TEXT.fullmatch(public[0].text)
    assert match is not None, public[0].text
    assert match.group(1) == "1"
    assert public[0].reply_markup is None
    # The command naming the pool is deleted when the bot may (it tries, nothing more).
    assert any(isinstance(c, DeleteMessage) and c.chat_id == GROUP.id for c in new_calls)

    text = private[0].text
    assert text.startswith("🤫 Тайный бросок №1 в «Chronicle»")
    assert "🎲 Anna: 7к10, сложность 6" in text
    assert match.group(2) in text
    faces = faces_of(text)
    assert len(faces) == 7
    assert [b.text for b in buttons(private[0].reply_markup)] == ["📢 Раскрыть"]

    record = await table.store.load_hidden(GROUP.id, 1)
    assert record is not None
    assert not record.revealed
    assert record.commitment == match.group(2)
    assert commitment.verify(record.commitment, record.nonce, record.payload)
    opened = commitment.parse_payload(record.payload)
    assert sorted(opened.faces, reverse=True) == faces
    assert (opened.pool, opened.difficulty, opened.chat_id, opened.seq) == (7, 6, GROUP.id, 1)
    result = d10.resolve(opened.faces, 6, MAGE)
    assert record.result["successes"] == result.successes
    assert_nothing_leaked(table, faces)

    # Neither /log nor /stats tells the table anything before /reveal.
    await table.say(BORIS, "/log")
    await table.say(BORIS, "/stats")
    assert "тайный бросок №1" in table.session.sent[-2].text
    assert table.session.sent[-1].text == "Пока нечего считать: бросков не было."
    assert_nothing_leaked(table, faces)


async def test_reveal_publishes_a_line_that_hashes_to_the_commitment(table: Table) -> None:
    await make_storyteller(table)
    await table.say(ANNA, "/h 5 7 wp")
    posted = GROUP_TEXT.fullmatch(table.session.sent[-1].text)
    assert posted is not None
    private_text = next(s.text for s in table.session.sent if s.chat_id == ANNA.id)
    await table.say(BORIS, "/reveal")
    assert table.session.sent[-1].text.startswith("Это может только Рассказчик.")

    await table.say(ANNA, "/reveal")
    revealed = table.session.sent[-1]
    assert revealed.chat_id == GROUP.id
    assert revealed.text.startswith("📢 Тайный бросок №1 раскрыт:\n🎲 Anna: 5к10, сложность 7")
    assert "Сила Воли" in revealed.text
    assert faces_of(revealed.text) == faces_of(private_text)
    lines = re.findall(r"<code>([^<]*)</code>", revealed.text)
    line = next(x for x in lines if x.startswith("sdb-hidden-v1|"))
    assert hashlib.sha256(line.encode("ascii")).hexdigest() == posted.group(2)
    shell = next(x for x in lines if x.startswith("printf"))
    assert shell == f"printf '%s' '{line}' | sha256sum"

    await table.say(ANNA, "/reveal")
    assert table.session.sent[-1].text == "Нераскрытых тайных бросков нет."
    await table.say(ANNA, "/reveal 1")  # by number: posted again, nothing new disclosed
    assert table.session.sent[-1].text == revealed.text
    await table.say(ANNA, "/reveal 9")
    assert table.session.sent[-1].text == "Тайного броска №9 нет."
    await table.say(ANNA, "/reveal x")
    assert table.session.sent[-1].text.startswith("/reveal раскрывает последний")

    await table.say(BORIS, "/log")
    log = table.session.sent[-1].text
    assert "раскрыт №1" in log
    assert "5к10, сложность 7" in log


async def test_no_private_chat_gives_a_deep_link_and_nothing_leaks(table: Table) -> None:
    await make_storyteller(table, private_open=False)
    await table.say(ANNA, "/h 7 6")
    attempted = [c for c in table.session.sent if c.chat_id == ANNA.id]
    assert len(attempted) == 1  # tried, refused with 403
    notice = table.session.sent[-1]
    assert notice.chat_id == GROUP.id
    assert notice.text.startswith("🤫 Anna, чтобы бросать втайне, откройте личный чат со мной")
    [button] = buttons(notice.reply_markup)
    assert button.url == "https://t.me/dice_bot?start=st"
    assert await table.store.hidden_rolls(GROUP.id) == {}
    assert await table.store.redis.llen(log_key(GROUP.id)) == 0
    assert not any(GROUP_TEXT.fullmatch(s.text) for s in table.session.sent)
    assert_nothing_leaked(table, [])

    # The deep link's /start in private says the chat is ready; then /h works.
    table.chat = Chat(id=ANNA.id, type="private", first_name="Anna")
    session(table).open_private.add(ANNA.id)  # pressing Start opens the chat
    await table.say(ANNA, "/start st")
    assert table.session.sent[-1].text.startswith("Готово: результаты тайных бросков")
    table.chat = GROUP
    await table.say(ANNA, "/h 7 6")
    posted = GROUP_TEXT.fullmatch(table.session.sent[-1].text)
    assert posted is not None
    assert posted.group(1) == "2"


async def test_reveal_button_in_the_private_chat_applies_once(table: Table) -> None:
    await make_storyteller(table)
    await table.say(ANNA, "/h 4 8")
    private = next(s for s in table.session.sent if s.chat_id == ANNA.id)
    [button] = buttons(private.reply_markup)
    assert RevealCallback.unpack(button.callback_data or "") == RevealCallback(c=str(GROUP.id), s=1)
    # «hr» stays the reveal's own prefix (the house-rules menus moved off it): the buttons
    # already under private results keep their data
    assert button.callback_data == f"hr:{GROUP.id}:1"
    table.chat = Chat(id=ANNA.id, type="private", first_name="Anna")
    message_id = table.session.messages[-2].message_id

    await table.tap(BORIS, button.callback_data or "", message_id)
    assert (table.session.answers[-1].text or "").startswith("Это может только Рассказчик.")
    assert not (await table.store.load_hidden(GROUP.id, 1)).revealed  # type: ignore[union-attr]

    await table.tap(ANNA, button.callback_data or "", message_id)
    assert table.session.answers[-1].text == "Раскрыто в группе."
    await table.tap(ANNA, button.callback_data or "", message_id)
    assert table.session.answers[-1].text == "Тайный бросок №1 уже раскрыт."
    reveals = [s for s in table.session.sent if s.chat_id == GROUP.id and "раскрыт:" in s.text]
    assert len(reveals) == 1


async def test_only_the_storyteller_rolls_hidden(table: Table) -> None:
    await table.say(BORIS, "/h 7 6")
    assert table.session.sent[-1].text.startswith("Это может только Рассказчик.")
    await make_storyteller(table)
    await table.say(BORIS, "/h 7 6")
    assert table.session.sent[-1].text.startswith("Это может только Рассказчик.")
    await table.say(ANONYMOUS, "/h 7 6", sender_chat=GROUP)
    assert "мне в личный чат" in table.session.sent[-1].text
    assert await table.store.redis.get(hidden_seq_key(GROUP.id)) is None
    assert await table.store.hidden_rolls(GROUP.id) == {}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("/h", "Сколько кубиков?"),
        ("/h 7 11", "В этой игре сложность — от 4 до 10."),
        ("/h 0", "Запас кубиков — от 1 до 50."),
        ("/h abc", "«abc» — непонятно"),
    ],
)
async def test_bad_hidden_input_gets_a_hint_and_rolls_nothing(
    table: Table, text: str, says: str
) -> None:
    await make_storyteller(table)
    await table.say(ANNA, text)
    answer = table.session.sent[-1]
    assert says in answer.text
    assert "Пример: /h 7 6" in answer.text
    assert await table.store.redis.get(hidden_seq_key(GROUP.id)) is None
    assert [s for s in table.session.sent if s.chat_id == ANNA.id] == []


async def test_the_storyteller_rolls_from_the_private_chat_for_a_chosen_campaign(
    table: Table,
) -> None:
    await make_storyteller(table)
    table.chat = Chat(id=ANNA.id, type="private", first_name="Anna")
    await table.say(ANNA, "/h")  # the buttons, to choose or to see the choice
    offer = table.session.sent[-1]
    assert offer.text == "Выберите кампанию, для которой вы бросаете втайне из этого чата:"
    [button] = buttons(offer.reply_markup)
    assert button.text == "Chronicle"
    assert CampaignCallback.unpack(button.callback_data or "").c == str(GROUP.id)
    await table.tap(BORIS, button.callback_data or "", table.session.messages[-1].message_id)
    assert table.session.answers[-1].show_alert is True
    await table.tap(ANNA, button.callback_data or "", table.session.messages[-1].message_id)
    assert table.session.edits[-1].text.startswith("Кампания: «Chronicle».")
    assert await table.store.campaigns(ANNA.id) == (
        Campaign(GROUP.id),
        {Campaign(GROUP.id): "Chronicle"},
    )

    await table.say(ANNA, "/h 6 6")
    private = [s for s in table.session.sent if s.chat_id == ANNA.id][-1]
    assert private.text.startswith("🤫 Тайный бросок №1 в «Chronicle»")
    faces = faces_of(private.text)
    public = table.session.sent[-1]
    assert public.chat_id == GROUP.id
    assert GROUP_TEXT.fullmatch(public.text)
    assert_nothing_leaked(table, faces)

    await table.say(ANNA, "/reveal")
    assert table.session.sent[-2].chat_id == GROUP.id
    assert faces_of(table.session.sent[-2].text) == faces
    assert table.session.sent[-1].text == "Раскрыто в группе."


async def test_a_former_storyteller_loses_the_campaign(table: Table) -> None:
    await make_storyteller(table)
    await table.store.choose_campaign(ANNA.id, GROUP.id)
    table.session.admins.add(BORIS.id)
    await table.store.set_storyteller(
        GROUP.id, expected=ANNA.id, new_id=BORIS.id, name="Boris", title="Chronicle"
    )
    table.chat = Chat(id=ANNA.id, type="private", first_name="Anna")
    await table.say(ANNA, "/h 6 6")
    assert table.session.sent[-1].text.startswith("Вы пока не Рассказчик ни в одном чате.")
    await table.tap(ANNA, CampaignCallback(c=str(GROUP.id)).pack(), 5)
    assert table.session.answers[-1].show_alert is True
    assert await table.store.hidden_rolls(GROUP.id) == {}


async def test_forged_reveal_buttons_reveal_nothing(table: Table) -> None:
    await make_storyteller(table)
    await table.say(ANNA, "/h 3 6")
    for data in (
        RevealCallback(c=str(GROUP.id), s=2).pack(),
        RevealCallback(c=str(-999), s=1).pack(),
        "hr:x:y",
    ):
        await table.tap(BORIS, data, 1)
        assert table.session.answers[-1].show_alert is True
    await table.tap(BORIS, RevealCallback(c=str(GROUP.id), s=1).pack(), 1)
    assert not (await table.store.load_hidden(GROUP.id, 1)).revealed  # type: ignore[union-attr]
    assert_nothing_leaked(table, [])


# --- Property tests (docs/product.md §5): any line, any tap --------------------

APOLOGIES = ("Что-то пошло не так", "Не получилось разобрать", "Хранилище бота")
FAST = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
commands = st.sampled_from(["/h", "/hidden", "/reveal", "/st", "/log", "/stats"])
words = st.sampled_from(["7", "6", "0", "11", "wp", "св", "t1", "x", "99999999999", "-3", "№1"])
arguments = st.one_of(st.text(max_size=20), st.lists(words, max_size=4).map(" ".join))


def new_table(i18n: I18n) -> Table:
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    session = PrivacySession()
    bot = make_bot(TOKEN, session)
    dispatcher = create_dispatcher(Settings(_env_file=None), store, i18n)
    return Table(dispatcher, bot, session, store, i18n, rng=random.Random(5))


def no_apology(table: Table) -> None:
    for sent in table.session.sent:
        assert not sent.text.startswith(APOLOGIES), sent.text
    for answer in table.session.answers:
        assert not (answer.text or "").startswith(APOLOGIES), answer.text


def group_texts(table: Table) -> list[str]:
    return [s for call in group_calls(table) for s in visible_strings(call)]


@FAST
@given(commands, arguments, st.booleans(), st.booleans())
def test_any_line_from_anyone_is_answered_and_never_leaks(
    i18n: I18n, command: str, text: str, from_storyteller: bool, in_private: bool
) -> None:
    async def scenario() -> None:
        table = new_table(i18n)
        await make_storyteller(table)
        before = await table.store.load_chat(GROUP.id)
        user = ANNA if from_storyteller else BORIS
        if in_private:  # writing to the bot is what opens a private chat
            session(table).open_private.add(user.id)
            table.chat = Chat(id=user.id, type="private", first_name=user.first_name)
        await table.say(user, f"{command} {text}")
        no_apology(table)
        assert await table.store.load_chat(GROUP.id) == before
        hidden = await table.store.hidden_rolls(GROUP.id)
        if not from_storyteller:
            assert hidden == {}
        results = [
            s.text
            for s in table.session.sent
            if s.chat_id == ANNA.id and s.text.startswith("🤫 Тайный бросок")
        ]
        for shown in group_texts(table):
            for word in OUTCOME_WORDS:
                assert word not in shown, shown
            for result in results:
                faces_line = result.splitlines()[2]
                assert faces_line not in shown, (faces_line, shown)
        for record in hidden.values():
            assert not record.revealed
            assert any(GROUP_TEXT.fullmatch(t) for t in group_texts(table))

    asyncio.run(scenario())


async def test_an_npcs_effect_in_secret(table: Table) -> None:
    """``/h m 3 вульг свид арете 4``: Arete 4 at the Effect's difficulty (3 + 5 = 8), the
    Paradox noted for the Storyteller only, the usual commitment in the group."""
    await make_storyteller(table)
    before = len(table.session.calls)
    await table.say(ANNA, "/h m 3 вульг свид арете 4")
    new_calls = table.session.calls[before:]
    private = [c for c in new_calls if isinstance(c, SendMessage) and c.chat_id == ANNA.id]
    public = [c for c in new_calls if isinstance(c, SendMessage) and c.chat_id == GROUP.id]
    assert len(private) == 1
    assert len(public) == 1
    assert GROUP_TEXT.fullmatch(public[0].text) is not None
    text = private[0].text
    assert "4к10, сложность 8" in text
    assert re.search(r"Эффект Сферы 3: Парадокс \+(4|8)", text)
    assert len(faces_of(text)) == 4
    assert "Парадокс" not in public[0].text
    await table.say(ANNA, "/h m 3 вульг")  # no Arete for the NPC: how to write it
    assert "арете 4" in table.session.sent[-1].text


async def test_one_campaign_needs_no_choosing(table: Table) -> None:
    """The first /h in the private chat rolls at once when the Storyteller runs one game."""
    await make_storyteller(table)
    table.chat = Chat(id=ANNA.id, type="private", first_name="Anna")
    await table.say(ANNA, "/h 6 6")
    private = [s for s in table.session.sent if s.chat_id == ANNA.id][-1]
    assert private.text.startswith("🤫 Тайный бросок №1 в «Chronicle»")
    assert await table.store.campaigns(ANNA.id) == (
        Campaign(GROUP.id),
        {Campaign(GROUP.id): "Chronicle"},
    )


async def test_a_d6_roll_in_secret_then_revealed(table: Table) -> None:
    """§D.3 in secret: the chance and the measures it needs are bound by the commitment like
    a d10 pool and difficulty; the group learns nothing until /reveal, then /log has it."""
    await table.store.update_chat(GROUP.id, profile="d6")
    await make_storyteller(table)
    await table.say(ANNA, "/h 4 2")
    public = table.session.sent[-1]
    posted = GROUP_TEXT.fullmatch(public.text)
    assert posted is not None, public.text
    private_text = next(s.text for s in table.session.sent if s.chat_id == ANNA.id)
    assert "🎲 Anna: шанс 4к6, нужно мер успеха: 2" in private_text
    faces = faces_of(private_text)
    assert len(faces) == 4
    for call in group_calls(table):
        for text in visible_strings(call):
            assert "к6" not in text
            assert "Фиаско" not in text
    record = await table.store.load_hidden(GROUP.id, 1)
    assert record is not None
    opened = commitment.parse_payload(record.payload)
    assert (opened.profile, opened.pool, opened.difficulty) == ("d6", 4, 2)
    await table.say(ANNA, "/reveal")
    revealed = table.session.sent[-1].text
    assert revealed.startswith("📢 Тайный бросок №1 раскрыт:\n🎲 Anna: шанс 4к6")
    line = next(
        x for x in re.findall(r"<code>([^<]*)</code>", revealed) if x.startswith("sdb-hidden")
    )
    assert hashlib.sha256(line.encode("ascii")).hexdigest() == posted.group(2)
    await table.say(BORIS, "/log")
    assert "раскрыт №1" in table.session.sent[-1].text
    await table.say(ANNA, "/h сила")
    assert "/h 4 2" in table.session.sent[-1].text


async def test_an_npcs_sheet_in_secret(table: Table) -> None:
    """/h Страж восп+бдит 7: the NPC's own sheet gives the pool; the group sees only the
    commitment, the Storyteller's private chat whose dice they were."""
    await make_storyteller(table)
    await table.say(ANNA, "/npc Страж: восприятие 2 бдительность 3")
    await table.say(ANNA, "/h страж восп+бдит 7")
    assert GROUP_TEXT.fullmatch(table.session.sent[-1].text) is not None
    private_text = next(s.text for s in reversed(table.session.sent) if s.chat_id == ANNA.id)
    assert "🎲 Anna: 5к10, сложность 7" in private_text
    assert "🎭 За персонажа Страж: Восприятие 2 + Бдительность 3" in private_text
    record = await table.store.load_hidden(GROUP.id, 1)
    assert record is not None
    assert commitment.parse_payload(record.payload).pool == 5
