"""House rules through the chat (docs/product.md "/rules"): typed and on buttons, only for the
Storyteller (or an admin until there is one), stored per chat over the profile, felt by the
next roll and its odds, dropped when the game changes, moved by export and import."""

from __future__ import annotations

import re

import pytest
from aiogram.utils.i18n import I18n

from bot.house_rules import BY_KEY, CATALOGUE, Group, Switch, describe, find, label, switches_of
from bot.middlewares import chat_profile
from handlers.d6roll.callbacks import D6Action, D6Callback
from handlers.settings.callbacks import HouseCallback, OldHouseCallback
from tests.handlers.conftest import Table, buttons, make_table, player

ANNA = player(1, "Anna")  # an admin
BORIS = player(2, "Boris")


@pytest.fixture
async def admin_table(table: Table) -> Table:
    table.session.admins.add(ANNA.id)
    return table


def test_every_switch_has_values_a_name_and_a_description(i18n: I18n) -> None:
    assert len(CATALOGUE) > 50
    with i18n.context(), i18n.use_locale("ru"):
        for switch in CATALOGUE:
            assert len(switch.values) >= 2
            assert find(switch.key) is switch
            assert label(switch) != switch.leaf
            assert describe(switch)
            assert label(switch) != str(switch.key)
    assert find("botch") is BY_KEY["botch_rule"]
    assert find("soak_difficulty") is BY_KEY["combat.soak_difficulty"]


async def test_a_typed_switch_changes_the_odds_and_tags_the_roll(admin_table: Table) -> None:
    table = admin_table
    await table.say(BORIS, "/prob 5 6 wp")
    before = table.session.sent[-1].text
    await table.say(BORIS, "/rules set wp_auto_success=off")
    assert "меняет Рассказчик" in table.session.sent[-1].text
    await table.say(ANNA, "/rules set wp_auto_success=off")
    assert "Сила Воли даёт успех = нет" in table.session.sent[-1].text
    settings = await table.store.load_chat(table.chat.id)
    assert settings.switches == {"wp_auto_success": False}
    assert not chat_profile(settings).wp_auto_success
    await table.say(BORIS, "/prob 5 6 wp")
    assert table.session.sent[-1].text != before
    await table.say(BORIS, "/r 5 6 wp")  # this game's Willpower gives no success now
    assert "не даёт автоматический успех" in table.session.sent[-1].text
    await table.say(ANNA, "/rules set wp_auto_success=on wp_prevents_botch=off")
    await table.say(BORIS, "/r 5 6 wp")
    assert "🏠 Сила Воли спасает от провала: нет" in table.session.sent[-1].text
    # the same roll with the book's rule carries no tag
    await table.say(ANNA, "/rules reset")
    assert (await table.store.load_chat(table.chat.id)).switches == {}
    await table.say(BORIS, "/r 5 6 wp")
    assert "🏠" not in table.session.sent[-1].text


async def test_a_botch_switch_changes_a_roll_outcome(admin_table: Table) -> None:
    """The same faces read by the two botch rules of §A.4: 1 success and two 1s."""
    from rules import d10

    table = admin_table
    profile = chat_profile(await table.store.load_chat(table.chat.id))
    assert d10.resolve([7, 1, 1], 6, profile).outcome.value == "failure"
    await table.say(ANNA, "/rules set botch=net_negative")
    profile = chat_profile(await table.store.load_chat(table.chat.id))
    assert d10.resolve([7, 1, 1], 6, profile).outcome.value == "botch"


async def test_bad_names_and_values_answer_with_the_lists(admin_table: Table) -> None:
    table = admin_table
    await table.say(ANNA, "/rules set nonsense=1")
    text = table.session.sent[-1].text
    assert text == "Домашнего правила «nonsense» нет. Все правила — кнопками: /rules house"
    await table.say(ANNA, "/rules set провл=да")  # a typo: the name it is close to
    assert "Может быть, провал?" in table.session.sent[-1].text
    await table.say(ANNA, "/rules set botch=sometimes")
    assert "«sometimes» не подходит для «провал». Значения: без_успехов, после_отмены" in (
        table.session.sent[-1].text
    )
    await table.say(ANNA, "/rules set")
    assert "/rules set название=значение" in table.session.sent[-1].text
    await table.say(ANNA, "/rules set d6.shortfall_is_fiasco=on")  # not this game's
    assert "нет" in table.session.sent[-1].text
    assert (await table.store.load_chat(table.chat.id)).switches == {}


