"""A session's proofs (table/fairness.py): one press that rolls two sets with the same faces
names each set's own dice, and docs/verify_session.py checks both."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from types import ModuleType

from table.fairness import SessionDice, die
from table.scope import Scope
from table.store.log import LogEntry, stored

SEED = bytes(range(32))
VERIFY = Path(__file__).resolve().parents[2] / "docs" / "verify_session.py"


def verifier() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_session", VERIFY)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def twin_ident() -> str:
    """An update whose first two d10 are the same face: two one-die sets that look alike."""
    for update in range(1, 10_000):
        ident = f"-100:{update}"
        if die(SEED, ident, 0, 10) == die(SEED, ident, 1, 10):
            return ident
    raise AssertionError("no update with two equal first dice")


def test_the_same_faces_asked_again_skip_a_taken_start() -> None:
    dice = SessionDice(SEED, twin_ident(), 1)
    first, second = dice.randint(1, 10), dice.randint(1, 10)
    assert first == second
    assert dice.proof([first], 10) == 0
    assert dice.proof([second], 10, taken={0}) == 1
    assert dice.proof([second], 10, taken={0, 1}) is None


async def test_two_equal_sets_of_one_press_each_name_their_own_dice() -> None:
    ident = twin_ident()
    dice = SessionDice(SEED, ident, 1)
    face = dice.randint(1, 10)
    assert dice.randint(1, 10) == face
    entries = [
        LogEntry(user_id=1, name="Аня", pool=1, difficulty=6, faces=(face,), kind=kind)
        for kind in ("atk", "def")
    ]
    lines = [json.loads(line) for line in stored(Scope(dice=dice), entries)]
    assert [line["pf"] for line in lines] == [f"{ident}#0", f"{ident}#1"]
    commitment = hashlib.sha256(SEED).hexdigest()
    spans = [f"`s1 d10 {line['pf']} = {face}`" for line in lines]
    chronicle = "\n".join(
        [f"`session 1 commitment = {commitment}`", f"`session 1 seed = {SEED.hex()}`", *spans]
    )
    ok, report = verifier().verify(chronicle)
    assert ok, report
    assert "2 rolls recomputed" in report
    # A second set's die named as the first's would still check here, so the point of the
    # proof is the die's place: a changed die at #1 fails.
    other = face % 10 + 1
    forged = chronicle.replace(f"#1 = {face}`", f"#1 = {other}`")
    assert not verifier().verify(forged)[0]
