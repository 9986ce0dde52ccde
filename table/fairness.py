"""A session's provably fair dice: a secret seed committed in advance (docs/product.md §2b).

While a campaign's session runs (``/session start`` … ``/session end``), every die an update
rolls is derived from the session's secret seed and the update's own identity instead of
the OS. The table sees the seed's SHA-256 when the session starts and the seed itself when
it ends, and anyone can then recompute every roll of the chronicle with
``docs/verify_session.py`` (standard library only). The construction, in full::

    seed        = 32 bytes from the OS (secrets), kept in Redis until the session ends
    commitment  = lowercase hex SHA-256 of the seed's 32 raw bytes
    identity    = "<chat id>:<update id>"   (the update the roll was made in)
    die k of an update, with n sides (k = 0, 1, 2, … in the order the update draws them):
        w     = bytes per draw: the fewest with 256**w >= n
        limit = 256**w - (256**w mod n)
        for j = 0, 1, 2, …:
            block = HMAC-SHA256(key=seed, msg=ASCII "<identity>:<k>:<j>")
            for each w-byte big-endian number x of block, in order:
                if x < limit: the face is 1 + (x mod n); stop
    a roll's proof  = "<identity>#<k of its first die>", its dice the next draws

Why this shape:

- Unpredictable until the reveal: HMAC-SHA256 under a 256-bit secret is a pseudorandom
  function, so nobody without the seed learns anything of the next die, however many dice
  they have seen. The seed never leaves Redis and the process before ``/session end``.
- Binding: the seed is fixed by its SHA-256 before the first roll, so neither the
  Storyteller nor the bot can pick dice after the fact; each roll's identity is the update
  Telegram numbered, which the bot cannot choose either.
- Replayable: the identity is the update's, so a run again after a crash rolls the same
  faces, as the journal's dice do outside a session (ARCHITECTURE.md "Nothing lost, nothing
  twice").
- Unbiased: rejection sampling keeps every face equally likely (a plain ``mod 10`` of a byte
  would favour 1–6); each die has its own HMAC, so a verifier needs only the die's number in
  its update, not what else the update drew.

The log line of a roll made from a session's dice carries the session's number (``ses``) and
its proof (``pf``); :func:`annotate` adds them as the line is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Collection, Sequence
from typing import Any, Protocol


class Replaying(Protocol):
    """What keeps an update's own dice (``table.store.journal.Journal``): named by what it
    does, so this module, which the log's writer uses, imports nothing of the store."""

    def dice(self) -> random.Random: ...


SEED_BYTES = 32
SEED_HEX_LEN = 2 * SEED_BYTES


def commitment(seed: bytes) -> str:
    """What ``/session start`` posts: the seed's SHA-256, lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def identity(chat_id: int, update_id: int) -> str:
    return f"{chat_id}:{update_id}"


def die(seed: bytes, ident: str, index: int, sides: int) -> int:
    """The ``index``-th die (from 0) of the update ``ident``, a face from 1 to ``sides``."""
    if sides < 1:
        raise ValueError(f"a die has at least one side, not {sides}")
    width = max(1, ((sides - 1).bit_length() + 7) // 8)
    span = 256**width
    limit = span - span % sides
    round_ = 0
    while True:
        block = hmac.new(seed, f"{ident}:{index}:{round_}".encode(), hashlib.sha256).digest()
        for at in range(0, len(block) - width + 1, width):
            value = int.from_bytes(block[at : at + width], "big")
            if value < limit:
                return 1 + value % sides
        round_ += 1


class SessionDice(random.Random):
    """The dice of one update while its campaign's session runs: ``randint`` draws the next
    die of :func:`die`, and the tape keeps every face drawn, so a log line can name where
    its dice start (:meth:`proof`)."""

    def __init__(self, seed: bytes, ident: str, session: int) -> None:
        self._seed = seed
        self.ident = ident
        self.session = session
        self.tape: list[tuple[int, int]] = []  # (sides, face) in the order drawn
        self._aux = 0
        super().__init__()

    def seed(self, *args: Any, **kwargs: Any) -> None:  # the session's seed is fixed
        return None

    def randint(self, a: int, b: int) -> int:
        sides = b - a + 1
        face = die(self._seed, self.ident, len(self.tape), sides)
        self.tape.append((sides, face))
        return a + face - 1

    def getrandbits(self, k: int) -> int:
        """Anything but ``randint`` (no die of the rules asks for it) comes from a stream of
        its own, apart from the dice's draws."""
        if k <= 0:
            return 0
        out = b""
        while len(out) * 8 < k:
            label = f"{self.ident}:aux:{self._aux}".encode()
            out += hmac.new(self._seed, label, hashlib.sha256).digest()
            self._aux += 1
        return int.from_bytes(out, "big") >> (len(out) * 8 - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53

    def proof(self, faces: Sequence[int], sides: int, taken: Collection[int] = ()) -> int | None:
        """Where ``faces`` (in the order rolled) start on the tape: the first run of draws that
        shows them and does not start at a place in ``taken`` (the starts the same batch of
        log lines already named, so a second set with the same faces names its own dice);
        None when they were not drawn here (dice typed at the table). The same question asked
        again gets the same answer, so a transaction run again under WATCH stores the same
        proofs."""
        count = len(faces)
        if count == 0:
            return None
        for start in range(len(self.tape) - count + 1):
            if start in taken:
                continue
            if all(self.tape[start + i] == (sides, faces[i]) for i in range(count)):
                return start
        return None


def roll_sides(item: dict[str, Any]) -> int:
    """A log line's die: the d6 game's or the d10."""
    return 6 if item.get("system") == "d6" or item.get("sides") == 6 else 10


def annotate(item: dict[str, Any], dice: Any, taken: set[int] | None = None) -> dict[str, Any]:
    """A log line on its way into the log (table/store/log.py), with its session and proof
    when the update's ``dice`` are a session's; unchanged otherwise. ``taken``: the
    starts the earlier lines of the same batch named (this line's start is added), so one
    press that rolls two sets with the same faces proves each by its own dice."""
    if not isinstance(dice, SessionDice) or "ses" in item:
        return item
    item["ses"] = dice.session
    sides = roll_sides(item)
    claimed = taken if taken is not None else set()
    for field in ("faces", "fresh"):
        rolled = item.get(field)
        if not isinstance(rolled, list | tuple) or not all(isinstance(f, int) for f in rolled):
            continue
        start = dice.proof(rolled, sides, claimed)
        if start is None:
            continue
        claimed.add(start)
        item["pf"] = f"{dice.ident}#{start}"
        if field == "fresh":
            item["pff"] = 1  # the proof is of the fresh dice, the kept ones were proven before
        return item
    return item


def dice_for(
    fallback: random.Random, session: int | None, seed_hex: str | None, chat_id: int, update: int
) -> random.Random:
    """The update's dice: a running session's, else ``fallback`` (the journal's)."""
    if session is None or seed_hex is None:
        return fallback
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return fallback
    if len(seed) != SEED_BYTES:
        return fallback
    return SessionDice(seed, identity(chat_id, update), session)


def kept_secret(rng: Any, journal: Replaying | None) -> Any:
    """A hidden roll's dice: never a session's. Its faces stay secret past ``/session end``
    (it keeps its own commitment, table/commitment.py), and the revealed seed with the update's
    identity would otherwise tell them; the update's ``journal``'s dice replay as well after a
    crash."""
    if not isinstance(rng, SessionDice):
        return rng
    return journal.dice() if journal is not None else None
