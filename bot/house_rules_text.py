"""The words of the house rules (PRODUCT.md "/rules"): each switch's name and one line with
the book's reading and the proposal it defaults to (RULES.md §F), quoting the seed where its
words decide it. Catalogue strings, so Russian comes from ``locales/``."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __
from babel.support import LazyProxy

SWITCHES: dict[str, tuple[LazyProxy, LazyProxy]] = {
    "botch_rule": (
        __("Botch"),
        __(
            "When a roll is a botch. S0/S4: no successes and a 1 before cancelling; S1: a 1 "
            "left after the 1s cancel."
        ),
    ),
    "threshold_rule": (
        __("Threshold"),
        __(
            "S0: modifiers pushing the difficulty past 9 become a threshold (successes that "
            "do not count); off: the difficulty stops at 10."
        ),
    ),
    "auto_success": (
        __("Automatic success"),
        __(
            "S0: a pool at least as large as the difficulty may take one success without a "
            "roll (not in resisted, combat or stressful actions)."
        ),
    ),
    "auto_success_costs_wp": (
        __("Automatic success costs Willpower"),
        __("S1's variant: the automatic success costs a point of Willpower."),
    ),
    "wp_auto_success": (
        __("Willpower gives a success"),
        __("S0: a point of Willpower spent before the roll adds one automatic success."),
    ),
    "wp_cancellable_by_ones": (
        __("Ones cancel Willpower's success"),
        __("S4: the Willpower success is not cancelled by 1s; on: 1s cancel it like any success."),
    ),
    "wp_prevents_botch": (
        __("Willpower prevents a botch"),
        __("AMB-A4: a roll backed by Willpower never botches (the books are silent)."),
    ),
    "wp_eaten_by_threshold": (
        __("Threshold eats Willpower's success"),
        __("AMB-A4: threshold points left after the dice successes consume the Willpower success."),
    ),
    "zero_ability": (
        __("0 in the Ability"),
        __("S4: «0 in the Ability is an automatic failure»; S1: the Attribute is rolled alone."),
    ),
    "multiple_actions": (
        __("Several actions"),
        __(
            "S0/S4: each extra action takes a die more from every pool; S1: the pool is split"
            " between the actions."
        ),
    ),
    "max_declared_actions": (
        __("Most actions in a turn"),
        __("How many actions one character may declare in a turn."),
    ),
    "retry_penalty": (
        __("Another attempt"),
        __(
            "S0: a new attempt after a failure is harder, «the third raises the difficulty by"
            " 2» (read as base + attempts − 1)."
        ),
    ),
    "extended_botch": (
        __("Botch in an extended action"),
        __("S0: a botch loses everything gathered; keep: the successes stay."),
    ),
    "team_botch": (
        __("Botch in teamwork"),
        __("S0: a helper's botch «may affect only that character, or ruin the whole effort»."),
    ),
    "combat.initiative_tie_by_dex_wits": (
        __("Initiative ties by Dexterity + Wits"),
        __("AMB-B1: equal initiative goes to the higher Dexterity + Wits, then to a coin."),
    ),
    "combat.wound_penalty_on_initiative": (
        __("Wounds slow initiative"),
        __("AMB-B1: S4 is silent; by default wounds do not lower initiative."),
    ),
    "combat.attack_difficulty": (
        __("Attack difficulty"),
        __("AMB-B2: S0's «six is the standard (a shot in a firefight)»."),
    ),
    "combat.defence_subtracts": (
        __("Defence subtracts"),
        __("AMB-B2: the defender's successes are taken off the attacker's."),
    ),
    "combat.extra_successes_add_damage": (
        __("Extra successes add damage"),
        __("AMB-B2: each attack success beyond the first adds a damage die."),
    ),
    "combat.damage_difficulty": (
        __("Damage difficulty"),
        __("AMB-B2: damage is rolled at difficulty 6."),
    ),
    "combat.soak_difficulty": (
        __("Soak difficulty"),
        __("AMB-B2: soak is rolled at difficulty 6."),
    ),
    "combat.damage_ones_cancel": (
        __("Ones cancel damage"),
        __("AMB-B2: by default 1s do not cancel damage successes, and damage never botches."),
    ),
    "combat.soak_ones_cancel": (
        __("Ones cancel soak"),
        __("AMB-B2: by default 1s do not cancel soak successes."),
    ),
    "combat.stamina_soaks_lethal": (
        __("Stamina soaks lethal"),
        __("§B.10: Stamina soaks bashing damage, lethal only with armour unless this is on."),
    ),
    "combat.swap_rear_flank": (
        __("Swap rear and flank"),
        __(
            "AMB-B3: S4 gives «from the rear +1 die, from the flank +2», which looks swapped;"
            " on: rear +2, flank +1."
        ),
    ),
    "combat.interruption_difficulty": (
        __("Interruption difficulty"),
        __("AMB-B4: the Willpower roll to interrupt, difficulty 6, one success."),
    ),
    "combat.interruption_by_wp_spend": (
        __("Interrupt by spending Willpower"),
        __("AMB-B4: a point of Willpower spent interrupts without a roll."),
    ),
    "combat.desperate_defence_cumulative": (
        __("Desperate defence adds up"),
        __("AMB-B5: «a die for each attack received»: each later attack costs one die more."),
    ),
    "combat.free_move_bracket_is_half": (
        __("Free move is half the run"),
        __(
            "AMB-B8: «up to half the running speed (10 m + Dexterity × 1.5)»: the bracket is "
            "the half speed."
        ),
    ),
    "combat.stun_inclusive": (
        __("Stun at equal"),
        __("AMB-B10: stunned when the levels after soak exceed Stamina; on: equal is enough."),
    ),
    "combat.stun_per_turn": (
        __("Stun per turn"),
        __("AMB-B10: counted per single attack; on: the turn's damage adds up."),
    ),
    "combat.stabilise_difficulty": (
        __("Stabilising difficulty"),
        __("AMB-B11: the roll that stops a wound worsening, difficulty 6."),
    ),
    "combat.lethal_worsens_from_row": (
        __("Untreated lethal worsens from row"),
        __(
            "AMB-B11: an untreated lethal wound from this row of the track worsens by a level"
            " a day."
        ),
    ),
    "combat.lethal_worsening_by_track_level": (
        __("Worsening by the track's level"),
        __("AMB-B11: on: the whole track's level decides, not the lethal box's row."),
    ),
    "combat.blind_fire_gated": (
        __("Blind fire needs Perception"),
        __("AMB-B12: the Perception + Awareness roll (difficulty 8) must succeed before the shot."),
    ),
    "combat.immobilized_auto_hit_successes": (
        __("Hit on the immobilized"),
        __(
            "AMB-B13: an automatic hit on a fully immobilized target counts as this many successes."
        ),
    ),
    "combat.ambush_victim_defends": (
        __("The ambushed defend"),
        __(
            "AMB-B14: by default the victim of an ambush gets no defence roll (soak still applies)."
        ),
    ),
    "combat.stand_up_difficulty": (
        __("Standing up difficulty"),
        __("AMB-B16: standing up at once is Dexterity + Athletics at difficulty 6."),
    ),
    "combat.stand_up_botch_soakable": (
        __("Standing-up botch is soaked"),
        __("AMB-B16: the botch's bashing level lands directly; on: it may be soaked."),
    ),
    "magick.natural_witness_difficulty_extra": (
        __("Witnesses of natural magick: difficulty"),
        __(
            "AMB-C1: the empty «natural / witnesses» cells read as no change; this is added "
            "to the difficulty."
        ),
    ),
    "magick.natural_witness_paradox_extra": (
        __("Witnesses of natural magick: Paradox"),
        __("AMB-C1: the same for Paradox: this is added to it."),
    ),
    "magick.modifier_cap": (
        __("Modifier cap"),
        __("S4: «the largest sum of difficulty modifiers: ±3»."),
    ),
    "magick.quintessence_counts_in_cap": (
        __("Quintessence counts in the cap"),
        __("AMB-C2: Quintessence is in the same table, so it counts toward the ±3."),
    ),
    "magick.quintessence_max_per_roll": (
        __("Quintessence per roll"),
        __("S4: «spending Quintessence: −1 difficulty per point, at most 3»."),
    ),
    "magick.resonance_both_allowed": (
        __("Both Resonances apply"),
        __("§C.3: a matching and an opposed Resonance may both count."),
    ),
    "magick.wound_penalty_on_arete": (
        __("Wounds lower Arete"),
        __("AMB-C5: S4 is silent; by default the wound penalty lowers the Arete pool."),
    ),
    "magick.magnitude_is_separate_cost": (
        __("Magnitude is a separate cost"),
        __(
            "AMB-C7: by default the magnitude is a floor on all the successes, not paid "
            "before they are allocated."
        ),
    ),
    "magick.area_counts_mage": (
        __("The mage counts as a target"),
        __("AMB-C8: by default the mage is never charged as a target."),
    ),
    "magick.permanent_duration_rule": (
        __("Permanent duration"),
        __(
            "AMB-C9: «×2 the needed amount is permanent»: twice the needed successes, or 10 "
            "on duration."
        ),
    ),
    "magick.forces_damage_without_damage_successes": (
        __("Forces: a level at once"),
        __(
            "AMB-C16: the Forces' «a level at once» comes with any working damaging Effect; "
            "off: only with a success on damage."
        ),
    ),
    "magick.correspondence_better_link": (
        __("The better Correspondence link"),
        __("§C.8: with both a place and a contact, the cheaper link decides."),
    ),
    "magick.botched_ritual_adds_rolls": (
        __("Botched ritual: Paradox per roll"),
        __("AMB-C11: «+1 Paradox for each roll» is added to the table; off: it replaces it."),
    ),
    "magick.backlash_ones_cancel": (
        __("Ones cancel in Backlash"),
        __("AMB-C12: by default 1s in the Backlash roll cancel nothing."),
    ),
    "magick.backlash_soakable_below_tier5": (
        __("Backlash soaked below tier 5"),
        __("AMB-C12: tiers 1–4 may be soaked, tier 5 never (S4)."),
    ),
    "magick.backlash_difficulty": (
        __("Backlash difficulty"),
        __("S4: «roll (at difficulty 6)»."),
    ),
    "magick.wheel_size": (
        __("Wheel size"),
        __("AMB-C13: boxes on the shared Quintessence and Paradox wheel."),
    ),
    "magick.barrier_adjustment": (
        __("A Barrier shift changes"),
        __(
            "AMB-C14: a local ±1–2 shift of the Barrier changes the difficulty, the "
            "successes, or both."
        ),
    ),
    "magick.barrier_damage_per": (
        __("Barrier damage per"),
        __("AMB-C14: «for each failure in the roll»: per failed roll or per failed die."),
    ),
    "magick.haunt_unit": (
        __("Haunting unit"),
        __("AMB-C15: «days become weeks, months and even years»: the unit of a haunting."),
    ),
    "d6.mental_wounds_max_only": (
        __("Only the worst mental wound"),
        __("S2: «the strongest state counts»; off: mental wounds add up."),
    ),
    "d6.no_power_impossible": (
        __("No power, no action"),
        __(
            "S2: «without a fitting power you will not manage it»; on: a chance with no power"
            " is impossible even with help or luck."
        ),
    ),
    "d6.auto_success_gain": (
        __("Gain of a success without a roll"),
        __("AMB-D2: a success without a roll counts as this gain where a number is needed."),
    ),
    "d6.shortfall_is_fiasco": (
        __("Too few measures is a fiasco"),
        __(
            "AMB-D3: some measures but fewer than needed: just not enough, or a fiasco with "
            "its consequences."
        ),
    ),
    "d6.no_weakness_penalty": (
        __("Fiasco without a weakness"),
        __("S2: «or −3 if the characters have no weaknesses»."),
    ),
    "d6.inactivity_wound_supporting": (
        __("On edge: supporting characters"),
        __("S3: «supporting characters are on edge [−3]»."),
    ),
    "d6.preparation_split": (
        __("Preparation may be split"),
        __("AMB-D4: a preparation's gain may be split among several initiative dice."),
    ),
    "d6.slow_defence_of_others": (
        __("Slow defence of others"),
        __("AMB-D8: a slow defender may still protect a teammate."),
    ),
    "d6.poison_uses_final_gain": (
        __("Poison by the final gain"),
        __("AMB-D11: the poison wound equals the final gain; off: the attacker's measures."),
    ),
    "d6.special_effort_noop_allowed": (
        __("Effort with nothing to reroll"),
        __("AMB-D14: allowed, with nothing rerolled and the price still paid; off: refused."),
    ),
    "d6.multi_side_contests": (
        __("Contests of many sides"),
        __("AMB-D12: the unique top wins by top − second; off: two sides only."),
    ),
}

VALUES: dict[str, LazyProxy] = {
    "raw_zero": __("no successes and a 1"),
    "net_negative": __("a 1 left after cancelling"),
    "attribute_only": __("Attribute alone"),
    "auto_failure": __("automatic failure"),
    "cumulative": __("a die off per action"),
    "split_pool": __("the pool split"),
    "escalating": __("+1 per attempt"),
    "escalating_triangular": __("+1, +2, +3… per attempt"),
    "none": __("no penalty"),
    "lose_all": __("all lost"),
    "keep": __("kept"),
    "member_only": __("the helper only"),
    "ruins_all": __("ruins all"),
    "double_required": __("twice the needed"),
    "ten_on_duration": __("10 on duration"),
    "difficulty": __("difficulty"),
    "successes": __("successes"),
    "both": __("both"),
    "failed_roll": __("a failed roll"),
    "failed_die": __("a failed die"),
    "days": __("days"),
    "weeks": __("weeks"),
    "months": __("months"),
    "years": __("years"),
}
