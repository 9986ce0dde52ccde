"""``/atk`` in a d6 chat (docs/rules.md §D.9–§D.11, G-D14): defences subtract, armour after or
instead, a defender who out-rolls gains an advantage, the gain goes into a wound written on the
target's sheet once, or into the manoeuvre declared before the roll."""

from __future__ import annotations

import pytest

from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback
from handlers.d6combat.attack.flow import D6AttackFlow
from rules.d6.combat import resolve_attack
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, buttons, flows, player
from tests.handlers.dealt import Dealt

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


@pytest.mark.parametrize("choice", ["c", "f", "zz"])
async def test_a_run_up_or_full_defence_is_no_use_of_a_hit(d6: Table, choice: str) -> None:
    """S3 «Атака с разгона» and «Глухая оборона» are actions of their own rolled before (see
    test_d6tricks.py), not a hit's gain: an old drawing's button is refused and nothing moves."""
    _resolve, mid, _state = await attack_until_hit(d6)
    markup = d6.session.edits[-1].reply_markup
    texts = [b.text for b in buttons(markup)]
    assert not any("разгон" in t.casefold() or "оборона" in t.casefold() for t in texts)
    flow_id = D6AttackCallback.unpack(press(markup, AttackAction.SPEND, c="p")).f
    flow = await d6.store.load_flow(d6.chat.id, flow_id)
    assert flow is not None
    forged = D6AttackCallback(f=flow_id, v=flow.version, a=AttackAction.SPEND, c=choice).pack()
    before = await flows(d6.store)
    await d6.tap(ANNA, forged, mid)
    assert d6.session.answers[-1].show_alert
    assert await flows(d6.store) == before


class _Dealt:
    def __init__(self, faces: list[int]) -> None:
        self.faces = faces

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)

    def random(self) -> float:
        return 0.5


def share(markup: object, foe: int, use: str) -> str:
    for button in buttons(markup):
        data = D6AttackCallback.unpack(button.callback_data or "")
        if data.a is AttackAction.SHARE and data.x == foe and data.c == use:
            return button.callback_data or ""
    raise AssertionError(f"no share button {foe} {use}")


async def six_against_two(d6: Table, line: str = "/atk 6") -> int:
    """Six measures, Boris and Vera defend and roll none; «Итог»; the message id."""
    d6.rng = _Dealt([6] * 6 + [1, 1])  # type: ignore[assignment]
    await d6.say(ANNA, line)
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, press(d6.session.sent[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    await d6.tap(VERA, press(d6.session.edits[-1].reply_markup, AttackAction.DEFEND, 1), mid)
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.RESOLVE), mid)
    assert "Попадание: выигрыш 6." in d6.session.edits[-1].text
    return mid


async def test_the_gain_split_among_the_foes_wounds_each_in_one_step(d6: Table) -> None:
    """§D.11 «Семерых одним ударом!»: six measures shared after the roll among the foes and
    the kinds of wounds (S3 «не только между разными оппонентами, но и между разными типами
    ран»): Boris a physical 3 and a mental 1, Vera a physical 2 — one wound a kind on each
    sheet, written in the step that gives the last measure."""
    mid = await six_against_two(d6)
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.SPEND, c="x"), mid)
    assert "по мере за нажатие: осталось 6." in d6.session.edits[-1].text
    for who, use in ((0, "p"), (0, "p"), (1, "p"), (0, "m")):
        await d6.tap(ANNA, share(d6.session.edits[-1].reply_markup, who, use), mid)
    assert "Пока: Boris — телесная рана 2 и душевная рана 1; Vera — телесная рана 1." in (
        d6.session.edits[-1].text
    )
    # a mental one for Vera was a slip: take it back and give her a physical one instead
    await d6.tap(ANNA, share(d6.session.edits[-1].reply_markup, 1, "m"), mid)
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.UNDO), mid)
    assert "осталось 2." in d6.session.edits[-1].text
    await d6.tap(ANNA, share(d6.session.edits[-1].reply_markup, 1, "p"), mid)
    await d6.tap(ANNA, share(d6.session.edits[-1].reply_markup, 0, "p"), mid)
    text = d6.session.edits[-1].text
    assert (
        "Выигрыш поделён: Boris — телесная рана 3 и душевная рана 1; Vera — телесная рана 2."
        in text
    )
    boris = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    vera = await d6.store.load_sheet(d6.chat.id, VERA.id, SheetSystem.D6)
    assert boris is not None
    assert vera is not None
    assert [(w.kind.value, w.magnitude) for w in boris.wounds] == [
        ("physical_wound", 3),
        ("mental_wound", 1),
    ]
    assert [w.magnitude for w in vera.wounds] == [2]
    assert d6.session.edits[-1].reply_markup is None


