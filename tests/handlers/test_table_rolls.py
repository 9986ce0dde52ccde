"""Extended, opposed, team and multiple-action rolls through the Dispatcher.

The dice are scripted where the rules' verdict is the point (a botch, a tie, who wins), so
each expectation is the rules text's own number: 6, 7, 7 become 3, 3, 2 (S4, T-11), a botch
loses the gathered successes (S0/S1, §A.11), opposing successes cancel (§A.12).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import UTC, datetime

import pytest
from aiogram.filters.callback_data import CallbackData
from aiogram.types import Message, MessageEntity, User

from handlers.extended.callbacks import ExtAction, ExtCallback
from handlers.multi.callbacks import MultiAction, MultiCallback
from handlers.opposed.callbacks import VsAction, VsCallback
from handlers.roll.callbacks import RollAction, RollCallback
from handlers.teamwork import view as teamwork_view
from handlers.teamwork.callbacks import TeamAction, TeamCallback
from handlers.teamwork.flow import TeamFlow
from handlers.wizard.callbacks import SetupAction, SetupCallback
from rules import contests, d10, profiles
from rules.profiles import TeamBotch
from table.store import log_key
from table.store.flows import data_of
from tests.handlers.conftest import Table, buttons, flows, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
CARL = player(3, "Carl")
EMMA = player(4, "Emma", "en")
MAGE = profiles.get("mage")


class Dice(random.Random):
    """Faces in the order given, then a plain seeded die."""

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(3)
        self.script = list(faces)

    def randint(self, a: int, b: int) -> int:
        if self.script:
            return self.script.pop(0)
        return super().randint(a, b)


def find(markup: object, factory: type[CallbackData], **match: object) -> str:
    for button in buttons(markup):
        data = button.callback_data or ""
        try:
            parsed = factory.unpack(data)
        except (TypeError, ValueError):
            continue
        if all(getattr(parsed, key) == value for key, value in match.items()):
            return data
    raise AssertionError(f"no button {match} in {[b.text for b in buttons(markup)]}")


def last_text(table: Table) -> str:
    edits = table.session.edits
    return edits[-1].text if edits else table.session.sent[-1].text


def last_markup(table: Table) -> object:
    edits = table.session.edits
    return edits[-1].reply_markup if edits else table.session.sent[-1].reply_markup


def sent_id(table: Table, index: int = -1) -> int:
    return table.session.messages[index].message_id


# --- extended -----------------------------------------------------------------------------


async def test_extended_roll_gathers_successes_to_the_target(table: Table) -> None:
    # 3 dice at difficulty 6: 8 7 2 → 2, then 9 6 6 → 3, then 10 10 1 → 1: 6 ≥ 5.
    table.rng = Dice([8, 7, 2, 9, 6, 6, 10, 10, 1])
    await table.say(ANNA, "/ext 3 6 5")
    text = table.session.sent[-1].text
    assert text.startswith("⏳ <b>Длительное действие</b> — Anna")
    assert "3к10, сложность 6 (стандартно) · цель 5" in text
    assert "▰▰▰▰▱▱▱▱▱▱ 2/5" in text
    message_id = sent_id(table)
    roll = find(table.session.sent[-1].reply_markup, ExtCallback, a=ExtAction.ROLL)
    await table.tap(BORIS, roll, message_id)
    assert table.session.answers[-1].text == "Это не ваш бросок."
    await table.tap(ANNA, roll, message_id)
    assert "▰▰▰▰▰▰▰▰▰▰ 5/5" in last_text(table)
    assert "✅ <b>Готово!</b> 5 из 5 успехов за 2 броска" in last_text(table)
    assert last_markup(table) is None
    await table.tap(ANNA, roll, message_id)  # the old button of a finished action
    assert table.session.answers[-1].text == "Этот бросок закрыт."
    log = await table.store.recent_rolls(table.chat.id)
    assert [e["successes"] for e in log] == [3, 2]
    assert {e["kind"] for e in log} == {"ext"}


async def test_extended_botch_loses_everything_and_may_start_over(table: Table) -> None:
    """S0 «Не только теряются накопленные ранее успехи…» (house profile: LOSE_ALL)."""
    table.rng = Dice([9, 9, 3, 1, 2, 3, 8, 8, 8])
    await table.say(ANNA, "/ext 3 6 10")
    assert "2/10" in last_text(table)
    message_id = sent_id(table)
    await table.tap(ANNA, find(last_markup(table), ExtCallback, a=ExtAction.ROLL), message_id)
    text = last_text(table)
    assert "▱▱▱▱▱▱▱▱▱▱ 0/10" in text
    assert "Провал: все накопленные успехи потеряны." in text
    labels = [b.text for b in buttons(last_markup(table))]
    assert labels == ["🎲 Начать сначала", "⏹ Прекратить"]
    await table.tap(ANNA, find(last_markup(table), ExtCallback, a=ExtAction.ROLL), message_id)
    assert "3/10" in last_text(table)
    await table.tap(ANNA, find(last_markup(table), ExtCallback, a=ExtAction.STOP), message_id)
    assert "⏹ Прекращено." in last_text(table)
    assert last_markup(table) is None


async def test_extended_roll_limit_runs_out(table: Table) -> None:
    table.rng = Dice([10, 3])
    await table.say(ANNA, "/ext 1 6 5 2")
    assert "осталось бросков: 1" in last_text(table)
    await table.tap(ANNA, find(last_markup(table), ExtCallback, a=ExtAction.ROLL), sent_id(table))
    assert "⌛ <b>Время вышло:</b> 1 из 5 успехов за 2 броска" in last_text(table)
    assert last_markup(table) is None


async def test_extend_turns_a_roll_into_an_extended_action(table: Table) -> None:
    table.rng = Dice([9, 8, 7, 2, 1, 10, 10, 10, 10, 10])
    await table.say(ANNA, "/r 5 6")
    result = table.session.sent[-1]
    message_id = sent_id(table)
    assert "2 успеха" in result.text
    extend = find(result.reply_markup, RollCallback, a=RollAction.EXTEND)
    await table.tap(BORIS, extend, message_id)
    assert table.session.answers[-1].text == "Это не ваш бросок."
    await table.tap(ANNA, extend, message_id)
    targets = table.session.markup_edits[-1].reply_markup
    assert [b.text for b in buttons(targets)] == ["🎯3", "🎯5", "🎯7", "🎯10", "🎯15", "🎯20"]
    await table.tap(ANNA, find(targets, RollCallback, a=RollAction.EXTEND, x=7), message_id)
    text = last_text(table)
    assert "Длительное действие" in text
    assert "2/7" in text  # the /r roll is the first roll
    await table.tap(ANNA, find(last_markup(table), ExtCallback, a=ExtAction.ROLL), message_id)
    assert "7/7" in last_text(table)
    assert len(table.session.sent) == 1  # everything in the one message
    assert len(await table.store.recent_rolls(table.chat.id)) == 2


# --- opposed ------------------------------------------------------------------------------


async def reply_to(table: Table, author: User, replied_author: User, text: str) -> None:
    """``author`` says ``text`` as a reply to a message of ``replied_author``."""
    await table.say(author, text, reply_to=replied_author, replied_text="я крадусь")


async def test_opposed_roll_by_reply_names_the_winner(table: Table) -> None:
    # Anna 4 dice at 6: 9 8 7 1 → 2; Boris 3 dice at 7: 10 2 2 → 1. Anna by 1 (§A.12).
    table.rng = Dice([9, 8, 7, 1, 10, 2, 2])
    await reply_to(table, ANNA, BORIS, "/vs 4 6")
    text = table.session.sent[-1].text
    assert text.startswith("⚔️ <b>Противостояние</b>: Anna — Boris")
    assert "Boris: выберите запас кубиков и сложность и бросайте." in text
    message_id = sent_id(table)
    markup = table.session.sent[-1].reply_markup
    before = await flows(table.store)
    await table.tap(CARL, find(markup, VsCallback, a=VsAction.POOL, x=3), message_id)
    assert table.session.answers[-1].text == "Этот вызов адресован не вам."
    await table.tap(ANNA, find(markup, VsCallback, a=VsAction.POOL, x=3), message_id)
    assert table.session.answers[-1].text == "Этот вызов адресован не вам."
    assert await flows(table.store) == before
    await table.tap(BORIS, find(markup, VsCallback, a=VsAction.POOL, x=3), message_id)
    await table.tap(
        BORIS, find(last_markup(table), VsCallback, a=VsAction.DIFFICULTY, x=7), message_id
    )
    roll_b = find(last_markup(table), VsCallback, a=VsAction.ROLL_B)
    await table.tap(BORIS, roll_b, message_id)
    text = last_text(table)
    assert "Boris: 3к10, сложность 7" in text
    assert "🏆 <b>Побеждает Anna с перевесом в 1 успех</b>" in text
    assert last_markup(table) is None
    a = d10.resolve([9, 8, 7, 1], 6, MAGE)
    b = d10.resolve([10, 2, 2], 7, MAGE)
    assert contests.opposed(a, b) == contests.OpposedResult(
        contests.Side.A, 1, a.outcome, b.outcome
    )
    await table.tap(BORIS, roll_b, message_id)  # a double tap on a finished challenge
    assert table.session.answers[-1].text == "Этот бросок закрыт."
    assert await table.store.redis.llen(log_key(table.chat.id)) == 2


async def test_opposed_tie_and_mention(table: Table) -> None:
    table.rng = Dice([8, 2, 9, 3])
    boris = BORIS.model_copy(update={"username": "boris_b"})
    await table.say(ANNA, "/vs 2 6 @Boris_B")
    assert "Anna — @Boris_B" in table.session.sent[-1].text  # as typed; matched ignoring case
    message_id = sent_id(table)
    await table.tap(CARL, find(last_markup(table), VsCallback, a=VsAction.POOL, x=2), message_id)
    assert table.session.answers[-1].show_alert is True
    await table.tap(boris, find(last_markup(table), VsCallback, a=VsAction.POOL, x=2), message_id)
    await table.tap(boris, find(last_markup(table), VsCallback, a=VsAction.ROLL_B), message_id)
    assert "🤝 <b>Ничья</b>" in last_text(table)
    assert "Anna — Boris" in last_text(table)  # the @name became the player who answered


async def test_race_to_n_rounds_until_someone_gets_there(table: Table) -> None:
    """S1 «Каждый успешный балл, превышающий количество таких баллов у оппонента за один ход,
    прибавляется к сумме»: 2 vs 1 banks 1 for Anna; 2 vs 0 banks 2 more, 3 ≥ 3."""
    table.rng = Dice([8, 8, 2, 9, 2, 2, 7, 7, 3, 3, 3, 3])
    await reply_to(table, ANNA, BORIS, "/vs 3 6 до 3")
    assert "до 3 успехов" in table.session.sent[-1].text
    message_id = sent_id(table)
    await table.tap(BORIS, find(last_markup(table), VsCallback, a=VsAction.POOL, x=3), message_id)
    await table.tap(BORIS, find(last_markup(table), VsCallback, a=VsAction.ROLL_B), message_id)
    text = last_text(table)
    assert "Раунд 1: Anna 2, Boris 1 · счёт 1:0" in text
    labels = [b.text for b in buttons(last_markup(table))]
    assert labels == ["🎲 Бросает Anna", "🎲 Бросает Boris", "⏹ Отменить"]
    roll_a = find(last_markup(table), VsCallback, a=VsAction.ROLL_A)
    await table.tap(BORIS, roll_a, message_id)
    assert table.session.answers[-1].text == "Этот вызов адресован не вам."
    await table.tap(ANNA, roll_a, message_id)
    assert [b.text for b in buttons(last_markup(table))] == ["🎲 Бросает Boris", "⏹ Отменить"]
    await table.tap(BORIS, find(last_markup(table), VsCallback, a=VsAction.ROLL_B), message_id)
    text = last_text(table)
    assert "Раунд 2: Anna 2, Boris 0 · счёт 3:0" in text
    assert "🏆 <b>Побеждает Anna с перевесом в 3 успеха</b>" in text


async def test_npc_side_is_played_by_the_storyteller(table: Table) -> None:
    table.rng = Dice([8, 8, 1, 1])
    await table.say(ANNA, "/vs 2 6 нпс")
    text = table.session.sent[-1].text
    assert "Anna — НПС" in text
    message_id = sent_id(table)
    pool = find(last_markup(table), VsCallback, a=VsAction.POOL, x=2)
    await table.tap(BORIS, pool, message_id)
    assert table.session.answers[-1].text == "Этот вызов адресован не вам."
    table.session.admins.add(CARL.id)
    await table.tap(CARL, pool, message_id)
    await table.tap(CARL, find(last_markup(table), VsCallback, a=VsAction.ROLL_B), message_id)
    assert "Побеждает Anna" in last_text(table)
    assert "Провал" in last_text(table)  # the NPC's botch is shown on its own line


async def test_npc_challenge_by_a_player_who_is_not_the_storyteller(table: Table) -> None:
    await reply_to(table, BORIS, ANNA, "/vs 5 6 нпс")
    assert "За НПС играет только Рассказчик" in table.session.sent[-1].text
    assert await flows(table.store) == {}


# --- teamwork -----------------------------------------------------------------------------


async def test_teamwork_collects_separate_rolls(table: Table) -> None:
    # Anna 3 at 6: 9 9 2 → 2. Boris 2: 1 3 → botch (his own). Carl 2: 7 10 → 2. Total 4 ≥ 4.
    table.rng = Dice([9, 9, 2, 1, 3, 7, 10])
    await table.say(ANNA, "/team 3 6 цель 4")
    text = table.session.sent[-1].text
    assert text.startswith("🤝 <b>Работа в команде</b> — Anna · сложность 6 · цель 4")
    assert "Вместе: 2 успеха" in text
    message_id = sent_id(table)
    await table.tap(BORIS, find(last_markup(table), TeamCallback, a=TeamAction.JOIN), message_id)
    assert "Boris: выберите запас кубиков ниже." in last_text(table)
    pool2 = find(last_markup(table), TeamCallback, a=TeamAction.POOL, x=2)
    await table.tap(CARL, pool2, message_id)
    assert (
        table.session.answers[-1].text == "Сначала нажмите «Помочь», потом выберите запас кубиков."
    )
    await table.tap(BORIS, pool2, message_id)
    text = last_text(table)
    assert "Boris: 2к10 · 3 <s>1</s> → <b>Провал</b>" in text
    assert "Вместе: 2 успеха" in text  # a helper's botch is his own (S0, MEMBER_ONLY)
    await table.tap(BORIS, find(last_markup(table), TeamCallback, a=TeamAction.JOIN), message_id)
    assert table.session.answers[-1].text == "Вы уже бросили за команду."
    await table.tap(CARL, find(last_markup(table), TeamCallback, a=TeamAction.JOIN), message_id)
    await table.tap(
        CARL, find(last_markup(table), TeamCallback, a=TeamAction.POOL, x=2), message_id
    )
    text = last_text(table)
    assert "Вместе: 4 успеха" in text
    assert "✅ Команда достигла цели." in text
    finish = find(last_markup(table), TeamCallback, a=TeamAction.FINISH)
    await table.tap(CARL, finish, message_id)
    assert (
        table.session.answers[-1].text
        == "Завершить работу в команде может только тот, кто её начал."
    )
    await table.tap(ANNA, finish, message_id)
    assert "⏹ Работа в команде завершена." in last_text(table)
    assert last_markup(table) is None
    log = await table.store.recent_rolls(table.chat.id)
    assert [e["name"] for e in log] == ["Carl", "Boris", "Anna"]


async def test_teamwork_botch_ruins_all_where_the_profile_says_so(table: Table) -> None:
    """AMB-A11: with ``TeamBotch.RUINS_ALL`` one botch «разрушить все усилия». No shipped
    profile chooses it yet, so the view is drawn for such a profile directly."""
    table.rng = Dice([9, 9, 1, 3])
    await table.say(ANNA, "/team 2 6")
    message_id = sent_id(table)
    await table.tap(BORIS, find(last_markup(table), TeamCallback, a=TeamAction.JOIN), message_id)
    await table.tap(
        BORIS, find(last_markup(table), TeamCallback, a=TeamAction.POOL, x=2), message_id
    )
    assert "Вместе: 2 успеха" in last_text(table)  # MEMBER_ONLY: Boris's botch is his own
    [flow] = [
        f
        for f in [
            await table.store.load_flow(table.chat.id, k.split(":")[-1])
            for k in await flows(table.store)
        ]
        if f
    ]
    ruins = MAGE.model_copy(update={"team_botch": TeamBotch.RUINS_ALL})
    with table.i18n.context(), table.i18n.use_locale("ru"):
        text, _markup = teamwork_view.draw(flow, flow.state(TeamFlow), ruins)
    assert "Провал разрушает все усилия команды." in text
    assert "Вместе: 0 успехов" in text


# --- multiple actions ---------------------------------------------------------------------


async def test_multiple_actions_show_reduced_pools_and_roll_in_order(table: Table) -> None:
    """T-11: Mary Chen's 6, 7, 7 become 3, 3, 2 (S4)."""
    await table.say(ANNA, "/multi 6 7 7")
    text = table.session.sent[-1].text
    assert "1. 6 → 3к10, сложность 6" in text
    assert "2. 7 → 3к10, сложность 6" in text
    assert "3. 7 → 2к10, сложность 6" in text
    message_id = sent_id(table)
    markup = table.session.sent[-1].reply_markup
    assert [b.text for b in buttons(markup)] == ["🎲 Действие 1: 3к10", "⏹ Прекратить"]
    forged = MultiCallback.unpack(find(markup, MultiCallback, a=MultiAction.ROLL))
    await table.tap(ANNA, forged.model_copy(update={"x": 2}).pack(), message_id)
    assert table.session.answers[-1].text == "Действия бросаются в заявленном порядке."
    await table.tap(BORIS, forged.pack(), message_id)
    assert table.session.answers[-1].text == "Это не ваш бросок."
    for k in range(3):
        await table.tap(ANNA, find(last_markup(table), MultiCallback, x=k), message_id)
    assert "✅ Все действия брошены." in last_text(table)
    assert last_markup(table) is None
    log = await table.store.recent_rolls(table.chat.id)
    assert [len(e["faces"]) for e in log] == [2, 3, 3]


