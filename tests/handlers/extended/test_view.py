"""The extended action's message drawn without a bot: each roll, the progress, the rolls
left, a botch that starts over, done, stopped."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.extended import view
from handlers.extended.flow import begin
from rules import d10, profiles
from table.store import Flow
from tests.handlers.views import buttons, speaking

MAGE = profiles.HOUSE_MAGE
FLOW = Flow(id="F", kind="ext", chat_id=-1, owner_id=1, version=3, data={})


def roll(*faces: int) -> d10.D10Result:
    return d10.resolve(list(faces), 6, MAGE)


FIRST = begin("Аня & <к>", 4, 6, 7, 3, roll(9, 8, 2, 1), MAGE)


def test_rolls_so_far_and_rolls_left(i18n: I18n) -> None:
    second = FIRST.after(roll(10, 9, 8, 7), MAGE)
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, second, MAGE)
    assert text.splitlines() == [
        "⏳ <b>Длительное действие</b> — Аня &amp; &lt;к&gt;",
        "4к10, сложность 6 (стандартно) · цель 7 · осталось бросков: 1",
        "▰▰▰▰▰▰▰▱▱▱ 5/7",
        "1. <b>9</b> <b>8</b> 2 <s>1</s> → <b>Успех</b>: 1 успех",
        "2. <b>10</b> <b>9</b> <b>8</b> <b>7</b> → <b>Успех</b>: 4 успеха",
    ]
    # The button names the roll it makes, the third, not the one roll left.
    assert buttons(keyboard) == [("🎲 Бросок №3", "x:F:3:go"), ("⏹ Прекратить", "x:F:3:st")]
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, FIRST, MAGE)
    assert text.splitlines()[:3] == [
        "⏳ <b>Extended action</b> — Аня &amp; &lt;к&gt;",
        "4d10, difficulty 6 (standard) · target 7 · rolls left: 2",
        "▰▱▱▱▱▱▱▱▱▱ 1/7",
    ]
    assert buttons(keyboard) == [("🎲 Roll #2", "x:F:3:go"), ("⏹ Stop", "x:F:3:st")]


def test_a_botch_loses_everything_and_offers_a_new_start(i18n: I18n) -> None:
    botched = begin("Аня", 4, 6, 7, None, roll(1, 1, 2, 3), MAGE)
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, botched, MAGE)
    assert "💥 Провал: все накопленные успехи потеряны." in text
    assert text.endswith("Можно ли продолжать — решает Рассказчик.")
    assert buttons(keyboard)[0] == ("🎲 Начать сначала", "x:F:3:go")
    with speaking(i18n, "en"):
        _text, keyboard = view.draw(FLOW, botched, MAGE)
    assert buttons(keyboard)[0] == ("🎲 Start over", "x:F:3:go")


def test_done_and_stopped_have_no_buttons(i18n: I18n) -> None:
    done = begin("Аня", 4, 6, 2, None, roll(9, 9, 8, 3), MAGE)
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, done, MAGE)
        stopped, none = view.draw(FLOW, FIRST, MAGE, stopped=True)
    assert keyboard is None
    assert none is None
    assert text.endswith("✅ <b>Готово!</b> 3 из 2 успехов за 1 бросок")
    assert stopped.endswith("\n⏹ Прекращено.")
    with speaking(i18n, "en"):
        stopped, _none = view.draw(FLOW, FIRST, MAGE, stopped=True)
        assert view.usage_text().startswith("Example: /ext 7 6 10 — 7 dice at difficulty 6")
    assert stopped.endswith("\n⏹ Stopped.")
