"""Telegram's initData check: only what the bot's token signed, less than a day ago."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.miniapp import initdata
from bot.miniapp.initdata import InitDataError, Refusal, verify
from table.scope import Campaign

TOKEN = "123456:TEST-token_for-the-checks"
NOW = 1_800_000_000


def fields(**extra: str) -> dict[str, str]:
    user = {"id": 1002, "first_name": "Аня", "language_code": "ru", "username": "anya"}
    base = {"user": json.dumps(user, ensure_ascii=False), "auth_date": str(NOW - 60)}
    base.update(query_id="AAE", start_param="g100")
    base.update(extra)
    return base


def by_hand(data: dict[str, str], token: str) -> str:
    """Telegram's recipe, written out independently of the module."""
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{k}={v}" for k, v in sorted(data.items()))
    return urlencode({**data, "hash": hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()})


def test_valid_data_names_the_user_and_the_campaign() -> None:
    found = verify(by_hand(fields(), TOKEN), TOKEN, now=NOW)
    assert found.user.id == 1002
    assert found.user.first_name == "Аня"
    assert found.user.language_code == "ru"
    assert found.start_param == "g100"
    assert initdata.decode_campaign(found.start_param) == Campaign(-100)


def test_sign_matches_telegrams_recipe() -> None:
    assert dict(parse_qsl(initdata.sign(fields(), TOKEN))) == dict(
        parse_qsl(by_hand(fields(), TOKEN))
    )


def test_a_changed_field_is_forged() -> None:
    raw = dict(parse_qsl(by_hand(fields(), TOKEN)))
    raw["user"] = raw["user"].replace("1002", "1001")
    with pytest.raises(InitDataError) as refused:
        verify(urlencode(raw), TOKEN, now=NOW)
    assert refused.value.refusal is Refusal.FORGED


def test_a_forged_hash_is_refused() -> None:
    raw = dict(parse_qsl(by_hand(fields(), TOKEN)))
    raw["hash"] = "0" * 64
    with pytest.raises(InitDataError) as refused:
        verify(urlencode(raw), TOKEN, now=NOW)
    assert refused.value.refusal is Refusal.FORGED


def test_another_bots_token_is_refused() -> None:
    with pytest.raises(InitDataError) as refused:
        verify(by_hand(fields(), "999:OTHER"), TOKEN, now=NOW)
    assert refused.value.refusal is Refusal.FORGED


def test_data_older_than_a_day_is_expired() -> None:
    old = fields(auth_date=str(NOW - 86_401))
    with pytest.raises(InitDataError) as refused:
        verify(by_hand(old, TOKEN), TOKEN, now=NOW)
    assert refused.value.refusal is Refusal.EXPIRED
    assert verify(by_hand(fields(auth_date=str(NOW - 86_000)), TOKEN), TOKEN, now=NOW)


@pytest.mark.parametrize("missing", ["hash", "user", "auth_date"])
def test_missing_fields_are_refused(missing: str) -> None:
    raw = dict(parse_qsl(by_hand(fields(), TOKEN)))
    del raw[missing]
    with pytest.raises(InitDataError) as refused:
        verify(urlencode(raw), TOKEN, now=NOW)
    assert refused.value.refusal in (Refusal.MISSING, Refusal.FORGED)
    if missing != "hash":
        # the hash no longer matches either, but nothing is read from unsigned data
        assert refused.value.refusal is Refusal.MISSING


@pytest.mark.parametrize("raw", ["", "garbage", "hash=&user=", "%%%"])
def test_nonsense_is_refused(raw: str) -> None:
    with pytest.raises(InitDataError):
        verify(raw, TOKEN, now=NOW)


def test_campaign_codes_round_trip() -> None:
    for chat_id in (-100123, -5, 42):
        assert initdata.decode_campaign(initdata.encode_campaign(chat_id)) == Campaign(chat_id)
    for bad in (None, "", "x1", "g", "g-1", "g1" * 40):
        assert initdata.decode_campaign(bad) is None
