#!/usr/bin/env python3
"""Check a session's chronicle against its revealed seed: ``python3 verify_session.py FILE.md``.

Standard library only, so any player can run it (docs/product.md "Every roll provably fair").
The Markdown chronicle (``/chronicle``) names, for each session, its commitment and, once
the session ended, its seed::

    `session 3 commitment = <64 hex digits>`
    `session 3 seed = <64 hex digits>`

and each roll made from the seed as::

    `s3 d10 -1001:500000012#0 = 7 3 10 1`

that is the session, the die's sides, the roll's identity (the chat and the Telegram update
it was rolled in), the number of its first die in that update, and its dice in the order
rolled. The check, exactly as the bot rolls (table/fairness.py):

- SHA-256 of the seed's 32 bytes must be the commitment posted when the session began;
- die k of an identity, with n sides: HMAC-SHA256(key = seed, message = "<identity>:<k>:<j>")
  for j = 0, 1, …; read the digest in w-byte big-endian numbers (w the fewest bytes with
  256**w >= n); the first below 256**w − (256**w mod n) gives the face 1 + (number mod n).

Exit status: 0 when every commitment matches its seed and every roll its dice; 1 when
anything does not (a die changed, a seed that is not the committed one, a roll of a session
whose seed is not revealed); 2 when the file cannot be read or holds no seed proof at all.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import sys
from pathlib import Path

NOT_ESCAPED = r"(?<!\\)`"
COMMITMENT = re.compile(NOT_ESCAPED + r"session (\d+) commitment = ([0-9a-f]{64})`")
SEED = re.compile(NOT_ESCAPED + r"session (\d+) seed = ([0-9a-f]{64})`")
ROLL = re.compile(NOT_ESCAPED + r"s(\d+) d(\d+) (-?\d+:\d+)#(\d+) = ([0-9]+(?: [0-9]+)*)`")


def die(seed: bytes, identity: str, index: int, sides: int) -> int:
    width = max(1, ((sides - 1).bit_length() + 7) // 8)
    span = 256**width
    limit = span - span % sides
    round_ = 0
    while True:
        message = f"{identity}:{index}:{round_}".encode()
        block = hmac.new(seed, message, hashlib.sha256).digest()
        for at in range(0, len(block) - width + 1, width):
            value = int.from_bytes(block[at : at + width], "big")
            if value < limit:
                return 1 + value % sides
        round_ += 1


def verify(text: str) -> tuple[bool, list[str]]:
    """Whether the chronicle checks, and what was found, line by line."""
    report: list[str] = []
    ok = True
    commitments = {int(n): h for n, h in COMMITMENT.findall(text)}
    seeds: dict[int, bytes] = {}
    for number, seed_hex in SEED.findall(text):
        session = int(number)
        seed = bytes.fromhex(seed_hex)
        expected = commitments.get(session)
        digest = hashlib.sha256(seed).hexdigest()
        if expected is None:
            ok = False
            report.append(f"session {session}: a seed without a commitment")
        elif digest != expected:
            ok = False
            report.append(f"session {session}: SHA-256 of the seed is {digest}, not {expected}")
        else:
            report.append(f"session {session}: the seed matches its commitment")
        seeds[session] = seed
    checked = 0
    for number, sides_text, identity, start_text, faces_text in ROLL.findall(text):
        session, sides, start = int(number), int(sides_text), int(start_text)
        faces = [int(f) for f in faces_text.split()]
        where = f"s{session} d{sides} {identity}#{start}"
        known = seeds.get(session)
        if known is None:
            ok = False
            report.append(f"{where}: the seed of session {session} is not revealed")
            continue
        if not 2 <= sides <= 1_000_000:
            ok = False
            report.append(f"{where}: no die has {sides} sides")
            continue
        expected = [die(known, identity, start + i, sides) for i in range(len(faces))]
        checked += 1
        if faces != expected:
            ok = False
            shown = " ".join(map(str, expected))
            report.append(f"{where}: the dice shown are {faces_text}, the seed rolled {shown}")
    report.append(f"{checked} rolls recomputed")
    return ok, report


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 verify_session.py CHRONICLE.md", file=sys.stderr)
        return 2
    try:
        text = Path(argv[1]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"cannot read {argv[1]}: {error}", file=sys.stderr)
        return 2
    if not COMMITMENT.search(text):
        print("no seed proof in this file: is it a /chronicle Markdown file?", file=sys.stderr)
        return 2
    ok, report = verify(text)
    for line in report:
        print(line)
    print("OK: every roll is the seed's" if ok else "FAILED: the chronicle does not check")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
