"""The combat round as the tracker walks it (docs/rules.md §B.1–§B.2, AMB-B1, §A.9)."""

from __future__ import annotations

import random

import pytest

from rules.combat import tracker
from rules.combat.holds import StandUp
from rules.combat.situation import Condition
from rules.combat.tracker import Phase, Round
from rules.errors import ErrorCode
from rules.profiles import CombatOptions
from tests.rules.helpers import refused


def _round(*entries: tuple[str, int, int]) -> Round:
    """A gathered round: (name, Dexterity + Wits, die) each."""
    current = Round()
    for name, base, face in entries:
        current = tracker.join(
            current, key=tracker.npc_key(name), name=name, dex_wits=base, face=face
        )
    return current


def test_join_scores_dex_plus_wits_plus_die() -> None:
    current = _round(("Аня", 7, 4))
    fighter = current.fighters[0]
    assert (fighter.score, fighter.dex_wits, fighter.die) == (11, 7, 4)
    assert fighter.npc


def test_joining_twice_is_refused() -> None:
    current = _round(("Аня", 7, 4))
    refused(
        ErrorCode.STATE, tracker.join, current, key=tracker.npc_key("аня"), name="x", dex_wits=3
    )


def test_declarations_ascend_and_resolution_descends() -> None:
    current = _round(("Аня", 7, 4), ("Гуль", 5, 2), ("Борис", 9, 9))
    current = tracker.start_declarations(current, rng=random.Random(1))
    keys = {f.name: f.key for f in current.fighters}
    assert current.order == (keys["Борис"], keys["Аня"], keys["Гуль"])
    assert current.declarer() == keys["Гуль"]
    refused(ErrorCode.STATE, tracker.declare, current, keys["Аня"])
    current = tracker.declare(current, keys["Гуль"])
    current = tracker.more_actions(current, keys["Аня"])
    current = tracker.declare(current, keys["Аня"])
    current = tracker.declare(current, keys["Борис"])
    assert current.phase is Phase.RESOLVE
    seen = []
    while current.phase is Phase.RESOLVE:
        actor = current.actor()
        assert actor is not None
        seen.append(actor)
        current = tracker.advance(current)
    # phase III descending, then phase IV: Аня's second action (§A.9)
    assert seen == [(keys["Борис"], 1), (keys["Аня"], 1), (keys["Гуль"], 1), (keys["Аня"], 2)]
    assert current.phase is Phase.DONE


def test_ties_go_to_higher_dex_wits_then_a_coin() -> None:
    current = _round(("Низкий", 4, 8), ("Высокий", 8, 4))
    current = tracker.start_declarations(current, rng=random.Random(3))
    assert current.order[0] == tracker.npc_key("Высокий")
    off = CombatOptions(initiative_tie_by_dex_wits=False)
    firsts = {
        tracker.start_declarations(
            _round(("Низкий", 4, 8), ("Высокий", 8, 4)), rng=random.Random(s), options=off
        ).order[0]
        for s in range(30)
    }
    assert len(firsts) == 2  # a coin decides


def test_delay_lets_the_next_act_first_within_the_pass() -> None:
    current = _round(("А", 9, 9), ("Б", 5, 5), ("В", 1, 1))
    current = tracker.start_declarations(current)
    for _ in range(3):
        declarer = current.declarer()
        assert declarer is not None
        current = tracker.declare(current, declarer)
    first = current.actor()
    assert first is not None
    assert first[0] == tracker.npc_key("А")
    assert current.can_delay()
    current = tracker.delay(current)
    assert [k for k, _ in current.schedule] == ["n:б", "n:а", "n:в"]
    current = tracker.advance(tracker.advance(current))
    assert current.actor() == ("n:в", 1)
    assert not current.can_delay()
    refused(ErrorCode.STATE, tracker.delay, current)


