"""Rules profiles: the edition and house-rule switches of docs/rules.md §A.0.

A chat picks one profile by name; the Storyteller may then flip any switch (every [P] choice
of docs/rules.md that a group could decide differently is a field here, its default the proposal).
Profiles are frozen values: a changed switch is a new profile made with ``model_copy``.

Sections §B (combat), §C (magick) and §D (the d6 system) keep their switches in the nested
``combat``, ``magick`` and ``d6`` models so the d10 core never needs to know about them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from rules.errors import ErrorCode, RulesInputError, check_type


class GameSystem(StrEnum):
    D10 = "d10"
    D6 = "d6"


class BotchRule(StrEnum):
    """§A.4: S0/S4 need zero successes before cancelling; S1 needs a 1 left after cancelling."""

    RAW_ZERO = "raw_zero"
    NET_NEGATIVE = "net_negative"


class MultipleActions(StrEnum):
    """§A.9: cumulative penalty (S0, S4) or a pool split between actions (S1)."""

    CUMULATIVE = "cumulative"
    SPLIT_POOL = "split_pool"


class RetryPenalty(StrEnum):
    """§A.10 and AMB-A6: how much harder each new attempt gets."""

    ESCALATING = "escalating"  # base + (attempt - 1)
    ESCALATING_TRIANGULAR = "escalating_triangular"  # base + n(n-1)/2
    NONE = "none"


class ExtendedBotch(StrEnum):
    """§A.11: what a botch does to an extended roll's accumulated successes."""

    LOSE_ALL = "lose_all"
    KEEP = "keep"


class ZeroAbility(StrEnum):
    """§A.2 and AMB-A8: an Attribute+Ability roll with 0 in the Ability."""

    ATTRIBUTE_ONLY = "attribute_only"
    AUTO_FAILURE = "auto_failure"


class TeamBotch(StrEnum):
    """§A.13 and AMB-A11: whether one helper's botch ruins the team's effort."""

    MEMBER_ONLY = "member_only"
    RUINS_ALL = "ruins_all"


class LabelSet(StrEnum):
    """§A.5: which book's wording for difficulty and degree labels."""

    S0 = "s0"
    S1 = "s1"


class RollContext(StrEnum):
    """§A.6: the situation of a roll, which decides whether auto-success is allowed."""

    NORMAL = "normal"
    RESISTED = "resisted"
    COMBAT = "combat"
    STRESS = "stress"
    COMBAT_MANOEUVRE = "combat_manoeuvre"
    SOAK = "soak"
    MAGICK = "magick"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CombatOptions(_Frozen):
    """Switches of §B (combat and health, house sheet S4).

    S4 lists the attack chain «Атака / Защита / Урон / Поглощение» without mechanics, so most
    of §B is [P]; every proposal of §F.2 a group could rule differently is a field here with
    the proposal as its default. Integer fields are validated by ``rules.combat`` and
    ``rules.health`` when used, so one bad setting fails loudly with ``E_RANGE``.
    """

    # AMB-B1: initiative ties go to the higher Dex+Wits before a coin flip; wounds don't
    # slow initiative.
    initiative_tie_by_dex_wits: bool = True
    wound_penalty_on_initiative: bool = False
    # AMB-B2: attack difficulty 6 (S0 «Шесть Стандарт (выстрел во время перестрелки)»),
    # defence successes subtract, extra attack successes add damage dice, damage and soak
    # at difficulty 6 where 1s do not cancel and nothing botches.
    attack_difficulty: int = 6
    defence_subtracts: bool = True
    extra_successes_add_damage: bool = True
    damage_difficulty: int = 6
    soak_difficulty: int = 6
    damage_ones_cancel: bool = False
    soak_ones_cancel: bool = False
    stamina_soaks_lethal: bool = False
    # AMB-B3: S4 «с тыла даёт +1 кубик…, с фланга - +2 куба» taken as written.
    swap_rear_flank: bool = False
    # AMB-B4: «бросок Силы Воли» for an Interruption: difficulty 6, one success; or spend 1 WP.
    interruption_difficulty: int = 6
    interruption_by_wp_spend: bool = True
    # AMB-B5: desperate defence loses 1 die per earlier attack (cumulative), not a flat −N.
    desperate_defence_cumulative: bool = True
    # AMB-B6: aiming is uncapped in S4; a group may cap the dice.
    aim_cap: int | None = None
    # AMB-B8: «до 1/2 скорости бега (10 м + Ловкость*1,5)»: the bracket is the half speed.
    free_move_bracket_is_half: bool = True
    # AMB-B10: stunned when levels after soak > Stamina, per single attack.
    stun_inclusive: bool = False
    stun_per_turn: bool = False
    # AMB-B11: stabilising roll difficulty; untreated lethal worsens from Травмы (row 3),
    # read as "a lethal box in row 3 or lower" unless the whole track level counts.
    stabilise_difficulty: int = 6
    lethal_worsens_from_row: int = 3
    lethal_worsening_by_track_level: bool = False
    # AMB-B12: blind fire's Perception + Awareness roll (diff 8) gates the shot.
    blind_fire_gated: bool = True
    # AMB-B13: an automatic hit on a fully immobilized target counts as this many successes.
    immobilized_auto_hit_successes: int = 1
    # AMB-B14: the ambush victim gets no defence roll (soak still applies).
    ambush_victim_defends: bool = False
    # AMB-B16: standing up at once is Dex + Athletics at difficulty 6; the botch's bashing
    # level is applied directly, not soaked.
    stand_up_difficulty: int = 6
    stand_up_botch_soakable: bool = False
    # AMB-B17: wound penalties reduce action pools, not soak, damage, Backlash or Willpower
    # rolls; whether they reduce Arete is ``MagickOptions.wound_penalty_on_arete`` (AMB-C5).


