"""The attack panel's flow: the attack being made, step by step (docs/rules.md §B.3), and a short
record of the fight's earlier attacks shown above it.

The chain is S4 «1. Атака 2. Защита 3. Урон 4. Поглощение»; each stage waits for the one
person whose roll it is. The numbers come from ``rules.combat`` (:func:`attack_plan`,
:func:`defence_plan`, :func:`damage_pool`, :func:`soak_pool`); this model only keeps what
was chosen and rolled.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from bot.combat import ATTACK
from rules import combat
from rules.actions import split_share
from rules.combat.damage import DiceTally
from rules.combat.manoeuvres import MANOEUVRES, Ammo, Manoeuvre, Reach, Trait
from rules.combat.situation import Approach, Condition, Cover, Situation
from rules.d10 import D10Result
from rules.health import DamageType, HealthTrack
from rules.profiles import MultipleActions, Profile
from table.store import FlowState

KIND = ATTACK
PANEL_TTL = 7 * 86_400
HISTORY_KEPT = 5
MAGAZINE = 30  # an untracked magazine: autofire empties it, a burst takes three (§B.6)

# What the panel offers, in table order (§B.5, §B.6); spray (several targets at once) is left
# to the Storyteller's hand for now. Blind fire rolls its Perception + Awareness check first
# (AMB-B12) when the table gates the shot by it.
MELEE = (
    Manoeuvre.STRIKE,
    Manoeuvre.KICK,
    Manoeuvre.SWEEP,
    Manoeuvre.SHOVE,
    Manoeuvre.GRAPPLE,
    Manoeuvre.HOLD,
    Manoeuvre.DISARM,
    Manoeuvre.GUN_BUTT,
)
RANGED = (Manoeuvre.SHOT, Manoeuvre.BURST, Manoeuvre.FULL_AUTO, Manoeuvre.BLIND_FIRE)
APPROACHES = (Approach.FRONT, Approach.FLANK, Approach.REAR)
COVERS = (Cover.NONE, Cover.PARTIAL, Cover.FULL)
CALLED_SHOTS = (0, 1, 2, 3)
AIMS = (0, 1, 2, 3)
MOVES = (0, 1, 2, 3, 5, 10)
WEAPONS = tuple(range(0, 9))  # 0: bare Strength; else the weapon's damage rating


class Stage(StrEnum):
    SETUP = "setup"  # choosing the manoeuvre, the target and the modifiers
    DEFENCE = "defence"  # the attack is rolled: the target defends or not
    DAMAGE = "damage"  # a hit: the attacker rolls damage
    SOAK = "soak"  # the target soaks what it can
    DONE = "done"
    CANCELLED = "cancelled"


class Defence(StrEnum):
    NONE = "none"
    DODGE = "dodge"
    BLOCK = "block"
    # «Отчаянная защита» (§B.4): one defence for the whole turn against every attack, its
    # full pool less a die per attack already taken; the defender does nothing else.
    DESPERATE_DODGE = "ddodge"
    DESPERATE_BLOCK = "dblock"

    @property
    def desperate(self) -> bool:
        return self in (Defence.DESPERATE_DODGE, Defence.DESPERATE_BLOCK)

    @property
    def manoeuvre(self) -> Defence:
        """The manoeuvre rolled: a desperate defence is a dodge or a block held all turn."""
        if self is Defence.DESPERATE_DODGE:
            return Defence.DODGE
        if self is Defence.DESPERATE_BLOCK:
            return Defence.BLOCK
        return self


DEFENCES = (
    Defence.NONE,
    Defence.DODGE,
    Defence.BLOCK,
    Defence.DESPERATE_DODGE,
    Defence.DESPERATE_BLOCK,
)


class Guard(StrEnum):
    """How the target may defend (§B.3 step 2 «неразыгранный заявленный защитный манёвр либо
    Прерывание»), as the round stood when the attack was rolled."""

    FREE = "free"  # no declarations on the tracker: any defence, as the table says
    DECLARED = "declared"  # a defence declared and not yet used
    INTERRUPT = "interrupt"  # only by an Interruption (a Willpower roll or a point)
    NONE = "none"  # acted already, nothing declared: no defence


class Kit(BaseModel):
    """What a character attacked with last, so the next attack starts from it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    reach: Reach = Reach.MELEE
    manoeuvre: Manoeuvre = Manoeuvre.STRIKE
    ability: Trait | None = None
    weapon: int = 0


