"""``/atk`` in a d6 chat (RULES.md §D.9–§D.11, G-D14): defences subtract, armour after or
instead, a defender who out-rolls gains an advantage, the gain goes into a wound written on the
target's sheet once, or into the manoeuvre declared before the roll."""

from __future__ import annotations

import pytest

from handlers.d6attack.callbacks import AttackAction, D6AttackCallback
from handlers.d6attack.flow import D6AttackFlow
from rules.d6.combat import resolve_attack
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
VERA = player(3, "Vera")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    return table


def press(markup: object, action: AttackAction, x: int | None = None, c: str = "") -> str:
    for button in buttons(markup):
        data = D6AttackCallback.unpack(button.callback_data or "")
        if data.a is action and (x is None or data.x == x) and (not c or data.c == c):
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def state_of(table: Table, data: str) -> D6AttackFlow:
    flow = await table.store.load_flow(table.chat.id, D6AttackCallback.unpack(data).f)
    assert flow is not None
    return flow.state(D6AttackFlow)


async def attack_until_hit(table: Table) -> tuple[str, int, D6AttackFlow]:
    """/atk 6 with Boris defending on 1 die and armour on 1, until the attack hits."""
    for _ in range(30):
        await table.say(ANNA, "/atk 6")
        sent = table.session.sent[-1]
        mid = table.session.messages[-1].message_id
        await table.tap(BORIS, press(sent.reply_markup, AttackAction.DEFEND, 1), mid)
        markup = table.session.edits[-1].reply_markup
        await table.tap(BORIS, press(markup, AttackAction.ARMOUR, 1), mid)
        markup = table.session.edits[-1].reply_markup
        resolve = press(markup, AttackAction.RESOLVE)
        await table.tap(ANNA, resolve, mid)
        state = await state_of(table, resolve)
        assert state.outcome is not None
        expected = resolve_attack(
            state.attack.measures,
            {d.key: d.measures for d in state.defences},
            state.armour.measures if state.armour else None,
            attacker=state.attack.key,
        )
        assert state.outcome == expected
        if expected.hit:
            return resolve, mid, state
    raise AssertionError("no hit in 30 attacks")


async def test_the_gain_becomes_a_wound_on_the_defenders_sheet_once(d6: Table) -> None:
    _resolve, mid, state = await attack_until_hit(d6)
    assert state.outcome is not None
    gain = state.outcome.gain
    text = d6.session.edits[-1].text
    assert f"Попадание: выигрыш {gain}." in text
    markup = d6.session.edits[-1].reply_markup
    physical = press(markup, AttackAction.SPEND, c="p")
    await d6.tap(BORIS, physical, mid)
    assert d6.session.answers[-1].show_alert  # the attacker decides
    await d6.tap(ANNA, physical, mid)
    await d6.tap(ANNA, physical, mid)  # a double tap writes once
    sheet = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    assert sheet is not None
    assert [w.magnitude for w in sheet.wounds] == [gain]
    assert f"Boris получает телесную рану {gain}" in d6.session.edits[-1].text


async def test_defence_and_armour_once_each_and_not_by_the_attacker(d6: Table) -> None:
    await d6.say(ANNA, "/atk 3")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    await d6.tap(ANNA, press(sent.reply_markup, AttackAction.DEFEND, 2), mid)
    assert "своей" in d6.session.answers[-1].text
    await d6.tap(BORIS, press(sent.reply_markup, AttackAction.DEFEND, 2), mid)
    markup = d6.session.edits[-1].reply_markup
    await d6.tap(BORIS, press(markup, AttackAction.DEFEND, 2), mid)
    assert "одно ответное действие" in d6.session.answers[-1].text
    await d6.tap(VERA, press(markup, AttackAction.DEFEND, 3), mid)
    state = await state_of(d6, press(markup, AttackAction.RESOLVE))
    assert [d.name for d in state.defences] == ["Boris", "Vera"]


async def test_a_declared_manoeuvre_and_a_reply_target(d6: Table) -> None:
    await d6.say(ANNA, "/atk 2 уловка трудность")
    sent = d6.session.sent[-1]
    assert "манёвр на трудность" in sent.text
    await d6.say(ANNA, "/atk 4 уловка")
    assert "/atk 4" in d6.session.sent[-1].text


async def test_bad_attacks_answer_with_the_usage(d6: Table) -> None:
    await d6.say(ANNA, "/atk")
    assert "/atk 4" in d6.session.sent[-1].text
    await d6.say(ANNA, "/atk 99")
    assert "/atk 4" in d6.session.sent[-1].text