class MagickOptions(_Frozen):
    """Switches of §C (Mage magick, house sheet S4).

    Each field is a choice the house sheet leaves open (docs/rules.md §F.3, AMB-C1..AMB-C17); the
    default is the spec's proposal, so a group that reads a rule differently flips one field.
    """

    class PermanentRule(StrEnum):
        """AMB-C9: what «x2 необходимого количества - постоянный» asks for."""

        DOUBLE_REQUIRED = "double_required"  # total successes >= 2 x the magnitude needed
        TEN_ON_DURATION = "ten_on_duration"  # 10 successes spent on duration

    class BarrierAdjustment(StrEnum):
        """AMB-C14: what a local ±1–2 Barrier shift changes."""

        DIFFICULTY = "difficulty"
        SUCCESSES = "successes"
        BOTH = "both"

    class BarrierDamagePer(StrEnum):
        """AMB-C14: «за каждую неудачу при броске кубиков» per failed roll or per failed die."""

        FAILED_ROLL = "failed_roll"
        FAILED_DIE = "failed_die"

    class HauntUnit(StrEnum):
        """AMB-C15: the time unit of Мороки («дни заменяются на недели, месяцы и даже годы»)."""

        DAYS = "days"
        WEEKS = "weeks"
        MONTHS = "months"
        YEARS = "years"

    # AMB-C1: the empty «естественный / есть свидетели» cells are read as merged with «нет
    # свидетелей»; a group that wants witnesses to matter adds these to difficulty / Paradox.
    natural_witness_difficulty_extra: int = 0
    natural_witness_paradox_extra: int = 0
    # §C.3 S4 «Максимальная сумма модификаторов сложности: +/- 3.»
    modifier_cap: int = 3
    # AMB-C2: Quintessence sits in the same table, so it counts toward the cap.
    quintessence_counts_in_cap: bool = True
    # §C.3 S4 «Трата Квинтэссенции - 1 к сложности за единицу, максимум 3»
    quintessence_max_per_roll: int = 3
    # §C.3 [P]: matching and opposed Resonance may both apply.
    resonance_both_allowed: bool = True
    # AMB-C5: wound penalties reduce the Arete pool (read by ``rules.magick.cast`` and by
    # ``rules.health.penalised_pool`` for ``PoolKind.ARETE``).
    wound_penalty_on_arete: bool = True
    # AMB-C7: the magnitude is a floor on total successes, not a cost paid before allocation.
    magnitude_is_separate_cost: bool = False
    # AMB-C8: the mage is never charged as a target, even alongside others.
    area_counts_mage: bool = False
    # AMB-C9
    permanent_duration_rule: PermanentRule = PermanentRule.DOUBLE_REQUIRED
    # AMB-C16: the Forces «сразу 1 ур.» comes with any working, damaging Effect, even with no
    # success spent on damage; False reads it as a bonus on top of at least one such success.
    forces_damage_without_damage_successes: bool = True
    # §C.8 [P]: with both a place and a contact, the better (cheaper) link decides.
    correspondence_better_link: bool = True
    # AMB-C11: a botched ritual adds «+1 Парадокс за каждый бросок» on top of the table;
    # False reads the «=» literally: the count of rolls replaces the table value.
    botched_ritual_adds_rolls: bool = True
    # AMB-C12: Backlash 1s do not cancel; tiers 1–4 may be soaked, tier 5 never (S4 text).
    backlash_ones_cancel: bool = False
    backlash_soakable_below_tier5: bool = True
    # §C.12 S4 «бросьте (со сложностью 6)»
    backlash_difficulty: int = 6
    # AMB-C13: boxes on the shared Quintessence/Paradox wheel.
    wheel_size: int = 20
    # AMB-C14
    barrier_adjustment: BarrierAdjustment = BarrierAdjustment.DIFFICULTY
    barrier_damage_per: BarrierDamagePer = BarrierDamagePer.FAILED_ROLL
    # AMB-C15
    haunt_unit: HauntUnit = HauntUnit.DAYS