async def test_multiple_actions_impossible_ones_are_shown_and_skipped(table: Table) -> None:
    await table.say(ANNA, "/multi 3 5 2")  # 3−3=0, 5−4=1, 2−5=−3
    text = table.session.sent[-1].text
    assert "1. 3 → 0к10: невозможно" in text
    assert "2. 5 → 1к10, сложность 6" in text
    assert "3. 2 → 0к10: невозможно" in text  # no negative dice shown
    first = buttons(table.session.sent[-1].reply_markup)[0]
    assert first.text == "🎲 Действие 2: 1к10"


async def test_dark_ages_splits_the_pool(table: Table) -> None:
    """S1: one pool for the turn, divided between the actions."""
    await table.store.update_chat(table.chat.id, profile="dark-ages")
    await table.say(ANNA, "/multi 8")
    markup = table.session.sent[-1].reply_markup
    assert [b.text for b in buttons(markup)][:7] == [f"{k}+{8 - k}" for k in range(1, 8)]
    await table.tap(ANNA, find(markup, MultiCallback, a=MultiAction.SPLIT, x=3), sent_id(table))
    text = last_text(table)
    assert "8 кубиков делятся между действиями" in text
    assert "1. 3к10, сложность 6" in text
    assert "2. 5к10, сложность 6" in text
    await table.say(ANNA, "/multi 8 3 3 2/7")
    text = table.session.sent[-1].text
    assert "3. 2к10, сложность 7" in text
    await table.say(ANNA, "/multi 8 5 5")
    assert "Заявите от 2 до 10 действий" in table.session.sent[-1].text


