"""Vampires on the attack panel (docs/rules.md §B.13): who is one comes from their sheet; a
vampire soaks lethal with Stamina + Fortitude, takes half the bashing that gets through,
bites for aggravated damage and hits harder with Potence; a mortal stays mortal."""

from __future__ import annotations

from bot.runner import Known
from handlers.combat.attack import view
from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.attack.flow import AttackFlow, Defence, Reach, Side, Stage
from handlers.combat.attack.router import _kindred
from handlers.combat.attack.tap import Scene, step
from rules.combat import tracker
from rules.combat.manoeuvres import Manoeuvre, Trait
from rules.health import DamageType
from rules.profiles import DARK_AGES
from rules.sheet import Discipline, SheetSystem, new_sheet, set_trait
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of, speaking

ANNA_SIDE = Side(
    key=tracker.player_key(ANNA.id),
    name=ANNA.name,
    user_id=ANNA.id,
    ratings={Trait.DEXTERITY.value: 3, Trait.BRAWL.value: 2, Trait.STRENGTH.value: 2},
    sheet=True,
)
MORTAL = Side(
    key=tracker.player_key(BORIS.id),
    name=BORIS.name,
    user_id=BORIS.id,
    ratings={Trait.STAMINA.value: 2},
    sheet=True,
)
VAMPIRE = MORTAL.model_copy(update={"vampire": True, "fortitude": 1})


def knowing(state: AttackFlow) -> Known[Scene]:
    scene = Scene(storyteller=False, tracker=None, sheet=new_sheet(SheetSystem.DARK_AGES))
    return Known(flow=flow_of(state), profile=DARK_AGES, read=scene)


def press(action: AtkAction, x: int = 0) -> AtkCallback:
    return AtkCallback(f="f1", v=3, a=action, x=x)


def _hit(panel: AttackFlow, faces: list[int]) -> AttackFlow:
    """Аня's attack on the target, undefended: the target's one tap rolls damage and soak."""
    with speaking():
        rolled = step(panel, press(AtkAction.TARGET, 0), ANNA, knowing(panel), Faces(faces[:5]))
        assert rolled.state is not None
        assert rolled.state.stage is Stage.DEFENCE
        done = step(
            rolled.state, press(AtkAction.DEFEND, 0), BORIS, knowing(rolled.state), Faces(faces[5:])
        )
    assert done.state is not None
    assert done.state.stage is Stage.DONE
    return done.state


def test_the_sheet_makes_the_vampire() -> None:
    mortal = set_trait(new_sheet(SheetSystem.DARK_AGES), "stamina", 2)
    assert _kindred(mortal) == {}
    kindred = set_trait(set_trait(mortal, "generation", 12), Discipline.FORTITUDE.value, 2)
    assert _kindred(kindred) == {"vampire": True, "fortitude": 2, "potence": 0}


def test_a_vampire_soaks_lethal_with_stamina_and_fortitude_a_mortal_does_not() -> None:
    sword = AttackFlow(attacker=ANNA_SIDE, targets=(VAMPIRE,), target=0, weapon=3)
    assert sword.soak_dice(DARK_AGES, DamageType.LETHAL) == 3
    mortal = sword.model_copy(update={"targets": (MORTAL,)})
    assert mortal.soak_dice(DARK_AGES, DamageType.LETHAL) == 0
    assert sword.soak_dice(DARK_AGES, DamageType.AGGRAVATED) == 1
    # 5 hits → 3 + 4 = 7 damage dice, all 7s; the vampire's soak: 7 7 2
    done = _hit(sword, [8, 8, 8, 8, 8, *[7] * 7, 7, 7, 2])
    assert done.soak is not None
    assert done.levels == 5
    with speaking("ru"):
        text = view.panel_text(done, DARK_AGES)
    assert "Поглощение" in text
    assert "летального" in text


def test_bashing_through_a_vampires_soak_is_halved() -> None:
    fists = AttackFlow(attacker=ANNA_SIDE, targets=(VAMPIRE,))
    # 5 hits → 2 + 4 = 6 damage dice, all hit; soak 3 dice, one hits: 5 through, 2 taken
    done = _hit(fists, [8, 8, 8, 8, 8, *[7] * 6, 7, 2, 2])
    assert (done.levels, done.halved) == (2, 3)
    with speaking("ru"):
        text = view.panel_text(done, DARK_AGES)
    assert "не в счёт 3" in text


def test_only_a_vampire_is_offered_the_bite_and_it_is_aggravated() -> None:
    mortal_panel = AttackFlow(attacker=ANNA_SIDE, targets=(MORTAL,))
    assert Manoeuvre.BITE not in mortal_panel.manoeuvres()
    kindred = ANNA_SIDE.model_copy(update={"vampire": True, "potence": 1})
    panel = AttackFlow(attacker=kindred, targets=(MORTAL,))
    listed = panel.manoeuvres()
    assert listed[-1] is Manoeuvre.BITE
    chose = step(panel, press(AtkAction.MANOEUVRE, len(listed) - 1), ANNA, knowing(panel), None)
    assert chose.state is not None
    bite = chose.state.plan(DARK_AGES)
    assert bite.damage_type is DamageType.AGGRAVATED
    assert (bite.damage_dice, bite.damage_successes) == (3, 1)  # Strength 2 + 1, Potence 1
    with speaking("ru"):
        assert "Укус" in view.panel_text(chose.state, DARK_AGES)
        assert "+1 успех (Мощь)" in view.panel_text(chose.state, DARK_AGES)
    ranged = panel.model_copy(update={"reach": Reach.RANGED})
    assert Manoeuvre.BITE not in ranged.manoeuvres()


def test_a_dark_ages_fighter_with_two_actions_splits_the_pool() -> None:
    """S1 splits one pool between the turn's actions (§A.9): a vampire who declared an
    attack and a parry strikes and parries with half the dice each."""
    two = ANNA_SIDE.model_copy(update={"declared": 2, "defences": 1, "action_no": 1})
    panel = AttackFlow(attacker=two, targets=(VAMPIRE,), target=0)
    assert panel.plan(DARK_AGES).roll.pool == 3  # Dexterity 3 + Brawl 2 = 5: 3 and 2
    parrying = VAMPIRE.model_copy(
        update={
            "ratings": {**VAMPIRE.ratings, Trait.DEXTERITY.value: 3, Trait.BRAWL.value: 3},
            "declared": 2,
            "defences": 1,
        }
    )
    attacked = AttackFlow(attacker=ANNA_SIDE, targets=(parrying,), target=0)
    block = attacked.defence_plan(DARK_AGES, Defence.BLOCK)
    assert block is not None
    assert block.pool == 3  # 6 dice split two ways
    single = attacked.model_copy(update={"targets": (VAMPIRE,)})
    assert single.defence_plan(DARK_AGES, Defence.DODGE) is not None
    # a cumulative game keeps each action's own pool on the panel
    from rules.profiles import HOUSE_MAGE

    assert panel.plan(HOUSE_MAGE).roll.pool == 5


def test_a_spent_defence_is_not_called_no_defence() -> None:
    spent = VAMPIRE.model_copy(update={"declared": 2, "defences": 1, "defended": 1})
    with speaking("ru"):
        said = view.interrupt_needed_text(spent)
        never = view.interrupt_needed_text(VAMPIRE)
    assert "уже ушла на прежнюю атаку" in said
    assert "не заявлена" not in said
    assert "не заявлена" in never
