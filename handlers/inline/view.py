"""Inline mode on screen: the offered roll, its result, the hints (README "Inline mode").

Pure functions of what was resolved into text and keyboards. The offered message names the
dice and the odds but holds no faces: the faces come only with the sender's press.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render
from handlers.inline.callbacks import CampaignCallback, InlineRollCallback
from rules.profiles import Profile
from table.scope import Campaign


def roll_button_text() -> str:
    return _("🎲 Roll")


def roll_keyboard(offer_id: str, home: Campaign) -> InlineKeyboardMarkup:
    data = InlineRollCallback(offer=offer_id, home=home.button).pack()
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=roll_button_text(), callback_data=data)]]
    )


def d10_title(dice: int, difficulty: int, threshold: int, willpower: bool, profile: Profile) -> str:
    return render.conditions(dice, difficulty, threshold, willpower, profile)


def d6_title(dice: int, required: int) -> str:
    title = _("chance {n}d6").format(n=dice)
    if required > 1:
        title += ", " + _("measures needed: {n}").format(n=required)
    return title


def odds_line(success: float, botch: float, *, d6: bool = False) -> str:
    """The exact chances as plain text (an inline result's description is not HTML)."""
    if d6:
        return _("Success {success} · fiasco {botch}").format(
            success=render.percent(success), botch=render.percent(botch)
        )
    return _("Success {success} · botch {botch}").format(
        success=render.percent(success), botch=render.percent(botch)
    )


def description(odds: str, source: str | None, campaign: str | None) -> str:
    """Under the result's title in the list: the odds, where the dice come from, and the
    campaign whose sheet and log the roll belongs to."""
    parts = [odds]
    if source:
        parts.append(render.plain(source))
    if campaign:
        parts.append(_("campaign «{title}»").format(title=campaign))
    return " · ".join(parts)


def campaign_line(campaign: str | None) -> str:
    if not campaign:
        return ""
    return "\n" + _("📖 Campaign «{title}»").format(title=escape(campaign))


def offer_text(name: str, title: str, source: str | None, odds: str, campaign: str | None) -> str:
    """The message sent before the roll: who will roll what, at which odds, and that the dice
    are still in the cup until the sender presses the button."""
    head = f"🎲 {escape(name)}: "
    if source:
        head += source + " → "
    lines = [
        head + title,
        escape(odds),
        _("Not rolled yet: {name} presses «{button}».").format(
            name=escape(name), button=roll_button_text()
        ),
    ]
    return "\n".join(lines) + campaign_line(campaign)


def d6_result_text(roll_text: str, label: str, campaign: str | None) -> str:
    return roll_text + "\n" + label + campaign_line(campaign)


def d10_result_text(roll_text: str, campaign: str | None) -> str:
    return roll_text + campaign_line(campaign)


# ----- hints -----------------------------------------------------------------------------


def help_title() -> str:
    return _("How to roll from any chat")


def help_description(d6: bool) -> str:
    if d6:
        return _("4 — a chance of 4 dice; 4 2 — 2 measures needed; strength+agility 1")
    return _("7 6 — 7 dice at difficulty 6; dex+brawl 6 wp — from your sheet, with Willpower")


def help_text(bot_name: str, d6: bool, campaign: str | None) -> str:
    """What the help result posts, and ``/inline`` shows: how to call the bot in any chat."""
    at = escape(f"@{bot_name}")
    if d6:
        examples = _(
            "{at} 4 — a chance of 4 dice; {at} 4 2 — two measures needed; "
            "{at} strength+agility — the chance from your sheet's powers."
        ).format(at=at)
    else:
        examples = _(
            "{at} 7 6 — seven dice at difficulty 6; {at} 7 6 wp — with Willpower; "
            "{at} dex+brawl 6 — the pool from your sheet."
        ).format(at=at)
    lines = [
        _("🎲 Rolls in any chat, even where the bot is not a member: {at} and the roll.").format(
            at=at
        ),
        examples,
        _(
            "The list shows the odds first; the message you send carries «{button}», and only "
            "your first press rolls the dice, once, for everyone in the chat to see."
        ).format(button=roll_button_text()),
        _(
            "Traits and Willpower come from your sheet in the campaign you last played in; "
            "/inline in the private chat with the bot chooses another."
        ),
    ]
    return "\n".join(lines) + campaign_line(campaign)


def problem_title() -> str:
    return _("Not a roll yet")


def problem_text(problem: str, bot_name: str, d6: bool) -> str:
    """A hint result's message: what is wrong, and a line that works."""
    example = f"@{bot_name} 4 2" if d6 else f"@{bot_name} 7 6"
    return problem + "\n" + _("For example: {line}").format(line=escape(example))


def d6_problem_text(token: str) -> str:
    """A d6 line not understood, in the d6 game's words (§D.2: the chance, the measures)."""
    if not token:
        return _("How many dice is the chance? For example 4, or 4 2 for two measures.")
    return _(
        "«{word}» is not understood: the chance and the measures needed are numbers, "
        "powers are named as on your sheet."
    ).format(word=escape(token[:24]))


def table_only_text() -> str:
    """§D.12: a trick waits on the sheet for a later roll at the table; an automatic success
    rolls nothing to offer."""
    return _(
        "Inline rolls take a chance, powers, weakness, luck and difficulties; tricks and "
        "automatic successes are for /r in the game's chat."
    )


# ----- the private chat's choice ---------------------------------------------------------


def campaigns_text(current: str | None, bot_name: str, d6: bool, choices: int) -> str:
    """``/inline`` in the private chat: the help, and the campaign the rolls belong to, with
    buttons to choose another when the player has rolled in more than one group."""
    text = help_text(bot_name, d6, None) + "\n\n"
    if current is None:
        return text + _(
            "You have not played in a group with the bot yet: inline rolls take typed pools "
            "and go to no campaign's log. Roll once in your game's group to link it."
        )
    if choices < 2:
        return text + chosen_text(escape(current))
    chosen = _("Inline rolls now belong to «{title}». Choose another campaign:")
    return text + chosen.format(title=escape(current))


def campaigns_keyboard(
    campaigns: Sequence[tuple[Campaign, str]], chosen: Campaign | None
) -> InlineKeyboardMarkup | None:
    """A button for each campaign the player rolled in: a group's own game, or a forum
    topic named after its chat («Хроника › Маг»)."""
    if len(campaigns) < 2:
        return None
    buttons = [
        InlineKeyboardButton(
            text=render.marked(title or campaign.key, campaign == chosen),
            callback_data=CampaignCallback(campaign=campaign.button).pack(),
        )
        for campaign, title in campaigns
    ]
    return InlineKeyboardMarkup(inline_keyboard=render.rows(buttons, 1))


def chosen_text(title: str) -> str:
    return _("Inline rolls now belong to «{title}».").format(title=title)


def not_yours_text(name: str) -> str:
    return _("Only {name} can roll these dice.").format(name=name)


def expired_text() -> str:
    return _("This offer has expired: type the roll again.")


def rolled_text() -> str:
    return _("These dice are already rolled.")


def group_text(bot_name: str) -> str:
    return _(
        "Inline mode: type @{bot} 7 6 in any chat. Send /inline to the bot privately to "
        "choose the campaign your inline rolls belong to."
    ).format(bot=escape(bot_name))


def help_line(profile: Profile) -> str:
    """The /help line: where inline mode is explained."""
    return _(
        "In any chat, the bot's @name and 7 6: the roll is offered with its odds and rolled "
        "by your press — /inline"
    )
