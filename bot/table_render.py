"""Messages and keyboards of the rolls a table makes together (issue 4 items 2–5).

Extended (длительное действие, §A.11), opposed (противостояние, §A.12, §A.14), teamwork
(работа в команде, §A.13) and multiple actions (§A.9) each live in one message that is
redrawn after every tap, so the chat reads as a record of the scene, not a stream of bot
noise. Like :mod:`bot.render`, this module only says what the handlers decided: the words
come from the catalogues, names are HTML-escaped, and the CallbackData factories sit beside
the keyboards that carry them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from html import escape

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render
from bot.parsing import Problem
from rules.actions import ExtendedStatus, Pool
from rules.d10 import D10Result, Outcome
from rules.profiles import ExtendedBotch, Profile

HISTORY_SHOWN = 12  # a long extended roll shows its latest rolls; 4096 characters is the cap
PROGRESS_WIDTH = 10
EXTEND_TARGETS = (3, 5, 7, 10, 15, 20)
TABLE_POOLS = range(1, 16)


class ExtAction(StrEnum):
    ROLL = "go"
    STOP = "st"


class ExtCallback(CallbackData, prefix="x"):
    f: str
    v: int
    a: ExtAction


class VsAction(StrEnum):
    POOL = "p"
    DIFFICULTY = "d"
    ROLL_A = "ga"
    ROLL_B = "gb"
    CANCEL = "cx"


class VsCallback(CallbackData, prefix="o"):
    f: str
    v: int
    a: VsAction
    x: int = 0


class TeamAction(StrEnum):
    JOIN = "j"
    POOL = "p"
    FINISH = "end"


class TeamCallback(CallbackData, prefix="tm"):
    f: str
    v: int
    a: TeamAction
    x: int = 0


class MultiAction(StrEnum):
    ROLL = "go"
    SPLIT = "sp"
    STOP = "st"


class MultiCallback(CallbackData, prefix="mu"):
    f: str
    v: int
    a: MultiAction
    x: int = 0


class SetupAction(StrEnum):
    POOL = "p"
    DIFFICULTY = "d"
    TARGET = "t"
    GO = "go"
    UNDO = "un"


class SetupCallback(CallbackData, prefix="su"):
    f: str
    v: int
    a: SetupAction
    x: int = 0


# --- shared pieces --------------------------------------------------------------------------


def roll_summary(result: D10Result) -> str:
    """«<b>8</b> 3 <s>1</s> → <b>Успех</b>: 1 успех»: one roll on one line."""
    line = render.faces_html(result) + " → " + f"<b>{render.outcome_label(result.outcome)}</b>"
    if result.outcome is Outcome.SUCCESS:
        line += ": " + render.successes_text(result.successes)
    return line


def _button(text: str, data: CallbackData) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data.pack())


def _rows(buttons: Sequence[InlineKeyboardButton], width: int) -> list[list[InlineKeyboardButton]]:
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def progress_bar(done: int, target: int) -> str:
    filled = min(PROGRESS_WIDTH, done * PROGRESS_WIDTH // target) if target > 0 else 0
    return "▰" * filled + "▱" * (PROGRESS_WIDTH - filled) + f" {done}/{target}"


def usage_text(command: str) -> str:
    """One correct line per command, shown under every problem (PRODUCT.md §5)."""
    if command == "ext":
        return _(
            "Example: /ext 7 6 10 — 7 dice at difficulty 6 until 10 successes; "
            "/ext 7 6 10 5 — at most 5 rolls"
        )
    if command == "vs":
        return _(
            "Example: reply to a player's message with /vs 6 7 (your 6 dice at difficulty 7), "
            "or /vs 6 7 @name; add «to 5» for first to 5 successes"
        )
    if command == "team":
        return _("Example: /team 7 6 target 5 — you roll 7 dice at difficulty 6, the team needs 5")
    return _(
        "Example: /multi 6 7 7 — three actions from pools 6, 7 and 7; /multi 6/8 7 — "
        "the first at difficulty 8"
    )


def problem_text(problem: Problem, token: str, profile: Profile, command: str) -> str:
    return render.problem_sentence(problem, token, profile) + "\n" + usage_text(command)


def range_text(field: str, profile: Profile, command: str) -> str:
    """A number the rules refused; ``field`` is the rules' name for it."""
    if field in ("target", "race_to"):
        text = _("The number of successes to reach must be from 1 to 1000.")
    elif field == "max_rolls":
        text = _("The roll limit must be from 1 to 1000.")
    elif field in ("parts", "base_pools"):
        text = _("Declare from 2 to {n} actions; each needs at least one die.").format(
            n=profile.max_declared_actions
        )
    else:
        text = render.range_sentence(field, profile)
    return text + "\n" + usage_text(command)


