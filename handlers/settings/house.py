"""House rules on screen (docs/product.md "/rules"): the switches of the chat's game by group, each
with its value and the book's; the words for the dice and Willpower rules a table argues about
most, the switch's own name for the rest."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __
from babel.support import LazyProxy

from bot import render
from bot.house_rules import (
    BY_KEY,
    Group,
    HouseRuleError,
    Switch,
    SwitchValue,
    base_profile,
    describe,
    groups_for,
    label,
    shown_value,
    switches_of,
    text_value,
    typed_name,
    value_of,
)
from handlers.settings.callbacks import HouseCallback
from rules.profiles import Profile
from table.traits import close_spellings

GROUP_ORDER = tuple(Group)

_GROUP_NAMES: dict[Group, LazyProxy] = {
    Group.DICE: __("Dice and Willpower"),
    Group.TABLE: __("Extended, opposed, teamwork"),
    Group.COMBAT: __("Combat and health"),
    Group.MAGICK: __("Magick"),
    Group.D6: __("The d6 game"),
    Group.VAMPIRE: __("Vampires"),
}


def group_name(group: Group) -> str:
    return str(_GROUP_NAMES[group])


def _data(action: str, g: int = 0, i: int = 0, x: int = 0) -> str:
    return HouseCallback(a=action, g=g, i=i, x=x).pack()


def _button(text: str, data: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data)


def changed_lines(profile: Profile) -> list[str]:
    base = base_profile(profile.name)
    lines = []
    for group in groups_for(base):
        for switch in switches_of(group):
            now, book = value_of(profile, switch), value_of(base, switch)
            if now != book:
                lines.append(
                    "• "
                    + _("{rule}: {value} (the book: {book})").format(
                        rule=escape(label(switch)),
                        value=escape(shown_value(now)),
                        book=escape(shown_value(book)),
                    )
                )
    return lines


def top_text(profile: Profile) -> str:
    lines = ["🏠 " + _("House rules of {game}").format(game=render.profile_title(profile.name))]
    changed = changed_lines(profile)
    lines += changed or [_("None changed: the book as it is.")]
    example = switches_of(groups_for(base_profile(profile.name))[0])[0]
    other = next(v for v in example.values if v != value_of(profile, example))
    lines.append(
        _("Pick a group; typed: /rules set {example}, /rules export.").format(
            example=escape(f"{typed_name(example)}={text_value(other)}")
        )
    )
    return "\n".join(lines)


def top_keyboard(profile: Profile) -> InlineKeyboardMarkup:
    rows = [
        [_button(group_name(g), _data("g", GROUP_ORDER.index(g)))]
        for g in groups_for(base_profile(profile.name))
    ]
    rows.append([_button("♻️ " + _("Reset all"), _data("R"))])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def group_text(profile: Profile, group: Group) -> str:
    base = base_profile(profile.name)
    lines = ["🏠 " + group_name(group)]
    for switch in switches_of(group):
        now, book = value_of(profile, switch), value_of(base, switch)
        mark = "✏️ " if now != book else ""
        lines.append(
            f"{mark}<b>{escape(label(switch))}</b>: {escape(shown_value(now))}"
            + (
                " " + _("(the book: {book})").format(book=escape(shown_value(book)))
                if now != book
                else ""
            )
        )
    return "\n".join(lines)


def group_keyboard(profile: Profile, group: Group) -> InlineKeyboardMarkup:
    """Each switch a button with its value; a tap opens its card."""
    g = GROUP_ORDER.index(group)
    buttons = [
        _button(f"{label(switch)}: {shown_value(value_of(profile, switch))}"[:60], _data("c", g, i))
        for i, switch in enumerate(switches_of(group))
    ]
    rows = render.rows(buttons, 2)
    rows.append(
        [
            _button("♻️ " + _("Reset group"), _data("r", g)),
            _button("↩ " + _("Back"), _data("t")),
        ]
    )
    return InlineKeyboardMarkup(inline_keyboard=rows)


def card_text(profile: Profile, switch: Switch) -> str:
    """A switch's card: its name, the book's reading and the proposal (docs/rules.md §F), the value
    now and the value of the chat's book."""
    base = base_profile(profile.name)
    now, book = value_of(profile, switch), value_of(base, switch)
    lines = [f"🏠 <b>{escape(label(switch))}</b>"]
    described = describe(switch)
    if described:
        lines.append(escape(described))
    # the name to type, said as such: a bare key beside the label read as a stray word
    typed = f"<code>/rules set {escape(typed_name(switch))}=…</code>"
    lines.append(_("To type it: {command}").format(command=typed))
    lines.append(
        _("Now: {value} · the book: {book}").format(
            value=f"<b>{escape(shown_value(now))}</b>", book=escape(shown_value(book))
        )
    )
    return "\n".join(lines)


def card_keyboard(profile: Profile, group: Group, i: int) -> InlineKeyboardMarkup:
    """One button per value (the one in force marked); a button carries its value."""
    g = GROUP_ORDER.index(group)
    switch = switches_of(group)[i]
    now = value_of(profile, switch)
    values = [
        _button(("✅ " if v == now else "") + shown_value(v)[:56], _data("s", g, i, x))
        for x, v in enumerate(switch.values)
    ]
    rows = render.rows(values, 3 if len(values) > 4 else 2)
    rows.append([_button("↩ " + _("Back"), _data("g", g))])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def set_text(switches: list[tuple[Switch, SwitchValue]]) -> str:
    return _("House rules changed: {list}").format(
        list=", ".join(f"{escape(label(s))} = {escape(shown_value(v))}" for s, v in switches)
    )


def bad_rule_text(error: HouseRuleError, names: list[str]) -> str:
    if error.switch is not None:
        values = ", ".join(escape(text_value(v)) for v in error.switch.values)
        return _("«{value}» is not a value of {rule}. Values: {values}").format(
            value=escape(error.name[:40]), rule=escape(typed_name(error.switch)), values=values
        )
    if not error.name:
        return _("Type /rules set name=value, or choose on buttons: /rules house")
    near = close_spellings(error.name.casefold(), names)[:3]
    if near:
        return _("No house rule «{name}». Did you mean: {names}? All of them: /rules house").format(
            name=escape(error.name[:40]), names=", ".join(escape(n) for n in near)
        )
    return _("No house rule «{name}». All of them, on buttons: /rules house").format(
        name=escape(error.name[:40])
    )


def export_text(line: str) -> str:
    return _("Paste this into another chat after /rules import:") + f"\n<code>{escape(line)}</code>"


def reset_text() -> str:
    return _("House rules reset to the book.")


def dropped_text(keys: list[str]) -> str:
    names = [label(BY_KEY[k]) if k in BY_KEY else k for k in keys]
    return _("House rules that do not apply to this game were dropped: {keys}").format(
        keys=", ".join(escape(n) for n in names)
    )


def read_only_text(d6: bool = False) -> str:
    if d6:
        return _("Only the GM (or an admin until there is one) changes house rules.")
    return _("Only the Storyteller (or an admin until there is one) changes house rules.")
