"""The Mini App's API on an in-process store: who may read and write which sheet, the
compare-and-set with the chat, and refusals that change nothing."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, cast

import pytest
from aiogram import Bot
from aiogram.enums import ChatMemberStatus
from aiogram.types import Update
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.i18n import LOCALES_DIR, load_i18n
from bot.middlewares import campaign_of
from bot.miniapp import initdata
from bot.miniapp.server import MiniApp, roll_update, roll_update_id
from rules.sheet import SheetSystem, set_trait
from table.scope import Campaign
from table.store import Store
from table.store.chats import parse_chat_settings

TOKEN = "123456:TEST-token_for-the-api"
GROUP, MASTER, ANYA, BORIS, STRANGER = -100, 1001, 1002, 1003, 1999


@dataclass
class Member:
    status: ChatMemberStatus


class FakeBot:
    """getChatMember as Telegram answers it for the group; counts the calls (the cache)."""

    def __init__(self) -> None:
        self.asked = 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Member:
        self.asked += 1
        if user_id == MASTER:
            return Member(ChatMemberStatus.CREATOR)
        if user_id in (ANYA, BORIS):
            return Member(ChatMemberStatus.MEMBER)
        return Member(ChatMemberStatus.LEFT)


def signed(
    user_id: int,
    *,
    age: int = 60,
    campaign: int | Campaign = GROUP,
    token: str = TOKEN,
    lang: str = "ru",
) -> str:
    user = {"id": user_id, "first_name": f"u{user_id}", "language_code": lang}
    fields = {
        "user": json.dumps(user),
        "auth_date": str(int(time.time()) - age),
        "start_param": initdata.encode_campaign(campaign),
    }
    return initdata.sign(fields, token)


@pytest.fixture
async def client(fake_store: Store) -> AsyncIterator[tuple[TestClient[Any, Any], FakeBot]]:
    bot = FakeBot()
    miniapp = MiniApp(cast(Bot, bot), fake_store, TOKEN, load_i18n(LOCALES_DIR, "ru"))
    app = web.Application()
    miniapp.add_routes(app, "/app/")
    async with TestClient(TestServer(app)) as test_client:
        yield test_client, bot


async def sheet(client: TestClient[Any, Any], data: str, query: str = "") -> Any:
    response = await client.get("/app/api/sheet" + query, headers={initdata.HEADER: data})
    return response.status, await response.json()


async def edit(client: TestClient[Any, Any], data: str, **body: Any) -> Any:
    response = await client.post("/app/api/edit", json=body, headers={initdata.HEADER: data})
    return response.status, await response.json()


def value(drawn: dict[str, Any], code: str) -> int:
    for group in drawn["groups"]:
        for trait in group["traits"]:
            if trait["code"] == code:
                return int(trait["value"])
    raise AssertionError(code)


async def test_the_page_and_its_script_are_served(
    client: tuple[TestClient[Any, Any], FakeBot],
) -> None:
    test_client, _bot = client
    for path in ("/app/", "/app/static/app.js", "/app/static/app.css"):
        response = await test_client.get(path)
        assert response.status == 200, path


async def test_forged_expired_and_missing_data_are_401(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    test_client, _bot = client
    for data in ("", signed(ANYA, token="999:OTHER"), signed(ANYA, age=90_000), "user=1&hash=0"):
        status, _body = await sheet(test_client, data)
        assert status == 401
        status, _body = await edit(
            test_client, data, op="set", trait="strength", value=3, version=""
        )
        assert status == 401
    assert await fake_store.load_sheet(GROUP, ANYA, SheetSystem.MAGE) is None
    _status, body = await sheet(test_client, signed(ANYA, age=90_000))
    assert body["message"].startswith("Откройте лист из Telegram")  # in the reader's language


async def test_a_stranger_and_a_foreign_campaign_are_403(
    client: tuple[TestClient[Any, Any], FakeBot],
) -> None:
    test_client, bot = client
    assert (await sheet(test_client, signed(STRANGER)))[0] == 403
    assert (await sheet(test_client, signed(ANYA, campaign=BORIS)))[0] == 403
    # A player opens only their own sheet; the NPCs are the Storyteller's.
    assert (await sheet(test_client, signed(ANYA), f"?user={BORIS}"))[0] == 403
    assert (await sheet(test_client, signed(ANYA), "?npc=Guard"))[0] == 403
    assert (await sheet(test_client, signed(ANYA), "?campaign=nonsense"))[0] == 400
    asked = bot.asked
    await sheet(test_client, signed(ANYA))
    await sheet(test_client, signed(ANYA))
    assert bot.asked == asked  # membership is cached


async def test_the_storyteller_opens_and_edits_a_players_sheet(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    test_client, _bot = client
    status, mine = await sheet(test_client, signed(ANYA))
    assert status == 200
    status, _saved = await edit(
        test_client, signed(ANYA), op="set", trait="dexterity", value=3, version=mine["version"]
    )
    assert status == 200
    status, seen = await sheet(test_client, signed(MASTER), f"?user={ANYA}")
    assert status == 200
    assert seen["storyteller"] is True
    assert value(seen, "dexterity") == 3
    status, _saved = await edit(
        test_client,
        signed(MASTER),
        user=ANYA,
        op="set",
        trait="brawl",
        value=2,
        version=seen["version"],
    )
    assert status == 200
    stored = await fake_store.load_sheet(GROUP, ANYA, SheetSystem.MAGE)
    assert stored is not None
    assert stored.traits == {"dexterity": 3, "brawl": 2}


async def test_an_edit_on_a_stale_sheet_is_409_and_the_chats_change_stays(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    test_client, _bot = client
    _status, drawn = await sheet(test_client, signed(ANYA))
    # The chat's /set lands between the page's read and its tap.
    await fake_store.update_sheet(
        GROUP, ANYA, SheetSystem.MAGE, lambda s: set_trait(s, "strength", 4)
    )
    status, body = await edit(
        test_client, signed(ANYA), op="set", trait="wits", value=2, version=drawn["version"]
    )
    assert status == 409
    assert body["conflict"] is True
    assert value(body["sheet"], "strength") == 4
    status, body = await edit(
        test_client, signed(ANYA), op="set", trait="wits", value=2, version=body["sheet"]["version"]
    )
    assert status == 200
    stored = await fake_store.load_sheet(GROUP, ANYA, SheetSystem.MAGE)
    assert stored is not None
    assert stored.traits == {"strength": 4, "wits": 2}


async def test_spends_wounds_and_refusals(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    test_client, _bot = client
    _status, drawn = await sheet(test_client, signed(ANYA))
    status, body = await edit(
        test_client, signed(ANYA), op="spend", what="willpower", version=drawn["version"]
    )
    assert status == 422  # no Willpower to spend: refused, nothing written
    assert await fake_store.load_sheet(GROUP, ANYA, SheetSystem.MAGE) is None
    steps: list[dict[str, Any]] = [
        {"op": "set", "trait": "willpower", "value": 5},
        {"op": "spend", "what": "willpower"},
        {"op": "wound", "kind": "L"},
        {"op": "gain", "what": "quintessence"},
    ]
    for step in steps:
        status, body = await edit(test_client, signed(ANYA), version=drawn["version"], **step)
        assert status == 200, body
        drawn = body["sheet"]
    assert drawn["willpower"]["current"] == 4
    assert drawn["health"]["boxes"][0] == "L"
    assert drawn["wheel"]["quintessence"] == 1
    for bad in ({"op": "nonsense"}, {"op": "set", "trait": "x", "value": "3"}, {"op": "spend"}):
        status, _body = await edit(test_client, signed(ANYA), version=drawn["version"], **bad)
        assert status == 400


async def test_odds_are_exact_for_the_picked_traits(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    test_client, _bot = client
    await fake_store.update_sheet(
        GROUP,
        ANYA,
        SheetSystem.MAGE,
        lambda s: set_trait(set_trait(s, "dexterity", 3), "brawl", 2),
    )
    response = await test_client.post(
        "/app/api/odds",
        json={"traits": ["dexterity", "brawl"], "difficulty": 6},
        headers={initdata.HEADER: signed(ANYA)},
    )
    odds = await response.json()
    assert odds["pool"] == 5
    assert 0 < odds["botch"] < odds["success"] < 1


def test_a_roll_request_is_one_update_however_often_it_is_sent() -> None:
    first = roll_update_id(GROUP, ANYA, "request-1")
    assert first == roll_update_id(GROUP, ANYA, "request-1")
    assert first != roll_update_id(GROUP, ANYA, "request-2")
    assert first != roll_update_id(GROUP, BORIS, "request-1")
    assert first > 2**32  # never one of Telegram's own update ids


def test_the_roll_update_is_the_players_r_in_the_campaign() -> None:
    from bot.miniapp.server import Caller
    from rules import profiles
    from table.store import ChatSettings

    who = initdata.WebAppUser(id=ANYA, first_name="Аня", username=None, language_code="ru")
    caller = Caller(who, Campaign(GROUP), ChatSettings(), profiles.get("mage"), False, "ru")
    raw = roll_update(caller, "request-1", "dexterity+brawl 6 wp")
    update = Update.model_validate(raw)
    assert update.message is not None
    assert update.message.from_user is not None
    assert update.message.text == "/r dexterity+brawl 6 wp"
    assert update.message.chat.id == GROUP
    assert update.message.from_user.id == ANYA
    assert campaign_of(update) == Campaign(GROUP)

    # Opened from a forum topic: the roll is the line typed in that topic.
    topic = Caller(who, Campaign(GROUP, 7), ChatSettings(), profiles.get("mage"), False, "ru")
    in_topic = Update.model_validate(roll_update(topic, "request-1", "dexterity+brawl 6 wp"))
    assert campaign_of(in_topic) == Campaign(GROUP, 7)
    assert in_topic.update_id != update.update_id  # another campaign's request is its own


def test_a_campaign_code_names_a_chat_or_its_topic() -> None:
    for where, code in [
        (Campaign(-1001234), "g1001234"),
        (Campaign(-1001234, 45), "g1001234t45"),
        (Campaign(777), "p777"),
    ]:
        assert initdata.encode_campaign(where) == code
        assert initdata.decode_campaign(code) == where
    assert initdata.encode_campaign(-1001234) == "g1001234"  # a chat id is its own game
    for junk in ("p777t5", "g100t1", "g100t", "g100tx", "g100t5t6", "x100", "g", "", None):
        assert initdata.decode_campaign(junk) is None, junk


async def test_a_page_opened_in_a_topic_reads_and_writes_that_topic_s_sheets(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    """A forum topic is a campaign of its own: the page opened from «Маг» (topic 7) shows
    and edits Anya's sheet there; General's stays as it was."""
    test_client, _bot = client
    mage = Campaign(GROUP, 7)
    await fake_store.update_sheet(GROUP, ANYA, SheetSystem.MAGE, lambda s: set_trait(s, "wits", 1))
    status, drawn = await sheet(test_client, signed(ANYA, campaign=mage))
    assert status == 200
    assert drawn["campaign"] == "g100t7"
    assert value(drawn, "wits") == 0  # General's sheet is not this topic's
    status, _saved = await edit(
        test_client,
        signed(ANYA, campaign=mage),
        op="set",
        trait="wits",
        value=3,
        version=drawn["version"],
    )
    assert status == 200
    in_topic = await fake_store.load_sheet(mage, ANYA, SheetSystem.MAGE)
    in_general = await fake_store.load_sheet(GROUP, ANYA, SheetSystem.MAGE)
    assert in_topic is not None
    assert in_general is not None
    assert (in_topic.traits, in_general.traits) == ({"wits": 3}, {"wits": 1})


async def test_a_wound_on_the_page_redraws_the_chats_tracker(fake_store: Store) -> None:
    from aiogram import Router

    from bot.features import Feature, FeatureSet
    from bot.miniapp.handoffs import REFRESH_LIVE

    redrawn: list[int] = []

    async def refresh(_bot: Bot, _store: Store, chat_id: int, _profile: Any) -> None:
        redrawn.append(chat_id)

    features = FeatureSet(
        [Feature(name="fight", make_router=Router, provides={REFRESH_LIVE: refresh})]
    )
    miniapp = MiniApp(
        cast(Bot, FakeBot()), fake_store, TOKEN, load_i18n(LOCALES_DIR, "ru"), features=features
    )
    app = web.Application()
    miniapp.add_routes(app, "/app/")
    async with TestClient(TestServer(app)) as test_client:
        _status, drawn = await sheet(test_client, signed(ANYA))
        status, _body = await edit(
            test_client, signed(ANYA), op="wound", kind="B", version=drawn["version"]
        )
        assert status == 200
    assert redrawn == [GROUP]


async def test_an_edit_on_the_page_redraws_the_open_screen_only(fake_store: Store) -> None:
    """The Storyteller's open screen (``ChatSettings.screen``) is asked to redraw after any
    change on the page — Willpower too, which no tracker shows; with no screen open, it is
    not asked at all."""
    from aiogram import Router

    from bot.features import Feature, FeatureSet
    from bot.miniapp.handoffs import REFRESH_SCREEN

    asked: list[tuple[int | Campaign, str | None]] = []

    async def refresh(
        _bot: Bot, _store: Store, chat_id: int | Campaign, screen: str | None
    ) -> None:
        asked.append((chat_id, screen))

    features = FeatureSet(
        [Feature(name="screen", make_router=Router, provides={REFRESH_SCREEN: refresh})]
    )
    miniapp = MiniApp(
        cast(Bot, FakeBot()), fake_store, TOKEN, load_i18n(LOCALES_DIR, "ru"), features=features
    )
    app = web.Application()
    miniapp.add_routes(app, "/app/")
    async with TestClient(TestServer(app)) as test_client:
        _status, drawn = await sheet(test_client, signed(ANYA))
        status, _body = await edit(
            test_client, signed(ANYA), op="wound", kind="B", version=drawn["version"]
        )
        assert status == 200
        assert asked == []  # no screen open
        await fake_store.update_chat(GROUP, screen="555:flowid:77")
        _status, drawn = await sheet(test_client, signed(ANYA))
        status, _body = await edit(test_client, signed(ANYA), op="heal", version=drawn["version"])
        assert status == 200
    assert asked == [(Campaign(GROUP), "555:flowid:77")]


async def test_each_game_draws_its_own_sheet(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    test_client, _bot = client
    await fake_store.update_chat(GROUP, profile="dark-ages")
    _status, drawn = await sheet(test_client, signed(ANYA))
    titles = [group["title"] for group in drawn["groups"]]
    assert "Добродетели" in titles or "Virtues" in titles, titles
    assert drawn["blood"] == 0
    assert "wheel" not in drawn
    status, body = await edit(
        test_client, signed(ANYA), op="gain", what="blood", points=3, version=drawn["version"]
    )
    assert status == 200
    assert body["sheet"]["blood"] == 3
    await fake_store.update_chat(GROUP, profile="d6")
    _status, drawn = await sheet(test_client, signed(ANYA))
    assert drawn["d6"]["powers"] == []
    assert drawn["d6"]["wounds"] == []
    assert "willpower" not in drawn
    status, body = await edit(
        test_client, signed(ANYA), op="power", name="Огонь", value=2, version=drawn["version"]
    )
    assert status == 200
    assert body["sheet"]["d6"]["powers"] == [{"name": "Огонь", "value": 2}]
    status, body = await edit(
        test_client,
        signed(ANYA),
        op="add_wound",
        kind="physical_wound",
        value=2,
        version=body["sheet"]["version"],
    )
    assert status == 200
    [wound] = body["sheet"]["d6"]["wounds"]
    assert (wound["kind"], wound["value"]) == ("physical_wound", 2)
    assert "health" not in body["sheet"]


async def test_a_d6_roll_is_composed_of_the_sheets_powers(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    from rules.sheet import set_power

    test_client, _bot = client
    await fake_store.update_chat(GROUP, profile="d6")
    await fake_store.update_sheet(
        GROUP, ANYA, SheetSystem.D6, lambda s: set_power(set_power(s, "Огонь", 2), "Лёд", 1)
    )
    response = await test_client.post(
        "/app/api/odds",
        json={"traits": ["огонь", "Лёд"], "difficulty": 2},
        headers={initdata.HEADER: signed(ANYA)},
    )
    odds = await response.json()
    assert odds["pool"] == 3
    assert 0 < odds["success"] < 1
    unknown = await test_client.post(
        "/app/api/odds",
        json={"traits": ["вода"], "difficulty": 1},
        headers={initdata.HEADER: signed(ANYA)},
    )
    assert unknown.status == 400


def test_the_roll_line_is_what_the_player_would_type() -> None:
    from bot.miniapp.server import Ask
    from table.parsing import parse_d6_arguments, parse_roll_arguments

    d10 = parse_roll_arguments(Ask(("dexterity", "brawl"), 7, True, 1).line(), allow_traits=True)
    assert (d10.traits, d10.difficulty, d10.willpower, d10.threshold) == (
        "dexterity+brawl",
        7,
        True,
        1,
    )
    d6 = parse_d6_arguments(Ask(("Огонь", "Тайный взгляд"), 2, True, 1, d6=True).line())
    assert (d6.powers, d6.required, d6.weakness, d6.luck) == (
        ("Огонь", "Тайный взгляд"),
        2,
        True,
        1,
    )


async def test_the_page_speaks_the_readers_telegram_language(
    client: tuple[TestClient[Any, Any], FakeBot],
) -> None:
    test_client, _bot = client
    _status, english = await sheet(test_client, signed(BORIS, lang="en"))
    _status, russian = await sheet(test_client, signed(ANYA))
    assert english["lang"] == "en"
    assert english["labels"]["health"] == "Health"
    assert english["groups"][0]["traits"][1]["name"] == "Dexterity"
    assert russian["labels"]["health"] == "Здоровье"
    assert russian["groups"][0]["traits"][1]["name"] == "Ловкость"


async def roll(client: TestClient[Any, Any], data: str, **body: Any) -> Any:
    response = await client.post("/app/api/roll", json=body, headers={initdata.HEADER: data})
    return response.status, await response.json()


async def test_open_sheets_let_a_player_read_another_players_sheet_and_change_nothing(
    client: tuple[TestClient[Any, Any], FakeBot], fake_store: Store
) -> None:
    test_client, _bot = client
    status, his = await sheet(test_client, signed(BORIS))
    status, _saved = await edit(
        test_client, signed(BORIS), op="set", trait="strength", value=4, version=his["version"]
    )
    assert status == 200
    assert (await sheet(test_client, signed(ANYA), f"?user={BORIS}"))[0] == 403  # closed
    await fake_store.update_chat(GROUP, sheets_open=True)

    status, seen = await sheet(test_client, signed(ANYA), f"?user={BORIS}")
    assert status == 200
    assert seen["read_only"] is True
    assert value(seen, "strength") == 4
    assert seen["name"] == f"u{BORIS}"
    assert seen["read_only_note"] == f"Лист: {seen['name']} (только чтение)"
    status, mine = await sheet(test_client, signed(ANYA))
    assert mine["read_only"] is False
    assert mine["read_only_note"] is None
    assert {"user": BORIS, "name": f"u{BORIS}"} in mine["others"]
    assert all("npc" not in other for other in mine["others"])

    before = await fake_store.load_sheet(GROUP, BORIS, SheetSystem.MAGE)
    for body in (
        {"op": "set", "trait": "strength", "value": 1},
        {"op": "spend", "what": "willpower"},
        {"op": "wound", "kind": "L"},
    ):
        status, refused = await edit(
            test_client, signed(ANYA), user=BORIS, version=seen["version"], **body
        )
        assert status == 403, body
        assert refused["error"] == "read-only sheet"
    status, _refused = await roll(
        test_client,
        signed(ANYA),
        user=BORIS,
        request_id="read-only-roll",
        traits=["strength"],
        difficulty=6,
    )
    assert status == 403
    assert await fake_store.load_sheet(GROUP, BORIS, SheetSystem.MAGE) == before
    # NPCs stay the Storyteller's; the Storyteller still edits a player's sheet.
    assert (await sheet(test_client, signed(ANYA), "?npc=Guard"))[0] == 403
    status, ruled = await sheet(test_client, signed(MASTER), f"?user={BORIS}")
    assert status == 200
    assert ruled["read_only"] is False

    await fake_store.update_chat(GROUP, sheets_open=False)
    assert (await sheet(test_client, signed(ANYA), f"?user={BORIS}"))[0] == 403


def test_a_chat_stored_before_the_privacy_setting_stays_closed() -> None:
    old = parse_chat_settings('{"profile": "mage", "locale": "ru", "switches": {}}')
    assert old.sheets_open is False
    again = parse_chat_settings(old.model_copy(update={"sheets_open": True}).model_dump_json())
    assert again.sheets_open is True
