"""The d6 round tracker through the Dispatcher (docs/rules.md §D.7–§D.9): joining, the
die-spending order, holding, cutting in, defence with slowness, new rounds, the end."""

from __future__ import annotations

import re

import pytest

from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from handlers.d6combat.tracker.flow import KIND, D6InitFlow
from rules.d6.chance import DifficultyKind
from rules.sheet import SheetSystem
from table.store import flow_key
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
VERA = player(3, "Vera")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(VERA.id)
    return table


def dice_of(text: str, name: str) -> list[int]:
    for line in text.splitlines():
        if f"<b>{name}</b>" in line:
            left = line.split("🎲", 1)[1].split("·", 1)[0]
            return [int(d) for d in re.findall(r"\d", left)]
    raise AssertionError(f"{name} not on the tracker")


def press(markup: object, action: D6InitAction, y: int | None = None) -> str:
    for button in buttons(markup):
        data = D6InitCallback.unpack(button.callback_data or "")
        if data.a is action and (y is None or data.y == y):
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def state_of(table: Table) -> D6InitFlow:
    loaded = await table.store.load_live(table.chat.id, KIND)
    assert loaded is not None
    return loaded[0].state(D6InitFlow)


def last_screen(table: Table) -> tuple[str, object]:
    """The tracker as last drawn, sent or edited."""
    sent = table.session.sent[-1]
    if table.session.edits:
        edit = table.session.edits[-1]
        calls = table.session.calls
        last_edit = max(i for i, c in enumerate(calls) if type(c).__name__ == "EditMessageText")
        last_send = max(i for i, c in enumerate(calls) if type(c).__name__ == "SendMessage")
        if last_edit > last_send:
            return edit.text, edit.reply_markup
    return sent.text, sent.reply_markup


async def test_two_players_share_one_tracker_with_their_dice(d6: Table) -> None:
    """The outside contract: /init 3 and /init 2 put both on one tracker message."""
    await d6.say(ANNA, "/init 3")
    await d6.say(BORIS, "/init 2")
    assert len([m for m in d6.session.sent if "Раунд 1" in m.text]) == 1
    text, _markup = last_screen(d6)
    assert len(dice_of(text, "Anna")) == 3
    assert len(dice_of(text, "Boris")) == 2
    state = await state_of(d6)
    assert state.round is not None
    assert [len(f.remaining) for f in state.round.fighters] == [3, 2]


async def test_acting_spends_the_highest_die_and_a_double_press_moves_once(d6: Table) -> None:
    await d6.say(ANNA, "/init 3")
    await d6.say(BORIS, "/init 2")
    state = await state_of(d6)
    assert state.round is not None
    assert state.round.up is not None
    up = state.round.up
    who = ANNA if up.actor == "u1" else BORIS
    other = BORIS if who is ANNA else ANNA
    _text, markup = last_screen(d6)
    mid = d6.session.messages[0].message_id
    act = press(markup, D6InitAction.ACT)
    await d6.tap(other, act, mid)
    assert d6.session.answers[-1].show_alert  # not their turn
    await d6.tap(who, act, mid)
    await d6.tap(who, act, mid)  # the same press again: one step
    after = await state_of(d6)
    assert after.round is not None
    assert len(after.round.log) == 1
    fighter = next(f for f in after.round.fighters if f.sheet.id == up.actor)
    assert fighter.aside == (up.value,)
    text, _ = last_screen(d6)
    assert f"откладывает {up.value}" in text


async def test_defence_against_a_higher_die_is_slow(d6: Table) -> None:
    await d6.say(ANNA, "/init 1")
    await d6.say(BORIS, "/init 1")
    state = await state_of(d6)
    assert state.round is not None
    assert state.round.up is not None
    actor = state.round.up.actor
    attacker = ANNA if actor == "u1" else BORIS
    defender = BORIS if attacker is ANNA else ANNA
    mid = d6.session.messages[0].message_id
    _text, markup = last_screen(d6)
    await d6.tap(attacker, press(markup, D6InitAction.ACT), mid)
    _text, markup = last_screen(d6)
    await d6.tap(defender, press(markup, D6InitAction.DEFEND), mid)
    after = await state_of(d6)
    assert after.round is not None
    a = next(f for f in after.round.fighters if f.sheet.id == actor)
    d = next(f for f in after.round.fighters if f.sheet.id != actor)
    slow = a.aside[0] - d.aside[0]
    text, _ = last_screen(d6)
    assert "защищается" in text
    assert (f"неспешная защита: −{slow}" in text.casefold()) == (slow > 0)


