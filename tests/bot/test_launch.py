"""Which start-up errors are a setting to fix (exit 2) and which are worth waiting out
(exit 3), and how each is told (bot/launch.py, README "Exit codes"); the real process is in
tests/bot/test_main.py."""

from __future__ import annotations

import errno

import pytest
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.methods import GetMe
from redis.exceptions import AuthenticationError

from bot.launch import startup_failure
from bot.settings import EXIT_BAD_SETTINGS, EXIT_UNREACHABLE, Settings

NO_PASSWORD_SET = (
    "AUTH <password> called without any password configured for the default user. "
    "Are you sure your configuration is correct?"
)
NOAUTH = "HELLO must be called with the client already authenticated, otherwise ..."


def settings(redis_url: str | None = None) -> Settings:
    return Settings(_env_file=None, bot_token="123456:ABC", redis_url=redis_url)


@pytest.mark.parametrize(
    ("error", "code", "said"),
    [
        (TelegramUnauthorizedError(GetMe(), "Unauthorized"), EXIT_BAD_SETTINGS, "BOT_TOKEN"),
        (TelegramNotFound(GetMe(), "Not Found"), EXIT_BAD_SETTINGS, "BOT_TOKEN"),
        (
            ClientDecodeError("x", ValueError(), "401 Unauthorized"),
            EXIT_BAD_SETTINGS,
            "TELEGRAM_API_URL",
        ),
        (TelegramServerError(GetMe(), "Bad Gateway"), EXIT_UNREACHABLE, "unreachable"),
        (
            TelegramNetworkError(GetMe(), "HTTP 502, an HTML page: 502 Bad Gateway"),
            EXIT_UNREACHABLE,
            "HTTP 502, an HTML page: 502 Bad Gateway",
        ),
        (OSError(errno.EADDRINUSE, "Address already in use"), EXIT_BAD_SETTINGS, "cannot listen"),
    ],
)
def test_telegram_and_ports(error: BaseException, code: int, said: str) -> None:
    failure = startup_failure(error, settings())
    assert failure is not None
    assert failure[0] == code
    assert said in failure[1]


@pytest.mark.parametrize(
    ("url", "message", "said"),
    [
        # no credentials given: Redis did not refuse any, it wants some
        ("redis://127.0.0.1:6379/0", NOAUTH, "Redis asks for a password and REDIS_URL gives none"),
        ("redis://127.0.0.1:6379/0", "Authentication required.", "gives none"),
        # a Redis with no password, given one
        ("redis://:s3cret@127.0.0.1:6379/0", NO_PASSWORD_SET, "Redis has no password set"),
        # the only real refusal: credentials given and wrong
        (
            "redis://:s3cret@127.0.0.1:6379/0",
            "invalid username-password pair or user is disabled.",
            "Redis refused the credentials in REDIS_URL",
        ),
        ("unix:///run/redis.sock?password=s3cret", "WRONGPASS", "refused the credentials"),
    ],
)
def test_redis_credentials_told_by_what_the_url_gave(url: str, message: str, said: str) -> None:
    failure = startup_failure(AuthenticationError(message), settings(url))
    assert failure is not None
    assert failure[0] == EXIT_BAD_SETTINGS
    assert said in failure[1]
    if "refused" not in said:
        assert "refused" not in failure[1]
    assert "s3cret" not in failure[1]


def test_a_bug_keeps_its_traceback() -> None:
    assert startup_failure(ValueError("bug"), settings()) is None
