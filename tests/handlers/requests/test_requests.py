"""Roll requests through the Dispatcher: /ask, one roll per player from their own sheet, close."""

from __future__ import annotations

import asyncio
import random
import re

import fakeredis
import pytest
from aiogram.utils.i18n import I18n
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app import create_dispatcher, make_bot
from bot.features import FeatureSet
from bot.settings import Settings
from handlers import requests, roll, sheet, start, storyteller
from handlers import settings as settings_feature
from handlers.requests.callbacks import RequestAction, RequestCallback
from rules import d10, profiles
from rules import sheet as sheets
from rules.health import DamageType, track_of
from rules.sheet import SheetSystem
from table.store import Store, flow_key, log_key
from table.store.flows import data_of as flow_data
from tests.handlers.conftest import TOKEN, RecordingSession, Table, buttons, player

ST = player(10, "Rita")
BORIS = player(2, "Boris")
VERA = player(3, "Vera")
EMMA = player(4, "Emma", "en")
MAGE = profiles.get("mage")


def table_features() -> FeatureSet:
    return FeatureSet(
        [
            start.FEATURE,
            settings_feature.FEATURE,
            roll.FEATURE,
            sheet.FEATURE,
            requests.FEATURE,
            storyteller.FEATURE,
        ]
    )


@pytest.fixture
def table(fake_store: Store, i18n: I18n) -> Table:
    session = RecordingSession()
    session.admins.add(ST.id)
    bot = make_bot(TOKEN, session)
    dispatcher = create_dispatcher(
        Settings(_env_file=None), fake_store, i18n, features=table_features()
    )
    return Table(dispatcher, bot, session, fake_store, i18n, rng=random.Random(11))


def data_of(markup: object, action: RequestAction) -> str:
    for button in buttons(markup):
        if RequestCallback.unpack(button.callback_data or "").a is action:
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def ask(table: Table, text: str = "/ask восп+бдит 8") -> tuple[int, str, str]:
    await table.say(ST, text)
    sent = table.session.sent[-1]
    mid = table.session.messages[-1].message_id
    return mid, data_of(sent.reply_markup, RequestAction.ROLL), sent.text


def answer_line(text: str, name: str) -> str:
    [line] = [x for x in text.splitlines() if x.startswith(f"• {name}:")]
    return line


def faces_in(line: str) -> list[int]:
    faces = line.split(": ", 2)[2].split(" — ")[0]
    return [int(x) for x in re.findall(r"\d+", faces)]


async def test_request_message_names_the_pool_and_difficulty(table: Table) -> None:
    _mid, _data, text = await ask(table)
    assert text.startswith("📣 <b>Rita</b> просит бросить: <b>Восприятие + Бдительность</b>")
    assert "сложность 8 (сложно)" in text.splitlines()[0]
    assert "Нажмите кнопку, чтобы бросить по своему листу персонажа." in text


async def test_two_players_roll_their_own_pools_into_one_message(table: Table) -> None:
    await table.say(BORIS, "/set восприятие 3 бдительность 2")
    await table.say(VERA, "/set восприятие 2 бдительность 1")
    mid, data, _text = await ask(table)
    sent_before = len(table.session.sent)

    await table.tap(BORIS, data, mid)
    await table.tap(VERA, data, mid)

    assert len(table.session.sent) == sent_before  # answers are edits of the one message
    final = table.session.edits[-1]
    assert final.message_id == mid
    boris, vera = answer_line(final.text, "Boris"), answer_line(final.text, "Vera")
    assert boris.startswith("• Boris: 5к10: ")
    assert vera.startswith("• Vera: 3к10: ")
    for line, pool in ((boris, 5), (vera, 3)):
        faces = faces_in(line)
        assert len(faces) == pool
        result = d10.resolve(faces, 8, MAGE)
        if result.successes:
            assert re.search(rf"{result.successes} успех", line)
        else:
            assert ("Неудача" in line) or ("Провал" in line)
    log = await table.store.recent_rolls(table.chat.id)
    assert [(e["name"], e["pool"], e["difficulty"]) for e in log] == [
        ("Vera", 3, 8),
        ("Boris", 5, 8),
    ]
    assert final.reply_markup is not None  # still open for the others


