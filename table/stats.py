"""``/stats``: per-player counts and averages, and a fairness check of the dice.

docs/product.md promises that dice come from the OS random source and that ``/stats`` lets anyone
check their distribution. The check is Pearson's chi-square goodness-of-fit test of the face
counts against a uniform die, with an exact p-value: the probability that a fair die would
spread its faces at least this unevenly. The p-value comes from the regularized upper
incomplete gamma function, implemented here (series and continued fraction) so the bot needs
no scipy.

Results are numbers and :class:`Verdict` codes only; the words a player reads live in the
bot's catalogues (``locales/``), like every other sentence.

Pure and stdlib only: log entries or the chat's counters come in, values come out. The log
keeps only the recent rolls, so ``/stats`` reads counters kept for the whole campaign
(:func:`tally` says what entries add to them as they are written, :func:`from_counters` reads
them back; ARCHITECTURE.md "Statistics of a whole campaign").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeGuard

SUPPORTED_SIDES = (6, 10)
DEFAULT_SIDES = 10

# Pearson's test leans on a normal approximation that the usual rule of thumb trusts once
# every face is expected at least 5 times: 50 d10 faces, 30 d6 faces.
MIN_EXPECTED_PER_FACE = 5
# A fair die falls below 0.01 once in a hundred checks; /stats is looked at often, per player
# and overall, so a 0.05 cut would cry wolf at the table far too easily.
SUSPICIOUS_BELOW = 0.01
VERY_UNLIKELY_BELOW = 0.001

_EPS = 1e-15
_TINY = 1e-300
_MAX_ITERATIONS = 10_000


class Verdict(StrEnum):
    """What the fairness check says, as a code the catalogues turn into one sentence."""

    NOT_ENOUGH_DATA = "not_enough_data"  # too few faces for the test to mean anything
    LOOKS_FAIR = "looks_fair"  # p ≥ 0.01: nothing unusual
    SUSPICIOUS = "suspicious"  # 0.001 ≤ p < 0.01: unusual, happens about 1 time in 100
    VERY_UNLIKELY = "very_unlikely"  # p < 0.001: a fair die does this less than 1 time in 1000


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the regularized upper incomplete gamma function.

    Below ``x = a + 1`` the power series of P = 1 − Q converges fast; above it the continued
    fraction for Q does (evaluated by the modified Lentz method), and computing Q directly
    there keeps tiny tails accurate instead of losing them in ``1 − P``.
    """
    if not a > 0:
        raise ValueError(f"a must be positive, got {a}")
    if not x >= 0:
        raise ValueError(f"x must be non-negative, got {x}")
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    log_prefactor = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        return max(0.0, 1.0 - _lower_series(a, x, log_prefactor))
    return min(1.0, _upper_fraction(a, x, log_prefactor))


def _lower_series(a: float, x: float, log_prefactor: float) -> float:
    # P(a, x) = x^a e^-x / Γ(a) · Σ_n x^n / (a (a+1) … (a+n))
    term = 1.0 / a
    total = term
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(log_prefactor)


def _upper_fraction(a: float, x: float, log_prefactor: float) -> float:
    # Q(a, x) = x^a e^-x / Γ(a) · 1 / (x+1−a − 1·(1−a) / (x+3−a − 2·(2−a) / (x+5−a − …)))
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < _TINY:
            d = _TINY
        c = b + an / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h * math.exp(log_prefactor)


def chi2_sf(x: float, df: int) -> float:
    """The chi-square survival function P(X ≥ x) for ``df`` degrees of freedom: Q(df/2, x/2)."""
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"df must be a positive int, got {df!r}")
    return regularized_gamma_q(df / 2, x / 2)


def _check_sides(sides: int) -> int:
    if isinstance(sides, bool) or sides not in SUPPORTED_SIDES:
        raise ValueError(f"sides must be one of {SUPPORTED_SIDES}, got {sides!r}")
    return sides


def face_counts(faces: Iterable[int], sides: int = DEFAULT_SIDES) -> tuple[int, ...]:
    """How many times each face came up: index 0 is face 1, index ``sides − 1`` the top face.

    A face outside ``1..sides`` is a ``ValueError``: silently dropping it would hide exactly
    the kind of bug the fairness check exists to reveal.
    """
    _check_sides(sides)
    counts = [0] * sides
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= sides:
            raise ValueError(f"{face!r} is not a d{sides} face")
        counts[face - 1] += 1
    return tuple(counts)


