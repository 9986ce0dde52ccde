"""The hidden-roll commitment: binding, hiding, injective, checkable with ``sha256sum``."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
import subprocess
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localapi.patience import patient
from table import commitment
from table.commitment import HiddenRoll, hidden_roll, parse_payload

ROLL = hidden_roll(
    chat_id=-1001234567890,
    seq=17,
    profile="mage",
    pool=7,
    difficulty=6,
    threshold=0,
    willpower=False,
    faces=[7, 3, 10, 1, 6, 6, 2],
)
PAYLOAD = (
    "sdb-hidden-v1|chat=-1001234567890|seq=17|profile=mage|pool=7|difficulty=6|threshold=0"
    "|willpower=0|faces=7,3,10,1,6,6,2"
)
NONCE = "00112233445566778899aabbccddeeff" * 2

rolls = st.builds(
    HiddenRoll,
    chat_id=st.integers(-(10**13), 10**13),
    seq=st.integers(0, 10**6),
    profile=st.sampled_from(["mage", "mage-revised", "dark-ages", "d6", "a1-b"]),
    pool=st.integers(0, 30),
    difficulty=st.integers(0, 10),
    threshold=st.integers(0, 5),
    willpower=st.booleans(),
    faces=st.lists(st.integers(1, 10), max_size=12).map(tuple),
)


def test_payload_is_the_documented_line() -> None:
    assert ROLL.payload() == PAYLOAD


def test_reveal_line_and_commitment_by_hand() -> None:
    line = PAYLOAD + "|nonce=" + NONCE
    assert commitment.reveal_line(PAYLOAD, NONCE) == line
    assert commitment.commitment_of(PAYLOAD, NONCE) == hashlib.sha256(line.encode()).hexdigest()


def test_round_trip() -> None:
    digest, nonce = commitment.commit(PAYLOAD)
    assert len(digest) == 64
    assert len(nonce) == 64
    assert int(nonce, 16) >= 0
    assert commitment.verify(digest, nonce, PAYLOAD)
    assert commitment.verify(digest.upper(), nonce, PAYLOAD)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("chat_id", -1001234567891),
        ("chat_id", 1001234567890),
        ("seq", 18),
        ("profile", "mage-revised"),
        ("pool", 8),
        ("difficulty", 7),
        ("threshold", 1),
        ("willpower", True),
        ("faces", (7, 3, 10, 1, 6, 6, 3)),
        ("faces", (3, 7, 10, 1, 6, 6, 2)),
        ("faces", (7, 3, 10, 1, 6, 6)),
        ("faces", (7, 3, 10, 1, 6, 6, 2, 1)),
    ],
)
def test_any_changed_field_breaks_verification(field: str, value: Any) -> None:
    digest, nonce = commitment.commit(PAYLOAD)
    changed = dataclasses.replace(ROLL, **{field: value})
    assert changed.payload() != PAYLOAD
    assert not commitment.verify(digest, nonce, changed.payload())


def test_changed_nonce_or_commitment_breaks_verification() -> None:
    digest = commitment.commitment_of(PAYLOAD, NONCE)
    assert commitment.verify(digest, NONCE, PAYLOAD)
    for i in range(len(NONCE)):
        flipped = NONCE[:i] + ("1" if NONCE[i] != "1" else "2") + NONCE[i + 1 :]
        assert not commitment.verify(digest, flipped, PAYLOAD)
    other = ("0" if digest[0] != "0" else "1") + digest[1:]
    assert not commitment.verify(other, NONCE, PAYLOAD)


@pytest.mark.parametrize(
    ("digest", "nonce", "payload"),
    [
        ("", NONCE, PAYLOAD),
        ("z" * 64, NONCE, PAYLOAD),
        (None, NONCE, PAYLOAD),
        ("ab" * 32, NONCE[:-2], PAYLOAD),
        ("ab" * 32, NONCE.upper(), PAYLOAD),
        ("ab" * 32, NONCE, PAYLOAD + " "),
        ("ab" * 32, NONCE, PAYLOAD.replace("v1", "v2")),
        ("ab" * 32, NONCE, 42),
    ],
)
def test_malformed_input_does_not_verify_and_does_not_raise(
    digest: Any, nonce: Any, payload: Any
) -> None:
    assert commitment.verify(digest, nonce, payload) is False


def test_commit_rejects_a_non_canonical_payload() -> None:
    with pytest.raises(ValueError, match="canonical"):
        commitment.commit(
            "sdb-hidden-v1|chat=1|seq=01|profile=mage|pool=1|difficulty=6"
            "|threshold=0|willpower=0|faces=5"
        )


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils sha256sum missing")
def test_documented_shell_command_reproduces_the_commitment() -> None:
    digest, nonce = commitment.commit(PAYLOAD)
    command = commitment.shell_command(PAYLOAD, nonce)
    assert command == f"printf '%s' '{PAYLOAD}|nonce={nonce}' | sha256sum"
    out = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, check=True, timeout=patient(10)
    ).stdout
    assert out.split()[0] == digest


def test_split_reveal_line_is_the_inverse_of_reveal_line() -> None:
    line = commitment.reveal_line(PAYLOAD, NONCE)
    assert commitment.split_reveal_line(line) == (PAYLOAD, NONCE)
    with pytest.raises(ValueError, match="nonce"):
        commitment.split_reveal_line(PAYLOAD)


@pytest.mark.parametrize(
    "changes",
    [
        {"pool": True},
        {"pool": 7.0},
        {"pool": -1},
        {"seq": -1},
        {"faces": (7, 0)},
        {"faces": [7, 3]},
        {"willpower": 1},
        {"profile": "Mage"},
        {"profile": "mage|pool=9"},
        {"profile": ""},
        {"chat_id": "1"},
    ],
)
def test_fields_that_could_make_the_payload_ambiguous_are_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - each field has its own message
        dataclasses.replace(ROLL, **changes)


@pytest.mark.parametrize(
    "payload",
    [
        PAYLOAD.replace("seq=17", "seq=017"),
        PAYLOAD.replace("seq=17", "seq=+17"),
        PAYLOAD.replace("chat=-1001234567890", "chat=-0"),
        PAYLOAD.replace("willpower=0", "willpower=2"),
        PAYLOAD.replace("faces=7,3", "faces=7,,3"),
        PAYLOAD + ",",
        PAYLOAD.replace("|seq=17|profile=mage", "|profile=mage|seq=17"),
        PAYLOAD + "\n",
    ],
)
def test_parse_payload_accepts_only_canonical_text(payload: str) -> None:
    with pytest.raises(ValueError, match="canonical"):
        parse_payload(payload)


def test_empty_faces_round_trip() -> None:
    roll = dataclasses.replace(ROLL, faces=())
    assert roll.payload().endswith("|faces=")
    assert parse_payload(roll.payload()) == roll


@settings(max_examples=200, deadline=None)
@given(rolls)
def test_payload_parses_back_to_the_same_roll(roll: HiddenRoll) -> None:
    assert parse_payload(roll.payload()) == roll


@settings(max_examples=200, deadline=None)
@given(rolls, rolls)
def test_different_rolls_never_share_a_payload(a: HiddenRoll, b: HiddenRoll) -> None:
    assert (a.payload() == b.payload()) == (a == b)


@settings(max_examples=100, deadline=None)
@given(rolls, st.data())
def test_a_one_field_change_changes_the_payload(roll: HiddenRoll, data: st.DataObject) -> None:
    # Neighbours are the rolls most likely to collide in a sloppy format (7,3 vs 73, …).
    other = data.draw(rolls.filter(lambda r: r != roll))
    for field in dataclasses.fields(HiddenRoll):
        changed = dataclasses.replace(roll, **{field.name: getattr(other, field.name)})
        assert (changed.payload() == roll.payload()) == (changed == roll)


@settings(max_examples=100, deadline=None)
@given(rolls)
def test_same_roll_gets_a_fresh_nonce_and_commitment_each_time(roll: HiddenRoll) -> None:
    payload = roll.payload()
    (d1, n1), (d2, n2) = commitment.commit(payload), commitment.commit(payload)
    assert n1 != n2
    assert d1 != d2
    assert commitment.verify(d1, n1, payload)
    assert commitment.verify(d2, n2, payload)
    assert not commitment.verify(d1, n2, payload)
