"""The screen's step, pure: a roll asked of a player, and a copy with no sheet of its own."""

from __future__ import annotations

from bot.runner import Advance, Delegate, Known, Refuse
from handlers.screen import view
from handlers.screen.callbacks import ScreenAction, ScreenCallback
from handlers.screen.flow import Panel, ScreenFlow
from handlers.screen.table import Campaign, Character
from handlers.screen.tap import step
from rules.profiles import HOUSE_MAGE
from rules.sheet import SheetSystem, new_sheet, set_trait
from table.store import ChatSettings
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of

ST = BORIS
SHEET = set_trait(new_sheet(SheetSystem.MAGE), "willpower", 4)
PLAYER = Character("u:1", "Аня", SHEET, user_id=ANNA.id)
COPY = Character("n:Гуль 2", "Гуль 2", None, npc="Гуль 2", base=SHEET)
CAMPAIGN = Campaign(
    chat_id=-100,
    title="Хроника",
    settings=ChatSettings(storyteller_id=ST.id),
    profile=HOUSE_MAGE,
    players=(PLAYER,),
    npcs=(COPY,),
    fight=None,
)
SCREEN = ScreenFlow(campaign=-100, title="Хроника", roster=("u:1", "n:Гуль 2"))


def press(state: ScreenFlow, action: ScreenAction, i: int = 0) -> object:
    known = Known(flow=flow_of(state, owner=ST.id), profile=HOUSE_MAGE, read=CAMPAIGN)
    data = ScreenCallback(f="f1", v=1, a=action, i=i)
    return step(state, data, ST, known, Faces([]))


def on(target: str, **more: object) -> ScreenFlow:
    return SCREEN.model_copy(update={"panel": Panel.CHARACTER, "target": target, **more})


def test_a_roll_is_asked_of_a_player_through_the_pool_and_difficulty_panels() -> None:
    opened = press(on("u:1"), ScreenAction.REQUEST)
    assert isinstance(opened, Advance)
    assert opened.state.panel is Panel.POOL
    assert opened.state.asking
    pool = press(opened.state, ScreenAction.POOL, 0)
    assert isinstance(pool, Advance)
    assert pool.state.panel is Panel.DIFFICULTY
    asked = press(pool.state, ScreenAction.DIFFICULTY, 2)
    assert isinstance(asked, Delegate)  # the request is posted in the group, not stored here
    secret = press(on("u:1"), ScreenAction.SECRET)
    assert isinstance(secret, Advance)
    assert not secret.state.asking  # the same panels roll in secret again


def test_an_npc_is_not_asked_for_a_roll() -> None:
    refused = press(on("n:Гуль 2"), ScreenAction.REQUEST)
    assert isinstance(refused, Refuse)
    assert refused.answer is view.only_players_asked_text
    forged = press(
        on("n:Гуль 2", panel=Panel.DIFFICULTY, pool=0, asking=True), ScreenAction.DIFFICULTY
    )
    assert isinstance(forged, Refuse)


def test_a_copy_without_a_sheet_takes_a_change_on_the_sheet_it_starts() -> None:
    wounded = press(on("n:Гуль 2"), ScreenAction.LETHAL)
    assert isinstance(wounded, Delegate)
    spent = press(on("n:Гуль 2"), ScreenAction.WILLPOWER)
    assert isinstance(spent, Delegate)  # its group's Willpower, before the copy has a sheet
    bare = Character("n:Упырь 1", "Упырь 1", None, npc="Упырь 1")
    alone = Campaign(**{**CAMPAIGN.__dict__, "npcs": (bare,)})
    known = Known(flow=flow_of(SCREEN, owner=ST.id), profile=HOUSE_MAGE, read=alone)
    state = on("n:Упырь 1")
    nothing = step(state, ScreenCallback(f="f1", v=1, a=ScreenAction.LETHAL), ST, known, Faces([]))
    assert isinstance(nothing, Refuse)  # neither a sheet nor one to start