@dataclass(frozen=True, slots=True)
class Fairness:
    """The faces of one kind of die, summed up and tested against a fair die.

    ``p_value`` is None only when there are no faces at all; with a few faces it is computed
    but the verdict is :attr:`Verdict.NOT_ENOUGH_DATA`, since the chi-square approximation
    is not to be trusted there. ``mean`` is None for no faces; ``expected_mean`` is what a
    fair die averages, (sides + 1) / 2: 5.5 for a d10, 3.5 for a d6.
    """

    sides: int
    counts: tuple[int, ...]
    total: int
    mean: float | None
    expected_mean: float
    chi_square: float
    df: int
    p_value: float | None
    verdict: Verdict


def verdict_for(p_value: float | None, expected_per_face: float) -> Verdict:
    """The verdict code for a p-value, given how many times each face was expected."""
    if p_value is None or expected_per_face < MIN_EXPECTED_PER_FACE:
        return Verdict.NOT_ENOUGH_DATA
    if p_value < VERY_UNLIKELY_BELOW:
        return Verdict.VERY_UNLIKELY
    if p_value < SUSPICIOUS_BELOW:
        return Verdict.SUSPICIOUS
    return Verdict.LOOKS_FAIR


def fairness(counts: Sequence[int], sides: int | None = None) -> Fairness:
    """Pearson's chi-square test of face ``counts`` (index 0 = face 1) against a uniform die.

    Taking counts rather than faces lets the bot keep running per-face counters in Redis for
    a chat's whole life, not only the last rolls the log holds.
    """
    sides = _check_sides(len(counts) if sides is None else sides)
    if len(counts) != sides:
        raise ValueError(f"expected {sides} counts, got {len(counts)}")
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{count!r} is not a count")
    total = sum(counts)
    df = sides - 1
    expected = total / sides
    if total == 0:
        return Fairness(
            sides=sides,
            counts=tuple(counts),
            total=0,
            mean=None,
            expected_mean=(sides + 1) / 2,
            chi_square=0.0,
            df=df,
            p_value=None,
            verdict=Verdict.NOT_ENOUGH_DATA,
        )
    chi_square = sum((c - expected) ** 2 for c in counts) / expected
    p_value = chi2_sf(chi_square, df)
    return Fairness(
        sides=sides,
        counts=tuple(counts),
        total=total,
        mean=sum(face * c for face, c in enumerate(counts, start=1)) / total,
        expected_mean=(sides + 1) / 2,
        chi_square=chi_square,
        df=df,
        p_value=p_value,
        verdict=verdict_for(p_value, expected),
    )


