"""``/atk`` through the Dispatcher: the attack chain on one panel (docs/rules.md §B.3–§B.10)."""

from __future__ import annotations

import random
import re

from aiogram.types import InlineKeyboardMarkup

from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.tracker.flow import InitFlow
from rules.combat.tracker import player_key
from rules.health import DamageType
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.dealt import Dealt

ANNA = player(1, "Аня")  # the chat's administrator: runs the game
BORIS = player(2, "Борис")
VERA = player(3, "Вера")


def panel(table: Table) -> tuple[int, str, InlineKeyboardMarkup | None]:
    sent = [m for m in table.session.messages if "Атака" in (m.text or "")]
    assert sent, [m.text for m in table.session.messages]
    mid = sent[-1].message_id
    text, markup = sent[-1].text or "", sent[-1].reply_markup
    for edit in table.session.edits:
        if edit.message_id == mid:
            text, markup = edit.text, edit.reply_markup
    return mid, text, markup


async def press(table: Table, user: object, action: AtkAction, x: int | None = None) -> str:
    mid, _text, markup = panel(table)
    for button in buttons(markup):
        data = button.callback_data or ""
        parsed = AtkCallback.unpack(data)
        if parsed.a is action and (x is None or parsed.x == x):
            await table.tap(user, data, mid)  # type: ignore[arg-type]
            return data
    raise AssertionError(f"no {action} button")


async def fight(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/set ловкость 4 смекалка 2 драка 3 сила 2 выносливость 2 уклонение 1")
    await table.say(VERA, "/set ловкость 2 смекалка 3 уклонение 2 выносливость 1")
    await table.say(BORIS, "/init")
    await table.say(VERA, "/init")
    await table.say(ANNA, "/init npc Гуль 5")


async def test_no_fight_no_attack(table: Table) -> None:
    await table.say(BORIS, "/atk")
    assert "/init" in table.session.sent[-1].text


async def test_an_attack_runs_the_whole_chain_on_one_panel(table: Table) -> None:
    await fight(table)
    for seed in range(40):  # until an attack lands: the dice decide, the chain is the test
        table.rng = random.Random(seed)
        await table.say(BORIS, "/atk")
        _mid, text, _markup = panel(table)
        assert "Борис →" in text
        assert "Удар (Драка): 7к10, сложность 6" in text
        await press(table, VERA, AtkAction.TARGET, 0)  # not Вера's attack
        assert "Рассказчик" in (table.session.answers[-1].text or "")
        await press(table, BORIS, AtkAction.TARGET, 0)  # Вера: the attack is rolled at once
        _mid, text, _markup = panel(table)
        if "защищается" not in text:
            continue
        await table.say(VERA, "/atk")
        assert "ещё" in table.session.sent[-1].text  # one attack at a time on the panel
        await press(table, BORIS, AtkAction.DEFEND, 1)  # not Борис's defence
        assert "Рассказчик" in (table.session.answers[-1].text or "")
        await press(table, VERA, AtkAction.DEFEND, 1)
        _mid, text, _markup = panel(table)
        assert "Защита (уклонение)" in text
        _mid, text, markup = panel(table)
        assert markup is None  # damage and the soak are rolled with the defence
        if "Попадание" not in text:
            continue
        assert "Урон:" in text
        assert "Поглощение:" in text  # bashing: Вера soaks with Stamina
        levels = int(re.search(r"получает (\d+)", text).group(1))  # type: ignore[union-attr]
        sheet = await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE)
        assert sheet is not None
        assert sheet.health.boxes == (DamageType.BASHING,) * levels
        if levels:
            break
    else:
        raise AssertionError("no attack landed in 40 tries")
    panels = [m for m in table.session.sent if "Атака" in m.text]
    assert len(panels) == 1  # every attack reused the one panel
    await table.say(VERA, "/atk")
    _mid, text, _markup = panel(table)
    assert text.startswith("· ")  # the earlier attacks, one line each, above the new one
    assert "Вера →" in text


