"""``/prob`` on screen: the exact chances of every result, as bars (docs/product.md §2,
docs/rules.md §E)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from aiogram.utils.i18n import gettext as _

from bot import render
from rules.profiles import BotchRule, GameSystem, Profile

BAR_WIDTH = 20
BLOCKS = " ▏▎▍▌▋▊▉█"


def _distribution(successes: Mapping[int, float] | Sequence[float]) -> list[tuple[int, float]]:
    if isinstance(successes, Mapping):
        return sorted((int(k), float(v)) for k, v in successes.items())
    return [(k, float(v)) for k, v in enumerate(successes)]


def _bar(p: float, top: float) -> str:
    eighths = round(p / top * BAR_WIDTH * 8) if top > 0 else 0
    full, rest = divmod(eighths, 8)
    return ("█" * full + (BLOCKS[rest] if rest else "")).ljust(BAR_WIDTH)


def prob_text(
    *,
    pool: int,
    difficulty: int,
    threshold: int,
    willpower: bool,
    profile: Profile,
    chances: render.D10Chances,
    other_rule_botch: float,
) -> str:
    """/prob: the exact distribution of successes as a bar chart in a monospace block."""
    rows = _distribution(chances.successes)
    top = max((p for _k, p in rows), default=0.0)
    shown: list[str] = []
    cumulative = 0.0
    for k, p in rows:
        if cumulative >= 0.9995 and p < 0.0005:
            break
        cumulative += p
        shown.append(f"{k:>2} {_bar(p, top)} {render.percent(p)}")
    lines = [
        "📊 " + render.conditions(pool, difficulty, threshold, willpower, profile),
        _("Successes:"),
        "<pre>" + escape("\n".join(shown)) + "</pre>",
        _("Success: {p}").format(p=render.percent_html(chances.success)),
        _("Failure: {p}").format(p=render.percent_html(chances.failure)),
        _("Botch by {rule}: {p}").format(
            rule=render.botch_rule_name(profile.botch_rule), p=render.percent_html(chances.botch)
        ),
    ]
    other = (
        BotchRule.NET_NEGATIVE if profile.botch_rule is BotchRule.RAW_ZERO else BotchRule.RAW_ZERO
    )
    lines.append(
        _("Botch by {rule}: {p}").format(
            rule=render.botch_rule_name(other), p=render.percent_html(other_rule_botch)
        )
    )
    return "\n".join(lines)


def d6_prob_text(
    *,
    chance: int,
    required: int,
    measures: Sequence[float],
    success: float,
    fiasco: float,
    with_effort: float,
) -> str:
    """/prob in a d6 chat (§D.3–§D.4): the exact distribution of measures of success, the
    fiasco, and the success when a special effort is spent whenever it is needed."""
    top = max(measures, default=0.0)
    shown: list[str] = []
    cumulative = 0.0
    for k, p in enumerate(measures):
        if cumulative >= 0.9995 and p < 0.0005:
            break
        cumulative += p
        shown.append(f"{k:>2} {_bar(p, top)} {render.percent(p)}")
    head = "📊 " + _("chance {n}d6").format(n=chance)
    if required > 1:
        head += ", " + _("measures needed: {n}").format(n=required)
    return "\n".join(
        [
            head,
            _("Measures of success:"),
            "<pre>" + escape("\n".join(shown)) + "</pre>",
            _("Success: {p}").format(p=render.percent_html(success)),
            _("Fiasco: {p}").format(p=render.percent_html(fiasco)),
            _("Success with a special effort: {p}").format(p=render.percent_html(with_effort)),
        ]
    )


def d6_usage_text() -> str:
    return _("Example: /prob 4 — a chance of 4 dice; /prob 4 2 — when 2 measures are needed.")


def help_line(profile: Profile) -> str:
    if profile.system is GameSystem.D6:
        return _("/prob 4 2 — exact chances of the measures, the fiasco and a special effort")
    return _("/prob 7 6 — exact chances of every result")
