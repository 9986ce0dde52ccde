"""Settings: a wrong or missing one stops `python -m bot` with one line and exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.settings import Settings, describe_error
from localapi.patience import patient

ROOT = Path(__file__).resolve().parents[2]
GOOD_TOKEN = "123456789:AAE-abc_DEF123"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own BOT_TOKEN or REDIS_URL must not leak into these tests."""
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)


def make(**env: str) -> Settings:
    return Settings(_env_file=None, **env)  # type: ignore[arg-type]


def run_bot(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "SYSTEMROOT"}}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        env={**clean, **env},
        cwd=cwd,  # an empty directory: no .env from the developer's checkout
        capture_output=True,
        text=True,
        timeout=patient(30),  # importing the bot on a busy machine: times the scale
    )


def test_defaults() -> None:
    settings = make(bot_token=GOOD_TOKEN)
    assert settings.telegram_api_url == "https://api.telegram.org"
    assert settings.default_locale == "ru"
    assert settings.redis_url is None
    assert settings.webhook_port == 8080
    assert settings.webhook_host == "0.0.0.0"
    assert settings.log_level == "INFO"
    assert GOOD_TOKEN not in repr(settings)


def test_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", GOOD_TOKEN)
    monkeypatch.setenv("DEFAULT_LOCALE", "EN")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("REDIS_URL", "redis://localhost:6379/1")
    monkeypatch.setenv("TELEGRAM_API_URL", "http://127.0.0.1:8081/")
    monkeypatch.setenv("WEBHOOK_URL", "https://dice.example.org/tg/hook")
    monkeypatch.setenv("WEBHOOK_SECRET", "s3cret_-X")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.default_locale == "en"
    assert settings.log_level == "DEBUG"
    assert settings.telegram_api_url == "http://127.0.0.1:8081"
    assert settings.listen_path == "/tg/hook"
    assert settings.bot_token is not None
    assert settings.bot_token.get_secret_value() == GOOD_TOKEN


def test_env_file_and_blank_values(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"BOT_TOKEN={GOOD_TOKEN}\nREDIS_URL=\nWEBHOOK_PATH=/in\n")
    settings = Settings(_env_file=env_file)  # type: ignore[call-arg]
    assert settings.redis_url is None
    assert settings.listen_path == "/in"


@pytest.mark.parametrize(
    ("env", "field"),
    [
        ({"bot_token": "not-a-token"}, "BOT_TOKEN"),
        ({"bot_token": "abc:def"}, "BOT_TOKEN"),
        ({"redis_url": "http://localhost"}, "REDIS_URL"),
        ({"redis_url": "redis+cluster://"}, "REDIS_URL"),
        ({"redis_url": "redis+cluster://10.0.0.5:7000/3"}, "REDIS_URL"),
        ({"telegram_api_url": "api.telegram.org"}, "TELEGRAM_API_URL"),
        ({"default_locale": "de"}, "DEFAULT_LOCALE"),
        ({"log_level": "LOUD"}, "LOG_LEVEL"),
        ({"webhook_port": "99999"}, "WEBHOOK_PORT"),
        ({"webhook_url": "https://x.org/h", "webhook_secret": "has space"}, "WEBHOOK_SECRET"),
        ({"webhook_url": "https://x.org/h", "webhook_secret": "a" * 257}, "WEBHOOK_SECRET"),
        ({"webhook_url": "https://x.org/h"}, "WEBHOOK_SECRET"),
    ],
)
def test_bad_values_are_named(env: dict[str, str], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        make(**env)
    line = describe_error(caught.value)
    assert "\n" not in line
    assert field in line


def test_a_redis_cluster_is_named_by_one_of_its_nodes() -> None:
    for url in ("redis+cluster://10.0.0.5:7000", "rediss+cluster://u:p@redis.example.org:6380"):
        assert make(redis_url=url).redis_url == url


def test_secret_charset_accepts_telegram_alphabet() -> None:
    settings = make(webhook_url="https://x.org/h", webhook_secret="Az09_-" * 42)
    assert settings.webhook_secret is not None


def test_missing_token_exits_2_with_one_line(tmp_path: Path) -> None:
    result = run_bot({}, tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "BOT_TOKEN" in lines[0]
    assert "Traceback" not in result.stderr


def test_malformed_settings_exit_2_with_one_line(tmp_path: Path) -> None:
    result = run_bot({"BOT_TOKEN": "oops", "DEFAULT_LOCALE": "fr"}, tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "BOT_TOKEN" in lines[0]
    assert "DEFAULT_LOCALE" in lines[0]
    assert "oops" not in lines[0]


def test_env_example_lists_every_setting_and_parses() -> None:
    example = ROOT / ".env.example"
    names = {
        line.split("=", 1)[0]
        for line in example.read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert names == {name.upper() for name in Settings.model_fields}
    settings = Settings(_env_file=example)  # type: ignore[call-arg]
    assert settings.bot_token is None
    assert settings.webhook_url is None
    assert settings.listen_path == "/webhook"


def test_unknown_argument_exits_2(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    result = subprocess.run(
        [sys.executable, "-m", "bot", "--frobnicate"],
        env={**clean, "PYTHONPATH": str(ROOT), "BOT_TOKEN": GOOD_TOKEN},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=patient(30),
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "bot: unknown arguments: --frobnicate (usage: python -m bot "
        "[--version | playground [--port P] [--no-browser]])"
    ]