async def test_storyteller_attacks_as_an_npc_and_players_cannot(table: Table) -> None:
    await fight(table)
    await table.say(BORIS, "/atk npc Гуль")
    assert "Рассказчик" in table.session.sent[-1].text
    await table.say(ANNA, "/atk npc Дракон")
    assert "Дракон" in table.session.sent[-1].text
    await table.say(ANNA, "/atk npc Гуль")
    _mid, text, _markup = panel(table)
    assert "Гуль →" in text
    await press(table, ANNA, AtkAction.REACH, 1)
    _mid, text, _markup = panel(table)
    assert "Выстрел" in text
    await press(table, ANNA, AtkAction.CANCEL)
    _mid, text, markup = panel(table)
    assert "отменена" in text
    assert markup is None


async def test_forged_attack_buttons_change_nothing(table: Table) -> None:
    await fight(table)
    await table.say(BORIS, "/atk")
    mid, _text, markup = panel(table)
    flow_id = AtkCallback.unpack(buttons(markup)[0].callback_data or "").f
    before = await table.store.load_flow(table.chat.id, flow_id)
    assert before is not None
    for action in AtkAction:
        if action in (AtkAction.CANCEL, AtkAction.ATTACK):
            continue
        for x in (-1, 99, 10**6):
            forged = AtkCallback(f=flow_id, v=before.version, a=action, x=x).pack()
            await table.tap(BORIS, forged, mid)
            await table.tap(VERA, forged, mid)
    after = await table.store.load_flow(table.chat.id, flow_id)
    assert after is not None
    # only the cycling toggles (which ignore x) could have moved it; no roll happened
    assert after.data["attack"] is None
    assert after.data["stage"] == "setup"


async def test_the_trackers_attack_button_opens_the_panel_for_whoever_acts(table: Table) -> None:
    await fight(table)
    tracker = next(m for m in table.session.messages if "⚔️" in (m.text or ""))

    def tracker_data(label: str) -> str:
        markup = tracker.reply_markup
        for edit in table.session.edits:
            if edit.message_id == tracker.message_id:
                markup = edit.reply_markup
        return next(b.callback_data or "" for b in buttons(markup) if label in b.text)

    await table.tap(ANNA, tracker_data("Заявки"), tracker.message_id)
    for _ in range(3):
        await table.tap(ANNA, tracker_data("Заявлено"), tracker.message_id)
    text = next(e.text for e in reversed(table.session.edits) if e.message_id == tracker.message_id)
    acting = re.search(r"▶️ (.+?) действует", text)
    assert acting is not None
    outsider = VERA if acting.group(1) != "Вера" else BORIS
    await table.tap(outsider, tracker_data("Атака"), tracker.message_id)
    assert "черёд" in (table.session.answers[-1].text or "")
    await table.tap(ANNA, tracker_data("Атака"), tracker.message_id)
    _mid, text, _markup = panel(table)
    assert text.startswith(f"⚔️ <b>Атака</b>: {acting.group(1)} →")


async def test_desperate_defence_holds_for_the_turn_a_die_less_each_attack(table: Table) -> None:
    """§B.4 «Один защитный маневр на весь ход против всех атак, с полным набором кубов,
    отнимая от него по 1 кубу за каждую получаемую атаку»."""
    await fight(table)
    # Борис: 7 dice, all hit; Вера's desperate dodge: 4 dice (Ловкость 2 + Уклонение 2), two
    # succeed; damage: Сила 2 + 4 net − 1 → 6 dice that all miss.
    table.rng = Dealt([8] * 7 + [9, 9, 2, 2] + [2] * 6 + [2])
    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.TARGET, 0)
    _mid, _text, markup = panel(table)
    labels = [b.text for b in buttons(markup)]
    assert "🏃🏃 Отчаянное уклонение" in labels
    await press(table, VERA, AtkAction.DEFEND, 3)
    _mid, text, _markup = panel(table)
    assert "Защита (отчаянное уклонение): <b>9</b> <b>9</b> 2 2 — 2 успеха" in text
    await table.say(VERA, "/atk")
    assert "в отчаянной защите на этот ход и больше ничего не делает" in (
        table.session.sent[-1].text
    )
    table.rng = Dealt([8] * 7 + [9, 9, 9])
    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.TARGET, 0)
    _mid, text, markup = panel(table)
    assert "Вера — в отчаянной защите на этот ход (отчаянное уклонение): 2-я атака за ход" in text
    assert [b.text for b in buttons(markup)] == ["🛡 отчаянное уклонение (3к10)", "✖ Отменить"]
    mid, _text, markup = panel(table)
    flow_id = AtkCallback.unpack(buttons(markup)[0].callback_data or "").f
    flow = await table.store.load_flow(table.chat.id, flow_id)
    assert flow is not None
    dodge = AtkCallback(f=flow_id, v=flow.version, a=AtkAction.DEFEND, x=1).pack()
    await table.tap(VERA, dodge, mid)
    assert "только отчаянная защита" in (table.session.answers[-1].text or "")
    await press(table, VERA, AtkAction.DEFEND, 3)
    _mid, text, _markup = panel(table)
    assert "Защита (отчаянное уклонение): <b>9</b> <b>9</b> <b>9</b> — 3 успеха" in text