async def test_a_shove_knocks_down_and_bruises_with_the_rest(d6: Table) -> None:
    """G-D18: a shove with gain g — knocked down −1 and a bruise of g − 1."""
    _resolve, mid, state = await attack_until_hit(d6)
    assert state.outcome is not None
    gain = state.outcome.gain
    markup = d6.session.edits[-1].reply_markup
    assert [b.text for b in buttons(markup)][2:5] == ["Толчок", "Захват", "Отнять предмет"]
    await d6.tap(ANNA, press(markup, AttackAction.SPEND, c="k"), mid)
    assert "Толчок: Boris на земле" in d6.session.edits[-1].text
    sheet = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    bruises = [w.magnitude for w in sheet.wounds] if sheet is not None else []
    assert bruises == ([gain - 1] if gain > 1 else [])


@pytest.mark.parametrize("reading", ["final_gain", "measures"])
async def test_a_poisoned_wound_lands_by_the_gain_or_the_measures(d6: Table, reading: str) -> None:
    """§D.12 Отравление: the needle's wound carries the poison; its severity is the final
    gain (AMB-D11) or, as a house rule, the attacker's measures."""
    if reading == "measures":
        d6.session.admins.add(ANNA.id)
        await d6.say(ANNA, "/rules set poison_uses_final_gain=off")
    _resolve, mid, state = await attack_until_hit(d6)
    assert state.outcome is not None
    severity = state.outcome.gain if reading == "final_gain" else state.outcome.measures
    markup = d6.session.edits[-1].reply_markup
    await d6.tap(ANNA, press(markup, AttackAction.SPEND, c="o"), mid)
    text = d6.session.edits[-1].text
    assert f"Яд: Boris получает телесную рану {severity}" in text
    sheet = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    assert sheet is not None
    assert [w.magnitude for w in sheet.wounds] == [severity]


@pytest.mark.parametrize(("choice", "says"), [("c", "Атака с разгона"), ("f", "Глухая оборона")])
async def test_a_charge_or_full_defence_turns_the_gain_into_a_next_advantage(
    d6: Table, choice: str, says: str
) -> None:
    _resolve, mid, state = await attack_until_hit(d6)
    assert state.outcome is not None
    markup = d6.session.edits[-1].reply_markup
    await d6.tap(ANNA, press(markup, AttackAction.SPEND, c=choice), mid)
    text = d6.session.edits[-1].text
    assert f"{says}: +{state.outcome.gain}" in text
    sheet = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    assert sheet is None or not sheet.wounds  # no wound: the gain went into the advantage


class _Dealt:
    def __init__(self, faces: list[int]) -> None:
        self.faces = faces

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)

    def random(self) -> float:
        return 0.5


async def test_the_gain_split_among_the_foes_wounds_each_in_one_step(d6: Table) -> None:
    """§D.11 «Семерых одним ударом!»: six measures, two defenders who roll none; four to
    Boris and two to Vera, each a physical wound on their own sheet."""
    d6.rng = _Dealt([6] * 6 + [1, 1])  # type: ignore[assignment]
    await d6.say(ANNA, "/atk 6")
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, press(d6.session.sent[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    await d6.tap(VERA, press(d6.session.edits[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.RESOLVE), mid)
    assert "Попадание: выигрыш 6." in d6.session.edits[-1].text
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.SPEND, c="x"), mid)
    assert "по мере за нажатие: осталось 6." in d6.session.edits[-1].text
    for who in (0, 0, 1, 0, 0, 1):
        await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.SHARE, who), mid)
    text = d6.session.edits[-1].text
    assert "Выигрыш поделён" in text
    boris = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    vera = await d6.store.load_sheet(d6.chat.id, VERA.id, SheetSystem.D6)
    assert boris is not None
    assert vera is not None
    assert [w.magnitude for w in boris.wounds] == [4]
    assert [w.magnitude for w in vera.wounds] == [2]
    assert d6.session.edits[-1].reply_markup is None


@pytest.mark.parametrize(("faces", "loss"), [([6, 6, 6, 6], 2), ([6, 6, 1, 1], 0)])
async def test_g_d15_breaking_an_item_by_the_gain_above_its_threshold(
    d6: Table, faces: list[int], loss: int
) -> None:
    """G-D15: four measures against a threshold of 2 break 2; two against 2 break none."""
    d6.rng = _Dealt(list(faces))  # type: ignore[assignment]
    await d6.say(ANNA, "/atk 4")
    mid = d6.session.messages[-1].message_id
    await d6.tap(ANNA, press(d6.session.sent[-1].reply_markup, AttackAction.RESOLVE), mid)
    markup = d6.session.edits[-1].reply_markup
    await d6.tap(ANNA, press(markup, AttackAction.SPEND, x=2, c="b"), mid)
    assert f"порогом прочности 2 теряет {loss}" in d6.session.edits[-1].text