# --- pools from the character sheet (issue 4 item 1) -----------------------------------------


def sheet_pool_label(
    names: Sequence[str], ratings: Sequence[int], missing: Sequence[bool], wound_penalty: int
) -> str:
    """«Ловкость 3 + Драка 2»: where the dice came from; an unset trait shows «—» (counted
    as 0), a wound penalty its dice (§B.9). ``names`` are already escaped."""
    parts = [
        f"{name} {'—' if absent else rating}"
        for name, rating, absent in zip(names, ratings, missing, strict=True)
    ]
    label = " + ".join(parts)
    if wound_penalty:
        label += " " + _("{n} for wounds").format(n=wound_penalty)
    return label


def too_many_traits_text(limit: int) -> str:
    return _("A pool is at most {n} traits: an Attribute + an Ability.").format(n=limit)


def trait_not_rolled_text() -> str:
    return _("These traits are not rolled as a pool (the same trait twice, or a Sphere).")


def pool_impossible_text(label: str) -> str:
    """S0 «Если набор кубиков уменьшается до нуля или ниже, то персонаж не может предпринять
    это действие» — or the wounds leave the character unable to act."""
    return _("{label}: no dice to roll, the character cannot take this action.").format(label=label)


def pool_auto_failure_text(label: str) -> str:
    """S4 «0 в Способности - автоматически [Неудача], если ГМ не решит иначе»."""
    return _("{label}: with 0 in the Ability the action fails without a roll.").format(label=label)


def no_willpower_text(permanent: int) -> str:
    return _("No Willpower left on your sheet (0 of {n}): this roll cannot spend it.").format(
        n=permanent
    )


# --- extended rolls (§A.11) -------------------------------------------------------------------


def extended_text(
    *,
    roller: str,
    pool: int,
    difficulty: int,
    target: int,
    max_rolls: int | None,
    accumulated: int,
    rolls_made: int,
    status: ExtendedStatus,
    history: Sequence[D10Result],
    profile: Profile,
    stopped: bool = False,
    source: str | None = None,
) -> str:
    """``history`` is the latest rolls (at most :data:`HISTORY_SHOWN`), ending with roll
    number ``rolls_made``."""
    head = "⏳ <b>" + _("Extended action") + f"</b> — {escape(roller)}"
    terms = (source + " → " if source else "") + render.conditions(
        pool, difficulty, 0, False, profile
    )
    terms += " · " + _("target {n}").format(n=target)
    if max_rolls is not None:
        terms += " · " + _("rolls left: {n}").format(n=max(0, max_rolls - rolls_made))
    lines = [head, terms, progress_bar(accumulated, target)]
    shown = history[-HISTORY_SHOWN:]
    for number, result in enumerate(shown, start=rolls_made - len(shown) + 1):
        lines.append(f"{number}. " + roll_summary(result))
    rolls = _("in {n} roll", "in {n} rolls", n=rolls_made).format(n=rolls_made)
    if status is ExtendedStatus.COMPLETE:
        lines.append(
            "✅ <b>"
            + _("Done!")
            + "</b> "
            + _("{got} of {target} successes").format(got=accumulated, target=target)
            + " "
            + rolls
        )
    elif status is ExtendedStatus.OUT_OF_TIME:
        lines.append(
            "⌛ <b>"
            + _("Out of time:")
            + "</b> "
            + _("{got} of {target} successes").format(got=accumulated, target=target)
            + " "
            + rolls
        )
    elif status is ExtendedStatus.BOTCHED:
        if profile.extended_botch is ExtendedBotch.LOSE_ALL:
            lines.append("💥 " + _("A botch: every success gathered so far is lost."))
        else:
            lines.append("💥 " + _("A botch: the successes gathered so far are kept."))
        if not stopped:
            lines.append(_("The Storyteller decides whether the work can go on."))
    if stopped:
        lines.append("⏹ " + stopped_text())
    return "\n".join(lines)