def test_a_late_arrival_waits_for_the_next_round() -> None:
    current = tracker.start_declarations(_round(("А", 5, 5)))
    current = tracker.join(current, key="u7", name="Поздний", dex_wits=6, user_id=7, face=3)
    late = current.fighter("u7")
    assert late is not None
    assert late.waiting
    assert "u7" not in current.order
    current = tracker.declare(current, "n:а")
    current = tracker.advance(current)
    assert current.phase is Phase.DONE
    current = tracker.new_round(current, rng=random.Random(2))
    assert current.number == 2
    assert current.phase is Phase.DECLARE
    assert set(current.order) == {"n:а", "u7"}
    assert all(not f.waiting for f in current.fighters)


def test_new_round_rerolls_everyone_and_takes_changed_sheets() -> None:
    current = tracker.start_declarations(_round(("А", 5, 5), ("Б", 3, 1)))
    rolled = tracker.new_round(current, rng=random.Random(9), dex_wits={"n:б": 8})
    b = rolled.fighter("n:б")
    assert b is not None
    assert b.dex_wits == 8
    assert b.actions == 1


def test_leaving_mid_declaration_keeps_the_count_right() -> None:
    current = tracker.start_declarations(_round(("А", 9, 9), ("Б", 5, 5), ("В", 1, 1)))
    current = tracker.declare(current, "n:в")
    current = tracker.leave(current, "n:в")
    assert current.declarer() == "n:б"
    current = tracker.leave(current, "n:б")
    assert current.declarer() == "n:а"
    current = tracker.declare(current, "n:а")
    assert current.phase is Phase.RESOLVE
    assert current.schedule == (("n:а", 1),)
    current = tracker.leave(current, "n:а")
    assert current.phase is Phase.DONE


def test_leaving_mid_resolution_drops_only_unresolved_actions() -> None:
    current = tracker.start_declarations(_round(("А", 9, 9), ("Б", 5, 5)))
    current = tracker.declare(current, "n:б")
    current = tracker.declare(current, "n:а")
    current = tracker.advance(current)
    current = tracker.leave(current, "n:а")
    assert current.actor() == ("n:б", 1)


def test_conditions_toggle_in_a_stable_order() -> None:
    current = _round(("А", 5, 5))
    current = tracker.toggle_condition(current, "n:а", Condition.BLINDED)
    current = tracker.toggle_condition(current, "n:а", "prone")
    assert current.fighters[0].conditions == (Condition.BLINDED, Condition.PRONE)
    current = tracker.toggle_condition(current, "n:а", Condition.BLINDED)
    assert current.fighters[0].conditions == (Condition.PRONE,)
    refused(ErrorCode.UNKNOWN_KEY, tracker.toggle_condition, current, "n:а", "nope")


@pytest.mark.parametrize("phase_step", ["start", "advance"])
def test_steps_out_of_phase_are_refused(phase_step: str) -> None:
    current = _round(("А", 5, 5))
    if phase_step == "start":
        current = tracker.start_declarations(current)
        refused(ErrorCode.STATE, tracker.start_declarations, current)
    else:
        refused(ErrorCode.STATE, tracker.advance, current)


def test_an_empty_round_cannot_start() -> None:
    refused(ErrorCode.STATE, tracker.start_declarations, Round())
    refused(ErrorCode.STATE, tracker.new_round, Round())


def test_own_conditions_on_a_characters_action() -> None:
    from rules.combat.situation import own_action

    assert own_action(()).difficulty == 0
    assert own_action([Condition.BLINDED]).difficulty == 2
    assert own_action([Condition.PRONE], ["brawl"]).difficulty == 2  # «с Дракой и Фехтованием»
    assert own_action([Condition.PRONE], ["dodge"]).difficulty == 0
    assert own_action([Condition.PRONE, Condition.BLINDED], ["melee"]).difficulty == 4
    assert not own_action([Condition.STUNNED]).can_act
    refused(ErrorCode.TYPE, own_action, "blinded")


def test_conditions_ride_on_a_d10_sheet_only() -> None:
    from rules.sheet import SheetSystem, from_json, new_sheet, set_conditions, to_json

    sheet = set_conditions(new_sheet(SheetSystem.MAGE), ["prone", Condition.BLINDED, "prone"])
    assert sheet.conditions == (Condition.BLINDED, Condition.PRONE)
    assert from_json(to_json(sheet)).conditions == sheet.conditions
    assert set_conditions(sheet, ()).conditions == ()
    refused(ErrorCode.NOT_ALLOWED, set_conditions, new_sheet(SheetSystem.D6), ["blinded"])
    refused(ErrorCode.UNKNOWN_KEY, set_conditions, sheet, ["asleep"])