class VampireOptions(_Frozen):
    """Switches of §B.13 (vampires in a Dark Ages fight). S1 is the Dark Ages rules chapter
    and says nothing of how the Kindred take and mend wounds, so each default is the book's
    usual reading (docs/rules.md §B.13) and each variant a table plays is a switch here."""

    # Bashing that gets through a vampire's soak is halved, rounded down.
    bashing_halved: bool = True
    # Potence adds automatic successes to melee damage; the variant adds as many dice.
    potence_as_dice: bool = False
    # Blood points that mend one aggravated level (with a day's rest), and whether a
    # Willpower point is spent with them.
    aggravated_heal_blood: int = 5
    aggravated_heal_willpower: bool = False


class D6Options(_Frozen):
    """Switches of §D (the d6 narrative system, S2/S3); each default is the §F.4 proposal."""

    # AMB-D1: S2 «в случае с душевными ранами … учитывается самое сильное состояние» — only
    # the worst mental wound (including «на взводе») lowers the chance; False sums them all.
    mental_wounds_max_only: bool = True
    # §D.2: S2 «сценарист сразу скажет, что при отсутствии уместных сил тебе не удастся
    # задуманное»: with True, a chance built from no power at all is IMPOSSIBLE even if
    # help or luck lifts it above zero.
    no_power_impossible: bool = False
    # AMB-D2: a no-roll automatic success has no gain; where a number is needed it counts as this.
    auto_success_gain: int = 1
    # AMB-D3: 0 < measures < required is SHORTFALL; True makes it a FIASCO with consequences.
    shortfall_is_fiasco: bool = False
    # S2 «или −3, если у персонажей нет слабостей»; also AMB-D10 for heroes without weakness.
    no_weakness_penalty: int = 3
    # AMB-D10: S3 «персонажи второго плана — на взводе [−3]»; opponents count as supporting.
    inactivity_wound_supporting: int = 3
    # AMB-D4: the preparation gain may be split across several initiative dice.
    preparation_split: bool = True
    # AMB-D8: a slow («неспешный») defender may still protect a teammate.
    slow_defence_of_others: bool = True
    # AMB-D11: poison wound severity is the final gain (True) or the attacker's raw measures.
    poison_uses_final_gain: bool = True
    # AMB-D14: a special effort with no die showing 1–4 is allowed as a no-op, price still paid;
    # False refuses it with E_NOT_ALLOWED.
    special_effort_noop_allowed: bool = True
    # AMB-D12: a contest of 3+ sides is decided by the unique top score (gain = top − second).
    multi_side_contests: bool = True


