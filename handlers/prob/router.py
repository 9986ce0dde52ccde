"""``/prob 7 6``: the exact odds before anyone rolls (docs/product.md §2 "Knowing the odds").

The numbers come from :func:`rules.probability.d10`, exact rather than simulated. The chat's
own botch rule is the headline; the other rule of §A.4 (S0 «ни одного успеха» vs S1 «остался
хотя бы один кубик с единицей») is shown beside it, because a table arguing over which book
to follow wants both numbers.
"""

from __future__ import annotations

from html import escape

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import house_rules, render
from handlers.prob import view
from rules import probability
from rules.d6 import probability as d6_probability
from rules.difficulty import check_base
from rules.errors import RulesInputError, check_int
from rules.profiles import BotchRule, GameSystem, Profile
from table.parsing import ArgumentsError, parse_d6_odds_arguments, parse_roll_arguments


def make_router() -> Router:
    router = Router(name="prob")
    router.message.register(prob_command, Command("prob"))
    return router


def _d6_text(text: str | None, profile: Profile) -> str:
    """§D.3 odds: ``/prob 4`` or ``/prob 4 2`` (two measures needed), exact fractions."""
    try:
        args = parse_d6_odds_arguments(text)
    except ArgumentsError as problem:
        return render.line_problem_text(problem.problem, problem.token, view.d6_usage_text())
    chance, required = args.chance, args.required
    return view.d6_prob_text(
        chance=chance,
        required=required,
        measures=[float(p) for p in d6_probability.measures_distribution(chance)],
        success=float(d6_probability.p_success(chance, required)),
        fiasco=float(d6_probability.p_fiasco_of(chance, required, profile)),
        with_effort=float(d6_probability.p_success(chance, required, special_effort=True)),
    )


def other_botch_rule(profile: Profile) -> Profile:
    other = (
        BotchRule.NET_NEGATIVE if profile.botch_rule is BotchRule.RAW_ZERO else BotchRule.RAW_ZERO
    )
    return profile.model_copy(update={"botch_rule": other})


async def prob_command(message: Message, command: CommandObject, profile: Profile) -> None:
    if profile.system is GameSystem.D6:
        await message.answer(_with_tag(_d6_text(command.args, profile), profile))
        return
    try:
        args = parse_roll_arguments(command.args).with_dice_in_pool()
    except ArgumentsError as problem:
        text = render.parse_problem_text(problem.problem, problem.token, profile, "prob")
        await message.answer(text)
        return
    difficulty = profile.default_difficulty if args.difficulty is None else args.difficulty
    try:
        check_base(difficulty, profile)
        check_int(args.pool, "pool", 1, profile.pool_sanity_max)
        odds = probability.d10(
            pool=args.pool,
            difficulty=difficulty,
            profile=profile,
            willpower=args.willpower,
            threshold=args.threshold,
        )
        other = probability.d10(
            pool=args.pool,
            difficulty=difficulty,
            profile=other_botch_rule(profile),
            willpower=args.willpower,
            threshold=args.threshold,
        )
    except RulesInputError as error:
        text = render.range_problem_text(error.field, profile, "prob")
        await message.answer(text)
        return
    text = view.prob_text(
        pool=args.pool,
        difficulty=difficulty,
        threshold=args.threshold,
        willpower=args.willpower,
        profile=profile,
        chances=odds,
        other_rule_botch=other.botch,
    )
    await message.answer(_with_tag(text, profile))


def _with_tag(text: str, profile: Profile) -> str:
    """The odds under changed house rules say so (docs/product.md "/rules"), as a roll does."""
    tag = house_rules.house_tag(profile)
    return text if tag is None else text + "\n" + escape(tag, quote=False)