def _resolving(*entries: tuple[str, int, int]) -> tuple[Round, dict[str, str]]:
    """Everyone has declared one action each (Аня two): phase III stands at its first step."""
    current = tracker.start_declarations(_round(*entries), rng=random.Random(1))
    keys = {f.name: f.key for f in current.fighters}
    while current.phase is Phase.DECLARE:
        key = current.declarer()
        assert key is not None
        if key == keys.get("Аня"):
            current = tracker.more_actions(current, key)
        current = tracker.declare(current, key)
    return current, keys


def test_an_interruption_strikes_every_declared_action_for_one_now() -> None:
    """S4 «Прерывание - отмена не разыгранных действий в обмен на любой защитный манёвр»."""
    current, keys = _resolving(("Борис", 9, 9), ("Аня", 7, 4), ("Гуль", 5, 2))
    assert current.actor() == (keys["Борис"], 1)
    assert not current.can_interrupt(keys["Борис"])  # the one acting
    assert current.can_interrupt(keys["Аня"])
    current = tracker.interrupt(current, keys["Аня"])
    assert current.acted(keys["Аня"])
    assert current.actor() == (keys["Борис"], 1)  # still his turn
    assert keys["Аня"] not in {k for k, _n in current.schedule[current.step :]}  # both gone
    refused(ErrorCode.STATE, tracker.interrupt, current, keys["Аня"])  # acted already
    current = tracker.advance(current)
    assert current.actor() == (keys["Гуль"], 1)
    refused(ErrorCode.STATE, tracker.interrupt, current, keys["Борис"])  # acted already


def test_standing_up_at_once_or_spending_the_action() -> None:
    """§B.8 «Чтобы сразу подняться - Ловкость + Атлетизм, с -2 к инициативе, при неудаче
    лежащий тратит целое действие»."""
    current, keys = _resolving(("Борис", 9, 9), ("Гуль", 5, 2))
    up = StandUp(True, -2, False, 0, False)
    refused(ErrorCode.STATE, tracker.stand_up, current, keys["Борис"], up)  # not knocked down
    current = tracker.toggle_condition(current, keys["Борис"], Condition.PRONE)
    refused(ErrorCode.STATE, tracker.stand_up, current, keys["Гуль"], up)  # not Гуль's turn
    stood = tracker.stand_up(current, keys["Борис"], up)
    boris = stood.fighter(keys["Борис"])
    assert boris is not None
    assert (boris.conditions, boris.modifier) == ((), -2)
    assert stood.actor() == (keys["Борис"], 1)
    spent = tracker.stand_up(current, keys["Борис"], StandUp(False, -2, True, 1, False))
    boris = spent.fighter(keys["Борис"])
    assert boris is not None
    assert (boris.conditions, boris.modifier) == ((), 0)
    assert spent.actor() == (keys["Гуль"], 1)


def _declared(defence: str | None = None) -> tuple[Round, dict[str, str]]:
    """Борис (18) acts before Аня (11) and Гуль (7); ``defence`` declares a defence."""
    current = _round(("Аня", 7, 4), ("Гуль", 5, 2), ("Борис", 9, 9))
    current = tracker.start_declarations(current, rng=random.Random(1))
    keys = {f.name: f.key for f in current.fighters}
    for name in ("Гуль", "Аня", "Борис"):
        current = tracker.declare(current, keys[name], defence=name == defence)
    return current, keys


