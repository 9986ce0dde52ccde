"""A d6 attack opened from the tracker (docs/rules.md §D.9): «⚔️ Атака» and a target roll the
attacker's chance from their sheet with no typed command; the target's «🛡 Защита» sets
aside their highest die on the tracker and rolls their chance less the slowness; «Итог · в
раны» writes the wound; the tracker has moved on with nobody pressing «Действовать»."""

from __future__ import annotations

import pytest

from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback
from handlers.d6combat.attack.flow import D6AttackFlow
from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from rules.d6.chance import DifficultyKind
from rules.d6.initiative import StepKind
from rules.sheet import Sheet, SheetSystem, set_power
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.d6combat.tracker.test_d6init import last_screen, state_of
from tests.handlers.dealt import Dealt

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
VERA = player(3, "Vera")
D6 = SheetSystem.D6


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(VERA.id)
    return table


async def powers(table: Table, user_id: int, **levels: int) -> None:
    def write(sheet: Sheet) -> Sheet:
        for name, level in levels.items():
            sheet = set_power(sheet, name, level)
        return sheet

    await table.store.update_sheet(table.chat.id, user_id, D6, write)


def init_button(markup: object, action: D6InitAction, label: str = "") -> str:
    for button in buttons(markup):
        data = D6InitCallback.unpack(button.callback_data or "")
        if data.a is action and label in button.text:
            return button.callback_data or ""
    raise AssertionError(f"no {action} {label} button")


def attack_button(markup: object, action: AttackAction, x: int) -> str:
    for button in buttons(markup):
        data = D6AttackCallback.unpack(button.callback_data or "")
        if data.a is action and data.x == x:
            return button.callback_data or ""
    raise AssertionError(f"no {action} {x} button")


def tracker_id(table: Table) -> int:
    return next(m.message_id for m in table.session.messages if "Раунд" in (m.text or ""))


async def attack_state(table: Table, data: str) -> D6AttackFlow:
    flow = await table.store.load_flow(table.chat.id, D6AttackCallback.unpack(data).f)
    assert flow is not None
    return flow.state(D6AttackFlow)


async def test_an_attack_from_the_tracker_needs_no_typed_command(d6: Table) -> None:
    await powers(d6, ANNA.id, меч=2, сила=1)
    await powers(d6, BORIS.id, щит=3)
    # Anna's initiative 5 4 4, Boris's 4 2; the attack 6 5, the defence 5 2
    d6.rng = Dealt(5, 4, 4, 4, 2, 6, 5, 5, 2)
    await d6.say(ANNA, "/init 3")
    await d6.say(BORIS, "/init 2")
    tracker = tracker_id(d6)
    _text, markup = last_screen(d6)
    opening = init_button(markup, D6InitAction.ATTACK, "Атака")
    await d6.tap(BORIS, opening, tracker)  # not Boris's turn
    assert d6.session.answers[-1].show_alert
    await d6.tap(ANNA, opening, tracker)
    text, markup = last_screen(d6)
    assert "Кого атакует Anna?" in text
    sent = len(d6.session.sent)
    await d6.tap(ANNA, init_button(markup, D6InitAction.ATTACK, "Boris"), tracker)
    state = await state_of(d6)
    assert state.round is not None
    anna = state.round.fighters[0]
    assert anna.aside == (5,)  # the attack is an action: the die is set aside at once
    assert state.round.up is not None
    assert state.round.up.actor == "u1"
    assert len(d6.session.sent) == sent + 1
    attack = d6.session.sent[-1]
    assert "Anna атакует → Boris" in attack.text
    assert "меч 2" in attack.text
    mid = d6.session.messages[-1].message_id
    defend = attack_button(attack.reply_markup, AttackAction.DEFEND, 0)
    await d6.tap(BORIS, defend, mid)
    after = await attack_state(d6, defend)
    assert len(after.defences) == 1
    assert after.defences[0].faces == (5, 2)  # щит 3, slow by 1: two dice
    state = await state_of(d6)
    assert state.round is not None
    boris = state.round.fighters[1]
    assert boris.aside == (4,)
    assert boris.remaining == (2,)
    assert state.round.log[-1].kind is StepKind.DEFEND
    await d6.tap(BORIS, defend, mid)  # a double tap defends once
    assert len((await attack_state(d6, defend)).defences) == 1
    assert await state_of(d6) == state
    markup = d6.session.keyboards[mid]  # the attack's message as it stands
    await d6.tap(ANNA, attack_button(markup, AttackAction.RESOLVE, 1), mid)
    done = await attack_state(d6, defend)
    assert done.outcome is not None
    assert done.outcome.gain == 1
    assert done.spent == "p"
    sheet = await d6.store.load_sheet(d6.chat.id, BORIS.id, D6)
    assert sheet is not None
    assert [(w.kind, w.magnitude) for w in sheet.wounds] == [(DifficultyKind.PHYSICAL_WOUND, 1)]