@dataclass(frozen=True, slots=True)
class RollEntry:
    """One roll as ``/stats`` reads it from the chat's roll log (``Store.log_roll``).

    The log stores JSON dicts; ``handlers/roll.py`` writes ``user_id``, ``name``, ``pool``,
    ``difficulty``, ``threshold``, ``willpower``, ``faces``, ``successes``, ``outcome`` and
    ``attempt``. Only the fields the statistics need are kept here; any others are ignored,
    so new fields in the log never break ``/stats``. ``sides`` is optional and defaults to 10;
    a d6 roll (the narrative system) is one with ``"system": "d6"`` (its successes are its
    ``measures``) or ``"sides": 6``. ``fresh`` marks a follow-up of an action already counted
    (a special effort): only those dice count. ``faces`` may be empty (an
    automatic success, §A.6, rolls no dice but still counts as a roll). ``outcome`` is the
    roll's outcome code as logged (``rules.d10.Outcome`` values for the d10 profiles).
    """

    user_id: int
    name: str
    faces: tuple[int, ...]
    successes: int
    outcome: str
    sides: int = DEFAULT_SIDES
    # A follow-up of an action already counted (a d6 special effort): only its fresh dice
    # count, not another roll, its successes or its outcome.
    follow_up: bool = False

    @classmethod
    def from_log(cls, raw: Mapping[str, Any]) -> RollEntry | None:
        """The entry, or None for a damaged or foreign record (``/stats`` must never crash).

        Checks are strict (no bools for ints, faces within the die) because a corrupted face
        counted silently would make a fair die look loaded.
        """
        if not isinstance(raw, Mapping):
            return None
        user_id = raw.get("user_id")
        successes = raw.get("successes")
        outcome = raw.get("outcome")
        name = raw.get("name", "")
        sides = raw.get("sides", DEFAULT_SIDES)
        if raw.get("system") == "d6":  # the log's d6 line: measures of success on d6 (§D.3)
            sides = raw.get("sides", 6)
            successes = raw.get("measures", successes)
        follow_up = "fresh" in raw
        faces = raw.get("fresh") if follow_up else raw.get("faces")
        if not (_is_int(user_id) and _is_int(successes) and _is_int(sides)):
            return None
        if not isinstance(outcome, str) or not isinstance(name, str):
            return None
        if sides not in SUPPORTED_SIDES or not isinstance(faces, list):
            return None
        if not all(_is_int(f) and 1 <= f <= sides for f in faces):
            return None
        return cls(
            user_id=user_id,
            name=name,
            faces=tuple(faces),
            successes=successes,
            outcome=outcome,
            sides=sides,
            follow_up=follow_up,
        )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _fairness_by_sides(faces_by_sides: Mapping[int, list[int]]) -> dict[int, Fairness]:
    return {
        sides: fairness(face_counts(faces, sides), sides)
        for sides, faces in sorted(faces_by_sides.items())
    }


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's rolls: how many, how they went, and their own dice's fairness.

    ``name`` is the one logged with the player's first entry seen, which is the newest when
    the entries come in the Store's newest-first order. ``mean_successes`` is per roll.
    ``outcomes`` maps each logged outcome code to its count. ``dice`` has one
    :class:`Fairness` per kind of die the player rolled (key: 10 or 6).
    """

    user_id: int
    name: str
    rolls: int
    dice_rolled: int
    successes: int
    mean_successes: float
    outcomes: Mapping[str, int]
    dice: Mapping[int, Fairness]


@dataclass(frozen=True, slots=True)
class ChatStats:
    """The whole table: players sorted by rolls (most first), overall fairness per die.

    ``skipped`` counts log records that could not be read; the bot may mention them rather
    than pretend they were never there.
    """

    players: tuple[PlayerStats, ...]
    rolls: int
    dice: Mapping[int, Fairness]
    skipped: int = 0
    outcomes: Mapping[str, int] = field(default_factory=dict)


@dataclass
class _Tally:
    name: str
    rolls: int = 0
    successes: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    faces: dict[int, list[int]] = field(default_factory=dict)


def chat_stats(entries: Iterable[Mapping[str, Any]]) -> ChatStats:
    """Aggregate roll-log entries (as ``Store.recent_rolls`` returns them) per player and overall.

    Unreadable entries are skipped and counted, never fatal: the log is shared history and
    one bad record must not take ``/stats`` down for the whole chat.
    """
    tallies: dict[int, _Tally] = {}
    all_faces: dict[int, list[int]] = {}
    all_outcomes: Counter[str] = Counter()
    rolls = 0
    skipped = 0
    for raw in entries:
        entry = RollEntry.from_log(raw)
        if entry is None:
            skipped += 1
            continue
        tally = tallies.setdefault(entry.user_id, _Tally(name=entry.name))
        if entry.follow_up:
            if entry.faces:
                tally.faces.setdefault(entry.sides, []).extend(entry.faces)
                all_faces.setdefault(entry.sides, []).extend(entry.faces)
            continue
        rolls += 1
        tally.rolls += 1
        tally.successes += entry.successes
        tally.outcomes[entry.outcome] += 1
        all_outcomes[entry.outcome] += 1
        if entry.faces:
            tally.faces.setdefault(entry.sides, []).extend(entry.faces)
            all_faces.setdefault(entry.sides, []).extend(entry.faces)
    players = [
        PlayerStats(
            user_id=user_id,
            name=tally.name,
            rolls=tally.rolls,
            dice_rolled=sum(len(f) for f in tally.faces.values()),
            successes=tally.successes,
            mean_successes=tally.successes / tally.rolls if tally.rolls else 0.0,
            outcomes=dict(tally.outcomes),
            dice=_fairness_by_sides(tally.faces),
        )
        for user_id, tally in tallies.items()
        if tally.rolls or tally.faces
    ]
    players.sort(key=lambda p: (-p.rolls, p.user_id))
    return ChatStats(
        players=tuple(players),
        rolls=rolls,
        dice=_fairness_by_sides(all_faces),
        skipped=skipped,
        outcomes=dict(all_outcomes),
    )


# ----- Counters for the whole campaign -----
#
# The roll log is capped, so ``/stats`` reads counters kept as the dice are rolled instead: a
# :class:`Tally` of the new log entries is added to the chat's counters in the very step that
# writes them (table/store/log.py). Their fields, one hash per chat:
#   ``r:USER`` rolls, ``s:USER`` successes (a d6 roll's measures), ``o:USER:CODE`` outcomes,
#   ``f:USER:SIDES:FACE`` how often the face came up, ``n:USER`` the player's newest name.


def _roll_fields(entry: RollEntry, counts: dict[str, int]) -> None:
    user = entry.user_id
    if not entry.follow_up:
        for name, amount in (
            (f"r:{user}", 1),
            (f"s:{user}", entry.successes),
            (f"o:{user}:{entry.outcome}", 1),
        ):
            counts[name] = counts.get(name, 0) + amount
    for face in entry.faces:
        name = f"f:{user}:{entry.sides}:{face}"
        counts[name] = counts.get(name, 0) + 1


@dataclass(frozen=True, slots=True)
class Tally:
    """What some log entries add to a chat's counters: field → increment, and each roller's
    name as the newest of them shows it (``n:USER`` → name)."""

    counts: Mapping[str, int] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.counts or self.names)

    def __add__(self, other: Tally) -> Tally:
        """Both together; ``other``'s names win (it is the newer)."""
        counts = Counter(self.counts)
        counts.update(other.counts)
        return Tally(dict(counts), {**self.names, **other.names})