async def test_buttons_set_a_value_once_and_strangers_only_read(admin_table: Table) -> None:
    table = admin_table
    await table.say(ANNA, "/rules")
    mid = table.session.messages[-1].message_id
    house = next(b for b in buttons(table.session.sent[-1].reply_markup) if "Домашние" in b.text)
    await table.tap(BORIS, house.callback_data or "", mid)
    top = table.session.edits[-1]
    dice = next(b for b in buttons(top.reply_markup) if "Кубики" in b.text)
    await table.tap(BORIS, dice.callback_data or "", mid)
    group = table.session.edits[-1]
    assert "<b>Провал</b>: ни одного успеха и единица" in group.text
    botch = next(b for b in buttons(group.reply_markup) if b.text.startswith("Провал"))
    await table.tap(BORIS, botch.callback_data or "", mid)  # anyone may read the card
    card = table.session.edits[-1]
    assert card.text.startswith("🏠 <b>Провал</b>\n")  # no bare key beside the name
    assert "Набрать: <code>/rules set провал=…</code>" in card.text
    assert "в «Тёмных веках»: после того как единицы отменили успехи" in card.text
    assert "Сейчас: <b>ни одного успеха и единица</b>" in card.text
    values = [b.text for b in buttons(card.reply_markup)]
    assert values[:2] == ["✅ ни одного успеха и единица", "единица осталась после отмены"]
    net = buttons(card.reply_markup)[1].callback_data or ""
    await table.tap(BORIS, net, mid)
    assert table.session.answers[-1].show_alert
    assert (await table.store.load_chat(table.chat.id)).switches == {}
    await table.tap(ANNA, net, mid)
    await table.tap(ANNA, net, mid)  # a double tap: set once
    assert (await table.store.load_chat(table.chat.id)).switches == {"botch_rule": "net_negative"}
    assert "по книге: ни одного успеха и единица" in table.session.edits[-1].text
    back = next(b for b in buttons(table.session.edits[-1].reply_markup) if "Назад" in b.text)
    await table.tap(ANNA, back.callback_data or "", mid)
    assert "✏️ <b>Провал</b>: единица осталась после отмены" in table.session.edits[-1].text
    reset = next(b for b in buttons(table.session.edits[-1].reply_markup) if "Сбросить" in b.text)
    await table.tap(ANNA, reset.callback_data or "", mid)
    assert (await table.store.load_chat(table.chat.id)).switches == {}
    forged = HouseCallback(a="s", g=0, i=99, x=0).pack()
    await table.tap(ANNA, forged, mid)
    assert table.session.answers[-1].show_alert
    assert (await table.store.load_chat(table.chat.id)).switches == {}
    assert Group.DICE.value == "dice"


def test_house_buttons_have_their_own_prefix_and_still_read_the_old_one() -> None:
    """The menus once shared «hr» with the hidden rolls' «Раскрыть»; new ones are drawn with
    their own prefix and the ones already posted still parse."""
    assert HouseCallback(a="s", g=0, i=0, x=1).pack() == "ho:s:0:0:1"
    old = OldHouseCallback.unpack("hr:s:0:0:1")
    assert isinstance(old, HouseCallback)
    assert (old.a, old.g, old.i, old.x) == ("s", 0, 0, 1)
    for broken in ("hr:s:0:0", "hr:-100:3", "ho:s:x:0:0", "ho:s:0:0:1:2"):
        with pytest.raises((TypeError, ValueError)):
            HouseCallback.unpack(broken)
        with pytest.raises((TypeError, ValueError)):
            OldHouseCallback.unpack(broken)


async def test_old_and_new_house_buttons_both_set_and_broken_ones_are_refused(
    admin_table: Table,
) -> None:
    table = admin_table
    await table.say(ANNA, "/rules")
    mid = table.session.messages[-1].message_id
    botch_net = switches_of(Group.DICE).index(BY_KEY["botch_rule"])
    await table.tap(ANNA, f"hr:s:0:{botch_net}:1", mid)  # a menu posted before the new prefix
    assert (await table.store.load_chat(table.chat.id)).switches == {"botch_rule": "net_negative"}
    assert "<b>Провал</b>" in table.session.edits[-1].text
    await table.tap(ANNA, f"ho:s:0:{botch_net}:0", mid)
    assert (await table.store.load_chat(table.chat.id)).switches == {}
    for broken in ("hr:s:0:0", "ho:s:x:0:0", "ho:", "hr:s:0:0:1:2"):
        await table.tap(ANNA, broken, mid)
        answer = table.session.answers[-1]
        assert (answer.text, answer.show_alert) == ("Эта кнопка недействительна.", True)
    assert (await table.store.load_chat(table.chat.id)).switches == {}


async def test_switching_the_game_keeps_what_applies(admin_table: Table) -> None:
    table = admin_table
    await table.say(ANNA, "/rules set botch=net_negative combat.soak_difficulty=7")
    await table.say(ANNA, "/rules dark-ages")
    # Dark Ages' book already reads the botch that way: the override is no longer one
    assert (await table.store.load_chat(table.chat.id)).switches == {"combat.soak_difficulty": 7}
    await table.say(ANNA, "/rules d6")
    text = table.session.sent[-1].text
    assert "сняты: Сложность поглощения" in text
    assert (await table.store.load_chat(table.chat.id)).switches == {}


