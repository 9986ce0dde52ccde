"""The Mage round by the house sheet through the Dispatcher (docs/rules.md §B.2, §B.3, §B.11).

S4 «Защита от атаки: … неразыгранный заявленный защитный манёвр либо Прерывание - отмена не
разыгранных действий в обмен на любой защитный манёвр (бросок Силы Воли или трата 1 Силы
Воли)»; «контужен и пропускает текущий и следующий ход». The tracker moves on by itself when
an attack resolves, and each attacker's manoeuvre and weapon are kept for the next attack.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup

from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.attack.flow import DEFENCES, Defence
from handlers.combat.tracker.flow import InitFlow
from rules.combat.tracker import player_key
from rules.sheet import SheetSystem
from tests.handlers.combat.attack.test_attack import ANNA, BORIS, VERA, panel, press
from tests.handlers.conftest import Table, buttons
from tests.handlers.dealt import Dealt

DODGE = DEFENCES.index(Defence.DODGE)


def tracker(table: Table) -> tuple[int, str, InlineKeyboardMarkup | None]:
    sent = table.session.messages
    mid = next(m.message_id for m in sent if (m.text or "").startswith("⚔️ <b>Бой"))
    text, markup = next((m.text or "", m.reply_markup) for m in sent if m.message_id == mid)
    for edit in table.session.edits:
        if edit.message_id == mid:
            text, markup = edit.text, edit.reply_markup
    return mid, text, markup


async def tap_tracker(table: Table, user: object, label: str) -> None:
    mid, _text, markup = tracker(table)
    data = next((b.callback_data for b in buttons(markup) if label in b.text), None)
    assert data is not None, [b.text for b in buttons(markup)]
    await table.tap(user, data, mid)  # type: ignore[arg-type]


async def round_of_two(table: Table, *, vera_declares: str = "Заявлено") -> None:
    """Борис (initiative 9) acts first, Вера (2) after him; Вера has Willpower 3 and
    Stamina 1. Вера declares first (the lower initiative), with ``vera_declares``."""
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/set ловкость 4 смекалка 2 драка 3 сила 2 выносливость 2")
    await table.say(VERA, "/set ловкость 2 смекалка 3 уклонение 2 выносливость 1 сила воли 3")
    await table.say(BORIS, "/init 9")
    await table.say(VERA, "/init 1")
    await tap_tracker(table, ANNA, "Заявки")
    await tap_tracker(table, VERA, vera_declares)
    await tap_tracker(table, BORIS, "Заявлено")
    _mid, text, _markup = tracker(table)
    assert "▶️ Борис действует" in text


async def round_state(table: Table) -> InitFlow:
    loaded = await table.store.load_live(table.chat.id, "init")
    assert loaded is not None
    return loaded[0].state(InitFlow)


async def test_a_defence_not_declared_takes_an_interruption_and_the_declared_action(
    table: Table,
) -> None:
    await round_of_two(table)
    await tap_tracker(table, BORIS, "Атака")
    # Борис: 7 dice all hit; Вера's Willpower 3 dice: one success; her dodge (4 dice) fails;
    # damage 2 + 6 = 8 dice all miss; her soak (Stamina 1) misses.
    table.rng = Dealt([8] * 7 + [8, 2, 2] + [2] * 4 + [2] * 8 + [2])
    await press(table, BORIS, AtkAction.TARGET, 0)  # Вера: the one tap rolls the attack
    _mid, text, markup = panel(table)
    assert "Вера: защита не заявлена" in text
    labels = [b.text for b in buttons(markup)]
    assert "✋ 🏃 Уклонение · бросок Силы Воли" in labels
    assert "✋ 🏃 Уклонение · −1 Сила Воли" in labels
    mid, _text, markup = panel(table)
    flow_id = AtkCallback.unpack(buttons(markup)[0].callback_data or "").f
    flow = await table.store.load_flow(table.chat.id, flow_id)
    assert flow is not None
    dodge = AtkCallback(f=flow_id, v=flow.version, a=AtkAction.DEFEND, x=DODGE).pack()
    await table.tap(VERA, dodge, mid)  # a plain dodge is not hers to take
    assert "Прерыванием" in (table.session.answers[-1].text or "")
    _mid, text, _markup = panel(table)
    assert "Прерывание:" not in text  # nothing rolled, nothing paid
    await press(table, VERA, AtkAction.INTERRUPT, 2 * DODGE)
    _mid, text, markup = panel(table)
    assert markup is None  # damage and soak were rolled in the same tap
    assert "Прерывание: Вера бросает Силу Воли: <b>8</b> 2 2 — 1 успех" in text
    assert "Вера отменяет заявленные действия ради защиты." in text
    assert "Защита (уклонение): 2 2 2 2" in text
    _mid, text, _markup = tracker(table)
    assert "🏁" in text  # Вера's action went with the interruption; no «Дальше» tapped
    state = await round_state(table)
    assert state.round.acted(player_key(VERA.id))


async def test_a_failed_interruption_keeps_the_action_and_the_attack_comes_through(
    table: Table,
) -> None:
    await round_of_two(table)
    await tap_tracker(table, BORIS, "Атака")
    table.rng = Dealt([8] * 7 + [5, 2, 2] + [2] * 8 + [2])
    await press(table, BORIS, AtkAction.TARGET, 0)
    await press(table, VERA, AtkAction.INTERRUPT, 2 * DODGE)
    _mid, text, _markup = panel(table)
    assert "Прервать не удалось: Вера действует как заявлено." in text
    assert "Защита (" not in text
    _mid, text, _markup = tracker(table)
    assert "▶️ Вера действует" in text  # Борис's attack moved the round on by itself


async def test_a_point_of_willpower_interrupts_and_is_paid_with_the_attack(table: Table) -> None:
    await round_of_two(table)
    await tap_tracker(table, BORIS, "Атака")
    table.rng = Dealt([8] * 7 + [2] * 4 + [2] * 8 + [2])
    await press(table, BORIS, AtkAction.TARGET, 0)
    await press(table, VERA, AtkAction.INTERRUPT, 2 * DODGE + 1)
    _mid, text, _markup = panel(table)
    assert "Прерывание: Вера тратит пункт Силы Воли." in text
    sheet = await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert (sheet.willpower_current, sheet.willpower) == (2, 3)
    _mid, text, _markup = tracker(table)
    assert "🏁" in text


async def test_a_declared_defence_is_one_tap_and_its_turn_is_skipped(table: Table) -> None:
    await round_of_two(table, vera_declares="Защита")
    _mid, text, _markup = tracker(table)
    assert "заявлена защита" in text
    await tap_tracker(table, BORIS, "Атака")
    table.rng = Dealt([8] * 7 + [9, 9, 2, 2] + [2] * 6 + [2])
    await press(table, BORIS, AtkAction.TARGET, 0)
    _mid, _text, markup = panel(table)
    assert "🏃 Уклонение" in [b.text for b in buttons(markup)]
    await press(table, VERA, AtkAction.DEFEND, DODGE)
    _mid, text, markup = panel(table)
    assert markup is None
    assert "Защита (уклонение): <b>9</b> <b>9</b> 2 2 — 2 успеха" in text
    _mid, text, _markup = tracker(table)
    assert "🏁" in text  # Вера's defence is not a turn of its own
    assert "заявлена защита" not in text  # used up by the attack


async def test_a_stun_skips_this_round_and_the_next(table: Table) -> None:
    await round_of_two(table, vera_declares="Защита")
    await tap_tracker(table, BORIS, "Атака")
    # 7 hits; Вера's dodge fails; damage 8 dice, two hit; the soak misses: 2 > Stamina 1.
    table.rng = Dealt([8] * 7 + [2] * 4 + [9, 9] + [2] * 6 + [2])
    await press(table, BORIS, AtkAction.TARGET, 0)
    await press(table, VERA, AtkAction.DEFEND, DODGE)
    _mid, text, _markup = panel(table)
    assert "Контузия" in text
    _mid, text, _markup = tracker(table)
    assert "💫" in text
    await tap_tracker(table, ANNA, "Новый раунд")
    _mid, text, _markup = tracker(table)
    assert "✍️ Борис заявляет" in text  # Вера, stunned, declares nothing
    await tap_tracker(table, BORIS, "Заявлено")
    _mid, text, _markup = tracker(table)
    assert "▶️ Борис действует" in text
    await tap_tracker(table, BORIS, "Дальше")
    _mid, text, _markup = tracker(table)
    assert "🏁" in text  # Вера's action of round 2 was skipped
    await tap_tracker(table, ANNA, "Новый раунд")
    _mid, text, _markup = tracker(table)
    assert "✍️ Вера заявляет" in text  # round 3: the stun is over
    assert "💫" not in text


async def test_a_stun_typed_with_dmg_skips_the_fighter_too(table: Table) -> None:
    await round_of_two(table)
    await table.say(ANNA, "/dmg 3 у", reply_to=VERA)
    _mid, text, _markup = tracker(table)
    assert "💫" in text
    await tap_tracker(table, BORIS, "Дальше")
    _mid, text, _markup = tracker(table)
    assert "🏁" in text  # Вера, stunned, does not act


async def test_the_weapon_and_manoeuvre_are_kept_for_the_next_attack(table: Table) -> None:
    await round_of_two(table)
    await tap_tracker(table, BORIS, "Атака")
    await press(table, BORIS, AtkAction.WEAPON, 3)
    await press(table, BORIS, AtkAction.ABILITY)  # Драка → Фехтование
    table.rng = Dealt([2] * 7)  # a miss
    await press(table, BORIS, AtkAction.TARGET, 0)
    await table.say(BORIS, "/atk")
    _mid, text, markup = panel(table)
    assert "Удар (Фехтование)" in text
    data = buttons(markup)[0].callback_data or ""
    flow = await table.store.load_flow(table.chat.id, AtkCallback.unpack(data).f)
    assert flow is not None
    assert (flow.data["manoeuvre"], flow.data["weapon"]) == ("strike", 3)
    await press(table, BORIS, AtkAction.CANCEL)
    await table.say(VERA, "/atk")  # another attacker starts from the fist
    _mid, _text, markup = panel(table)
    flow = await table.store.load_flow(table.chat.id, AtkCallback.unpack(data).f)
    assert flow is not None
    assert (flow.data["manoeuvre"], flow.data["weapon"]) == ("strike", 0)


async def test_a_soak_after_dmg_that_saves_from_the_stun_gives_the_turn_back(
    table: Table,
) -> None:
    await round_of_two(table)
    await table.say(ANNA, "/dmg 2 у", reply_to=VERA)  # 2 > Stamina 1: stunned, soak pending
    _mid, text, _markup = tracker(table)
    assert "💫" in text
    wound = next(m for m in reversed(table.session.messages) if "Поглотить" in str(m.reply_markup))
    assert wound.reply_markup is not None
    table.rng = Dealt([9])  # the one soak die succeeds: 1 level left, not more than Stamina
    await table.tap(VERA, buttons(wound.reply_markup)[0].callback_data or "", wound.message_id)
    _mid, text, _markup = tracker(table)
    assert "💫" not in text
    await tap_tracker(table, BORIS, "Дальше")
    _mid, text, _markup = tracker(table)
    assert "▶️ Вера действует" in text


async def test_an_interruption_for_a_point_not_there_changes_nothing(table: Table) -> None:
    await round_of_two(table)
    await tap_tracker(table, BORIS, "Атака")
    await table.store.update_sheet(  # the points go after the panel read the sheet
        table.chat.id,
        VERA.id,
        SheetSystem.MAGE,
        lambda sheet: sheet.model_copy(update={"willpower_current": 0}),
    )
    table.rng = Dealt([8] * 7 + [2] * 4 + [2] * 8 + [2])
    await press(table, BORIS, AtkAction.TARGET, 0)
    before = panel(table)[1]
    await press(table, VERA, AtkAction.INTERRUPT, 2 * DODGE + 1)
    assert table.session.answers[-1].show_alert
    assert "(0 из 3)" in (table.session.answers[-1].text or "")
    assert panel(table)[1] == before
    sheet = await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == ()