def extended_keyboard(
    flow_id: str, version: int, *, next_roll: int, botched: bool
) -> InlineKeyboardMarkup:
    label = _("Start over") if botched else _("Roll ({n})").format(n=next_roll)
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                _button("🎲 " + label, ExtCallback(f=flow_id, v=version, a=ExtAction.ROLL)),
                _button("⏹ " + _("Stop"), ExtCallback(f=flow_id, v=version, a=ExtAction.STOP)),
            ]
        ]
    )


def extend_targets_keyboard(flow_id: str, version: int) -> InlineKeyboardMarkup:
    """«Продлить»: how many successes the whole extended action needs."""
    buttons = [
        _button(
            "🎯" + str(n),
            render.RollCallback(f=flow_id, v=version, a=render.RollAction.EXTEND, x=n),
        )
        for n in EXTEND_TARGETS
    ]
    return InlineKeyboardMarkup(inline_keyboard=_rows(buttons, 6))


def extend_prompt_text() -> str:
    return _("How many successes does the extended action need?")


# --- opposed rolls (§A.12, §A.14) ---------------------------------------------------------


def opposed_text(
    *,
    name_a: str,
    name_b: str,
    race_to: int | None,
    terms_a: str,
    terms_b: str | None,
    roll_a: D10Result | None,
    roll_b: D10Result | None,
    rounds: Sequence[tuple[int, int, int, int]],
    winner: str | None,
    finished: bool,
    net: int,
    cancelled: bool = False,
) -> str:
    """``rounds`` are (successes A, successes B, total A, total B) of finished race rounds."""
    a, b = escape(name_a), escape(name_b)
    head = "⚔️ <b>" + _("Opposed roll") + f"</b>: {a} — {b}"
    if race_to is not None:
        head += " · " + _("first to {n}").format(n=race_to)
    lines = [head]
    shown = rounds[-HISTORY_SHOWN:]  # a long race keeps its latest rounds on screen
    for number, (sa, sb, ta, tb) in enumerate(shown, start=len(rounds) - len(shown) + 1):
        lines.append(
            _("Round {k}: {a} {sa}, {b} {sb} · total {ta}:{tb}").format(
                k=number, a=a, sa=sa, b=b, sb=sb, ta=ta, tb=tb
            )
        )
    line_a = f"{a}: {terms_a}"
    if roll_a is not None:
        line_a += "\n" + roll_summary(roll_a)
    lines.append(line_a)
    if terms_b is None:
        lines.append(f"{b}: " + _("choose your pool and difficulty, then roll."))
    else:
        line_b = f"{b}: {terms_b}"
        if roll_b is not None:
            line_b += "\n" + roll_summary(roll_b)
        lines.append(line_b)
    if cancelled:
        lines.append("⏹ " + _("Cancelled."))
    elif finished:
        if winner is None:
            lines.append("🤝 <b>" + _("A tie") + "</b>")
        else:
            lines.append(
                "🏆 <b>"
                + _("{name} wins").format(name=escape(winner))
                + "</b>: "
                + _("net successes: {n}").format(n=net)
            )
    return "\n".join(lines)