# An Interruption buys «любой защитный манёвр» for this attack: a dodge or a block (a desperate
# defence is declared for the whole turn, which an Interruption is not).
INTERRUPT_DEFENCES = (Defence.DODGE, Defence.BLOCK)


class Desperate(BaseModel):
    """A character in desperate defence this turn, and how many attacks it has met."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    defence: Defence
    met: int = 0


class Side(BaseModel):
    """A character in the attack, as their sheet and the tracker had them when it opened."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str
    user_id: int | None = None  # None: an NPC, played by the Storyteller
    ratings: dict[str, int] = {}  # Trait code → rating; a missing trait is 0
    track: HealthTrack = HealthTrack()
    conditions: tuple[Condition, ...] = ()
    sheet: bool = False  # whether a sheet stands behind it (an NPC without one gets one)
    willpower: int | None = None  # permanent Willpower: the Interruption's roll (§B.3 step 2)
    willpower_left: int | None = None  # current Willpower, when the sheet tracks it
    # §B.13: a vampire by their sheet (a Generation or a blood pool), and the Disciplines a
    # fight reads: Fortitude soaks, Potence hits harder.
    vampire: bool = False
    fortitude: int = 0
    potence: int = 0
    # What the tracker had them declare (§A.9): the turn's actions, how many of them are
    # defences (the last ones) and how many of those attacks used up, and which action the
    # attacker is taking now. A Dark Ages pool is split between them.
    declared: int = 1
    defences: int = 0
    defended: int = 0
    action_no: int = 1

    def split_penalty(self, pool: int, profile: Profile, index: int) -> int:
        """The dice the ``index``-th declared action gives up to the others when the pool is
        split (S1; :func:`rules.actions.split_share`); none in a cumulative game, where the
        tracker's actions keep their own pools, and none for a single action."""
        if profile.multiple_actions is not MultipleActions.SPLIT_POOL or self.declared <= 1:
            return 0
        index = min(max(index, 1), self.declared)
        return max(0, pool) - split_share(max(0, pool), self.declared, index)

    def rating(self, trait: Trait) -> int:
        return self.ratings.get(trait.value, 0)