# --- bad input and the other language -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "says", "example"),
    [
        ("/ext 7 6", "Сколько кубиков?", "/ext 7 6 10"),
        ("/ext 0 6 10", "Запас кубиков — от 1 до 50.", "/ext 7 6 10"),
        ("/ext 7 11 10", "сложность — от 4 до 10", "/ext 7 6 10"),
        ("/ext 7 6 0", "Нужное число успехов — от 1 до 1000.", "/ext 7 6 10"),
        ("/ext 7 6 10 0", "Предел бросков — от 1 до 1000.", "/ext 7 6 10"),
        ("/ext 7 6 x", "«x» — непонятно", "/ext 7 6 10"),
        ("/vs 6 7", "Кому вы бросаете вызов?", "/vs 6 7"),
        ("/vs 999 7 @bob", "Запас кубиков — от 1 до 50.", "/vs 6 7"),
        ("/vs 6 7 до @bob", "«до» — непонятно", "/vs 6 7"),
        ("/vs 6 7 до 0 @bob", "Нужное число успехов", "/vs 6 7"),
        ("/team цель 5", "Сколько кубиков?", "/team 7 6 цель 5"),
        ("/team 7 3", "сложность — от 4 до 10", "/team 7 6 цель 5"),
        ("/team 7 6 цель", "«цель» — непонятно", "/team 7 6 цель 5"),
        ("/multi 6", "Заявите от 2 до 10 действий", "/multi 6 7 7"),
        ("/multi 0 6", "Запас кубиков — от 1 до 50.", "/multi 6 7 7"),
        ("/multi 999 6", "Запас кубиков — от 1 до 50.", "/multi 6 7 7"),
        ("/multi 6 7/11", "сложность — от 4 до 10", "/multi 6 7 7"),
        ("/multi 6 x1", "«x1» — непонятно", "/multi 6 7 7"),
        ("/multi 6 x", "«x» — в этой игре нет такой черты", "/multi 6 7 7"),
    ],
)
async def test_bad_input_changes_nothing(table: Table, text: str, says: str, example: str) -> None:
    await table.say(ANNA, text)
    [sent] = table.session.sent
    assert says in sent.text
    assert example in sent.text
    assert sent.reply_markup is None
    assert await flows(table.store) == {}
    assert await table.store.redis.llen(log_key(table.chat.id)) == 0


