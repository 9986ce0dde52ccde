"""The chronicle's story, drawn in the campaign's language (docs/product.md §2b).

What the log records is what the chronicle can tell: every roll with its dice and outcome
(the table rolls, spells' Arete rolls, fights' rolls named by their kind), the hidden rolls
as revealed (with their own commitments), what the Storyteller's screen changed on the
sheets while the session ran, each player's statistics, the characters as they stand when
it is exported, and the seed proof.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from aiogram.utils.i18n import gettext as _

from bot import render, sheet_text
from bot.hidden_rolls import revealed_entry
from handlers.chronicle.document import Document, Part, Piece, plain
from rules.d6.roll import D6Outcome
from rules.d10 import Outcome
from rules.profiles import Profile
from rules.sheet import Sheet
from table.stats import chat_stats
from table.store import LOG_CAP, HiddenRecord
from table.store.sessions import SessionRecord

FIGHT_KINDS = frozenset(
    {"init", "atk", "wound", "d6init", "d6attack", "blind", "intr", "def", "dmg", "soak"}
)
MAGICK_KINDS = frozenset({"effect", "barrier", "abandoned"})
ABANDONED = "abandoned"  # a ritual given up: no dice, the Paradox its end earned


@dataclass(frozen=True)
class Material:
    """Everything a chronicle is made of, read by the router in a few round-trips."""

    campaign: str
    sessions: Sequence[SessionRecord]  # the one exported, or every one of the campaign
    whole: bool  # the whole campaign, not one session
    entries: Sequence[Mapping[str, Any]]  # the log's lines as stored, oldest first
    hidden: Mapping[int, HiddenRecord]
    events: Sequence[Mapping[str, Any]]
    characters: Sequence[tuple[str, Sheet]]
    profile: Profile
    language: str
    truncated: bool = False  # the log keeps its latest rolls: older ones are not told


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _when(moment: float | None) -> str:
    if moment is None:
        return "…"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(moment))


def kind_label(kind: object) -> str | None:
    labels = {
        "ext": _("extended action"),
        "vs": _("opposed roll"),
        "d6vs": _("contest"),
        "team": _("teamwork"),
        "multi": _("multiple actions"),
        "request": _("requested roll"),
        "d6request": _("requested roll"),
        "effect": _("magick Effect"),
        "abandoned": _("ritual"),
        "barrier": _("crossing a barrier"),
        "init": _("initiative"),
        "d6init": _("initiative"),
        "atk": _("attack"),
        "d6attack": _("attack"),
        "wound": _("soak"),
        "blind": _("blind fire check"),
        "intr": _("Interruption"),
        "def": _("defence"),
        "dmg": _("damage"),
        "soak": _("soak"),
        "project": _("project"),
        "d6project": _("project"),
    }
    return labels.get(kind) if isinstance(kind, str) else None


def _outcome(code: object) -> str | None:
    for kind in (Outcome, D6Outcome):
        try:
            value = kind(str(code))
        except ValueError:
            continue
        if isinstance(value, Outcome):
            return render.outcome_label(value)
        return render.d6_outcome_name(value)
    return None


def roll_summary(entry: Mapping[str, Any]) -> str:
    """«7d10, difficulty 6 → Success, 2 successes» in the chronicle's language."""
    if entry.get("kind") == ABANDONED:
        return _("given up before its target")
    if entry.get("system") == "d6" or entry.get("sides") == 6:
        chance = entry.get("chance")
        text = _("chance {n}d6").format(n=chance if _is_int(chance) else "?")
        measures = entry.get("measures", entry.get("successes"))
        word = _outcome(entry.get("outcome"))
        if word:
            text += f" → {word}"
        if _is_int(measures):
            text += ", " + _(
                "{n} measure of success", "{n} measures of success", n=measures
            ).format(n=measures)
        return text
    pool, difficulty = entry.get("pool"), entry.get("difficulty")
    text = ""
    if _is_int(pool) and _is_int(difficulty):
        text = _("{pool}d10, difficulty {difficulty}").format(pool=pool, difficulty=difficulty)
    if entry.get("willpower") is True:
        text += " + " + _("Willpower")
    word = _outcome(entry.get("outcome"))
    successes = entry.get("successes")
    if word:
        text += f" → {word}"
        if _is_int(successes) and successes > 0:
            text += ", " + render.successes_text(successes)
    return text


def magick_text(entry: Mapping[str, Any]) -> str:
    """An Effect's Quintessence spent and Paradox gained, as its log line keeps them."""
    bits = []
    spent, gained = entry.get("quintessence"), entry.get("paradox")
    if _is_int(spent) and spent > 0:
        bits.append(_("Quintessence spent: {n}").format(n=spent))
    if _is_int(gained) and gained > 0:
        bits.append(_("Paradox gained: {n}").format(n=gained))
    return (" · " + ", ".join(bits)) if bits else ""