async def test_holding_then_cutting_in(d6: Table) -> None:
    await d6.say(ANNA, "/init 2")
    state = await state_of(d6)
    assert state.round is not None
    mid = d6.session.messages[0].message_id
    _text, markup = last_screen(d6)
    assert "⏸ Выжидать" in [b.text for b in buttons(markup)]
    await d6.tap(ANNA, press(markup, D6InitAction.HOLD), mid)
    text, markup = last_screen(d6)
    assert "выжидает" in text
    await d6.tap(ANNA, press(markup, D6InitAction.CUT_IN), mid)
    after = await state_of(d6)
    assert after.round is not None
    assert len(after.round.fighters[0].aside) == 1
    assert not after.round.fighters[0].holding


async def test_the_storyteller_adds_npcs_and_defends_for_one(d6: Table) -> None:
    await d6.say(ANNA, "/init npc Гуль 2 x2")
    assert "сценарист" in d6.session.sent[-1].text
    await d6.say(VERA, "/init npc Гуль 2 x2")
    await d6.say(ANNA, "/init 2")
    state = await state_of(d6)
    assert state.round is not None
    names = [state.members[f.sheet.id].name for f in state.round.fighters]
    assert names == ["Гуль 1", "Гуль 2", "Anna"]
    mid = d6.session.messages[-1].message_id
    # let whoever is up act, then Vera answers for a ghoul that did not act
    up = state.round.up
    assert up is not None
    _text, markup = last_screen(d6)
    await d6.tap(VERA, press(markup, D6InitAction.ACT), mid)
    _text, markup = last_screen(d6)
    await d6.tap(VERA, press(markup, D6InitAction.DEFEND), mid)
    _text, panel = last_screen(d6)
    ghouls = [
        D6InitCallback.unpack(b.callback_data or "").y
        for b in buttons(panel)
        if D6InitCallback.unpack(b.callback_data or "").a is D6InitAction.DEFEND
    ]
    assert ghouls
    index = next(i for i in ghouls if state.round.fighters[i].sheet.id != up.actor)
    await d6.tap(VERA, press(panel, D6InitAction.DEFEND, index), mid)
    after = await state_of(d6)
    assert after.round is not None
    assert after.round.log[-1].kind.value == "defend"


async def test_a_new_round_rerolls_and_the_end_unpins(d6: Table) -> None:
    await d6.say(ANNA, "/init 1")
    mid = d6.session.messages[0].message_id
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.ACT), mid)
    text, markup = last_screen(d6)
    assert "новый раунд" in text.casefold()
    await d6.tap(ANNA, press(markup, D6InitAction.NEW_ROUND), mid)
    state = await state_of(d6)
    assert state.round is not None
    assert state.round.number == 2
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.END), mid)
    assert d6.session.answers[-1].show_alert  # the Storyteller ends it
    await d6.tap(VERA, press(markup, D6InitAction.END), mid)
    assert await d6.store.load_live(d6.chat.id, KIND) is None


async def test_a_round_of_waiting_puts_everyone_on_edge(d6: Table) -> None:
    await d6.say(ANNA, "/set слабость 2")
    await d6.say(ANNA, "/init 1")
    mid = d6.session.messages[-1].message_id
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.HOLD), mid)
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.NEW_ROUND), mid)
    text, markup = last_screen(d6)
    assert "на взводе −2" in text
    assert "выжидать нельзя" in text.casefold() or "не может выжидать" in text.casefold()
    sheet = await d6.store.load_sheet(d6.chat.id, ANNA.id, SheetSystem.D6)
    assert sheet is not None
    assert [(w.kind, w.magnitude) for w in sheet.wounds] == [(DifficultyKind.ON_EDGE, 2)]
    assert all(
        D6InitCallback.unpack(b.callback_data or "").a is not D6InitAction.HOLD
        for b in buttons(markup)
    )


async def test_preparation_raises_the_dice(d6: Table) -> None:
    await d6.say(ANNA, "/init подг 2")
    assert "боя нет" in d6.session.sent[-1].text.casefold()
    await d6.say(ANNA, "/init 2")
    before = (await state_of(d6)).round
    assert before is not None
    await d6.say(ANNA, "/init подг 2")
    after = (await state_of(d6)).round
    assert after is not None
    assert sum(after.fighters[0].remaining) - sum(before.fighters[0].remaining) in (0, 1, 2)
    assert max(after.fighters[0].remaining) <= 6