def tally(entries: Iterable[Mapping[str, Any]]) -> Tally:
    """The counters' increments for these log entries (oldest first, as they are written):
    the same reading of an entry as :func:`chat_stats` (an unrevealed hidden roll, which has
    no result, and a damaged record add nothing)."""
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    for raw in entries:
        entry = RollEntry.from_log(raw)
        if entry is None:
            continue
        _roll_fields(entry, counts)
        names[f"n:{entry.user_id}"] = entry.name
    return Tally({k: v for k, v in counts.items() if v}, names)


def counter(raw: object) -> int:
    """A counter's stored value; a damaged one counts as 0."""
    try:
        value = int(str(raw))
    except ValueError:
        return 0
    return max(0, value)


@dataclass
class _Counted:
    rolls: int = 0
    successes: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    faces: dict[int, list[int]] = field(default_factory=dict)


def _read_field(name: str, value: object, players: dict[int, _Counted]) -> None:
    kind, _, rest = name.partition(":")
    user, _, detail = rest.partition(":")
    if kind not in ("r", "s", "o", "f") or not user.lstrip("-").isdigit():
        return
    counted = players.setdefault(int(user), _Counted())
    amount = counter(value)
    if kind == "r":
        counted.rolls += amount
    elif kind == "s":
        counted.successes += amount
    elif kind == "o" and detail:
        counted.outcomes[detail] += amount
    elif kind == "f":
        sides, _, face = detail.partition(":")
        size = int(sides) if sides.isdigit() else 0
        if size in SUPPORTED_SIDES and face.isdigit() and 1 <= int(face) <= size:
            counted.faces.setdefault(size, [0] * size)[int(face) - 1] += amount


def from_counters(fields: Mapping[str, object]) -> ChatStats:
    """The table's statistics from its counters (the hash the Store keeps), the same as
    :func:`chat_stats` gives for the entries counted; a damaged field counts for nothing."""
    players: dict[int, _Counted] = {}
    for name, value in fields.items():
        _read_field(str(name), value, players)
    found: list[PlayerStats] = []
    overall: dict[int, list[int]] = {}
    outcomes: Counter[str] = Counter()
    for user_id, counted in players.items():
        if not counted.rolls and not any(sum(f) for f in counted.faces.values()):
            continue
        for sides, faces in counted.faces.items():
            into = overall.setdefault(sides, [0] * sides)
            for index, count in enumerate(faces):
                into[index] += count
        outcomes.update(counted.outcomes)
        shown = fields.get(f"n:{user_id}")
        found.append(
            PlayerStats(
                user_id=user_id,
                name=str(shown) if shown is not None else str(user_id),
                rolls=counted.rolls,
                dice_rolled=sum(sum(f) for f in counted.faces.values()),
                successes=counted.successes,
                mean_successes=counted.successes / counted.rolls if counted.rolls else 0.0,
                outcomes={k: v for k, v in counted.outcomes.items() if v},
                dice={s: fairness(f, s) for s, f in sorted(counted.faces.items()) if sum(f)},
            )
        )
    found.sort(key=lambda p: (-p.rolls, p.user_id))
    return ChatStats(
        players=tuple(found),
        rolls=sum(p.rolls for p in found),
        dice={s: fairness(f, s) for s, f in sorted(overall.items()) if sum(f)},
        outcomes={k: v for k, v in outcomes.items() if v},
    )