@pytest.mark.parametrize("command", ["/ext 5 6 5", "/team 5", "/multi 5 5"])
async def test_d6_chat_refuses_the_d10_table_rolls(table: Table, command: str) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    await table.say(ANNA, command)
    assert "в этом чате играют по системе d6" in table.session.sent[-1].text
    assert await flows(table.store) == {}


@pytest.mark.parametrize(
    "data", ["x:{flow}:0:zz", "o:{flow}:0:go", "tm:{flow}:0:p:1", "mu:{flow}:9:go:0", "x:nope:0:go"]
)
async def test_garbled_or_foreign_buttons_are_refused(table: Table, data: str) -> None:
    await table.say(ANNA, "/ext 3 6 10")
    [flow_id] = [k.split(":")[-1] for k in await flows(table.store)]
    before = await flows(table.store)
    await table.tap(ANNA, data.format(flow=flow_id), sent_id(table))
    assert await flows(table.store) == before
    assert table.session.answers[-1].show_alert is True
    assert table.session.edits == []


async def test_english_table(table: Table) -> None:
    table.rng = Dice([8, 7, 2])
    await table.say(EMMA, "/ext 3 6 5")
    text = table.session.sent[-1].text
    assert "⏳ <b>Extended action</b> — Emma" in text
    assert "3d10, difficulty 6 (standard) · target 5" in text
    await table.say(EMMA, "/multi 6 7 7")
    assert "1. 6 → 3d10, difficulty 6" in table.session.sent[-1].text
    await table.say(EMMA, "/team 7 6 target 5")
    assert "🤝 <b>Teamwork</b> — Emma · difficulty 6 · target 5" in table.session.sent[-1].text


