"""Invalid input to the rules (docs/rules.md §0.2, §0.3).

A legal request that the rules forbid (a pool reduced to zero, a dead character acting) is
not an error: it comes back as a normal result with an ``IMPOSSIBLE`` status. Only input
that no rule can make sense of raises :class:`RulesInputError`, so the bot can map every
``code`` to one localised sentence without parsing messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum, StrEnum
from typing import Any, TypeVar

_T = TypeVar("_T")
_E = TypeVar("_E", bound=Enum)


class ErrorCode(StrEnum):
    """Stable codes of docs/rules.md §0.3; the bot's catalogues key their messages on these."""

    TYPE = "E_TYPE"
    RANGE = "E_RANGE"
    FACES_LEN = "E_FACES_LEN"
    FACE_VALUE = "E_FACE_VALUE"
    TOO_MANY_TRAITS = "E_TOO_MANY_TRAITS"
    WP_UNAVAILABLE = "E_WP_UNAVAILABLE"
    WP_ALREADY_THIS_TURN = "E_WP_ALREADY_THIS_TURN"
    QUINT_LIMIT = "E_QUINT_LIMIT"
    SPECIAL_EFFORT_USED = "E_SPECIAL_EFFORT_USED"
    NOT_ALLOWED = "E_NOT_ALLOWED"
    STATE = "E_STATE"
    UNKNOWN_KEY = "E_UNKNOWN_KEY"
    UNKNOWN_PROFILE = "E_UNKNOWN_PROFILE"


class RulesInputError(ValueError):
    """The one exception type of the rules package.

    ``code`` says what kind of thing is wrong, ``field`` names the argument, ``detail`` is a
    short English note for logs (never shown to players: words belong to ``locales/``).
    """

    def __init__(self, code: ErrorCode, field: str, detail: str = "") -> None:
        self.code = code
        self.field = field
        self.detail = detail
        super().__init__(f"{code.value} {field}: {detail}" if detail else f"{code.value} {field}")


def check_int(value: Any, field: str, lo: int | None = None, hi: int | None = None) -> int:
    """Accept a real ``int`` within ``[lo, hi]``.

    ``bool`` is a subclass of ``int`` in Python, and a float like ``6.0`` would silently
    truncate; both are rejected because §0.2 says so and because a button payload that
    decodes to ``True`` must never become a one-die pool.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesInputError(ErrorCode.TYPE, field, f"expected int, got {type(value).__name__}")
    if lo is not None and value < lo:
        raise RulesInputError(ErrorCode.RANGE, field, f"{value} < {lo}")
    if hi is not None and value > hi:
        raise RulesInputError(ErrorCode.RANGE, field, f"{value} > {hi}")
    return value


def check_bool(value: Any, field: str) -> bool:
    """Accept only a real ``bool`` (an int 0/1 is a different, probably buggy, caller)."""
    if not isinstance(value, bool):
        raise RulesInputError(ErrorCode.TYPE, field, f"expected bool, got {type(value).__name__}")
    return value


def check_ints(
    values: Iterable[Any], field: str, lo: int | None = None, hi: int | None = None
) -> list[int]:
    """Validate every item of a sequence of ints; a bare string is not a sequence of ints."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise RulesInputError(ErrorCode.TYPE, field, "expected a sequence of int")
    return [check_int(v, f"{field}[{i}]", lo, hi) for i, v in enumerate(values)]


def check_type(value: Any, kind: type[_T], field: str) -> _T:
    """Accept an instance of one of the rules' own value types (a profile, a track, a roll).

    Without this a wrong object fails deep inside a rule as ``AttributeError``, which the bot
    cannot map to a message (docs/rules.md §0.2: one documented exception type).
    """
    if not isinstance(value, kind):
        raise RulesInputError(
            ErrorCode.TYPE, field, f"expected {kind.__name__}, got {type(value).__name__}"
        )
    return value


def check_sequence(values: Any, field: str) -> tuple[Any, ...]:
    """A finite sequence of items as a tuple; a bare string or a mapping is not one."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise RulesInputError(
            ErrorCode.TYPE, field, f"expected a sequence, got {type(values).__name__}"
        )
    return tuple(values)


def check_mapping(value: Any, field: str) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise RulesInputError(
            ErrorCode.TYPE, field, f"expected a mapping, got {type(value).__name__}"
        )
    return value


def parse_enum(kind: type[_E], value: Any, field: str) -> _E:
    """A table row or option from its enum member or its code (any case, outer spaces ignored).

    Codes are what buttons and stored state carry; an unknown code is ``E_UNKNOWN_KEY``
    (§0.3 «unknown manoeuvre, location or table row») and anything that is not a string at
    all is ``E_TYPE``.
    """
    if isinstance(value, kind):
        return value
    if not isinstance(value, str):
        raise RulesInputError(ErrorCode.TYPE, field, f"expected str, got {type(value).__name__}")
    wanted = value.strip().casefold()
    for member in kind:
        if isinstance(member.value, str) and member.value.casefold() == wanted:
            return member
    raise RulesInputError(ErrorCode.UNKNOWN_KEY, field, repr(value))
