"""The settings buttons' steps, pure (bot/runner.py ``RecordTap``): the chat's settings and a
press in, a case out; no Redis, no bot."""

from __future__ import annotations

from bot import house_rules
from bot.access import GameAccess
from bot.runner import Change, Keep, Refuse, Seen
from handlers.settings import house
from handlers.settings.callbacks import HouseCallback, LangCallback, ProfileCallback
from handlers.settings.router import house_step, house_view, lang_step, profile_step
from rules.profiles import HOUSE_MAGE
from table.store import ChatSettings
from tests.handlers.stepping import ANNA, speaking

SETTINGS = ChatSettings(profile="mage", switches={})


def seen(read: object) -> Seen[object]:
    return Seen(profile=HOUSE_MAGE, read=read)


def test_a_language_is_set_only_by_whoever_may_and_only_to_a_known_one() -> None:
    changed = lang_step(SETTINGS, LangCallback(code="en"), ANNA, seen(True))
    assert isinstance(changed, Change)
    assert changed.after.locale == "en"
    assert isinstance(lang_step(SETTINGS, LangCallback(code="en"), ANNA, seen(False)), Refuse)
    assert isinstance(lang_step(SETTINGS, LangCallback(code="xx"), ANNA, seen(True)), Refuse)


def test_a_game_switch_keeps_the_house_rules_that_still_apply() -> None:
    allowed = seen(GameAccess.ALLOWED)
    switched = profile_step(SETTINGS, ProfileCallback(name="dark-ages"), ANNA, allowed)
    assert isinstance(switched, Change)
    assert switched.after.profile == "dark-ages"
    denied = seen(GameAccess.DENIED)
    assert isinstance(
        profile_step(SETTINGS, ProfileCallback(name="dark-ages"), ANNA, denied), Refuse
    )
    assert isinstance(profile_step(SETTINGS, ProfileCallback(name="nope"), ANNA, allowed), Refuse)


def test_anyone_browses_the_house_rules_and_only_the_storyteller_changes_them() -> None:
    group = house_rules.groups_for(HOUSE_MAGE)[0]
    g = house.GROUP_ORDER.index(group)
    browse = HouseCallback(a="g", g=g)
    assert isinstance(house_step(SETTINGS, browse, ANNA, seen(None)), Keep)
    switch = house_rules.switches_of(group)[0]
    setting = HouseCallback(a="s", g=g, i=0, x=len(switch.values) - 1)
    refused = house_step(SETTINGS, setting, ANNA, seen(GameAccess.DENIED))
    assert isinstance(refused, Refuse)
    changed = house_step(SETTINGS, setting, ANNA, seen(GameAccess.ALLOWED))
    assert isinstance(changed, Change)
    assert changed.after.switches != SETTINGS.switches
    with speaking("ru"):
        text, markup = house_view(changed.after, setting, seen(GameAccess.ALLOWED))
    assert markup is not None  # the switch's card, showing its new value
    assert text


def test_a_forged_house_button_is_an_invalid_one() -> None:
    allowed = seen(GameAccess.ALLOWED)
    for forged in (
        HouseCallback(a="s", g=0, i=999),
        HouseCallback(a="c", g=0, i=-1),
        HouseCallback(a="?", g=0),
        HouseCallback(a="r", g=999),
    ):
        assert isinstance(house_step(SETTINGS, forged, ANNA, allowed), Refuse), forged