async def test_second_tap_by_the_same_player_is_refused(table: Table) -> None:
    await table.say(BORIS, "/set восприятие 3 бдительность 2")
    mid, data, _text = await ask(table)
    await table.tap(BORIS, data, mid)
    stored = await table.store.redis.hgetall(
        flow_key(table.chat.id, RequestCallback.unpack(data).f)
    )
    await table.tap(BORIS, data, mid)
    assert table.session.answers[-1].text == "Вы уже бросили по этому запросу."
    assert table.session.answers[-1].show_alert
    assert (
        await table.store.redis.hgetall(flow_key(table.chat.id, RequestCallback.unpack(data).f))
        == stored
    )
    assert await table.store.redis.llen(log_key(table.chat.id)) == 1


async def test_a_player_without_a_sheet_or_the_traits_gets_a_hint(table: Table) -> None:
    mid, data, _text = await ask(table)
    await table.tap(VERA, data, mid)
    alert = table.session.answers[-1]
    assert alert.show_alert
    assert alert.text == (
        "У вас здесь пока нет листа персонажа. Задайте Восприятие, Бдительность: /set восприятие 3"
    )
    await table.say(VERA, "/set восприятие 2")
    await table.tap(VERA, data, mid)
    assert (
        table.session.answers[-1].text
        == "В вашем листе нет: Бдительность. Задайте: /set бдительность 3"
    )
    assert table.session.edits == []
    assert await table.store.redis.llen(log_key(table.chat.id)) == 0


async def test_zero_ability_is_an_automatic_failure_and_wounds_reduce_the_pool(
    table: Table,
) -> None:
    await table.say(BORIS, "/set восприятие 3 бдительность 0")
    await table.say(VERA, "/set восприятие 3 бдительность 2")
    await table.store.update_sheet(
        table.chat.id,
        VERA.id,
        SheetSystem.MAGE,
        # Three boxes: Травмы, −1 die (S4's table, §B.9).
        lambda s: sheets.set_health(s, track_of([DamageType.LETHAL] * 3)),
    )
    mid, data, _text = await ask(table)
    await table.tap(BORIS, data, mid)
    await table.tap(VERA, data, mid)
    final = table.session.edits[-1].text
    # S4 «0 в Способности - автоматически [Неудача], если ГМ не решит иначе».
    assert answer_line(final, "Boris") == "• Boris: <b>Неудача</b> — 0 в Способности"
    vera = answer_line(final, "Vera")
    assert vera.startswith("• Vera: 4к10 (−1 за раны): ")
    assert len(faces_in(vera)) == 4


async def test_only_the_storyteller_asks_and_closes(table: Table) -> None:
    await table.say(BORIS, "/ask восп+бдит 8")
    assert table.session.sent[-1].text == "Просить стол о броске может только Рассказчик."
    assert table.session.sent[-1].reply_markup is None

    mid, _data, _text = await ask(table)
    close = data_of(table.session.sent[-1].reply_markup, RequestAction.CLOSE)
    await table.tap(BORIS, close, mid)
    assert table.session.answers[-1].text == "Закрыть запрос может только Рассказчик."
    assert table.session.edits == []

    await table.tap(ST, close, mid)
    final = table.session.edits[-1]
    assert final.reply_markup is None
    assert final.text.endswith("Запрос закрыт.")
    roll = RequestCallback(f=RequestCallback.unpack(close).f, a=RequestAction.ROLL).pack()
    await table.tap(BORIS, roll, mid)
    assert table.session.answers[-1].text == "Этот бросок закрыт."


async def test_once_a_storyteller_exists_an_admin_no_longer_asks(table: Table) -> None:
    await table.store.update_chat(table.chat.id, storyteller_id=VERA.id)
    await table.say(ST, "/ask восп+бдит 8")
    assert table.session.sent[-1].text == "Просить стол о броске может только Рассказчик."
    await table.say(VERA, "/ask восп+бдит 8")
    assert table.session.sent[-1].text.startswith("📣 <b>Vera</b> просит бросить")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("/ask", "Попросить стол о броске: /ask восп+бдит 8"),
        ("/ask сил+драка 7", "«сил» — это может быть: Сила, Сила Воли, Силы."),
        ("/ask восп+бдит 11", "В этой игре сложность — от 4 до 10."),
        ("/ask восп+бдит+драка 6", "В запасе не больше 2 черт через +"),
        ("/ask силы 6", "Эту черту не бросают как запас"),
        ("/ask фывап 6", "«фывап» — в этой игре нет такой черты."),
    ],
)
async def test_bad_requests_get_a_hint_and_open_nothing(table: Table, text: str, says: str) -> None:
    await table.say(ST, text)
    sent = table.session.sent[-1]
    assert says in sent.text
    assert sent.reply_markup is None
    assert await table.store.redis.keys(flow_key("*", "*")) == []


