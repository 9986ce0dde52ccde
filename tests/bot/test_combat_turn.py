"""A character's turn in the chat's fight, for a roll that spends Willpower (bot/combat.py,
docs/rules.md §A.7: once a turn in a fight, no limit outside one). Pure: the tracker as
loaded in, the turn out."""

from __future__ import annotations

from bot.combat import fighter_key, willpower_turn
from rules.combat import tracker
from table.store import Flow, Live, Screen
from tests.handlers.stepping import GROUP, Faces


def _tracker(current: tracker.Round, **more: object) -> tuple[Flow, Live]:
    flow = Flow(
        id="t1",
        kind="init",
        chat_id=GROUP,
        owner_id=1,
        version=4,
        data={"round": current.model_dump(mode="json"), **more},
        screen=Screen(text="⚔️"),
    )
    return flow, Live(flow="t1", message=10)


def _fight() -> tracker.Round:
    current = tracker.join(tracker.Round(), key="u1", name="Аня", dex_wits=4, rng=Faces([5]))
    return tracker.join(current, key="n:гуль", name="Гуль", dex_wits=3, rng=Faces([2]))


def test_outside_a_fight_there_is_no_turn() -> None:
    assert willpower_turn(None, "u1") is None


def test_one_not_in_the_fight_has_no_turn_either() -> None:
    assert willpower_turn(_tracker(_fight()), "u9") is None
    assert willpower_turn(_tracker(_fight(), ended=True), "u1") is None


def test_a_first_point_is_marked_on_the_round_with_the_roll() -> None:
    turn = willpower_turn(_tracker(_fight()), "u1")
    assert turn is not None
    assert (turn.round_no, turn.spent) == (1, False)
    assert turn.mark is not None
    assert turn.mark.drawn is None  # nothing the tracker shows changes
    step = turn.mark.step
    assert step.strict
    assert step.version == 4
    assert step.screen == Screen(text="⚔️")
    assert isinstance(step.state, dict)
    marked = tracker.Round.model_validate(step.state["round"])
    assert marked.spent_willpower("u1")
    assert not marked.spent_willpower("n:гуль")


def test_a_second_point_in_the_same_round_is_told_with_the_round() -> None:
    spent = tracker.spend_willpower(_fight(), "n:гуль")
    turn = willpower_turn(_tracker(spent), fighter_key(1, "Гуль"))
    assert turn is not None
    assert (turn.round_no, turn.spent, turn.mark) == (1, True, None)
    assert willpower_turn(_tracker(spent), fighter_key(1, None)).spent is False  # type: ignore[union-attr]


def test_a_damaged_tracker_counts_no_turn() -> None:
    flow, live = _tracker(_fight())
    broken = flow.model_copy(update={"data": {"round": {"number": "x"}}})
    assert willpower_turn((broken, live), "u1") is None