async def test_a_split_with_the_declared_manoeuvre_and_bad_taps(d6: Table) -> None:
    """«Уловка с подвохом!»: the gain between the declared manoeuvre's difficulty and wounds;
    a share for a foe who is not there, a manoeuvre not declared, or a tap after the whole
    gain is given is refused and changes nothing; a double tap gives one measure."""
    mid = await six_against_two(d6, "/atk 6 уловка трудность")
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.SPEND, c="x"), mid)
    markup = d6.session.edits[-1].reply_markup
    assert "⛓ Vera −1" in [b.text for b in buttons(markup)]
    flow_id = D6AttackCallback.unpack(share(markup, 0, "p")).f
    flow = await d6.store.load_flow(d6.chat.id, flow_id)
    assert flow is not None
    before = await flows(d6.store)
    for x, c in ((2, "p"), (-1, "v"), (0, "q")):
        forged = D6AttackCallback(f=flow_id, v=flow.version, a=AttackAction.SHARE, x=x, c=c)
        await d6.tap(ANNA, forged.pack(), mid)
        assert d6.session.answers[-1].show_alert
    await d6.tap(BORIS, share(markup, 0, "p"), mid)
    assert d6.session.answers[-1].text == "Это решает нападающий (или сценарист)."
    assert await flows(d6.store) == before
    await d6.tap(ANNA, share(markup, 1, "v"), mid)
    await d6.tap(ANNA, share(markup, 1, "v"), mid)  # the same drawing pressed twice
    assert "осталось 5." in d6.session.edits[-1].text
    for who, use in ((1, "v"), (0, "p"), (0, "p"), (0, "p")):
        await d6.tap(ANNA, share(d6.session.edits[-1].reply_markup, who, use), mid)
    last = d6.session.edits[-1].reply_markup
    await d6.tap(ANNA, share(last, 0, "v"), mid)
    text = d6.session.edits[-1].text
    assert "Выигрыш поделён: Boris — телесная рана 3 и трудность −1; Vera — трудность −2." in (text)
    vera = await d6.store.load_sheet(d6.chat.id, VERA.id, SheetSystem.D6)
    assert vera is None or not vera.wounds  # a difficulty is no wound
    boris = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    assert boris is not None
    assert [w.magnitude for w in boris.wounds] == [3]
    after = await flows(d6.store)
    await d6.tap(ANNA, share(last, 1, "p"), mid)  # the split is over
    assert await flows(d6.store) == after


async def test_a_split_offered_for_one_foe_and_left_by_back(d6: Table) -> None:
    d6.rng = _Dealt([6, 6, 1, 1])  # type: ignore[assignment]
    await d6.say(ANNA, "/atk 2 уловка преимущество")
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, press(d6.session.sent[-1].reply_markup, AttackAction.ARMOUR, 2), mid)
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.RESOLVE), mid)
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.SPEND, c="x"), mid)
    texts = [b.text for b in buttons(d6.session.edits[-1].reply_markup)]
    assert texts == ["🩸 Boris +1", "🧠 Boris +1", "✨ Преимущество +1", "↩ Назад"]
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.UNDO), mid)
    assert "Нападающий распоряжается выигрышем:" in d6.session.edits[-1].text
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.SPEND, c="x"), mid)
    await d6.tap(ANNA, share(d6.session.edits[-1].reply_markup, -1, "v"), mid)
    await d6.tap(ANNA, share(d6.session.edits[-1].reply_markup, 0, "m"), mid)
    assert (
        "Выигрыш поделён: Boris — душевная рана 1; преимущество +1 нападающему или союзнику."
        in d6.session.edits[-1].text
    )


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


async def test_a_special_effort_after_the_attack_and_the_defence_rolls(d6: Table) -> None:
    """§D.4 «Особое усилие … сразу после броска кубиков»: the attacker and a defender each
    reroll their dice without a measure once, before «Итог»; the price lands on their sheet."""
    d6.rng = Dealt([6, 2, 1, 3, 5, 6, 5, 4])  # attack, defence, the two efforts
    await d6.say(ANNA, "/atk 3")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    assert "💪 телесная рана 1" in [b.text for b in buttons(sent.reply_markup)]
    await d6.tap(BORIS, press(sent.reply_markup, AttackAction.DEFEND, 2), mid)
    markup = d6.session.edits[-1].reply_markup
    effort = press(markup, AttackAction.EFFORT, 1)
    await d6.tap(ANNA, effort, mid)  # the attack's 2 and 1 rerolled: 6 and 5
    state = await state_of(d6, effort)
    assert state.attack.measures == 3
    assert "Особое усилие за телесную рану 1" in d6.session.edits[-1].text
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, AttackAction.EFFORT, 1), mid)
    assert d6.session.answers[-1].show_alert  # once per action
    markup = d6.session.edits[-1].reply_markup
    await d6.tap(BORIS, press(markup, AttackAction.EFFORT, 3), mid)  # a memory: Boris's 3 → 4
    state = await state_of(d6, effort)
    assert [d.faces for d in state.defences] == [(4, 5)]
    anna = await d6.store.load_sheet(d6.chat.id, ANNA.id, SheetSystem.D6)
    assert anna is not None
    assert [w.magnitude for w in anna.wounds] == [1]
    boris = await d6.store.load_sheet(d6.chat.id, BORIS.id, SheetSystem.D6)
    assert boris is None or not boris.wounds
    assert not any(
        D6AttackCallback.unpack(b.callback_data or "").a is AttackAction.EFFORT
        for b in buttons(d6.session.edits[-1].reply_markup)
    )  # both efforts made: the row is gone
    flow = await d6.store.load_flow(d6.chat.id, D6AttackCallback.unpack(effort).f)
    assert flow is not None
    forged = D6AttackCallback(f=flow.id, v=flow.version, a=AttackAction.EFFORT, x=1).pack()
    await d6.tap(VERA, forged, mid)
    assert d6.session.answers[-1].show_alert  # Vera rolled nothing here