# --- the wizards: the same rolls without typing numbers -----------------------------------


async def test_ext_without_numbers_is_a_wizard_in_one_message(table: Table) -> None:
    await table.say(ANNA, "/ext")
    message_id = sent_id(table)
    assert "Выберите запас кубиков." in last_text(table)
    labels = [b.text for b in buttons(last_markup(table))]
    assert "🎲 Бросить!" not in labels  # nothing chosen yet
    pool = find(last_markup(table), SetupCallback, a=SetupAction.POOL, x=3)
    await table.tap(BORIS, pool, message_id)
    assert table.session.answers[-1].text == "Это не ваш бросок."
    await table.tap(ANNA, pool, message_id)
    assert "Сколько успехов нужно для длительного действия?" in last_text(table)
    assert "Шанс успеха" in last_text(table)
    await table.tap(
        ANNA, find(last_markup(table), SetupCallback, a=SetupAction.DIFFICULTY, x=7), message_id
    )
    await table.tap(
        ANNA, find(last_markup(table), SetupCallback, a=SetupAction.TARGET, x=5), message_id
    )
    assert "цель 5" in last_text(table)
    await table.tap(ANNA, find(last_markup(table), SetupCallback, a=SetupAction.GO), message_id)
    text = last_text(table)
    assert text.startswith("⏳ <b>Длительное действие</b> — Anna")
    assert "3к10, сложность 7 (немного сложно) · цель 5" in text
    assert len(table.session.sent) == 1
    [entry] = await table.store.recent_rolls(table.chat.id)
    assert entry["kind"] == "ext"


