"""The ambush contest's pure step and its message (docs/rules.md §B.7).

S4 «Засада (соревнование Ловкость + Скрытность против Восприятие + Бдительность жертвы)
позволяет нанести атаку до начала боя».
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiogram.utils.i18n import I18n

from handlers.combat.ambush import steps, view
from handlers.combat.tracker.flow import InitFlow
from rules.combat import tracker
from rules.combat.tracker import Round
from rules.health import DamageType, apply_damage
from rules.profiles import HOUSE_MAGE, CombatOptions, Profile
from rules.sheet import Sheet, SheetSystem, new_sheet, set_health, set_trait
from tests.handlers.dealt import Dealt

ANNA = tracker.player_key(1)
GHOUL = tracker.npc_key("Гуль")


@pytest.fixture(autouse=True)
def russian(i18n: I18n) -> Iterator[None]:
    with i18n.context(), i18n.use_locale("ru"):
        yield


def sheet(**traits: int) -> Sheet:
    made = new_sheet(SheetSystem.MAGE)
    for code, value in traits.items():
        made = set_trait(made, code, value, HOUSE_MAGE)
    return made


SNEAK = sheet(dexterity=3, stealth=2)  # 5 dice
WATCH = sheet(perception=2, alertness=1)  # 3 dice


def gathering() -> InitFlow:
    current = Round()
    current = tracker.join(current, key=ANNA, name="Аня", user_id=1, dex_wits=5, face=5)
    current = tracker.join(current, key=GHOUL, name="Гуль", dex_wits=4, face=5)
    return InitFlow(round=current)


def rolled(
    faces: list[int],
    *,
    state: InitFlow | None = None,
    sheets: dict[str, Sheet | None] | None = None,
    profile: Profile = HOUSE_MAGE,
) -> steps.Contest:
    found = {ANNA: SNEAK, GHOUL: WATCH} if sheets is None else sheets
    return steps.contest(state or gathering(), (ANNA, GHOUL), found, profile, Dealt(faces))


def refusal(faces: list[int], **kwargs: object) -> str:
    with pytest.raises(steps.Refused) as refused:
        rolled(faces, **kwargs)  # type: ignore[arg-type]
    return refused.value.text()


def test_the_ambusher_who_wins_outright_strikes_an_undefended_victim() -> None:
    contest = rolled([8, 9, 7, 2, 3, 6, 2, 3])  # 3 successes against 1
    assert contest.won
    assert not contest.victim_defends
    assert contest.sneak.successes == 3
    assert contest.watch is not None
    assert contest.watch.successes == 1
    text = view.contest_text(
        "Аня",
        "Гуль",
        (contest.sneak_pool, contest.sneak),
        (contest.watch_pool, contest.watch),
        (contest.won, contest.victim_defends),
        HOUSE_MAGE,
    )
    assert "🥷 <b>Засада</b>: Аня → Гуль" in text
    assert "Аня: Ловкость 3 + Скрытность 2" in text
    assert "Гуль: Восприятие 2 + Бдительность 1" in text
    assert "жертва не защищается" in text


def test_a_tie_or_the_victims_win_spots_the_ambush() -> None:
    tie = rolled([8, 2, 2, 2, 2, 9, 2, 3])
    assert not tie.won
    assert tie.victim_defends
    lost = rolled([2, 2, 2, 2, 2, 9, 2, 3])
    assert not lost.won
    text = view.contest_text(
        "Аня",
        "Гуль",
        (tie.sneak_pool, tie.sneak),
        (tie.watch_pool, tie.watch),
        (tie.won, tie.victim_defends),
        HOUSE_MAGE,
    )
    assert "Засада раскрыта" in text
    assert "жертва" not in text


def test_the_house_rule_lets_the_victim_defend() -> None:
    house = HOUSE_MAGE.model_copy(update={"combat": CombatOptions(ambush_victim_defends=True)})
    contest = rolled([8, 9, 7, 2, 3, 6, 2, 3], profile=house)
    assert contest.won
    assert contest.victim_defends
    text = view.contest_text(
        "Аня",
        "Гуль",
        (contest.sneak_pool, contest.sneak),
        (contest.watch_pool, contest.watch),
        (True, True),
        house,
    )
    assert "жертва может защищаться" in text


def test_wounds_take_dice_off_the_ambusher() -> None:
    hurt = set_health(
        SNEAK, apply_damage(SNEAK.health, DamageType.BASHING, 2, HOUSE_MAGE.combat).track
    )
    contest = rolled([8, 9, 7, 2, 2, 2, 3], sheets={ANNA: hurt, GHOUL: WATCH})
    assert len(contest.sneak.faces) == 4  # Задет: −1
    assert contest.sneak_pool.wound_penalty == -1


def test_no_sheet_or_no_trait_says_what_to_set() -> None:
    said = refusal([], sheets={ANNA: None, GHOUL: WATCH})
    assert "Аня" in said
    assert "/set" in said
    said = refusal([], sheets={ANNA: sheet(dexterity=3), GHOUL: WATCH})
    assert "Скрытность" in said
    assert "/set" in said
    said = refusal([8, 9, 7, 2, 3], sheets={ANNA: SNEAK, GHOUL: sheet(perception=2)})
    assert "Гуль" in said
    assert "Бдительность" in said


def test_a_second_ambush_in_the_fight_is_refused() -> None:
    state = gathering().model_copy(update={"ambushed": (ANNA,)})
    said = refusal([8, 9, 7, 2, 3, 6, 2, 3], state=state)
    assert "Аня" in said
    assert "засад" in said


def test_an_ambush_comes_before_round_one_is_resolved() -> None:
    state = gathering()
    resolving = tracker.start_declarations(state.round, rng=Dealt([]))
    declaring = state.model_copy(update={"round": resolving})
    assert rolled([8, 9, 7, 2, 3, 6, 2, 3], state=declaring).won  # round 1's declarations
    late = declaring.model_copy(update={"round": resolving.model_copy(update={"number": 2})})
    assert "первый раунд" in refusal([], state=late)


def test_nobody_ambushes_themselves() -> None:
    with pytest.raises(steps.Refused):
        steps.contest(gathering(), (ANNA, ANNA), {ANNA: SNEAK}, HOUSE_MAGE, Dealt([]))


def test_names_pick_the_ambusher_and_the_victim() -> None:
    current = gathering().round
    assert steps.pick(current, ["гуль"], ANNA, storyteller=False) == (ANNA, GHOUL)
    assert steps.pick(current, ["Гуль", "аня"], "", storyteller=True) == (GHOUL, ANNA)
    assert steps.pick(current, ["аня", "гуль"], "", storyteller=True) == (ANNA, GHOUL)
    with pytest.raises(steps.Refused):  # a player names only the victim
        steps.pick(current, ["аня", "гуль"], ANNA, storyteller=False)
    with pytest.raises(steps.Refused):
        steps.pick(current, ["Борис"], ANNA, storyteller=False)
    with pytest.raises(steps.Refused):  # the Storyteller's own character is not in the fight
        steps.pick(current, ["Гуль"], tracker.player_key(9), storyteller=True)
    with pytest.raises(steps.Refused):
        steps.pick(current, [], ANNA, storyteller=False)
