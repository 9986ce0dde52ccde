"""The team's message drawn without a bot: each helper's roll, who is still choosing, the
progress to the target, a botch that ruins the effort, closed by the leader."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.teamwork import view
from handlers.teamwork.flow import Member, TeamFlow
from rules import d10, profiles
from rules.profiles import TeamBotch
from table.store import Flow
from tests.handlers.views import buttons, labels, prefixes, speaking

MAGE = profiles.HOUSE_MAGE
FLOW = Flow(id="F", kind="team", chat_id=-1, owner_id=1, version=3, data={})
ANYA = Member(
    user_id=1,
    name="Аня & <к>",
    pool=3,
    result=d10.resolve([9, 7, 2], 6, MAGE),
    source="Ловкость 2 + Драка 1",
)
BORIS = Member(user_id=2, name="Борис", pool=2, result=d10.resolve([6, 1], 6, MAGE))
TEAM = TeamFlow(
    leader="Аня & <к>", difficulty=6, target=5, members=(ANYA, BORIS), pending=((3, "Вера"),)
)
POOLS = [str(n) for n in range(1, 16)]


def test_while_a_helper_chooses_a_pool(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, TEAM, MAGE)
    assert text.splitlines() == [
        "🤝 <b>Работа в команде</b> — Аня &amp; &lt;к&gt; · сложность 6 · цель 5",
        "Аня &amp; &lt;к&gt;: Ловкость 2 + Драка 1 → 3к10 · <b>9</b> <b>7</b> 2 → "
        "<b>Успех</b>: 2 успеха",
        "Борис: 2к10 · <b>6</b> <s>1</s> → <b>Неудача</b>",
        "⏳ Вера: выберите запас кубиков ниже.",
        "▰▰▰▰▱▱▱▱▱▱ 2/5",
        "Вместе: 2 успеха",
    ]
    assert labels(keyboard) == ["🤝 Помочь", *POOLS, "✅ Завершить"]
    assert buttons(keyboard)[1] == ("1", "tm:F:3:p:1")
    assert prefixes(keyboard) == {"tm"}
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, TEAM, MAGE)
    assert "⏳ Вера: choose your pool below." in text
    assert labels(keyboard) == ["🤝 Help", *POOLS, "✅ Finish"]


def test_nobody_choosing_leaves_help_and_finish(i18n: I18n) -> None:
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, TEAM.model_copy(update={"pending": ()}), MAGE)
    assert "⏳" not in text
    assert buttons(keyboard) == [("🤝 Help", "tm:F:3:j:0"), ("✅ Finish", "tm:F:3:end:0")]


def test_the_message_keeps_the_language_it_was_opened_in(i18n: I18n) -> None:
    english = FLOW.model_copy(update={"locale": "en"})
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(english, TEAM.model_copy(update={"pending": ()}), MAGE)
    assert text.startswith("🤝 <b>Teamwork</b>")
    assert labels(keyboard) == ["🤝 Help", "✅ Finish"]


def test_closed_reached_and_ruined(i18n: I18n) -> None:
    strong = ANYA.model_copy(update={"result": d10.resolve([9, 9, 8, 7, 6], 6, MAGE), "pool": 5})
    botched = BORIS.model_copy(update={"result": d10.resolve([1, 2], 6, MAGE)})
    done = TEAM.model_copy(update={"members": (strong,), "pending": (), "closed": True})
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, done, MAGE)
    assert keyboard is None
    assert text.splitlines()[-3:] == [
        "<b>Вместе: 5 успехов</b>",
        "✅ Команда достигла цели.",
        "⏹ Работа в команде завершена.",
    ]
    ruins = MAGE.model_copy(update={"team_botch": TeamBotch.RUINS_ALL})
    ruined = TEAM.model_copy(update={"members": (strong, botched), "pending": ()})
    with speaking(i18n, "en"):
        text, _keyboard = view.draw(FLOW, ruined, ruins)
        kept, _keyboard = view.draw(FLOW, ruined, MAGE)
    assert "💥 A botch ruins the whole team's effort." in text
    assert "💥" not in kept
