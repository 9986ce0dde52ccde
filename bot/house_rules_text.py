"""The words of the house rules (docs/product.md "/rules"): each switch's name and one line with
the book's reading and the proposal it defaults to (docs/rules.md §F), quoting the book where its
words decide it. A player reads them, so they say «the book», «Mage», «the house sheet» and
never a section code. Catalogue strings, so Russian comes from ``locales/``."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __
from babel.support import LazyProxy

SWITCHES: dict[str, tuple[LazyProxy, LazyProxy]] = {
    "botch_rule": (
        __("Botch"),
        __(
            "When a roll is a botch. Mage: no successes and at least one 1; Dark Ages: a 1 "
            "left after the 1s cancel the successes."
        ),
    ),
    "threshold_rule": (
        __("Threshold"),
        __(
            "By the book, modifiers that push the difficulty past 9 become a threshold "
            "(successes that do not count); off: the difficulty stops at 10."
        ),
    ),
    "auto_success": (
        __("Automatic success"),
        __(
            "By the book, a pool at least as large as the difficulty may take one success "
            "without a roll (not in resisted, combat or stressful actions)."
        ),
    ),
    "auto_success_costs_wp": (
        __("Automatic success costs Willpower"),
        __("The Dark Ages variant: the automatic success costs a point of Willpower."),
    ),
    "wp_auto_success": (
        __("Willpower gives a success"),
        __("By the book, a point of Willpower spent before the roll adds one automatic success."),
    ),
    "wp_cancellable_by_ones": (
        __("Ones cancel Willpower's success"),
        __(
            "The house sheet: 1s do not cancel the Willpower success; on: they cancel it like "
            "any success."
        ),
    ),
    "wp_prevents_botch": (
        __("Willpower prevents a botch"),
        __("The books are silent; by default a roll backed by Willpower never botches."),
    ),
    "wp_eaten_by_threshold": (
        __("Threshold eats Willpower's success"),
        __("Threshold points left after the dice successes also take the Willpower success."),
    ),
    "zero_ability": (
        __("0 in the Ability"),
        __(
            "Mage: «0 in the Ability is an automatic failure»; Dark Ages: the Attribute is "
            "rolled alone."
        ),
    ),
    "multiple_actions": (
        __("Several actions"),
        __(
            "Mage: each extra action takes a die more from every pool; Dark Ages: the pool is "
            "split between the actions."
        ),
    ),
    "max_declared_actions": (
        __("Most actions in a turn"),
        __("How many actions one character may declare in a turn."),
    ),
    "retry_penalty": (
        __("Another attempt"),
        __(
            "By the book, a new attempt after a failure is harder: «the third raises the "
            "difficulty by 2»."
        ),
    ),
    "extended_botch": (
        __("Botch in an extended action"),
        __("By the book, a botch loses everything gathered; «kept»: the successes stay."),
    ),
    "team_botch": (
        __("Botch in teamwork"),
        __(
            "By the book, a helper's botch «may affect only that character, or ruin the whole "
            "effort»."
        ),
    ),
    "combat.initiative_tie_by_dex_wits": (
        __("Initiative ties by Dexterity + Wits"),
        __("Equal initiative goes to the higher Dexterity + Wits, then to a coin."),
    ),
    "combat.wound_penalty_on_initiative": (
        __("Wounds slow initiative"),
        __("The house sheet is silent; by default wounds do not lower initiative."),
    ),
    "combat.attack_difficulty": (
        __("Attack difficulty"),
        __("The book's «six is the standard (a shot in a firefight)»."),
    ),
    "combat.defence_subtracts": (
        __("Defence subtracts"),
        __("The defender's successes are taken off the attacker's."),
    ),
    "combat.extra_successes_add_damage": (
        __("Extra successes add damage"),
        __("Each attack success beyond the first adds a damage die."),
    ),
    "combat.damage_difficulty": (
        __("Damage difficulty"),
        __("Damage is rolled at difficulty 6."),
    ),
    "combat.soak_difficulty": (
        __("Soak difficulty"),
        __("Soak is rolled at difficulty 6."),
    ),
    "combat.damage_ones_cancel": (
        __("Ones cancel damage"),
        __("By default 1s do not cancel damage successes, and damage never botches."),
    ),
    "combat.soak_ones_cancel": (
        __("Ones cancel soak"),
        __("By default 1s do not cancel soak successes."),
    ),
    "combat.stamina_soaks_lethal": (
        __("Stamina soaks lethal"),
        __("Stamina soaks bashing damage, lethal only with armour unless this is on."),
    ),
    "combat.swap_rear_flank": (
        __("Swap rear and flank"),
        __(
            "The house sheet gives «from the rear +1 die, from the flank +2», which looks "
            "swapped; on: rear +2, flank +1."
        ),
    ),
    "combat.interruption_difficulty": (
        __("Interruption difficulty"),
        __("The Willpower roll to interrupt: difficulty 6, one success is enough."),
    ),
    "combat.interruption_by_wp_spend": (
        __("Interrupt by spending Willpower"),
        __("A point of Willpower spent interrupts without a roll."),
    ),
    "combat.desperate_defence_cumulative": (
        __("Desperate defence adds up"),
        __("«A die for each attack received»: each later attack costs one die more."),
    ),
    "combat.free_move_bracket_is_half": (
        __("Free move is half the run"),
        __(
            "«Up to half the running speed (10 m + Dexterity × 1.5)»: the bracket is the half "
            "speed."
        ),
    ),
    "combat.stun_inclusive": (
        __("Stun at equal"),
        __("Stunned when the levels after soak exceed Stamina; on: equal is enough."),
    ),
    "combat.stun_per_turn": (
        __("Stun per turn"),
        __("Counted per single attack; on: the turn's damage adds up."),
    ),
    "combat.stabilise_difficulty": (
        __("Stabilising difficulty"),
        __("The roll that stops a wound worsening, difficulty 6."),
    ),
    "combat.lethal_worsens_from_row": (
        __("Untreated lethal worsens from row"),
        __("An untreated lethal wound from this row of the track worsens by a level a day."),
    ),
    "combat.lethal_worsening_by_track_level": (
        __("Worsening by the track's level"),
        __("On: the whole track's level decides, not the lethal box's row."),
    ),
    "combat.blind_fire_gated": (
        __("Blind fire needs Perception"),
        __("The Perception + Awareness roll (difficulty 8) must succeed before the shot."),
    ),
    "combat.immobilized_auto_hit_successes": (
        __("Hit on the immobilized"),
        __("An automatic hit on a fully immobilized target counts as this many successes."),
    ),
    "combat.ambush_victim_defends": (
        __("The ambushed defend"),
        __("By default the victim of an ambush gets no defence roll (soak still applies)."),
    ),
    "combat.stand_up_difficulty": (
        __("Standing up difficulty"),
        __("Standing up at once is Dexterity + Athletics at difficulty 6."),
    ),
    "combat.stand_up_botch_soakable": (
        __("Standing-up botch is soaked"),
        __("The botch's level of bashing lands directly; on: it may be soaked."),
    ),
    "magick.natural_witness_difficulty_extra": (
        __("Witnesses of natural magick: difficulty"),
        __(
            "The empty «natural / witnesses» cells of the table read as no change; this is "
            "added to the difficulty."
        ),
    ),
    "magick.natural_witness_paradox_extra": (
        __("Witnesses of natural magick: Paradox"),
        __("The same for Paradox: this is added to it."),
    ),
    "magick.modifier_cap": (
        __("Modifier cap"),
        __("The house sheet: «the largest sum of difficulty modifiers: ±3»."),
    ),
    "magick.quintessence_counts_in_cap": (
        __("Quintessence counts in the cap"),
        __("Quintessence is in the same table, so it counts toward the ±3."),
    ),
    "magick.quintessence_max_per_roll": (
        __("Quintessence per roll"),
        __("The house sheet: «spending Quintessence: −1 difficulty per point, at most 3»."),
    ),
    "magick.resonance_both_allowed": (
        __("Both Resonances apply"),
        __("A matching and an opposed Resonance may both count."),
    ),
    "magick.wound_penalty_on_arete": (
        __("Wounds lower Arete"),
        __("The house sheet is silent; by default the wound penalty lowers the Arete pool."),
    ),
    "magick.magnitude_is_separate_cost": (
        __("Magnitude is a separate cost"),
        __(
            "By default the magnitude is a floor on all the successes, not paid before they "
            "are allocated."
        ),
    ),
    "magick.area_counts_mage": (
        __("The mage counts as a target"),
        __("By default the mage is never counted as a target."),
    ),
    "magick.permanent_duration_rule": (
        __("Permanent duration"),
        __(
            "«Twice the needed amount is permanent»: twice the needed successes, or 10 on duration."
        ),
    ),
    "magick.forces_damage_without_damage_successes": (
        __("Forces: a level at once"),
        __(
            "The Forces' «a level at once» comes with any working damaging Effect; off: only "
            "with a success on damage."
        ),
    ),
    "magick.correspondence_better_link": (
        __("The better Correspondence link"),
        __("With both a place and a contact, the cheaper link decides."),
    ),
    "magick.botched_ritual_adds_rolls": (
        __("Botched ritual: Paradox per roll"),
        __("«+1 Paradox for each roll» is added to the table's Paradox; off: it replaces it."),
    ),
    "magick.backlash_ones_cancel": (
        __("Ones cancel in Backlash"),
        __("By default 1s in the Backlash roll cancel nothing."),
    ),
    "magick.backlash_soakable_below_tier5": (
        __("Backlash soaked below tier 5"),
        __("Backlash of tiers 1–4 may be soaked, tier 5 never."),
    ),
    "magick.backlash_difficulty": (
        __("Backlash difficulty"),
        __("The house sheet: «roll (at difficulty 6)»."),
    ),
    "magick.wheel_size": (
        __("Wheel size"),
        __("Boxes on the shared Quintessence and Paradox wheel."),
    ),
    "magick.barrier_adjustment": (
        __("A Barrier shift changes"),
        __("A local ±1–2 shift of the Barrier changes the difficulty, the successes, or both."),
    ),
    "magick.barrier_damage_per": (
        __("Barrier damage per"),
        __("«For each failure in the roll»: per failed roll or per failed die."),
    ),
    "magick.haunt_unit": (
        __("Haunting unit"),
        __("«Days become weeks, months and even years»: the unit of a haunting."),
    ),
    "d6.mental_wounds_max_only": (
        __("Only the worst mental wound"),
        __("The rules: «the strongest state counts»; off: mental wounds add up."),
    ),
    "d6.no_power_impossible": (
        __("No power, no action"),
        __(
            "The rules: «without a fitting power you will not manage it»; on: a chance with "
            "no power is impossible even with help or luck."
        ),
    ),
    "d6.auto_success_gain": (
        __("Gain of a success without a roll"),
        __("A success without a roll counts as this gain where a number is needed."),
    ),
    "d6.shortfall_is_fiasco": (
        __("Too few measures is a fiasco"),
        __(
            "Some measures but fewer than needed: just not enough, or a fiasco with its "
            "consequences."
        ),
    ),
    "d6.no_weakness_penalty": (
        __("Fiasco without a weakness"),
        __("The rules: «or −3 if the characters have no weaknesses»."),
    ),
    "d6.inactivity_wound_supporting": (
        __("On edge: supporting characters"),
        __("The rules: «supporting characters are on edge [−3]»."),
    ),
    "d6.preparation_split": (
        __("Preparation may be split"),
        __("A preparation's gain may be split among several initiative dice."),
    ),
    "d6.slow_defence_of_others": (
        __("Slow defence of others"),
        __("A slow defender may still protect a teammate."),
    ),
    "d6.poison_uses_final_gain": (
        __("Poison by the final gain"),
        __("The poison wound equals the final gain; off: the attacker's measures."),
    ),
    "d6.special_effort_noop_allowed": (
        __("Effort with nothing to reroll"),
        __("Allowed, with nothing rerolled and the price still paid; off: refused."),
    ),
    "d6.multi_side_contests": (
        __("Contests of many sides"),
        __("The single top side wins by its lead over the second; off: two sides only."),
    ),
    "vampire.bashing_halved": (
        __("Bashing halved for vampires"),
        __("Bashing that gets through a vampire's soak is halved, rounded down; off: taken whole."),
    ),
    "vampire.potence_as_dice": (
        __("Potence as dice"),
        __("Potence adds automatic successes to melee damage; on: as many damage dice."),
    ),
    "vampire.aggravated_heal_blood": (
        __("Blood for an aggravated level"),
        __("Blood points that mend one aggravated level with a day's rest; the book's 5."),
    ),
    "vampire.aggravated_heal_willpower": (
        __("Willpower for an aggravated level"),
        __("Off: blood and rest mend an aggravated level; on: a Willpower point too."),
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