def test_a_declared_defence_waits_for_an_attack_and_has_no_turn() -> None:
    """§B.3 step 2: «неразыгранный заявленный защитный манёвр» answers an attack."""
    current, keys = _declared(defence="Аня")
    assert current.has_defence(keys["Аня"])
    assert not current.can_interrupt(keys["Аня"]) or current.has_defence(keys["Аня"])
    current = tracker.use_defence(current, keys["Аня"])
    assert not current.has_defence(keys["Аня"])
    refused(ErrorCode.STATE, tracker.use_defence, current, keys["Аня"])
    current = tracker.advance(current)  # Борис acted; Аня's slot is her defence: skipped
    assert current.actor() == (keys["Гуль"], 1)


def test_resolved_moves_on_only_from_the_one_acting() -> None:
    current, keys = _declared()
    assert tracker.resolved(current, keys["Гуль"]) == current  # an attack out of turn
    moved = tracker.resolved(current, keys["Борис"])
    assert moved.actor() == (keys["Аня"], 1)


def test_a_stun_takes_this_round_and_the_next() -> None:
    """§B.11 «контужен и пропускает текущий и следующий ход»."""
    current, keys = _declared()
    current = tracker.stun(current, keys["Аня"])
    assert current.stunned(keys["Аня"])
    assert not current.can_interrupt(keys["Аня"])
    current = tracker.advance(current)  # Борис done; Аня stunned: Гуль is next
    assert current.actor() == (keys["Гуль"], 1)
    current = tracker.new_round(current, rng=random.Random(2))
    assert current.stunned(keys["Аня"])
    assert keys["Аня"] not in [current.declarer()]
    while current.phase is Phase.DECLARE:
        declarer = current.declarer()
        assert declarer is not None
        assert declarer != keys["Аня"]
        current = tracker.declare(current, declarer)
    assert current.actor() is not None
    assert current.actor()[0] != keys["Аня"]  # type: ignore[index]
    later = tracker.new_round(current, rng=random.Random(3))
    assert not later.stunned(keys["Аня"])
    assert not tracker.stun(current, keys["Аня"], stunned=False).stunned(keys["Аня"])
    assert tracker.stun(later, "n:nobody") == later


def test_a_stun_set_by_hand_skips_the_fighter_too() -> None:
    """The Storyteller's «Контузия» from ⚠️ Состояния skips the fighter like a counted stun,
    until it is taken off."""
    current, _keys = _declared()
    acting = current.actor()
    assert acting is not None
    stunned = tracker.toggle_condition(current, acting[0], Condition.STUNNED)
    assert stunned.stunned(acting[0])
    assert stunned.actor() != acting  # the round moved past them at once
    later = tracker.new_round(stunned, rng=random.Random(2))
    assert later.stunned(acting[0])
    assert acting[0] not in [later.declarer()]
    taken_off = tracker.toggle_condition(later, acting[0], Condition.STUNNED)
    assert not taken_off.stunned(acting[0])


def test_a_delay_passes_over_a_declared_defence() -> None:
    current, keys = _declared(defence="Аня")  # Борис, then Аня's defence (no turn), Гуль
    assert current.can_delay()
    current = tracker.delay(current)
    assert current.actor() == (keys["Гуль"], 1)  # Гуль goes first, then Борис
    current = tracker.advance(current)
    assert current.actor() == (keys["Борис"], 1)


def test_willpower_is_spent_once_a_round_and_again_the_next() -> None:
    """§A.7 S0 «Вы можете сделать это только один раз за ход»: the round is the turn."""
    current, keys = _resolving(("Борис", 9, 9), ("Аня", 7, 4))
    anya = keys["Аня"]
    assert not current.spent_willpower(anya)
    current = tracker.spend_willpower(current, anya)
    assert current.spent_willpower(anya)
    assert not current.spent_willpower(keys["Борис"])
    refused(ErrorCode.WP_ALREADY_THIS_TURN, tracker.spend_willpower, current, anya)
    # one not in the fight is no part of the round
    assert tracker.spend_willpower(current, tracker.npc_key("Гость")) == current
    later = tracker.new_round(current, rng=random.Random(1))
    assert not later.spent_willpower(anya)
    assert tracker.spend_willpower(later, anya).spent_willpower(anya)


