"""The terms of an Effect settled under its cast, through the chat: the mage among the
targets (AMB-C8), a permanent Effect and the successes it needs (AMB-C9, §C.6), the place and
the contact of a Correspondence link (§C.8), and how long Мороки last after a Backlash
(§C.14, AMB-C15). Each follows the table's house rule when the Storyteller flips it."""

from __future__ import annotations

from handlers.magick.callbacks import MagickAction, MagickCallback
from handlers.magick.flow import EffectFlow
from rules import magick
from table.store import Store
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.magick.test_magick_vectors import Dealt, cast, plain, press, shown

ANNA = player(1, "Аня")
BORIS = player(2, "Борис")
ALLOCATE, CORRESPONDENCE = 1, 2  # the panels' numbers on the buttons
AREA, DISTANCE, DURATION = 2, 3, 1  # the parts' numbers


def text_of(table: Table, mid: int) -> str:
    return plain(shown(table, mid)[0])


def labels(table: Table, mid: int) -> list[str]:
    return [b.text for b in buttons(shown(table, mid)[1])]


async def house_rule(table: Table, setting: str) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, f"/rules set {setting}")
    assert "изменены" in table.session.sent[-1].text, table.session.sent[-1].text


async def state_of(store: Store, table: Table, mid: int) -> EffectFlow:
    data = MagickCallback.unpack(buttons(shown(table, mid)[1])[0].callback_data or "")
    flow = await store.load_flow(table.chat.id, data.f)
    assert flow is not None
    return flow.state(EffectFlow)


async def test_the_mage_in_the_area_is_free_or_counted_as_the_table_reads_it(table: Table) -> None:
    await table.say(ANNA, "/set арете 4")
    mid = await cast(table, "/m 1", [9, 9, 9, 2])  # three successes
    await press(table, ANNA, mid, MagickAction.PANEL, ALLOCATE)
    for _ in range(3):
        await press(table, ANNA, mid, MagickAction.ADD, AREA)
    assert "🎯 цели: 3\n" in text_of(table, mid)  # nobody said the mage stands there
    assert "🧙 маг тоже в зоне" in labels(table, mid)
    await press(table, ANNA, mid, MagickAction.MAGE_TOO)
    assert "🎯 цели: 3 → маг и ещё 3 цели" in text_of(table, mid)  # the book: the mage is free
    assert "[🧙 маг тоже в зоне]" in labels(table, mid)
    await house_rule(table, "magick.area_counts_mage=on")
    await press(table, ANNA, mid, MagickAction.MAGE_TOO)  # off, and on again: a redraw
    assert "🎯 цели: 3\n" in text_of(table, mid)
    await press(table, ANNA, mid, MagickAction.MAGE_TOO)
    text = text_of(table, mid)
    assert "🎯 цели: 3 → маг и ещё 2 цели" in text, text
    assert "🏠" in text
    assert "Маг считается целью" in text
    await press(table, ANNA, mid, MagickAction.TAKE, AREA)
    await press(table, ANNA, mid, MagickAction.TAKE, AREA)
    assert "🎯 цели: 1 → только маг" in text_of(table, mid)  # one more beside the mage: 2


async def test_a_permanent_effect_asks_twice_the_magnitude_or_ten_on_duration(
    table: Table,
) -> None:
    await table.say(ANNA, "/set арете 4")
    mid = await cast(table, "/m 1", [9, 9, 9, 2])  # three successes
    await press(table, ANNA, mid, MagickAction.PANEL, ALLOCATE)
    assert "🎚 Эффекту нужно: 1  ＋" in labels(table, mid)
    await press(table, ANNA, mid, MagickAction.PERMANENT)
    assert "⏳ длительность: 0 → навсегда" in text_of(table, mid)  # 3 ≥ 2 × 1
    assert "[♾ навсегда]" in labels(table, mid)
    await press(table, ANNA, mid, MagickAction.MAGNITUDE, 1)
    text = text_of(table, mid)
    assert "⏳ длительность: 0 → мгновение (навсегда — от 4 успехов всего)" in text, text
    assert "🎚 Эффекту нужно: 2  ＋" in labels(table, mid)
    await press(table, ANNA, mid, MagickAction.MAGNITUDE, 1)
    await press(table, ANNA, mid, MagickAction.MAGNITUDE, 1)
    assert "⛔ Эффекту нужно 4: успехов не хватает, он не удался." in text_of(table, mid)
    for _ in range(3):
        await press(table, ANNA, mid, MagickAction.MAGNITUDE, 0)
    assert "⛔" not in text_of(table, mid)
    await press(table, ANNA, mid, MagickAction.MAGNITUDE, 0)
    floor = table.session.answers[-1]
    assert floor.show_alert
    assert "хотя бы один успех" in (floor.text or "")
    await press(table, ANNA, mid, MagickAction.ADD, DURATION)
    await house_rule(table, "magick.permanent_duration_rule=ten_on_duration")
    await press(table, ANNA, mid, MagickAction.TAKE, DURATION)
    text = text_of(table, mid)
    assert "длительность: 0 → мгновение (навсегда — 10 успехов на длительность)" in text, text
    await table.say(ANNA, "/set арете 10")
    mid = await cast(table, "/m 1")  # ten successes
    await press(table, ANNA, mid, MagickAction.PANEL, ALLOCATE)
    await press(table, ANNA, mid, MagickAction.PERMANENT)
    for _ in range(9):
        await press(table, ANNA, mid, MagickAction.ADD, DURATION)
    assert "длительность: 9 → сколько разрешит" in text_of(table, mid)
    await press(table, ANNA, mid, MagickAction.ADD, DURATION)
    assert "⏳ длительность: 10 → навсегда" in text_of(table, mid)


