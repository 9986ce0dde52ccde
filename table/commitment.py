"""Commitments for the Storyteller's hidden rolls (docs/product.md §2).

A hidden roll («скрытый бросок») is only worth something if the table can trust it. When the
Storyteller rolls with ``/h``, the group sees no pool, faces or result, only a SHA-256
commitment. ``/reveal`` later publishes the roll and a nonce, and anyone can check that the
revealed roll is the one committed to, with nothing but ``sha256sum``. Neither the
Storyteller nor a tampered bot can swap the faces after the fact without the hash changing.

The construction, in full::

    payload    = sdb-hidden-v1|chat=<int>|seq=<int>|profile=<name>|pool=<int>
                 |difficulty=<int>|threshold=<int>|willpower=<0|1>|faces=<int>,<int>,...
                 (one line, no spaces, no line breaks)
    line       = <payload>|nonce=<64 lowercase hex digits>
    commitment = lowercase hex SHA-256 of the ASCII bytes of <line>

so ``printf '%s' '<line>' | sha256sum`` prints the commitment. Why this shape:

- Hiding. A d10 roll has few possible outcomes, so a bare hash of the payload could be
  brute-forced by the table in a second. The nonce is 256 bits from :mod:`secrets`, which
  makes guessing the payload from the commitment hopeless until the nonce is revealed.
- Binding. Opening the same commitment to a different roll needs a second SHA-256 preimage
  (or a collision prepared in advance); both are infeasible. No HMAC or key is needed: the
  property wanted is binding, not authentication, and a keyed construction could not be
  checked with a standard tool.
- The nonce sits *after* the payload, in text, rather than as raw bytes in front of it: the
  line is then pure printable ASCII that a player can paste into a shell. SHA-256's length
  extension does not matter here, since it yields a hash of a *different* message, never a
  second opening of the same hash.
- Injectivity. Every field has a fixed name and position, integers are written in Python's
  canonical decimal form (no ``+``, no leading zeros), the profile name is limited to
  ``[a-z0-9-]`` and no value can contain ``|``, so the payload parses back in exactly one way
  (:func:`parse_payload` is its inverse): no two different rolls serialise the same, and the
  commitment therefore pins down the roll, not just a string.
- ``chat`` and ``seq`` (a per-chat sequence number of hidden rolls) bind the commitment to one
  chat and one place in it, so an old commitment, or another chat's, cannot be passed off as
  the reveal of this one.
- ``v1`` names the format, so a later format can coexist with commitments already posted.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

FORMAT = "sdb-hidden-v1"
NONCE_BYTES = 32
NONCE_HEX_LEN = 2 * NONCE_BYTES
COMMITMENT_HEX_LEN = 64

_PROFILE = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
_HEX = re.compile(r"[0-9a-f]+")
_INT = r"(0|-?[1-9][0-9]*)"
_UINT = r"(0|[1-9][0-9]*)"
_PAYLOAD = re.compile(
    rf"{re.escape(FORMAT)}\|chat={_INT}\|seq={_UINT}\|profile=([a-z0-9][a-z0-9-]{{0,31}})"
    rf"\|pool={_UINT}\|difficulty={_UINT}\|threshold={_UINT}\|willpower=([01])"
    rf"\|faces=((?:[1-9][0-9]*(?:,[1-9][0-9]*)*)?)"
)


def _int(value: object, field: str, lo: int | None = None) -> int:
    # bool is an int subclass: ``True`` must never be written as pool=1 (docs/rules.md §0.2).
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field}: expected int, got {type(value).__name__}")
    if lo is not None and value < lo:
        raise ValueError(f"{field}: {value} < {lo}")
    return value


@dataclass(frozen=True, slots=True)
class HiddenRoll:
    """Everything a hidden roll's commitment binds: where it was made, what was asked, the dice.

    ``faces`` are in the order rolled (a reveal that only matched as a multiset would let the
    order be reshuffled, harmless today but a needless freedom). ``difficulty`` and
    ``threshold`` are the effective ones the roll was resolved at (docs/rules.md §A.4, §A.7), and
    ``profile`` is the rules profile's name, since the same faces mean different results under
    different profiles. Construction validates every field, so an instance always has a
    payload.
    """

    chat_id: int
    seq: int
    profile: str
    pool: int
    difficulty: int
    threshold: int
    willpower: bool
    faces: tuple[int, ...]

    def __post_init__(self) -> None:
        _int(self.chat_id, "chat_id")
        _int(self.seq, "seq", 0)
        if not isinstance(self.profile, str) or not _PROFILE.fullmatch(self.profile):
            raise ValueError(f"profile: {self.profile!r} is not a lowercase [a-z0-9-] name")
        _int(self.pool, "pool", 0)
        _int(self.difficulty, "difficulty", 0)
        _int(self.threshold, "threshold", 0)
        if not isinstance(self.willpower, bool):
            raise ValueError(f"willpower: expected bool, got {type(self.willpower).__name__}")
        if not isinstance(self.faces, tuple):
            raise ValueError("faces: expected a tuple")
        for i, face in enumerate(self.faces):
            _int(face, f"faces[{i}]", 1)

    def payload(self) -> str:
        """The canonical ``sdb-hidden-v1`` line for this roll (see the module docstring)."""
        return (
            f"{FORMAT}|chat={self.chat_id}|seq={self.seq}|profile={self.profile}"
            f"|pool={self.pool}|difficulty={self.difficulty}|threshold={self.threshold}"
            f"|willpower={int(self.willpower)}|faces={','.join(map(str, self.faces))}"
        )


def hidden_roll(
    *,
    chat_id: int,
    seq: int,
    profile: str,
    pool: int,
    difficulty: int,
    threshold: int,
    willpower: bool,
    faces: Sequence[int],
) -> HiddenRoll:
    """A :class:`HiddenRoll` from any sequence of faces (a list from the log, a result's tuple)."""
    return HiddenRoll(
        chat_id=chat_id,
        seq=seq,
        profile=profile,
        pool=pool,
        difficulty=difficulty,
        threshold=threshold,
        willpower=willpower,
        faces=tuple(faces),
    )


def parse_payload(payload: str) -> HiddenRoll:
    """The roll a canonical payload describes; ``ValueError`` for anything not canonical.

    The exact inverse of :meth:`HiddenRoll.payload`: ``parse_payload(r.payload()) == r`` and,
    for a string ``s`` it accepts, ``parse_payload(s).payload() == s``. It is what makes the
    format's injectivity checkable, and lets a reveal be read back into a roll.
    """
    match = _PAYLOAD.fullmatch(payload) if isinstance(payload, str) else None
    if match is None:
        raise ValueError("not a canonical sdb-hidden-v1 payload")
    chat, seq, profile, pool, difficulty, threshold, willpower, faces = match.groups()
    return HiddenRoll(
        chat_id=int(chat),
        seq=int(seq),
        profile=profile,
        pool=int(pool),
        difficulty=int(difficulty),
        threshold=int(threshold),
        willpower=willpower == "1",
        faces=tuple(int(f) for f in faces.split(",")) if faces else (),
    )


def _check_payload(payload: str) -> str:
    parse_payload(payload)
    return payload


def _check_nonce(nonce_hex: str) -> str:
    if (
        not isinstance(nonce_hex, str)
        or len(nonce_hex) != NONCE_HEX_LEN
        or not _HEX.fullmatch(nonce_hex)
    ):
        raise ValueError(f"nonce: expected {NONCE_HEX_LEN} lowercase hex digits")
    return nonce_hex


def reveal_line(payload: str, nonce_hex: str) -> str:
    """The exact line whose SHA-256 is the commitment: what ``/reveal`` publishes.

    A player copies it into ``printf '%s' '<line>' | sha256sum`` (or any SHA-256 tool, with
    no trailing newline) and compares the output with the commitment posted at roll time.
    """
    return f"{_check_payload(payload)}|nonce={_check_nonce(nonce_hex)}"


def split_reveal_line(line: str) -> tuple[str, str]:
    """``(payload, nonce_hex)`` of a revealed line; ``ValueError`` if it is not one.

    The payload never contains ``|nonce=``, so splitting at its last occurrence is exact.
    """
    payload, sep, nonce_hex = line.rpartition("|nonce=")
    if not sep:
        raise ValueError("no nonce in the line")
    return _check_payload(payload), _check_nonce(nonce_hex)


def commitment_of(payload: str, nonce_hex: str) -> str:
    """The commitment for a known nonce: lowercase hex SHA-256 of :func:`reveal_line`."""
    return hashlib.sha256(reveal_line(payload, nonce_hex).encode("ascii")).hexdigest()


def commit(payload: str, nonce: bytes | None = None) -> tuple[str, str]:
    """``(commitment_hex, nonce_hex)`` for a canonical payload, with a secret nonce: fresh,
    or ``nonce`` (32 secret bytes) when the roll's is fixed already, so a roll posted again
    after a failed send shows the same commitment (ARCHITECTURE.md "Nothing lost, nothing
    twice").

    The nonce must stay private (with the Storyteller and in the bot's state) until
    ``/reveal``: anyone holding it can test guesses of the roll against the commitment.
    """
    if nonce is None:
        nonce = secrets.token_bytes(NONCE_BYTES)
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"nonce: expected {NONCE_BYTES} bytes")
    nonce_hex = nonce.hex()
    return commitment_of(payload, nonce_hex), nonce_hex


def verify(commitment_hex: str, nonce_hex: str, payload: str) -> bool:
    """Whether ``payload`` and ``nonce_hex`` open ``commitment_hex``.

    Never raises: a malformed commitment, nonce or payload simply does not verify, since the
    values may come from a player's paste. Upper-case hex in the commitment is accepted
    (some tools print it); the comparison is constant-time out of habit, although nothing
    here is a secret once revealed.
    """
    if not isinstance(commitment_hex, str) or len(commitment_hex) != COMMITMENT_HEX_LEN:
        return False
    expected = commitment_hex.lower()
    if not _HEX.fullmatch(expected):
        return False
    try:
        actual = commitment_of(payload, nonce_hex)
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)


def shell_command(payload: str, nonce_hex: str) -> str:
    """A command that prints the commitment with standard tools: ``printf … | sha256sum``.

    ``printf '%s'`` writes the line without a trailing newline and without interpreting
    escapes; single quotes are safe because the line only holds ``[a-z0-9|=,-]``.
    """
    return f"printf '%s' '{reveal_line(payload, nonce_hex)}' | sha256sum"
