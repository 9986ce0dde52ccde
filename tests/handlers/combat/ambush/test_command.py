"""``/ambush`` at the table: the contest from the sheets, then the attack panel before round 1
(docs/rules.md §B.7), through the real dispatcher."""

from __future__ import annotations

import asyncio

from aiogram.types import InlineKeyboardMarkup, User

from tests.handlers.combat.tracker.test_initiative import ANNA, BORIS, VERA
from tests.handlers.conftest import Table, buttons
from tests.handlers.dealt import Dealt


async def gathered(table: Table) -> None:
    """Борис (Ловкость 3 + Скрытность 2) and the Storyteller's Гуль (Восприятие 2 +
    Бдительность 1) in a fight that has not begun."""
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/set ловкость 3 скрытность 2")
    await table.say(ANNA, "/npc Гуль: восприятие 2 бдительность 1 выносливость 2")
    await table.say(BORIS, "/init 5")
    await table.say(ANNA, "/init npc Гуль 4")


def tracker_screen(table: Table) -> tuple[int, str, InlineKeyboardMarkup | None]:
    """The tracker as last drawn (the attack panel below it shows ⚔️ too)."""
    sent = table.session.messages
    mid = next(m.message_id for m in sent if "<b>Бой</b> · " in (m.text or ""))
    text = next(m.text or "" for m in sent if m.message_id == mid)
    markup = next(m.reply_markup for m in sent if m.message_id == mid)
    for edit in table.session.edits:
        if edit.message_id == mid:
            text, markup = edit.text, edit.reply_markup
    return mid, text, markup


async def tap_tracker(table: Table, user: User, label: str) -> None:
    mid, _text, markup = tracker_screen(table)
    data = next(b.callback_data for b in buttons(markup) if label in b.text)
    assert data is not None
    await table.tap(user, data, mid)


def said(table: Table) -> str:
    return table.session.sent[-1].text or ""


def ambush_toggles(table: Table) -> list[str]:
    return [
        b.text
        for m in table.session.sent
        if isinstance(m.reply_markup, InlineKeyboardMarkup)
        for b in buttons(m.reply_markup)
        if "засада" in b.text
    ]


async def test_a_won_ambush_opens_the_attack_panel_on_an_undefended_victim(table: Table) -> None:
    await gathered(table)
    table.rng = Dealt([8, 9, 7, 2, 3, 6, 2, 3])  # 3 successes against 1
    await table.say(BORIS, "/ambush гуль")
    contest = next(m.text or "" for m in table.session.sent if "🥷 <b>Засада" in (m.text or ""))
    assert "Борис → Гуль" in contest
    assert "Борис: Ловкость 3 + Скрытность 2" in contest
    assert "Гуль: Восприятие 2 + Бдительность 1" in contest
    assert "жертва не защищается" in contest
    assert ambush_toggles(table) == ["[🥷 засада]"]  # the panel opened with the ambush set
    logged = [r for r in await table.store.recent_rolls(table.chat.id) if r.get("kind") == "vs"]
    assert sorted((r["name"], r["successes"]) for r in logged) == [("Борис", 3), ("Гуль", 1)]
    trackers = [m for m in table.session.sent if "<b>Бой</b> · " in (m.text or "")]
    assert len(trackers) == 1  # the tracker stays one message
    await table.say(BORIS, "/засада гуль")
    assert "засада в этом бою уже была" in said(table)


async def test_a_spotted_ambush_opens_nothing(table: Table) -> None:
    await gathered(table)
    table.rng = Dealt([8, 2, 2, 2, 2, 9, 2, 3])  # 1 against 1: a tie
    await table.say(BORIS, "/ambush гуль")
    assert "Засада раскрыта" in said(table)
    assert ambush_toggles(table) == []
    await table.say(BORIS, "/ambush гуль")  # spotted, the ambush is still spent
    assert "засада в этом бою уже была" in said(table)


async def test_the_storyteller_ambushes_for_an_npc(table: Table) -> None:
    await gathered(table)
    table.rng = Dealt([2, 2, 2, 2, 2, 2])
    await table.say(ANNA, "/ambush гуль борис")
    # Гуль's sheet has no Dexterity or Stealth: what to set is said, nothing rolled
    assert "Гуль" in said(table)
    assert "Ловкость" in said(table)
    await table.say(VERA, "/ambush гуль")
    assert "/init" in said(table)  # Вера is not in the fight


async def test_two_ambushes_at_once_make_one(table: Table) -> None:
    await gathered(table)
    table.rng = Dealt([8, 9, 7, 2, 3, 6, 2, 3] * 2)
    await asyncio.gather(table.say(BORIS, "/ambush гуль"), table.say(BORIS, "/засада гуль"))
    texts = [m.text or "" for m in table.session.sent]
    assert sum("🥷 <b>Засада" in t for t in texts) == 1
    assert sum("засада в этом бою уже была" in t for t in texts) == 1
    assert ambush_toggles(table) == ["[🥷 засада]"]


async def test_the_tracker_lays_an_ambush_by_buttons(table: Table) -> None:
    await gathered(table)
    await tap_tracker(table, VERA, "🥷 Засада")
    assert "нет в бою" in (table.session.answers[-1].text or "")  # Вера is not in the fight
    await tap_tracker(table, BORIS, "🥷 Засада")
    _mid, text, _markup = tracker_screen(table)
    assert "нажмите на жертву" in text
    table.rng = Dealt([8, 9, 7, 2, 3, 6, 2, 3])
    await tap_tracker(table, BORIS, "🥷 Гуль")
    contest = next(m.text or "" for m in table.session.sent if "🥷 <b>Засада" in (m.text or ""))
    assert "Борис → Гуль" in contest
    assert ambush_toggles(table) == ["[🥷 засада]"]
    _mid, text, markup = tracker_screen(table)
    assert "нажмите на жертву" not in text  # the panel closed with the ambush
    assert "🥷 Гуль" not in [b.text for b in buttons(markup)]
    await tap_tracker(table, BORIS, "🥷 Засада")
    await tap_tracker(table, BORIS, "🥷 Гуль")
    assert "засада в этом бою уже была" in (table.session.answers[-1].text or "")