async def test_a_correspondence_link_by_place_and_contact(table: Table) -> None:
    await table.say(ANNA, "/set арете 4 связи 3")
    mid = await cast(table, "/m связи 3", [9, 9, 9, 2])  # three successes
    await press(table, ANNA, mid, MagickAction.PANEL, CORRESPONDENCE)
    assert "Выберите место и контакт" in text_of(table, mid)
    assert "📍5 знакомое по описанию" in labels(table, mid)
    assert "🔗2 важная вещь, близкий друг" in labels(table, mid)
    await press(table, ANNA, mid, MagickAction.LINK_PLACE, 4)
    text = text_of(table, mid)
    assert "🔗 Связь: место, знакомое по описанию — нужно 5 успехов" in text, text
    assert "Нужно успехов на расстояние: 5\n" in text
    assert "[📍5 знакомое по описанию]" in labels(table, mid)
    await press(table, ANNA, mid, MagickAction.LINK_CONTACT, 1)
    text = text_of(table, mid)
    assert "Нужно успехов на расстояние: 2 — решает лучшая связь" in text, text
    assert "⛔ На расстояние отдано: 0, не хватает ещё 2." in text
    await press(table, ANNA, mid, MagickAction.PANEL, 0)
    await press(table, ANNA, mid, MagickAction.PANEL, ALLOCATE)
    await press(table, ANNA, mid, MagickAction.ADD, DISTANCE)
    assert "📍 расстояние: 1 → в пределах взгляда · образец тела · связи нужно 2 ⛔" in (
        text_of(table, mid)
    )
    await press(table, ANNA, mid, MagickAction.ADD, DISTANCE)
    assert "· связи нужно 2 ✅" in text_of(table, mid)
    await press(table, ANNA, mid, MagickAction.PANEL, 0)
    await press(table, ANNA, mid, MagickAction.PANEL, CORRESPONDENCE)
    assert "✅ На расстояние отдано: 2, хватает." in text_of(table, mid)
    await house_rule(table, "magick.correspondence_better_link=off")
    await press(table, ANNA, mid, MagickAction.LINK_CONTACT, 1)  # taken back
    assert "Нужно успехов на расстояние: 5\n" in text_of(table, mid)
    await press(table, ANNA, mid, MagickAction.LINK_CONTACT, 1)
    text = text_of(table, mid)
    assert "Нужно успехов на расстояние: 5 — дотянуться нужно через обе" in text, text
    assert "⛔ На расстояние отдано: 2, не хватает ещё 3." in text
    await press(table, ANNA, mid, MagickAction.LINK_PLACE, 4)  # the place taken back
    assert "Нужно успехов на расстояние: 2\n" in text_of(table, mid)
    state = await state_of(table.store, table, mid)
    assert (state.link_place, state.link_contact) == (None, magick.Contact.IMPORTANT_POSSESSION)


async def test_the_backlash_says_how_long_the_haunts_last(table: Table) -> None:
    await table.say(ANNA, "/set арете 3 выносливость 2")
    mid = await cast(table, "/m 3 вульг", [9, 9, 2])  # +3 Paradox
    table.rng = Dealt([7, 7, 7, 2, 2, 2])  # type: ignore[assignment]
    await press(table, ANNA, mid, MagickAction.BACKLASH)
    text = text_of(table, mid)
    assert "разряжено: 3, на треке остаётся: 0" in text
    assert "Мороки" not in text  # nothing left unreleased
    mid = await cast(table, "/m 3 вульг", [9, 9, 2])
    table.rng = Dealt([7, 2, 2, 2, 2])  # type: ignore[assignment]
    await press(table, ANNA, mid, MagickAction.BACKLASH)
    text = text_of(table, mid)
    assert "👻 Мороки будут преследовать мага 2 дня — по числу Парадокса" in text, text
    await house_rule(table, "magick.haunt_unit=months")
    mid = await cast(table, "/m 3 вульг", [9, 9, 2])  # 2 + 3 on the wheel
    table.rng = Dealt([7, 2, 2, 2, 2, 2, 2])  # type: ignore[assignment]
    await press(table, ANNA, mid, MagickAction.BACKLASH)
    text = text_of(table, mid)
    assert "👻 Мороки будут преследовать мага 4 месяца" in text, text
    assert "Единица Мороков: месяцы" in text