def opposed_choice_keyboard(
    flow_id: str,
    version: int,
    *,
    pool: int | None,
    difficulty: int,
    difficulties: Iterable[int],
    name_b: str,
) -> InlineKeyboardMarkup:
    """The challenged player's own pool and difficulty, in the same message."""

    def button(text: str, action: VsAction, x: int = 0) -> InlineKeyboardButton:
        return _button(text, VsCallback(f=flow_id, v=version, a=action, x=x))

    pools = [button(render._marked(str(n), n == pool), VsAction.POOL, n) for n in TABLE_POOLS]
    diffs = [
        button(render._marked(f"🎯{d}", d == difficulty), VsAction.DIFFICULTY, d)
        for d in difficulties
    ]
    rows = _rows(pools, 5) + _rows(diffs, 5)
    last = [button("⏹ " + _("Cancel"), VsAction.CANCEL)]
    if pool is not None:
        last.insert(0, button("🎲 " + _("Roll: {name}").format(name=name_b), VsAction.ROLL_B))
    rows.append(last)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def opposed_round_keyboard(
    flow_id: str, version: int, *, name_a: str | None, name_b: str | None
) -> InlineKeyboardMarkup:
    """A later round of a race: each side rolls with its own button (None: already rolled)."""

    def button(text: str, action: VsAction) -> InlineKeyboardButton:
        return _button(text, VsCallback(f=flow_id, v=version, a=action))

    row = []
    if name_a is not None:
        row.append(button("🎲 " + _("Roll: {name}").format(name=name_a), VsAction.ROLL_A))
    if name_b is not None:
        row.append(button("🎲 " + _("Roll: {name}").format(name=name_b), VsAction.ROLL_B))
    return InlineKeyboardMarkup(
        inline_keyboard=[row, [button("⏹ " + _("Cancel"), VsAction.CANCEL)]]
    )


def opponent_missing_text() -> str:
    return _("Whom do you challenge? Reply to their message with /vs, or name them: /vs 6 7 @name.")


def storyteller_only_text() -> str:
    return _("Only the Storyteller plays an NPC (a chat administrator while nobody has /st).")


def not_your_side_text() -> str:
    return _("This challenge is not addressed to you.")


def already_rolled_text() -> str:
    return _("You have already rolled this round.")


# --- teamwork (§A.13) -------------------------------------------------------------------------


def team_text(
    *,
    leader: str,
    difficulty: int,
    target: int | None,
    members: Sequence[tuple[str, int, D10Result, str | None]],
    pending: Sequence[str],
    total: int,
    reached: bool,
    ruined: bool,
    closed: bool,
) -> str:
    head = "🤝 <b>" + _("Teamwork") + f"</b> — {escape(leader)} · "
    head += _("difficulty {d}").format(d=difficulty)
    if target is not None:
        head += " · " + _("target {n}").format(n=target)
    lines = [head]
    for name, pool, result, source in members:
        head = f"{escape(name)}: " + (f"{source} → " if source else "")
        lines.append(head + _("{n}d10").format(n=pool) + " · " + roll_summary(result))
    if pending and not closed:
        names = ", ".join(escape(n) for n in pending)
        lines.append("⏳ " + _("{names}: choose your pool below.").format(names=names))
    if target is not None:
        lines.append(progress_bar(total, target))
    together = _("Together: {successes}").format(successes=render.successes_text(total))
    lines.append(("<b>" + together + "</b>") if closed else together)
    if ruined:
        lines.append("💥 " + _("A botch ruins the whole team's effort."))
    if target is not None and reached:
        lines.append("✅ " + _("The team reached its target."))
    if closed:
        lines.append("⏹ " + _("Closed by the leader."))
    return "\n".join(lines)