async def test_the_scenarists_npc_typed_with_its_dice_attacks_with_them(d6: Table) -> None:
    # Anna's initiative 1 1; the bandit's 6 3; the attack on 2 dice: 5 5
    d6.rng = Dealt(1, 1, 6, 3, 5, 5, 4)
    await d6.say(ANNA, "/init 2")
    await d6.say(VERA, "/init npc Бандит 2")
    tracker = tracker_id(d6)
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, init_button(markup, D6InitAction.ATTACK, "Атака"), tracker)
    assert d6.session.answers[-1].show_alert  # the bandit's turn
    await d6.tap(VERA, init_button(markup, D6InitAction.ATTACK, "Атака"), tracker)
    _text, markup = last_screen(d6)
    await d6.tap(VERA, init_button(markup, D6InitAction.ATTACK, "Anna"), tracker)
    attack = d6.session.sent[-1]
    assert "Бандит атакует → Anna" in attack.text
    assert "2 по числу кубиков инициативы" in attack.text
    mid = d6.session.messages[-1].message_id
    # Anna has no power on her sheet: her dice on the tracker, less the slowness 6 − 1
    defend = attack_button(attack.reply_markup, AttackAction.DEFEND, 0)
    await d6.tap(ANNA, defend, mid)
    assert d6.session.answers[-1].show_alert  # 2 − 5: no chance, nothing changes
    state = await state_of(d6)
    assert state.round is not None
    assert state.round.fighters[0].remaining == (1, 1)


async def test_a_forged_target_is_refused_and_spends_nothing(d6: Table) -> None:
    d6.rng = Dealt(5, 4)
    await d6.say(ANNA, "/init 1")
    await d6.say(BORIS, "/init 1")
    tracker = tracker_id(d6)
    state = await state_of(d6)
    assert state.round is not None
    forged = D6InitCallback(f="x", v=0, a=D6InitAction.ATTACK, x=0, y=0).pack()
    _text, markup = last_screen(d6)
    real = D6InitCallback.unpack(init_button(markup, D6InitAction.ATTACK, "Атака"))
    for y in (0, 9):  # herself, nobody
        data = real.model_copy(update={"y": y}).pack()
        await d6.tap(ANNA, data, tracker)
        assert d6.session.answers[-1].show_alert
    await d6.tap(ANNA, forged, tracker)
    after = await state_of(d6)
    assert after.round == state.round


async def opened_attack(table: Table, faces: list[int]) -> tuple[int, object]:
    """Anna (меч 2; dice 5 4 4) attacks Boris (щит 3; dice 4 2) from the tracker."""
    await powers(table, ANNA.id, меч=2)
    await powers(table, BORIS.id, щит=3)
    table.rng = Dealt(5, 4, 4, 4, 2, *faces)
    await table.say(ANNA, "/init 3")
    await table.say(BORIS, "/init 2")
    tracker = tracker_id(table)
    _text, markup = last_screen(table)
    await table.tap(ANNA, init_button(markup, D6InitAction.ATTACK, "Атака"), tracker)
    _text, markup = last_screen(table)
    await table.tap(ANNA, init_button(markup, D6InitAction.ATTACK, "Boris"), tracker)
    return table.session.messages[-1].message_id, table.session.sent[-1].reply_markup


async def test_a_typed_chance_under_the_attack_takes_the_slowness_and_the_die(d6: Table) -> None:
    mid, markup = await opened_attack(d6, [6, 5, 6, 6, 6])
    defend = attack_button(markup, AttackAction.DEFEND, 3)
    await d6.tap(BORIS, defend, mid)
    after = await attack_state(d6, defend)
    assert len(after.defences[0].faces) == 2  # 3 pressed, slow by 1 (5 against 4)
    state = await state_of(d6)
    assert state.round is not None
    assert state.round.fighters[1].aside == (4,)