async def test_someone_elses_taps_and_forged_buttons_change_nothing(table: Table) -> None:
    await table.say(ANNA, "/set арете 4")
    mid = await cast(table, "/m 1", [9, 9, 9, 2])
    await press(table, ANNA, mid, MagickAction.PANEL, ALLOCATE)
    before = await state_of(table.store, table, mid)
    edits = len(table.session.edits)
    for action in (MagickAction.MAGE_TOO, MagickAction.PERMANENT, MagickAction.MAGNITUDE):
        await press(table, BORIS, mid, action, 1 if action is MagickAction.MAGNITUDE else 0)
        refused = table.session.answers[-1]
        assert refused.show_alert
        assert "чужой Эффект" in (refused.text or "")
    probe = MagickCallback.unpack(buttons(shown(table, mid)[1])[0].callback_data or "")

    async def forged(action: MagickAction, x: int) -> str:
        data = MagickCallback(f=probe.f, v=probe.v, a=action, x=x).pack()
        await table.tap(ANNA, data, mid)
        return table.session.answers[-1].text or ""

    assert "недействительна" in await forged(MagickAction.MAGNITUDE, 2)
    assert "недействительна" in await forged(MagickAction.LINK_PLACE, 6)
    assert "недействительна" in await forged(MagickAction.LINK_CONTACT, -1)
    await press(table, ANNA, mid, MagickAction.PANEL, 0)
    probe = MagickCallback.unpack(buttons(shown(table, mid)[1])[0].callback_data or "")
    assert "недействительна" in await forged(MagickAction.MAGE_TOO, 0)  # the panel is shut
    assert "недействительна" in await forged(MagickAction.PERMANENT, 0)
    edits += 1  # the one «Назад»
    assert len(table.session.edits) == edits
    after = await state_of(table.store, table, mid)
    assert after.model_copy(update={"panel": before.panel}) == before
    await press(table, ANNA, mid, MagickAction.PANEL, ALLOCATE)
    table.session.admins.add(BORIS.id)  # the Storyteller names the successes the Effect needs
    await press(table, BORIS, mid, MagickAction.MAGNITUDE, 1)
    assert "🎚 Эффекту нужно: 2  ＋" in labels(table, mid)
    await press(table, BORIS, mid, MagickAction.MAGE_TOO)  # the caster's choice, not theirs
    assert "чужой Эффект" in (table.session.answers[-1].text or "")
    await press(table, ANNA, mid, MagickAction.PANEL, 0)
    await press(table, ANNA, mid, MagickAction.PANEL, CORRESPONDENCE)
    await press(table, BORIS, mid, MagickAction.LINK_PLACE, 0)
    assert "чужой Эффект" in (table.session.answers[-1].text or "")
    assert (await state_of(table.store, table, mid)).link_place is None
    await table.say(ANNA, "/m")  # a wizard not cast yet has no terms to settle
    wizard = table.session.messages[-1].message_id
    probe = MagickCallback.unpack(buttons(shown(table, wizard)[1])[0].callback_data or "")
    for action in (MagickAction.MAGE_TOO, MagickAction.LINK_PLACE):
        data = MagickCallback(f=probe.f, v=probe.v, a=action, x=0).pack()
        await table.tap(ANNA, data, wizard)
        assert "недействительна" in (table.session.answers[-1].text or "")


async def test_a_ritual_needs_the_successes_it_gathered_toward(table: Table) -> None:
    """§C.10: a ritual's target is its Effect's magnitude, typed or chosen by «Продлить»."""
    await table.say(ANNA, "/set арете 4")
    mid = await cast(table, "/m 1 цель 5")  # tens: 4, then 8 of 5
    await press(table, ANNA, mid, MagickAction.NEXT_ROLL)
    await press(table, ANNA, mid, MagickAction.PANEL, ALLOCATE)
    assert "🎚 Эффекту нужно: 5  ＋" in labels(table, mid)
    await press(table, ANNA, mid, MagickAction.PERMANENT)
    assert "(навсегда — от 10 успехов всего)" in text_of(table, mid)
    mid = await cast(table, "/m 1")
    await press(table, ANNA, mid, MagickAction.EXTEND)
    await press(table, ANNA, mid, MagickAction.EXTEND, 10)
    await press(table, ANNA, mid, MagickAction.NEXT_ROLL)
    await press(table, ANNA, mid, MagickAction.NEXT_ROLL)
    await press(table, ANNA, mid, MagickAction.PANEL, ALLOCATE)
    assert "🎚 Эффекту нужно: 10  ＋" in labels(table, mid)