def team_keyboard(flow_id: str, version: int, *, choosing: bool) -> InlineKeyboardMarkup:
    def button(text: str, action: TeamAction, x: int = 0) -> InlineKeyboardButton:
        return _button(text, TeamCallback(f=flow_id, v=version, a=action, x=x))

    rows: list[list[InlineKeyboardButton]] = [[button("🤝 " + _("Help"), TeamAction.JOIN)]]
    if choosing:
        rows += _rows([button(str(n), TeamAction.POOL, n) for n in TABLE_POOLS], 5)
    rows.append([button("✅ " + _("Finish"), TeamAction.FINISH)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def team_already_text() -> str:
    return _("You have already rolled for the team.")


def team_press_help_text() -> str:
    return _("Press «Help» first, then choose your pool.")


def team_leader_only_text() -> str:
    return _("Only the leader closes the teamwork.")


# --- multiple actions (§A.9) --------------------------------------------------------------


def multi_text(
    *,
    roller: str,
    declared: Sequence[int],
    pools: Sequence[Pool],
    difficulties: Sequence[int],
    results: Sequence[D10Result | None],
    split_of: int | None,
    profile: Profile,
    stopped: bool = False,
) -> str:
    """Each action's pool after the §A.9 reduction, its result once rolled."""
    head = "🔀 <b>" + _("Multiple actions") + f"</b> — {escape(roller)}"
    if split_of is not None:
        head += " · " + _("{n} dice split between the actions").format(n=split_of)
    lines = [head]
    for k, (base, pool, difficulty, result) in enumerate(
        zip(declared, pools, difficulties, results, strict=True), start=1
    ):
        line = f"{k}. "
        if split_of is None:
            line += f"{base} → "
        if not pool.rollable:
            line += _("{n}d10: impossible").format(n=max(0, pool.dice))
        else:
            line += render.conditions(pool.dice, difficulty, 0, False, profile)
            if result is not None:
                line += "\n" + roll_summary(result)
        lines.append(line)
    if stopped:
        lines.append("⏹ " + stopped_text())
    elif all(r is not None or not p.rollable for r, p in zip(results, pools, strict=True)):
        lines.append("✅ " + _("All actions are rolled."))
    return "\n".join(lines)


def multi_keyboard(flow_id: str, version: int, *, action: int, dice: int) -> InlineKeyboardMarkup:
    """``action`` is the 0-based index of the next action to roll, in the declared order."""
    roll = MultiCallback(f=flow_id, v=version, a=MultiAction.ROLL, x=action)
    stop = MultiCallback(f=flow_id, v=version, a=MultiAction.STOP)
    label = _("Action {k}: {n}d10").format(k=action + 1, n=dice)
    return InlineKeyboardMarkup(
        inline_keyboard=[[_button("🎲 " + label, roll), _button("⏹ " + _("Stop"), stop)]]
    )


def split_prompt_text(roller: str, pool: int) -> str:
    return (
        "🔀 <b>"
        + _("Multiple actions")
        + f"</b> — {escape(roller)}\n"
        + _(
            "In this game the pool is split between the actions. How do you split {n} dice "
            "between two actions? (For three or more: /multi {n} 3 2 2.)"
        ).format(n=pool)
    )


def split_keyboard(flow_id: str, version: int, pool: int) -> InlineKeyboardMarkup:
    buttons = [
        _button(
            f"{first}+{pool - first}",
            MultiCallback(f=flow_id, v=version, a=MultiAction.SPLIT, x=first),
        )
        for first in range(1, pool)
    ]
    stop = _button("⏹ " + _("Stop"), MultiCallback(f=flow_id, v=version, a=MultiAction.STOP))
    return InlineKeyboardMarkup(inline_keyboard=[*_rows(buttons, 5), [stop]])


def stopped_text() -> str:
    return _("Stopped.")


def not_in_order_text() -> str:
    return _("Actions are rolled in the declared order.")


# --- the wizard of /ext, /team and /vs typed without numbers ------------------------------


def setup_text(
    *,
    feature: str,
    roller: str,
    pool: int | None,
    difficulty: int,
    target: int | None,
    opponent: str | None,
    profile: Profile,
    chances: render.D10Chances | None,
) -> str:
    titles = {
        "ext": "⏳ <b>" + _("Extended action") + "</b>",
        "team": "🤝 <b>" + _("Teamwork") + "</b>",
        "vs": "⚔️ <b>" + _("Opposed roll") + "</b>",
        "multi": "🔀 <b>" + _("Multiple actions") + "</b>",
    }
    head = titles.get(feature, "") + f" — {escape(roller)}"
    if opponent is not None:
        head += f" — {escape(opponent)}"
    lines = [head]
    if pool is None:
        lines.append(_("Choose the pool (number of dice)."))
    else:
        lines.append(render.conditions(pool, difficulty, 0, False, profile))
    if feature == "ext" and target is None:
        lines.append(extend_prompt_text())
    elif target is not None:
        lines.append(_("target {n}").format(n=target))
    if chances is not None:
        lines.append(render.chances_line(chances))
    return "\n".join(lines)


def setup_keyboard(
    flow_id: str,
    version: int,
    *,
    pool: int | None,
    difficulty: int,
    difficulties: Iterable[int],
    targets: Sequence[int],
    target: int | None,
    ready: bool,
) -> InlineKeyboardMarkup:
    def button(text: str, action: SetupAction, x: int = 0) -> InlineKeyboardButton:
        return _button(text, SetupCallback(f=flow_id, v=version, a=action, x=x))

    pools = [button(render._marked(str(n), n == pool), SetupAction.POOL, n) for n in TABLE_POOLS]
    diffs = [
        button(render._marked(f"🎯{d}", d == difficulty), SetupAction.DIFFICULTY, d)
        for d in difficulties
    ]
    goals = [button(render._marked(f"🏁{t}", t == target), SetupAction.TARGET, t) for t in targets]
    rows = _rows(pools, 5) + _rows(diffs, 5) + _rows(goals, 6)
    if ready:
        rows.append([button("🎲 " + _("Roll!"), SetupAction.GO)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def multi_setup_text(
    *, roller: str, declared: Sequence[int], reduced: Sequence[Pool], difficulty: int
) -> str:
    """/multi without numbers: the pools declared so far and what each becomes (§A.9)."""
    lines = ["🔀 <b>" + _("Multiple actions") + f"</b> — {escape(roller)}"]
    lines.append(_("Tap each action's pool in order; then «Roll!»."))
    for k, base in enumerate(declared, start=1):
        line = f"{k}. {base}"
        if reduced:
            dice = reduced[k - 1].dice
            line += " → " + (
                _("{n}d10: impossible").format(n=max(0, dice))
                if not reduced[k - 1].rollable
                else _("{n}d10").format(n=dice)
            )
        lines.append(line)
    lines.append(_("difficulty {d}").format(d=difficulty))
    return "\n".join(lines)


def multi_setup_keyboard(
    flow_id: str,
    version: int,
    *,
    difficulty: int,
    difficulties: Iterable[int],
    declared: int,
    full: bool,
    ready: bool,
) -> InlineKeyboardMarkup:
    def button(text: str, action: SetupAction, x: int = 0) -> InlineKeyboardButton:
        return _button(text, SetupCallback(f=flow_id, v=version, a=action, x=x))

    rows: list[list[InlineKeyboardButton]] = []
    if not full:
        rows += _rows([button(f"+{n}", SetupAction.POOL, n) for n in TABLE_POOLS], 5)
    diffs = [
        button(render._marked(f"🎯{d}", d == difficulty), SetupAction.DIFFICULTY, d)
        for d in difficulties
    ]
    rows += _rows(diffs, 5)
    last = []
    if declared:
        last.append(button("↩", SetupAction.UNDO))
    if ready:
        last.append(button("🎲 " + _("Roll!"), SetupAction.GO))
    if last:
        rows.append(last)
    return InlineKeyboardMarkup(inline_keyboard=rows)