def proof_span(entry: Mapping[str, Any]) -> str | None:
    """``s3 d10 -1001:57#0 = 7 3 10``: the roll's dice in the order rolled and where the
    session's seed made them (table/fairness.py); None for dice the seed did not make."""
    proof, session = entry.get("pf"), entry.get("ses")
    faces = entry.get("fresh") if entry.get("pff") else entry.get("faces")
    if not (isinstance(proof, str) and _is_int(session) and isinstance(faces, list)):
        return None
    if not faces or not all(_is_int(f) for f in faces):
        return None
    sides = 6 if entry.get("system") == "d6" or entry.get("sides") == 6 else 10
    return f"s{session} d{sides} {proof} = " + " ".join(str(f) for f in faces)


def roll_item(entry: Mapping[str, Any], hidden: Mapping[int, HiddenRecord]) -> list[Piece]:
    name = entry.get("name") if isinstance(entry.get("name"), str) else "?"
    pieces: list[Piece] = [("bold", str(name) or "?")]
    if entry.get("hidden") is True:
        seq = entry.get("seq")
        record = hidden.get(seq) if _is_int(seq) else None
        shown = revealed_entry(record) if record is not None and record.revealed else None
        if shown is None or record is None:
            pieces.append(
                ("text", " — 🤫 " + _("hidden roll #{seq}, not revealed").format(seq=seq))
            )
            return pieces
        pieces.append(("text", " — 📢 " + _("hidden roll #{seq}, revealed:").format(seq=seq)))
        pieces.append(("text", " " + roll_summary(shown)))
        faces = shown.get("faces") or []
        pieces.append(("text", " · " + _("dice:") + " " + " ".join(str(f) for f in faces)))
        pieces.append(
            ("text", " · " + _("its commitment, the SHA-256 of the line after it:") + " ")
        )
        pieces.append(("code", record.commitment))
        pieces.append(("text", " ← "))
        pieces.append(("code", f"{record.payload}|nonce={record.nonce}"))
        return pieces
    label = kind_label(entry.get("kind"))
    pieces.append(("text", f" ({label})" if label else ""))
    pieces.append(("text", " — " + roll_summary(entry) + magick_text(entry)))
    span = proof_span(entry)
    if span is not None:
        pieces.append(("text", " · "))
        pieces.append(("code", span))
    else:
        faces = entry.get("faces")
        if isinstance(faces, list) and faces:
            typed = " ".join(str(f) for f in faces)
            pieces.append(("text", " · " + _("dice, not from a session's seed:") + " " + typed))
    return pieces


def _character(name: str, sheet: Sheet) -> list[Piece]:
    bits = [plain(sheet_text.health_line(sheet.health))]
    if sheet.willpower is not None:
        bits.append(
            _("Willpower {now}/{of}").format(
                now=sheet.willpower_current if sheet.willpower_current is not None else "?",
                of=sheet.willpower,
            )
        )
    if sheet.arete is not None or sheet.quintessence or sheet.paradox:
        bits.append(
            _("Quintessence {q}, Paradox {p}").format(q=sheet.quintessence, p=sheet.paradox)
        )
    if sheet.blood is not None:
        bits.append(_("blood {n}").format(n=sheet.blood))
    if sheet.conditions:
        bits.append(", ".join(sheet_text.condition_name(c) for c in sheet.conditions))
    return [("bold", name), ("text", " — " + "; ".join(bits))]


def event_item(event: Mapping[str, Any]) -> list[Piece]:
    who = str(event.get("who", "?"))
    what = str(event.get("what", ""))
    at = event.get("at")
    moment = time.strftime("%H:%M", time.gmtime(at)) if isinstance(at, int | float) else ""
    return [("text", f"{moment} "), ("bold", who), ("text", f" — {what}")]


def _stats_items(entries: Sequence[Mapping[str, Any]]) -> list[list[Piece]]:
    stats = chat_stats(list(reversed(entries)))
    items: list[list[Piece]] = []
    for player in stats.players:
        rolls = _("{n} roll", "{n} rolls", n=player.rolls).format(n=player.rolls)
        text = f": {rolls}, " + _("on average {mean} successes per roll").format(
            mean=render.decimal(player.mean_successes, "0.0")
        )
        botches = player.outcomes.get(Outcome.BOTCH.value, 0)
        if botches:
            text += ", " + _("{n} botch", "{n} botches", n=botches).format(n=botches)
        items.append([("bold", player.name or "?"), ("text", text)])
    for fair in stats.dice.values():
        counts = " ".join(f"{face}:{n}" for face, n in enumerate(fair.counts, start=1))
        items.append([("text", _("d{sides}, faces:").format(sides=fair.sides) + f" {counts}")])
    return items


