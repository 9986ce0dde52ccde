"""The scenarist's NPCs in the d6 game through the Dispatcher (docs/product.md "NPCs"): an
attack as an NPC or at one by name, the defence and the wound the NPC's, ``/init`` that opens
the fight without seating the scenarist, «Убрать», and groups of copies."""

from __future__ import annotations

import pytest

from handlers.d6combat.attack.callbacks import AttackAction, GainChoice
from handlers.d6combat.tracker.callbacks import D6InitAction
from rules.sheet import Sheet, SheetSystem, set_power, set_trait
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.d6combat.attack.test_d6attack import press as attack_press
from tests.handlers.d6combat.tracker.test_d6init import last_screen, press, state_of
from tests.handlers.dealt import Dealt

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
VERA = player(3, "Vera")  # the scenarist (an admin)
D6 = SheetSystem.D6


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(VERA.id)
    return table


async def npc(table: Table, name: str, power: str = "сабля", alacrity: int = 2) -> None:
    def write(sheet: Sheet) -> Sheet:
        return set_trait(set_power(sheet, power, 3), "alacrity", alacrity)

    await table.store.update_npc(table.chat.id, D6, name, write)


async def test_the_scenarist_opens_the_fight_and_is_no_fighter(d6: Table) -> None:
    await d6.say(VERA, "/dmg 1 тел")  # a blank sheet with a wound is no character
    await d6.say(VERA, "/init")
    text, markup = last_screen(d6)
    assert "Бой открыт" in text
    assert "Vera" not in text
    state = await state_of(d6)
    assert state.round is None
    assert state.members == {}
    await d6.say(ANNA, "/init 3")
    await d6.tap(VERA, press(markup, D6InitAction.JOIN), d6.session.messages[-1].message_id)
    state = await state_of(d6)
    assert set(state.members) == {"u1", "u3"}  # she added herself by the button


async def test_npc_groups_are_numbered_and_share_the_sheet(d6: Table) -> None:
    await npc(d6, "Охранник", alacrity=2)
    await d6.say(VERA, "/init npc Охранник x3")
    state = await state_of(d6)
    assert [m.name for m in state.members.values()] == ["Охранник 1", "Охранник 2", "Охранник 3"]
    assert state.round is not None
    assert [len(f.remaining) for f in state.round.fighters] == [2, 2, 2]  # the group's dice
    copy = await d6.store.load_npc(d6.chat.id, D6, "Охранник 2")
    assert copy is not None
    assert copy.power("сабля") is not None
    await d6.say(VERA, "/dmg Охранник 2 тел 1")
    second = await d6.store.load_npc(d6.chat.id, D6, "Охранник 2")
    first = await d6.store.load_npc(d6.chat.id, D6, "Охранник 1")
    assert second is not None
    assert first is not None
    assert [w.magnitude for w in second.wounds] == [1]
    assert first.wounds == ()
    assert "Охранник 2" in d6.session.sent[-1].text


async def test_remove_on_the_d6_tracker(d6: Table) -> None:
    await d6.say(ANNA, "/init 3")
    await d6.say(BORIS, "/init 2")
    await d6.say(VERA, "/init npc Бандит 2")
    mid = d6.session.messages[-1].message_id
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.REMOVE), mid)
    _text, markup = last_screen(d6)
    names = [b.text for b in buttons(markup) if b.text.startswith("✖")]
    assert names == ["✖ Anna", "✖ Boris", "✖ Бандит"]
    await d6.tap(ANNA, press(markup, D6InitAction.REMOVE, 1), mid)
    assert d6.session.answers[-1].show_alert  # Boris is not hers to remove
    await d6.tap(ANNA, press(markup, D6InitAction.REMOVE, 0), mid)
    state = await state_of(d6)
    assert "u1" not in state.members
    assert state.round is not None
    assert len(state.round.fighters) == 2
    _text, markup = last_screen(d6)
    await d6.tap(VERA, press(markup, D6InitAction.REMOVE), mid)
    _text, markup = last_screen(d6)
    await d6.tap(VERA, press(markup, D6InitAction.REMOVE, 1), mid)  # the scenarist: anyone
    state = await state_of(d6)
    assert [m.name for m in state.members.values()] == ["Boris"]


async def test_a_player_attacks_an_npc_and_the_npc_defends_and_is_wounded(d6: Table) -> None:
    await npc(d6, "Бандит")
    d6.rng = Dealt(6, 6, 6, 6, 1)  # the attack's four dice, then the bandit's one
    await d6.say(BORIS, "/atk Бандит 4")
    sent = d6.session.sent[-1]
    assert "Boris атакует → Бандит" in sent.text
    mid = d6.session.messages[-1].message_id
    await d6.tap(VERA, attack_press(sent.reply_markup, AttackAction.DEFEND, 1), mid)
    text = d6.session.edits[-1].text
    assert "Бандит защищается" in text
    assert "Vera" not in text
    markup = d6.session.edits[-1].reply_markup
    await d6.tap(BORIS, attack_press(markup, AttackAction.RESOLVE), mid)
    markup = d6.session.edits[-1].reply_markup
    await d6.tap(BORIS, attack_press(markup, AttackAction.SPEND, c=GainChoice.PHYSICAL), mid)
    assert "Бандит получает телесную рану 4" in d6.session.edits[-1].text
    bandit = await d6.store.load_npc(d6.chat.id, D6, "Бандит")
    assert bandit is not None
    assert [w.magnitude for w in bandit.wounds] == [4]
    assert await d6.store.load_sheet(d6.chat.id, VERA.id, D6) is None


async def test_the_scenarist_attacks_as_an_npc_by_name(d6: Table) -> None:
    await npc(d6, "Атаман")
    await d6.say(VERA, "/atk атаман сабля", reply_to=ANNA)
    sent = d6.session.sent[-1]
    assert "Атаман атакует → Anna" in sent.text
    assert "сабля" in sent.text.casefold()
    mid = d6.session.messages[-1].message_id
    await d6.tap(ANNA, attack_press(sent.reply_markup, AttackAction.DEFEND, 2), mid)
    assert "Anna защищается" in d6.session.edits[-1].text
    # a player who names no NPC: the scenarist's press asks which NPC answers
    await d6.say(BORIS, "/atk 3")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    await d6.tap(VERA, attack_press(sent.reply_markup, AttackAction.DEFEND, 2), mid)
    assert d6.session.answers[-1].show_alert
    assert "/atk Бандит 4" in (d6.session.answers[-1].text or "")


async def test_an_npc_typed_with_its_dice_is_known_by_name(d6: Table) -> None:
    await d6.say(VERA, "/init npc Разбойник 2")
    await d6.say(BORIS, "/atk разбойник 3")
    assert "Boris атакует → Разбойник" in d6.session.sent[-1].text
    await d6.say(VERA, "/dmg разбойник тел 2")
    sheet = await d6.store.load_npc(d6.chat.id, D6, "Разбойник")
    assert sheet is not None
    assert [w.magnitude for w in sheet.wounds] == [2]