class Past(BaseModel):
    """One finished attack, as the panel remembers it in a line."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attacker: str
    target: str
    manoeuvre: Manoeuvre
    hit: bool
    levels: int = 0
    kind: DamageType | None = None
    target_key: str = ""  # whom it hurt, and in which round: a stun may count the turn's sum
    round_no: int = 0


class AttackFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    attacker: Side
    targets: tuple[Side, ...] = ()
    target: int | None = None  # index in ``targets``
    stage: Stage = Stage.SETUP
    reach: Reach = Reach.MELEE
    manoeuvre: Manoeuvre = Manoeuvre.STRIKE
    ability: Trait | None = None  # None: the manoeuvre's first
    weapon: int = 0
    approach: Approach = Approach.FRONT
    cover: Cover = Cover.NONE
    own_cover: Cover = Cover.NONE  # the shooter fires from cover (§B.7)
    called: int = 0  # aimed at a body part: the Storyteller's +1…+3 by its size (§B.7)
    aim: int = 0
    moved: int = 0
    off_hand: bool = False
    ambush: bool = False  # from an ambush the attacker won: the victim may not defend (AMB-B14)
    blind_check: D10Result | None = None  # the Perception + Awareness roll of blind fire
    attack: D10Result | None = None
    defence: Defence | None = None
    defence_roll: D10Result | None = None
    net: int = 0
    damage: DiceTally | None = None
    soak: DiceTally | None = None
    levels: int = 0
    damage_kind: DamageType | None = None
    stunned: bool = False
    halved: int = 0  # bashing levels a vampire shrugged off after soak (§B.13)
    knocked: bool = False  # the hit knocks the target down (§B.8 «Нокдаун»: Толчок, Подсечка)
    track_after: HealthTrack | None = None
    history: tuple[Past, ...] = ()
    round_no: int = 0  # the tracker's round the attack is made in (0: none open)
    fight: str = ""  # the tracker's flow the attack is made in ("": none, or an older panel)
    lapsed: bool = False  # unanswered when its round or its fight ended: nothing was applied
    desperate: tuple[Desperate, ...] = ()  # who is in desperate defence this round
    guard: Guard = Guard.FREE
    interruption: D10Result | None = None  # the target's Willpower roll to interrupt
    interrupt_spent: bool = False  # the target spent a point of Willpower to interrupt
    interrupted: bool = False  # the Interruption succeeded: the defence stands
    kits: tuple[Kit, ...] = ()  # each attacker's last manoeuvre and weapon

    def pending(self) -> bool:
        """Rolled and waiting on someone: the defence, the damage or the soak."""
        return self.stage in (Stage.DEFENCE, Stage.DAMAGE, Stage.SOAK)

    def outlived(self, fight: str | None, round_no: int | None, ended: bool = False) -> bool:
        """Made in a round of a fight that is over (``fight``/``round_no``: the chat's open
        tracker now, None without one): a waiting attack lapses with its round."""
        if not self.round_no:
            return False  # made outside a fight: nothing ends it but its own buttons
        if fight is None or round_no is None or ended:
            return True
        return round_no != self.round_no or (bool(self.fight) and fight != self.fight)

    def manoeuvres(self) -> tuple[Manoeuvre, ...]:
        """What the panel offers at this reach: a vampire's close combat has the bite too."""
        if self.reach is Reach.RANGED:
            return RANGED
        return (*MELEE, Manoeuvre.BITE) if self.attacker.vampire else MELEE

    def kit(self) -> Kit:
        return Kit(
            key=self.attacker.key,
            reach=self.reach,
            manoeuvre=self.manoeuvre,
            ability=self.ability,
            weapon=self.weapon,
        )

    def kit_of(self, key: str) -> Kit | None:
        return next((k for k in self.kits if k.key == key), None)

    def earlier_levels(self) -> tuple[int, ...]:
        """What the chosen target took from the other attacks of this round (AMB-B10)."""
        target = self.chosen_target()
        if target is None or not self.round_no:
            return ()
        return tuple(
            p.levels
            for p in self.history
            if p.target_key == target.key and p.round_no == self.round_no and p.levels
        )

    def desperate_of(self, key: str) -> Desperate | None:
        return next((d for d in self.desperate if d.key == key), None)

    def chosen_target(self) -> Side | None:
        if self.target is None or not 0 <= self.target < len(self.targets):
            return None
        return self.targets[self.target]

    def used_ability(self) -> Trait:
        spec = MANOEUVRES[self.manoeuvre]
        if self.ability in spec.abilities:
            assert self.ability is not None
            return self.ability
        return spec.abilities[0]

    def situation(self) -> Situation:
        target = self.chosen_target()
        return Situation(
            approach=self.approach,
            off_hand=self.off_hand,
            body_part=self.called,
            target_cover=self.cover if self.reach is Reach.RANGED else Cover.NONE,
            own_cover=self.own_cover if self.reach is Reach.RANGED else Cover.NONE,
            aim_turns=self.aim if self.reach is Reach.RANGED else 0,
            metres_moved=self.moved,
            attacker_conditions=frozenset(self.attacker.conditions),
            target_conditions=frozenset(target.conditions) if target else frozenset(),
        )

    def blind_gated(self, profile: Profile) -> bool:
        """Blind fire whose shot waits on the Perception + Awareness check (AMB-B12)."""
        return self.manoeuvre is Manoeuvre.BLIND_FIRE and profile.combat.blind_fire_gated

    def blind_plan(self, profile: Profile) -> combat.RollPlan:
        """S4 «Восприятие+Осведомлённость (сложность 8)» before a blind shot."""
        return combat.blind_fire_check(
            self.attacker.rating(Trait.PERCEPTION),
            self.attacker.rating(Trait.AWARENESS),
            profile,
            track=self.attacker.track,
        )

    def plan(self, profile: Profile, *, preview: bool = False) -> combat.AttackPlan:
        """What this attack rolls now (§B.3 step 1): raises ``RulesInputError`` on a choice
        the tables refuse (aiming without Firearms). A gated blind shot not yet checked (or
        shown as a ``preview``) is planned as it is rolled once the check succeeds."""
        spec = MANOEUVRES[self.manoeuvre]
        if self.blind_gated(profile) and (preview or self.blind_check is None):
            ungated = profile.combat.model_copy(update={"blind_fire_gated": False})
            profile = profile.model_copy(update={"combat": ungated})
        used = self.used_ability()
        ammo = {Ammo.MAGAZINE: MAGAZINE, Ammo.BURST: MAGAZINE}.get(spec.ammo)
        attacker = self.attacker
        base = attacker.rating(Trait.DEXTERITY) + attacker.rating(used)
        split = attacker.split_penalty(base, profile, attacker.action_no)
        return combat.attack_plan(
            combat.AttackSetup(
                code=self.manoeuvre,
                dexterity=self.attacker.rating(Trait.DEXTERITY),
                ability=self.attacker.rating(used),
                ability_used=used,
                strength=self.attacker.rating(Trait.STRENGTH),
                weapon_damage=self.weapon or None,
                ammo=ammo,
                situation=self.situation(),
                track=self.attacker.track,
                blind_check=self.blind_check,
                vampire=self.attacker.vampire,
                potence=self.attacker.potence,
                dice_penalty=split,
            ),
            profile,
        )

    def defence_plan(self, profile: Profile, kind: Defence) -> combat.RollPlan | None:
        target = self.chosen_target()
        if target is None or kind is Defence.NONE:
            return None
        held = self.desperate_of(target.key)
        code = (
            combat.DefenceManoeuvre.DODGE
            if kind.manoeuvre is Defence.DODGE
            else combat.DefenceManoeuvre.BLOCK
        )
        ability = Trait.DODGE
        if kind.manoeuvre is Defence.BLOCK:
            ability = (
                Trait.MELEE
                if target.rating(Trait.MELEE) > target.rating(Trait.BRAWL)
                else Trait.BRAWL
            )
        base = target.rating(Trait.DEXTERITY) + target.rating(ability)
        # a declared defence is one of the target's split actions (the last ones); a
        # desperate defence is the whole turn's one action
        index = target.declared - target.defences + target.defended + 1
        split = 0 if kind.desperate else target.split_penalty(base, profile, index)
        return combat.defence_plan(
            combat.DefenceSetup(
                code=code,
                dexterity=target.rating(Trait.DEXTERITY),
                ability=target.rating(ability),
                ability_used=ability,
                dice_penalty=split,
                attacks_before=held.met if held is not None else 0,
                desperate=kind.desperate,
                conditions=frozenset(target.conditions),
                track=target.track,
            ),
            profile,
        )

    def soak_dice(self, profile: Profile, kind: DamageType) -> int:
        target = self.chosen_target()
        if target is None:
            return 0
        return combat.soak_pool(soaker_of(target), kind, profile.combat)


def soaker_of(side: Side) -> combat.Target:
    """What the rules soak with (§B.10; a vampire's Fortitude, §B.13)."""
    return combat.Target(
        stamina=side.rating(Trait.STAMINA),
        track=side.track,
        vampire=side.vampire,
        fortitude=side.fortitude,
    )