async def test_english_request(table: Table) -> None:
    await table.say(EMMA, "/set per 2 alert 2")
    await table.store.update_chat(table.chat.id, locale="en")
    mid, data, text = await ask(table, "/ask per+alert 6")
    assert text.startswith("📣 <b>Rita</b> asks for a roll: <b>Perception + Alertness</b>")
    await table.tap(EMMA, data, mid)
    assert answer_line(table.session.edits[-1].text, "Emma").startswith("• Emma: 4d10: ")


async def test_forged_request_data_changes_nothing(table: Table) -> None:
    await table.say(BORIS, "/set восприятие 3 бдительность 2")
    mid, data, _text = await ask(table)
    flow_id = RequestCallback.unpack(data).f
    key = flow_key(table.chat.id, flow_id)
    await table.store.redis.hset(key, "data", '{"codes": 5}')
    await table.store.redis.hdel(key, *(f"data{n}" for n in range(1, 100)))  # whole, no pieces
    await table.tap(BORIS, data, mid)
    assert table.session.answers[-1].text == "Эта кнопка недействительна."
    await table.tap(BORIS, "rq:nosuchflow:go", mid)
    assert table.session.answers[-1].text == "Этот бросок закрыт."


async def test_simultaneous_taps_all_land_once(table: Table) -> None:
    """Players tapping at the same moment: each compare-and-set loser re-reads and retries."""
    import json

    players = [player(100 + i, f"P{i}") for i in range(5)]
    for p in players:
        await table.say(p, "/set восприятие 2 бдительность 1")
    mid, data, _text = await ask(table)
    await asyncio.gather(*(table.tap(p, data, mid) for p in players))
    raw = await table.store.redis.hgetall(flow_key(table.chat.id, RequestCallback.unpack(data).f))
    answers = json.loads(flow_data(raw))["answers"]
    assert sorted(a["name"] for a in answers) == [p.first_name for p in players]
    assert raw["version"] == str(len(players))
    assert await table.store.redis.llen(log_key(table.chat.id)) == len(players)


# ---------------------------------------------------------------------------------------------
# Properties

APOLOGIES = ("Что-то пошло не так", "Не получилось разобрать", "Хранилище бота")
FAST = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
ask_words = st.sampled_from(
    [
        "восп",
        "бдит",
        "+",
        "восп+бдит",
        "сил",
        "силы",
        "воля",
        "арете",
        "8",
        "0",
        "11",
        "3",
        "драка+ловк+сила",
        "dex+brawl",
        "++",
        "св",
    ]
)
ask_text = st.one_of(st.text(max_size=30), st.lists(ask_words, max_size=5).map(" ".join))


def new_table(i18n: I18n) -> Table:
    session = RecordingSession()
    session.admins.add(ST.id)
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    dispatcher = create_dispatcher(Settings(_env_file=None), store, i18n, features=table_features())
    return Table(dispatcher, make_bot(TOKEN, session), session, store, i18n)


@FAST
@given(ask_text)
def test_any_ask_text_opens_one_request_or_explains(i18n: I18n, text: str) -> None:
    async def scenario() -> None:
        table = new_table(i18n)
        await table.say(ST, "/ask " + text)
        [sent] = table.session.sent
        assert not sent.text.startswith(APOLOGIES), sent.text
        opened = await table.store.redis.keys(flow_key("*", "*"))
        if sent.text.startswith("📣"):
            assert len(opened) == 1
            assert sent.reply_markup is not None
        else:
            assert opened == []
            assert sent.reply_markup is None

    asyncio.run(scenario())


async def test_zero_ability_under_revised_rolls_the_attribute_alone(table: Table) -> None:
    """S0 (profile mage-revised, AMB-A8): 0 in the Ability leaves the Attribute's dice."""
    await table.store.update_chat(table.chat.id, profile="mage-revised")
    await table.say(BORIS, "/set восприятие 3 бдительность 0")
    mid, data, _text = await ask(table)
    await table.tap(BORIS, data, mid)
    line = answer_line(table.session.edits[-1].text, "Boris")
    assert line.startswith("• Boris: 3к10: ")
    assert len(faces_in(line)) == 3