def test_celerity_buys_extra_actions_after_the_declared_ones() -> None:
    """§B.13: up to Celerity's dots in extra actions a turn, a blood point each, acted after
    the declared ones and never split with them."""
    current = _round(("Вампир", 7, 4), ("Гуль", 5, 2))
    keys = {f.name: f.key for f in current.fighters}
    vampire, ghoul = keys["Вампир"], keys["Гуль"]
    current = tracker.with_vampire(current, vampire, 2)
    current = tracker.start_declarations(current, rng=random.Random(1))
    current = tracker.declare(current, ghoul)
    assert current.declarer() == vampire
    refused(ErrorCode.STATE, tracker.hasten, current, ghoul, 2, 5, 12)  # not their turn
    current = tracker.hasten(current, vampire, 2, 5, 9)
    current = tracker.hasten(current, vampire, 2, 4, 9)
    assert current.fighter(vampire).hastened == 2  # type: ignore[union-attr]
    over = refused(ErrorCode.RANGE, tracker.hasten, current, vampire, 2, 3, 9)
    assert over.field == "wanted"  # Celerity 2: two extra actions at most
    current = tracker.declare(current, vampire)
    seen = []
    while current.phase is Phase.RESOLVE:
        actor = current.actor()
        assert actor is not None
        seen.append((actor, current.hastened_action(actor)))
        current = tracker.advance(current)
    assert seen == [
        ((vampire, 1), False),
        ((ghoul, 1), False),
        ((vampire, 2), True),
        ((vampire, 3), True),
    ]
    again = tracker.new_round(current, rng=random.Random(2))
    assert again.fighter(vampire).hastened == 0  # type: ignore[union-attr]
    assert again.fighter(vampire).celerity == 2  # type: ignore[union-attr]


def test_celerity_is_bounded_by_the_pool_and_the_generation() -> None:
    current = _round(("Вампир", 7, 4))
    key = current.fighters[0].key
    current = tracker.start_declarations(tracker.with_vampire(current, key, 3))
    assert refused(ErrorCode.RANGE, tracker.hasten, current, key, 3, 0, 12).field == "blood"
    once = tracker.hasten(current, key, 3, 5, 12)  # the 12th Generation: 1 blood a turn
    assert refused(ErrorCode.RANGE, tracker.hasten, once, key, 3, 4, 12).field == "generation"


def test_a_declared_defence_stays_skipped_beside_celerity() -> None:
    current = _round(("Вампир", 7, 4))
    key = current.fighters[0].key
    current = tracker.start_declarations(tracker.with_vampire(current, key, 1))
    current = tracker.hasten(current, key, 1, 5, 9)
    current = tracker.declare(current, key, defence=True)  # one action, a defence
    assert current.skipped((key, 1))
    assert not current.skipped((key, 2))
    assert current.actor() == (key, 2)


def test_a_vampire_in_torpor_is_passed_over_and_wakes() -> None:
    """§B.13: a vampire in torpor neither declares nor acts nor interrupts; the tracker
    takes them back once blood mends a level. A mortal is never marked."""
    current = _round(("Вампир", 7, 4), ("Гуль", 5, 2), ("Смертный", 3, 1))
    keys = {f.name: f.key for f in current.fighters}
    current = tracker.with_vampire(current, keys["Вампир"], 0)
    current = tracker.start_declarations(current, rng=random.Random(1))
    asleep = tracker.set_torpor(current, frozenset({keys["Вампир"], keys["Смертный"]}))
    assert asleep.fighter(keys["Вампир"]).torpor  # type: ignore[union-attr]
    assert not asleep.fighter(keys["Смертный"]).torpor  # type: ignore[union-attr]
    asleep = tracker.declare(asleep, keys["Смертный"])
    asleep = tracker.declare(asleep, keys["Гуль"])
    assert asleep.phase is Phase.RESOLVE  # the vampire's declaration passed over
    assert asleep.actor() == (keys["Гуль"], 1)
    assert not asleep.can_interrupt(keys["Вампир"])
    awake = tracker.set_torpor(asleep, frozenset())
    assert not awake.fighter(keys["Вампир"]).torpor  # type: ignore[union-attr]
    assert tracker.set_torpor(awake, frozenset()) is awake  # nothing changed, nothing moved
