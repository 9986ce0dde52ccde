"""The update's own secret: the same on every run of the update, apart from its dice."""

from __future__ import annotations

import pytest

from table import commitment
from table.scope import Scope
from table.store import Journal, RedisUnavailable, client_faults, update_secret


def test_an_update_run_again_has_the_same_secret_and_a_fresh_one_outside_an_update() -> None:
    first = Journal(key="k", seed=bytes(range(32)))
    again = Journal(key="k", seed=bytes(range(32)))
    other = Journal(key="k", seed=bytes(32))
    secrets = []
    for journal in (first, again, other):
        secrets.append(update_secret(Scope(journal=journal), "hidden:-1:1"))
    assert secrets[0] == secrets[1] != secrets[2]
    assert first.secret("hidden:-1:2") != secrets[0]
    outside = Scope()  # no update: fresh
    assert update_secret(outside, "hidden:-1:1") != update_secret(outside, "hidden:-1:1")
    assert first.secret("x", 16) == first.secret("x")[:16]


def test_a_fixed_nonce_commits_to_the_same_line() -> None:
    payload = commitment.hidden_roll(
        chat_id=-1,
        seq=1,
        profile="mage",
        pool=2,
        difficulty=6,
        threshold=0,
        willpower=False,
        faces=[3, 9],
    ).payload()
    nonce = bytes(range(32))
    assert commitment.commit(payload, nonce) == commitment.commit(payload, nonce)
    commitment_hex, nonce_hex = commitment.commit(payload, nonce)
    assert nonce_hex == nonce.hex()
    assert commitment.verify(commitment_hex, nonce_hex, payload)
    assert commitment.commit(payload)[1] != commitment.commit(payload)[1]


def test_the_redis_client_tripping_over_a_closed_connection_is_an_outage() -> None:
    """redis-py's cluster client, while a node goes away, may use a connection another task
    just closed: that AttributeError is an outage; any other stays a bug."""

    class Connection:
        _writer = None

        def send(self) -> None:
            self._writer.writelines([])  # type: ignore[attr-defined]

    connection = Connection()
    with pytest.raises(AttributeError), client_faults():
        connection.send()
    fault = compile("writer = None\nwriter.writelines([])", "redis/asyncio/connection.py", "exec")
    with pytest.raises(RedisUnavailable), client_faults():
        exec(fault, {"__name__": "redis.asyncio.connection"})