async def test_a_stranger_cannot_defend_and_flows_stay_put(d6: Table) -> None:
    await d6.say(ANNA, "/init 1")
    mid = d6.session.messages[0].message_id
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.ACT), mid)
    keys = sorted(await d6.store.redis.keys(flow_key("*", "*")))
    before = {k: await d6.store.redis.hgetall(k) for k in keys}
    _text, markup = last_screen(d6)
    await d6.tap(BORIS, press(markup, D6InitAction.DEFEND), mid)
    assert d6.session.answers[-1].show_alert
    assert {k: await d6.store.redis.hgetall(k) for k in keys} == before


async def test_the_order_through_the_chat_is_the_rules_order(d6: Table) -> None:
    """G-D10 through the chat: whatever the dice, pressing «Действовать» walks the round in
    the order of §D.7 (the most sixes first, ties by the other dice, set-aside ones included)."""
    from rules.d6 import initiative_order

    players = [ANNA, BORIS, VERA]
    for user, dice in zip(players, (3, 3, 2), strict=True):
        await d6.say(user, f"/init {dice}")
    state = await state_of(d6)
    assert state.round is not None
    dice = {f.sheet.id: list(f.remaining) for f in state.round.fighters}
    expected = initiative_order(dice)
    if len({tuple(sorted(v)) for v in dice.values()}) < len(dice):
        pytest.skip("a full tie is settled by a coin: the order is not fixed")
    mid = d6.session.messages[0].message_id
    walked = []
    for _step in range(sum(len(v) for v in dice.values())):
        current = (await state_of(d6)).round
        assert current is not None
        if current.up is None:
            break
        walked.append((current.up.actor, current.up.value))
        _text, markup = last_screen(d6)
        await d6.tap(VERA, press(markup, D6InitAction.ACT), mid)
    assert walked == expected


class Dealt:
    """Deals the given faces in order (then ones)."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0) if self.faces else a


async def test_g_d12_preparation_and_g_d13_slowness(d6: Table) -> None:
    """4,5,2 prepared by 3 → 6,6,2; then a 5 attacks a defender holding 3,1: slowness 2 and
    the 3 set aside."""
    d6.rng = Dealt(4, 5, 2)  # type: ignore[assignment]
    await d6.say(ANNA, "/init 3")
    await d6.say(ANNA, "/init подг 3")
    state = await state_of(d6)
    assert state.round is not None
    assert state.round.fighters[0].remaining == (6, 6, 2)


async def test_g_d13_a_slow_defence(d6: Table) -> None:
    d6.rng = Dealt(5)  # type: ignore[assignment]
    await d6.say(ANNA, "/init 1")
    d6.rng = Dealt(3, 1)  # type: ignore[assignment]
    await d6.say(BORIS, "/init 2")
    mid = d6.session.messages[0].message_id
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, press(markup, D6InitAction.ACT), mid)
    _text, markup = last_screen(d6)
    await d6.tap(BORIS, press(markup, D6InitAction.DEFEND), mid)
    text, _markup = last_screen(d6)
    assert "Boris защищается и откладывает 3. Неспешная защита: −2." in text
    state = await state_of(d6)
    assert state.round is not None
    boris = next(f for f in state.round.fighters if f.sheet.id == "u2")
    assert boris.aside == (3,)


async def test_g_d11_a_full_tie_goes_to_a_coin(d6: Table) -> None:
    d6.rng = Dealt(4, 2, 4, 2, 1)  # type: ignore[assignment]
    await d6.say(ANNA, "/init 2")
    await d6.say(BORIS, "/init 2")
    text, _markup = last_screen(d6)
    assert "ничью решил чёт-нечет" in text


async def test_a_typed_attack_in_a_round_sets_the_attackers_die_aside(d6: Table) -> None:
    await d6.say(ANNA, "/init 3")
    await d6.say(BORIS, "/init 3")
    before = (await state_of(d6)).round
    assert before is not None
    assert before.up is not None
    up = before.up.actor
    user = ANNA if up == f"u{ANNA.id}" else BORIS
    other = BORIS if user is ANNA else ANNA
    await d6.say(user, "/atk 2", reply_to=other)
    after = (await state_of(d6)).round
    assert after is not None
    assert len(after.log) == len(before.log) + 1
    assert after.log[-1].actor == up
    assert after.log[-1].value == before.up.value