def _seed_items(sessions: Sequence[SessionRecord]) -> list[list[Piece]]:
    items: list[list[Piece]] = []
    for record in sessions:
        head = _("Session {n}").format(n=record.number) + ": "
        items.append(
            [("text", head), ("code", f"session {record.number} commitment = {record.commitment}")]
        )
        if record.seed is not None:
            items.append(
                [("text", head), ("code", f"session {record.number} seed = {record.seed}")]
            )
        else:
            items.append([("text", head + _("the seed is revealed by /session end."))])
    return items


def recipe_text() -> str:
    return _(
        "How to check: the SHA-256 of the seed's 32 bytes is the commitment posted when the "
        "session began. Die k of a roll's identity, with n sides: HMAC-SHA256 with the seed as "
        "the key over «identity:k:j» (j = 0, 1, …) gives bytes; the first byte below "
        "256 − 256 mod n gives the face 1 + byte mod n. Each roll shows «sS dN IDENTITY#K = "
        "its dice in the order rolled»: session S, N-sided dice, the roll's identity and the "
        "number K of its first die. python3 docs/verify_session.py on this file checks them all."
    )


def _add_fight_roll(
    fights: Part, entry: Mapping[str, Any], summary: list[Piece], going: object
) -> object:
    """A fight's roll under its round: the rolls of one round in a row make one item
    («Round 1: …; …»), a roll of no round (an older log's, a typed one) an item alone.
    ``going``: the round the last item tells (with its session), which this returns."""
    round_no = entry.get("round_no")
    if not _is_int(round_no) or round_no <= 0:
        fights.items.append(summary)
        return None
    key = (entry.get("ses"), round_no)
    if key == going and fights.items:
        fights.items[-1] += [("text", "; "), *summary]
    else:
        fights.items.append([("bold", _("Round {n}:").format(n=round_no)), ("text", " "), *summary])
    return key


def chronicle(material: Material) -> Document:
    numbers = ", ".join(str(r.number) for r in material.sessions)
    if material.whole:
        title = _("Chronicle of {campaign}").format(campaign=material.campaign)
        subtitle = _("The whole campaign as the log keeps it; sessions: {n}").format(
            n=numbers or "—"
        )
    else:
        record = material.sessions[0]
        title = _("Chronicle of {campaign}, session {n}").format(
            campaign=material.campaign, n=record.number
        )
        subtitle = _("From {start} to {end}").format(
            start=_when(record.started), end=_when(record.ended)
        )
    rolls = Part(_("Rolls"), numbered=True)
    fights = Part(_("Fights"), note=_("The fights' rolls, by their number above."))
    magick = Part(
        _("Magick"),
        note=_(
            "Spells' rolls, by their number above; Quintessence and Paradox as the "
            "characters stand now are below."
        ),
    )
    going: object = None  # the round the fights' last item tells
    for n, entry in enumerate(material.entries, start=1):
        rolls.items.append(roll_item(entry, material.hidden))
        kind = entry.get("kind")
        label = kind_label(kind) or ""
        summary = [
            ("text", f"#{n} "),
            ("bold", str(entry.get("name", "?"))),
            ("text", f" — {label}: {roll_summary(entry)}{magick_text(entry)}"),
        ]
        if kind in FIGHT_KINDS:
            going = _add_fight_roll(fights, entry, summary, going)
        elif kind in MAGICK_KINDS:
            magick.items.append(summary)
    if not rolls.items:
        rolls.note = _("No rolls.")
    elif material.truncated:
        rolls.note = _(
            "The log keeps the latest {n} rolls: older ones are not in this chronicle."
        ).format(n=LOG_CAP)
    parts = [rolls]
    if fights.items:
        parts.append(fights)
    if magick.items:
        parts.append(magick)
    if material.events:
        parts.append(
            Part(_("Damage, healing and spends"), [event_item(e) for e in material.events])
        )
    stats = _stats_items(material.entries)
    if stats:
        parts.append(Part(_("Players"), stats))
    if material.characters:
        parts.append(Part(_("Characters now"), [_character(n, s) for n, s in material.characters]))
    parts.append(Part(_("Seed proof"), _seed_items(material.sessions), note=recipe_text()))
    return Document(title, subtitle, parts, material.language)


def usage_text() -> str:
    return _(
        "Example: /chronicle — this session (or the last one); /chronicle 2 — session 2; "
        "/chronicle campaign — the whole campaign"
    )


def no_session_text() -> str:
    return _("No session has been played here yet. The Storyteller starts one with /session start.")


def caption_text(doc: Document) -> str:
    return doc.title


def group_only_text() -> str:
    return _("A chronicle is of a campaign: send /chronicle in its group.")
