"""The Correspondence (§C.8) and Time (§C.9) range tables of S4."""

from __future__ import annotations

from enum import StrEnum

from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_int,
    parse_enum,
)
from rules.magick.limits import MAX_SUCCESSES, _profile, _Value
from rules.profiles import Profile

# ---------------------------------------------------------------------------------------------
# §C.8 Correspondence ranges (S4 «Таблица расстояний действия магии для Связей»)


class Place(StrEnum):
    """«Место» column; the row number is the successes needed."""

    LINE_OF_SIGHT = "line_of_sight"  # 1 В пределах взгляда
    VERY_FAMILIAR = "very_familiar"  # 2 Очень знакомое
    FAMILIAR = "familiar"  # 3 Знакомое
    VISITED_ONCE = "visited_once"  # 4 Однажды посещенное
    DESCRIBED = "described"  # 5 Знакомое по описанию
    ANYWHERE = "anywhere"  # 6+ Любое место на Земле


class Contact(StrEnum):
    """«Контакт» column (sympathetic link); the row number is the successes needed."""

    BODY_SAMPLE = "body_sample"  # 1 Через образец тела
    IMPORTANT_POSSESSION = "important_possession"  # 2 Важное имущество / очень близкий друг
    POSSESSION = "possession"  # 3 Имущество или просто друг
    ACQUAINTANCE = "acquaintance"  # 4 Знакомый или единожды использованный предмет
    SEEN_ONCE = "seen_once"  # 5 Человек/объект, единожды потроганный или увиденный
    NONE_NEEDED = "none_needed"  # 6+ Ничего не требуется


_PLACES = tuple(Place)
_CONTACTS = tuple(Contact)
CORRESPONDENCE_ROWS = len(_PLACES)


class CorrespondenceReach(_Value):
    place: Place
    contact: Contact


def correspondence_required(
    place: Place | str | None = None,
    contact: Contact | str | None = None,
    *,
    profile: Profile | None = None,
) -> int:
    """Successes a Correspondence link needs: the row of the place and/or the contact.

    With both, the better (cheaper) link decides by default [P, §C.8]; a profile may demand
    that both be reached.
    """
    opts = _profile(profile).magick
    rows = []
    if place is not None:
        rows.append(_PLACES.index(parse_enum(Place, place, "place")) + 1)
    if contact is not None:
        rows.append(_CONTACTS.index(parse_enum(Contact, contact, "contact")) + 1)
    if not rows:
        raise RulesInputError(ErrorCode.RANGE, "place", "a place or a contact is needed")
    return min(rows) if opts.correspondence_better_link else max(rows)


def correspondence_reach(successes: int) -> CorrespondenceReach:
    """The farthest place and weakest contact S successes reach («Шесть и больше» = row 6)."""
    s = check_int(successes, "successes", 1, MAX_SUCCESSES)
    row = min(s, CORRESPONDENCE_ROWS) - 1
    return CorrespondenceReach(place=_PLACES[row], contact=_CONTACTS[row])


# ---------------------------------------------------------------------------------------------
# §C.9 Time ranges (S4 «Временные Линии»)

# Years reached by 1, 2, … successes. S4's «6 и больше» (500) and «10 и больше» (1000 and
# more) overlap; 6–9 read as 500 years (AMB-C10). 1000 means "1000 years and more".
TIME_REACH_YEARS: tuple[int, ...] = (1, 5, 20, 50, 100, 500, 500, 500, 500, 1000)


def time_reach(successes: int) -> int:
    """Years into the past or future S successes reach; 1000 stands for «1000 лет и больше»."""
    s = check_int(successes, "successes", 1, MAX_SUCCESSES)
    return TIME_REACH_YEARS[min(s, len(TIME_REACH_YEARS)) - 1]


def time_required(years: int) -> int:
    """Fewest successes that reach ``years`` away."""
    y = check_int(years, "years", 0, 1_000_000)
    for i, reach in enumerate(TIME_REACH_YEARS, start=1):
        if y <= reach:
            return i
    return len(TIME_REACH_YEARS)