class Profile(_Frozen):
    """One game's rules: the columns of §A.0 plus the nested section switches."""

    name: str
    system: GameSystem = GameSystem.D10
    difficulty_min: int = 2
    difficulty_max: int = 10
    default_difficulty: int = 6
    computed_difficulty_min: int = 2
    effect_difficulty_min: int = 3
    botch_rule: BotchRule = BotchRule.RAW_ZERO
    threshold_rule: bool = True
    auto_success: bool = True
    auto_success_forbidden: frozenset[RollContext] = frozenset(
        {RollContext.RESISTED, RollContext.COMBAT, RollContext.STRESS, RollContext.MAGICK}
    )
    auto_success_costs_wp: bool = False
    wp_auto_success: bool = True
    wp_cancellable_by_ones: bool = False
    # [P] AMB-A4: a roll backed by Willpower never botches, and threshold points left over
    # after the dice successes run out eat the Willpower success.
    wp_prevents_botch: bool = True
    wp_eaten_by_threshold: bool = True
    multiple_actions: MultipleActions = MultipleActions.CUMULATIVE
    max_declared_actions: int = 10
    retry_penalty: RetryPenalty = RetryPenalty.ESCALATING
    extended_botch: ExtendedBotch = ExtendedBotch.LOSE_ALL
    zero_ability: ZeroAbility = ZeroAbility.ATTRIBUTE_ONLY
    team_botch: TeamBotch = TeamBotch.MEMBER_ONLY
    labels: LabelSet = LabelSet.S0
    max_traits_per_pool: int = 2
    pool_sanity_max: int = 50
    combat: CombatOptions = CombatOptions()
    magick: MagickOptions = MagickOptions()
    d6: D6Options = D6Options()
    vampire: VampireOptions = VampireOptions()


MAGE_REVISED = Profile(name="mage-revised")

HOUSE_MAGE = Profile(
    name="mage",
    difficulty_min=4,  # S4 «со сложностью [4-10]»
    zero_ability=ZeroAbility.AUTO_FAILURE,  # S4 «0 в Способности - автоматически [Неудача]»
    auto_success_forbidden=frozenset(
        {RollContext.COMBAT_MANOEUVRE, RollContext.SOAK, RollContext.MAGICK}
    ),
)

DARK_AGES = Profile(
    name="dark-ages",
    botch_rule=BotchRule.NET_NEGATIVE,
    threshold_rule=False,
    multiple_actions=MultipleActions.SPLIT_POOL,
    labels=LabelSet.S1,
    effect_difficulty_min=3,
    auto_success_forbidden=frozenset({RollContext.COMBAT, RollContext.MAGICK}),
)

D6 = Profile(name="d6", system=GameSystem.D6)

PROFILES: dict[str, Profile] = {p.name: p for p in (HOUSE_MAGE, MAGE_REVISED, DARK_AGES, D6)}
DEFAULT = HOUSE_MAGE.name


def get(name: str) -> Profile:
    """The named profile; an unknown name raises ``E_UNKNOWN_PROFILE`` naming the field."""
    if not isinstance(name, str):
        raise RulesInputError(ErrorCode.TYPE, "profile", f"expected str, got {type(name).__name__}")
    try:
        return PROFILES[name.strip().lower()]
    except KeyError:
        raise RulesInputError(
            ErrorCode.UNKNOWN_PROFILE, "profile", f"{name!r}; known: {', '.join(PROFILES)}"
        ) from None


def names() -> list[str]:
    return list(PROFILES)


def check_profile(value: Any, field: str = "profile") -> Profile:
    """A :class:`Profile` value; a name is not accepted here (use :func:`get` first)."""
    return check_type(value, Profile, field)


def combat_options(value: Any, field: str = "options") -> CombatOptions:
    """The §B switches passed in, or the proposals of docs/rules.md when none are."""
    return CombatOptions() if value is None else check_type(value, CombatOptions, field)


def magick_options(value: Any, field: str = "options") -> MagickOptions:
    """The §C switches passed in, or the proposals of docs/rules.md when none are."""
    return MagickOptions() if value is None else check_type(value, MagickOptions, field)