async def test_export_and_import_move_the_rules(admin_table: Table) -> None:
    table = admin_table
    await table.say(ANNA, "/rules set wp_auto_success=off threshold=off")
    await table.say(BORIS, "/rules export")
    line = table.session.sent[-1].text.splitlines()[-1].removeprefix("<code>")
    line = line.removesuffix("</code>")
    assert line == "sdb-rules-v1 порог=нет св_успех=нет"
    other = make_table(table.store, table.i18n)
    other.chat = other.chat.model_copy(update={"id": -2002})
    other.update_id = 1000  # one store: update ids must not repeat the first table's
    other.session.admins.add(ANNA.id)
    await other.say(ANNA, "/rules import " + line)
    assert (await other.store.load_chat(-2002)).switches == {
        "threshold_rule": False,
        "wp_auto_success": False,
    }


async def test_a_d6_switch_changes_a_d6_roll_and_tags_it(admin_table: Table) -> None:
    """AMB-D3: with «Нехватка мер — фиаско» one measure of two needed is a fiasco."""
    table = admin_table
    await table.say(ANNA, "/rules d6")
    await table.say(ANNA, "/rules set shortfall_is_fiasco=on")
    assert (await table.store.load_chat(table.chat.id)).switches == {"d6.shortfall_is_fiasco": True}
    for _ in range(40):
        await table.say(BORIS, "/r 2 2")
        text = table.session.sent[-1].text
        measures = sum(1 for f in text.splitlines()[1].split() if f.strip("<b>/u") in ("5", "6"))
        if measures == 1:
            break
    assert "<b>Фиаско</b>" in text
    assert "🏠 Нехватка мер — фиаско: да" in text


async def test_a_table_roll_owns_up_to_its_house_rule(admin_table: Table) -> None:
    table = admin_table
    await table.say(ANNA, "/rules set extended_botch=keep")
    await table.say(BORIS, "/ext 5 6 10")
    assert "🏠 Провал в длительном действии: остаётся" in table.session.sent[-1].text
    await table.say(ANNA, "/rules reset table")
    await table.say(BORIS, "/ext 5 6 10")
    assert "🏠" not in table.session.sent[-1].text


@pytest.mark.parametrize("switch", CATALOGUE, ids=lambda s: s.key)
async def test_every_switch_reaches_the_next_rolls_profile(table: Table, switch: Switch) -> None:
    """Typed by the Storyteller, each switch lands in the profile the next roll is made with
    (rules/ tests prove what each value does to a roll)."""
    from bot.house_rules import groups_for, value_of
    from rules import profiles

    table.session.admins.add(ANNA.id)
    game = {Group.D6: "d6", Group.VAMPIRE: "dark-ages"}.get(switch.group, "mage")
    await table.say(ANNA, f"/rules {game}")
    base = profiles.get(game)
    assert switch.group in groups_for(base)
    other = next(v for v in switch.values if v != value_of(base, switch))
    typed = "on" if other is True else "off" if other is False else str(other)
    await table.say(ANNA, f"/rules set {switch.key}={typed}")
    settings = await table.store.load_chat(table.chat.id)
    assert value_of(chat_profile(settings), switch) == other


async def test_a_cast_owns_up_to_a_magick_rule_and_english_reads_it(admin_table: Table) -> None:
    table = admin_table
    await table.say(ANNA, "/rules set magick.modifier_cap=2")
    await table.say(BORIS, "/set арете 3")
    await table.say(BORIS, "/m 3")
    assert "🏠 Предел модификаторов: 2" in table.session.sent[-1].text
    await table.say(ANNA, "/lang en")
    await table.say(BORIS, "/rules house")
    text = table.session.sent[-1].text
    assert "House rules of" in text
    assert "Modifier cap: 2 (the book: 3)" in text