async def test_team_without_numbers_is_a_wizard(table: Table) -> None:
    await table.say(ANNA, "/team")
    message_id = sent_id(table)
    await table.tap(
        ANNA, find(last_markup(table), SetupCallback, a=SetupAction.POOL, x=2), message_id
    )
    await table.tap(ANNA, find(last_markup(table), SetupCallback, a=SetupAction.GO), message_id)
    text = last_text(table)
    assert text.startswith("🤝 <b>Работа в команде</b> — Anna · сложность 6")
    assert "Anna: 2к10 · " in text
    assert any(b.text == "🤝 Помочь" for b in buttons(last_markup(table)))


async def test_vs_in_reply_without_numbers_is_a_wizard(table: Table) -> None:
    await reply_to(table, ANNA, BORIS, "/vs")
    message_id = sent_id(table)
    assert table.session.sent[-1].text.startswith("⚔️ <b>Противостояние</b> — Anna — Boris")
    await table.tap(
        ANNA, find(last_markup(table), SetupCallback, a=SetupAction.POOL, x=4), message_id
    )
    await table.tap(ANNA, find(last_markup(table), SetupCallback, a=SetupAction.GO), message_id)
    text = last_text(table)
    assert text.startswith("⚔️ <b>Противостояние</b>: Anna — Boris")
    assert "Anna: 4к10, сложность 6" in text
    assert "Boris: выберите запас кубиков и сложность и бросайте." in text
    pool = find(last_markup(table), VsCallback, a=VsAction.POOL, x=2)
    await table.tap(BORIS, pool, message_id)
    await table.tap(BORIS, find(last_markup(table), VsCallback, a=VsAction.ROLL_B), message_id)
    assert "Boris: 2к10, сложность 6" in last_text(table)