async def blind_shot(table: Table, faces: list[int]) -> str:
    """Борис opens the panel and picks blind fire (§B.6); returns the data of Вера's button,
    which shoots."""
    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.REACH, 1)
    await press(table, BORIS, AtkAction.MANOEUVRE, 3)
    table.rng = Dealt(faces)
    _mid, text, markup = panel(table)
    assert "Стрельба вслепую" in text
    return next(
        b.callback_data or ""
        for b in buttons(markup)
        if AtkCallback.unpack(b.callback_data or "").a is AtkAction.TARGET
    )


async def test_blind_fire_rolls_perception_first_and_a_miss_means_no_shot(table: Table) -> None:
    """AMB-B12: «Восприятие+Осведомлённость (сложность 8)» gates the shot."""
    await fight(table)
    await table.say(BORIS, "/set огнестрельное оружие 2 восприятие 3 осведомлённость 1")
    data = await blind_shot(table, [7, 7, 2, 1, 9, 9])
    _mid, text, _markup = panel(table)
    assert "сначала Восприятие + Осведомлённость, 4к10 на сложности 8" in text
    mid, _text, _markup = panel(table)
    await table.tap(VERA, data, mid)  # not Вера's shot
    assert "Рассказчик" in (table.session.answers[-1].text or "")
    await table.tap(BORIS, data, mid)
    _mid, text, markup = panel(table)
    assert "Восприятие + Осведомлённость: 7 7 2 <s>1</s> — 0 успехов" in text
    assert "Борис не различает цель в темноте: выстрела нет." in text
    assert "Атака: " not in text
    assert markup is None
    await table.tap(BORIS, data, mid)  # the same press again rolls nothing more
    assert table.rng.faces == [9, 9]  # type: ignore[attr-defined]
    assert text.count("Восприятие + Осведомлённость:") == 1


async def test_blind_fire_seen_goes_on_to_the_shot(table: Table) -> None:
    await fight(table)
    await table.say(BORIS, "/set огнестрельное оружие 2 восприятие 3 осведомлённость 1")
    data = await blind_shot(table, [8, 2, 2, 2, 9, 9, 9, 2, 2, 2])
    mid, _text, _markup = panel(table)
    await table.tap(BORIS, data, mid)
    _mid, text, _markup = panel(table)
    assert "Восприятие + Осведомлённость: <b>8</b> 2 2 2 — 1 успех" in text
    assert "Атака: <b>9</b> <b>9</b> <b>9</b> 2 2 2 — 3 успеха" in text  # difficulty 6 + 3
    assert "Вера защищается" in text


async def test_blind_fire_without_the_dice_is_refused_before_any_roll(table: Table) -> None:
    await fight(table)
    await table.say(BORIS, "/set огнестрельное оружие 2")
    data = await blind_shot(table, [9, 9, 9])
    _mid, text, _markup = panel(table)
    assert "⛔ Борис: нет кубиков на Восприятие + Осведомлённость" in text
    mid, _text, _markup = panel(table)
    await table.tap(BORIS, data, mid)
    assert "стрелять вслепую не выйдет" in (table.session.answers[-1].text or "")
    assert table.rng.faces == [9, 9, 9]  # type: ignore[attr-defined]


