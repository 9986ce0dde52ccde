"""The round tracker's step, pure (bot/runner.py): a round and a press in, an Outcome out;
no Redis, no bot."""

from __future__ import annotations

from bot.runner import Actor, Advance, Delegate, Known, Open, Refuse
from handlers.combat.tracker.callbacks import PANELS, InitAction, InitCallback, Panel
from handlers.combat.tracker.flow import InitFlow, NoteKind
from handlers.combat.tracker.tap import TAP, Table, needs_storyteller, step
from rules.combat import tracker
from rules.combat.situation import Condition
from rules.combat.tracker import Phase, Round
from rules.profiles import HOUSE_MAGE
from rules.sheet import Sheet, SheetSystem, new_sheet, set_trait, set_willpower
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of, speaking

VERA = Actor(id=3, name="Вера")
VERSION = 3


def joined(*who: tuple[Actor, int]) -> Round:
    current = Round()
    for actor, base in who:
        current = tracker.join(
            current,
            key=tracker.player_key(actor.id),
            name=actor.name,
            user_id=actor.id,
            dex_wits=base,
            rng=Faces([5]),
        )
    return current


def resolving() -> InitFlow:
    """Борис (initiative 9 + 5) acts first, Вера (1 + 5) after him."""
    current = tracker.start_declarations(joined((BORIS, 9), (VERA, 1)), rng=Faces([]))
    current = tracker.declare(current, tracker.player_key(VERA.id))
    current = tracker.declare(current, tracker.player_key(BORIS.id))
    assert current.phase is Phase.RESOLVE
    return InitFlow(round=current)


def knowing(
    state: InitFlow, *, storyteller: bool = False, sheet: Sheet | None = None
) -> Known[Table]:
    return Known(
        flow=flow_of(state, version=VERSION),
        profile=HOUSE_MAGE,
        read=Table(storyteller=storyteller, sheet=sheet),
    )


def press(action: InitAction, x: int = 0, v: int = VERSION) -> InitCallback:
    return InitCallback(f="f1", v=v, a=action, x=x)


def alert_of(outcome: object) -> str:
    answer = getattr(outcome, "answer", None)
    assert answer is not None
    with speaking():
        return str(answer())


def test_a_player_with_dexterity_and_wits_rolls_in() -> None:
    sheet = set_trait(set_trait(new_sheet(SheetSystem.MAGE), "dexterity", 3), "wits", 2)
    state = InitFlow()
    outcome = step(state, press(InitAction.ROLL), ANNA, knowing(state, sheet=sheet), Faces([7]))
    assert isinstance(outcome, Advance | Open)
    (fighter,) = outcome.state.round.fighters
    assert fighter.key == tracker.player_key(ANNA.id)
    assert fighter.score == 5 + 7
    assert not outcome.spends
    assert outcome.answer is None