async def test_a_defence_taken_on_the_tracker_first_is_not_taken_twice(d6: Table) -> None:
    mid, markup = await opened_attack(d6, [6, 5, 6, 6, 6])
    tracker = tracker_id(d6)
    shown = next(e for e in reversed(d6.session.edits) if e.message_id == tracker).reply_markup
    await d6.tap(BORIS, init_button(shown, D6InitAction.DEFEND, "Защита"), tracker)
    before = await state_of(d6)
    assert before.round is not None
    assert before.round.fighters[1].aside == (4,)
    defend = attack_button(markup, AttackAction.DEFEND, 0)
    await d6.tap(BORIS, defend, mid)
    after = await attack_state(d6, defend)
    assert len(after.defences[0].faces) == 2  # щит 3, the slowness 1 of that step
    assert await state_of(d6) == before  # the die is not set aside again


async def test_a_defender_with_no_die_left_is_refused_and_the_armour_still_rolls(
    d6: Table,
) -> None:
    await powers(d6, ANNA.id, меч=2)
    await powers(d6, BORIS.id, щит=3)
    # Anna's dice 5 4, Boris's one die 6: Boris acts first, then Anna attacks him
    d6.rng = Dealt(5, 4, 6, 6, 6, 6)
    await d6.say(ANNA, "/init 2")
    await d6.say(BORIS, "/init 1")
    tracker = tracker_id(d6)
    _text, markup = last_screen(d6)
    await d6.tap(BORIS, init_button(markup, D6InitAction.ACT, "Действовать"), tracker)
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, init_button(markup, D6InitAction.ATTACK, "Атака"), tracker)
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, init_button(markup, D6InitAction.ATTACK, "Boris"), tracker)
    mid, attack = d6.session.messages[-1].message_id, d6.session.sent[-1].reply_markup
    defend = attack_button(attack, AttackAction.DEFEND, 0)
    await d6.tap(BORIS, defend, mid)
    assert d6.session.answers[-1].show_alert
    assert d6.session.answers[-1].text == "Кубиков инициативы не осталось."
    assert (await attack_state(d6, defend)).defences == ()
    await d6.tap(BORIS, attack_button(attack, AttackAction.ARMOUR, 1), mid)
    assert (await attack_state(d6, defend)).armour is not None


async def test_a_target_pressed_on_an_older_list_is_refused(d6: Table) -> None:
    d6.rng = Dealt(5, 4, 3)
    await d6.say(ANNA, "/init 1")
    await d6.say(BORIS, "/init 1")
    tracker = tracker_id(d6)
    _text, markup = last_screen(d6)
    await d6.tap(ANNA, init_button(markup, D6InitAction.ATTACK, "Атака"), tracker)
    _text, listed = last_screen(d6)
    await d6.say(VERA, "/init 1")  # the tracker changes under the list
    before = await state_of(d6)
    await d6.tap(ANNA, init_button(listed, D6InitAction.ATTACK, "Boris"), tracker)
    assert d6.session.answers[-1].show_alert
    assert await state_of(d6) == before


def test_a_one_tap_attack_rolls_the_powers_last_used_not_the_highest() -> None:
    import random

    from handlers.d6combat.attack.router import attack_from_tracker, last_powers
    from handlers.d6combat.tracker.steps import D6Side
    from rules.profiles import get
    from rules.sheet import new_sheet

    sheet = set_power(set_power(new_sheet(D6), "сабля", 3), "хитрость", 1)
    target = D6Side("u2", "Boris", BORIS.id, 3)
    used = D6Side("u1", "Anna", ANNA.id, 3, ("Хитрость",))
    fresh = D6Side("u1", "Anna", ANNA.id, 3)
    profile = get("d6")
    again = attack_from_tracker(profile, -5, used, target, (sheet, None), random.Random(1))
    best = attack_from_tracker(profile, -5, fresh, target, (sheet, None), random.Random(1))
    assert not isinstance(again, str)
    assert not isinstance(best, str)
    assert isinstance(again.state, D6AttackFlow)
    assert isinstance(best.state, D6AttackFlow)
    assert len(again.state.attack.faces) == 1
    assert len(best.state.attack.faces) == 3
    assert last_powers(sheet, ("меч",)) == ()  # a power no longer on the sheet: the highest
