"""Multiple actions drawn without a bot: each action's pool after the dice lost, the next
action's button, the split of a Dark Ages pool, all rolled, stopped."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.multi import view
from handlers.multi.flow import MultiFlow, declare
from rules import d10, profiles
from table.store import Flow
from tests.handlers.views import buttons, speaking

MAGE = profiles.HOUSE_MAGE
FLOW = Flow(id="F", kind="multi", chat_id=-1, owner_id=1, version=3, data={})
DECLARED = declare(MultiFlow(roller="Аня & <к>", default_difficulty=6), [(6, None), (7, 8)], MAGE)
FIRST = d10.resolve([9, 8, 3, 2], 6, MAGE)
SECOND = d10.resolve([8, 2, 2, 1], 8, MAGE)


def test_each_action_loses_dice_and_is_rolled_in_order(i18n: I18n) -> None:
    assert DECLARED.dice == (4, 4)
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, DECLARED, MAGE)
        one, next_keyboard = view.draw(
            FLOW, DECLARED.model_copy(update={"results": (FIRST, None)}), MAGE
        )
    assert text.splitlines() == [
        "🔀 <b>Несколько действий</b> — Аня &amp; &lt;к&gt; · штраф за несколько действий: −2, −3",
        "1. 6 → 4к10, сложность 6 (стандартно)",
        "2. 7 → 4к10, сложность 8 (сложно)",
    ]
    assert buttons(keyboard) == [
        ("🎲 Действие 1: 4к10", "mu:F:3:go:0"),
        ("⏹ Прекратить", "mu:F:3:st:0"),
    ]
    assert one.splitlines()[2] == "<b>9</b> <b>8</b> 3 2 → <b>Успех</b>: 2 успеха"
    assert buttons(next_keyboard)[0] == ("🎲 Действие 2: 4к10", "mu:F:3:go:1")
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, DECLARED, MAGE)
    assert text.splitlines()[0] == (
        "🔀 <b>Multiple actions</b> — Аня &amp; &lt;к&gt; · dice lost to the actions: −2, −3"
    )
    assert buttons(keyboard) == [("🎲 Action 1: 4d10", "mu:F:3:go:0"), ("⏹ Stop", "mu:F:3:st:0")]


def test_all_rolled_or_stopped_leaves_no_buttons(i18n: I18n) -> None:
    done = DECLARED.model_copy(update={"results": (FIRST, SECOND)})
    stopped = DECLARED.model_copy(update={"results": (FIRST, None), "stopped": True})
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, done, MAGE)
        halted, none = view.draw(FLOW, stopped, MAGE)
    assert keyboard is None
    assert none is None
    assert text.endswith("\n✅ Все действия брошены.")
    assert halted.endswith("\n⏹ Прекращено.")
    with speaking(i18n, "en"):
        text, _keyboard = view.draw(FLOW, done, MAGE)
    assert text.endswith("\n✅ All actions are rolled.")


def test_a_split_pool_asks_how_to_split(i18n: I18n) -> None:
    split = MultiFlow(roller="Аня", default_difficulty=6, split_of=6)
    splits = [("1+5", "mu:F:3:sp:1"), ("2+4", "mu:F:3:sp:2"), ("3+3", "mu:F:3:sp:3")]
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, split, profiles.DARK_AGES)
    assert text.splitlines() == [
        "🔀 <b>Несколько действий</b> — Аня",
        "В этой игре запас делится между действиями. Как разделить 6 кубиков на два действия? "
        "(Для трёх и больше: /multi 6 3 2 2.)",
    ]
    assert buttons(keyboard)[:3] == splits
    assert buttons(keyboard)[-1] == ("⏹ Прекратить", "mu:F:3:st:0")
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, split, profiles.DARK_AGES)
        read = view.read_as_text("ловк+драка", [6, 7])
    assert "How do you split 6 dice between two actions?" in text
    assert buttons(keyboard)[-1] == ("⏹ Stop", "mu:F:3:st:0")
    assert read == "ℹ️ Read as «ловк+драка» once at each difficulty: 6, 7."