async def test_a_pasted_novel_is_not_echoed_in_full(table: Table) -> None:
    await table.say(ANNA, "/ext 7 6 " + "я" * 3000)
    text = table.session.sent[-1].text
    assert len(text) < 400
    assert "я" * 39 + "…" in text


async def test_odds_below_a_tenth_of_a_percent_are_html_safe(table: Table) -> None:
    """«<0,1%» as raw HTML is an unclosed tag to Telegram."""
    await table.say(ANNA, "/ext")
    await table.tap(
        ANNA, find(last_markup(table), SetupCallback, a=SetupAction.POOL, x=10), sent_id(table)
    )
    assert "провала &lt;0,1%" in last_text(table)


async def test_a_long_race_shows_its_latest_rounds(table: Table) -> None:
    """Race to 1000 with one die each: the message keeps the latest rounds, never 4096+."""
    await reply_to(table, ANNA, BORIS, "/vs 1 6 до 1000")
    message_id = sent_id(table)
    await table.tap(BORIS, find(last_markup(table), VsCallback, a=VsAction.POOL, x=1), message_id)
    await table.tap(BORIS, find(last_markup(table), VsCallback, a=VsAction.ROLL_B), message_id)
    for _round in range(15):
        await table.tap(ANNA, find(last_markup(table), VsCallback, a=VsAction.ROLL_A), message_id)
        await table.tap(BORIS, find(last_markup(table), VsCallback, a=VsAction.ROLL_B), message_id)
    text = last_text(table)
    assert "Раунд 16:" in text
    assert "Раунд 4:" not in text
    assert "Раунд 5:" in text