async def test_a_sweep_that_hits_knocks_the_target_down_even_when_all_is_soaked(
    table: Table,
) -> None:
    """S4 «Подсечка … (нокдаун)», «Нокдаун: противник падает»: the hit puts the target on
    the ground, on the sheet and on the tracker, in the step that shows it, with no damage
    needed."""
    await fight(table)
    # Борис: Ловкость 4 + Драка 3 = 7 dice at 6 + 1, all hit; Вера's dodge (4 dice) fails;
    # damage: Сила 2 + 6 → 8 dice, all miss; Вера soaks with Stamina 1.
    table.rng = Dealt([8] * 7 + [2] * 4 + [2] * 8 + [2])
    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.MANOEUVRE, 2)
    _mid, text, _markup = panel(table)
    assert "Подсечка" in text
    await press(table, BORIS, AtkAction.TARGET, 0)
    await press(table, VERA, AtkAction.DEFEND, 1)
    _mid, text, markup = panel(table)
    assert markup is None
    assert "🛡 Урон полностью поглощён." in text
    assert "🤸 Нокдаун: Вера на земле." in text, text
    sheet = await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert [c.value for c in sheet.conditions] == ["prone"]
    loaded = await table.store.load_live(table.chat.id, "init")
    assert loaded is not None
    fallen = loaded[0].state(InitFlow).round.fighter(player_key(VERA.id))
    assert fallen is not None
    assert [c.value for c in fallen.conditions] == ["prone"]

    # A shove on one already down keeps one knockdown.
    table.rng = Dealt([8] * 7 + [2] * 4 + [2] * 8 + [2])
    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.MANOEUVRE, 3)
    await press(table, BORIS, AtkAction.TARGET, 0)
    await press(table, VERA, AtkAction.DEFEND, 1)
    sheet = await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert [c.value for c in sheet.conditions] == ["prone"]


async def test_a_plain_strike_knocks_nobody_down(table: Table) -> None:
    await fight(table)
    table.rng = Dealt([8] * 7 + [2] * 4 + [9] * 9 + [2])
    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.TARGET, 0)
    await press(table, VERA, AtkAction.DEFEND, 1)
    _mid, text, _markup = panel(table)
    assert "получает" in text
    assert "Нокдаун" not in text
    sheet = await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert not sheet.conditions


async def test_an_ambush_resolves_in_the_attackers_one_tap(table: Table) -> None:
    """AMB-B14: the ambush victim has no defence to choose, so the target's button rolls the
    attack, the damage and the soak, and the wound lands (docs/rules.md §B.2, §B.7)."""
    await fight(table)
    # 7 hits; damage Сила 2 + 6 → 8 dice, 3 hit; Вера soaks 1 of them with Stamina 1.
    table.rng = Dealt([8] * 7 + [9, 9, 9] + [2] * 5 + [7])
    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.AMBUSH)
    await press(table, BORIS, AtkAction.TARGET, 0)
    _mid, text, markup = panel(table)
    assert "🥷 Засада: цель не защищается." in text
    assert "Урон: <b>9</b> <b>9</b> <b>9</b> 2 2 2 2 2 — 3 успеха" in text
    assert "Поглощение: <b>7</b> — 1 успех" in text
    assert "Вера получает 2 уровня ударного урона" in text
    assert markup is None
    sheet = await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == (DamageType.BASHING,) * 2


async def test_the_approach_button_names_the_dice_the_table_gives(table: Table) -> None:
    """§B.7: flank +2 and rear +1 as written; the house's swap turns the buttons round too."""
    await fight(table)

    def labels() -> list[str]:
        _mid, _text, markup = panel(table)
        return [
            b.text
            for b in buttons(markup)
            if AtkCallback.unpack(b.callback_data or "").a is AtkAction.APPROACH
        ]

    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.APPROACH)
    assert labels() == ["↗ фланг +2"]
    await press(table, BORIS, AtkAction.APPROACH)
    assert labels() == ["↩ тыл +1"]
    await press(table, BORIS, AtkAction.CANCEL)
    await table.say(ANNA, "/rules set combat.swap_rear_flank=on")
    await table.say(BORIS, "/atk")
    await press(table, BORIS, AtkAction.APPROACH)
    _mid, text, _markup = panel(table)
    assert "Удар (Драка): 8к10" in text
    assert labels() == ["↗ фланг +1"]
    await press(table, BORIS, AtkAction.APPROACH)
    _mid, text, _markup = panel(table)
    assert "Удар (Драка): 9к10" in text
    assert labels() == ["↩ тыл +2"]