async def test_the_odds_follow_the_house_rules_and_say_so(admin_table: Table) -> None:
    """/prob and the d6 wizard's live odds read the chat's switches (docs/product.md "/rules")."""
    table = admin_table
    await table.say(ANNA, "/prob 6 6")
    assert "🏠" not in table.session.sent[-1].text
    await table.say(ANNA, "/rules set botch=net_negative")
    await table.say(ANNA, "/prob 6 6")
    assert "🏠 " in table.session.sent[-1].text
    await table.say(ANNA, "/rules d6")
    await table.say(ANNA, "/prob 4 2")
    book = table.session.sent[-1].text
    await table.say(ANNA, "/rules set shortfall_is_fiasco=on")
    await table.say(ANNA, "/prob 4 2")
    house = table.session.sent[-1].text
    assert book != house  # falling short now counts as a fiasco
    assert "🏠 Нехватка мер — фиаско: да" in house
    await table.say(BORIS, "/r")
    wizard = table.session.messages[-1]

    async def odds_after(action: D6Action, x: int) -> tuple[float, float]:
        shown = table.session.edits[-1].reply_markup if table.session.edits else None
        for button in buttons(shown or wizard.reply_markup):
            parsed = D6Callback.unpack(button.callback_data or "")
            if parsed.a is action and parsed.x == x:
                await table.tap(BORIS, button.callback_data or "", wizard.message_id)
                line = next(
                    ln for ln in table.session.edits[-1].text.splitlines() if "фиаско" in ln
                )
                success, fiasco = (
                    float(n.replace(",", "."))
                    for n in re.findall(r"(\d+(?:[.,]\d+)?)\s?%", line)[:2]
                )
                return success, fiasco
        raise AssertionError(f"no {action} {x}")

    await odds_after(D6Action.CHANCE, 4)
    success, fiasco = await odds_after(D6Action.REQUIRED, 2)
    assert abs(success + fiasco - 100) < 0.2  # short of two measures is a fiasco too
    await table.say(ANNA, "/rules set shortfall_is_fiasco=off")
    success, fiasco = await odds_after(D6Action.REQUIRED, 1)
    success, fiasco = await odds_after(D6Action.REQUIRED, 2)
    assert abs(fiasco - 19.8) < 0.2  # the book: no measure at all among four dice, (2/3)⁴


async def test_the_tracker_and_the_barrier_own_up_to_their_house_rules(
    admin_table: Table,
) -> None:
    table = admin_table
    await table.say(ANNA, "/rules set wound_penalty_on_initiative=on botch=net_negative")
    await table.say(BORIS, "/init 7")
    [tag] = [ln for ln in table.session.sent[-1].text.splitlines() if ln.startswith("🏠")]
    assert tag.count("; ") == 0  # one rule: a dice rule means nothing to the tracker
    await table.say(ANNA, "/rules set magick.modifier_cap=4")
    assert (await table.store.load_chat(table.chat.id)).switches["magick.modifier_cap"] == 4
    await table.say(BORIS, "/set арете 3")
    await table.say(BORIS, "/barrier")
    assert "🏠 " in table.session.sent[-1].text


async def test_house_rules_typed_in_russian(admin_table: Table) -> None:
    """Every switch has a Russian name and every value a Russian word, shown in the answers."""
    table = admin_table
    await table.say(ANNA, "/rules set провал=после_отмены повтор=без_штрафа автоуспех=нет")
    assert (await table.store.load_chat(table.chat.id)).switches == {
        "botch_rule": "net_negative",
        "retry_penalty": "none",
        "auto_success": False,
    }
    await table.say(ANNA, "/rules set Провал-Длительного=Остаётся сложность_поглощения=7")
    switches = (await table.store.load_chat(table.chat.id)).switches
    assert switches["extended_botch"] == "keep"
    assert switches["combat.soak_difficulty"] == 7
    await table.say(ANNA, "/rules house")
    top = table.session.sent[-1].text
    assert "/rules set провал=" in top
    await table.say(ANNA, "/rules reset бой")
    assert "combat.soak_difficulty" not in (await table.store.load_chat(table.chat.id)).switches


@pytest.mark.parametrize("switch", CATALOGUE, ids=lambda s: s.key)
async def test_every_switch_is_typed_in_russian_and_its_card_has_no_codes(
    table: Table, switch: Switch
) -> None:
    from bot.house_rules import value_of
    from handlers.settings.house import GROUP_ORDER
    from rules import profiles
    from table.vocabulary import HOUSE_RULE_NAMES, HOUSE_RULE_VALUES

    table.session.admins.add(ANNA.id)
    game = {Group.D6: "d6", Group.VAMPIRE: "dark-ages"}.get(switch.group, "mage")
    await table.say(ANNA, f"/rules {game}")
    base = profiles.get(game)
    other = next(v for v in switch.values if v != value_of(base, switch))
    typed = (
        "да" if other is True else "нет" if other is False else HOUSE_RULE_VALUES.get(str(other))
    )
    await table.say(ANNA, f"/rules set {HOUSE_RULE_NAMES[switch.key]}={typed or other}")
    settings = await table.store.load_chat(table.chat.id)
    assert value_of(chat_profile(settings), switch) == other
    group = GROUP_ORDER.index(switch.group)
    card = HouseCallback(a="c", g=group, i=switches_of(switch.group).index(switch)).pack()
    await table.tap(ANNA, card, 999)
    shown = table.session.edits[-1].text
    assert HOUSE_RULE_NAMES[switch.key] in shown
    assert not re.search(r"\bS[0-4]\b|§|AMB-|[a-z]_[a-z]", shown), shown