async def test_multi_without_numbers_declares_pools_by_buttons(table: Table) -> None:
    await table.say(ANNA, "/multi")
    message_id = sent_id(table)
    for pool in (6, 7, 9):
        await table.tap(
            ANNA, find(last_markup(table), SetupCallback, a=SetupAction.POOL, x=pool), message_id
        )
    await table.tap(ANNA, find(last_markup(table), SetupCallback, a=SetupAction.UNDO), message_id)
    await table.tap(
        ANNA, find(last_markup(table), SetupCallback, a=SetupAction.POOL, x=7), message_id
    )
    text = last_text(table)
    assert "1. 6 → 3к10" in text
    assert "3. 7 → 2к10" in text
    await table.tap(ANNA, find(last_markup(table), SetupCallback, a=SetupAction.GO), message_id)
    text = last_text(table)
    assert "1. 6 → 3к10, сложность 6" in text
    assert buttons(last_markup(table))[0].text == "🎲 Действие 1: 3к10"


async def test_multi_wizard_in_a_split_pool_game_asks_for_the_split(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="dark-ages")
    await table.say(ANNA, "/multi")
    message_id = sent_id(table)
    await table.tap(
        ANNA, find(last_markup(table), SetupCallback, a=SetupAction.POOL, x=6), message_id
    )
    await table.tap(ANNA, find(last_markup(table), SetupCallback, a=SetupAction.GO), message_id)
    labels = [b.text for b in buttons(last_markup(table))]
    assert labels[:5] == ["1+5", "2+4", "3+3", "4+2", "5+1"]


async def test_a_reply_with_team_joins_the_team_replied_to(table: Table) -> None:
    """``/team 4`` (or trait names) in reply to a team's message joins it at its difficulty,
    in that one message, instead of starting a second team."""
    await table.say(ANNA, "/team 3 7 цель 6")
    team = table.session.messages[-1]
    sent = len(table.session.sent)
    table.message_id += 1
    replied = Message(
        message_id=team.message_id,
        date=datetime.now(UTC),
        chat=table.chat,
        from_user=User(id=123456, is_bot=True, first_name="Dice"),
        text=team.text,
        reply_markup=team.reply_markup,
    )
    await table.feed(
        message=Message(
            message_id=table.message_id,
            date=datetime.now(UTC),
            chat=table.chat,
            from_user=BORIS,
            text="/team 4",
            entities=[MessageEntity(type="bot_command", offset=0, length=5)],
            reply_to_message=replied,
        )
    )
    assert len(table.session.sent) == sent  # no second team
    edit = table.session.edits[-1]
    assert edit.message_id == team.message_id
    assert "Boris: 4к10" in edit.text
    assert "сложность 7" in edit.text
    [flow] = [f for f in (await flows(table.store)).values() if '"leader"' in data_of(f)]
    assert len(TeamFlow.model_validate_json(data_of(flow)).members) == 2


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/ext ловк+драка-1 6 10", "Ловкость 3 + Драка 2 − 1 → 4к10"),
        ("/ext ловк+драка 6 10 +2", "Ловкость 3 + Драка 2 + 2 → 7к10"),
        ("/team ловк+драка+1 6", "Ловкость 3 + Драка 2 + 1 → 6к10"),
        ("/ext 5 +1 6 10", "5 + 1 → 6к10"),
    ],
)
async def test_table_rolls_take_dice_modifiers(table: Table, line: str, says: str) -> None:
    """As on /r (§A.2): dice glued to the traits or a signed number after the pool."""
    await table.say(ANNA, "/set ловкость 3 драка 2")
    await table.say(ANNA, line)
    assert says in table.session.sent[-1].text, table.session.sent[-1].text


async def test_a_botch_on_the_last_allowed_roll_ends_the_extended_action(table: Table) -> None:
    """A botch may be started over (§A.11), but not when it used the last roll allowed: no
    «Начать заново» that can only answer «invalid button» (it stalled an E2E run)."""
    table.rng = Dice([7, 7, 2, 2, 1, 1, 2, 3])  # roll 1: two successes; roll 2: a botch
    await table.say(ANNA, "/ext 4 6 5 2")
    message_id = sent_id(table)
    await table.tap(ANNA, find(last_markup(table), ExtCallback, a=ExtAction.ROLL), message_id)
    text = last_text(table)
    assert "Провал" in text or "💥" in text
    assert "не осталось времени" in text
    assert last_markup(table) is None
    [stored] = (await flows(table.store)).values()
    assert stored["closed"] == "1"