def test_a_player_without_the_traits_is_asked_for_a_base() -> None:
    state = InitFlow()
    outcome = step(state, press(InitAction.ROLL), ANNA, knowing(state), Faces([]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.pending == ((ANNA.id, ANNA.name),)
    assert outcome.state.round.fighters == ()
    assert not outcome.alert
    assert alert_of(outcome)


def test_a_second_press_of_a_phase_step_is_a_repeat() -> None:
    state = resolving()
    taken = state.round.step + 1  # drawn for a step already taken
    outcome = step(state, press(InitAction.NEXT, taken), BORIS, knowing(state), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.heal


def test_the_one_acting_moves_the_round_on_and_nobody_else_may() -> None:
    state = resolving()
    now = state.round.step
    outcome = step(state, press(InitAction.NEXT, now), BORIS, knowing(state), Faces([]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.round.step == now + 1
    refused = step(state, press(InitAction.NEXT, now), VERA, knowing(state), Faces([]))
    assert isinstance(refused, Refuse)
    assert refused.alert
    assert "Борис" in alert_of(refused)
    by_storyteller = step(
        state, press(InitAction.NEXT, now), ANNA, knowing(state, storyteller=True), Faces([])
    )
    assert isinstance(by_storyteller, Advance | Open)


def test_a_button_naming_a_participant_needs_the_drawing_it_was_pressed_on() -> None:
    state = resolving()
    outcome = step(state, press(InitAction.REMOVE, 0, v=VERSION - 1), BORIS, knowing(state), None)
    assert isinstance(outcome, Refuse)
    assert outcome.heal
    assert outcome.alert


def test_the_storyteller_alone_ends_the_fight_and_the_end_unpins_it() -> None:
    state = resolving()
    refused = step(state, press(InitAction.END), BORIS, knowing(state), None)
    assert isinstance(refused, Refuse)
    assert refused.alert
    ended = step(state, press(InitAction.END), ANNA, knowing(state, storyteller=True), None)
    assert isinstance(ended, Advance | Open)
    assert ended.state.ended
    assert ended.close
    assert isinstance(ended, Advance)
    assert ended.ends_live == "init"  # the chat points at no tracker, the message is unpinned


def test_conditions_leave_the_sheets_with_the_fight_in_the_same_step() -> None:
    state = resolving()
    vera = tracker.player_key(VERA.id)
    downed = state.model_copy(
        update={"round": tracker.toggle_condition(state.round, vera, Condition.PRONE)}
    )
    ended = step(downed, press(InitAction.END), ANNA, knowing(downed, storyteller=True), None)
    assert ended.spends
    assert ended.spends[0].user_id == VERA.id
    assert ended.spends[1:] == ()


def test_a_condition_toggled_is_written_to_the_sheet_with_the_step() -> None:
    state = resolving().model_copy(update={"picked": tracker.player_key(VERA.id)})
    x = tuple(Condition).index(Condition.PRONE)
    known = knowing(state, storyteller=True)
    outcome = step(state, press(InitAction.CONDITION, x), ANNA, known, None)
    assert isinstance(outcome, Advance | Open)
    assert outcome.spends
    assert outcome.spends[0].create
    changed = outcome.spends[0].change(new_sheet(SheetSystem.MAGE))
    assert changed is not None
    assert Condition.PRONE in changed.conditions


def test_anyone_opens_the_interruption_panel() -> None:
    state = resolving()
    x = PANELS.index(Panel.INTERRUPT)
    assert not needs_storyteller(state, InitAction.PANEL, x, VERA.id)
    outcome = step(state, press(InitAction.PANEL, x), VERA, knowing(state), None)
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.panel is Panel.INTERRUPT


def test_an_interruption_by_a_willpower_roll_needs_one_success() -> None:
    state = resolving()
    vera = next(i for i, f in enumerate(state.round.fighters) if f.user_id == VERA.id)
    sheet = set_willpower(new_sheet(SheetSystem.MAGE), 3)
    known = knowing(state, sheet=sheet)
    outcome = step(state, press(InitAction.INTERRUPT, vera), VERA, known, Faces([2, 3, 8]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.note is not None
    assert outcome.state.note.kind is NoteKind.INTERRUPT
    assert outcome.state.note.ok
    assert not outcome.spends
    failed = step(state, press(InitAction.INTERRUPT, vera), VERA, known, Faces([2, 3, 4]))
    assert isinstance(failed, Advance | Open)
    assert failed.state.note is not None
    assert not failed.state.note.ok
    assert failed.state.round == state.round


def test_an_interruption_for_a_point_spends_it_with_the_step() -> None:
    state = resolving()
    vera = next(i for i, f in enumerate(state.round.fighters) if f.user_id == VERA.id)
    sheet = set_willpower(new_sheet(SheetSystem.MAGE), 3)
    outcome = step(
        state, press(InitAction.INTERRUPT_SPEND, vera), VERA, knowing(state, sheet=sheet), None
    )
    assert isinstance(outcome, Advance | Open)
    assert outcome.spends
    assert outcome.spends[0].user_id == VERA.id
    assert outcome.state.note is not None
    assert outcome.state.note.willpower_left == (2, 3)
    with speaking():  # the point went before the write: the presser is told, nothing stored
        assert "0 of 3" in outcome.unpaid()


def test_a_second_point_in_the_same_round_is_refused() -> None:
    """§A.7 S0 «только один раз за ход»: the first spend marks the round, a second is refused
    with nothing changed, whatever points are left."""
    state = resolving()
    vera = next(i for i, f in enumerate(state.round.fighters) if f.user_id == VERA.id)
    key = state.round.fighters[vera].key
    sheet = set_willpower(new_sheet(SheetSystem.MAGE), 3)
    outcome = step(
        state, press(InitAction.INTERRUPT_SPEND, vera), VERA, knowing(state, sheet=sheet), None
    )
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.round.spent_willpower(key)
    spent = state.model_copy(update={"round": tracker.spend_willpower(state.round, key)})
    again = step(
        spent, press(InitAction.INTERRUPT_SPEND, vera), VERA, knowing(spent, sheet=sheet), None
    )
    assert isinstance(again, Refuse)
    assert again.answer is not None
    with speaking("ru"):
        assert "Сила Воли в этом ходу уже потрачена" in again.answer()


def test_attack_opens_the_panel_and_stores_nothing_on_the_tracker() -> None:
    state = resolving()
    outcome = step(state, press(InitAction.ATTACK, state.round.step), BORIS, knowing(state), None)
    assert isinstance(outcome, Delegate)  # the panel opens on its own road


def test_a_stand_up_without_a_knockdown_is_an_invalid_button() -> None:
    state = resolving()
    outcome = step(state, press(InitAction.STAND_UP, state.round.step), BORIS, knowing(state), None)
    assert isinstance(outcome, Refuse)
    assert outcome.alert


def test_the_storyteller_is_asked_only_where_the_step_may_need_it() -> None:
    state = resolving()
    now = state.round.step
    assert not needs_storyteller(state, InitAction.ROLL, 0, VERA.id)
    assert not needs_storyteller(state, InitAction.NEXT, now, BORIS.id)
    assert needs_storyteller(state, InitAction.NEXT, now, VERA.id)
    assert needs_storyteller(state, InitAction.END, 0, BORIS.id)


def test_anyone_presses_the_tracker_and_the_step_decides() -> None:
    assert TAP.read is not None
    assert not TAP.current_only


def test_the_ambush_panel_is_for_those_in_the_fight_before_it_begins() -> None:
    """§B.7 from the tracker: the panel opens for a fighter while the fight gathers; a victim
    pressed hands the contest to the ambush (a Delegate); no Storyteller is asked."""
    state = InitFlow(round=joined((BORIS, 9), (VERA, 1)))
    opens = PANELS.index(Panel.AMBUSH)
    assert not needs_storyteller(state, InitAction.PANEL, opens, BORIS.id)
    assert not needs_storyteller(state, InitAction.AMBUSH, 1, BORIS.id)
    outcome = step(state, press(InitAction.PANEL, opens), BORIS, knowing(state), Faces([]))
    assert isinstance(outcome, Advance)
    assert outcome.state.panel is Panel.AMBUSH
    opened = outcome.state
    pressed = step(opened, press(InitAction.AMBUSH, 1), BORIS, knowing(opened), Faces([]))
    assert isinstance(pressed, Delegate)
    outsider = step(state, press(InitAction.PANEL, opens), ANNA, knowing(state), Faces([]))
    assert isinstance(outsider, Refuse)
    assert "not in the fight" in alert_of(outsider)
    late = resolving()
    refused = step(late, press(InitAction.PANEL, opens), BORIS, knowing(late), Faces([]))
    assert isinstance(refused, Refuse)
    assert "round 1 is already under way" in alert_of(refused)
