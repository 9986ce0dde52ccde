"""Hidden rolls on screen: the commitment, the private roll, the reveal (docs/product.md §2)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render
from bot.hidden_rolls import HiddenResult
from handlers.hidden.callbacks import CampaignCallback, RevealCallback
from rules.d6.roll import D6Result
from rules.profiles import GameSystem, Profile
from table import commitment
from table.scope import Campaign
from table.store import HiddenRecord

START_PAYLOAD = "st"  # the deep link's ?start= value: «open the chat for hidden rolls»


def anonymous_reveal_text() -> str:
    return _("Reveal with the button under the result in our private chat, or send /reveal there.")


def hidden_group_text(name: str, seq: int, commitment_hex: str) -> str:
    """The only thing the group learns of a hidden roll: who, its number and the commitment."""
    return "\n".join(
        [
            "🤫 "
            + _("{name} rolled in secret: hidden roll #{seq}.").format(name=escape(name), seq=seq),
            _("SHA-256 commitment:") + f" <code>{commitment_hex}</code>",
            _("After /reveal anyone can check that the result was not changed."),
        ]
    )


def _result_text(record: HiddenRecord, result: HiddenResult, profile: Profile) -> str:
    if isinstance(result, D6Result):
        return render.d6_roll_text(result, roller=record.name)
    return render.roll_result_text(result, pool=record.pool, roller=record.name, profile=profile)


def hidden_private_text(
    record: HiddenRecord,
    result: HiddenResult,
    title: str,
    profile: Profile,
    note: str | None = None,
) -> str:
    """The full result, for the Storyteller's eyes only (their private chat); ``note`` what
    else the roll means (an Effect's Paradox)."""
    head = "🤫 " + _("Hidden roll #{seq} in «{title}»").format(seq=record.seq, title=escape(title))
    body = _result_text(record, result, profile)
    if note:
        body += "\n" + note
    tail = _("Commitment posted in the group:") + f" <code>{record.commitment}</code>"
    return "\n".join([head, body, tail, _("Publish it with the button or /reveal in the group.")])


def reveal_keyboard(campaign: Campaign, seq: int) -> InlineKeyboardMarkup:
    data = RevealCallback(c=campaign.button, s=seq).pack()
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="📢 " + _("Reveal"), callback_data=data)]]
    )


def deep_link(bot_username: str) -> str:
    return f"https://t.me/{bot_username}?start={START_PAYLOAD}"


def no_private_chat_text(name: str) -> str:
    return "🤫 " + _(
        "{name}, to roll in secret open a private chat with me (the button below), "
        "then send /h again. Nothing was rolled and nothing was shown here."
    ).format(name=escape(name))


def open_private_keyboard(bot_username: str) -> InlineKeyboardMarkup:
    button = InlineKeyboardButton(
        text="💬 " + _("Open a private chat"), url=deep_link(bot_username)
    )
    return InlineKeyboardMarkup(inline_keyboard=[[button]])


def private_ready_text() -> str:
    return _(
        "This chat is ready: the results of your hidden rolls will come here. "
        "Send /h 7 6 in your game's group, or /h here to roll for a campaign you run."
    )


def anonymous_hidden_text() -> str:
    return _(
        "An anonymous administrator's roll cannot be sent to anyone privately. "
        "Send /h 7 6 to me in a private chat instead."
    )


def hidden_d6_text() -> str:
    return _(
        "In a d6 chat: /h 4 — a chance of 4 in secret (an NPC's, or yours); /h 4 2 — when 2 "
        "measures are needed."
    )


def choose_campaign_text(has_any: bool) -> str:
    if not has_any:
        return _(
            "You are not the Storyteller of any chat yet. Become one with /st in your game's group."
        )
    return _("Choose the campaign your hidden rolls from this chat are for:")


def campaigns_keyboard(
    campaigns: Mapping[Campaign, str], chosen: Campaign | None
) -> InlineKeyboardMarkup:
    rows = [
        [
            InlineKeyboardButton(
                text=("✅ " if campaign == chosen else "") + title,
                callback_data=CampaignCallback(c=campaign.button).pack(),
            )
        ]
        for campaign, title in sorted(campaigns.items(), key=lambda item: item[1].casefold())
    ]
    return InlineKeyboardMarkup(inline_keyboard=rows)


def campaign_chosen_text(title: str) -> str:
    return _(
        "Campaign: «{title}». Now /h 7 6 here rolls in secret for it; "
        "/reveal publishes the last hidden roll."
    ).format(title=escape(title))


def reveal_text(record: HiddenRecord, result: HiddenResult, profile: Profile) -> str:
    """The published roll and exactly what to paste into ``sha256sum`` to check it."""
    line = commitment.reveal_line(record.payload, record.nonce)
    shell = commitment.shell_command(record.payload, record.nonce)
    return "\n".join(
        [
            "📢 " + _("Hidden roll #{seq} revealed:").format(seq=record.seq),
            _result_text(record, result, profile),
            _("Check: the SHA-256 of this line must equal the commitment {commitment}").format(
                commitment=f"<code>{record.commitment}</code>"
            ),
            f"<code>{escape(line, quote=False)}</code>",
            _("In a terminal:") + f" <code>{escape(shell, quote=False)}</code>",
        ]
    )


def reveal_done_text() -> str:
    return _("Revealed in the group.")


def already_revealed_text(seq: int) -> str:
    return _("Hidden roll #{seq} is already revealed.").format(seq=seq)


def no_hidden_roll_text(seq: int | None) -> str:
    if seq is None:
        return _("There are no hidden rolls left to reveal.")
    return _("There is no hidden roll #{seq}.").format(seq=seq)


def reveal_usage_text() -> str:
    return _("/reveal publishes the last hidden roll; /reveal 3 publishes hidden roll #3.")


def help_line(profile: Profile) -> str:
    if profile.system is GameSystem.D6:
        return _("/h 4 2 secret roll · /reveal")
    return _("/h 7 6 secret roll · /reveal")


def hidden_npc_note(name: str, source: str | None) -> str:
    """Under a hidden roll of an NPC's sheet: whose dice they were (``source`` is escaped)."""
    text = "🎭 " + _("{name}'s dice").format(name=escape(name))
    return text + (f": {source}" if source else "")


def hidden_effect_note(level: int, paradox: int) -> str:
    return "✨ " + _("An Effect of Sphere {level}: Paradox +{n}").format(level=level, n=paradox)


def hidden_effect_usage_text() -> str:
    return _(
        "Example: /h m 3 vulgar witnesses arete 4 — an NPC's Effect of Sphere 3 in secret, "
        "Arete 4 (q 1, mod -1, wp as with /m)"
    )
